"""Random well-formed signatures (hypothesis strategies) for the properties of the DSL:
the round trip of ``tests/test_signature_parse.py`` and those of ``test_template.py``
and ``test_robustness.py``.

:func:`alternatives` draws only alternatives the DSL's check accepts
(:func:`kantensor.syntax.alternative.check`), by building each as the rules ask rather
than drawing at random and rejecting the ill-formed (which was 85% of the draws, most of
those properties' time): an input has at most one group of any length; the j-th
anonymous group has one k in every operand; each where-clause, then each output, uses
only the names the inputs and the clauses before it bind (a name an expression or a
dtype term would use unbound is renamed to a bound one, or to a constant where there is
none). The clauses still bind names of their own as the DSL lets them: ``k == m + 1``
defines ``k`` (over names the inputs bind, or that other such clauses define), a
comparison declares its names where one of them is bound or it has one name only (``m
<= n``, ``k >= 0``), ``T == U`` / ``T == promote(U, ...)`` define the dtype variable
``T``; an output may use each. ``benchmarks/strategy_features.py`` counts the features
reached (before this strategy and after: none lost).
"""

from __future__ import annotations

from hypothesis import strategies as st

import sizing
from kantensor.syntax import vocabulary as V
from kantensor.syntax.alternative import Alternative
from kantensor.syntax.ast import (
    CATEGORIES,
    DTYPE_NAMES,
    AnonGroup,
    AnyGroup,
    BinOp,
    Call,
    Compare,
    Compatible,
    DimVar,
    DTypeEq,
    DTypeFunction,
    DTypeName,
    DTypeVar,
    FixedDim,
    FlexDim,
    InCategory,
    NamedGroup,
    Promote,
    TensorPattern,
    expr_names,
)
from kantensor.syntax.ast.dtypes import dtype_names

#: Random signatures the properties are checked on (the long run: 500).
AST_EXAMPLES = sizing.size("AST_EXAMPLES", 100, 500)

DIM_NAMES = ["m", "n", "p", "k", "d2", "batch_size", "index", "integer"]
FLEX_NAMES = ["f", "g"]
GROUP_NAMES = ["bt", "rest"]
TYPE_VARS = ["T", "U", "x", "floaty"]

leaf_exprs = st.one_of(st.sampled_from(DIM_NAMES).map(DimVar), st.integers(0, 99))
exprs = st.recursive(
    leaf_exprs,
    lambda sub: st.one_of(
        st.builds(BinOp, st.sampled_from(["+", "-", "*", "//", "%"]), sub, sub),
        st.builds(Call, st.sampled_from(["min", "max"]), st.lists(sub, min_size=1, max_size=3)),
    ),
    max_leaves=8,
).map(lambda e: FixedDim(e) if isinstance(e, int) else e)
items = st.one_of(
    exprs,
    st.sampled_from(FLEX_NAMES).map(FlexDim),
    st.integers(1, 4).map(AnonGroup),
    st.sampled_from(GROUP_NAMES).map(NamedGroup),
)
dtypes = st.recursive(
    st.one_of(st.sampled_from(sorted(DTYPE_NAMES)).map(DTypeName),
              st.sampled_from(TYPE_VARS).map(DTypeVar)),  # fmt: skip
    lambda sub: st.one_of(
        st.builds(Promote, st.lists(sub, min_size=1, max_size=3)),
        st.builds(DTypeFunction, st.sampled_from([w for w in V.DTYPE_FUNCTIONS
                                                  if w.arity == (1, 1)]), sub)
    ),
    max_leaves=5,
)
#: What a where-clause is, before its names are bound: a comparison of sizes, or one of
#: the three dtype clauses (each a quarter of the draws).
CLAUSE_KINDS = ["compare", "in", "eq", "compatible"]
COMPARISONS = ["==", "!=", "<", "<=", ">", ">="]


class _Names:
    """The names an alternative binds so far: sizes the inputs bind or a definition
    defines (``defined``), those and the ones a comparison declares (``declared``);
    dtype variables (``dtypes``); flexible dims and named groups of the inputs, and
    whether an input has ``...``."""

    def __init__(self, inputs: list[TensorPattern]) -> None:
        self.defined: set[str] = set()
        self.dtypes: set[str] = set()
        self.flex: set[str] = set()
        self.groups: set[str] = set()
        self.any_group = False
        for op in inputs:
            for d in op.dims:
                if isinstance(d, FlexDim):
                    self.flex.add(d.name)
                elif isinstance(d, NamedGroup):
                    self.groups.add(d.name)
                elif isinstance(d, AnyGroup):
                    self.any_group = True
                elif not isinstance(d, AnonGroup):
                    self.defined.update(expr_names(d))
            if op.dtype is not None:
                self.dtypes.update(dtype_names(op.dtype))
        self.declared = set(self.defined)


def _bound_expr(draw: st.DrawFn, x: object, bound: set[str]) -> object:
    """``x`` with each name not in ``bound`` renamed to one that is (a constant where
    none is); the same name renamed alike."""
    free = sorted(set(expr_names(x)) - bound)
    if not free:
        return x
    to = {n: draw(st.sampled_from(sorted(bound)).map(DimVar) if bound else st.integers(0, 99))
          for n in free}
    out = _renamed(x, to)
    return FixedDim(out) if isinstance(out, int) else out


def _renamed(x: object, to: dict) -> object:
    if isinstance(x, DimVar):
        return to.get(x.name, x)
    if isinstance(x, BinOp):
        return BinOp(x.op, _renamed(x.left, to), _renamed(x.right, to))
    if isinstance(x, Call):
        return Call(x.fn, tuple(_renamed(a, to) for a in x.args))
    return x


def _bound_dtype(draw: st.DrawFn, x: object, bound: set[str]) -> object:
    """``x`` with each dtype variable not in ``bound`` renamed to one that is, or to a
    dtype name."""
    free = sorted(set(dtype_names(x)) - bound)
    if not free:
        return x
    names = st.sampled_from(sorted(DTYPE_NAMES)).map(DTypeName)
    to = {n: draw(st.sampled_from(sorted(bound)).map(DTypeVar) | names if bound else names)
          for n in free}
    return _retyped(x, to)


def _retyped(x: object, to: dict) -> object:
    if isinstance(x, DTypeVar):
        return to.get(x.name, x)
    if isinstance(x, Promote):
        return type(x)(tuple(_retyped(a, to) for a in x.args))
    if isinstance(x, DTypeFunction):
        return DTypeFunction(x.word, _retyped(x.arg, to))
    return x


def _compare(draw: st.DrawFn, names: _Names) -> Compare:
    """A comparison that is well-formed after the clauses before it: over bound names,
    or one that defines or declares its new names as the DSL lets it."""
    op, left, right = draw(st.sampled_from(COMPARISONS)), draw(exprs), draw(exprs)
    unused = sorted(set(DIM_NAMES) - names.declared)
    if op == "==" and unused and draw(st.booleans()):  # (a definition, as often as not)
        target = DimVar(draw(st.sampled_from(unused)))
        left, right = (target, _bound_expr(draw, right, names.defined)) if \
            draw(st.booleans()) else (_bound_expr(draw, left, names.defined), target)
    found = set(expr_names(left)) | set(expr_names(right))
    new = found - names.declared
    if not new:
        return Compare(op, left, right)
    for target, source in ((left, right), (right, left)):
        if op == "==" and isinstance(target, DimVar) and target.name in new and \
                set(expr_names(source)) <= names.defined:
            names.defined.add(target.name)
            names.declared.add(target.name)
            return Compare(op, left, right)
    if op != "==" and (found & names.declared or len(found) == 1):
        names.declared |= found
        return Compare(op, left, right)
    return Compare(op, _bound_expr(draw, left, names.declared),
                   _bound_expr(draw, right, names.declared))


def _dtype_eq(draw: st.DrawFn, names: _Names) -> DTypeEq:
    """``a == b`` over dtype terms; a bare variable on one side whose other side is bound
    is defined by it (a bare pair needs one side a dtype the alternative knows)."""
    left, right = draw(dtypes), draw(dtypes)
    for target, source in ((left, right), (right, left)):
        if isinstance(target, DTypeVar) and set(dtype_names(source)) <= names.dtypes:
            names.dtypes.add(target.name)
            return DTypeEq(left, right)
    return DTypeEq(_bound_dtype(draw, left, names.dtypes),
                   _bound_dtype(draw, right, names.dtypes))


def _clause(draw: st.DrawFn, names: _Names) -> object:
    kind = draw(st.sampled_from(CLAUSE_KINDS))
    if kind == "compare":
        return _compare(draw, names)
    if kind == "eq":
        return _dtype_eq(draw, names)
    if kind == "in":
        return InCategory(_bound_dtype(draw, draw(dtypes), names.dtypes),
                          draw(st.sampled_from(sorted(CATEGORIES))))
    return Compatible(_bound_dtype(draw, draw(dtypes), names.dtypes),
                      _bound_dtype(draw, draw(dtypes), names.dtypes))


def _anonymous(dims: list, ks: list[int]) -> list:
    """``dims`` with its j-th anonymous group of ``ks[j]`` dims (one k a group)."""
    out, j = [], 0
    for d in dims:
        if isinstance(d, AnonGroup):
            d, j = AnonGroup(ks[j]), j + 1
        out.append(d)
    return out


@st.composite
def _input(draw: st.DrawFn, ks: list[int]) -> TensorPattern:
    """An input: dims, flexible dims and anonymous groups, and at most one group of any
    length (``...`` or ``*name``)."""
    dims = draw(st.lists(st.one_of(exprs, st.sampled_from(FLEX_NAMES).map(FlexDim),
                                   st.integers(1, 4).map(AnonGroup)), max_size=4))
    group = draw(st.none() | st.just(AnyGroup()) | st.sampled_from(GROUP_NAMES).map(NamedGroup))
    if group is not None:
        dims.insert(draw(st.integers(0, len(dims))), group)
    return TensorPattern(_anonymous(dims, ks), draw(st.none() | dtypes))


def _output(draw: st.DrawFn, ks: list[int], names: _Names) -> TensorPattern:
    """An output over the names bound: a flexible dim or group no input has is another
    one the inputs have (an expression where they have none); one ``...`` at most."""
    dims = []
    for d in draw(st.lists(items, max_size=4)):
        if isinstance(d, FlexDim) and d.name not in names.flex:
            d = draw(st.sampled_from(sorted(names.flex)).map(FlexDim) if names.flex else exprs)
        elif isinstance(d, NamedGroup) and d.name not in names.groups:
            d = draw(st.sampled_from(sorted(names.groups)).map(NamedGroup)
                     if names.groups else exprs)
        if not isinstance(d, FlexDim | AnonGroup | NamedGroup):
            d = _bound_expr(draw, d, names.declared)
        dims.append(d)
    if names.any_group and draw(st.booleans()):
        dims.insert(draw(st.integers(0, len(dims))), AnyGroup())
    dtype = draw(st.none() | dtypes)
    return TensorPattern(_anonymous(dims, ks),
                         None if dtype is None else _bound_dtype(draw, dtype, names.dtypes))


@st.composite
def alternatives(draw: st.DrawFn) -> Alternative:
    """One well-formed alternative (see the module's doc)."""
    loop = draw(st.sampled_from([None, "+", "="]))
    cap = None if loop is None else draw(st.none() | st.integers(0, 5))
    ks = draw(st.lists(st.integers(1, 4), min_size=4, max_size=4))
    inputs = draw(st.lists(_input(ks), max_size=3))
    names = _Names(inputs)
    where = [_clause(draw, names) for _ in range(draw(st.integers(0, 3)))]
    outputs = [_output(draw, ks, names) for _ in range(draw(st.integers(1, 3)))]
    return Alternative(tuple(inputs), tuple(outputs), tuple(where), loop, cap)

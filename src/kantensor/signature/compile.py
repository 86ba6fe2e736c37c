"""Compile one alternative of a signature into constraints over tensor terms.

Applying a :class:`CompiledAlternative` to input and output terms posts constraints
into a kanren state (:mod:`kantensor.logic.store`): a :class:`~.axes.Structure`
propagator for the axes, groups and flexible dims (:mod:`kantensor.signature.axes`), and
constraints for sizes, dtypes and where-clauses. Nothing is decided by direction: with
the inputs known the constraints compute the outputs, with the outputs known they narrow
the inputs, and whatever stays open is enumerated by ``labelo``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kanren.constraints import ConstrainedState

from ..graph.once import once
from ..logic.broadcast import Broadcast
from ..logic.dims import COMPARE, Compare, Equation, Expr
from ..logic.dtypes import (
    Compatible,
    DTypeMap,
    InCategory,
    InDefaultRange,
    Operand,
    Promote,
    WrappedOk,
    category_dtypes,
)
from ..logic.store import Constraint, Progress, Reason, fail_because, post, said, unify_oc
from ..logic.terms import TensorTerm, fresh, isvar, walk
from ..syntax import ast as A
from ..syntax.alternative import Alternative, Place
from ..types.dtypes import DEFAULT_RANGE
from .axes import GUARD, Env, Structure
from .layout import Axes

__all__ = ["DEFAULT_MAX_RANK", "GUARD", "CompiledAlternative", "compile_alternative",
           "constant_truth", "known_dtypes"]

#: Largest number of axes a group takes when a query leaves its length open.
DEFAULT_MAX_RANK = 10

#: The dtypes an input takes when its annotation names no category or dtype (every
#: dtype but string): the one object :func:`_static_guards` gives such inputs.
_DEFAULT = frozenset(DEFAULT_RANGE)


class CompiledAlternative:
    """An alternative ready to be applied as a relation (compiled once, cached)."""

    def __init__(self, alt: Alternative):
        self.alt = alt
        self.n_in = len(alt.inputs)
        self.operands = alt.operands
        self.axes = Axes(alt)
        # each where-clause's truth when it compares constants (None: it does not), found
        # once for the guards and the clauses kept
        truths = [constant_truth(c) for c in alt.where]
        self.dead, self.input_dtypes = _static_guards(alt, truths)
        #: the inputs whose dtype only the default range bounds (no category, no name)
        self._ranged = tuple(i for i, a in enumerate(self.input_dtypes) if a is _DEFAULT)
        self._binders: dict[str, list[int]] = {}  # dtype variable -> the inputs it annotates
        for i, op in enumerate(alt.inputs):
            if isinstance(op.dtype, A.DTypeVar):
                self._binders.setdefault(op.dtype.name, []).append(i)
        # where-clauses between constants that hold (``0 == 0`` from a template) post
        # nothing: they constrain no variable
        self.where_clauses = tuple([c for c, truth in zip(alt.where, truths, strict=True)
                                    if truth is not True])

    @once
    def dividing(self) -> tuple:
        """The sides of its where-clause comparisons that divide by a size: where such a
        divisor is 0 the clause is undefined, whatever its sides' values say (a direct
        build states it nonzero, as the relation's :class:`~..logic.dims.Divisor`)."""
        return tuple([side for c in self.where_clauses if isinstance(c, A.Compare)
                      for side in (c.left, c.right) if A.divisors(side)])

    @once
    def _dtype_origin(self) -> dict[str, Place]:
        """Where each dtype variable is first seen among the operands (for messages and
        the relation's dtype constraints; made when first asked: a direct build never
        asks)."""
        origin: dict[str, Place] = {}
        for i, op in enumerate(self.operands):
            if isinstance(op.dtype, A.DTypeVar):
                origin.setdefault(op.dtype.name, self.where(i))
        return origin

    @once
    def _clause_texts(self) -> tuple[tuple[str, tuple], ...]:
        """Per where-clause, what its constraint says in messages (made once, when first
        asked: a direct build asks only where a condition is kept): its text, and a
        broadcast's operand axes or a category's dtype text and the inputs that dtype
        annotates."""
        return tuple(zip(self.clause_texts, map(self._clause_facts, self.where_clauses),
                         strict=True))

    @once
    def clause_texts(self) -> tuple[str, ...]:
        """Each where-clause's text (what a kept condition's source says), made once, when
        first asked."""
        return tuple([str(c) for c in self.where_clauses])

    @once
    def _dtype_where(self) -> tuple[str, ...]:
        """Each operand's dtype as messages name it (made once, when first asked)."""
        return tuple(f"{self.where(i)} dtype" for i in range(len(self.operands)))

    def _clause_facts(self, clause: A.Clause) -> tuple:
        if isinstance(clause, A.Broadcasts):
            return _operand_axes(self.alt, clause.args)
        if isinstance(clause, A.InCategory):
            own = self._binders.get(clause.dtype.name, ()) \
                if isinstance(clause.dtype, A.DTypeVar) else ()
            return str(clause.dtype), tuple(own) if len(own) < self.n_in else ()
        return ()

    def refuses(self, in_terms: list, s: dict) -> bool:
        """Does the alternative certainly fail on these inputs, by what is decided
        without solving: a where-clause between constants that is false (``0 == 1``),
        or an input dtype outside what its annotation and ``t in category`` allow?
        Only a shortcut: ``apply`` fails on exactly these too."""
        return self.refuses_dtypes(known_dtypes(in_terms, s))

    def refuses_dtypes(self, dtypes: tuple) -> bool:
        """:meth:`refuses` for inputs of ``dtypes`` (see :func:`known_dtypes`), which a
        caller trying several alternatives finds once."""
        if self.dead:
            return True
        for allowed, d in zip(self.input_dtypes, dtypes, strict=False):
            if d is not None and d not in allowed:
                return True
        return False

    def where(self, i: int) -> Place:
        return self.axes.where(i)

    # -- application -------------------------------------------------------------------
    def apply(self, S: ConstrainedState, in_terms: list, out_terms: list,
              max_rank: int = DEFAULT_MAX_RANK, axes_last: bool = False) -> bool:
        """Post this alternative's constraints on ``in_terms``/``out_terms`` into ``S``
        (in place); False if they fail at once.

        ``axes_last`` checks the dtypes and where-clauses before the axes: the same
        answer (propagation runs to a fixpoint), and an overload refused by its dtypes
        fails before its shapes are matched. Used by the forward solve, where the first
        failure's reason is not reported (``explain`` reports the axes' first)."""
        s = S.data
        env = Env(self._dtype_origin)
        tensors = []
        copied = False
        for i, t in enumerate([*in_terms, *out_terms]):
            if type(t) is not TensorTerm:
                t = walk(t, s)
            if type(t) is TensorTerm:
                pass
            elif isvar(t):  # bound to a term of new variables, which it cannot occur in
                new = TensorTerm(fresh(), fresh(), fresh() if i < self.n_in else False)
                if not copied:
                    s, copied = s.copy(), True
                s[t] = new
                t = new
            elif not isinstance(t, TensorTerm):
                fail_because(lambda i=i, t=t: said(self.where(i), f" is not a tensor type: {t!r}"))
                return False
            tensors.append(t)
        for t in tensors[self.n_in:]:  # wrapped status never propagates to outputs
            if t.wrapped is not False:
                s = unify_oc(t.wrapped, False, s)
                if s is False:
                    return False
        S.data = s
        variant = () if self.axes.flex is None else fresh(prefix="variant")
        axes = Structure(self.axes, env, tuple([t.shape for t in tensors]), variant, max_rank)
        constraints: list[Constraint] = [] if axes_last else [axes]
        for i, t in enumerate(tensors[:self.n_in]):
            if t.wrapped is not False:  # an operand known not to be wrapped is fine
                constraints.append(WrappedOk(t.dtype, t.shape, t.wrapped, self.where(i)))
        for i in self._ranged:  # a string input only where a where-clause admits it
            d = walk(tensors[i].dtype, s)
            if type(d) is not str or d not in _DEFAULT:
                constraints.append(InDefaultRange(tensors[i].dtype, self.where(i)))
        binders = self._binders
        constraints += self._dtypes(env, tensors, binders)
        constraints += self._clauses(env, tensors, binders)
        if axes_last:
            constraints.append(axes)
        return post(S, *constraints)

    def _dtypes(self, env: Env, tensors: list[TensorTerm], binders: dict) -> list:
        out: list = []
        for i, op in enumerate(self.operands):
            t = tensors[i]
            if op.dtype is None:
                if i >= self.n_in and self.n_in:
                    operands = tuple([Operand(x.dtype, x.shape, x.wrapped)
                                      for x in tensors[:self.n_in]])
                    out.append(Promote(t.dtype, operands, self._dtype_where[i]))
                continue
            if i < self.n_in and type(op.dtype) is A.DTypeVar and op.dtype.name not in env.dtypes:
                env.dtypes[op.dtype.name] = t.dtype  # its first occurrence: nothing to unify
                continue
            term = self._dtype_term(op.dtype, env, out, binders, tensors)
            out.append(_DTypeIs(term, t.dtype, self, i, env))
        return out

    def _dtype_term(self, node: Any, env: Env, out: list, binders: dict, tensors: list) -> Any:
        if isinstance(node, A.DTypeName):
            return node.name
        if isinstance(node, A.DTypeVar):
            return env.dtype(node.name)
        result = fresh()
        if isinstance(node, A.Promote):
            operands: list[Operand] = []
            for a in node.args:
                term = self._dtype_term(a, env, out, binders, tensors)
                inputs = binders.get(a.name, ()) if isinstance(a, A.DTypeVar) else ()
                if node.joint or not inputs:
                    operands.append(Operand(term))
                else:
                    operands += [Operand(term, tensors[i].shape, tensors[i].wrapped)
                                 for i in inputs]
            out.append(Promote(result, tuple(operands), f"dtype {node}", node.loop))
        else:
            arg = self._dtype_term(node.arg, env, out, binders, tensors)
            out.append(DTypeMap(result, arg, node.word, f"dtype {node}"))
        return result

    @staticmethod
    def _size(node: Any, env: Env, out: list) -> Any:
        """The size term of a dim expression: its variable, its int, or a fresh variable
        tied to it by an equation (added to ``out``)."""
        if isinstance(node, A.DimVar):
            return env.dim(node.name)
        if isinstance(node, A.FixedDim):
            return node.size
        v = fresh()
        out.append(Equation(Expr(v), env.expr(node), str(node), "where-clause"))
        return v

    def _clauses(self, env: Env, tensors: list, binders: dict) -> list:
        out: list = []
        for clause, (text, facts) in zip(self.where_clauses, self._clause_texts, strict=True):
            if isinstance(clause, A.Compare):
                left, right = env.expr(clause.left), env.expr(clause.right)
                if clause.op == "==":  # solved like an equation (defines a size)
                    out.append(Equation(left, right, text, "where-clause"))
                else:
                    out.append(Compare(clause.op, left, right, text, clause.otherwise))
            elif isinstance(clause, A.Broadcasts):
                out.append(Broadcast(tuple(self._size(a, env, out) for a in clause.args),
                                     self._size(clause.result, env, out), f"where-clause {text}",
                                     facts, clause))
            elif isinstance(clause, A.InCategory):
                term = self._dtype_term(clause.dtype, env, out, binders, tensors)
                if type(term) is not str or term not in category_dtypes(clause.category):
                    out.append(InCategory(term, clause.category, *facts))  # else: it holds
            elif isinstance(clause, A.Compatible):
                out.append(Compatible(self._dtype_term(clause.left, env, out, binders, tensors),
                                      self._dtype_term(clause.right, env, out, binders, tensors),
                                      text))
            else:  # DTypeEq
                out.append(_DTypeIs(self._dtype_term(clause.left, env, out, binders, tensors),
                                    self._dtype_term(clause.right, env, out, binders, tensors),
                                    self, None, env, text))
        return out


def _operand_axes(alt: Alternative, args: tuple) -> tuple:
    """Per argument of a ``broadcast(...)`` clause, the ``(input, axis)`` it is a size
    of, so that a failure names operands and axes, never the signature's dim names
    (``axis`` negative when counted from the right, None when a group of unknown length
    stands on both sides); ``()`` unless every argument is a dim an input holds."""
    out = []
    for arg in args:
        found = None
        if isinstance(arg, A.DimVar):
            found = next(((i, _axis(alt, op.dims, k)) for i, op in enumerate(alt.inputs)
                          for k, d in enumerate(op.dims) if d == arg), None)
        if found is None:
            return ()
        out.append(found)
    return tuple(out)


def _width(item: Any) -> int | None:
    """How many axes an operand item takes (None: a group of unknown length)."""
    if isinstance(item, A.EXPR_TYPES):
        return 1
    return item.k if isinstance(item, A.AnonGroup) else None


def _axis(alt: Alternative, dims: tuple, k: int) -> int | None:
    """The axis item ``k`` of an operand with ``dims`` stands at."""
    before = [_width(d) for d in dims[:k]]
    if alt.loop is None and None not in before:
        return sum(before)  # type: ignore[arg-type]
    after = [_width(d) for d in dims[k + 1:]]
    return None if None in after else -1 - sum(after)  # type: ignore[arg-type]


def known_dtypes(in_terms: list, s: dict) -> tuple:
    """The dtype of each input term in ``s``: its name, or None while it is unknown."""
    out = []
    for t in in_terms:
        t = walk(t, s)
        d = walk(t.dtype, s) if isinstance(t, TensorTerm) else None
        out.append(d if isinstance(d, str) else None)
    return tuple(out)


@dataclass(frozen=True, eq=False)
class _DTypeIs(Constraint):
    """A dtype annotation or ``T == U`` clause: unify the two dtype terms."""

    term: Any
    dtype: Any
    alt: CompiledAlternative
    operand: int | None
    env: Env
    text: str = ""

    def check(self, s: dict, pending: tuple) -> Progress:
        out = unify_oc(self.term, self.dtype, s)
        return (out, True) if out is not False else None

    def terms(self) -> tuple:
        return (self.term, self.dtype)

    def explain(self, s: dict) -> str:
        want, got = walk(self.term, s), walk(self.dtype, s)
        if self.operand is None:
            return Reason(f"where-clause {self.text} fails: {want} != {got}", "dtype")
        where = self.alt.where(self.operand)
        pattern = self.alt.operands[self.operand]
        if isinstance(pattern.dtype, A.DTypeVar):
            first = self.env.dtype_origin.get(pattern.dtype.name, "another operand")
            return said(f"dtype {pattern.dtype.name} is {want} in ", first, f" but {got} in ",
                        where, kind="dtype")
        return said(where, f" must have dtype {pattern.dtype}, got {got}", kind="dtype")


@lru_cache(maxsize=4096)
def compile_alternative(alt: Alternative) -> CompiledAlternative:
    """The compiled form of ``alt`` (cached: compiled once per alternative)."""
    return CompiledAlternative(alt)


def constant_truth(clause: Any) -> bool | None:
    """Whether ``clause``, a comparison between constants, is true; None when it is not
    one (it names a size, divides by zero, or is no comparison)."""
    if not isinstance(clause, A.Compare):
        return None
    try:
        left = A.evaluate(clause.left, _no_names)
        right = A.evaluate(clause.right, _no_names)
    except (LookupError, ZeroDivisionError):
        return None
    if not (isinstance(left, int) and isinstance(right, int)):
        return None
    return bool(COMPARE[clause.op](left, right))


def _static_guards(alt: Alternative, truths: list[bool | None]
                   ) -> tuple[bool, tuple[frozenset | None, ...]]:
    """What :meth:`CompiledAlternative.refuses` checks: whether a where-clause between
    constants is false (``truths``: each clause's :func:`constant_truth`), and per input
    the dtypes its annotation allows (:data:`_DEFAULT` where it names no dtype and no
    category: strings only where a clause admits them)."""
    dead = False in truths
    allowed: dict[str, frozenset] = {}
    for clause in alt.where:
        if isinstance(clause, A.InCategory) and isinstance(clause.dtype, A.DTypeVar):
            name, dtypes = clause.dtype.name, category_dtypes(clause.category)
            known = allowed.get(name)  # (a variable's one set kept as it is, not copied)
            allowed[name] = dtypes if known is None else known & dtypes
    per_input: list[frozenset] = []
    for op in alt.inputs:
        if isinstance(op.dtype, A.DTypeName):
            per_input.append(frozenset((op.dtype.name,)))
        elif isinstance(op.dtype, A.DTypeVar):
            per_input.append(allowed.get(op.dtype.name, _DEFAULT))
        else:
            per_input.append(_DEFAULT)
    return dead, tuple(per_input)


def _no_names(name: str) -> int:
    raise LookupError(name)

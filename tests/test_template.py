"""The DSL's Python form: dims compute and compare into the AST the text parses to, and
templates parsed once are filled with objects into the alternatives their text gives."""

from __future__ import annotations

import operator
import tomllib
from string import Formatter

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor import Signature
from kantensor.ops.shipped import catalogue_files, register_forms
from kantensor.syntax import forms
from kantensor.syntax.alternative import Alternative, IllFormed
from kantensor.syntax.ast import (
    CATEGORIES,
    DTYPE_NAMES,
    BinOp,
    Call,
    Compare,
    DimVar,
    DTypeVar,
    FixedDim,
    InCategory,
    TensorPattern,
    checked,
    dim_max,
    dim_min,
    dim_vars,
    dtype_names,
)
from kantensor.syntax.errors import SignatureSyntaxError
from kantensor.syntax.limits import MAX_NESTING
from kantensor.syntax.parser import parse_alternatives, parse_fresh, parse_template
from kantensor.syntax.template import AlternativeHole, Template, TemplateError
from signature_strategies import AST_EXAMPLES, TYPE_VARS, alternatives, exprs

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
        "%": operator.mod}


def _by_operators(e: object) -> object:
    """``e`` rebuilt with Python's operators on dims (and ints where a leaf is fixed)."""
    if isinstance(e, BinOp):
        left, right = _by_operators(e.left), _by_operators(e.right)
        if isinstance(left, int) and isinstance(right, int):  # Python would compute it
            return BinOp(e.op, left, right)
        return _OPS[e.op](left, right)
    if isinstance(e, Call):
        return (dim_min if e.fn == "min" else dim_max)(*map(_by_operators, e.args))
    return e.size if isinstance(e, FixedDim) else e


@settings(max_examples=300, deadline=2000, suppress_health_check=list(HealthCheck))
@given(exprs, exprs, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
def test_operators_build_the_tree_the_text_parses_to(left, right, op) -> None:
    a, b = _by_operators(left), _by_operators(right)
    if isinstance(a, int):
        a = FixedDim(a)
    clause = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
              "==": type(a).eq, "!=": type(a).ne}[op](a, b)
    assert clause == Compare(op, left, right)
    (alt,) = parse_alternatives(f"(m,n,p,k,d2,batch_size,index,integer)->() where {clause}")
    assert alt.where == (clause,)


def test_a_comparison_is_a_clause_with_no_truth_value() -> None:
    b, n = dim_vars("b n")
    assert (b >= 6) == Compare(">=", b, 6)
    assert (6 <= b) == Compare(">=", b, 6)  # reflected, as Python does it
    assert (n + 1).eq(b) == Compare("==", n + 1, b)
    with pytest.raises(TypeError, match="no truth value"):
        bool(b < n)
    assert b == DimVar("b") and b != n  # == stays structural equality


@settings(max_examples=AST_EXAMPLES, deadline=2000, suppress_health_check=list(HealthCheck))
@given(st.lists(alternatives(), min_size=1, max_size=3))
def test_messages_are_not_part_of_a_clause_and_str_parses_back(alts) -> None:
    said = [Alternative(a.inputs, a.outputs,
                        tuple(checked(c, lambda v, t: "said") for c in a.where), a.loop,
                        a.max_loop_dims) for a in alts]
    sig = Signature(alternatives=said)
    assert sig == Signature(alternatives=alts)
    assert Signature.parse(str(sig)) == sig
    assert all(c.message is not None for a in sig.alternatives for c in a.where)


@settings(max_examples=AST_EXAMPLES, deadline=2000, suppress_health_check=list(HealthCheck))
@given(st.lists(alternatives(), min_size=1, max_size=3), st.data())
def test_a_filled_template_is_the_signature_its_text_gives(alts, data) -> None:
    """Operands replaced by placeholders (some with the dtype kept in the template),
    filled back with the objects: the same alternatives as the text."""
    texts, values = [], {}
    for i, alt in enumerate(alts):
        sides = []
        for side, ops in (("i", alt.inputs), ("o", alt.outputs)):
            made = []
            for j, op in enumerate(ops):
                name = f"{side}{i}_{j}"
                if data.draw(st.booleans()):
                    made.append(str(op))
                elif op.dtype is not None and data.draw(st.booleans()):
                    made.append(f"{{{name}}}:{op.dtype}")
                    values[name] = list(op.dims)
                else:
                    made.append(f"{{{name}}}")
                    values[name] = op
            sides.append(",".join(made))
        loop = ("" if alt.loop is None else alt.loop.value) + \
            ("" if alt.max_loop_dims is None else str(alt.max_loop_dims))
        where = f" where {', '.join(map(str, alt.where))}" if alt.where else ""
        texts.append(f"{loop}{sides[0]}->{sides[1]}{where}")
    try:
        template = parse_template(" | ".join(texts))
        filled = template.fill(values)
    except SignatureSyntaxError:  # a where-clause's names bound only through the holes
        reject()
    except IllFormed:  # 'T == T' read as sizes where only a hole says T is a dtype
        reject()
    assert filled == tuple(alts)


def test_placeholders_of_every_kind() -> None:
    a0, a1, n = dim_vars("a0 a1 n")
    template = parse_template("{x}:T{rest}->({k},a1):{dt}{fits} | {sig}")
    assert template.holes == ("x", "rest", "k", "dt", "fits", "sig")
    filled = template.fill({
        "x": [a0, a1], "rest": [TensorPattern((n,), "T")], "k": a0 * a1, "dt": "int64",
        "fits": [a1 >= 1, checked((n - 1).eq(a0), lambda v, t: "n is a0 + 1")],
        "sig": Signature("(m)->(m)")})
    assert filled == parse_alternatives(
        "(a0,a1):T,(n):T->(a0*a1,a1):int64 where a1 >= 1, n-1 == a0 | (m)->(m)")
    assert filled[0].where[1].message(None, ()) == "n is a0 + 1"


def _nodes(x: object, out: list) -> list:
    """``x`` and every node and tuple under it (a clause's message left out)."""
    out.append(x)
    if isinstance(x, tuple):
        for y in x:
            _nodes(y, out)
    elif hasattr(x, "__dataclass_fields__"):
        for name in x.__dataclass_fields__:
            if name != "message":
                _nodes(getattr(x, name), out)
    return out


def test_every_catalogue_template_finds_the_placeholders_its_text_has() -> None:
    """Every template text of the catalogue, parsed afresh and from its shipped form: its
    placeholders are the names Python's own format parser reads in the text, in order of
    first appearance, and each node that remembers whether it holds a placeholder (what a
    fill reads instead of walking it) says what its text shows."""
    register_forms()
    texts = {table["signature"] for folder in (None, "onnx")
             for _, text in catalogue_files(folder) for table in tomllib.loads(text)["op"]
             if isinstance(table.get("signature"), str)}
    assert len(texts) > 150
    for text in sorted(texts):
        order = list(dict.fromkeys(n for _, n, _, _ in Formatter().parse(text) if n))
        for parsed in (parse_fresh(text, True), forms.known(text, True)):
            if parsed is None:  # (no shipped form: tests/test_shipped_forms.py says so)
                continue
            template = Template(parsed)
            assert list(template.holes) == order, text
            for node in _nodes(template.alternatives, []):
                held = getattr(node, "__dict__", {}).get("_holes")
                assert held is None or held == ("{" in str(node)), (text, node)


def test_a_whole_alternatives_where_clauses_join_each_alternative_made() -> None:
    """``{sig} where ...``: the catalogue states an op's dtype sets once, whatever
    alternatives its builder makes (ONNX's Gather: indices of int32 or int64)."""
    template = parse_template("{sig} where I in (int64, int32), T in (float32, float64)")
    assert str(template) == "{sig} where I in (int32, int64), T in (float32, float64)"
    filled = template.fill({"sig": Signature("(a):T,(i):I->(i):T | (a):T,():I->():T")})
    assert filled == parse_alternatives(
        "(a):T,(i):I->(i):T where I in (int32, int64), T in (float32, float64)"
        " | (a):T,():I->():T where I in (int32, int64), T in (float32, float64)")
    op = kt.op("{sig} where I in (int32, int64)", call="x, i",
               builder=lambda types: {"sig": Signature("(a):T,(i):I->(i):T")})(
        lambda x, i: x[i])
    x = kt.tensor("x", "float32", (4,))
    assert op(x, kt.tensor("i", "int32", (2,))).type == kt.TensorType("float32", (2,))
    with pytest.raises(TypeError, match=r"I in \(int32, int64\)"):
        op(x, kt.tensor("i", "int8", (2,)))


_SETS = st.lists(st.tuples(
    st.sampled_from([*TYPE_VARS, "m", "float32x"]),
    st.sampled_from(sorted(CATEGORIES)) | st.lists(st.sampled_from(sorted(DTYPE_NAMES)),
                                                   min_size=1, max_size=4).map(tuple)),
    min_size=1, max_size=3)


@settings(max_examples=AST_EXAMPLES, deadline=2000, suppress_health_check=list(HealthCheck))
@given(alternatives(), _SETS)
def test_a_whole_alternatives_dtype_sets_join_it_as_a_checked_alternative(alt, sets) -> None:
    """``{sig} where T in ...`` filled with any well-formed alternative is that
    alternative made again with the clauses after its own (the dtype sets on a variable
    no operand has left out), by ``Alternative``'s whole check: equal, or refused with
    the same message (a name used as a dim, a variable no input binds, a typo of a
    dtype), though a set on an input's variable is joined without walking it again."""
    clauses = tuple(InCategory(DTypeVar(name), category) for name, category in sets)
    names = {n for op in alt.operands for n in dtype_names(op.dtype)}
    where = tuple(c for c in (*alt.where, *clauses) if not (
        type(c) is InCategory and type(c.category) is tuple and
        type(c.dtype) is DTypeVar and c.dtype.name not in names))
    results = []
    for make in (lambda: (Alternative(alt.inputs, alt.outputs, where, alt.loop,
                                      alt.max_loop_dims),),
                 lambda: Template([AlternativeHole("sig", clauses)]).fill({"sig": alt})):
        try:
            results.append(make())
        except IllFormed as exc:
            results.append(str(exc))
    want, got = results
    assert got == want
    if not isinstance(got, str):
        assert hash(got) == hash(want) and str(got) == str(want)


def test_a_dtype_set_of_an_operand_the_builder_left_out_is_left_out() -> None:
    """A set on the dtype variable of an optional input the node lacks says nothing (an
    ONNX Dropout without its ratio); where the input is there it holds."""
    template = parse_template("{x}:T{rest}->{x}:T where R in (float16, float32), "
                              "T in (float32, float64)")
    (a,) = dim_vars("a")
    alone = template.fill({"x": [a], "rest": []})
    assert alone == parse_alternatives("(a):T->(a):T where T in (float32, float64)")
    ratio = template.fill({"x": [a], "rest": [TensorPattern((), "R")]})
    assert ratio == parse_alternatives(
        "(a):T,():R->(a):T where R in (float16, float32), T in (float32, float64)")


@pytest.mark.parametrize(("values", "match"), [
    ({"x": "(a,b)", "k": 1}, "is an operand: give its dims"),
    ({"x": [DimVar("a")], "k": "a+1"}, r"in \(\{k\}\): not a dim: 'a\+1'"),
    ({"x": [DimVar("a")]}, "{k} not filled"),
])
def test_a_misfilled_placeholder_says_which(values, match) -> None:
    with pytest.raises(TemplateError, match=match):
        parse_template("{x}->({k})").fill(values)


def test_a_signature_has_no_placeholders() -> None:
    with pytest.raises(SignatureSyntaxError, match="only a template") as info:
        Signature("(m)->({n})")
    assert info.value.position == 6


def test_builders_fill_with_objects_and_messages_travel_with_clauses() -> None:
    """sum's builder returns objects (no text is parsed at a new rank), and max's
    non-empty clause carries NumPy's words."""
    x = kt.tensor(dtype="float32", shape=(2, 0, 3, 4, 5, 6, 7))
    assert kt.sum(x, axis=(1, 2)).type == kt.TensorType("float32", (2, 4, 5, 6, 7))
    with pytest.raises(kt.TypeInferenceError, match="zero-size array to a reduction with "
                       "no identity: axis 1 of float32"):
        kt.max(x, axis=1)


def test_a_fill_makes_each_operand_once_and_every_alternative_still_checks_its_depth():
    """The alternatives of one fill share the operands a placeholder stands for (made
    once), and a shared operand's nesting, found once, still counts in each alternative:
    one level past MAX_NESTING is refused in the first and in the second alike."""
    template = parse_template("{x}:t->{y}:t where t in signed | {x}:t->{y}:t where t in bool")
    n = DimVar("n")
    deep = n
    for _ in range(MAX_NESTING):
        deep = deep + 1
    first, second = template.fill({"x": [n, deep], "y": [n]})
    assert first.inputs[0] is second.inputs[0]
    assert str(first) == f"({n},{deep}):t->(n):t where t in signed"
    too_deep = TensorPattern((n, deep + 1), "t")
    for _ in range(2):
        with pytest.raises(ValueError, match=f"nested more than {MAX_NESTING} levels"):
            Alternative((too_deep,), (TensorPattern((n,)),))
    with pytest.raises(ValueError, match=f"nested more than {MAX_NESTING} levels"):
        template.fill({"x": [n, deep + 1], "y": [n]})

"""Signature DSL: grammar, AST, parser, canonical printing and syntax errors.

``KANTENSOR_AST_EXAMPLES`` (default 100) sets the random signatures
(``signature_strategies.py``) of :func:`test_random_ast_roundtrip` and of the properties
over the same strategy in ``test_template.py`` and ``test_robustness.py``; the long run
is ``KANTENSOR_AST_EXAMPLES=500``."""

from __future__ import annotations

import pickle
import string

import numpy as np
import numpy.linalg._umath_linalg as umath_linalg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kantensor.signature.signature import Signature
from kantensor.syntax import vocabulary as V
from kantensor.syntax.alternative import Alternative, Loop
from kantensor.syntax.ast import (
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
    dim_max,
    dim_min,
    dim_vars,
    dtype_vars,
)
from kantensor.syntax.errors import CONTEXT, SignatureSyntaxError, TypeInferenceError
from kantensor.types.type import TensorType
from signature_strategies import AST_EXAMPLES, alternatives

parse_signature = Signature.parse

parse_signature("()->()")  # build the parser up front so hypothesis deadlines stay honest

VALID = [
    "(d),(d)->()",
    "(m,n),(n,p)->(m,p)",
    "(M,.1.),(J,.1.)->(J,.1.)",
    "(d)->()",
    "(d,...)->(...)",
    "(.1.,d,...)->(.1.,...)",
    "(.2.,d,...)->(.2.,...)",
    "(.2.,d,...,k,.1.)->(.2.,...,.1.)",
    "(2)->()",
    "(2,.2.)->()",
    "+(d)->()",
    "=(d),(d)->()",
    "+(),()->()",
    "=(),()->()",
    "=(),(),()->(3,)",
    "+2(d),(d)->()",
    "=2(d),(d)->()",
    "(a):x,(b):y->(a+b):promote(x,y)",
    "(n+1)->(n)",
    "(m,n)->(min(m,n),max(m,n),(m+1)//2,n%3)",
    "(m?,n),(n,p?)->(m?,p?)",
    "+(m?,n),(n,p?)->(m?,p?)",
    "(n):x,(n):x->():float(x) where n >= 1, x in floating",
    "(*batch,n)->(*batch)",
    "(n)->() | (m,n)->(m)",
    "(n):T->():T where T in integer",
    "->(3)",
    "(a,b):T,(b,c):U->(a,c):promote(T,U) where compatible(T,U), a-b+1 != c, T == float64",
    "(n)->(n) where n == m",
    "(n):x->() where x == y, y in number",
    "+0(a-(b-c),(a-b)-c,a*(b+c),(a*b)%c)->(a%(b*c))",
]


def roundtrip(sig: Signature) -> None:
    text = str(sig)
    assert Signature.parse(text) == sig
    assert str(Signature.parse(text)) == text
    assert eval(repr(sig), {"Signature": Signature}) == sig


# --------------------------------------------------------------------------- valid signatures


@pytest.mark.parametrize("text", VALID)
def test_valid_signatures_roundtrip(text: str) -> None:
    sig = Signature.parse(text)
    assert isinstance(sig, Signature)
    assert parse_signature(text) == sig
    roundtrip(sig)
    assert hash(Signature.parse(str(sig))) == hash(sig)


def test_canonical_text() -> None:
    cases = {
        " ( m , n ) , ( n , p )\n -> ( m , p ) ": "(m,n),(n,p)->(m,p)",
        "=(),(),()->(3,)": "=(),(),()->(3)",
        "(a-(b-c),(a-b)-c,((a)))->(a+(b+c),(a*b)//c,a//(b*c),a*b+c)":
            "(a-(b-c),a-b-c,a)->(a+(b+c),a*b//c,a//(b*c),a*b+c)",
        "(n) : x -> ( ) : promote ( x , float32 ) where n>=1,x  in  floating|(n)->()":
            "(n):x->():promote(x,float32) where n >= 1, x in floating | (n)->()",
        "(n):x,(n):y->() where compatible( x , y ), x in bool":
            "(n):x,(n):y->() where compatible(x,y), x in bool",
        "+ 2 (d)->()": "+2(d)->()",
    }  # fmt: skip
    for text, canonical in cases.items():
        assert str(Signature.parse(text)) == canonical
        assert str(Signature.parse(canonical)) == canonical


def test_ast_of_examples() -> None:
    m, n, p = dim_vars("m n p")
    matmul = Signature.parse("+(m?,n),(n,p?)->(m?,p?)")
    assert matmul.loop is Loop.BROADCAST and matmul.max_loop_dims is None
    assert matmul.inputs == (TensorPattern((FlexDim("m"), n)), TensorPattern((n, FlexDim("p"))))
    assert matmul.outputs == (TensorPattern((FlexDim("m"), FlexDim("p"))),)
    s = Signature.parse("(.2.,d,...,k,.1.)->(.2.,...,.1.)")
    d, k = dim_vars("d k")
    assert s.inputs[0].dims == (AnonGroup(2), d, AnyGroup(), k, AnonGroup(1))
    assert s.loop is None and s.where == ()
    cat = Signature.parse("(a):x,(b):y->(a+b):promote(x,y)")
    a, b = dim_vars("a b")
    x, y = dtype_vars("x y")
    assert cat.outputs[0] == TensorPattern((a + b,), Promote((x, y)))
    assert cat.inputs[0].dtype == x
    assert Signature.parse("=3(d)->()").loop is Loop.EQUAL
    assert Signature.parse("=3(d)->()").max_loop_dims == 3
    assert Signature.parse("->(3)").inputs == ()
    assert Signature.parse("(*batch,n)->(*batch)").inputs[0].dims == (NamedGroup("batch"), n)
    exprs = Signature.parse("(m,n)->(min(m,n),max(m,n),(m+1)//2,n%3)").outputs[0].dims
    assert exprs == (dim_min(m, n), dim_max(m, n), (m + 1) // 2, n % 3)
    assert Signature.parse("(n)->() | (m,n)->(m)").alternatives[1].outputs == (TensorPattern((m,)),)
    t = Signature.parse("(n):x->():float(x) where n >= 1, x in floating")
    assert t.where == (Compare(">=", n, FixedDim(1)), InCategory(x, "floating"))
    assert t.outputs[0].dtype == DTypeFunction(V.FLOAT, x)


def test_dotk_literal_letter_is_rejected() -> None:
    assert Signature.parse("(M,.1.),(J,.1.)->(J,.1.)").inputs[0].dims[1] == AnonGroup(1)
    with pytest.raises(SignatureSyntaxError) as info:
        Signature.parse("(M,.k.),(J,.k.)->(J,.k.)")
    assert info.value.position == 4
    assert "integer" in str(info.value) and "integer" in info.value.expected


def test_eq_between_names_is_resolved_by_context() -> None:
    m, n = dim_vars("m n")
    T, U, V = dtype_vars("T U V")
    assert Signature.parse("(n)->() where n == m").where == (Compare("==", n, m),)
    assert Signature.parse("(n):T->() where T == U").where == (DTypeEq(T, U),)
    assert Signature.parse("(n)->() where T == float32").where == (
        DTypeEq(T, DTypeName("float32")),
    )
    # Context propagates through chains of equalities, in any order.
    chain = Signature.parse("(n):V->() where T == U, U == V, V in integer")
    assert chain.where[:2] == (DTypeEq(T, U), DTypeEq(U, V))
    assert Signature.parse("(n):T,(n):U->() where promote(T,U) == V").where == (
        DTypeEq(Promote((T, U)), V),
    )
    # Each alternative is its own scope.
    two = Signature.parse("(x)->() where x == y | (n):x->() where x == y")
    assert two.alternatives[0].where == (Compare("==", DimVar("x"), DimVar("y")),)
    assert two.alternatives[1].where == (DTypeEq(DTypeVar("x"), DTypeVar("y")),)


# --------------------------------------------------------------------------- NumPy gufuncs


def numpy_gufunc_signatures() -> list[str]:
    ufuncs = [getattr(umath_linalg, n) for n in dir(umath_linalg)]
    ufuncs += [getattr(np, n) for n in ("matmul", "vecdot", "vecmat", "matvec") if hasattr(np, n)]
    return sorted({f.signature for f in ufuncs if isinstance(f, np.ufunc) and f.signature})


def test_numpy_gufunc_signatures_parse() -> None:
    sigs = numpy_gufunc_signatures()
    assert "(n?,k),(k,m?)->(n?,m?)" in sigs and "(m,m)->()" in sigs and len(sigs) > 10
    for text in sigs:
        # NumPy fills lstsq's output-only dim p by a hook (p = min(m, n)); in the DSL an
        # output dim no input binds must be defined by a where-clause, so it says so.
        ins, outs = text.split("->")
        where = " where p == min(m,n)" if "p" in outs and "p" not in ins else ""
        sig = Signature.parse("+" + text + where)
        assert sig.loop is Loop.BROADCAST
        roundtrip(sig)
        assert str(sig) == "+" + text.replace(" ", "") + where


# --------------------------------------------------------------------------- Python form


def test_python_form_equals_text_form() -> None:
    m, n, p = dim_vars("m n p")
    sig = Signature(
        inputs=[TensorPattern((m, n)), TensorPattern((n, p))],
        outputs=[TensorPattern((m, p))],
        loop="+",
    )
    assert sig == Signature.parse("+(m,n),(n,p)->(m,p)")
    assert hash(sig) == hash(Signature.parse("+(m,n),(n,p)->(m,p)"))
    assert repr(sig) == "Signature('+(m,n),(n,p)->(m,p)')"
    n, k = dim_vars(["n", "k"])
    assert n - k + 1 == Signature.parse("(n-k+1)->()").inputs[0].dims[0]
    assert 1 + n == BinOp("+", FixedDim(1), n)
    assert (2 * n) // 3 % k == BinOp("%", BinOp("//", BinOp("*", 2, n), 3), k)
    assert 10 - n == BinOp("-", FixedDim(10), n) and 7 // n == BinOp("//", 7, n)
    assert 5 % n == BinOp("%", 5, n) and n * 2 == BinOp("*", n, 2)
    assert dim_min(n, 3) + dim_max(n, k) == BinOp("+", Call("min", (n, 3)), Call("max", (n, k)))
    assert str(n - (k - 1)) == "n-(k-1)" and str((n - k) - 1) == "n-k-1"


def test_python_form_details() -> None:
    a, b = dim_vars("a b")
    x, y = dtype_vars("x y")
    assert dim_vars("a") == (a,) and dim_vars("a, b") == (a, b) and dtype_vars(["x"]) == (x,)
    cat = Signature(
        inputs=[TensorPattern([a], "x"), TensorPattern((b,), y)],
        outputs=[TensorPattern((a + b,), Promote(["x", y]))],
    )
    assert cat == Signature.parse("(a):x,(b):y->(a+b):promote(x,y)")
    assert TensorPattern([3, a], "float32") == TensorPattern((FixedDim(3), a), DTypeName("float32"))
    where = [Compare(">=", a, 1), InCategory("x", "floating"), DTypeEq("x", "y")]
    sig = Signature([TensorPattern((a,), x)], [TensorPattern(())], where, loop="=2")
    assert (sig.loop, sig.max_loop_dims, sig.where) == (Loop.EQUAL, 2, tuple(where))
    assert str(sig) == "=2(a):x->() where a >= 1, x in floating, x == y"
    roundtrip(sig)
    alts = (Alternative((TensorPattern((a,)),), (TensorPattern(()),)),
            Alternative((), (TensorPattern((3,)),), loop="+", max_loop_dims=0))  # fmt: skip
    two = Signature(alternatives=alts)
    assert str(two) == "(a)->() | +0->(3)" and two.alternatives == alts
    assert two == Signature.parse("(a)->()|+0->(3)")
    assert alts[1].loop is Loop.BROADCAST  # the text of a loop is read as its Loop
    assert alts[1] == Alternative((), (TensorPattern((3,)),), loop=Loop.BROADCAST,
                                  max_loop_dims=0)
    roundtrip(two)
    assert str(Compatible(x, DTypeFunction(V.FLOAT, "int8"))) == "compatible(x,float(int8))"
    assert pickle.loads(pickle.dumps(two)) == two
    assert {two: 1}[Signature.parse(str(two))] == 1
    with pytest.raises(AttributeError):
        two.alternatives = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    "build",
    [
        lambda: DimVar("where"),
        lambda: DimVar("float32"),
        lambda: DimVar("1x"),
        lambda: DTypeVar("int8"),
        lambda: DTypeName("float"),
        lambda: AnonGroup(0),
        lambda: FixedDim(-1),
        lambda: BinOp("/", 1, 2),
        lambda: Call("min", ()),
        lambda: Compare("=", 1, 2),
        lambda: InCategory("x", "real"),
        lambda: TensorPattern((AnyGroup(), AnyGroup())),
        lambda: Alternative((), ()),
        lambda: Signature([], [TensorPattern(())], loop="*"),
        lambda: Alternative((), (TensorPattern(()),), max_loop_dims=2),  # cap without loop
        # a name used as two kinds
        lambda: Signature([TensorPattern((DimVar("x"),), "x")], [TensorPattern(())]),
        lambda: Signature([TensorPattern((DimVar("m"), FlexDim("m")))], [TensorPattern(())]),
        # 'x == y' with no dtype context would read back as a dim comparison
        lambda: Signature([], [TensorPattern(())], [DTypeEq("x", "y")]),
    ],
)
def test_python_form_rejects_what_text_cannot_express(build) -> None:
    with pytest.raises(ValueError):
        build()


def test_python_form_type_errors() -> None:
    with pytest.raises(TypeError):
        TensorPattern(("n",))
    with pytest.raises(TypeError):
        Compare("==", DTypeVar("x"), 1)
    with pytest.raises(TypeError):
        _ = DimVar("n") + 1.5
    with pytest.raises(TypeError):
        Signature(inputs=[])
    with pytest.raises(TypeError):
        Signature(outputs=[TensorPattern(())], alternatives=[])


def test_error_classes() -> None:
    assert issubclass(SignatureSyntaxError, ValueError)
    assert issubclass(TypeInferenceError, TypeError)
    sig = Signature.parse("(m,n),(n,p)->(m,p)")
    with pytest.raises(TypeInferenceError) as info:
        sig.infer([TensorType.parse("float64[2,3]"), TensorType.parse("float64[4,5]")])
    # the failed signature is carried by the error; the message says where it failed
    assert info.value.signature is sig
    assert str(info.value).startswith("(m,n),(n,p)->(m,p): dimension n is 3 in input 0")
    assert "but 4 in input 1 (axis 0)" in str(info.value)
    with pytest.raises(TypeError):  # the error has no operand/axis fields to fill
        TypeInferenceError("bad", operand=1)  # type: ignore[call-arg]


# --------------------------------------------------------------------------- errors

ERRORS = [
    # text, position, substring of the message
    ("(m,n),(n,p->(m,p)", 10, "expected ')' or ','"),  # unbalanced parentheses
    ("(m,n)->(m,p", 11, "expected ')' or ','"),
    ("(m,n))->()", 5, "expected"),
    ("(m,n)", 5, "'->'"),  # missing '->'
    ("(m,n)(n)->()", 5, "'->'"),
    ("(m,,n)->()", 3, "a dimension"),
    ("(.0.)->()", 2, "k >= 1"),
    ("(...,n,...)->()", 7, "'...'"),  # two '...' in one operand
    ("(...+1)->()", 4, "expected ')' or ','"),  # groups are not expressions
    ("(n+...)->()", 3, "an expression"),
    ("(*b+1)->()", 3, "expected ')' or ','"),
    ("(n)->(.1.*2)", 9, "expected ')' or ','"),
    ("(n):promote(->()", 12, "a dtype"),  # bad dtype syntax
    ("(n):promote(x->()", 13, "expected ')' or ','"),
    ("(n):->()", 4, "a dtype"),
    ("(n):x->() where x in reals", 21, "unknown dtype category 'reals'"),
    ("(n):n->()", 4, "'n' is used as a dtype variable"),  # a dim name used as a dtype
    ("(n)->():promote(n,x)", 16, "'n' is used as a dtype variable"),
    ("(x):T->() where T == x", 21, "'x' is used as a dtype variable"),
    ("(m)->() where T in integer, T >= 1", 28, "'T' is used as a dimension"),
    ("(m)->(m?)", 6, "flexible"),
    ("(m?,*m)->()", 5, "named group"),
    ("(float32)->()", 1, "dtype name"),
    ("(*min)->()", 2, "reserved"),
    ("(n):where->()", 4, "reserved"),
    ("(n)->() where promote(x) < y", 25, "'=='"),
    ("(n)->() where promote(x) == n+1", 28, "expected a dtype"),
    ("(n)->(n) garbage", 9, "end of input"),  # trailing garbage
    ("(n)->(n) where n > 1 extra", 21, "end of input"),
    ("(n)->(n) |", 10, "'('"),
    ("(n)->(n)$", 8, "end of input"),
    ("(n)->", 5, "'('"),
    ("", 0, "'->'"),
    ("(n/2)->()", 2, "expected"),
    ("(n)->() where", 13, "a where-clause"),
    ("(n)->() wheren > 1", 8, "end of input"),
    ("(1" + "0" * 5000 + ")->()", 1, "too large"),
]


@pytest.mark.parametrize(("text", "position", "message"), ERRORS)
def test_syntax_errors(text: str, position: int, message: str) -> None:
    with pytest.raises(SignatureSyntaxError) as info:
        Signature.parse(text)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.text == text and err.position == position
    assert message in str(err) and err.expected
    first, line, caret = str(err).split("\n")
    assert first == err.message and f"position {position}" in first
    lo, hi = max(0, position - CONTEXT), min(len(text), position + CONTEXT)
    head, tail = "..." * (lo > 0), "..." * (hi < len(text))
    assert line == "  " + head + text[lo:hi] + tail  # a long line: a window around it
    assert caret == "  " + " " * (len(head) + position - lo) + "^"
    assert len(line) <= 2 * CONTEXT + 8


def test_error_str_example() -> None:
    with pytest.raises(SignatureSyntaxError) as info:
        parse_signature("(m,n),(n,p->(m,p)")
    assert str(info.value) == (
        "expected ')' or ',' at position 10\n  (m,n),(n,p->(m,p)\n            ^"
    )
    assert info.value.expected == "')' or ','"


def test_error_in_multiline_text_shows_its_line() -> None:
    with pytest.raises(SignatureSyntaxError) as info:
        parse_signature("(m,n),\n(n,p)\n->(m,,p)")
    assert info.value.position == 18
    assert str(info.value).split("\n")[1:] == ["  ->(m,,p)", "       ^"]


def test_parse_requires_str() -> None:
    with pytest.raises(TypeError):
        parse_signature(b"(n)->()")  # type: ignore[arg-type]


def test_long_signatures() -> None:
    n = 5000
    sig = parse_signature("+" + ",".join(f"(a{i},n)" for i in range(n)) + "->(n)")
    assert len(sig.inputs) == n and sig.inputs[-1].dims == (DimVar(f"a{n - 1}"), DimVar("n"))
    wide = parse_signature("(" + ",".join(f"d{i}" for i in range(n)) + ")->()")
    assert len(wide.inputs[0].dims) == n
    overloads = parse_signature(" | ".join(["(n)->()"] * 1000))
    assert len(overloads.alternatives) == 1000
    with pytest.raises(SignatureSyntaxError):  # too deep for the AST: a clean error
        parse_signature("(" + "+".join(["n"] * 3000) + ")->()")


# --------------------------------------------------------------------------- fuzzing

FUZZ = settings(max_examples=500, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
ALPHABET = "()[],.:+-*/%=<>!?|mnpkTx0123 \n"


def parse_or_syntax_error(text: str) -> None:
    """Parsing either succeeds (and round-trips) or raises SignatureSyntaxError."""
    try:
        sig = parse_signature(text)
    except SignatureSyntaxError as err:
        assert 0 <= err.position <= len(text)
        assert str(err).count("\n") == 2
        return
    roundtrip(sig)


@FUZZ
@given(st.text(string.printable, max_size=80))
def test_fuzz_printable(text: str) -> None:
    parse_or_syntax_error(text)


@FUZZ
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_fuzz_unicode(text: str) -> None:
    parse_or_syntax_error(text)


@FUZZ
@given(st.text(ALPHABET + "wherinmaxfloat", max_size=60))
def test_fuzz_dsl_alphabet(text: str) -> None:
    parse_or_syntax_error(text)


MUTATION = st.tuples(
    st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 200), st.sampled_from(ALPHABET)
)


@FUZZ
@given(st.sampled_from(VALID), st.lists(MUTATION, min_size=1, max_size=4))
def test_fuzz_mutations(text: str, mutations: list[tuple[str, int, str]]) -> None:
    for kind, index, char in mutations:
        i = index % (len(text) + 1)
        if kind == "insert":
            text = text[:i] + char + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + char + text[i + 1 :]
    parse_or_syntax_error(text)


# --------------------------------------------------------------------------- random ASTs

# (drawn well-formed: tests/signature_strategies.py)


@settings(max_examples=AST_EXAMPLES, deadline=2000, suppress_health_check=list(HealthCheck))
@given(st.lists(alternatives(), min_size=1, max_size=3))
def test_random_ast_roundtrip(alts: list[Alternative]) -> None:
    sig = Signature(alternatives=alts)
    roundtrip(sig)


def test_a_dtype_set_clause_round_trips_and_decides_as_a_category():
    """``T in (float32, bfloat16, float32)``: written sorted without repeats; a dtype of
    the set is accepted, one outside refused, a misspelt name is a syntax error."""
    sig = Signature.parse("():T->():T where T in (float32, bfloat16, float32)")
    assert str(sig) == "():T->():T where T in (bfloat16, float32)"
    assert Signature.parse(str(sig)) == sig
    assert sig.infer([TensorType("bfloat16", ())])[0].dtype == "bfloat16"
    with pytest.raises(TypeError, match=r"T in \(bfloat16, float32\) fails: T is float64"):
        sig.infer([TensorType("float64", ())])
    with pytest.raises(SignatureSyntaxError, match="did you mean 'float32'"):
        Signature.parse("():T->():T where T in (flaot32)")

"""The DSL's dim expressions read as Python reads the same text: a unary minus binds
tighter than ``* // %`` and looser than ``**`` (``-n//2`` is ``(-n)//2``, the floor of
``-n/2``; ``-n**2`` is ``-(n**2)``), and ``n//-2`` is allowed. Judged by Python's own
``eval`` of the text at every point of a grid of sizes (ZeroDivisionError where Python
raises), for the parser's tree, the Dim ``TensorType.parse`` makes, and a signature's
output; hypothesis writes texts of any nesting of the operators, with minus signs."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.syntax.ast import evaluate
from kantensor.syntax.parser import parse_tensor_type
from kantensor.types.symbols import substitute
from kantensor.types.type import TensorType

GRID = list(itertools.product(range(0, 5), repeat=2))


def _python(text: str, n: int, m: int) -> int | None:
    try:
        return eval(text, {"__builtins__": {"min": min, "max": max}}, {"n": n, "m": m})
    except ZeroDivisionError:
        return None


def _tree(text: str, n: int, m: int) -> int | None:
    (expr,) = parse_tensor_type(f"int8[{text}]")[1]
    try:
        return evaluate(expr, {"n": n, "m": m}.__getitem__)
    except ZeroDivisionError:
        return None


def _dim(text: str, n: int, m: int) -> int | None:
    (dim,) = TensorType.parse(f"int8[{text}]").shape
    try:
        value = substitute(dim, {"n": n, "m": m})
    except ZeroDivisionError:
        return None
    return int(value)


@pytest.mark.parametrize("text", [
    "-n//2", "-n % 3", "-n**2", "n//-2", "n % -3", "--n", "-n + 5", "-(n//2)", "n - -2",
    "2*-n", "-2*n//3", "-n*m//3", "-n//m", "-n % m", "-(n + 1)//m", "-3**2", "-n**2//m"])
def test_unary_minus_as_python(text: str) -> None:
    for n, m in GRID:
        want = _python(text, n, m)
        assert _tree(text, n, m) == want, (text, n, m)
        if want is not None and ("n" in text or "m" in text):  # (a Dim of no name is an int)
            assert _dim(text, n, m) == want, (text, n, m)


atoms = st.sampled_from(["n", "m", "1", "2", "3", "(n + 1)", "min(n, 2)"])
texts = st.recursive(atoms, lambda inner: st.one_of(
    st.builds(lambda a: f"-{a}", inner),
    st.builds(lambda a, op, b: f"{a} {op} {b}", inner,
              st.sampled_from(["+", "-", "*", "//", "%"]), inner),
    st.builds(lambda a: f"({a})", inner),
    st.builds(lambda a, k: f"{a}**{k}", atoms, st.integers(0, 2))), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_any_text_reads_as_python(text: str) -> None:
    for n, m in GRID:
        assert _tree(text, n, m) == _python(text, n, m), (text, n, m)


def test_a_signature_output_reads_as_python() -> None:
    """``(n),(m)->(-n//m + n)``: at m >= 1 the output's size is Python's value of the
    text (the floor of -n/m, plus n), not -(n//m) + n."""
    op = kt.SignatureOp("negfloor", "(n),(m)->(-n//m + n)", lambda x, y: x)
    for n, m in GRID:
        if m == 0:
            continue
        out = op(kt.tensor("x", "float32", (n,)), kt.tensor("y", "float32", (m,)))
        assert out.type.shape == (_python("-n//m + n", n, m),), (n, m)

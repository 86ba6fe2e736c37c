"""A where-clause ``broadcast(...) == x`` over named sizes holds exactly where it holds on
ints: the conditions of a build over named sizes, evaluated at every assignment of the
sizes 0 to 3, accept exactly the assignments whose build on ints succeeds, with the same
types (brute force; the oracle is the relation's own ground solve)."""

from __future__ import annotations

import itertools

import pytest

import kantensor as kt
from kantensor import Signature, TensorType
from kantensor.signature.forward import build
from kantensor.types.symbols import substitute

SIZES = range(4)

SIGNATURES = [
    "(s),(a)->(a) where broadcast(s, a) == a",        # the output is an input's size
    "(s),(t),(a)->(a) where broadcast(s, t) == a",    # ... of a size not broadcast
    "(s),(t)->(s) where broadcast(s, t) == 4",        # ... an int
    "(s),(a)->(c) where broadcast(s, a) == c",        # the clause defines the output
    "(s),(a),(b)->(b) where broadcast(s, a, b) == b",
]


def _build(sig, types):
    try:
        return build(sig, types)
    except kt.TypeInferenceError as e:
        return e


@pytest.mark.parametrize("text", SIGNATURES)
def test_a_broadcast_clause_over_named_sizes_holds_where_ints_build(text):
    sig = Signature.parse(text)
    arity = text.split("->")[0].count("(")
    names = [f"n{i}" for i in range(arity)]
    named = [TensorType("float32", (kt.Dim(n),)) for n in names]
    made = _build(sig, named)
    assert not isinstance(made, Exception), made
    for values in itertools.product(SIZES, repeat=arity):
        sizes = dict(zip(names, values, strict=True))
        said = all(c.holds(sizes) for c in made.conditions)
        got = _build(sig, [TensorType("float32", (v,)) for v in values])
        where = f"{text} at {sizes}: conditions {[str(c) for c in made.conditions]}"
        if isinstance(got, Exception):
            assert not said, f"{where} hold, but on ints: {got}"
            continue
        assert said, f"{where} fail, but on ints it builds to {got.types}"
        want = tuple(substitute(d, sizes) for d in made.types[0].shape)
        assert got.types[0].shape == want, where


def test_the_condition_says_each_size_is_the_output_or_1():
    """``broadcast(s, a) == a`` needs ``s == a or s == 1``: that ``s`` and ``a``
    broadcast is not enough (``s = 5, a = 1`` broadcast, to 5, not 1)."""
    sig = Signature.parse("(s),(a)->(a) where broadcast(s, a) == a")
    made = build(sig, [TensorType.parse("float32[s]"), TensorType.parse("float32[a]")])
    assert [str(c) for c in made.conditions] == ["s == a or s == 1"]
    assert str(made.types[0]) == "float32[a]"
    with pytest.raises(kt.TypeInferenceError, match="could not be broadcast|cannot broadcast"):
        build(sig, [TensorType.parse("float32[5]"), TensorType.parse("float32[1]")])

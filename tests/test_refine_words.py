"""Conflict chains in the user's words: every line names the user's variables and
sizes, never a signature's or a builder's name for a dimension (matmul's ``n``,
concatenate's ``d1``, a template's ``a0``).

``KANTENSOR_REFINE_WORDS_EXAMPLES`` sets how many random graphs the property test draws
(default 300).
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
import sizing
from kantensor.refinement import RefinementError
from kantensor.refinement.units import describe, node_relation
from kantensor.syntax import vocabulary
from kantensor.types.dtypes import CATEGORIES, DTYPES
from refine_graphs import BROADCASTING, INDEXING, PLAIN, SHAPING, erased_program
from test_one_relation import _bound, _cases, _concrete, forward

EXAMPLES = sizing.size("REFINE_WORDS_EXAMPLES", 300, 3000)

_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
#: Words of the signature language that name no dimension or dtype variable: its
#: keywords and functions, dtype names and categories.
_KEYWORDS = {w.text for w in vars(vocabulary).values() if isinstance(w, vocabulary.Word)} \
    | set(DTYPES) | set(CATEGORIES)


def _internal_names(values) -> set[str]:
    """The names the relations of the graph's nodes give their dimensions and dtypes
    (read from each signature's text, its keywords left out)."""
    names: set[str] = set()
    for v in values:
        if v.owner is not None and (rel := node_relation(v.owner)) is not None:
            names.update(_WORD.findall(str(rel)))
    return names - _KEYWORDS


def f32(name, *shape):
    return kt.tensor(name, "float32", shape=shape)


def _lines(graph, given=None) -> list[str]:
    with pytest.raises(RefinementError) as info:
        kt.refine(graph, given=given)
    return [line.strip() for line in str(info.value).splitlines()[1:]]


# -- realistic mistakes, said exactly ---------------------------------------------------
def test_a_matmul_inner_size_names_both_operands():
    x, W, u = f32("x", None, None), f32("W", 3, 4), f32("u", 5, 2)
    h = kt.tanh(x)
    h.name = "h"
    assert _lines([h @ W, x @ u]) == [
        "h axis 1 is 3 because of matmul(h, W) (W axis 0 is 3)",
        "x axis 1 is 3 because of h = tanh(x) (h axis 1 is 3)",
        "matmul(x, u) fails with x axis 1 = 3: x axis 1 is 3 but u axis 0 is 5, and they "
        "must be equal"]
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        np.matmul(np.zeros((2, 3)), np.zeros((5, 2)))


def test_concatenate_names_the_operands_not_its_builders_d1():
    a, b = f32("a", 2, None), f32("b", 3, None)
    c = kt.concatenate([a, b])
    c.name = "c"
    assert _lines(c, given={a: "float32[2,4]", b: "float32[3,5]"}) == [
        "a axis 1 is 4 because of given a: float32[2,4]",
        "b axis 1 is 5 because of given b: float32[3,5]",
        "c = concatenate(a, b) fails with a axis 1 = 4, b axis 1 = 5: a axis 1 is 4 but "
        "b axis 1 is 5, and they must be equal"]
    with pytest.raises(ValueError, match="must match exactly"):
        np.concatenate([np.zeros((2, 4)), np.zeros((3, 5))])
    # a size concatenate decides from either b or c (built as [5,5]): its step names b
    a, b = f32("a", 2, None), f32("b", 3, 5)
    c = kt.concatenate([a, b])
    c.name = "c"
    assert _lines([c, a @ f32("w", 4, 2)]) == [
        "a axis 1 is 5 because of c = concatenate(a, b) (b axis 1 is 5)",
        "matmul(a, w) fails with a axis 1 = 5: a axis 1 is 5 but w axis 0 is 4, and they "
        "must be equal"]


def test_an_einsum_size_fixed_forwards_meets_a_matmul():
    x, W, u = f32("x", None, None), f32("W", 3, 4), f32("u", None, 2)
    h = kt.einsum("ij,jk->ik", x, W)
    h.name = "h"
    assert _lines(h @ u, given={u: "float32[5,2]"}) == [
        "u axis 0 is 5 because of given u: float32[5,2]",
        "h axis 1 is 4 because of h = einsum(x, W) (W axis 1 is 4)",
        "matmul(h, u) fails with h axis 1 = 4, u axis 0 = 5: h axis 1 is 4 but u axis 0 "
        "is 5, and they must be equal"]


def test_reshape_says_its_size_over_the_input_axes():
    x = f32("x", None, None)
    y = x.reshape(-1)
    y.name = "y"
    assert _lines(y, given={x: "float32[2,3]", y: "float32[8]"}) == [
        "x axis 1 is 3 because of given x: float32[2,3]",
        "y axis 0 is 8 because of given y: float32[8]",
        "y = reshape(x) fails with x axis 1 = 3, y axis 0 = 8: y axis 0: size 8 does not "
        "equal x.shape[0]*x.shape[1] = 6"]
    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        np.zeros((2, 3)).reshape(8)


@pytest.mark.parametrize("a, b", [("a", "b"), ("n", "m"), ("input", "axis"), ("is", "of")])
def test_a_clause_is_written_over_the_operands_whatever_its_dims_are_named(a, b):
    """A where-clause is said from its own tree, each dim as the operand axis it names:
    dims named like the words of the sentence (``a``, ``input``, ``is``) too."""
    padded = kt.op(f"({a}),({b})->({a}) where {a} >= {b} + 2")(lambda x, y: x)
    x, y = f32("x", None), f32("y", 3)
    z = padded(x, y)
    z.name = "z"
    assert _lines(z, given={z: "float32[4]"})[-1] == (
        "z = <lambda>(x, y) fails with z axis 0 = 4: where-clause x.shape[0] >= "
        "y.shape[0]+2 fails: 4 >= 5 is false")


@pytest.mark.parametrize("a, b", [("a", "b"), ("input", "axis")])
def test_an_output_size_is_written_over_the_operands_whatever_its_dims_are_named(a, b):
    """An axis whose size does not equal its expression: the expression from its tree and
    the axis from its place, never by rewriting the sentence's words."""
    flat = kt.op(f"({a},{b})->({a}*{b})")(lambda x: x.ravel())
    x = f32("x", None, None)
    y = flat(x)
    y.name = "y"
    assert _lines(y, given={x: "float32[2,3]", y: "float32[7]"})[-1] == (
        "y = <lambda>(x) fails with y axis 0 = 7: y axis 0: size 7 does not equal "
        "x.shape[0]*x.shape[1] = 6")


@pytest.mark.parametrize("a, b", [("a", "b"), ("input", "axis"), ("is", "of")])
def test_a_clause_that_divides_by_zero_is_written_over_the_operands(a, b):
    """A where-clause that divides by zero is said from its tree too: a size named like
    a word of the sentence (``a``) is its operand's axis as any other."""
    mod = kt.op(f"({a}),({b})->({a}) where {a} % {b} >= 0")(lambda x, y: x)
    x, y = f32("x", None), f32("y", None)
    z = mod(x, y)
    z.name = "z"
    assert _lines(z, given={x: "float32[3]", y: "float32[0]"})[-1] == (
        "z = <lambda>(x, y) fails with y axis 0 = 0: where-clause x.shape[0]%y.shape[0] >= 0 "
        "fails: it divides by zero")


def test_a_sentence_names_its_operands_from_their_places():
    """An axis of fixed size and a rank said over the operand (its place, an object),
    never by reading ``input 0`` back from the sentence."""
    first = kt.op("(a,3)->(a)")(lambda x: x[:, 0])
    x = f32("x", None, None)
    z = first(x)
    z.name = "z"
    assert _lines(z, given={x: "float32[2,4]"})[-1] == (
        "z = <lambda>(x) fails with x axis 1 = 4: x axis 1 must have size 3, got 4")


def test_an_overload_whose_dtypes_fit_says_why():
    """mod of two bools gives int8 (its third overload): the reason is that overload's
    sizes, not the first overload's promoted dtype, and a broadcast the inputs pass
    names the output it fails to reach."""
    a, b = kt.tensor("a", "bool", (None,)), kt.tensor("b", "bool", (None,))
    r = kt.mod(a, b)
    r.name = "r"
    assert _lines(r, given={a: "bool[2]", b: "bool[2]", r: "int8[4]"}) == [
        "r axis 0 is 4 because of given r: int8[4]",
        "r = mod(a, b) fails with r axis 0 = 4: a axis 0 is 2 and b axis 0 is 2 could not "
        "be broadcast to the output's 4"]
    assert np.mod(np.ones(2, bool), np.ones(2, bool)).shape == (2,)


# -- properties -------------------------------------------------------------------------
FAMILIES = [PLAIN, PLAIN + BROADCASTING, PLAIN + BROADCASTING + SHAPING,
            PLAIN + BROADCASTING + INDEXING, PLAIN + BROADCASTING + SHAPING + INDEXING]


def _check(seed: int, kinds: tuple[str, ...]) -> bool:
    """A random graph with some input sizes erased and one value required to have a
    wrong size: if refine refuses, every line of its chain names the user's values (the
    graph inputs are ``in_a``, ``in_b``, ...; an intermediate is described by its
    expression) and none names a dimension of a node's relation (nor a placeholder of
    refinement, ``?3``). True if refine refused."""
    rng = random.Random(seed)
    prog, true, values = erased_program(rng, kinds)
    users = [f"in_{chr(97 + i)}" for i in range(len(prog.shapes))]
    for v, name in zip(values, users, strict=False):
        v.name = name
    target = rng.choice([i for i, t in enumerate(true) if t.type.ndim] or [None])
    if target is None:
        return False
    shape = list(true[target].type.shape)
    shape[rng.randrange(len(shape))] += rng.randint(1, 3)
    want = kt.TensorType(true[target].type.dtype, tuple(shape))
    try:
        kt.refine(values, given={values[target]: want})
    except RefinementError as err:
        _check_words(err, values, users)
        return True
    return False


def _check_words(err: RefinementError, values: list, users: list[str]) -> None:
    """Every line of ``err`` names values of the graph (``in_a``, or an intermediate by
    its expression: ``add(in_a, in_b)``, ``sum(…)``), none a dimension or dtype variable
    of a node's relation, none a placeholder of refinement (``?3``); the failing node's
    reason names its operands (or their types; a given type's, ``axis 0 is 3, not 4``,
    is about the value its source names)."""
    internal = _internal_names(values) - set(users)
    shown = {describe(v) for v in values}
    for line in str(err).splitlines()[1:]:
        assert not internal & set(_WORD.findall(line)), (line, internal)
        assert not re.search(r"\?\d", line), line
        assert any(d in line for d in shown), line
    reason, source = err.conflict.reason, err.conflict.source
    assert any(d in reason for d in shown) or re.search(r"\w\[[\d,]*\]", reason) or \
        source.startswith("given "), (source, reason)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FAMILIES))
def test_a_chain_never_names_a_dimension_by_an_internal_name(seed, kinds):
    _check(seed, kinds)


def test_a_reshape_refused_in_a_chain_says_its_input_at_the_sizes_it_saw():
    """Hypothesis's seed 643: reshape's reason gave its input's type with an unknown
    axis beside the size the clause computed from it (float64[?,2] (size 10)); it
    says the axis the clause saw."""
    assert _check(643, FAMILIES[2])


def test_the_property_meets_chains():
    """The property is not vacuous: most contradictions it draws are refused."""
    refused = sum(_check(seed, kinds) for seed in range(40) for kinds in FAMILIES)
    assert refused >= 100, refused


def test_every_catalogue_op_is_said_over_its_operands():
    """Every catalogue example, its inputs built with unknown sizes and given their
    types, its output required to have one size 2 more than it has: refine refuses
    every one, in the user's words."""
    refused, ops = 0, set()
    for case in _cases():
        entry, example = case.values
        found = _bound(entry, example)
        if found is None:
            continue
        op, types = found
        outs = forward(op, types)
        if not outs or not types:
            continue
        names = [f"in_{chr(97 + i)}" for i in range(len(types))]
        inputs = [kt.tensor(n, t.dtype, shape=(None,) * t.ndim)
                  for n, t in zip(names, types, strict=True)]
        try:
            built = op(*inputs)
        except (TypeError, ValueError, IndexError):
            continue  # an Op that needs known sizes to build
        built = list(built) if isinstance(built, list | tuple) else [built]
        for k, (out, want) in enumerate(zip(built, outs, strict=True)):
            out.name = f"out_{k}"
            for axis in range(want.ndim if _concrete([want]) else 0):
                shape = list(want.shape)
                shape[axis] += 2
                given = dict(zip(inputs, types, strict=True))
                given[out] = kt.TensorType(want.dtype, tuple(shape))
                with pytest.raises(RefinementError) as info:
                    kt.refine(built, given=given)
                _check_words(info.value, inputs + built, names)
                refused += 1
                ops.add(entry.name)
    assert refused >= 350 and len(ops) >= 130, (refused, len(ops))

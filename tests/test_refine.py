"""kt.refine: every node's relation solved jointly, back to the graph inputs."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor import Dim
from kantensor.refinement import RefinementError, Step
from refine_graphs import BROADCASTING, INDEXING, PLAIN, SHAPING, random_program

#: Figures for the test summary: sizes the graphs determine, and how many refine found.
STATS: dict[str, list[int]] = {}


def f32(name, *shape):
    return kt.tensor(name, "float32", shape=shape)


# -- the examples of the issue and of docs/refine.rst -----------------------------------
def test_a_size_flows_back_through_two_nodes():
    x, W = f32("x", None, None), f32("W", 3, 4)
    h = x + 1.0
    r = kt.refine(h @ W)
    assert r[x] == kt.TensorType.parse("float32[?,3]")
    assert r[h] == kt.TensorType.parse("float32[?,3]")
    assert r[W] == W.type


def test_a_given_output_type_reaches_the_inputs():
    x, W = f32("x", None, None), f32("W", None, 4)
    y = kt.tanh(x @ W)
    assert kt.refine(y, given={y: "float32[5,4]"})[x] == kt.TensorType.parse("float32[5,?]")
    B = Dim("B")
    r = kt.refine(y, given={y: kt.TensorType("float32", (B, 4))})
    assert r[x].shape == (B, None)
    assert r[y].shape == (B, 4)


def test_one_size_shared_by_two_branches():
    x = kt.tensor("x", "float64", shape=(None, None))
    A = kt.tensor("A", "float64", shape=(3, 2))
    v = kt.tensor("v", "float64", shape=(7,))
    assert kt.refine([x @ A, v @ x])[x] == kt.TensorType.parse("float64[7,3]")


def test_a_dim_expression_is_solved():
    n = Dim("n")
    x, z = f32("x", None), f32("z", n)
    c = kt.concatenate([x, z])
    assert c.type.shape == (None,)
    assert kt.refine(c, given={c: "float32[2*n]"})[x].shape == (n,)


def test_equal_unknowns_learnt_by_one_node_are_used_by_another():
    """dot says a and b have one length; concatenate that they add up to 6."""
    a, b = f32("a", None), f32("b", None)
    c = kt.concatenate([a, b])
    assert kt.refine([kt.dot(a, b), c])[a].shape == (None,)
    r = kt.refine([kt.dot(a, b), c], given={c: "float32[6]"})
    assert r[a].shape == (3,) and r[b].shape == (3,)


def test_every_variable_is_in_the_result_and_a_known_graph_is_unchanged():
    x, W = f32("x", 2, 3), f32("W", 3, 4)
    h = kt.tanh(x @ W)
    y = kt.sum(h, axis=0)
    r = kt.refine(y)
    assert set(r) == {x, W, h.owner.inputs[0], h, y}
    assert all(t == v.type for v, t in r.items())
    assert r.changed == {}


def test_specify_shape_is_part_of_the_relation():
    x = f32("x", None, None)
    s = kt.specify_shape(x, (None, 5))
    y = kt.tanh(s)
    r = kt.refine(y, given={y: "float32[2,?]"})
    assert r[x].shape == (2, 5)
    assert r[s].shape == (2, 5)


# -- conflicts --------------------------------------------------------------------------
def test_a_conflict_is_a_chain_of_nodes():
    x, W, v = f32("x", None, None), f32("W", 3, 4), f32("v", 5)
    y = kt.matmul(x, W)
    y.name = "y"
    z = x + v
    z.name = "z"
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.refine([y, z])
    err = info.value
    assert isinstance(err, RefinementError)
    assert err.chain == (Step(x, 1, 3, "y = matmul(x, W)", ((W, 0, 3),)),)
    assert err.conflict.source == "z = add(x, v)"
    assert err.conflict.axes == ((x, 1, 3),)
    assert err.conflict.reason == "x axis 1 is 3 and v axis 0 is 5 could not be broadcast"
    lines = str(err).splitlines()
    assert lines[1].strip() == "x axis 1 is 3 because of y = matmul(x, W) (W axis 0 is 3)"
    assert lines[2].strip().startswith("z = add(x, v) fails with x axis 1 = 3: ")


def test_a_chain_follows_sizes_through_several_nodes():
    x, W = f32("x", None, None), f32("W", 3, 4)
    h = kt.tanh(x)
    h.name = "h"
    y = h @ W
    u = kt.tensor("u", "float32", shape=(None, 2))
    w = x @ u
    with pytest.raises(RefinementError) as info:
        kt.refine([y, w], given={u: "float32[4,2]"})
    err = info.value
    text = str(err)
    assert "h axis 1 is 3 because of matmul(h, W) (W axis 0 is 3)" in text
    assert "x axis 1 is 3 because of h = tanh(x) (h axis 1 is 3)" in text
    assert err.conflict.source == "matmul(x, u)"
    assert [(s.variable, s.axis, s.value, s.source) for s in err.chain] == [
        (h, 1, 3, "matmul(h, W)"), (x, 1, 3, "h = tanh(x)"), (u, 0, 4, "given u: float32[4,2]")]
    assert err.conflict.axes == ((x, 1, 3), (u, 0, 4))


def test_a_given_type_that_contradicts_the_graph():
    x, W = f32("x", None, None), f32("W", None, 4)
    y = kt.tanh(x @ W)
    with pytest.raises(RefinementError) as info:
        kt.refine(y, given={y: "float32[5,3]"})
    # the size was fixed when the graph was built: the chain still starts at W
    assert str(info.value).splitlines()[1:] == [
        "  matmul(x, W) axis 1 is 4 because of matmul(x, W) (W axis 1 is 4)",
        "  tanh(matmul(x, W)) axis 1 is 4 because of tanh(matmul(x, W)) "
        "(matmul(x, W) axis 1 is 4)",
        "  given tanh(matmul(x, W)): float32[5,3] fails with tanh(matmul(x, W)) axis 1 = 4: "
        "axis 1 is 4, not 3"]
    with pytest.raises(RefinementError, match=r"y is float32\[\?,4\] in the graph; refine "
                                              r"refines sizes, not dtypes or ranks"):
        y.name = "y"
        kt.refine(y, given={y: "float64[5,4]"})


def test_bad_arguments_are_clear_errors():
    x = f32("x", None)
    y = kt.tanh(x)
    with pytest.raises(ValueError, match="not a Variable of the graph"):
        kt.refine(y, given={f32("other", 2): "float32[2]"})
    with pytest.raises(TypeError, match="must be a TensorType or text"):
        kt.refine(y, given={x: 3})
    s, z = kt.tensor("s", "float32", shape=()), x * 2.0
    with pytest.raises(ValueError, match="not a Variable of the graph"):
        kt.refine(y, given={s: "float32[]"})  # a scalar, but of another graph
    both = kt.tanh(z) * s  # a scalar of the graph (not filed by refine) can be given
    r = kt.refine(both, given={s: "float32[]", x: "float32[3]"})
    assert str(r[s]) == "float32[]" and str(r[both]) == "float32[3]"
    assert str(r[z.owner.inputs[1]]) == "float32[]"
    with pytest.raises(RefinementError, match="refines sizes, not dtypes or ranks"):
        kt.refine(both, given={s: "float32[1]"})
    with pytest.raises(TypeError, match="output 0 must be a tensor Variable"):
        kt.refine(["y"])
    with pytest.raises(ValueError, match="the type given for x: unknown dtype 'flot32'"):
        kt.refine(y, given={x: "flot32[3]"})


# -- the refined graph runs, and checks its refined types ---------------------------
def test_the_retyped_graph_checks_refined_inputs_when_called():
    x, W = f32("x", None, None), f32("W", None, 4)
    y = kt.tanh(x @ W)
    r = kt.refine(y, given={y: "float32[5,4]"})
    assert [v.name for v in r.inputs] == ["x", "W"]
    assert r.retyped(x).type == kt.TensorType.parse("float32[5,?]")
    f = kt.function(r.inputs, r.outputs[0])
    a = np.random.default_rng(0).random((5, 3)).astype("float32")
    b = np.random.default_rng(1).random((3, 4)).astype("float32")
    np.testing.assert_allclose(f(a, b), np.tanh(a @ b), rtol=1e-6)
    with pytest.raises(TypeError, match=r"axis 0 has length 6 but float32\[5,\?\] requires 5"):
        f(np.ones((6, 3), "float32"), b)


def test_the_retyped_graph_binds_dims_per_call():
    n = Dim("n")
    x, z = f32("x", None), f32("z", n)
    c = kt.concatenate([x, z])
    r = kt.refine(c, given={c: "float32[2*n]"})
    assert r.outputs[0].type.shape == (2 * n,)
    f = kt.function(r.inputs, r.outputs)
    (out,) = f(np.arange(3, dtype="float32"), np.ones(3, "float32"))
    np.testing.assert_array_equal(out, np.concatenate([np.arange(3), np.ones(3)]))
    with pytest.raises(ValueError, match=r"dimension n is 2 in input 0 \(x\) \(axis 0\) but 3 "
                                         r"in input 1 \(z\)"):
        f(np.arange(2, dtype="float32"), np.ones(3, "float32"))


def test_a_node_less_specific_than_the_refinement_gets_a_specify_shape():
    """sum(x, axis=1) of x float32[?,?] given float32[5]: the rebuilt matmul alone
    cannot know its output is [5,?], so a SpecifyShape says it."""
    x = f32("x", None, None)
    h = kt.tanh(x)
    y = kt.sum(h, axis=1)
    r = kt.refine(y, given={y: "float32[5]"})
    assert r.retyped(x).type.shape == (5, None)
    assert r.retyped(h).type.shape == (5, None)
    assert r.retyped(y).type.shape == (5,)
    k = kt.tensor("k", "float32", shape=(None, 4))
    m = kt.sum(k, axis=0)
    r = kt.refine(m, given={m: "float32[4]", k: "float32[?,4]"})
    assert r.retyped(m).owner.op.__class__.__name__ != "SpecifyShape"


# -- scale ----------------------------------------------------------------------------
def test_a_100000_node_chain_refines_without_recursion():
    z = kt.tensor("z", "float64", shape=(None,))
    w = z
    for _ in range(100_000):
        w = w + 1.0
    r = kt.refine(w, given={w: "float64[7]"})
    assert r[z].shape == (7,)
    assert len(r) == 200_001  # the chain, its input and one constant per node


# -- properties -------------------------------------------------------------------------
def _erase(shapes, rng, p):
    erased = [tuple(None if rng.random() < p else s for s in shape) for shape in shapes]
    return erased, [(i, a) for i, sh in enumerate(erased) for a, s in enumerate(sh)
                    if s is None]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1),
       st.sampled_from([PLAIN, PLAIN + BROADCASTING, PLAIN + BROADCASTING + SHAPING,
                        PLAIN + BROADCASTING + INDEXING]),
       st.booleans())
def test_refine_never_contradicts_the_erased_sizes(seed, kinds, give_output):
    """Soundness: every size refine decides is the true one."""
    rng = random.Random(seed)
    prog = random_program(rng, kinds, rng.randint(1, 6))
    true = prog.build(prog.shapes)
    erased, _ = _erase(prog.shapes, rng, 0.5)
    values = prog.build(erased)
    given = {values[-1]: true[-1].type} if give_output else None
    r = kt.refine(values, given=given)
    for v, t in zip(values, true, strict=True):
        for got, want in zip(r[v].shape, t.type.shape, strict=True):
            assert got is None or got == want, (prog, v, r[v], t.type)
    # the order in which the outputs are listed (so the nodes visited) changes nothing
    assert dict(kt.refine(values[::-1], given=given)) == dict(r)
    # with every input known, refine says what make_node said, and nothing more
    assert all(kt.refine(true)[v] == v.type for v in true)


def _brute_force(prog, erased, holes, given_type, domain):
    """The sizes every consistent choice of the erased sizes agrees on, per variable."""
    agreed = None
    # squeeze(axis=None) keeps an unknown axis under "size != 1": a choice of 1 there
    # builds another graph (of another rank), which the erased graph excludes
    ranks = [v.type.ndim for v in prog.build(erased)]
    for choice in itertools.product(domain, repeat=len(holes)):
        shapes = [list(s) for s in erased]
        for (i, a), size in zip(holes, choice, strict=True):
            shapes[i][a] = size
        try:
            built = prog.build([tuple(s) for s in shapes])
        except (TypeError, ValueError):
            continue
        if [v.type.ndim for v in built] != ranks:
            continue
        last = built[-1].type
        if given_type is not None and any(
                g is not None and g != s for g, s in zip(given_type.shape, last.shape,
                                                         strict=True)):
            continue
        sizes = [v.type.shape for v in built]
        agreed = sizes if agreed is None else [
            tuple(a if a == b else None for a, b in zip(x, y, strict=True))
            for x, y in zip(agreed, sizes, strict=True)]
    return agreed


KINDS = {"without broadcasting": PLAIN, "with broadcasting": PLAIN + BROADCASTING,
         "with slices, splits and reshapes": PLAIN + SHAPING,
         "with einsum, take_along_axis and squeeze": PLAIN + INDEXING}


@pytest.mark.parametrize("name", list(KINDS))
def test_refine_recovers_every_size_the_graph_determines(name):
    """Completeness on small graphs, against brute-force enumeration of the erased
    sizes over 0..6: every size that building forwards leaves unknown but the graph
    (and a given output type) determines is found; 100% without broadcasting, and the
    fraction with it goes to the summary."""
    kinds = KINDS[name]
    rng = random.Random(20261122)
    determined = recovered = graphs = 0
    while graphs < 60:
        prog = random_program(rng, kinds, rng.randint(1, 5))
        true = prog.build(prog.shapes)
        erased, holes = _erase(prog.shapes, rng, 0.5)
        if not holes or len(holes) > 3 or any(prog.shapes[i][a] > 6 for i, a in holes):
            continue  # the true sizes must be in the enumerated domain
        graphs += 1
        values = prog.build(erased)
        given_type = true[-1].type if rng.random() < 0.7 else None
        r = kt.refine(values, given={values[-1]: given_type} if given_type else None)
        agreed = _brute_force(prog, erased, holes, given_type, range(0, 7))
        for v, want in zip(values, agreed, strict=True):
            for before, got, size in zip(v.type.shape, r[v].shape, want, strict=True):
                if size is None:
                    assert got is None
                elif before is None:  # unknown when built forwards, determined by the graph
                    determined += 1
                    recovered += got == size
                else:
                    assert got == size == before
    STATS[name] = [graphs, determined, recovered]
    if kinds == PLAIN:
        assert recovered == determined
    else:
        assert recovered >= 0.5 * determined


def test_a_long_chain_is_followed_to_its_first_cause():
    z0 = kt.tensor("z", "float64", shape=(None,))
    z = z0
    for _ in range(2_000):
        z = kt.tanh(z)
    with pytest.raises(RefinementError) as info:
        kt.refine(z, given={z0: "float64[3]", z: "float64[5]"})
    err = info.value
    assert len(err.chain) == 2_001
    assert str(err.chain[0]) == "z axis 0 is 3 because of given z: float64[3]"
    assert [s.value for s in err.chain] == [3] * 2_000 + [5]
    lines = str(err).splitlines()
    assert lines[1].strip() == "z axis 0 is 3 because of given z: float64[3]"
    assert lines[3].strip() == f"... ({2_001 - 12} more steps like these)"
    assert len(lines) == 1 + 12 + 1 + 1


def test_a_size_that_divides_by_zero_is_a_refinement_error():
    """y = x.reshape(n0, n0, -1) has type float32[n0,n0,n1//n0]: given x of sizes
    (0, 0), that size has no value, and NumPy refuses the reshape; refine says which
    size, where, and why (it raised a bare ZeroDivisionError)."""
    n0, n1 = kt.Dim("n0"), kt.Dim("n1")
    x = kt.tensor("x", "float32", (n0, n1))
    y = x.reshape(n0, n0, -1)
    assert str(y.type) == "float32[n0,n0,n1//n0]"
    with pytest.raises(kt.RefinementError, match=r"axis 2 has size n1//n0, which has no "
                                                 r"value where n0 = 0, n1 = 0") as caught:
        kt.refine(y, given={x: "float32[0,0]"})
    assert [str(step) for step in caught.value.chain] == [
        "x axis 0 is 0 because of given x: float32[0,0]",
        "x axis 1 is 0 because of given x: float32[0,0]"]
    assert kt.refine(y, given={x: "float32[2,6]"})[y] == kt.TensorType("float32", (2, 2, 3))
    with pytest.raises(ValueError, match="cannot reshape"):
        np.zeros((0, 0)).reshape(0, 0, -1)


# -- by cases (issue 21) ---------------------------------------------------------------
def test_a_broadcast_decided_by_cases_fixes_a_size_upstream():
    """``reshape(x[a,2], -1) + y[6]``: the flattened size 2a is 1 or 6, and 1 is odd, so
    a is 3; no single node decides it."""
    x = kt.tensor("x", "float32", (None, 2))
    flat = kt.reshape(x, -1)
    total = flat + kt.tensor("y", "float32", (6,))
    r = kt.refine(total)
    assert r[x] == kt.TensorType("float32", (3, 2))
    assert r[flat] == kt.TensorType("float32", (6,))


def test_cases_of_a_sum_of_unknowns_keep_what_survives():
    """``concatenate([a, b, c[2]])`` required to be ``[7]``, beside ``a + b``: a + b == 5
    with a and b broadcastable leaves (1, 4) and (4, 1), so the sum has 4 elements either
    way while a and b stay open."""
    a, b = kt.vector("a", "float32"), kt.vector("b", "float32")
    joined = kt.concatenate([a, b, kt.tensor("c", "float32", (2,))])
    total = a + b
    r = kt.refine([joined, total], given={joined: "float32[7]"})
    assert r[total] == kt.TensorType("float32", (4,))
    assert r[a].shape == r[b].shape == (None,)
    for sizes in ((1, 4), (4, 1)):  # both cases are real graphs with these sizes
        x, y = (kt.tensor(n, "float32", (k,)) for n, k in zip("ab", sizes, strict=True))
        assert (x + y).type.shape == (4,)


def test_an_einsum_contradiction_is_found():
    """x: float64[2,?] in einsum("ij,jk->ik", x, W[3,4]) (j is 1 or 3) and in x @ v[5]
    (j is 5): refine refuses instead of typing a graph that cannot be built, and its
    chain names x, W and v with their sizes (never the builder's j_0, j_1 or j)."""
    x = kt.tensor("x", "float64", (2, None))
    W, v = kt.tensor("W", "float64", (3, 4)), kt.tensor("v", "float64", (5,))
    e = kt.einsum("ij,jk->ik", x, W)
    m = x @ v
    with pytest.raises(kt.RefinementError) as info:
        kt.refine([e, m])
    assert str(info.value).splitlines() == [
        "the graph's sizes contradict each other:",
        "  x axis 1 is 5 because of matmul(x, v) (v axis 0 is 5)",
        "  einsum(x, W) fails with x axis 1 = 5: x axis 1 is 5 and W axis 0 is 3 could "
        "not be broadcast"]
    for j in range(8):  # brute force: no width of x builds both, nor runs in NumPy
        xs = np.zeros((2, j))
        with pytest.raises(ValueError):
            np.einsum("ij,jk->ik", xs, np.zeros((3, 4)))
            np.matmul(xs, np.zeros(5))


def test_a_size_fixed_forwards_is_a_step_of_the_chain():
    """h = einsum(x, W[3,4]) is float64[?,4] when built; h + u with u given [5] fails,
    and the chain says where h's 4 came from (the step names W, not an empty chain)."""
    x, W = kt.tensor("x", "float64", (None, None)), kt.tensor("W", "float64", (3, 4))
    u = kt.tensor("u", "float64", (None,))
    h = kt.einsum("ij,jk->ik", x, W)
    h.name = "h"
    with pytest.raises(kt.RefinementError) as info:
        kt.refine(h + u, given={u: "float64[5]"})
    assert str(info.value).splitlines()[1:] == [
        "  u axis 0 is 5 because of given u: float64[5]",
        "  h axis 1 is 4 because of h = einsum(x, W) (W axis 1 is 4)",
        "  add(h, u) fails with h axis 1 = 4, u axis 0 = 5: h axis 1 is 4 and u axis 0 "
        "is 5 could not be broadcast"]
    with pytest.raises(ValueError, match="could not be broadcast"):
        np.einsum("ij,jk->ik", np.zeros((2, 3)), np.zeros((3, 4))) + np.zeros(5)


def test_a_failing_clause_is_said_in_numpys_words():
    """take_along_axis from an empty axis gives no rows (its clause, a non-empty take
    needs a non-empty axis, leaves only ``i.shape[0] == 0``, as NumPy), so a given 3 rows
    is refused by that size, named over the operands (not ``min(i.shape[0]*...,1) <=
    a.shape[0]``)."""
    a, i = f32("a", 0, 2), kt.tensor("i", "int64", (None, 2))
    y = kt.take_along_axis(a, i, axis=0)
    assert y.type.shape == np.take_along_axis(np.zeros((0, 2)), np.zeros((0, 2), "int64"),
                                              axis=0).shape
    with pytest.raises(kt.RefinementError) as info:
        kt.refine(y, given={y: "float32[3,2]"})
    text = str(info.value)
    assert text.splitlines()[-1].endswith("take_along_axis(a, i) axis 0 = 0: axis 0 is 0, not 3")
    assert "because of take_along_axis(a, i)" in text and "min(" not in text
    with pytest.raises(IndexError):
        np.take_along_axis(np.zeros((0, 2)), np.zeros((3, 2), "int64"), axis=0)


def test_a_chain_names_the_operands_never_a_builders_dim_names():
    """reshape's where-clause is written over x's axes in a conflict, and where every
    case of a broadcast fails, each case says what it assumed."""
    x = f32("x", 2, 3, None)
    y = x.reshape(-1, 5)
    with pytest.raises(RefinementError) as info:
        kt.refine(y, given={y: "float32[7,5]"})
    # 7 rows need 36 elements (36 // 5 == 7), which NumPy cannot reshape into (-1, 5):
    # the builder's sentence for reshape's clause, over x's type at the sizes it saw
    assert str(info.value).endswith("cannot reshape float32[2,3,6] (size 36) into (-1, 5)")
    with pytest.raises(ValueError, match="cannot reshape array of size 36"):
        np.zeros((2, 3, 6)).reshape(-1, 5)
    with pytest.raises(RefinementError) as info:
        kt.refine(y + f32("w", 7, 5))
    text = str(info.value)
    assert "a0" not in text and "if reshape(x) axis 0 is 1" in text and \
        "if reshape(x) axis 0 is 7" in text

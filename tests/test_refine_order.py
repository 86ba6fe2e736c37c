"""kt.refine's work on long graphs: the given types' sizes flow from them first, and a
given type's graph sizes are built once per alike node (issue 37: a 1,000,000-node
chain). Counts of relation runs and of nodes made, never times."""

from __future__ import annotations

import random
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
import kantensor.refinement.solve as solve
from kantensor.graph.basic import Apply
from kantensor.ops.located import VariableAxis
from kantensor.refinement.contracted import graph_sizes
from kantensor.types.dim import unknown
from refine_graphs import BROADCASTING, INDEXING, PLAIN, SHAPING, erased_program


def _chain(n):
    z0 = kt.tensor("z", "float64", shape=(None,))
    z = z0
    for _ in range(n):
        z = z + 1.0
    return z0, z


def _counting(monkeypatch, module, *names):
    calls = []
    for name in names:
        original = getattr(module, name)

        def counted(*args, _original=original, **kwargs):
            calls.append(None)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return calls


def test_a_chain_given_its_end_runs_each_node_once(monkeypatch):
    """The output's given size flows back from it: each node's relation runs once (in
    the graph's order each ran twice: once on unknown sizes, once on 7)."""
    z0, z = _chain(1000)
    runs = _counting(monkeypatch, solve, "run", "run_sizes")
    r = kt.refine(z, given={z: "float64[7]"})
    assert len(runs) == 1000 + 1  # the nodes and the given type
    value = np.zeros(7)
    for v in [z0, z]:  # NumPy's sizes: z + 1.0 keeps the length
        assert r[v].shape == np.shape(value + 1.0)
    vectors = [t for t in r.values() if t.ndim]  # (the constants are scalars)
    assert len(vectors) == 1000 + 1 and all(t.shape == (7,) for t in vectors)


def test_a_chain_given_its_start_runs_each_node_once(monkeypatch):
    z0, z = _chain(1000)
    runs = _counting(monkeypatch, solve, "run", "run_sizes")
    r = kt.refine(z, given={z0: "float64[7]"})
    assert len(runs) == 1000 + 1
    assert r[z].shape == (7,)


def test_a_chain_is_rebuilt_in_one_node_for_its_given_size(monkeypatch):
    """graph_sizes rebuilds a node of a SignatureOp once per alike inputs: a chain of
    ``z + 1.0`` is one build, and its size is still the input's."""
    z0, z = _chain(500)
    built = _counting(monkeypatch, Apply, "clone_with_new_inputs")
    assert graph_sizes([z]) == {z: (unknown(VariableAxis(z0, 0)),)}
    assert len(built) == 1


def _in_graph_order(sizes, units, touching):
    solve._fixpoint(sizes, units, touching)
    return sizes


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1),
       st.sampled_from([PLAIN, PLAIN + BROADCASTING, PLAIN + BROADCASTING + SHAPING,
                        PLAIN + BROADCASTING + INDEXING]),
       st.sampled_from(["output", "input", "both"]))
def test_the_given_types_first_refine_as_the_graphs_order(seed, kinds, where):
    """What refine finds, or the error it raises, is the same whether the given types'
    sizes flow first or the nodes run in the graph's order (as before)."""
    rng = random.Random(seed)
    prog, true, values = erased_program(rng, kinds)
    given = {}
    if where in ("output", "both"):
        given[values[-1]] = true[-1].type
    if where in ("input", "both"):
        wrong = rng.random() < 0.3  # sometimes a contradiction
        t = true[0].type
        given[values[0]] = kt.TensorType(t.dtype, tuple(s + 1 for s in t.shape)) \
            if wrong and t.ndim else t

    def outcome():
        try:
            r = kt.refine(values, given=given)
        except kt.RefinementError as exc:
            return "error", re.sub(r"~_\d+", "~_", str(exc))  # (a fresh variable's
            # number counts the solver's variables made so far)
        return "types", dict(r), None if r.contract is None else str(r.contract)

    fast = outcome()
    original = solve._settled
    solve._settled = _in_graph_order
    try:
        assert outcome() == fast
    finally:
        solve._settled = original

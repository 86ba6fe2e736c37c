"""One relation for graphs with a size used as a number (``a / a.shape[0]``).

``size_number``'s output is a wrapped Python int where it is used, and the 0-d int64
its relation makes where it is made: make_node, query, relation and refine agree on
every node of such graphs, judged by brute force over n in 0..4 (each node's relation
run on the types the graph has at that n, forwards by kanren.run and backwards by
query) and by NumPy (refine's types at a given n are the types of NumPy's result).
eval_shape builds them under NumPy's rules (``numpy_rules``: float64, NEP 50), so they
are asked under those rules, as a graph built under a default dtype is asked under it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from kanren import run
from unification import var

import kantensor as kt
from kantensor.logic.terms import TensorTerm
from kantensor.types.numpyrules import numpy_rules
from kantensor.types.symbols import substitute

PROGRAMS = {
    "divide": lambda a: a / a.shape[0],
    "scaled": lambda a: a * a.shape[0] ** -0.5,
    "sqrt": lambda a: a / np.sqrt(a.shape[0]),
    "plus": lambda a: a + (a.shape[0] - 3),
    "zero_d": lambda a: a.sum() + a.shape[0],
    "math": lambda a: a * (1.0 / math.sqrt(a.shape[0] + 1)),
    "times": lambda a: a.shape[0] * a,
}
TYPES = ("float32[n]", "int8[n]", "float64[n]")


def _at(t: kt.TensorType, n: int) -> kt.TensorType:
    return kt.TensorType(t.dtype, tuple(substitute(e, {"n": n}) if isinstance(e, kt.Dim)
                                        else e for e in t.shape))


def _graph(name: str, text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return kt.eval_shape(PROGRAMS[name], text)
        except (TypeError, ValueError):
            return None  # (refused: uint8 + (n - 3) where n - 3 may be negative...)


def _term(v, n: int) -> TensorTerm:
    t = _at(v.type, n)
    return kt.pattern(t.dtype, t.shape, wrapped=bool(v.wrapped))


@pytest.mark.parametrize("text", TYPES)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_refine_takes_every_graph_with_a_size_used_as_a_number(name, text):
    r = _graph(name, text)
    if r is None:
        pytest.skip("eval_shape refuses it")
    with numpy_rules():
        _refined(r, name, text)


def _refined(r, name: str, text: str) -> None:
    refined = kt.refine(r.graph.outputs)  # raised RefinementError on size_number
    assert refined[r.graph.outputs[0]] == r.type
    for n in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expect = PROGRAMS[name](np.ones(n, text.split("[")[0]))
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
        if not r.holds({"n": n}):
            continue
        at = kt.refine(r.graph.outputs, given={"n": n})[r.graph.outputs[0]]
        assert at.shape == np.shape(expect), (n, at)


@pytest.mark.parametrize("text", TYPES)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_node_is_its_relation_forwards_and_backwards(name, text):
    r = _graph(name, text)
    if r is None:
        pytest.skip("eval_shape refuses it")
    with numpy_rules():
        _each_node_is_its_relation(r)


def _each_node_is_its_relation(r) -> None:
    for node in kt.toposort(r.graph.outputs):
        if not hasattr(node.op, "signature_for"):
            continue  # size{n}: declared, no relation
        for n in range(5):
            ins = [_term(v, n) for v in node.inputs]
            outs = [_at(v.type, n) for v in node.outputs]
            q = var()
            assert run(1, q, kt.relation(node.op)(*ins, *outs)), (node, n)
            answers = list(kt.query(node.op, ins, [var("q")]))
            assert [a["q"] for a in answers] == outs[:1], (node, n, answers)


def test_size_number_is_queried_as_built():
    """size_number of a size that is 0..4: forwards int64[], backwards any bool vector."""
    (node,) = [node for node in kt.toposort(_graph("divide", "float32[n]").graph.outputs)
               if getattr(node.op, "name", "") == "size_number"]
    op, q = node.op, var("q")
    for n in range(5):
        assert [a["q"] for a in kt.query(op, [f"bool[{n}]"], [q])] == [kt.TensorType.parse(
            "int64[]")]
    (answer,) = kt.query(op, [q], ["int64[]"])
    assert answer["q"].dtype == "bool" and answer["q"].ndim == 1

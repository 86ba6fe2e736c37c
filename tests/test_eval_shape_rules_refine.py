"""One relation for eval_shape's nodes: refine answers under the rules each node was
built under (NumPy's, its tag), not the caller's, as make_node and the run-time
re-inference do.

Oracle: the forward types eval_shape's trace gave (its dtypes judged against NumPy in
tests/test_eval_shape_dtype_oracle.py). Brute force: every program of that sweep at
every dtype (a share of them, as there), refined outside ``numpy_rules()`` under each
default dtype: refine must not refuse, and every node's refined type is its forward
type (the sizes may be more specific, never another dtype or rank).
"""

from __future__ import annotations

import warnings

import pytest

import kantensor as kt
from kantensor.graph.walk import ancestors_and_nodes
from kantensor.types import numpyrules as dt
from test_eval_shape_dtype_oracle import DTYPES, programs

#: Every how many (program, dtype) pairs one is refined (all ~19,000 is minutes).
STEP = 7


def _results() -> list:
    out = []
    for i, ((name, fn), dtype) in enumerate(
            (p, d) for p in programs() for d in DTYPES):
        if i % STEP:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = kt.eval_shape(fn, f"{dtype}[n]")
        except (TypeError, ValueError, OverflowError):
            continue
        if result.outputs:
            out.append((name, dtype, result))
    return out


def _agrees(refined: kt.TensorType, forward: kt.TensorType) -> bool:
    return refined.dtype == forward.dtype and refined.ndim == forward.ndim and all(
        a == b or not isinstance(b, int) for a, b in zip(refined.shape, forward.shape,
                                                          strict=True))


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_refine_of_eval_shapes_graph_is_its_forward_typing(default: str) -> None:
    results = _results()
    assert len(results) > 500  # (the sweep ran)
    wrong = []
    mixed = 0
    with kt.default_dtype(default):
        assert dt.rules_key() == default  # outside numpy_rules()
        for name, dtype, result in results:
            outs = [o for o in result.outputs if isinstance(o.type, kt.TensorType)]
            variables, nodes = ancestors_and_nodes(outs)
            mixed += any(len({v.type.dtype for v in n.inputs}) > 1 for n in nodes)
            try:
                refined = kt.refine(outs)
            except kt.TypeInferenceError as exc:
                wrong.append((name, dtype, str(exc).splitlines()[0][:120]))
                continue
            wrong += [(name, dtype, str(v), str(refined[v]), str(v.type)) for v in variables
                      if isinstance(v.type, kt.TensorType)
                      and not _agrees(refined[v].type if hasattr(refined[v], "type")
                                      else refined[v], v.type)]
    assert mixed > 100  # (nodes whose operands' dtypes differ: where the rules differ)
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"

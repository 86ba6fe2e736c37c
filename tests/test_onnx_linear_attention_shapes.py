"""LinearAttention's optional inputs have their schema's shapes, judged by onnx's
reference implementation (``onnx.reference``, nobody here wrote it) run on each model:
past_state (batch, kv heads, key size, value size), decay (batch, time, kv heads * key
size) or (batch, time, kv heads), beta (batch, time, kv heads) or (batch, time, 1), and
only the inputs the update rule reads. kantensor took any shape of each (and a decay or
beta the rule forbids)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
from kantensor.onnx import from_onnx
from onnxsweep import model_of

#: query, key, value of 4 query heads and 2 kv heads: key size 6, value size 5.
QKV = {"q": [2, 5, 24], "k": [2, 5, 12], "v": [2, 5, 10]}
_PLACES = {"s": 3, "d": 4, "b": 5}

CASES = [
    ("linear", {"s": [2, 2, 6, 5]}), ("linear", {"s": [2, 2, 5, 6]}),
    ("linear", {"s": [1, 2, 6, 5]}), ("linear", {"s": [2, 2, 6, 5, 1]}),
    ("gated", {"d": [2, 5, 12]}), ("gated", {"d": [2, 5, 2]}), ("gated", {"d": [2, 5, 6]}),
    ("gated", {"d": [2, 5, 1]}), ("gated", {"d": [2, 4, 12]}), ("gated", {"d": [2, 5]}),
    ("delta", {"b": [2, 5, 2]}), ("delta", {"b": [2, 5, 1]}), ("delta", {"b": [2, 5, 12]}),
    ("delta", {"b": [1, 5, 2]}), ("gated_delta", {"s": [2, 2, 6, 5], "d": [2, 5, 2],
                                                   "b": [2, 5, 1]}),
    ("linear", {"d": [2, 5, 12]}), ("gated", {"d": [2, 5, 2], "b": [2, 5, 2]}),
    ("delta", {"d": [2, 5, 2], "b": [2, 5, 2]}),
]


def _model(rule: str, extra: dict):
    shapes = {**QKV, **extra}
    last = max((_PLACES[n] for n in extra), default=2)
    names = ["q", "k", "v", *[next((n for n, p in _PLACES.items() if p == k and n in extra),
                                   "") for k in range(3, last + 1)]]
    node = helper.make_node("LinearAttention", names, ["y", "state"], q_num_heads=4,
                            kv_num_heads=2, update_rule=rule)
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n]) for n in names if n]
    return model_of([node], ins, 27, outputs=("y", "state")), shapes


@pytest.mark.parametrize(("rule", "extra"), CASES)
def test_linear_attention_optional_inputs_of_their_schemas_shapes(rule, extra):
    model, shapes = _model(rule, extra)
    rng = np.random.default_rng(0)
    feeds = {i.name: rng.uniform(0.1, 0.5, shapes[i.name]).astype(np.float32)
             for i in model.graph.input}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001  (the reference's own errors: refused)
        want = None
    try:
        ins, outs = from_onnx(model)
    except (TypeError, ValueError):
        assert want is None, (rule, extra, [w.shape for w in want])
        return
    assert want is not None, (rule, extra, [str(o.type) for o in outs])
    assert [o.type.shape for o in outs] == [w.shape for w in want]
    got = kt.function(ins, outs)(*[feeds[i.name] for i in ins])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)

"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss at the sizes where onnxruntime
refuses whatever the data: kantensor types a one-node model of concrete sizes exactly
where onnxruntime (tests/ortrun, run on the model) runs it. NegativeLogLikelihoodLoss
needs a class where it has a target (its function gathers before it drops the ignored
targets); SoftmaxCrossEntropyLoss a batch and a class (it reshapes the scores to
(N, C, -1)). Before, both were typed at every size: the contract said valid where
onnxruntime refused. (The targets here are zeros, also ignored where ignore_index is 0.)"""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import ortrun
from onnxsweep import kantensor_says, model_of

pytest.importorskip("onnxruntime")

SIZES = [(n, c, d) for n, c, d in itertools.product(range(3), range(3), [(), (0,), (2,)])]


def _model(op: str, opset: int, shape: tuple, reduction: str, weight: bool,
           ignore: int | None) -> tuple[onnx.ModelProto, dict]:
    target = (shape[0], *shape[2:])
    names = ["x", "t", "w"][:3 if weight else 2]
    attrs = {"reduction": reduction, **({} if ignore is None else {"ignore_index": ignore})}
    node = helper.make_node(op, names, ["y"], **attrs)
    feeds = {"x": np.zeros(shape, np.float32), "t": np.zeros(target, np.int64),
             "w": np.ones(shape[1:2], np.float32)}
    inputs = [helper.make_tensor_value_info(k, TensorProto.FLOAT if k != "t" else
                                            TensorProto.INT64, feeds[k].shape) for k in names]
    return model_of([node], inputs, opset), {k: feeds[k] for k in names}


@pytest.mark.parametrize("op", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
@pytest.mark.parametrize("opset", [12, 13, 22])
def test_a_loss_is_typed_where_onnxruntime_runs_it(op, opset):
    wrong, judged, refused = [], 0, 0
    for (n, c, d), reduction, weight, ignore in itertools.product(
            SIZES, ["none", "mean"], [False, True], [None, 0]):
        model, feeds = _model(op, opset, (n, c, *d), reduction, weight, ignore)
        runs = not isinstance(ortrun.run(model, feeds), ortrun.Refusal)
        judged, refused = judged + 1, refused + (not runs)
        if (kantensor_says(model) == "accepts") is not runs:
            wrong.append(((n, c, *d), reduction, weight, ignore, runs))
    assert not wrong, wrong[:5]
    assert judged == 216 and 0 < refused < judged

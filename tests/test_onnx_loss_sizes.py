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

import kantensor.onnx as ko
import ortrun
from differential import count
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


#: (input's batch, target's batch) and (input's, target's) extra axes: equal and not.
MISMATCHED = [((n, m), d) for n, m in itertools.product(range(3), repeat=2)
              for d in [((), ()), ((2,), (2,)), ((2,), (1,)), ((1,), (2,)), ((0,), (0,))]]


def _loss(op: str, opset: int, x: list, t: list, reduction: str, weight: bool
          ) -> onnx.ModelProto:
    names = ["x", "t", "w"][:3 if weight else 2]
    node = helper.make_node(op, names, ["y"], reduction=reduction)
    shapes = {"x": x, "t": t, "w": x[1:2]}
    return model_of([node], [helper.make_tensor_value_info(
        k, TensorProto.INT64 if k == "t" else TensorProto.FLOAT, shapes[k]) for k in names],
        opset)


@pytest.mark.parametrize("op", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
@pytest.mark.parametrize("opset", [12, 13, 22])
def test_a_target_of_another_batch_than_the_input(op, opset):
    """A target whose batch (or another axis) is not the input's. Declared so (the sizes
    in the model), onnxruntime refuses it when it loads the model (onnx's inference:
    "Input and target dimension value mismatch"): kantensor refuses exactly those. Named
    (the sizes fed), onnxruntime's function body runs a NegativeLogLikelihoodLoss whose
    target is no larger than the input on every axis (its GatherElements reads a corner
    of the scores) and a SoftmaxCrossEntropyLoss more; the contract never holds where
    onnxruntime refuses, and leaves those runs invalid as the spec and the declared
    model do (counted: claiming them would claim what one runtime's expansion reads)."""
    wrong, accidents, runs = [], 0, 0
    for ((n, m), (xd, td)), reduction, weight in itertools.product(
            MISMATCHED, ["none", "mean"], [False, True]):
        x, t = [n, 2, *xd], [m, *td]
        feeds = {"x": np.zeros(x, np.float32), "t": np.zeros(t, np.int64),
                 "w": np.ones([2], np.float32)}
        declared = _loss(op, opset, x, t, reduction, weight)
        feeds = {k: feeds[k] for k in ("x", "t", "w")[:3 if weight else 2]}
        ran = not isinstance(ortrun.run(declared, feeds), ortrun.Refusal)
        runs += ran
        if (kantensor_says(declared) == "accepts") is not ran:
            wrong.append(("declared", x, t, reduction, weight, ran))
        named = _loss(op, opset, ["n", 2, *[f"d{i}" for i in range(len(xd))]],
                      ["m", *[f"e{i}" for i in range(len(td))]], reduction, weight)
        sizes = {"n": n, "m": m, **{f"d{i}": v for i, v in enumerate(xd)},
                 **{f"e{i}": v for i, v in enumerate(td)}}
        holds = ko.contract(named).holds(**sizes).value
        if isinstance(ortrun.run(named, feeds), ortrun.Refusal):
            if holds is not False:
                wrong.append(("named", x, t, reduction, weight, holds))
        elif holds is not True:
            accidents += 1
            assert (m, *td) != (n, *xd), (x, t)  # (only a target of another shape)
    count(f"{op}: a named target smaller than the input, run by onnxruntime", accidents)
    assert not wrong, wrong[:5]
    assert runs >= 8 and accidents >= 4, (runs, accidents)

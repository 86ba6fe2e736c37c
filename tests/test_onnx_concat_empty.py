"""Concat over empty inputs, judged by onnxruntime and the spec at every size from 0 to 2.

ONNX's spec: "All input tensors must have the same shape, except for the dimension size
of the axis to concatenate on" (no exception for empty inputs; onnx.reference's
``np.concatenate`` refuses them too). onnxruntime's kernel skips every empty input in
that check (its sizes off the axis are not compared; the output's are those of the first
input that is not empty), so it runs, e.g., ``[2, 3]`` and ``[0, 0]`` along axis 0
(giving ``[2, 3]``) and ``[1, 0]`` and ``[1, 1]`` (giving ``[2, 1]``, a row of the
empty input's). kantensor types what both accept: its contract holds exactly where the
spec's condition holds and onnxruntime runs (docs/onnx.rst), with onnxruntime's sizes."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor.onnx as ko
import ortrun
import shapejudge as sj

#: (inputs, rank): every point of sizes 0 to 2 is judged (at most 729 per axis)
SHAPES = [(1, 1), (2, 1), (3, 1), (2, 2), (3, 2), (2, 3)]


def _model(n: int, rank: int, axis: int):
    names = [[f"a{k}_{i}" for i in range(rank)] for k in range(n)]
    graph = helper.make_graph(
        [helper.make_node("Concat", [f"x{k}" for k in range(n)], ["y"], axis=axis)], "g",
        [helper.make_tensor_value_info(f"x{k}", TensorProto.FLOAT, names[k])
         for k in range(n)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model, names


@pytest.mark.parametrize(("n", "rank"), SHAPES)
def test_concat_is_typed_where_the_spec_and_onnxruntime_both_run_it(n, rank):
    seen = {"both": 0, "onnxruntime only": 0, "refused": 0}
    for axis in sorted({0, rank - 1, -1}):
        model, names = _model(n, rank, axis)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            contract = ko.contract(model)
            typed = sj.typed_shapes(ko.infer_shapes(model))["y"]
        ax = axis % rank
        for point in itertools.product(range(3), repeat=n * rank):
            shapes = [point[k * rank:(k + 1) * rank] for k in range(n)]
            sizes = {name: v for k in range(n) for name, v in zip(names[k], shapes[k],
                                                                   strict=True)}
            got = ortrun.run(model, {f"x{k}": np.zeros(s, np.float32)
                                     for k, s in enumerate(shapes)})
            spec = len({s[:ax] + s[ax + 1:] for s in shapes}) == 1
            ran = not isinstance(got, ortrun.Refusal)
            holds = contract.holds(**sizes).value
            case = (axis, shapes, got)
            assert ran or not spec, case  # (onnxruntime runs all the spec accepts)
            assert holds is (spec and ran), (case, holds)
            if holds:
                stated = tuple(d if isinstance(d, int) else sj.kantensor_size(d, sizes)
                               for d in typed)
                assert stated == got[0], (case, typed)
            seen["both" if holds else "onnxruntime only" if ran else "refused"] += 1
    assert seen["both"] >= 6 and (seen["onnxruntime only"] > 0) is (n > 1 and rank > 1), seen

"""A refine conflict at a where-clause names every operand axis whose size the clause's
sentence uses: AlexNet (the onnx wheel's light model, its image ``(N, 3, H, W)``) refined
at ``N`` and an ``H`` where its Reshape to 9216 features fails says ``2048*r14.shape[3] ==
9216 holds for no size r14.shape[3]``; 2048 is r14's axes 0, 1 and 2 multiplied, so each
is listed with its value (and the chain says where it comes from), not only the axes one
of which alone could make the clause hold (axis 0 = 1 was dropped once an equation that
holds nowhere failed at once: erasing it no longer let the relation wait).

Judged by onnxruntime: the model cut at r14 (the nodes r14 needs, r14 its output) run at the given N
and H and two widths; the axes of r14 whose sizes the two runs share are those fixed by
N and H, and each must be listed with onnxruntime's size.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from contract_points import light_path
from kantensor.onnx.contract import prepare

#: two widths the cut model runs at (r14's width differs between them)
WIDTHS = (224, 256)


@pytest.mark.parametrize(("n", "h"), [(1, 300), (2, 300), (1, 290)])
def test_the_conflict_lists_each_size_its_clause_reads(n: int, h: int) -> None:
    model = prepare(light_path("bvlc_alexnet"), {"data_0": ("N", 3, "H", "W")}, opset=17)
    inputs, outputs = ko.from_onnx(model)
    with pytest.raises(kt.RefinementError) as caught:
        kt.refine(outputs, given={"N": n, "H": h})
    last = str(caught.value).splitlines()[-1]
    found = re.search(r"fails with (.*?): where-clause .* fails: (\d+)\*r14\.shape\[3\] ==", last)
    assert found, last
    listed = {(name, int(axis)): int(value) for name, axis, value
              in re.findall(r"(\w+) axis (\d+) = (\d+)", found.group(1))}
    shapes = [ortrun.run(_cut(model, "r14"), {"data_0": np.zeros((n, 3, h, w), np.float32)})[0]
              for w in WIDTHS]
    fixed = {axis: size for axis, size in enumerate(shapes[0]) if shapes[1][axis] == size}
    assert set(fixed) == {0, 1, 2}, shapes
    assert {(name, a): v for (name, a), v in listed.items() if name == "r14"} == \
        {("r14", a): v for a, v in fixed.items()}, last
    assert int(found.group(2)) == int(np.prod(list(fixed.values()))), last


def _cut(model: onnx.ModelProto, name: str) -> onnx.ModelProto:
    """``model`` with the nodes ``name`` needs only, ``name`` its one output."""
    cut = onnx.ModelProto()
    cut.CopyFrom(model)
    needed, kept = {name}, []
    for node in reversed(model.graph.node):
        if needed & set(node.output):
            kept.append(node)
            needed |= set(node.input)
    del cut.graph.node[:]
    cut.graph.node.extend(reversed(kept))
    del cut.graph.output[:]
    cut.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT,
                                                               None))
    return cut

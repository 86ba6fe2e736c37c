"""The value infos of a model joined with its graph outputs' left out
(kantensor.onnx.shapes._joined, each output's place found from the end): the same bytes
as onnx.helper's value infos of the names not among the outputs, serialized."""

from __future__ import annotations

import onnx
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper

from kantensor.onnx import shapes
from kantensor.types.dim import Dim
from kantensor.types.type import TensorType
from test_onnx_wire import helper_type

TYPES = st.builds(TensorType, st.sampled_from(["float32", "int64", "bool"]),
                  st.lists(st.one_of(st.integers(0, 300), st.none(), st.just(Dim("n"))),
                           max_size=3).map(tuple))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=6), TYPES), max_size=30, unique_by=lambda p: p[0]),
       st.data())
def test_the_infos_joined_leave_out_exactly_the_graph_outputs(pairs, data):
    names, types = [p[0] for p in pairs], [p[1] for p in pairs]
    skip = set(data.draw(st.lists(st.sampled_from(names), max_size=4))) if names else set()
    skip |= set(data.draw(st.lists(st.text(max_size=3), max_size=2)))  # (some no name of them)
    graph = onnx.GraphProto()
    graph.value_info.extend(helper.make_value_info(name, helper_type(t))
                            for name, t in zip(names, types, strict=True) if name not in skip)
    want = graph.SerializeToString()
    assert shapes._joined(names, shapes._new_infos(names, types), skip) == want
    assert shapes._infos(names, types, skip) == want
    assert sorted(shapes._places(names, skip)) == [k for k, name in enumerate(names)
                                                   if name in skip]

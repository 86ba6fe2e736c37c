"""benchmarks/onnx_compare.py judges a tool's typed outputs as tests/onnx_cases.py does:
a sequence's element type against every element of ONNX's expected sequence, an
optional's against the value it holds (it judged only tensors, so the ten node cases
with a sequence or optional output counted unknown there and exact in the test: 1,340
against 1,350)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from onnx_compare import score, verdict  # noqa: E402
from onnx_time import tool  # noqa: E402

from onnx_cases import cases, type_case  # noqa: E402

#: ONNX's node cases whose outputs are sequences or optionals (each typed exactly by
#: kantensor in tests/test_onnx_nodes.py), and tensor cases beside them.
CONTAINERS = {"test_identity_opt", "test_identity_sequence", "test_if_opt", "test_if_seq",
              "test_optional_get_element_optional_sequence",
              "test_optional_get_element_sequence", "test_sequence_map_add_1_sequence_1_tensor",
              "test_sequence_map_extract_shapes", "test_sequence_map_identity_1_sequence",
              "test_split_to_sequence_nokeepdims"}
TENSORS = {"test_add", "test_matmul_2d", "test_nonzero_example", "test_unique_sorted_with_axis"}


@pytest.fixture(scope="module")
def node_cases():
    return {c.name: c for c in cases() if c.name in CONTAINERS | TENSORS}


def test_the_benchmark_and_the_test_agree_case_by_case(node_cases):
    assert set(node_cases) == CONTAINERS | TENSORS  # ONNX still ships them
    kantensor = tool("kantensor")
    for name, case in sorted(node_cases.items()):
        got = score(kantensor, case)
        exact = bool(got) and all(v == "exact" for v in got)
        assert exact == (type_case(case, True)[0] == "exact"), (name, got)
    assert all(all(v == "exact" for v in score(kantensor, node_cases[n]))
               for n in CONTAINERS)


def test_a_sequence_of_the_wrong_element_type_is_wrong():
    expected = [np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)]

    def sequence(elem: int, shape: list) -> object:
        t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, shape))
        return helper.make_value_info("out", t)

    assert verdict(sequence(TensorProto.FLOAT, [2, 3]), expected) == "exact"
    assert verdict(sequence(TensorProto.FLOAT, [2, None]), expected) == "unknown"
    assert verdict(sequence(TensorProto.INT64, [2, 3]), expected) == "wrong"
    assert verdict(sequence(TensorProto.FLOAT, [2, 4]), expected) == "wrong"
    tensor = helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])
    assert verdict(tensor, expected) == "wrong"  # a tensor where a sequence is expected
    optional = helper.make_value_info("out", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2, 3])))
    assert verdict(optional, None) == "exact"  # an optional holding nothing
    assert verdict(optional, expected[0]) == "exact"

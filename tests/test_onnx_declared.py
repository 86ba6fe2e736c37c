"""What an ONNX entry declares of its values (onnx/declared.py), read by the size
analyses in place of op type names: a comparison of sizes reaches an If's condition
through any op whose entry keeps its input's values (a Transpose too, which main's list
of names left out), and a word the analyses do not know is refused when the entry loads.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
from kantensor.onnx.registry import load_onnx_file, lookup
from kantensor.ops.catalogue import CatalogueError
from test_contracts_branches import MATMUL, _branch, _judged

F = TensorProto.FLOAT


def _guarded(chain):
    """``If(chain(Shape(x)[0] <= 1))`` whose then branch needs ``D == N``."""
    inits = [numpy_helper.from_array(np.array([0], np.int64), "zero"),
             numpy_helper.from_array(np.array([1], np.int64), "one")]
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
             helper.make_node("LessOrEqual", ["n", "one"], ["c0"])]
    last = "c0"
    for k, (op, attrs) in enumerate(chain):
        nodes.append(helper.make_node(op, [last], [f"c{k + 1}"], **attrs))
        last = f"c{k + 1}"
    nodes.append(helper.make_node("Squeeze", [last], ["c"]))
    other = _branch([helper.make_node("Identity", ["x"], ["e"])], "e", "else")
    nodes.append(helper.make_node("If", ["c"], ["y"], name="if",
                                  then_branch=_branch(MATMUL, "t", "then"),
                                  else_branch=other))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, ["N", "D"])],
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("chain", [
    [("Not", {})],
    [("Not", {}), ("Transpose", {"perm": [0]})],
    [("Transpose", {"perm": [0]}), ("Not", {}), ("Identity", {})],
])
def test_a_comparison_of_sizes_reaches_the_if_through_kept_values(chain):
    """The then branch runs where ``not (N <= 1)`` (negated once): the contract is
    ``N <= 1 or D == N``, exact, and holds exactly where onnxruntime runs. On main the
    Transpose (not in its list of op types that keep a bool's value) made the condition
    the data's: an inexact contract, undecided wherever ``D != N``."""
    model = _guarded(chain)
    contract = ko.contract(model)
    assert contract.exact, str(contract)
    assert _judged(model, [None]) == 16


def test_the_size_analyses_read_what_the_entries_declare():
    """The entries of the ops that keep, negate, convert, make or compare values say so."""
    declared = {op: lookup(op, "", 17, "n").declared for op in (
        "Identity", "Transpose", "Not", "Cast", "Range", "Add", "Less", "NonZero", "MatMul")}
    assert [d.values for d in declared.values()] == [
        "kept", "kept", "negated", "cast", "range", "sum", None, None, None]
    assert declared["Less"].compares == "<" and declared["NonZero"].counts.guaranteed
    assert declared["MatMul"].counts is None and lookup("Shape", "", 17, "n").reads_shapes


@pytest.mark.parametrize(("line", "message"), [
    ('values = "same"', "values must be one of"),
    ('compares = "!="', "compares must be one of"),
    ('counts = "kantensor.onnx.datasizes.DataSizes"', "is not a Counting"),
])
def test_a_declaration_the_analyses_do_not_know_is_refused(line, message):
    text = f'[[op]]\nname = "Odd"\nsince = 1\n{line}\nsignature = "+()->()"\n' \
        'impl = "numpy.negative"\n'
    with pytest.raises(CatalogueError, match=message):
        load_onnx_file("odd.toml", text)

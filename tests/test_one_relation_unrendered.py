"""Queries whose relation cannot be rendered from what they are given (DESIGN §7: every
type that builds forwards to the outputs is covered by an answer), judged by onnxruntime
running the node at every input shape of a small domain, and by NumPy.

A builder that renders its relation from the sizes the query knows
(``reads_known_sizes``) and needs one it is not given (a Squeeze without axes needs
every size of its data; an Expand its shape input's length) refused to render, and the
relation read that as "no such types": ``query(Squeeze, [float32[a,b,c]],
[float32[3]])`` answered nothing, where onnxruntime squeezes ``float32[1,1,3]`` to
``float32[3]``. A query now says what it needs (a RenderingLimit naming it: each case
says which) or answers every instance onnxruntime builds, and no other; and ``list`` of
its answers raises what the query raises (it gave the answers read so far). Each
refused query is asked again given what it needs (Squeeze's axes, the length of
Expand's shape), and those answers are judged by onnxruntime.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper
from unification import var

import kantensor as kt
import ortrun
from kantensor.onnx.registry import registry
from kantensor.syntax.errors import RenderingLimit
from kantensor.types.symbols import free_symbols, substitute

SIZES = range(4)


def _onnx(op_type: str, **params):
    return registry()[("", op_type)][-1].op.bind(**params)


def _model(op_type: str, rank: int, shape_input: tuple | None, opset: int = 18, **attrs):
    """One node of ``op_type`` on a float data input of ``rank`` axes (and a shape input
    of these values), as onnx.helper writes it."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None] * rank)]
    names = ["x"]
    if shape_input is not None:
        inputs.append(helper.make_tensor_value_info("s", TensorProto.INT64,
                                                    [len(shape_input)]))
        names.append("s")
    node = helper.make_node(op_type, names, ["y"], **attrs)
    graph = helper.make_graph([node], "g", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


#: The refusal of a query whose relation needs sizes it is not given: kantensor's class
#: and the words saying what it needs.
NEEDS_SIZES = (RenderingLimit, "Squeeze without axes needs every size known")
NEEDS_LENGTH = (RenderingLimit, "Expand: shape has an unknown length")

#: (name, the Op, its inputs as patterns over these size names, the output asked, the
#: ONNX node's type, its data's rank, the shape input's values, the node's opset and
#: attributes, and the refusal expected: None where kantensor answers)
CASES = [
    ("Squeeze to [3]", _onnx("Squeeze"), lambda v: [kt.pattern("float32", v[:3])],
     "float32[3]", "Squeeze", 3, None, 18, {}, NEEDS_SIZES),
    ("Squeeze to [2,3]", _onnx("Squeeze"), lambda v: [kt.pattern("float32", v[:3])],
     "float32[2,3]", "Squeeze", 3, None, 18, {}, NEEDS_SIZES),
    ("Expand to [2,3,6]", _onnx("Expand", shape_value=(2, 1, 6)),
     lambda v: [kt.pattern("float32", v[:2]), kt.pattern("int64", v[2:3])],
     "float32[2,3,6]", "Expand", 2, (2, 1, 6), 18, {}, NEEDS_LENGTH),
    # the same, given what they need: answered, every answer judged by onnxruntime
    ("Squeeze axes 0, 1 to [3]", _onnx("Squeeze", axes=(0, 1)),
     lambda v: [kt.pattern("float32", v[:3])], "float32[3]", "Squeeze", 3, None, 11,
     {"axes": [0, 1]}, None),
    ("Squeeze axis 0 to [2,3]", _onnx("Squeeze", axes=(0,)),
     lambda v: [kt.pattern("float32", v[:3])], "float32[2,3]", "Squeeze", 3, None, 11,
     {"axes": [0]}, None),
    ("Expand by 3 sizes to [2,3,6]", _onnx("Expand", shape_value=(2, 1, 6)),
     lambda v: [kt.pattern("float32", v[:2]), kt.pattern("int64", [3])],
     "float32[2,3,6]", "Expand", 2, (2, 1, 6), 18, {}, None),
]


@pytest.mark.parametrize(("name", "op", "patterns", "out", "op_type", "rank", "shape",
                          "opset", "attrs", "refusal"), CASES, ids=[c[0] for c in CASES])
def test_a_backward_query_covers_what_onnxruntime_builds(name, op, patterns, out, op_type,
                                                         rank, shape, opset, attrs, refusal):
    names = ["a", "b", "c"]
    want = set()
    model = _model(op_type, rank, shape, opset, **attrs)
    for sizes in itertools.product(SIZES, repeat=rank):
        feeds = {"x": np.zeros(sizes, np.float32)}
        if shape is not None:
            feeds["s"] = np.array(shape, np.int64)
        got = ortrun.run(model, feeds)
        if isinstance(got, ortrun.Refusal):
            assert not got.crashed, (name, sizes, got)
        elif got[0] == kt.TensorType.parse(out).shape:
            want.add(sizes)
    assert want, name  # (onnxruntime builds the output from some input)
    query = kt.query(op, patterns([var(n) for n in names]), [out], max_rank=3)
    if refusal is not None:  # a query that needs a size says so, and which
        kind, needs = refusal
        with pytest.raises(kind) as refused:
            list(query)
        assert type(refused.value) is kind and needs in str(refused.value), (name, refused)
        return
    found = set()
    for answer in query:
        values = [answer[n] for n in names[:rank]]
        symbols = sorted({s for v in values if isinstance(v, kt.Dim) for s in free_symbols(v)}
                         | {s for c in answer.where for s in c.symbols()}, key=str)
        for choice in itertools.product(SIZES, repeat=len(symbols)):
            env = dict(zip(symbols, choice, strict=True))
            if all(c.holds(env) for c in answer.where):
                found.add(tuple(substitute(v, env) if isinstance(v, kt.Dim) else v
                                for v in values))
    assert found == want, (name, sorted(found - want), sorted(want - found))


def test_a_query_that_says_what_it_needs_says_it_to_list_too():
    """``list(query(...))`` asks ``len`` first, and drops a TypeError it raises: a query
    that meets a relation's limit (squeeze(axis=None) of 9 axes of unknown size) raised
    it to ``len`` and then gave ``list`` the answers read so far as if they were all (36
    shapes up to 8 axes, none of 9, where NumPy squeezes ``float32[1]*8 + [3]`` too)."""
    assert np.squeeze(np.zeros((1,) * 8 + (3,))).shape == (3,)
    with pytest.raises(kt.TypeInferenceError, match="give the axes to drop"):
        list(kt.query(kt.squeeze, [var("X")], ["float32[3]"], max_rank=9))
    answers = kt.query(kt.squeeze, [var("X")], ["float32[3]"], max_rank=9)
    for _ in range(2):  # (and again at every later read)
        with pytest.raises(kt.TypeInferenceError, match="give the axes to drop"):
            list(answers)

"""A size that divides, judged by onnxruntime (tests/ortrun.py): a Range whose delta, a
Slice whose step, or an integer Div or fmod Mod whose divisor is a size ``D`` of ``x:
float[N, D]``, run at N in 0..3, D in 0..3. onnxruntime refuses each at D == 0 ('delta
in Range operator can not be zero', 'Slice step cannot be 0', 'Integer division by
zero', 'Integer modulo by zero').

The contracts said every size is valid where the delta or step was a size (kantensor
left the output's size unknown and stated nothing of the divisor), and an integer Div by
a size was not folded (the contract was undecided); each now states its divisor's
condition (``D >= 1``: a size is never negative), the node's, and Div folds under it.
A numerator of either sign by a size (``(N - D) / D``: ONNX's Div truncates toward zero,
not Python's floor) did not fold; it folds under that condition.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.ops.params import ParamError
from kantensor.types.symbols import substitute

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _c(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _n(op: str, inputs: list, out: str, **attrs):
    return helper.make_node(op, inputs, [out], **attrs)


def _size(nodes: list) -> list:
    """``y`` as ``ConstantOfShape(e + 1)`` of an int64[1] ``e``."""
    return [*nodes, _n("Add", ["e", "one"], "e1"), _n("ConstantOfShape", ["e1"], "y")]


#: ``y`` from ``n = [N]``, ``d = [D]`` and their scalars ``ns``, ``ds``.
CASES = {
    "Range(0, N, D)": [_n("Range", ["zs", "ns", "ds"], "r"), _n("Shape", ["r"], "e"),
                       _n("Cast", ["r"], "y", to=F)],
    "Range(1, N + 3, D)": [_n("Add", ["ns", "three"], "l"), _n("Range", ["os", "l", "ds"], "r"),
                           _n("Cast", ["r"], "y", to=F)],
    "x[0:N:D]": [_n("Slice", ["x", "z1", "n", "z1", "d"], "y")],
    "x[N:0:-D]": [_n("Neg", ["d"], "md"), _n("Slice", ["x", "n", "z1", "z1", "md"], "y")],
    "N / D": _size([_n("Div", ["n", "d"], "e")]),
    "(N*D) / D": _size([_n("Mul", ["n", "d"], "p"), _n("Div", ["p", "d"], "e")]),
    "(N*D + 2*D) / D": _size([_n("Add", ["n", "two"], "n2"), _n("Mul", ["n2", "d"], "p"),
                              _n("Div", ["p", "d"], "e")]),
    "0 * (N / D)": _size([_n("Div", ["n", "d"], "q"), _n("Mul", ["q", "zero"], "e")]),
    "x[:N / D]": [_n("Div", ["n", "d"], "q"), _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "(N*D + 1) fmod D": _size([_n("Mul", ["n", "d"], "p"), _n("Add", ["p", "one"], "p1"),
                               _n("Mod", ["p1", "d"], "e", fmod=1)]),
    "N / (D + 1)": _size([_n("Add", ["d", "one"], "d1"), _n("Div", ["n", "d1"], "e")]),
    # a numerator of either sign by a size: truncated toward zero (-1 at N = 0), not
    # floored, as a size >= 1 under its divisor's condition (they did not fold)
    "(N - D) / D": _size([_n("Sub", ["n", "d"], "a"), _n("Div", ["a", "d"], "e")]),
    "(D - N) / D": _size([_n("Sub", ["d", "n"], "a"), _n("Div", ["a", "d"], "e")]),
    "(N - D) fmod D": _size([_n("Sub", ["n", "d"], "a"), _n("Mod", ["a", "d"], "e", fmod=1)]),
    "(N - D) mod D": _size([_n("Sub", ["n", "d"], "a"), _n("Mod", ["a", "d"], "e")]),
    # as a Slice's end: the divisor's condition is the node's all the same; a literal 0
    # divisor fails always
    "x[:(N - 3) / D]": [_n("Sub", ["n", "three1"], "a"), _n("Div", ["a", "d"], "q"),
                        _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "x[:(N - 3) fmod D]": [_n("Sub", ["n", "three1"], "a"), _n("Mod", ["a", "d"], "q", fmod=1),
                           _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "x[:N / (D - 1)]": [_n("Sub", ["d", "one"], "dm"), _n("Div", ["n", "dm"], "q"),
                        _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "x[:N / (D - 2)]": [_n("Sub", ["d", "two"], "dm"), _n("Div", ["n", "dm"], "q"),
                        _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "x[:N / -D]": [_n("Neg", ["d"], "dm"), _n("Div", ["n", "dm"], "q"),
                   _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "x[:N / 0]": [_n("Div", ["n", "zero"], "q"), _n("Slice", ["x", "z1", "q", "z1"], "y")],
    "x[:N mod 0]": [_n("Mod", ["n", "zero"], "q"), _n("Slice", ["x", "z1", "q", "z1"], "y")],
}

#: a Range of sizes whose length is derived (it was unknown, ``?``): ``max(0,
#: ceil((limit - start) / delta))`` where delta's sign is known, under its condition
DERIVED = {
    "Range(0, 4, D)": [_n("Range", ["zs", "fours", "ds"], "r"), _n("Cast", ["r"], "y", to=F)],
    "Range(N, 0, -1)": [_n("Range", ["ns", "zs", "mones"], "r"), _n("Cast", ["r"], "y", to=F)],
    "Range(1, N + 3, D)": CASES["Range(1, N + 3, D)"],
    "Range(N, 1, -D)": [_n("Neg", ["ds"], "md"), _n("Range", ["ns", "os", "md"], "r"),
                        _n("Cast", ["r"], "y", to=F)],
    "Range(D, N, 2)": [_n("Range", ["ds", "ns", "twos"], "r"), _n("Cast", ["r"], "y", to=F)],
    "Range(N + 3, D, -2)": [_n("Add", ["ns", "three"], "l"),
                            _n("Range", ["l", "ds", "mtwos"], "r"), _n("Cast", ["r"], "y", to=F)],
}

#: a literal 0 Range delta or Slice step: onnxruntime refuses the model at every size
ALWAYS_REFUSED = {
    "Range(0, N, 0)": [_n("Range", ["zs", "ns", "zs"], "r"), _n("Cast", ["r"], "y", to=F)],
    "x[0:N:0]": [_n("Slice", ["x", "z1", "n", "z1", "z1"], "y")],
}


def _model(nodes: list):
    head = [_n("Shape", ["x"], "s"), _n("Slice", ["s", "z1", "o1"], "n"),
            _n("Slice", ["s", "o1", "t1"], "d"), _n("Squeeze", ["n", "z1"], "ns"),
            _n("Squeeze", ["d", "z1"], "ds")]
    inits = [_c("z1", [0]), _c("o1", [1]), _c("t1", [2]), _c("one", [1]), _c("two", [2]),
             _c("zero", [0]), _c("zs", 0), _c("os", 1), _c("three", 3), _c("three1", [3]),
             _c("fours", 4), _c("mones", -1), _c("twos", 2), _c("mtwos", -2)]
    graph = helper.make_graph(head + nodes, "g",
                              [helper.make_tensor_value_info("x", F, ["N", "D"])],
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("case", CASES)
def test_a_size_divisor_is_onnxruntimes(case):
    _check(case, CASES[case])


@pytest.mark.parametrize("case", DERIVED)
def test_a_range_of_sizes_has_its_length(case):
    assert None not in _check(case, DERIVED[case]), case


def _check(case: str, nodes: list) -> list:
    """The output's sizes (None: unknown), each onnxruntime's wherever the contract
    holds, and the contract's verdict onnxruntime's at N, D in 0..3."""
    model = _model(nodes)
    shape = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape
    sizes = [d.dim_value if d.HasField("dim_value") else
             kt.TensorType.parse(f"float32[{d.dim_param}]").shape[0] if d.dim_param
             else None for d in shape.dim]
    contract = ko.contract(model)
    seen, ran = set(), False
    for n, d in itertools.product(range(4), range(4)):
        out = ortrun.run(model, {"x": np.zeros((n, d), np.float32)})
        runs = isinstance(out, list)
        ran = ran or runs
        verdict = contract.holds(N=n, D=d).value
        seen.add(verdict)
        # not covered (None): no claim (a Slice's end of either sign: the type is
        # built for the end >= 0, and counts from the other end below it)
        assert verdict is None or verdict == runs, (case, n, d, str(contract), out)
        if verdict:
            assert len(sizes) == len(out[0]), (case, sizes, out[0])
            for size, got in zip(sizes, out[0], strict=True):
                assert size is None or substitute(size, {"N": n, "D": d}) == got, (
                    case, n, d, sizes, out[0])
    assert (True in seen or not ran) and (None not in seen or "Slice" in str(nodes))
    return sizes


@pytest.mark.parametrize("case", ALWAYS_REFUSED)
def test_a_literal_zero_delta_or_step_is_refused(case):
    model = _model(ALWAYS_REFUSED[case])
    for n, d in itertools.product(range(4), range(4)):
        out = ortrun.run(model, {"x": np.zeros((n, d), np.float32)})
        assert not isinstance(out, list), (case, n, d, out)
    with pytest.raises(ParamError, match="is 0"):
        ko.contract(model)

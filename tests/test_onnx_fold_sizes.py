"""A value computed from sizes when a model is read (``Div(1 - Shape(x)[0], 2)``, a size
cast to uint8) is folded only where it is that value at every size: ONNX's integer Div
truncates toward zero (a floor differs where the quotient is negative) and a Cast to a
narrow integer wraps (``100*N`` in uint8 is 44 at N = 3). Judged by onnxruntime
(tests/ortrun.py): the output of ``ConstantOfShape(e + 10)`` at N in 0..5, D in 0..2.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.onnx.floatsizes import held, quotient, rounded, to_integer
from kantensor.onnx.shared import FOLD_NEEDS
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _c(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _model(nodes: list, inits: list):
    """``y = ConstantOfShape(e + 10)`` over ``x: float[N, D]``, ``nodes`` computing the
    int64[1] ``e`` from ``n = [N]`` and ``d = [D]``."""
    head = [helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Slice", ["s", "z1", "o1"], ["n"]),
            helper.make_node("Slice", ["s", "o1", "t1"], ["d"])]
    tail = [helper.make_node("Add", ["e", "ten"], ["e10"]),
            helper.make_node("ConstantOfShape", ["e10"], ["y"])]
    inits = [*inits, _c("z1", [0]), _c("o1", [1]), _c("t1", [2]), _c("ten", [10])]
    graph = helper.make_graph(head + nodes + tail, "g",
                              [helper.make_tensor_value_info("x", F, ["N", "D"])],
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _node(op: str, inputs: list, out: str, **kw):
    return helper.make_node(op, inputs, [out], **kw)


def _f(name: str, value, dtype=np.float32) -> TensorProto:
    return numpy_helper.from_array(np.array(value, dtype), name)


def _floor_div(a: str, divisor: float, rounding: str = "Floor", to=F) -> tuple[list, list]:
    """TorchScript's ``a // divisor`` of sizes: Cast(to), Div, ``rounding`` (Floor, Ceil,
    Round, or none: the cast back truncates), Cast(int64)."""
    dtype = {F: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.FLOAT16: np.float16}
    nodes = [_node("Cast", [a], "fa", to=to), _node("Div", ["fa", "fb"], "fq")]
    last = "fq"
    if rounding:
        nodes.append(_node(rounding, ["fq"], "fr"))
        last = "fr"
    return [*nodes, _node("Cast", [last], "e", to=I64)], [_f("fb", [divisor], dtype[to])]


def _then(first: list, rest: tuple[list, list]) -> tuple[list, list]:
    return [*first, *rest[0]], rest[1]


CASES = {
    "(1 - N) / 2": ([_node("Sub", ["one", "n"], "a"), _node("Div", ["a", "two"], "e")],
                    [_c("one", [1]), _c("two", [2])]),
    "N / -2": ([_node("Div", ["n", "m2"], "e")], [_c("m2", [-2])]),
    "(D - N) / 3": ([_node("Sub", ["d", "n"], "a"), _node("Div", ["a", "three"], "e")],
                    [_c("three", [3])]),
    "N / 2": ([_node("Div", ["n", "two"], "e")], [_c("two", [2])]),
    "uint8(100 * N)": ([_node("Mul", ["n", "c100"], "a"),
                        _node("Cast", ["a"], "b", to=TensorProto.UINT8),
                        _node("Cast", ["b"], "e", to=I64)], [_c("c100", [100])]),
    "int8(-1), N": ([_node("Concat", ["m1", "n"], "a", axis=0),
                     _node("Cast", ["a"], "b", to=TensorProto.UINT8),
                     _node("Cast", ["b"], "c", to=I64),
                     _node("Slice", ["c", "z1", "o1"], "f"),
                     _node("Sub", ["f", "c250"], "e")], [_c("m1", [-1]), _c("c250", [250])]),
    "int64(N)": ([_node("Cast", ["n"], "b", to=TensorProto.INT32),
                  _node("Cast", ["b"], "e", to=I64)], []),
    "floor(float(N) / 3)": _floor_div("n", 3.0),
    "ceil(float(N) / 2)": _floor_div("n", 2.0, "Ceil"),
    "floor(float(D - N) / 3)": _then([_node("Sub", ["d", "n"], "a")], _floor_div("a", 3.0)),
    "ceil(float(D - N) / -2)": _then([_node("Sub", ["d", "n"], "a")],
                                     _floor_div("a", -2.0, "Ceil")),
    "int64(float(D - N) / 3)": _then([_node("Sub", ["d", "n"], "a")],
                                     _floor_div("a", 3.0, "")),
    "floor(double(N) / 7)": _floor_div("n", 7.0, to=TensorProto.DOUBLE),
    "ceil(half(N) / 3)": _floor_div("n", 3.0, "Ceil", to=TensorProto.FLOAT16),
    "floor(float(N) / 1)": _floor_div("n", 1.0),
    "round(float(N) / 2)": _floor_div("n", 2.0, "Round"),
    "round(float(N))": _floor_div("n", 1.0, "Round"),
    "floor(float(N) / 2.5)": _floor_div("n", 2.5),
    "floor(float(N) / float(D + 1))": ([_node("Cast", ["n"], "fa", to=F),
                                        _node("Add", ["d", "one"], "d1"),
                                        _node("Cast", ["d1"], "fd", to=F),
                                        _node("Div", ["fa", "fd"], "fq"),
                                        _node("Floor", ["fq"], "fr"),
                                        _node("Cast", ["fr"], "e", to=I64)],
                                       [_c("one", [1])]),
    "floor(float(N) * 0.5)": ([_node("Cast", ["n"], "fa", to=F),
                               _node("Mul", ["fa", "half"], "fq"),
                               _node("Floor", ["fq"], "fr"),
                               _node("Cast", ["fr"], "e", to=I64)], [_f("half", [0.5])]),
    "ceil(float(max(N, D)) / 2)": _then(
        [_node("Concat", ["n", "d"], "nd", axis=0),
         _node("Cast", ["nd"], "fnd", to=F),
         _node("ReduceMax", ["fnd"], "m", keepdims=1),
         _node("Cast", ["m"], "mi", to=I64)], _floor_div("mi", 2.0, "Ceil")),
    "abs(D - N)": ([_node("Sub", ["d", "n"], "a"), _node("Abs", ["a"], "e")], []),
    "fmod(D - N, -3)": ([_node("Sub", ["d", "n"], "a"), _node("Mod", ["a", "m3"], "e", fmod=1)],
                        [_c("m3", [-3])]),
    "fmod(float(D - N), 2)": ([_node("Sub", ["d", "n"], "a"), _node("Cast", ["a"], "fa", to=F),
                              _node("Mod", ["fa", "f2"], "fm", fmod=1),
                              _node("Cast", ["fm"], "e", to=I64)], [_f("f2", [2.0])]),
    "sign(D - N) + N": ([_node("Sub", ["d", "n"], "a"), _node("Sign", ["a"], "b"),
                        _node("Add", ["b", "n"], "e")], []),
}


#: The quotients by an int: folded at either sign of the dividend (truncated toward 0);
#: torchscript's floor division in floats (exact below 2**p: a choice the contract
#: states, :mod:`kantensor.onnx.floatsizes`); Abs, Sign and C's fmod of sizes. (Not folded: the
#: rounding to nearest of a quotient, a quotient by a fraction or by a size, a product
#: of floats.)
FOLDED = ("(1 - N) / 2", "N / -2", "(D - N) / 3", "N / 2", "floor(float(N) / 3)",
          "ceil(float(N) / 2)", "floor(float(D - N) / 3)", "ceil(float(D - N) / -2)",
          "int64(float(D - N) / 3)", "floor(double(N) / 7)", "ceil(half(N) / 3)",
          "floor(float(N) / 1)", "round(float(N))", "ceil(float(max(N, D)) / 2)",
          "abs(D - N)", "sign(D - N) + N", "fmod(D - N, -3)", "fmod(float(D - N), 2)")


@pytest.mark.parametrize("case", CASES)
def test_a_value_of_sizes_is_folded_only_as_onnxruntime_computes_it(case):
    model = _model(*CASES[case])
    t = ko.infer_shapes(model).graph.output[0].type.tensor_type
    inferred = [d.dim_value if d.HasField("dim_value") else d.dim_param or None
                for d in t.shape.dim] if t.HasField("shape") else None
    if case in FOLDED:
        assert inferred is not None and None not in inferred, (case, inferred)
    for n, d in itertools.product(range(6), range(3)):
        (shape,) = ortrun.run(model, {"x": np.zeros((n, d), np.float32)})
        if inferred is None:
            continue
        assert len(inferred) == len(shape)
        for got, want in zip(inferred, shape, strict=True):
            if isinstance(got, str):
                got = substitute(kt.TensorType.parse(f"float32[{got}]").shape[0],
                                 {"N": n, "D": d})
            if got is not None:
                assert got == want, (case, n, d, inferred, shape)


def _pooled(pooled: str):
    """``ConstantOfShape(Div(N - 7, 8) + 10)`` over ``x: float[1, 1, N]``, after a
    MaxPool of window 8 over ``pooled`` (x: its facts say ``N >= 8``; w: ``M >= 8``)."""
    nodes = [helper.make_node("MaxPool", [pooled], ["p"], kernel_shape=[8]),
             helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Slice", ["s", "two", "three"], ["n"]),
             _node("Sub", ["n", "seven"], "a"), _node("Div", ["a", "eight"], "e"),
             _node("Add", ["e", "ten"], "e10"), _node("ConstantOfShape", ["e10"], "y")]
    inits = [_c("two", [2]), _c("three", [3]), _c("seven", [7]), _c("eight", [8]),
             _c("ten", [10])]
    graph = helper.make_graph(nodes, "g", [
        helper.make_tensor_value_info("x", F, [1, 1, "N"]),
        helper.make_tensor_value_info("w", F, [1, 1, "M"])],
        [helper.make_tensor_value_info("y", F, None),
         helper.make_tensor_value_info("p", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _size(model) -> str:
    """The output's one size as infer_shapes writes it ("?": not known)."""
    dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    return "?" if len(dims) != 1 else dims[0].dim_param or str(dims[0].dim_value) \
        if dims[0].HasField("dim_value") or dims[0].dim_param else "?"


def test_a_quotient_is_folded_under_the_facts_of_the_nodes_before_and_only_there():
    """Where a window of 8 before it says N >= 8, (N - 7) / 8 is a floor (every valid N
    gives it a sign); the same Div where the window is over another input is the
    quotient truncated toward zero at either sign (max(0, N - 7)//8 - max(0, 7 - N)//8,
    whose second part is 0: 10 at N < 7), though the node memo met it first under those
    facts (its key holds them)."""
    pooled, other = _pooled("x"), _pooled("w")
    assert _size(pooled) == "(N + 1)//8 + 9"
    assert _size(other) == "max(10, (N + 1)//8 + 9)"
    assert _size(pooled) == "(N + 1)//8 + 9"  # (each model typed again: the memos)
    w = np.zeros((1, 1, 8), np.float32)
    for n in range(8, 20):
        (shape, _) = ortrun.run(pooled, {"x": np.zeros((1, 1, n), np.float32), "w": w})
        assert shape == ((n + 1) // 8 + 9,)
    for n in range(20):  # (at n = 2: (2 - 7) / 8 truncates to 0, a floor gives -1)
        (shape, _) = ortrun.run(other, {"x": np.zeros((1, 1, n), np.float32), "w": w})
        assert shape == (max(10, (n + 1) // 8 + 9),)


def test_a_float_quotient_of_integers_below_2_to_the_p_rounds_as_the_exact_one():
    """The claim :mod:`kantensor.onnx.floatsizes` rests on, by brute force in float16
    (p = 11: every dividend and divisor of magnitude below 2**11, the quotient rounded
    once, or computed in float32 and rounded again to float16 as a runtime without
    float16 arithmetic does) and on a sample in float32: floor, ceil and truncation of
    the rounded quotient are those of the exact one; and at 2**p and beyond they are not
    always (so the bound is needed)."""
    a = np.arange(-2047, 2048)
    for b in range(-2047, 2048):
        if b == 0:
            continue
        for q in (a.astype(np.float16) / np.float16(b),
                  (a.astype(np.float32) / np.float32(b)).astype(np.float16)):
            assert (np.floor(q) == a // b).all() and (np.ceil(q) == -((-a) // b)).all()
            assert (np.trunc(q) == np.fix(a / b)).all()
    rng = np.random.default_rng(0)
    a32 = rng.integers(-(2**24) + 1, 2**24, 200_000)
    b32 = rng.integers(1, 2**12, 200_000) * rng.choice([-1, 1], 200_000)
    q32 = a32.astype(np.float32) / b32.astype(np.float32)
    assert (np.floor(q32) == a32 // b32).all()
    past = np.arange(2**11, 2**13)
    assert (np.floor(past.astype(np.float16) / np.float16(3)) != past // 3).any()


def _floor_model(to=F, first: list | None = None):
    """``ConstantOfShape(floor(to(N) / 3) + 10)`` over ``x: float[N, D]`` (``first``:
    nodes on ``x`` before it, whose conditions are facts for it)."""
    nodes, inits = _floor_div("n", 3.0, to=to)
    model = _model(nodes, inits)
    if first:
        nodes = [*first, *model.graph.node]
        del model.graph.node[:]
        model.graph.node.extend(nodes)
        model.graph.output.extend([helper.make_tensor_value_info(
            n.output[0], F, None) for n in first])
    return model


def test_a_size_held_in_a_float_is_a_choice_below_2_to_the_p():
    """A size cast to a float is the same size below 2**p (float32: 2**24, float16:
    2**11): the contract states it as a choice (beyond it the value is rounded, which is
    not folded: those sizes are not covered, never invalid); where the facts decide it
    (a MatMul before it by a weight of 8 rows makes N = 8), no condition."""
    for to, p, name in ((F, 24, "float32"), (TensorProto.FLOAT16, 11, "float16"),
                        (TensorProto.DOUBLE, 53, "float64")):
        contract = ko.contract(_floor_model(to))
        assert contract.holds(N=2**p - 1, D=1).value is True
        verdict = contract.holds(N=2**p, D=1)
        assert verdict.value is None and "Cast" in str(verdict.atom), (to, contract)
        assert f"N rounded to {name}: a value not folded" in str(contract)
    (shape,) = ortrun.run(_floor_model(TensorProto.FLOAT16), {
        "x": np.zeros((2051, 1), np.float32)})  # onnxruntime: 693 (exactly 2051 // 3 + 10)
    assert shape in ((693,), (694,))  # (float16 rounds 2051 to 2052: not folded there)
    model = _floor_model(F, [helper.make_node("MatMul", ["w", "x"], ["r"])])
    model.graph.initializer.append(_f("w", np.zeros((3, 8))))
    contract = ko.contract(model)
    assert "rounded" not in str(contract) and "N == 8" in str(contract), contract
    assert ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim[0].dim_value == 12


def test_a_float_of_sizes_never_cast_back_states_nothing():
    """A size cast to a float and used as data (a box's coordinates scaled by the image's
    size, as SSDlite's export does) needs nothing of the sizes: only a value cast back to
    an integer states what the float must hold exactly, so this contract stays exact."""
    nodes = [_node("Shape", ["x"], "s"), _node("Cast", ["s"], "fs", to=F),
             _node("Div", ["fs", "f3"], "q"), _node("Mul", ["x", "q"], "y")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, ["N", 2])],
                              [helper.make_tensor_value_info("y", F, None)],
                              [_f("f3", [3.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    assert contract.exact and "every size is valid" in str(contract), contract


def test_the_float_kernels_of_sizes_compute_what_numpy_computes_in_that_float():
    """The kernels' chain on a size ``n + c`` (Cast to the float, Div by ``b``, Floor,
    Ceil or none, Cast back), evaluated at sizes below 2**p, against NumPy computing the
    same in that float: equal at every one, and the conditions each stated say
    ``|n + c| < 2**p``."""
    rng = np.random.default_rng(32)
    n = Dim("n")
    for dtype in ("float16", "float32", "float64"):
        p = {"float16": 11, "float32": 24, "float64": 53}[dtype]
        for _ in range(60):
            c, b = int(rng.integers(-5, 6)), int(rng.choice([-7, -3, -2, 2, 3, 5, 8, 40]))
            how = str(rng.choice(["floor", "ceil", "trunc"]))
            needs: list = []
            token = FOLD_NEEDS.set(needs)
            try:
                q = quotient(held(n + c, dtype), b, dtype)
                v = to_integer(q if how == "trunc" else rounded(q, how), "Cast")
            finally:
                FOLD_NEEDS.reset(token)
            assert needs and all(x.source.otherwise for x in needs), needs  # (choices)
            assert all(x.holds({"n": 2**p - c - 1}) for x in needs)
            assert not all(x.holds({"n": 2**p - c}) for x in needs), (needs, c)
            for size in (*range(8), *rng.integers(0, 2**p - 6, 20).tolist()):
                f = np.array(size + c, dtype) / np.array(b, dtype)
                want = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}[how](f)
                got = substitute(v, {"n": size}) if isinstance(v, Dim) else v
                assert got == int(want), (dtype, c, b, how, size, v)

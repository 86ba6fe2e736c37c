"""ONNX ops beyond what the node cases show: Upsample (opsets 7 and 9), Resize's
aspect-ratio policies and fractional scales on symbolic sizes, typed by ``infer_shapes`` and run by
``kt.function``, against ``onnx.reference.ReferenceEvaluator`` over many sizes (the
typed sizes with the symbols substituted must be the sizes it computes)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
from kantensor.onnx import UnsupportedOp, from_onnx, infer_shapes
from kantensor.onnx.tensor.resizesizes import aspect_size, scaled_size
from kantensor.types.dim import Dim
from kantensor.types.dtypes import integer_range
from kantensor.types.symbols import substitute
from onnx_cases import written_dims

F = TensorProto.FLOAT
RNG = np.random.default_rng(7)


def model(node, x_dims, inits=(), opset=19):
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", F, x_dims)],
                              [helper.make_tensor_value_info("Y", F, None)], list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def typed_dims(m):
    """The output's dims as infer_shapes writes them: ints, Dims, or None (unknown)."""
    return written_dims(infer_shapes(m).graph.output[0])


def at(dims, sizes):
    """The dims with the model's symbols given sizes (None stays None)."""
    return [d if d is None else substitute(d, sizes) if isinstance(d, Dim) else d
            for d in dims]


def check(m, sizes, x_shape, oracle=None):
    """Typed sizes agree with the reference's output (unknown allowed), and kt.function
    computes the reference's values; returns the typed dims at ``sizes``."""
    x = RNG.standard_normal(x_shape).astype(np.float32)
    (want,) = ReferenceEvaluator(oracle or m).run(None, {"X": x})
    dims = at(typed_dims(m), sizes)
    assert len(dims) == want.ndim
    assert all(d is None or d == w for d, w in zip(dims, want.shape, strict=True))
    ins, outs = from_onnx(m)
    (got,) = kt.function(ins, outs)(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return dims


def scales_init(scales):
    return numpy_helper.from_array(np.array(scales, dtype=np.float32), "scales")


def as_resize(scales, mode):
    """Resize of opset 19 computing what Upsample means (asymmetric coordinates, the
    floor of the position as nearest pixel): the oracle where onnx's own Upsample
    stops (it runs only nearest with integer scales)."""
    node = helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode=mode,
                            coordinate_transformation_mode="asymmetric",
                            nearest_mode="floor")
    return model(node, None, [scales_init(scales)])


@pytest.mark.parametrize("scales", [(1.0, 1.0, 2.0, 3.0), (1.0, 2.0, 1.0, 4.0)])
def test_upsample_by_integer_scales_is_symbolic_and_runs_as_onnx_does(scales):
    node = helper.make_node("Upsample", ["X", "scales"], ["Y"], mode="nearest")
    m = model(node, [1, "c", "h", "w"], [scales_init(scales)], opset=9)
    for c, h, w in [(1, 2, 3), (2, 5, 4), (3, 1, 7)]:
        dims = check(m, {"c": c, "h": h, "w": w}, (1, c, h, w))
        assert None not in dims


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_upsample_by_fractional_scales_matches_resize_of_opset_10(mode):
    scales = (1.0, 1.0, 1.5, 2.5)
    node = helper.make_node("Upsample", ["X", "scales"], ["Y"], mode=mode)
    m = model(node, [1, 2, 3, 5], [scales_init(scales)], opset=9)
    assert check(m, {}, (1, 2, 3, 5), as_resize(scales, mode)) == [1, 2, 4, 12]
    sym = model(node, [1, 2, "h", "w"], [scales_init(scales)], opset=9)
    for h, w in [(1, 1), (2, 3), (5, 4), (7, 9)]:
        dims = check(sym, {"h": h, "w": w}, (1, 2, h, w), as_resize(scales, mode))
        assert None not in dims


def test_upsample_of_opset_7_takes_its_scales_from_the_attribute():
    node = helper.make_node("Upsample", ["X"], ["Y"], mode="nearest", scales=[1.0, 3.0])
    m = model(node, ["n", 2], opset=7)
    same = helper.make_node("Upsample", ["X", "scales"], ["Y"], mode="nearest")
    oracle = model(same, None, [scales_init((1.0, 3.0))], opset=9)  # onnx runs opset 9
    assert check(m, {"n": 4}, (4, 2), oracle) == [4, 6]
    assert typed_dims(m)[0] == Dim("n")


def test_upsample_by_an_unknown_scales_input_has_unknown_sizes():
    node = helper.make_node("Upsample", ["X", "scales"], ["Y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", F, [2, 3]),
                                            helper.make_tensor_value_info("scales", F, [2])],
                              [helper.make_tensor_value_info("Y", F, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    ins, outs = from_onnx(m)
    assert outs[0].type == kt.TensorType("float32", (None, None))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (got,) = kt.function(ins, outs)(x, np.array([2.0, 1.0], dtype=np.float32))
    np.testing.assert_array_equal(got, np.repeat(x, 2, axis=0))


def test_upsample_is_refused_where_onnx_deprecates_it():
    node = helper.make_node("Upsample", ["X", "scales"], ["Y"], name="up")
    m = model(node, [2, 2], [scales_init((2.0, 2.0))], opset=10)
    m.graph.output[0].type.tensor_type.shape.dim.add().dim_value = 4  # for the checker
    m.graph.output[0].type.tensor_type.shape.dim.add().dim_value = 4
    with pytest.raises(onnx.checker.ValidationError, match="deprecated"):
        onnx.checker.check_model(m)
    with pytest.raises(UnsupportedOp, match="'up': Upsample .*opset 10.* supported in opsets"):
        from_onnx(m)


@pytest.mark.parametrize("policy", ["not_larger", "not_smaller"])
@pytest.mark.parametrize("sizes", [(7, 8), (3, 2), (5, 5), (1, 3)])
def test_resize_keeping_the_aspect_ratio_of_symbolic_sizes(policy, sizes):
    """The scale is min (or max) of sizes[j]/n_j and each output size its product with
    n_i rounded half up: typed exactly for symbolic sizes, one (every output size is
    then min or max of sizes) or two, against onnx's reference at many sizes."""
    node = helper.make_node("Resize", ["X", "", "", "sizes"], ["Y"], axes=[2, 3],
                            keep_aspect_ratio_policy=policy)
    inits = [numpy_helper.from_array(np.array(sizes, dtype=np.int64), "sizes")]
    m = model(node, [1, 2, "n", "n"], inits)
    pick = min if policy == "not_larger" else max
    assert typed_dims(m) == [1, 2, pick(sizes), pick(sizes)]
    for n in (1, 2, 3, 7, 10):
        check(m, {"n": n}, (1, 2, n, n))
    two = model(node, [1, 2, "h", "w"], inits)
    for h, w in [(1, 1), (2, 4), (3, 5), (4, 2), (7, 3), (6, 9), (11, 4)]:
        dims = check(two, {"h": h, "w": w}, (1, 2, h, w))
        assert None not in dims
    onnx.checker.check_model(infer_shapes(m))
    onnx.checker.check_model(infer_shapes(two))


@pytest.mark.parametrize("scale", [1.5, 2.5, 0.75, 0.5, 3.0, 0.6, 0.3])
def test_resize_by_a_constant_scale_of_a_symbolic_size(scale):
    """floor(n * scale) for the scale's exact binary value p/2**k is (p*n)//2**k for
    every n (onnx's reference computes it in float64, exact at these sizes)."""
    node = helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode="linear")
    m = model(node, [1, "h", "w"], [scales_init((1.0, scale, scale))])
    for h, w in [(1, 1), (2, 3), (5, 4), (7, 9), (16, 11), (10, 20)]:
        dims = check(m, {"h": h, "w": w}, (1, h, w))
        assert None not in dims


def test_exact_sizes_where_float_rounding_would_not_be():
    """The size functions are exact in integers: floor(n * 0.6f) and the aspect-ratio
    rounding agree with exact rational arithmetic at sizes where float32 arithmetic
    would round (the reference's float64 is exact here too)."""
    s = float(np.float32(0.6))
    for n in (5, 10, 1 << 20, (1 << 40) + 3):
        assert scaled_size(n, s) == int(Fraction(s) * n // 1)
    for n, sizes, extents in [(6, [3, 1], [6, 2]), (3, [1, 5], [6, 7]), (9, [4], [8])]:
        exact = min(Fraction(w, e) for w, e in zip(sizes, extents, strict=True)) * n
        assert aspect_size(n, sizes, extents, "not_larger") == int(exact + Fraction(1, 2))


def test_split_into_chunks_refuses_a_negative_last_chunk():
    """ONNX's last chunk is size - (n-1)*ceil(size/n): typed for every size where that
    is not negative, as onnx's reference computes it, and refused where it is."""
    node = helper.make_node("Split", ["X"], ["a", "b", "c"], num_outputs=3)
    for n in range(12):
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", F, [n])],
                                  [helper.make_tensor_value_info(o, F, None) for o in "abc"])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        if n - 2 * -(-n // 3) < 0:
            with pytest.raises(TypeError, match="Split"):
                from_onnx(m)
            continue
        want = ReferenceEvaluator(m).run(None, {"X": np.zeros(n, dtype=np.float32)})
        assert [o.type.shape for o in from_onnx(m)[1]] == [w.shape for w in want]


def test_a_zero_point_must_have_the_scales_shape():
    """onnx's reference broadcasts a zero point of 3 against a scale of 1 (and the input
    with them); ONNX says the zero point has the scale's shape, and so does the type."""
    node = helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 1])],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(np.ones(1, dtype=np.float32), "s"),
         numpy_helper.from_array(np.arange(3, dtype=np.uint8), "z")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    (y,) = ReferenceEvaluator(m).run(None, {"x": np.zeros((2, 1), dtype=np.uint8)})
    assert y.shape == (2, 3)
    with pytest.raises(TypeError, match="'dq'"):
        from_onnx(m)
    per_axis = numpy_helper.from_array(np.arange(1, dtype=np.uint8), "z")
    m.graph.initializer[1].CopyFrom(per_axis)
    ins, outs = from_onnx(m)
    assert outs[0].type == kt.TensorType("float32", (2, 1))


@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
@pytest.mark.parametrize("elem", [TensorProto.UINT8, TensorProto.INT4, TensorProto.INT2])
@pytest.mark.parametrize("s_dims,z_dims", [((), (1,)), ((1,), ()), ((1,), (1,)), ((), ())])
def test_a_one_element_scale_takes_a_one_element_zero_point(op, elem, s_dims, z_dims):
    """As onnx's reference does (and ONNX's node cases pair a () scale with a (1,) zero
    point): both are scalars; the output has x's symbolic shape, its values the
    reference's, saturated to the zero point's type (an int4 computed as int8)."""
    zdt = helper.tensor_dtype_to_np_dtype(elem)
    quantize = op == "QuantizeLinear"
    x_elem = F if quantize else elem
    node = helper.make_node(op, ["x", "s", "z"], ["y"], axis=0)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", x_elem, ["n", 3])],
        [helper.make_tensor_value_info("y", elem if quantize else F, None)],
        [numpy_helper.from_array(np.full(s_dims, 0.5, dtype=np.float32), "s"),
         numpy_helper.from_array(np.full(z_dims, 1).astype(zdt), "z")])
    opset = 25 if elem == TensorProto.INT2 else 21  # (INT2 is a zero point's from 25)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    x = (RNG.standard_normal((4, 3)) * 40).astype(np.float32) if quantize else \
        np.arange(-2, 10).reshape(4, 3).clip(*integer_range(zdt.name)).astype(zdt)
    (want,) = ReferenceEvaluator(m).run(None, {"x": x})
    assert typed_dims(m) == [kt.TensorType.parse("float32[n]").shape[0], 3]
    ins, outs = from_onnx(m)
    (got,) = kt.function(ins, outs)(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))

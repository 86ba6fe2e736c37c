"""The NumPy backend: function(), input handling, checks, dtype of computation."""

import numpy as np
import pytest

import kantensor as kt
from kantensor import Dim, TensorType


def test_uint8_results_wrap_around_in_inferred_dtype():
    """Results are computed in the inferred dtype and wrap, as NumPy's do."""
    x = kt.tensor("x", "uint8", (3,))
    f = kt.function([x], x + 250)
    out = f(np.array([0, 6, 7], dtype="uint8"))
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, np.array([0, 6, 7], np.uint8) + 250)


def test_positional_and_named_inputs_and_errors():
    x, y = kt.dvector("x"), kt.dvector("y")
    f = kt.function([x, y], x - y)
    np.testing.assert_array_equal(f([3.0], [1.0]), [2.0])
    np.testing.assert_array_equal(f(y=[1.0], x=[3.0]), [2.0])
    np.testing.assert_array_equal(f([3.0], y=[1.0]), [2.0])
    with pytest.raises(TypeError, match=r"takes 2 inputs \(x, y\), got 3"):
        f([1.0], [1.0], [1.0])
    with pytest.raises(TypeError, match="unknown input name 'q'; named inputs are: x, y"):
        f([1.0], q=[1.0])
    with pytest.raises(TypeError, match="missing value for input: y"):
        f([1.0])
    with pytest.raises(TypeError, match="given twice"):
        f([1.0], [2.0], x=[1.0])
    with pytest.raises(TypeError, match=r"bad value for input 0 \(x\): expected 1 dimension"):
        f(np.zeros((2, 2)), [1.0])


def test_input_downcast_and_trust_input():
    x = kt.fvector("x")
    f = kt.function([x], x * 2)
    with pytest.raises(TypeError, match="compile with allow_input_downcast=True"):
        f(np.array([0.1]))
    g = kt.function([x], x * 2, allow_input_downcast=True)
    assert g(np.array([0.1])).dtype == np.float32
    h = kt.function([x], x * 2, trust_input=True)
    assert h(np.array([1.0], dtype="float32"))[0] == 2.0


def test_multiple_outputs_and_signature():
    x = kt.tensor("x", "float32", (2, None))
    y = kt.tensor("y", "int16", (None,))
    f = kt.function([x, y], [x + y, y * y])
    assert f.signature.inputs == (TensorType("float32", (2, None)), TensorType("int16", (None,)))
    assert f.signature.outputs == (TensorType("float32", (2, None)),
                                   TensorType("int16", (None,)))
    assert str(f.signature) == "(float32[2,?], int16[?]) -> (float32[2,?], int16[?])"
    a, b = f(np.ones((2, 3), "float32"), np.arange(3, dtype="int16"))
    assert a.dtype == np.float32 and b.dtype == np.int16
    assert f.fgraph.outputs[0].type == f.signature.outputs[0]


def test_named_dims_bound_per_call():
    n = Dim("n")
    x = kt.tensor("x", "float64", (n,))
    y = kt.tensor("y", "float64", (n,))
    f = kt.function([x, y], x + y)
    np.testing.assert_array_equal(f([1.0, 2.0], [3.0, 4.0]), [4.0, 6.0])
    np.testing.assert_array_equal(f([1.0], [3.0]), [4.0])  # n rebinds per call
    with pytest.raises(ValueError, match=r"dimension n is 2 in input 0 \(x\) \(axis 0\) "
                                         r"but 3 in input 1 \(y\) \(axis 0\)"):
        f([1.0, 2.0], [1.0, 2.0, 3.0])
    z = kt.tensor("z", "float64", (2 * n,))
    g = kt.function([x, z], z * 2.0)
    g([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"axis 0 has length 3 but its type says 2\*n = 2"):
        g([1.0], [1.0, 2.0, 3.0])


def test_check_catches_unsound_ops():
    class Liar(kt.Op):
        def make_node(self, x):
            return kt.Apply(self, [x], [TensorType("float32", (3,))()])

        def perform(self, node, inputs, out):
            out[0][0] = np.zeros(4, dtype="float64")

    x = kt.dvector("x")
    y = Liar()(x)
    kt.function([x], y)(np.zeros(1))  # unchecked: no complaint
    with pytest.raises(kt.backend.OutputTypeError, match="has dtype float64"):
        kt.function([x], y, check=True)(np.zeros(1))


def test_outputs_may_be_inputs_or_constants():
    x = kt.dvector("x")
    c = kt.constant(np.arange(2.0))
    f = kt.function([x], [x, c])
    a, b = f([5.0])
    np.testing.assert_array_equal(a, [5.0])
    np.testing.assert_array_equal(b, [0.0, 1.0])


def test_true_divide_of_ints_gives_default_float():
    i = kt.ivector("i")
    out = i / 2
    assert out.type.dtype == kt.get_default_dtype()
    np.testing.assert_allclose(kt.function([i], out, check=True)([1, 3]), [0.5, 1.5])


def test_specify_shape_runtime_check():
    x = kt.dmatrix("x")
    y = kt.specify_shape(x, (2, None))
    assert y.type == TensorType("float64", (2, None))
    f = kt.function([x], y)
    f(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="axis 0 has length 3, expected 2"):
        f(np.zeros((3, 5)))
    with pytest.raises(TypeError, match="cannot have shape"):
        kt.specify_shape(kt.tensor("t", "float64", (4, 3)), (2, 3))


def test_check_types_a_node_again_under_the_default_dtype_it_was_built_with():
    """A graph built in ``default_dtype("float64")`` (``x * 0.5``: the 0.5 is float64)
    and called with check=True outside it: the check typed the node again under the
    caller's float32 default and refused the wrapped float64 number NumPy multiplies."""
    x = kt.dvector("x")
    with kt.default_dtype("float64"):
        y = x * 0.5 + 1j
        z = x * 0.5
    assert y.owner.inputs[1].type.dtype == "complex128"
    f = kt.function([x], [y, z], check=True)
    got = f(np.arange(3.0))
    np.testing.assert_array_equal(got[0], np.arange(3.0) * 0.5 + 1j)
    np.testing.assert_array_equal(got[1], np.arange(3.0) * 0.5)
    with kt.default_dtype("float64"):
        r = kt.eval_shape(lambda v: np.tanh(v * 0.5) + 1.0, "float64[n]")
    run = kt.function(list(r.inputs), list(r.outputs), check=True)
    np.testing.assert_allclose(run(np.ones(4))[0], np.tanh(np.ones(4) * 0.5) + 1.0)

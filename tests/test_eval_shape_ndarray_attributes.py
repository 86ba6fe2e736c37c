"""The ``ndarray`` attributes of a symbolic tensor: those with a meaning on a graph are
NumPy's (``itemsize``, ``nbytes``, ``conjugate``, judged by NumPy's arrays of the same
shape and dtype); those without (``flat``, ``strides``, ``tolist``, ...) raise an
AttributeError that says it and what to write instead, and eval_shape names the line."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute
from kantensor.types.variable import UNSUPPORTED_ATTRIBUTES


@pytest.mark.parametrize("dtype", ["float32", "int8", "complex128", "bool", "uint16"])
def test_itemsize_and_nbytes_are_numpys(dtype):
    n = kt.Dim("n")
    x = kt.tensor("x", dtype, (n, 3, 2))
    for size in (0, 1, 5):
        a = np.zeros((size, 3, 2), dtype)
        assert x.itemsize == a.itemsize
        assert substitute(x.nbytes, {"n": size}) == a.nbytes


def test_conjugate_is_conj():
    def fn(x):
        return x.conjugate() * 2
    result = kt.eval_shape(fn, "complex64[n,3]")
    a = (np.arange(6) + 1j).astype("complex64").reshape(2, 3)
    got = kt.function(list(result.inputs), list(result.outputs))(a)
    np.testing.assert_array_equal(got[0] if isinstance(got, list) else got, fn(a))


def _flat(x):
    return x.flat[0] + 1.0


def test_flat_says_it_is_not_supported_at_the_users_line():
    np.zeros(3).flat[0]  # noqa: B018 - NumPy has it
    with pytest.raises(AttributeError) as info:
        kt.eval_shape(_flat, "float32[n]")
    message = str(info.value)
    assert f"line {_flat.__code__.co_firstlineno + 1}" in message
    assert "TensorVariable.flat (ndarray.flat) is not supported on symbolic tensors" in message
    assert "x.ravel()" in message


@pytest.mark.parametrize("name", sorted(UNSUPPORTED_ATTRIBUTES))
def test_each_unsupported_attribute_is_an_ndarray_one_and_says_so(name):
    assert hasattr(np.zeros(2), name)
    x = kt.tensor("x", "float32", (3,))
    assert not hasattr(x, name)  # (an AttributeError: hasattr is False, as before)
    with pytest.raises(AttributeError, match=f"ndarray.{name}. is not supported"):
        getattr(x, name)


def test_a_constant_keeps_its_data():
    c = kt.constant(np.arange(3))
    np.testing.assert_array_equal(c.data, np.arange(3))


def test_completion_leaves_out_what_is_refused():
    names = dir(kt.tensor("x", "float32", (3,)))
    assert "flat" not in names and "tolist" not in names
    assert {"ravel", "itemsize", "conjugate", "sum"} <= set(names)

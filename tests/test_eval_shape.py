"""kt.eval_shape on real NumPy code: the types it infers, the graph it returns (run
against NumPy on the same values), and errors that name the user's line."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kantensor as kt


def mlp(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0)
    return h @ w2 + b2


def attention(q, k, v):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def multi_head(x, wq, wk, wv, heads=4):
    """Self-attention as written in NumPy code: the shape unpacked, heads split by reshape."""
    B, T, C = x.shape

    def split(h):
        return h.reshape(B, T, heads, C // heads).swapaxes(1, 2)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    return attention(q, k, v).swapaxes(1, 2).reshape(B, T, C)


def pipeline(x, y):
    z = np.concatenate([x, y], axis=0)
    return z.reshape(-1), np.stack([z, z]).sum(axis=0).T


RNG = np.random.default_rng(0)


def _values(types):
    out = []
    for t in types:
        shape = [{"n": 3, "batch": 5, "b": 2, "h": 2, "t": 3, "s": 4}.get(str(d), d)
                 if d is not None else 3 for d in t.shape]
        out.append(RNG.normal(size=shape).astype(t.dtype))
    return out


@pytest.mark.parametrize(("fn", "types", "expected"), [
    (mlp, ["float32[batch,784]", "float32[784,128]", "float32[128]", "float32[128,10]",
           "float32[10]"], "float32[batch,10]"),
    (attention, ["float64[b,h,t,16]", "float64[b,h,s,16]", "float64[b,h,s,16]"],
     "float64[b,h,t,16]"),
    (layer_norm, ["float32[b,t,8]", "float32[8]", "float32[8]"], "float32[b,t,8]"),
    (multi_head, ["float64[b,t,16]"] + ["float64[16,16]"] * 3, "float64[b,t,16]"),
    (multi_head, ["float64[?,?,16]"] + ["float64[16,16]"] * 3, "float64[?,?,16]"),
])
def test_real_numpy_code(fn, types, expected):
    result = kt.eval_shape(fn, *types)
    assert str(result.type) == expected
    assert [v.name for v in result.inputs] == list(fn.__code__.co_varnames[:len(types)])
    assert result.graph.outputs == list(result.outputs)
    values = _values([kt.TensorType.parse(t) for t in types])
    got = kt.function(list(result.inputs), result.outputs[0], check=True)(*values)
    want = fn(*values)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_several_outputs_and_tensor_types():
    n = kt.Dim("n")
    result = kt.eval_shape(pipeline, kt.TensorType("int16", (n, 3)), "int16[4,3]")
    assert [str(t) for t in result.type] == ["int16[3*n+12]", "int64[3,n+4]"]
    assert repr(result) == "ShapeResult(int16[3*n+12], int64[3,n+4])"


def test_error_names_the_users_line():
    def broken(x, w):
        y = x * 2
        return y @ w  # the failing line

    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(broken, "float32[n,3]", "float32[4,5]")
    message = str(info.value)
    assert re.search(r"test_eval_shape\.py, line \d+, in broken: return y @ w  # the failing "
                     r"line", message)
    assert "dimension n is 3 in input 0 (axis 1) but 4 in input 1 (axis 0)" in message


def test_unsupported_numpy_function_is_named():
    def uses_fft(x):
        return np.fft.fft(x)

    with pytest.raises(TypeError, match=r"in uses_fft: return np.fft.fft\(x\)\n"
                                        r"TypeError: numpy.fft.fft is not supported"):
        kt.eval_shape(uses_fft, "float32[8]")


def test_bad_arguments():
    with pytest.raises(TypeError, match="type 0 must be a TensorType or text"):
        kt.eval_shape(np.exp, 3)
    with pytest.raises(TypeError, match="returned int .value 0., not a symbolic tensor"):
        kt.eval_shape(lambda x: 3, "float32[2]")

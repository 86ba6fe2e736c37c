"""kt.eval_shape on real NumPy code: the types it infers, the graph it returns (run
against NumPy on the same values), and errors that name the user's line."""

from __future__ import annotations

import functools
import math
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


# -- NumPy code that creates arrays, writes into them and computes with sizes ------------

def _run_both(fn, types, values, **kwargs):
    """eval_shape's type and graph against NumPy's output on the same values."""
    result = kt.eval_shape(fn, *types, **kwargs)
    got = kt.function(list(result.inputs), list(result.outputs), check=True)(
        *(v.copy() for v in values))
    want = fn(*(v.copy() for v in values), **kwargs)
    return result, got if isinstance(want, tuple) else got[0], want


def test_creation_functions_and_writes_build_functional_updates():
    def fill(x, y):
        out = np.zeros((len(x), x.shape[1] + 1))
        out[:, :-1] = x
        out[:, -1] += y
        out[0] *= 2
        np.add.at(out, ([0, 0], [1, 1]), 1.0)
        np.multiply(out, 0.5, out=out)
        return out

    x, y = np.arange(12.0).reshape(4, 3), np.arange(4.0)
    result, got, want = _run_both(fill, ["float64[n,3]", "float64[n]"], [x, y])
    assert str(result.type) == "float64[n,4]"
    np.testing.assert_array_equal(got, want)
    ops = [getattr(node.op, "name", None) for node in result.graph.toposort()]
    assert {"setitem", "index_add"} <= set(ops)  # out[:, -1] += y: getitem, add, setitem


def test_a_kv_cache_made_inside_the_function_takes_symbolic_writes():
    def step(xk, start=2):
        batch, seqlen = xk.shape[:2]
        cache = np.zeros((4, 16, 2, 8))
        cache[:batch, start:start + seqlen] = xk
        return cache[:batch, :start + seqlen]

    result, got, want = _run_both(step, ["float64[b,t,2,8]"], [np.ones((3, 5, 2, 8))])
    assert str(result.type) == "float64[min(4,b),min(16,t+2),2,8]"
    np.testing.assert_array_equal(got, want)


def test_writing_into_an_input_rebinds_it_and_keeps_the_input():
    def relu_(x):
        y = x * 1.0  # reads the old x
        x[x < 0] = 0
        return x, y

    x = np.array([-1.0, 2.0, -3.0])
    result, got, want = _run_both(relu_, ["float64[n]"], [x])
    assert result.inputs[0].owner is None and result.inputs[0].name == "x"
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_sizes_as_numbers_and_python_builtins_of_sizes():
    def conv_sizes(x, w, pad=1, stride=2):
        n, c, h, width = x.shape
        out_h = int((h + 2 * pad - w.shape[2]) / stride + 1)
        scale = 1 / math.sqrt(c) + x.shape[-1] ** -0.5
        rows = np.arange(len(x))
        return (np.zeros((n, out_h, max(width, 2), len(range(c)))) + scale,
                x[rows, :, :out_h] / np.sqrt(x.shape[-1]))

    x = np.random.default_rng(0).normal(size=(2, 3, 7, 5))
    w = np.ones((4, 3, 3, 3))
    result, got, want = _run_both(conv_sizes, ["float64[n,c,h,w]", "float64[4,c,3,3]"],
                                  [x, w])
    assert [str(t) for t in result.type] == ["float64[n,(h+1)//2,max(2,w),c]",
                                             "float64[n,c,(h+1)//2,w]"]
    for g, v in zip(got, want, strict=True):
        np.testing.assert_allclose(g, v)


def test_creation_with_ints_random_sources_and_keyword_arguments():
    def init(x, scale=1.0):
        w = np.random.randn(x.shape[-1], 6) * scale
        mask = np.random.rand(*x.shape) > 0.5
        return np.tanh(x @ w), np.where(mask, x, 0.0), np.tri(4), np.eye(len(x))

    result = kt.eval_shape(init, "float32[b,5]", scale=0.1)
    assert [str(t) for t in result.type] == ["float64[b,6]", "float32[b,5]",
                                             "float64[4,4]", "float64[b,b]"]

    def sample(x):
        rng = np.random.default_rng(0)
        w = rng.normal(0.0, 0.02, size=(x.shape[-1], 4))
        rows = rng.integers(0, len(x), size=3)
        return x @ w + rng.standard_normal(4), x[rows], rng.random(2, dtype="float32")

    result = kt.eval_shape(sample, "float32[n,d]")
    assert [str(t) for t in result.type] == ["float64[n,4]", "float32[3,d]", "float32[2]"]
    f = kt.function(list(result.inputs), list(result.outputs), check=True)
    x = np.arange(10, dtype="float32").reshape(5, 2)
    got, want = f(x), sample(x)
    assert [(g.shape, g.dtype) for g in got] == [(w.shape, w.dtype) for w in want]
    assert all(any((row == r).all() for r in x) for row in got[1])  # drawn below len(x)


def test_the_entries_are_restored_after_the_trace_and_after_an_error():
    originals = (np.zeros, np.random.randn, math.sqrt)
    with pytest.raises(TypeError, match="numpy.random.choice is not supported"):
        kt.eval_shape(lambda x: np.random.choice(x.shape[0], 3), "float32[n]")
    assert (np.zeros, np.random.randn, math.sqrt) == originals
    assert "len" not in globals() and "int" not in globals()
    assert isinstance(np.zeros(2), np.ndarray) and len([1, 2]) == 2


def test_other_threads_keep_numpy_while_one_traces():
    import threading

    started, seen = threading.Event(), []

    def slow(x):
        started.set()
        for _ in range(200):
            x = x + np.zeros(3)
        return x

    def other():
        started.wait(5)
        seen.append(all(type(np.zeros(3)) is np.ndarray and len(range(3)) == 3
                        for _ in range(200)))

    thread = threading.Thread(target=other)
    thread.start()
    kt.eval_shape(slow, "float64[3]")
    thread.join()
    assert seen == [True]


def test_outside_eval_shape_a_tensor_is_a_value():
    x = kt.vector("x", "float64")
    with pytest.raises(TypeError, match=r"write y = x\.at\[i\]\.set\(v\)"):
        x[0] = 1.0
    with pytest.raises(TypeError, match=r"x\.at\[index\]\.add\(v\)"):
        np.add.at(x, [0], 1.0)
    y = x
    y += 1  # Python's fallback: a new value, x is unchanged
    assert y is not x and y.owner.op.name == "add"
    z = x.at[1:].set(2.0).at[[0, 0]].add(1.0)
    f = kt.function([x], z, check=True)
    np.testing.assert_array_equal(f(np.zeros(3)), [2.0, 2.0, 2.0])


def test_advanced_index_broadcasting_and_range_indices():
    m = kt.tensor("m", "float32", (5, 4, 3))
    i = kt.vector("i", "int64")
    assert str(m[i, [0, -1, -1, -1]].type) == "float32[4,3]"
    assert str(m[range(2)].type) == "float32[2,4,3]"
    assert str(np.pad(m, 1, "constant").type) == "float32[7,6,5]"


def test_constant_index_arrays_are_checked_as_ints_are():
    m = kt.TensorType.parse("float32[n,4]")("m")
    with pytest.raises(kt.TypeInferenceError, match="5 <= 4 is false"):
        m[:, [0, 4]]
    with pytest.raises(kt.TypeInferenceError, match="5 <= 4 is false"):
        m[:, np.array([-5])]
    f = kt.function([m], m[[0, 3]], check=True)
    values = np.arange(20, dtype="float32").reshape(5, 4)
    np.testing.assert_array_equal(f(values), values[[0, 3]])
    with pytest.raises(kt.TypeInferenceError, match="4 <= 3 is false"):  # NumPy: IndexError
        f(values[:3])


def test_a_parameter_named_like_an_eval_shape_keyword_goes_through_partial():
    """``assume``, ``where`` and ``names`` are eval_shape's own: a value for the traced
    function's parameter of that name is refused with the way to pass it, and
    functools.partial passes it."""
    def scale(x, assume=2.0):
        return x * assume

    def pick(x, where=None):
        return x if where is None else x * where

    with pytest.raises(ValueError, match=r"assume must be one of report, error, allow, got "
                       r"3\.0\n\(assume= is eval_shape's own keyword; to give .*scale's "
                       r"parameter assume, trace functools\.partial\(fn, assume=\.\.\.\)"):
        kt.eval_shape(scale, "float32[n,4]", assume=3.0)
    with pytest.raises(TypeError, match=r"where= says what is known of the sizes .* got "
                       r"ndarray\n\(where= is eval_shape's own keyword"):
        kt.eval_shape(pick, "float32[n,4]", where=np.ones(4))
    assert str(kt.eval_shape(functools.partial(scale, assume=3.0), "float32[n,4]").type) \
        == "float32[n,4]"
    got = kt.eval_shape(functools.partial(pick, where=np.ones(4)), "float32[n,4]")
    assert str(got.type) == "float64[n,4]"
    with pytest.raises(TypeError, match=r"names= names the inputs \(a sequence of str\), "
                       r"got 3$"):
        kt.eval_shape(lambda x: x, "float32[n]", names=3)


@pytest.mark.parametrize("fn", [
    lambda x: np.tri(x.shape[0] - 2), lambda x: np.tri(x.shape[0] - 2, 3, k=1),
    lambda x: np.tri(3, x.shape[0] - 2, -1), lambda x: np.tri(x.shape[0])])
def test_tri_of_a_negative_size_is_empty_as_numpys(fn):
    """``np.tri(N, M)`` is ``arange(N)`` against ``arange(M)``: a negative size gives no
    rows (columns), not an error, so ``np.tri(n - 2)`` is valid at every ``n`` (it
    assumed ``n >= 2``, and under ``n <= 1`` was refused). Judged by NumPy at n = 0..5."""
    for where in (None, "n <= 1"):
        result = kt.eval_shape(fn, "float32[n]", where=where)
        assert not result.assumptions
        for n in range(2 if where else 6):
            want = fn(np.zeros(n, np.float32)).shape
            assert tuple(kt.types.symbols.substitute(d, {"n": n})
                         for d in result.type.shape) == want, (where, n)

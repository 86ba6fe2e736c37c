"""``x.shape[i]`` of an axis whose size is unknown when the graph is built: a Dim that
stands for that axis of x, usable wherever a size is (``kt.zeros((x.shape[0], 5))``,
``x.reshape(x.shape[0], -1)``, ``B, T, C = x.shape; x.reshape(B * T, C)``), tied to x by
the relation (``shape_of``) and given x's value when the graph runs. Values are checked
against NumPy's on the same arrays, in every way a Function runs."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.backend import linker
from kantensor.ops.sizes import given_axis

MODES = [(False, True), (False, False), (True, True), (True, False)]  # (check, generated)


def run(inputs: list, outputs: list, values: list, check: bool, generated: bool) -> list:
    limit = linker.CODEGEN_LIMIT if generated else 0
    with mock.patch.object(linker, "CODEGEN_LIMIT", limit):
        f = kt.function(inputs, outputs, check=check)
    return f(*values)


def test_an_unknown_axis_is_a_dim_of_that_axis_of_that_variable():
    x = kt.tensor("x", "float32", shape=(None, 3))
    y = kt.tensor("y", "float32", shape=(None, 3))
    assert x.type.shape == (None, 3)  # the static shape is unchanged
    rows, cols = x.shape
    assert isinstance(rows, kt.Dim) and cols == 3
    assert str(rows) == "x.shape[0]" and str(rows * 2 + 1) == "2*x.shape[0] + 1"
    assert rows == x.shape[0] == x.shape[-2] and rows != y.shape[0]
    assert x.size == 3 * rows and str(x.size) == "3*x.shape[0]"
    assert copy.deepcopy(rows) is rows
    assert str(kt.tensor(dtype="int8", shape=(None,)).shape[0]) == "shape[0]"
    n = kt.Dim("n")
    assert kt.tensor("z", "int8", shape=(n, None)).shape[0] is n  # a named size stays itself


def test_size_parameters_of_single_entries_are_shape_of_inputs_and_share_the_op():
    x1 = kt.tensor("x1", "float32", shape=(None, 3))
    x2 = kt.tensor("x2", "float32", shape=(None, 3))
    z1, z2 = kt.zeros((x1.shape[0], 5)), kt.zeros((x2.shape[0], 5))
    assert str(z1.type) == str(z2.type) == "float64[?,5]"
    assert z1.owner.op == z2.owner.op  # the call holds a placeholder, not x1 or x2
    for z, x in ((z1, x1), (z2, x2)):
        (size,) = z.owner.inputs
        assert size.owner.op.name == "shape_of" and size.owner.inputs == [x]
        assert dict(size.owner.op.params)["axis"] == 0
    # One input per distinct axis size, however often it is used.
    w = kt.zeros((x1.shape[0], x1.shape[0] * 2, x2.shape[0]))
    assert [i.owner.inputs[0] for i in w.owner.inputs] == [x1, x2]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.booleans())
def test_reshape_takes_another_variables_sizes_tied_by_the_relation(b, t, check):
    """(x @ w).reshape(B, T, -1) with B, T = x.shape: the idiom of attention code."""
    x = kt.tensor("x", "float32", shape=(None, None, 6))
    w = kt.tensor("w", "float32", shape=(6, 4))
    B, T, _ = x.shape
    y = (x @ w).reshape(B, T, 2, -1)
    # Forwards, the node sees x @ w as float32[?,?,4]: nothing says its ? are x's.
    assert str(y.type) == "float32[?,?,2,?]"
    assert [v.owner.op.name for v in y.owner.inputs[1:]] == ["shape_of", "shape_of"]
    assert [v.owner.inputs[0] for v in y.owner.inputs[1:]] == [x, x]
    xv = np.arange(b * t * 6, dtype="float32").reshape(b, t, 6)
    wv = np.ones((6, 4), "float32")
    got = kt.function([x, w], y, check=check)(xv, wv)
    np.testing.assert_array_equal(got, (xv @ wv).reshape(b, t, 2, -1))
    assert str(kt.refine(y, given={x: f"float32[{b},{t},6]"})[y]) == f"float32[{b},{t},2,2]"
    # Without sizes, (4*B*T)//(2*B*T) is 2: the -1 needs B*T >= 1 (a where-clause).
    assert str(kt.refine(y)[y]) == "float32[?,?,2,2]"
    # The relation ties the sizes: a y.shape[0] that cannot be x's is refused at run time.
    z = kt.tensor("z", "float32", shape=(None,))
    bad = kt.function([x, w, z], (x @ w).reshape(z.shape[0], -1))
    with pytest.raises(ValueError, match="reshape"):
        bad(xv, wv, np.ones(b * t * 4 + 1, "float32"))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.sampled_from(MODES))
def test_single_entries_and_expressions_give_numpys_values(rows, cols, mode):
    x = kt.tensor("x", "float32", shape=(None, None))
    v = kt.tensor("v", "float32", shape=(None,))
    r, c = x.shape
    outputs = [kt.zeros((r, 5)), kt.ones(c), kt.full((2 * r, c), 2.0, dtype="float64"), kt.eye(r),
               kt.arange(r + 1), kt.tile(x, (c, 1)), kt.repeat(x, c, axis=0),
               kt.broadcast_to(v, (r + 1, c)), x.reshape(r, -1), x.reshape(-1, r),
               x.reshape(x.size), kt.zeros((x.size - r,))]
    assert [str(o.type) for o in outputs[:4]] == ["float64[?,5]", "float64[?]",
                                                  "float64[?,?]", "float64[?,?]"]
    xv = np.arange(rows * cols, dtype="float32").reshape(rows, cols)
    vv = np.arange(cols, dtype="float32")
    got = run([x, v], outputs, [xv, vv], *mode)
    want = [np.zeros((rows, 5)), np.ones(cols), np.full((2 * rows, cols), 2.0),
            np.eye(rows), np.arange(rows + 1), np.tile(xv, (cols, 1)),
            np.repeat(xv, cols, axis=0), np.broadcast_to(vv, (rows + 1, cols)),
            xv.reshape(rows, -1), xv.reshape(-1, rows), xv.reshape(xv.size),
            np.zeros(xv.size - rows)]
    for g, w, o in zip(got, want, outputs, strict=True):
        assert g.dtype == o.type.numpy_dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4))
def test_numpy_code_unpacking_the_shape_runs_on_unknown_sizes(b, t, c):
    """The attention idiom, unmodified: B, T, C = x.shape; x.reshape(B * T, C)."""

    def merge_heads(x, w):
        B, T, C = x.shape
        return np.tanh(x.reshape(B * T, C)) @ w

    result = kt.eval_shape(merge_heads, "float32[?,?,?]", "float32[?,2]")
    assert str(result.type) == "float32[?,2]"
    named = kt.eval_shape(merge_heads, "float32[b,t,c]", "float32[c,2]")
    assert str(named.type) == "float32[b*t,2]"
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((b, t, c)).astype("float32")
    wv = rng.standard_normal((c, 2)).astype("float32")
    for r in (result, named):
        f = kt.function(list(r.inputs), r.outputs[0])
        np.testing.assert_allclose(f(xv, wv), merge_heads(xv, wv), rtol=1e-5)


def test_refine_follows_a_single_entry_both_ways():
    x = kt.tensor("x", "float32", shape=(None, 3))
    z = kt.zeros((x.shape[0], 5)) + kt.ones((x.shape[0] + 1 - 1, 1))
    assert str(z.type) == "float64[?,5]"
    assert str(kt.refine(z, given={x: "float32[4,3]"})[z]) == "float64[4,5]"
    assert str(kt.refine(z, given={z: "float64[7,5]"})[x]) == "float32[7,3]"


def test_a_graph_with_axis_sizes_pickles_and_runs():
    x = kt.tensor("x", "float32", shape=(None, 3))
    z, r = kt.zeros((x.shape[0] * 2, 5)), x.reshape(x.shape[0], -1)
    x2, z2, r2 = pickle.loads(pickle.dumps((x, z, r)))
    assert z2.owner.op == z.owner.op and r2.owner.op == r.owner.op  # placeholders intern
    xv = np.ones((3, 3), "float32")
    got = kt.function([x2], [z2, r2])(xv)
    np.testing.assert_array_equal(got[0], np.zeros((6, 5)))
    np.testing.assert_array_equal(got[1], xv.reshape(3, -1))



def test_a_size_as_an_operand_is_the_number_numpy_code_has_there():
    """``x.sum(0) / x.shape[0]``: the size is a wrapped 0-d int64 (``size_number``),
    so the result keeps x's dtype and computes what NumPy computes."""
    x = kt.tensor("x", "float32", shape=(None, 3))
    xv = np.arange(12, dtype="float32").reshape(4, 3)
    for make, want in ((lambda t: t.sum(0) / t.shape[0], xv.sum(0) / 4),
                       (lambda t: kt.add(t, t.size), xv + 12),
                       (lambda t: t * t.shape[0] ** -0.5, xv * 4 ** -0.5)):
        out = make(x)
        got = kt.function([x], out, check=True)(xv)
        assert out.type.dtype == got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="no input of the function has a size n"):
        kt.function([x], x * kt.Dim("n"))


def test_calls_from_many_threads_tie_each_size_to_its_own_axis():
    """The placeholders are shared by every call: threads making them at once must
    neither duplicate one nor tie a size to another variable's axis."""
    def build(i: int) -> bool:
        x = kt.tensor("x", "float32", shape=(None, 3))
        y = kt.tensor("y", "float32", shape=(None,))
        z = kt.zeros((y.shape[0], x.shape[0] * 2, i % 5 + 1))
        keys = [given_axis(k) for k in range(40 + i % 60, 0, -7)]  # grow the list at once
        return ([v.owner.inputs[0] for v in z.owner.inputs] == [y, x]
                and all(k == given_axis(k2) for k, k2 in zip(keys, range(40 + i % 60, 0, -7),
                                                               strict=True)))

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(build, range(400)))
    assert [str(given_axis(k)) for k in range(100)] == [f"?{k}" for k in range(100)]

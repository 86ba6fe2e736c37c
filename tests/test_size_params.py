"""Size parameters that are Dims: ``kt.zeros((n, 3))``, ``kt.broadcast_to(v, x.shape)``,
``kt.tile(x, (k, 1))``, ``kt.repeat(x, k)``, ``kt.arange(n)``, ``kt.eye(n)``.

The output types carry the symbolic sizes (decided by the signatures, through one SizeOp
input per Dim); the compiled functions bind the sizes from their inputs' shapes and give
NumPy's values, in every way a Function runs; a size no input determines is an error
naming it."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor import Dim
from kantensor.backend import linker
from kantensor.backend.checks import ShapeBindingError
from kantensor.ops.params import ParamError
from kantensor.ops.sizes import SizeOp
from kantensor.query import query, var
from kantensor.types.symbols import substitute

CASES = settings(max_examples=60, deadline=None)
MODES = ["generated", "interpreter", "checked", "checked interpreter"]

B, C, n, k = Dim("B"), Dim("C"), Dim("n"), Dim("k")
#: Sizes a parameter may be: ints, the input's Dims and expressions of them.
SIZES = [0, 1, 3, B, C, B + 1, 2 * C, B * C]


def x_of(dtype: str = "float32") -> kt.TensorVariable:
    return kt.tensor("x", dtype, shape=(B, C))


def run(mode: str, inputs: list, outputs: list, *values: np.ndarray) -> list:
    """Compile and call in one of the four ways a Function runs."""
    limit = 0 if "interpreter" in mode else linker.CODEGEN_LIMIT
    with mock.patch.object(linker, "CODEGEN_LIMIT", limit):
        f = kt.function(inputs, outputs, check=mode.startswith("checked"))
    return f(*values)


def value(size: int | Dim, b: int, c: int) -> int:
    return substitute(size, {"B": b, "C": c}) if isinstance(size, Dim) else size


def same(got: np.ndarray, want: np.ndarray, var: kt.TensorVariable) -> None:
    """``got`` is NumPy's ``want``, of the dtype the type says."""
    assert got.dtype == var.type.numpy_dtype == want.dtype, (var.type, got.dtype, want.dtype)
    assert got.shape == want.shape, (var.type, got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------- types


def test_the_output_types_carry_the_symbolic_sizes():
    x, v = kt.tensor("x", "float32", shape=(B, 8)), kt.tensor("v", "float32", shape=(8,))
    cases = [
        ("float64[n,3]", kt.zeros((n, 3))),
        ("float64[B,8]", kt.zeros(x.shape)),
        ("float64[B,2]", kt.ones((x.shape[0], 2))),
        ("int8[n+1]", kt.full((n + 1,), np.int8(2))),
        ("float64[n,n]", kt.eye(n)),
        ("float64[n,B+1]", kt.eye(n, x.shape[0] + 1)),
        ("float32[B,8]", kt.broadcast_to(v, x.shape)),
        ("float32[B*k,8]", kt.tile(x, (k, 1))),
        ("float32[B,8*k]", kt.tile(x, k)),
        ("float32[B*k,8]", kt.repeat(x, k, axis=0)),
        ("float32[8*B*k]", kt.repeat(x, k)),
        ("int64[n]", kt.arange(n)),
        ("int64[max(0,n-2)]", kt.arange(2, n)),
        ("int16[(n+2)//3]", kt.arange(0, n, 3, dtype="int16")),
    ]
    assert [str(y.type) for _, y in cases] == [want for want, _ in cases]


def test_each_dim_is_one_size_input_and_ints_add_none():
    y = kt.zeros((n, 3, n, k + 1))
    assert [i.owner.op for i in y.owner.inputs] == [SizeOp(n), SizeOp(k + 1)]
    assert [str(i.type) for i in y.owner.inputs] == ["bool[n]", "bool[k+1]"]
    assert kt.zeros((2, 3)).owner.inputs == []
    assert kt.full((2,), 1.0).owner.inputs[0].type.ndim == 0  # only the fill value


def test_the_relation_types_the_size_inputs_both_ways():
    op = kt.zeros((n, 3)).owner.op
    (forward,) = list(query(op, ["bool[n]"], [var()]))
    assert [str(t) for t in forward.values()] == ["float64[n,3]"]
    (backward,) = list(query(op, [var()], ["float64[7,3]"]))
    assert [str(t) for t in backward.values()] == ["bool[7]"]
    assert list(query(op, [var()], ["float64[7,4]"])) == []


def test_numpy_functions_and_methods_take_dims():
    x = x_of()
    v = kt.tensor("v", "float32", shape=(C,))
    assert str(np.broadcast_to(v, x.shape).type) == "float32[B,C]"
    assert str(np.tile(v, (k, 2)).type) == "float32[k,2*C]"
    assert str(np.repeat(x, k, axis=1).type) == "float32[B,C*k]"
    assert str(x.repeat(x.shape[0], axis=0).type) == "float32[B**2,C]"


# --------------------------------------------------------------------------- values


@CASES
@given(st.data())
def test_zeros_ones_full_match_numpy(data):
    b, c = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    mode = data.draw(st.sampled_from(MODES))
    shape = tuple(data.draw(st.lists(st.sampled_from(SIZES), max_size=3)))
    dtype = data.draw(st.sampled_from(["float64", "int8", "bool", "complex64"]))
    x = x_of()
    fill = kt.tensor("fill", dtype, shape=())
    outs = [kt.zeros(shape, dtype=dtype), kt.ones(shape, dtype=dtype), kt.full(shape, fill)]
    fill_value = np.ones((), dtype)
    got = run(mode, [x, fill], outs, np.zeros((b, c), "float32"), fill_value)
    concrete = tuple(value(s, b, c) for s in shape)
    for g, want, y in zip(got, [np.zeros(concrete, dtype), np.ones(concrete, dtype),
                                np.full(concrete, fill_value)], outs, strict=True):
        same(g, want, y)


@CASES
@given(st.data())
def test_eye_and_arange_match_numpy(data):
    b, c = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    mode = data.draw(st.sampled_from(MODES))
    N = data.draw(st.sampled_from(SIZES))
    M = data.draw(st.sampled_from([None, *SIZES]))
    diag = data.draw(st.integers(-3, 3))
    bounds = st.sampled_from([-2, *SIZES])
    start, stop = data.draw(bounds), data.draw(st.one_of(st.none(), bounds))
    step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
    x = x_of()
    outs = [kt.eye(N, M, diag, dtype="int8"),
            kt.arange(start) if stop is None else kt.arange(start, stop, step)]
    got = run(mode, [x], outs, np.zeros((b, c), "float32"))
    m = None if M is None else value(M, b, c)
    s = value(start, b, c)
    want_range = np.arange(s) if stop is None else np.arange(s, value(stop, b, c), step)
    same(got[0], np.eye(value(N, b, c), m, diag, dtype="int8"), outs[0])
    same(got[1], want_range, outs[1])


@CASES
@given(st.data())
def test_broadcast_to_tile_and_repeat_match_numpy(data):
    b, c = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    mode = data.draw(st.sampled_from(MODES))
    x = x_of("int16")
    v = kt.tensor("v", "int16", shape=data.draw(st.sampled_from([(1,), (C,), (1, C), (B, 1)])))
    lead = tuple(data.draw(st.lists(st.sampled_from(SIZES), max_size=2)))
    reps = tuple(data.draw(st.lists(st.sampled_from(SIZES[:6]), max_size=3)))
    repeats = data.draw(st.sampled_from(SIZES))
    axis = data.draw(st.sampled_from([None, 0, 1, -1]))
    outs = [kt.broadcast_to(v, (*lead, *x.shape)), kt.tile(x, reps),
            kt.repeat(x, repeats, axis=axis)]
    X = np.arange(b * c, dtype="int16").reshape(b, c)
    V = np.arange(np.prod([value(s, b, c) for s in v.type.shape]), dtype="int16") \
        .reshape([value(s, b, c) for s in v.type.shape])
    got = run(mode, [x, v], outs, X, V)
    target = tuple(value(s, b, c) for s in (*lead, B, C))
    same(got[0], np.broadcast_to(V, target), outs[0])
    same(got[1], np.tile(X, tuple(value(r, b, c) for r in reps)), outs[1])
    same(got[2], np.repeat(X, value(repeats, b, c), axis=axis), outs[2])


def test_sizes_bound_from_another_input():
    x = kt.tensor("x", "float64", shape=(n,))
    w = kt.tensor("w", "float64", shape=(k, 2))
    y = kt.broadcast_to(x, (w.shape[0], x.shape[0])) + kt.eye(n, k).T.sum()
    f = kt.function([x, w], y)
    X, W = np.arange(3.0), np.zeros((4, 2))
    np.testing.assert_array_equal(f(X, W), np.broadcast_to(X, (4, 3)) + 3.0)


# --------------------------------------------------------------------------- errors


def test_a_size_no_input_has_is_refused_when_compiling():
    x = kt.tensor("x", "float32", shape=(B, 8))
    with pytest.raises(ValueError, match=r"zeros\{shape=\(Dim\('n'\), 3\), dtype='float64'\} "
                       r"takes the size n as a parameter, but no input of the function "
                       r"has a size n .*\(inputs: x: float32\[B,8\]\)"):
        kt.function([x], kt.zeros((n, 3)) + x.sum())
    with pytest.raises(ValueError, match=r"tile\{.*\} takes the size k .*inputs: none"):
        kt.function([], kt.tile(kt.constant([1.0]), k))


def test_a_negative_size_at_run_time_names_the_op_and_where_its_dims_come_from():
    """NumPy refuses a negative size; the error names the Op, the condition its type
    needs and where the size's names were bound (``n - 3`` is carried by ``n``, which
    may make it negative: the relation states ``n - 3 >= 0``)."""
    x = kt.tensor("x", "float32", shape=(n,))
    y = kt.zeros((n - 3,))
    assert [str(c) for c in y.owner.conditions] == ["n - 3 >= 0"]
    f = kt.function([x], y)
    assert f(np.zeros(5, "float32")).shape == (2,)
    with pytest.raises(ValueError, match=r"zeros\{.*\} failed at run time on inputs of "
                       r"shapes \(1,\): negative dimensions are not allowed; its type needs "
                       r"n - 3 >= 0, which fails \(n = 1 in input 0 \(x\) \(axis 0\)\)"):
        f(np.zeros(1, "float32"))


def test_a_size_the_input_shapes_do_not_determine_is_an_error_at_run_time():
    x = kt.tensor("x", "float32", shape=(n * n,))
    f = kt.function([x], kt.ones((n,)))
    with pytest.raises(ShapeBindingError, match=r"ones\{.*\} takes the size n as a "
                       r"parameter, but the shapes of the inputs do not determine n"):
        f(np.zeros(9, "float32"))


def test_unknown_sizes_are_refused_with_what_to_do():
    """None (an entry of the static x.type.shape) says nothing about which size it is;
    x.shape[i] does (see test_axis_sizes.py)."""
    x = kt.tensor("x", "float32", shape=(None, 3))
    for make in (lambda: kt.zeros((x.type.shape[0], 3)),
                 lambda: kt.broadcast_to(x, (2, *x.type.shape)),
                 lambda: kt.repeat(x, None), lambda: kt.eye(x.type.shape[0]),
                 lambda: x.reshape(x.type.shape[0], -1)):
        with pytest.raises(ParamError, match=r"a size None \(unknown\) cannot be a size "
                           r"parameter: .*use x.shape\[i\] \(not x.type.shape\[i\]\).*give "
                           r"that axis a name \(kt.Dim\)"):
            make()
    with pytest.raises(ParamError, match="expected an int or a Dim, got 2.5"):
        kt.zeros((n, 2.5))


def test_a_broadcast_the_sizes_contradict_fails_at_run_time_naming_the_node():
    v = kt.tensor("v", "float32", shape=(3,))
    x = kt.tensor("x", "float32", shape=(n,))
    y = kt.broadcast_to(v, (2, x.shape[0]))
    assert str(y.type) == "float32[2,3]"  # the relation: n must be 3 (or v would be 1)
    f = kt.function([v, x], y)
    np.testing.assert_array_equal(f(np.ones(3, "float32"), np.ones(3, "float32")),
                                  np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"broadcast_to.* failed at run time on inputs of "
                       r"shapes \(3,\), \(4,\)"):
        f(np.ones(3, "float32"), np.ones(4, "float32"))


def test_full_of_a_python_float_has_the_default_float_dtype(default_float64):
    assert str(kt.full((n + 1,), 2.0).type) == "float64[n+1]"  # NumPy's, under float64


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5), st.integers(1, 4))
def test_a_whole_shape_with_unknown_sizes_takes_them_from_its_tensor(rows, cols):
    """kt.zeros(x.shape) for x float32[?,c]: the unknown axis is shape_of(x), a relation
    that ties the result's axis to x's, and the value NumPy gives np.zeros(x.shape)."""
    x = kt.tensor("x", "float32", shape=(None, cols))
    v = kt.tensor("v", "float32", shape=(cols,))
    z, b, o = kt.zeros(x.shape), kt.broadcast_to(v, x.shape), kt.full(x.shape, 2.0) + x
    assert [str(t.type) for t in (z, b, o)] == [f"float64[?,{cols}]"] + \
        [f"float32[?,{cols}]"] * 2
    assert z.owner.inputs[0].owner.op.name == "shape_of"
    xv = np.arange(rows * cols, dtype="float32").reshape(rows, cols)
    vv = np.arange(cols, dtype="float32")
    for check in (False, True):
        zr, br, orr = kt.function([x, v], [z, b, o], check=check)(xv, vv)
        np.testing.assert_array_equal(zr, np.zeros(xv.shape))
        assert zr.dtype == np.float64
        np.testing.assert_array_equal(br, np.broadcast_to(vv, xv.shape))
        np.testing.assert_array_equal(orr, np.full(xv.shape, 2.0, "float32") + xv)
    assert kt.refine(z, given={x: f"float32[{rows},{cols}]"})[z].shape == (rows, cols)

"""Sizes as NumPy's parameters: ``np.pad`` of the constant mode whose widths are sizes
(``np.pad(x, (0, n - len(x)))``), ``np.split`` at positions that are sizes,
``np.diag_indices`` of a size, and a size compared with a tensor (``n - 3 <= x``,
elementwise as NumPy compares an int with an array), ``np.arange`` of a size times a
float (``np.arange(n * 1.0)``: NumPy's float64 range) or by a step that is a size
(``np.arange(0, n, k)``), judged by NumPy at every assignment of a box of sizes (0, 1,
2, 3, 5): where the result holds NumPy runs and gives its shape and dtype, where it
does not NumPy raises (or a slice bound's sign reading, documented, says so); and the
values of the built graph are NumPy's, pad constants written as NumPy writes them."""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

BOX = (0, 1, 2, 3, 5)

PROGRAMS = {
    "to a length": (lambda x, y: np.pad(x, (0, len(y) - len(x))), ["float32[A]", "int64[B]"]),
    "pairs per axis": (lambda x: np.pad(x, ((1, x.shape[1]), (x.shape[0], 0)),
                                        constant_values=7), ["int8[A,B]"]),
    "one width": (lambda x: np.pad(x, x.shape[0], constant_values=300), ["uint8[A,B]"]),
    "a column of widths": (lambda x: np.pad(x, [[x.shape[1]], [2]],
                                            constant_values=((1, 2), (3.5, 4))),
                           ["float64[A,B]"]),
    "maybe negative": (lambda x: np.pad(x, (x.shape[0] - 3, 1)), ["float64[A,B]"]),
    "a 3-d pair": (lambda x: np.pad(x, (x.shape[2] // 2, 1), constant_values=-1.5),
                   ["int32[A,2,B]"]),
}


def _shape(text: str, sizes: dict[str, int]) -> tuple[int, ...]:
    t = kt.TensorType.parse(text)
    return tuple(sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape)


SPLITS = {
    "a size and a half": (lambda x: np.split(x, [1, x.shape[0] // 2])[1], ["float32[A,B]"]),
    "the last of three": (lambda x: np.split(x, [x.shape[1] - 3, 2], axis=1)[2],
                          ["float32[A,B]"]),
    "another input's length": (lambda x, y: np.split(x, [len(y)], axis=-1)[1],
                               ["int8[A,B]", "float64[C]"]),
    "vsplit": (lambda x: np.vsplit(x, [x.shape[1]])[0], ["float32[A,B]"]),
    "every piece": (lambda x: np.concatenate(np.split(x, (1, x.shape[0] - 1))),
                    ["int64[A]"]),
}


INDICES = {
    "a diagonal": (lambda x: x[np.diag_indices(x.shape[0])], ["float32[A,B]"]),
    "a shorter diagonal": (lambda x: x[np.diag_indices(x.shape[0] - 2)], ["int8[A,B]"]),
    "three axes": (lambda x, y: np.diag_indices(len(y), 3)[2] + x.shape[1],
                   ["float32[A,B]", "float64[C]"]),
}


COMPARED = {
    "a size less 3 at most x": (lambda x: (x.shape[0] - 3) <= x, ["float32[A,B]"]),
    "a size below x": (lambda x: x.shape[1] < x, ["int8[A,B]"]),
    "a large size above int8 x": (lambda x: x.shape[0] + 300 > x, ["int8[A]"]),
    "a size at least x's cast": (lambda x: len(x) >= x.astype(np.uint8), ["float64[A,B]"]),
}


RANGES = {
    "a size times a float": (lambda x: np.arange((x.shape[1] + x.shape[0]) * 1.0),
                             ["int8[A,B]"]),
    "half a size as a product": (lambda x: np.arange(x.shape[1] * 0.5), ["float32[A,B]"]),
    "a float size less 3": (lambda x: np.arange(x.shape[1] - 3.0) + x.shape[0],
                            ["int8[A,B]"]),
    "with an int step": (lambda x: np.arange(0, x.shape[0] * 1.0, 2), ["int8[A]"]),
    # a step that is a size: ceil((stop - start) / step) values, none where the step is
    # 0 (NumPy raises ZeroDivisionError); one that may be negative is read as positive
    "a size step": (lambda x: np.arange(0, x.shape[0], x.shape[1]), ["float32[A,B]"]),
    "a size step from a size": (lambda x: np.arange(x.shape[1], x.shape[0] + 3, x.shape[1]),
                                ["float32[A,B]"]),
    "a size step of step=": (lambda x: np.arange(len(x), step=x.shape[1] + 1) * 2,
                             ["int8[A,B]"]),
    "a step that may be negative": (lambda x: np.arange(x.shape[0], 9, x.shape[1] - 2),
                                    ["float32[A,B]"]),
    "indexed by a size step": (lambda x: x[np.arange(0, x.shape[0], x.shape[1])],
                               ["float32[A,B]"]),
    "indexed past the end": (lambda x: x[np.arange(1, x.shape[0] + 1, x.shape[1])],
                             ["float32[A,B]"]),
    "a size step of one size": (lambda x: np.arange(1, x.shape[0], x.shape[0]) + 1,
                                ["float32[A]"]),
    # a float step 1/2**k: (stop - start) * 2**k values, exact in floating point
    "a half step": (lambda x: np.arange(0, x.shape[0], 0.5), ["float32[A,B]"]),
    "a quarter step down": (lambda x: np.arange(x.shape[1] + 1, x.shape[0], -0.25) * 2,
                            ["float32[A,B]"]),
}


def _case(result, sizes):
    return next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                result) if result.cases else result


def _sign_reading(result, sizes) -> bool:
    """Whether a slice bound's sign reading (an assumption with ``otherwise``) is what
    fails at ``sizes`` (docs/numpy.rst: those sizes are not covered)."""
    return any(a.source is not None and a.source.otherwise and not a.holds(sizes)
               for a in result.assumptions)


ALL = {**PROGRAMS, **SPLITS, **INDICES, **COMPARED, **RANGES}


@pytest.mark.parametrize("name", list(ALL))
def test_sizes_as_numpys_parameters_are_numpys(name):
    fn, types = ALL[name]
    result = kt.eval_shape(fn, *types)  # (the default float32: a Python float's dtype
    # is then kantensor's, and NumPy's arange of it float64 all the same)
    names = sorted({d.name for t in types for d in kt.TensorType.parse(t).shape
                    if isinstance(d, kt.Dim)})
    ran = 0
    for values in itertools.product(BOX, repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        arrays = [np.arange(np.prod(_shape(t, sizes)), dtype=kt.TensorType.parse(t).dtype)
                  .reshape(_shape(t, sizes)) for t in types]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn(*arrays)
        except (ValueError, IndexError, ZeroDivisionError):
            assert not result.holds(sizes), sizes
            continue
        assert result.holds(sizes) or _sign_reading(result, sizes), sizes
        if not result.holds(sizes):
            continue
        ran += 1
        typed = _case(result, sizes).type
        want = tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d
                     for d in typed.shape)
        assert want == out.shape and str(out.dtype) == typed.dtype, (sizes, want,
                                                                     out.shape)
        got = kt.function(list(result.inputs), list(result.outputs))(*arrays)
        np.testing.assert_array_equal(got[0] if isinstance(got, list) else got, out)
    assert ran


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float32", "bool"])
@pytest.mark.parametrize("constant", [((1, 300), (3.5, 4)), 300, (300, 2), -1, 2.7,
                                      [[1], [2]], True])
def test_constants_are_written_as_numpy_writes_them(dtype, constant):
    """One value (or one pair) is a NumPy scalar cast unsafely (300 into uint8 is 44);
    pairs of pairs are Python numbers (300 into uint8 raises OverflowError)."""
    def fn(x):
        return np.pad(x, [[x.shape[1]], [2]], constant_values=constant)
    v = np.arange(6).astype(dtype).reshape(2, 3)
    try:
        want = fn(v)
    except OverflowError:
        with pytest.raises(OverflowError):
            kt.eval_shape(fn, f"{dtype}[A,B]")
        return
    result = kt.eval_shape(fn, f"{dtype}[A,B]")
    got = kt.function(list(result.inputs), list(result.outputs))(v)
    got = got[0] if isinstance(got, list) else got
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_a_negative_int_width_raises_as_numpy():
    with pytest.raises(ValueError, match="negative"):
        np.pad(np.zeros((2, 3)), ((0, 3), (-1, 2)))
    with pytest.raises(ValueError, match="negative"):
        kt.eval_shape(lambda x: np.pad(x, ((0, x.shape[0]), (-1, 2))), "float64[A,B]")


def test_arange_of_a_float_of_an_unknown_length_is_refused_naming_arange():
    """``np.arange((len(v) + 1) * 1.0)`` of a length the data decide: no size to pass on
    (its node holds a placeholder), so a TypeError naming arange, not a crash inside
    the size parameters (IndexError: list index out of range)."""
    def fn(x):
        v = np.unique_values(x.ravel())
        return np.arange((len(v) + 1) * 1.0)
    assert fn(np.arange(4)).shape == (5,)  # NumPy runs: unsupported here, said so
    with pytest.raises(TypeError, match="numpy.arange of a tensor"):
        kt.eval_shape(fn, "int64[N]")


def test_arange_of_sizes_by_a_rounded_float_step_is_refused_by_name():
    """``np.arange(0, n, 0.3)`` has ``ceil(n / 0.3)`` values in floating point (31 of
    ``np.arange(0, 3, 0.1)``): no size says it, so it is refused, naming arange (it
    raised "a symbolic tensor has no truth value" from NumPy's own)."""
    fn = lambda x: np.arange(0, x.shape[0], 0.3)  # noqa: E731
    assert fn(np.zeros(3)).shape == (10,)  # NumPy runs
    with pytest.raises(TypeError, match="numpy.arange.*step"):
        kt.eval_shape(fn, "float32[A]")


BOOL_RANGES = {
    "of a size": lambda x, y: np.arange(len(x), dtype=bool),
    "from a size": lambda x, y: np.arange(len(y), len(x), dtype=bool),
    "by a size step": lambda x, y: np.arange(0, len(x), len(y), dtype=bool),
    "by a step of step=": lambda x, y: np.arange(len(x), step=len(y) + 1, dtype=bool),
    "down by an int": lambda x, y: np.arange(len(x), 0, -2, dtype=bool),
}


@pytest.mark.parametrize("name", list(BOOL_RANGES))
def test_a_bool_range_holds_only_where_numpy_runs(name):
    """NumPy refuses a bool arange of more than 2 values (TypeError): the result holds
    only where NumPy runs, and there its shape and values are NumPy's."""
    fn = BOOL_RANGES[name]
    result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    run = kt.function(list(result.inputs), list(result.outputs))
    ran = 0
    for n, k in itertools.product(range(7), repeat=2):
        arrays = (np.zeros(n, np.float32), np.zeros(k, np.float32))
        try:
            want = fn(*arrays)
        except (TypeError, ZeroDivisionError):
            assert not result.holds({"N": n, "K": k}), (n, k)
            continue
        if result.holds({"N": n, "K": k}):
            ran += 1
            got = run(*arrays)
            got = got[0] if isinstance(got, list) else got
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    assert ran


@pytest.mark.parametrize("args", [(5,), (1, 4), (0, 5, 3), (5, 0, -3), (2, 0, -1)])
def test_a_bool_range_of_ints_is_refused_where_numpy_refuses_it(args):
    try:
        want = np.arange(*args, dtype=bool)
    except TypeError:
        with pytest.raises(ValueError, match="at most 2"):
            kt.arange(*args, dtype="bool")
        return
    assert kt.arange(*args, dtype="bool").type == kt.TensorType("bool", want.shape)


STEPPED = [f"np.arange(0, len(x), {step})" for step in
           ("len(y)", "len(y) + 1", "len(y) - 2", "2 * len(y)")] + [
    "x[::len(y)]", "x[1::len(y)]", "x[::len(y) + 1]", "x[::len(y) - 2]", "x[::2 * len(y)]"]


@pytest.mark.parametrize("src", STEPPED)
def test_a_size_steps_conditions_are_each_needed(src):
    """Of the assumptions on the step alone (over ``K``), each requirement fails at some
    sizes of a box where the others hold (none restates another: one fact, one
    statement), and a reading of a step that may be negative (an assumption with
    ``otherwise``) fails at some sizes where the requirements hold and NumPy runs
    (another length, not an error); where all the assumptions hold NumPy runs. (The
    assumptions over ``N`` too, ``(K + N - 1)//K >= 0`` of a slice, are another matter:
    whether the prover shows them from the step's.)"""
    fn = eval(f"lambda x, y: {src}")
    result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    box = [{"N": n, "K": k} for n, k in itertools.product(range(7), repeat=2)]

    def runs(s):
        try:
            fn(np.zeros(s["N"], np.float32), np.zeros(s["K"], np.float32))
        except (ValueError, ZeroDivisionError):
            return False
        return True

    on_step = [a for a in result.assumptions if not re.search(r"\bN\b", str(a))]
    needed = [a for a in on_step if a.source is None or not a.source.otherwise]
    readings = [a for a in on_step if a not in needed]
    for i, a in enumerate(needed):
        others = [b for j, b in enumerate(needed) if j != i]
        assert any(not a.holds(s) and all(b.holds(s) for b in others) for s in box), \
            [str(b) for b in result.assumptions]
    for a in readings:
        assert any(not a.holds(s) and all(b.holds(s) for b in needed) and runs(s)
                   for s in box), [str(b) for b in result.assumptions]
    assert all(runs(s) for s in box if result.holds(s))

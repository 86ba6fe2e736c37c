"""eval_shape of NumPy code that reads dtypes and makes sizes into NumPy numbers, judged
by NumPy: ``x.dtype == np.float32`` (a branch on a dtype), ``np.int64(n)``,
``np.float32(d)``, ``np.array(n, dtype=np.int8)`` (a Python int must fit: NumPy 2 raises
OverflowError), and the elementwise ``np.fmod``, ``np.left_shift``, ``np.right_shift``
(``<<``, ``>>``)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute
from npprograms import compile_program, judge, returning, run_numpy


def _judge(source: str, types: list[str], box: tuple[int, ...]) -> None:
    """``source`` (a program) typed by eval_shape, and run by NumPy at every size of
    ``box``: where the result holds NumPy runs and gives the type's shape and dtype, and
    where it does not NumPy raises."""
    fn = compile_program(source)
    names = list(dict.fromkeys(d.name for t in types for d in kt.TensorType.parse(t).shape
                               if isinstance(d, kt.Dim)))
    previous = kt.get_default_dtype()
    kt.set_default_dtype("float64")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = kt.eval_shape(fn, *types)
    finally:
        kt.set_default_dtype(previous)
    for values in itertools.product(box, repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        out = run_numpy(fn, types, sizes)
        held = result.holds(sizes)
        assert held == (not isinstance(out, BaseException)), (source, sizes, out)
        if held:
            t = result.type
            out = np.asarray(out)
            assert t.dtype == str(out.dtype), (source, sizes, t, out.dtype)
            want = tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d
                         for d in t.shape)
            assert want == out.shape, (source, sizes, t, out.shape)


BRANCHES = [
    "x0 if x0.dtype == np.float32 else x0.astype(np.float64)",
    "x0 if x0.dtype != np.float32 else x0.astype(np.int8)",
    "x0 if x0.dtype == 'f4' else x0.astype(np.int16)",
    "x0 if x0.dtype == np.dtype('float16') else x0.astype(np.uint8)",
    "x0 if x0.dtype in (np.float16, np.float32) else x0.astype(np.float64)",
    "x0 if x0.dtype == float else x0.astype(np.float32)",
    "x0 if x0.dtype == int else x0.astype(np.float16)",
    "x0.astype(np.float32) if x0.dtype.kind == 'f' else x0 * 2",
    "np.zeros(x0.dtype.itemsize * len(x0))",
    "x0 if x0.dtype.name == 'int8' else x0.astype(np.int32)",
    "x0 if np.issubdtype(x0.dtype, np.integer) else x0.astype(np.int64)",
]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int64"])
@pytest.mark.parametrize("body", BRANCHES)
def test_a_branch_on_a_dtype_takes_numpys_way(body, dtype):
    """x.dtype compares as NumPy's dtype (``x.dtype == np.float32`` was False for a
    float32 tensor: the other branch's type, float64, where NumPy gives float32)."""
    _judge(returning(body, 1), [f"{dtype}[A]"], (0, 1, 3))


NUMBERS = [
    "x0 * np.int8(len(x0))", "x0 * np.uint8(x0.shape[0] - 1)", "x0 * np.int16(len(x0))",
    "x0 * np.int64(len(x0))", "x0 * np.float32(len(x0))", "x0 * np.float16(len(x0))",
    "x0 / np.sqrt(np.float32(len(x0)))", "x0 * np.double(len(x0) / 2)",
    "x0 * np.array(len(x0), dtype=np.int8)", "x0 * np.array(len(x0), dtype=np.uint8)",
    "x0 * np.array([len(x0), 3], dtype=np.uint8)[0]",
    "x0 * np.asarray(len(x0) + 120, dtype=np.int8)",
    "x0 * np.array(len(x0), dtype=np.float16)", "x0 * np.asarray(len(x0)).astype(np.int8)",
]


#: NumPy numbers of sizes in integer arithmetic: not Python ints, so no "Python int of
#: sizes must fit" check (it refused these: the cast of a size's number read as one).
INTEGER_NUMBERS = [
    "np.array(3 * x0.shape[0] * x0.shape[1], dtype=np.int64) + x0",
    "x0 * (np.int64(len(x0)) * 2)", "x0 - np.intp(x0.shape[1] * x0.shape[0])",
]


@pytest.mark.parametrize("body", INTEGER_NUMBERS)
def test_a_numpy_number_of_sizes_is_no_python_int(body):
    _judge(returning(body, 1), ["int64[A,B]"], (0, 1, 3))


@pytest.mark.parametrize("body", NUMBERS)
def test_a_size_made_a_numpy_number_fits_its_dtype(body):
    """np.int8(n) and np.array(n, dtype=np.int8) hold where n fits int8 (NumPy 2 raises
    OverflowError past 127; np.array(n, dtype=np.int8) held there, np.int8(n) was
    refused everywhere), and a cast of an array wraps (no condition). (A float64 x0: a
    NumPy number is a 0-d tensor here, which keeps a float32 x0's dtype, docs/numpy.rst.)"""
    _judge(returning(body, 1), ["float64[A]"], (0, 1, 2, 7, 126, 127, 128, 200, 255, 256))


PAIRS = [("int32", "int8"), ("uint8", "int8"), ("bool", "bool"), ("int8", "bool"),
         ("uint16", "uint8"), ("float32", "int8"), ("float16", "float64"), ("int64", "uint8")]
SHIFTS = ["np.fmod(x0, x1)", "np.left_shift(x0, x1)", "np.right_shift(x0, x1)", "x0 << x1",
          "x0 >> x1", "x0 << 2", "3 >> x1", "np.fmod(x0, 2.5)", "np.fmod(x0, len(x1))"]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("body", SHIFTS)
def test_fmod_and_shifts_are_numpys(body, pair):
    """np.fmod, np.left_shift, np.right_shift, << and >> type as NumPy (they were not
    supported); a float operand of a shift is refused where NumPy raises TypeError."""
    source = returning(body, 2)
    types = [f"{pair[0]}[A]", f"{pair[1]}[A]"]
    fn = compile_program(source)
    out = run_numpy(fn, types, {"A": 2})
    if isinstance(out, BaseException):
        with pytest.raises((kt.TypeInferenceError, TypeError)):
            kt.eval_shape(fn, *types)
        return
    _judge(source, types, (0, 1, 3))


MORE = [  # (a program's body, its input types): judged at every size of the box
    ("np.repeat(x0, 2.5)", ["float32[A]"]),
    ("np.repeat(x0, -0.5)", ["int8[A]"]),
    ("np.repeat(x0, len(x1) / 2)", ["float32[A]", "int8[B]"]),
    ("np.repeat(x0, (len(x1) - 3) / 2, axis=0)", ["float32[A,2]", "int8[B]"]),
    ("x0.repeat(x0.shape[0] / 3)", ["float64[A]"]),
    ("x0 * math.fmod(len(x0), 3)", ["float64[A]"]),
    ("x0 * math.fmod(len(x0), len(x1))", ["float64[A]", "int8[B]"]),
    ("x0 * (1.0 / math.fmod(len(x0), 3))", ["float64[A]"]),
    ("x0 * math.fmod(7, len(x1))", ["float64[A]", "int8[B]"]),
    ("x0 * math.fmod(len(x0), x0.shape[0])", ["float64[A]"]),
    ("x0[1::len(x0) - 2]", ["float32[A]"]),
    ("x0[::len(x1)]", ["float32[A,2]", "int8[B]"]),
    ("x0[1::len(x1)]", ["float32[A]", "int8[B]"]),
    ("x0[:, ::x1.shape[0] + 1]", ["float32[2,A]", "int8[B]"]),
    ("x0[len(x1)::len(x1)]", ["float32[A]", "int8[B]"]),
    ("x0[:len(x1):2 * len(x1)]", ["float32[A]", "int8[B]"]),
    ("x0[::len(x1)][-1]", ["float32[A,2]", "int8[B]"]),
    ("np.linspace(0, 1, len(x0))", ["float32[A]"]),
    ("np.linspace(-2, 3.5, len(x0) - 1, endpoint=False)", ["float32[A]"]),
    ("np.linspace(0, 1, len(x0) * len(x1), dtype=np.float32)", ["float32[A]", "int8[B]"]),
    ("np.linspace(0, len(x1), len(x0))[:, None] * x0", ["float32[A]", "int8[B]"]),
    ("np.linspace(0, len(x1) + 1, 3) * x0[:1]", ["float32[A]", "int8[B]"]),
    ("np.linspace(len(x1) / 2, 1, 2)", ["float32[A]", "int8[B]"]),
]


@pytest.mark.parametrize(("body", "types"), MORE, ids=[b for b, _ in MORE])
def test_float_repeats_fmod_of_sizes_and_size_steps_are_numpys(body, types):
    """np.repeat by a float (NumPy casts it toward zero: a float of sizes too, whose
    sign the trace asks), math.fmod of sizes (a Python float, 0 where x % y is), a
    slice whose step is a size (which NumPy refuses at 0) and np.linspace of a size's
    count (which NumPy refuses below 0) hold exactly where NumPy runs and give its
    types; all four were refused everywhere."""
    verdict = judge(returning(body, len(types)), types, (0, 1, 2, 3, 5))
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]

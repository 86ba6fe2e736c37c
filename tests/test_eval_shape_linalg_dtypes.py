"""``numpy.linalg``'s dtypes, NumPy's. Its LAPACK functions on a float16 tensor raise
TypeError, as NumPy does ("array type float16 is unsupported in linalg"); before,
``eval_shape`` typed them (the catalogue's Ops compute float16 in float32, which
``kt.inv`` keeps). Judged by
NumPy: each call fails in NumPy at every size of a box, and eval_shape refuses it; the
same call of float32 and int8 runs in NumPy and is typed with NumPy's dtype. (NumPy's
``pinv`` gives an empty float16 matrix back as it is: typed float16 where the matrices
are empty, an assumption; before refused at every size.)"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import kantensor as kt
from conformance import conform
from npprograms import BOX, compile_program, judge, run_numpy

LAPACK = ("cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "pinv", "qr",
          "slogdet", "solve", "svd")
CALLS = {"solve": "np.linalg.solve(x0, x0)", "pinv": "np.linalg.pinv(x0)",
         "svd": "np.linalg.svd(x0)[1]", "qr": "np.linalg.qr(x0)[0]",
         "eig": "np.linalg.eig(x0)[1]", "eigh": "np.linalg.eigh(x0)[0]",
         "slogdet": "np.linalg.slogdet(x0)[1]"}


@pytest.mark.parametrize("name", LAPACK)
def test_float16_is_refused_as_numpy_refuses_it(name: str) -> None:
    source = f"def program(x0):\n    return {CALLS.get(name, f'np.linalg.{name}(x0)')}\n"
    fn = compile_program(source)
    types = ["float16[A,A]"]
    if name == "pinv":  # NumPy's pinv returns an empty float16 matrix as it is
        result = kt.eval_shape(fn, *types)
        assert result.type.dtype == "float16" and result.type.ndim == 2
        for (a,) in itertools.product(BOX, repeat=1):
            out = run_numpy(fn, types, {"A": a})
            assert result.holds({"A": a}) == (not isinstance(out, TypeError)), (a, out)
            assert isinstance(out, TypeError) or out.dtype == np.float16
    else:
        for (a,) in itertools.product(BOX, repeat=1):
            assert isinstance(run_numpy(fn, types, {"A": a}), TypeError)
        with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
            kt.eval_shape(fn, *types)
    for dtype, default in itertools.product(("float32", "int8"), ("float32", "float64")):
        want = fn(np.eye(3, dtype=dtype))  # NumPy's dtype for the ones it runs (on eye)
        with kt.default_dtype(default):  # eval_shape's are NumPy's whatever the default
            got = kt.eval_shape(fn, f"{dtype}[A,A]").type
        if name not in ("eig", "eigvals"):  # (complex always: docs/numpy.rst)
            assert got.dtype == str(want.dtype), (got, want.dtype)
        assert got.ndim == np.ndim(want)


def test_kt_keeps_its_float16() -> None:
    assert kt.inv(kt.tensor("x", "float16", (3, 3))).type.dtype == "float16"


NUMERIC = ("bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex64",
           "complex128")


@pytest.mark.parametrize("b", NUMERIC)
@pytest.mark.parametrize("a", NUMERIC)
def test_solve_has_numpys_dtype(a: str, b: str) -> None:
    """NumPy's solve makes each integer (bool) operand float64, then promotes: int8 and
    float32 give float64 (kantensor's ``float(x)``, the default float, is float64 here:
    the default differs, as documented). Before, int8 with float32 gave float32."""
    want = np.linalg.solve(np.eye(3, dtype=a), np.ones(3, dtype=b)).dtype
    with kt.default_dtype("float64"):
        got = kt.eval_shape(lambda x, y: np.linalg.solve(x, y), f"{a}[n,n]", f"{b}[n]")
    assert got.type.dtype == str(want)


@pytest.mark.parametrize("rtol", ["", ", rtol=None", ", rtol=0.5", ", rcond=None",
                                  ", hermitian=True"])
@pytest.mark.parametrize("types", [["int8[A,B]"], ["bool[C,A,B]"], ["uint8[A,A]"],
                                   ["float32[A,B]"], ["int64[A,B,C]"], ["bfloat16[A,B]"],
                                   ["float8_e4m3fn[C,A,B]"], ["int4[A,B]"],
                                   ["float4_e2m1fn[A,A]"]], ids=str)
def test_pinv_of_integers_holds_where_numpy_gives_its_type(types: list[str], rtol: str
                                                           ) -> None:
    """NumPy's pinv gives an empty matrix of a dtype it reads as not inexact (integers,
    bool, and ml_dtypes' bfloat16, float8, float4, int4) back in its dtype, a non-empty
    one in float64: typed float64 where the matrices have elements, not held where they
    have none (refused there: one type cannot say both; before, float64 held there too,
    where NumPy gives int8, and bfloat16 was typed bfloat16 where NumPy gives float64);
    ``rtol=None`` of those refused (NumPy raises "not inexact" at every size). Judged by
    NumPy at every size of a box."""
    source = f"def program(x0):\n    return np.linalg.pinv(x0{rtol})\n"
    verdict = judge(source, types)
    dtype = kt.TensorType.parse(types[0]).dtype
    own = not np.issubdtype(np.dtype(dtype), np.inexact)
    if own and rtol == ", rtol=None":  # (NumPy fails at every size: refused so)
        names = list(dict.fromkeys(d.name for d in kt.TensorType.parse(types[0]).shape))
        fn = compile_program(source)
        for sizes in itertools.product(BOX, repeat=len(names)):
            out = run_numpy(fn, types, dict(zip(names, sizes, strict=True)))
            assert isinstance(out, ValueError) and "not inexact" in str(out), out
        with pytest.raises((kt.TypeInferenceError, ValueError), match="not inexact"):
            kt.eval_shape(fn, *types)
        return
    assert verdict.status == "typed", verdict.note
    core = [d.name for d in kt.TensorType.parse(types[0]).shape[-2:]]
    for kind, sizes, note in verdict.wrong:
        empty = sizes[core[0]] * sizes[core[1]] == 0
        assert kind == "refused" and empty and own, (kind, sizes, note)


LOW = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4", "int2")


@pytest.mark.parametrize("dtype", LOW)
@pytest.mark.parametrize("name", [n for n in LAPACK if n != "pinv"])
def test_low_precision_is_float64_as_numpy_computes_it(name: str, dtype: str) -> None:
    """NumPy's linalg reads a dtype it lacks (ml_dtypes') as no float and computes it in
    float64: eval_shape's type is NumPy's dtype (before: bfloat16 kept bfloat16, int4 the
    default float). eig and eigvals are complex, as documented."""
    source = CALLS.get(name, f"np.linalg.{name}(x0)")
    fn = compile_program(f"def program(x0):\n    return {source}\n")
    want = np.asarray(fn(np.eye(2).astype(getattr(ml_dtypes, dtype, dtype))))
    got = kt.eval_shape(fn, f"{dtype}[A,A]").type
    expected = "complex128" if name in ("eig", "eigvals") else str(want.dtype)
    assert got.dtype == expected and got.ndim == want.ndim


@pytest.mark.parametrize("kw", [{}, {"rtol": 0.5}, {"rcond": 1e-3}], ids=str)
@pytest.mark.parametrize("dtype", [*LOW, "int8", "bool"])
def test_pinv_of_low_precision_computes_numpys_values(dtype: str, kw: dict) -> None:
    """``np.linalg.pinv`` of a low-precision tensor runs as NumPy runs it: float64
    computed from the input's values (before, bfloat16 was typed bfloat16; int4's float64
    was computed in the default float, float32), an integer's rounded to its type.
    Judged by NumPy's values on a 2x3 and a 3x3 matrix."""
    for rows in ([[1, 0.5, 0.25], [0.125, 3, 1]], [[2, 1, 0], [1, 3, 1], [0, 1, 4]]):
        a = np.array(rows).astype(getattr(ml_dtypes, dtype, dtype))
        assert conform("pinv", lambda x: np.linalg.pinv(x, **kw),  # noqa: B023
                       lambda x: np.linalg.pinv(x, **kw), [a]) == "ran"  # noqa: B023


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (0, 3), (3, 0), (3, 3), (0, 2, 3),
                                   (2, 0, 3), (2, 2, 2)], ids=str)
def test_pinv_hermitian_of_a_non_square_matrix_is_refused(shape: tuple) -> None:
    """``pinv(hermitian=True)`` runs NumPy's eigh, which raises "Last 2 dimensions of the
    array must be square" for non-empty non-square matrices (a zero batch included):
    kt.pinv refuses those where it typed them (the probe's LinAlgError filing hid it).
    Judged by NumPy on each shape."""
    a = np.zeros(shape)
    a[..., range(min(shape[-2:])), range(min(shape[-2:]))] = 2
    assert conform("pinv", lambda x: kt.pinv(x, hermitian=True),
                   lambda x: np.linalg.pinv(x, hermitian=True), [a]) in ("ran", "rejected")


@pytest.mark.parametrize(("call", "types"), [
    ("np.linalg.pinv(x0, rcond=0, hermitian=True)", ["float16[A,C]"]),
    ("np.linalg.pinv(x0, rcond=None)", ["float16[A,C]"]),
    ("np.linalg.pinv(x0, hermitian=True, rtol=None)", ["float16[A,A]"]),
    ("np.linalg.pinv(x0, rtol=0.5)", ["float16[B,B,C]"])], ids=str)
def test_pinv_of_empty_float16_matrices_is_numpys(call: str, types: list[str]) -> None:
    """NumPy's pinv gives empty float16 matrices back as they are (float16, transposed
    shape) and raises for any other float16 matrix: typed float16 assuming the matrices
    are empty (the relation's float16 alternative, ops/families/lapack.py). Before,
    refused at every size (found by benchmarks/numpy_probe.py seeds 37, 43, 47:
    refused-all). Judged by NumPy at every size of a box."""
    verdict = judge(f"def program(x0):\n    return {call}\n", types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]

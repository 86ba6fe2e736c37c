"""The low-precision dtypes (bfloat16, float8, float4, int4, int2) against ml_dtypes, the
library that gives NumPy them: the table's facts, every promotion and lossless cast the
table claims (checked on every value of the dtype), and typing without ml_dtypes (a
subprocess where it cannot be imported) with execution refused clearly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.mode import execution
from kantensor.types import dtypes as d
from kantensor.types import numpy_dtypes as nd

LOW = [t for t in d.DTYPES if d.is_low_precision(t)]
FLOATS = [t for t in LOW if d.category(t) is d.FLOATING]
INTS = [t for t in LOW if d.category(t) is d.INTEGER]


def every_value(dtype: str) -> np.ndarray:
    """Every value of a low-precision dtype (all its bit patterns), NaNs left out."""
    np_dtype = nd.numpy_dtype(dtype)
    if dtype in INTS:
        info = ml_dtypes.iinfo(np_dtype)
        return np.arange(int(info.min), int(info.max) + 1).astype(np_dtype)
    bits = np.arange(2 ** d.DTYPE_TABLE[d.DTYPES.index(dtype)].bits,
                     dtype=f"u{np_dtype.itemsize}")
    values = bits.view(np_dtype)
    return values[~np.isnan(values.astype(np.float64))]


def test_the_table_agrees_with_ml_dtypes():
    """Category, signedness, bits and integer range as ml_dtypes reads them."""
    assert set(LOW) == {"bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                        "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "int4",
                        "uint4", "int2", "uint2"}
    for info in d.DTYPE_TABLE:
        if info.package == "numpy":
            continue
        np_dtype = np.dtype(getattr(ml_dtypes, info.name))
        assert nd.numpy_dtype(info.name) == np_dtype and np_dtype.name == info.name
        if info.category is d.INTEGER:
            iinfo = ml_dtypes.iinfo(np_dtype)
            assert (info.signed, info.bits) == (iinfo.min < 0, iinfo.bits), info.name
            assert d.integer_range(info.name) == (int(iinfo.min), int(iinfo.max))
        else:
            finfo = ml_dtypes.finfo(np_dtype)  # refuses anything but a float
            assert info.category is d.FLOATING and info.bits == finfo.bits, info.name
            assert info.signed == bool(finfo.min < 0), info.name
    assert set(FLOATS) <= d.CATEGORIES["floating"] and set(INTS) <= d.CATEGORIES["integer"]
    assert {"int4", "int2"} <= d.CATEGORIES["signed"]
    assert {"uint4", "uint2"} <= d.CATEGORIES["unsigned"]


@pytest.mark.parametrize("dtype", LOW)
def test_the_wide_dtypes_hold_every_value(dtype):
    """Each NumPy dtype the table promotes or casts a low-precision one to holds all its
    values: converted there and back, every value (every bit pattern) survives."""
    values = every_value(dtype)
    wide = [b for b in d.DTYPES if b != dtype and d.is_lossless_cast(dtype, b)]
    assert wide, dtype
    for b in wide:
        assert not d.is_low_precision(b)
        back = values.astype(nd.numpy_dtype(b)).astype(values.dtype)
        assert np.array_equal(back.view(f"u{values.itemsize}"),
                              values.view(f"u{values.itemsize}")), (dtype, b)
        assert np.can_cast(values.dtype, nd.numpy_dtype(b), "safe"), (dtype, b)


def test_every_promotion_is_ml_dtypes_and_lossless():
    """Each pair the table promotes with a low-precision dtype PyTorch does not promote:
    ml_dtypes's answer, holding both dtypes; each pair it refuses raises PromotionError (and
    kantensor never casts into a small dtype). bfloat16 follows PyTorch's table
    (tests/test_dtypes.py)."""
    defined = refused = 0
    for a in (t for t in LOW if t != "bfloat16"):
        for b in d.DTYPES:
            try:
                got = d.promote_types(a, b)
            except d.PromotionError:
                refused += 1
                assert not d.is_lossless_cast(b, a) or a == b
                continue
            defined += 1
            assert got == d.promote_types(b, a)
            assert got == np.promote_types(nd.numpy_dtype(a), nd.numpy_dtype(b)).name, (a, b)
            assert d.is_lossless_cast(a, got) and d.is_lossless_cast(b, got)
    assert defined > 50 and refused > 100  # neither side of the oracle is vacuous
    with pytest.raises(d.PromotionError, match="does not promote float8_e4m3fn with float16"):
        d.promote_types("float8_e4m3fn", "float16")
    with pytest.raises(d.PromotionError, match="does not promote bfloat16 with int4"):
        d.promote_types("bfloat16", "int4")
    with pytest.raises(d.PromotionError, match="no complex dtype of float8_e5m2"):
        d.result_type(kt.tensor("x", "float8_e5m2", (2,)), 1j)
    assert d.result_type(kt.tensor("x", "bfloat16", (2,)), 1j) == "complex64"


def test_bfloat16_values_promoted_as_pytorch_computes_them():
    """bfloat16 with an integer, float16 and complex: the dtype torch's table gives, and
    the values NumPy computes in it (ml_dtypes casts)."""
    x = kt.tensor("x", "bfloat16", (3,))
    xv = np.array([1.5, -2.0, 3.25], ml_dtypes.bfloat16)
    cases = [("int32", np.array([1, 2, 3], np.int32), "bfloat16"),
             ("float16", np.array([0.5, 1.0, 2.0], np.float16), "float32"),
             ("complex64", np.array([1j, 2, 0], np.complex64), "complex64")]
    for dtype, yv, want in cases:
        y = kt.tensor("y", dtype, (3,))
        z = x + y
        assert z.type.dtype == want
        got = kt.function([x, y], z, check=True)(xv, yv)
        expected = xv.astype(nd.numpy_dtype(want)) + yv.astype(nd.numpy_dtype(want))
        assert got.dtype == nd.numpy_dtype(want) and np.array_equal(got, expected), dtype


def test_values_run_with_ml_dtypes():
    """kt.function on low-precision values computes what NumPy with ml_dtypes does."""
    x, y = kt.tensor("x", "bfloat16", (2, 3)), kt.tensor("y", "float32", (3,))
    xv = np.linspace(-2, 2, 6).reshape(2, 3).astype(ml_dtypes.bfloat16)
    yv = np.array([0.5, 1.5, -3.0], np.float32)
    got = kt.function([x, y], [x + y, kt.sin(x), x * 2])(xv, yv)
    want = [xv.astype(np.float32) + yv, np.sin(xv), xv * ml_dtypes.bfloat16(2)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and np.array_equal(g, w)
    i, j = kt.tensor("i", "int4", (4,)), kt.tensor("j", "int8", (4,))
    iv = np.array([-8, -1, 0, 7], ml_dtypes.int4)
    out = kt.function([i, j], i + j)(iv, np.int8([1, 2, 3, 4]))
    assert out.dtype == np.int8 and out.tolist() == [-7, 1, 3, 11]
    with pytest.raises(kt.TypeInferenceError, match="does not promote"):
        i + kt.tensor("k", "uint8", (4,))


WITHOUT_ML_DTYPES = textwrap.dedent("""
    import sys
    sys.modules["ml_dtypes"] = None  # import ml_dtypes now raises ImportError
    import numpy as np
    import kantensor as kt
    from kantensor.types import dtypes as d
    from kantensor.types import numpy_dtypes as nd
    x = kt.tensor("x", "bfloat16", (2, 3))
    print((x + kt.tensor("y", "float32", (3,))).type, kt.sin(x).type)
    print(kt.TensorType.parse("int4[n]"), d.promote_types("int4", "int8"))
    for run in (lambda: kt.function([x], kt.sin(x)), lambda: x.type.filter(np.ones((2, 3))),
                lambda: nd.numpy_dtype("float8_e4m3fn")):
        try:
            run()
        except nd.DTypeUnavailable as exc:
            print("refused:", exc)
""")


def test_typing_without_ml_dtypes_and_execution_refused():
    out = subprocess.run([sys.executable, "-c", WITHOUT_ML_DTYPES], capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out[0] == "float32[2,3] bfloat16[2,3]"
    assert out[1] == "int4[n] int8"
    refusals = [line for line in out if line.startswith("refused:")]
    assert len(refusals) == 3
    for line, name in zip(refusals, ("bfloat16", "bfloat16", "float8_e4m3fn"), strict=True):
        assert f"dtype {name} " in line and f'pip install "kantensor[{nd.LOWP_EXTRA}]"' in line


def test_the_extra_named_in_the_refusal_installs_ml_dtypes():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    extra = pyproject["project"]["optional-dependencies"][nd.LOWP_EXTRA]
    assert [r for r in extra if r.startswith("ml_dtypes")]
    makefile = (Path(__file__).parents[1] / "Makefile").read_text()
    assert nd.LOWP_EXTRA in makefile.split("pip install --quiet -e '.[")[1].split("]")[0]


#: Ops whose NumPy implementation would accumulate or divide in ml_dtypes' own small
#: integer (a sum of int4 wrapping at 8, a quotient in float16), and elementwise Ops whose
#: results wrap: each against NumPy on the same values held in int8/uint8.
INT_OPS = {
    "sum": (kt.sum, np.sum), "prod": (kt.prod, np.prod), "mean": (kt.mean, np.mean),
    "var": (kt.var, np.var), "std": (kt.std, np.std), "cumsum": (kt.cumsum, np.cumsum),
    "cumprod": (kt.cumprod, np.cumprod), "max": (kt.max, np.max),
    "argmin": (kt.argmin, np.argmin), "square": (lambda x: x * x, lambda x: x * x),
    "add": (lambda x: x + x, lambda x: x + x), "negative": (lambda x: -x, np.negative),
    "divide": (lambda x: x / (x * 0 + 1), lambda x: x / np.full_like(x, 1)),
    "dot": (lambda x: kt.dot(x, x), lambda x: np.dot(x, x)),
}


@pytest.mark.parametrize("generate", [True, False], ids=["generated", "plain"])
@pytest.mark.parametrize("dtype", INTS)
def test_small_integers_compute_exactly(dtype, generate):
    """Every value of the dtype (and a sum over many that overflows it) through the Ops
    above equals NumPy's result on the values as int8/uint8, cast to kantensor's output
    dtype (a wrap as the dtype's own arithmetic wraps)."""
    values = np.concatenate([every_value(dtype)] * 5)
    wide = values.astype(d.COMPUTED_AS[dtype])
    assert d.COMPUTED_AS[dtype] in ("int8", "uint8")
    x = kt.tensor("x", dtype, values.shape)
    outs = {name: ours(x) for name, (ours, _) in INT_OPS.items()}
    with execution(generate=generate):
        got = kt.function([x], list(outs.values()))(values)
    for (name, (_, theirs)), out, value in zip(INT_OPS.items(), outs.values(), got,
                                               strict=True):
        with np.errstate(all="ignore"):
            expected = np.asarray(theirs(wide)).astype(out.type.numpy_dtype)
        assert value.dtype == out.type.numpy_dtype, name
        np.testing.assert_array_equal(value.astype(np.float64),
                                      expected.astype(np.float64), err_msg=name)


@pytest.mark.parametrize("dtype", d.DEFAULT_RANGE)
def test_the_table_says_which_dtypes_hold_infinity_and_nan(dtype):
    """The ``infinity`` and ``nan`` columns of the dtype table, against the values NumPy
    (with ml_dtypes) stores: an infinity cast to float8_e4m3fn is NaN, a NaN cast to
    float4_e2m1fn a number; integers and bool hold neither."""
    inexact = d.is_inexact(dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stored = np.array([np.inf, -np.inf, np.nan]).astype(nd.numpy_dtype(dtype)) \
            .astype(np.complex128)
    assert d.dtype_info(dtype).infinity == (inexact and bool(np.isinf(stored[:2]).all()))
    assert d.dtype_info(dtype).nan == (inexact and bool(np.isnan(stored[2])))

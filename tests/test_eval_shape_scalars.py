"""Augmented assignment (``+= -= *= /= //= **=``) during eval_shape, judged by NumPy.

NumPy gives a scalar for a 0-d result of a reduction, an index or a ufunc: it is
immutable, so ``s += y`` rebinds ``s`` to ``s + y`` (``s = x.sum(); s += 0.5`` is a
float). An array is written into in its own dtype, with casting ``same_kind``
(``int_array += 0.5`` raises). Each case runs the same function on NumPy arrays and
through eval_shape: where NumPy's in-place result is its out-of-place one, kantensor's
is too (its promotion is its own, see docs/promotion, so the two are compared with
kantensor's out-of-place result); where NumPy keeps the array's dtype, so does kantensor;
where NumPy raises, kantensor refuses.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kantensor as kt

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
          "float64"]
OTHER_DTYPES = ["bool", "int8", "uint8", "int64", "float32", "float64"]
MAKERS = {"sum": lambda x: x.sum(), "index": lambda x: x[0], "max": lambda x: x.max(),
          "ufunc": lambda x: np.negative(x[1]), "matmul": lambda x: x @ x,
          "array": lambda x: x}
OPS = ["+=", "-=", "*=", "/=", "//=", "**="]
OTHERS = {"int": lambda y: 2, "float": lambda y: 0.5, "array": lambda y: y,
          "scalar": lambda y: y.sum()}


def _program(maker: str, op: str, other: str, in_place: bool):
    line = f"s {op} other(y)" if in_place else f"s = s {op[:-1]} other(y)"
    namespace = {"make": MAKERS[maker], "other": OTHERS[other]}
    exec(f"def f(x, y):\n    s = make(x)\n    {line}\n    return s\n", namespace)
    return namespace["f"]


def _numpy(f, d: str, e: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = f(np.ones(3, d), np.ones(4, e))
        except Exception as exc:  # noqa: BLE001 - NumPy's refusal is the answer
            return type(exc)
    return np.asarray(r).dtype.name, np.ndim(r)


def _kantensor(f, d: str, e: str):
    try:
        r = kt.eval_shape(f, f"{d}[n]", f"{e}[m]")
    except Exception as exc:  # noqa: BLE001 - compared with NumPy's refusal
        return type(exc)
    return r.type.dtype, r.type.ndim


@pytest.mark.parametrize("maker", list(MAKERS))
@pytest.mark.parametrize("op", OPS)
def test_augmented_assignment_as_numpy(maker, op):
    wrong = []
    for other in OTHERS:
        for d in DTYPES:
            for e in (OTHER_DTYPES if other in ("array", "scalar") else ["float32"]):
                np_in = _numpy(_program(maker, op, other, True), d, e)
                np_out = _numpy(_program(maker, op, other, False), d, e)
                kt_in = _kantensor(_program(maker, op, other, True), d, e)
                kt_out = _kantensor(_program(maker, op, other, False), d, e)
                if isinstance(np_out, type) or isinstance(kt_out, type):
                    continue  # out of place refused: not about writing
                if isinstance(np_in, type):  # NumPy refuses the write
                    if np_out[0] != kt_out[0]:
                        continue  # kantensor's promotion differs (0-d ranks below)
                    ok = isinstance(kt_in, type) and issubclass(kt_in, TypeError)
                elif np_in == np_out:  # NumPy rebinds (a scalar), or the write is alike
                    ok = kt_in == kt_out or (kt_in == (d, 1) and np_in == (d, 1))
                else:  # written into the array: its dtype and rank stay
                    ok = kt_in == (d, np_in[1])
                if not ok:
                    wrong.append((other, d, e, np_in, np_out, kt_in, kt_out))
    assert not wrong, wrong[:10]


#: 0-d values NumPy makes as 0-d arrays (True: a scalar), each ``f(x)`` of x int32[n].
KINDS = [
    (lambda x: x.sum(), True),
    (lambda x: x[0], True),
    (lambda x: x[..., 0], False),
    (lambda x: np.where(True, x.sum(), 0), False),
    (lambda x: np.broadcast_to(x.sum(), ()), False),
    (lambda x: np.reshape(x.sum(), ()), True),
    (lambda x: x.sum().astype("int16"), True),
    (lambda x: x[..., 0].astype("int16"), False),
    (lambda x: np.squeeze(x[..., 0]), False),
    (lambda x: x.sum().T, True),
    (lambda x: np.abs(x[..., 0]), True),
    (lambda x: np.dot(x, x), True),
    (lambda x: np.zeros((), "int32"), False),
    (lambda x: np.full_like(x.sum(), 2), False),
]


@pytest.mark.parametrize("k", range(len(KINDS)))
def test_scalar_or_array_as_numpy(k):
    """``s += 0.5`` on an int32 0-d value: a float where NumPy's s is a scalar, refused
    (UFuncTypeError) where it is a 0-d array."""
    make, scalar = KINDS[k]

    def f(x):
        s = make(x)
        s += 0.5
        return s

    x = np.ones(3, "int32")
    if scalar:
        assert isinstance(f(x), np.floating)
        assert kt.eval_shape(f, "int32[n]").type.dtype in ("float32", "float64")
    else:
        with pytest.raises((TypeError, ValueError)):  # (a broadcast view is read-only)
            f(x)
        with pytest.raises(TypeError, match="same_kind"):
            kt.eval_shape(f, "int32[n]")


def test_array_written_twice_stays_an_array():
    """A 0-d array written into is still an array at the next write (NumPy refuses the
    float there), though its value is now an add's output."""
    def f(x):
        a = x[..., 0]
        a += 1
        a += 0.5
        return a

    with pytest.raises(TypeError):
        f(np.ones(3, "int32"))
    with pytest.raises(TypeError, match="same_kind"):
        kt.eval_shape(f, "int32[n]")

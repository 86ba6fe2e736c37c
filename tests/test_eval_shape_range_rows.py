"""Rows of ranges that are not iterated at once, and cases kantensor cannot type.

Before, ``for i in np.arange(n)``, ``for i in range(n)[1:]`` and ``for i in
reversed(range(0, n, 2))`` gave 0-d tensors; slicing with one (``x[i:i + 1]``) raised
kantensor's ``ParamError``, recorded as the program raising: the contract said False
(``A <= 0``) where NumPy runs. Now their rows are the range's values (``np.int64`` for
``np.arange``, Python's ints for a sliced or reversed ``range``), and a case that fails
by kantensor's own limit (:mod:`kantensor.evalshape.limits`) is not covered: undecided,
never False. Judged by NumPy at sizes 0, 1, 2, 3, 5, 16, 17: the contract is never False
where NumPy runs nor True where it raises, and where True the case's type is NumPy's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

SIZES = (0, 1, 2, 3, 5, 16, 17)


def _arange_rows(x0):
    out = x0[:0]
    for i in np.arange(x0.shape[0]):
        out = np.concatenate([out, x0[i:i + 1]])
    return out


def _sliced_rows(x0):
    out = x0[:0]
    for i in range(x0.shape[0])[1:]:
        out = np.concatenate([out, x0[i:i + 1]])
    return out


def _stepped_slice_rows(x0):
    out = x0[:0]
    for i in range(x0.shape[0])[1:9:3]:
        out = np.concatenate([out, x0[i:i + 1] * i])
    return out


def _reversed_even_rows(x0):
    out = x0[:0]
    for i in reversed(range(0, x0.shape[0], 2)):
        out = np.concatenate([out, x0[i:i + 1] * i])
    return out


def _reversed_down_rows(x0):
    out = x0[:0]
    for i in reversed(range(x0.shape[0] - 1, 0, -3)):
        out = np.concatenate([out, x0[i - 1:i]])
    return out


def _arange_values(x0):
    return np.zeros(sum(int(i) for i in np.arange(1, x0.shape[0])) + 1) + x0[:1].sum()


TYPED = [(_arange_rows, "float32[A]"), (_sliced_rows, "float32[A]"),
         (_stepped_slice_rows, "int8[A]"), (_reversed_even_rows, "int8[A]"),
         (_reversed_down_rows, "float32[A]"), (_arange_values, "float64[A]")]


def _numpy(fn, t: str, n: int):
    dtype = t.split("[")[0]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(np.ones(n, dtype))
    except Exception as exc:  # noqa: BLE001 - NumPy's refusal is the oracle's answer
        return exc


def _judged(fn, t: str) -> dict[int, bool | None]:
    """The contract's verdict at each size, checked against NumPy (module docstring)."""
    result = kt.eval_shape(fn, t)
    contract = result.contract
    verdicts = {}
    for n in SIZES:
        out = _numpy(fn, t, n)
        verdict = contract.holds(A=n).value
        verdicts[n] = verdict
        if isinstance(out, BaseException):
            assert verdict is not True, (n, out)
            continue
        assert verdict is not False, (n, repr(contract.holds(A=n)))
        if verdict:
            case = next(c for c in result.cases or (result,)
                        if all(x.holds({"A": n}) for x in c.conditions))
            shape = tuple(substitute(d, {"A": n}) for d in case.type.shape)
            assert (shape, case.type.dtype) == (out.shape, str(out.dtype)), n
    return verdicts


@pytest.mark.parametrize(("fn", "t"), TYPED, ids=[f.__name__ for f, _ in TYPED])
def test_rows_of_ranges_are_their_values(fn, t) -> None:
    verdicts = _judged(fn, t)
    assert all(verdicts[n] is True for n in SIZES if n <= 16), verdicts


def test_arange_rows_are_numpys_int64() -> None:
    seen = []

    def f(x0):
        for i in np.arange(x0.shape[0]):
            seen.append(type(i))
        return x0

    kt.eval_shape(f, "float32[A]")
    assert set(seen) == {type(next(iter(np.arange(1))))} == {np.int64}


def _limited(x0):
    out = x0[:0]
    for i in range(x0.shape[0] - 1):
        j = np.arange(x0.shape[0])[i]  # a 0-d tensor: kantensor takes no slice bound of it
        out = np.concatenate([out, x0[j:j + 1]])
    return out


def _user_raises(x0):
    for i in range(x0.shape[0] - 1):
        if x0.shape[0] == 3:
            raise ValueError("three")
        x0 = np.concatenate([x0[i:], x0[:i]])
    return x0


def test_a_case_kantensor_cannot_type_is_not_covered() -> None:
    """``ParamError`` (a slice bound that is a tensor) is kantensor's limit: undecided
    where the case's conditions hold, never False; and the error is kept."""
    verdicts = _judged(_limited, "float32[A]")
    assert verdicts[0] is True and verdicts[1] is True
    assert all(verdicts[n] is None for n in SIZES if n >= 2), verdicts
    result = kt.eval_shape(_limited, "float32[A]")
    assert [type(r.error).__name__ for r in result.refused] == ["ParamError"]
    assert "a case eval_shape does not type (ParamError: getitem" in \
        result.assumptions[0].source.otherwise


def test_the_programs_own_raise_stays_refused() -> None:
    verdicts = _judged(_user_raises, "float32[A]")
    assert verdicts[3] is False
    assert all(verdicts[n] is True for n in SIZES if n != 3 and n <= 16), verdicts

"""Every NumPy function, ufunc, method and operator eval_shape types, at every NumPy
dtype, with Python and NumPy scalars mixed in (NEP 50): the result dtypes are NumPy's.

The functions are eval_shape's own table (:data:`kantensor.types.protocol.NUMPY_OPS`:
each NumPy function the catalogue maps to an Op), the ndarray methods a traced tensor has,
and Python's operators. Each is called on a 2x2 array ``x`` of each dtype in the ways
NumPy takes it: ``f(x)``, ``f(x, x)``, the arguments of :data:`_EXTRA`, and a binary ufunc
or operator with a scalar on either side (a Python bool, int, float, complex: weak; a NumPy
scalar of each dtype: strong). A call NumPy refuses at a dtype is not a case there. The
oracle is NumPy's result on real arrays; eval_shape's must be the same dtypes (and
shapes), or a refusal (counted, listed where asked, never a wrong dtype).

``np.linalg.eig`` and ``eigvals`` are left out: their dtype is the values' (real where
every eigenvalue is, docs/numpy.rst), and eval_shape's is always complex.

``KANTENSOR_DTYPE_SWEEP_EVERY`` sizes it: every k-th case runs (quick 5: 6,065 calls, about
5 s; long 1: all 30,324, of which NumPy runs 21,841; on main e53f9517 456 of those were
wrong, now none).
"""

from __future__ import annotations

import functools
import math
import operator
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import kantensor as kt
import sizing
from kantensor.types.protocol import NUMPY_OPS

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
EVERY = sizing.size("DTYPE_SWEEP_EVERY", 5, 1)
#: Functions whose dtype NumPy decides by the values (docs/numpy.rst says so).
BY_VALUES = {np.linalg.eig, np.linalg.eigvals}
Fn = Callable[[Any], Any]

#: Scalars beside an array: Python's (weak under NEP 50) and one of each NumPy dtype (strong).
SCALARS: list[tuple[str, Any]] = [("True", True), ("5", 5), ("2.5", 2.5), ("(1+2j)", 1 + 2j)] \
    + [(f"np.{d}(1)", np.dtype(d).type(1)) for d in DTYPES]

#: Arguments beyond ``x`` of the functions that need some.
_EXTRA: dict[str, list[Callable[[Any], tuple]]] = {
    "clip": [lambda x: (x, 1, 3)], "take": [lambda x: (x, [0])],
    "repeat": [lambda x: (x, 2)], "reshape": [lambda x: (x, -1)], "tile": [lambda x: (x, 2)],
    "pad": [lambda x: (x, 1)], "roll": [lambda x: (x, 1)], "full_like": [
        lambda x: (x, 1), lambda x: (x, 1.5)], "quantile": [lambda x: (x, 0.5)],
    "percentile": [lambda x: (x, 50)], "insert": [lambda x: (x, 0, 1)],
    "delete": [lambda x: (x, 0)], "append": [lambda x: (x, x)],
    "astype": [lambda x: (x, "float32")], "broadcast_to": [lambda x: (x, (3, 2, 2))],
    "expand_dims": [lambda x: (x, 0)], "moveaxis": [lambda x: (x, 0, 1)],
    "swapaxes": [lambda x: (x, 0, 1)], "rollaxis": [lambda x: (x, 1)],
    "split": [lambda x: (x, 2)], "array_split": [lambda x: (x, 2)],
    "tensordot": [lambda x: (x, x)], "einsum": [lambda x: ("ij,jk->ik", x, x)],
    "where": [lambda x: (x == x, x, x)], "take_along_axis": [
        lambda x: (x, np.zeros((2, 2), np.int64), 0)],
    "searchsorted": [lambda x: (x.ravel(), x)], "compress": [lambda x: ([True, False], x)],
    "left_shift": [lambda x: (x, 1)], "right_shift": [lambda x: (x, 1)],
    "power": [lambda x: (x, 2), lambda x: (x, 3)], "cumulative_sum": [lambda x: (x,),
                                                                       lambda x: (x.ravel(),)],
    "cumulative_prod": [lambda x: (x.ravel(),)],
}

_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "<": operator.lt, "==": operator.eq, ">=": operator.ge, "@": operator.matmul}
_UNARY: dict[str, Fn] = {"-x": operator.neg, "+x": operator.pos, "~x": operator.invert,
                         "abs(x)": abs}
#: ndarray methods called with no arguments.
_METHODS = ("sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "all",
            "any", "cumsum", "cumprod", "ravel", "flatten", "copy", "conj", "conjugate",
            "round", "transpose", "squeeze", "nonzero", "trace", "diagonal", "sort", "argsort")


def _name(f: Any) -> str:
    module = getattr(f, "__module__", None) or "numpy"
    return f"{module.replace('numpy.linalg._linalg', 'numpy.linalg')}.{f.__name__}"


def programs() -> Iterator[tuple[str, Fn]]:
    """``(name, fn)``: every call of the sweep (``fn`` takes the array ``x``)."""
    for f in sorted(set(NUMPY_OPS) - BY_VALUES, key=_name):
        name = _name(f)
        for make in [lambda x: (x,), lambda x: (x, x)] + _EXTRA.get(f.__name__, []):
            args = make(np.zeros((2, 2)))
            shown = ", ".join("x" if a is not None and isinstance(a, np.ndarray) else
                              repr(a) for a in args)
            yield f"{name}({shown})", lambda x, f=f, make=make: f(*make(x))
        if isinstance(f, np.ufunc) and f.nin == 2:
            for sn, s in SCALARS:
                yield f"{name}(x, {sn})", lambda x, f=f, s=s: f(x, s)
                yield f"{name}({sn}, x)", lambda x, f=f, s=s: f(s, x)
    for on, op in _OPERATORS.items():
        yield f"x {on} x", lambda x, op=op: op(x, x)
        for sn, s in SCALARS if on != "@" else ():
            yield f"x {on} {sn}", lambda x, op=op, s=s: op(x, s)
            yield f"{sn} {on} x", lambda x, op=op, s=s: op(s, x)
    yield from _UNARY.items()
    for m in _METHODS:
        yield f"x.{m}()", lambda x, m=m: getattr(x, m)()
    for mf in ("floor", "ceil", "trunc"):
        yield f"math.{mf}(x.sum())", lambda x, mf=mf: getattr(math, mf)(x.sum())
    yield "round(x.sum())", lambda x: round(x.sum())


def _outputs(value: Any) -> list | None:
    """The dtypes and shapes of a result: each array's, NumPy scalar's or Python number's
    (its type's name); None for what is no number (a shape, a dtype)."""
    items = list(value) if isinstance(value, tuple | list) else [value]
    out = []
    for v in items:
        if isinstance(v, np.ndarray | np.generic):
            out.append((v.dtype.name, v.shape))
        elif type(v) in (bool, int, float, complex):
            out.append((type(v).__name__, ()))
        elif hasattr(v, "_fields"):  # (a named tuple: eigh, svd, unique_all)
            sub = _outputs(tuple(v))
            if sub is None:
                return None
            out += sub
        else:
            return None
    return out


def numpy_result(fn: Fn, dtype: str) -> list | None:
    """NumPy's dtypes and shapes of ``fn`` on a 2x2 array of ``dtype`` (None: it raises,
    or gives no number)."""
    x = np.arange(1, 5).reshape(2, 2).astype(dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return _outputs(fn(x))
        except Exception:  # noqa: BLE001 - NumPy's refusal: not a case
            return None


#: The Python number a wrapped output of each dtype stands for.
_PYTHON = {"bool": "bool", "int64": "int", "float64": "float", "complex128": "complex"}


def _types(result: kt.ShapeResult) -> list:
    return [(_PYTHON[v.type.dtype] if v.wrapped else v.type.dtype, tuple(v.type.shape))
            for v in result.outputs]


def judge(name: str, fn: Fn, dtype: str) -> tuple[str, Any, Any] | None:
    """``(verdict, numpy's, eval_shape's)``: ``"wrong"`` where eval_shape's dtypes are not
    NumPy's, ``"refused"`` where it raises, ``"agrees"`` where they are; None where NumPy
    refuses (no case)."""
    want = numpy_result(fn, dtype)
    if want is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _types(kt.eval_shape(fn, f"{dtype}[2,2]"))
    except (TypeError, ValueError, OverflowError, NotImplementedError) as exc:
        return "refused", want, str(exc).splitlines()[-1][:120]
    if [d for d, _ in got] != [d for d, _ in want]:
        return "wrong", want, got
    return "agrees", want, got


@functools.cache
def cases() -> list[tuple[str, Fn, str]]:
    every = [(name, fn, d) for name, fn in programs() for d in DTYPES]
    return every[::EVERY]


def sweep() -> dict[str, list]:
    found: dict[str, list] = {"agrees": [], "wrong": [], "refused": [], "numpy refuses": []}
    for name, fn, dtype in cases():
        verdict = judge(name, fn, dtype)
        if verdict is None:
            found["numpy refuses"].append((name, dtype))
        else:
            found[verdict[0]].append((name, dtype, *verdict[1:]))
    return found


def test_every_dtype_eval_shape_gives_is_numpys() -> None:
    found = sweep()
    assert len(found["agrees"]) > len(cases()) // 2, "few cases ran"
    assert not found["wrong"], f"{len(found['wrong'])} wrong, e.g. {found['wrong'][:8]}"


#: Cases wrong before (main e53f9517), run at any size: NumPy's float loops by size,
#: NEP 50's Python int read as the array's dtype before the loop is picked, the Python int
#: of math.floor and round, ndarray.conj of a real array (itself).
NAMED = [*(("numpy.sqrt(x)", d) for d in ("bool", "int8", "uint8", "int16", "uint16")),
         ("numpy.arctan2(x, 5)", "int8"), ("numpy.hypot(x, np.uint8(1))", "int8"),
         ("numpy.logaddexp(np.int16(1), x)", "uint8"), ("math.floor(x.sum())", "float64"),
         ("math.ceil(x.sum())", "int8"), ("math.trunc(x.sum())", "float64"),
         ("round(x.sum())", "float32"), ("x.conj()", "bool"), ("x.conjugate()", "bool")]


@pytest.mark.parametrize(("name", "dtype"), NAMED)
def test_the_named_cases(name: str, dtype: str) -> None:
    fn = dict(programs())[name]
    assert judge(name, fn, dtype)[0] == "agrees"  # (None: NumPy refuses it)


if __name__ == "__main__":  # the counts, and every wrong case
    found = sweep()
    print({k: len(v) for k, v in found.items()})
    for w in found["wrong"]:
        print(w)


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_sweep_reaches_every_dtype(dtype: str) -> None:
    assert any(d == dtype for _, _, d in cases())

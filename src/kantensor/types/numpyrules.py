"""NumPy 2's dtype rules (NEP 50), and which rules are in force: kantensor's or NumPy's.

``eval_shape`` traces NumPy code inside :func:`numpy_rules`, so its promotions are
NumPy's (:func:`numpy_result_type_of`) and a float ufunc computes in the float NumPy's
loops pick (:func:`loop_float_of`: ``np.sqrt`` of int8 is float16); elsewhere they are
kantensor's (:mod:`kantensor.types.dtypes`: PyTorch's, ``torch.sqrt`` of int8 is the
default float). :func:`promoted` and :func:`loop_float` answer under the rules in force,
memoized per rules (:func:`rules_key`). See docs/promotion.rst, "NumPy's rules".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

import numpy as np

from .dtypes import (
    DTYPE_TABLE,
    FLOATING,
    STRING,
    Priority,
    combine_classes,
    default_dtype,
    float_of,
    get_default_dtype,
    is_inexact,
    is_lossless_cast,
    join_class,
    no_strings,
    normalize_dtype,
    pin_default,
    result_type_of,
    unpin_default,
)
from .dtypetable import BY_NAME, CATEGORY_OF

__all__ = ["loop_float", "loop_float_of", "numpy_loop_float", "numpy_result_type_of",
           "numpy_rules", "pin_rules", "promoted", "rules_key", "unpin_rules"]

#: Whether promotion follows NumPy 2 (NEP 50) in this thread or task: see :func:`numpy_rules`.
_context_numpy: ContextVar[bool] = ContextVar("kantensor_numpy_rules", default=False)


@contextmanager
def numpy_rules() -> Iterator[str]:
    """``with numpy_rules():`` dtypes follow NumPy 2 inside the block, in this thread or
    task only (as :func:`~kantensor.types.dtypes.default_dtype`): Python floats are float64
    and promotion is NEP 50's (:func:`numpy_result_type_of`). ``eval_shape`` traces NumPy
    code in it."""
    token = _context_numpy.set(True)
    try:
        with default_dtype("float64") as name:
            yield name
    finally:
        _context_numpy.reset(token)


def rules_key(default: str | None = None) -> str:
    """What a memo of inference results is keyed by besides its inputs: the default dtype
    (``default``, where the caller read it once), or ``"numpy"`` inside :func:`numpy_rules`
    (whose default is float64 too, but whose promotion is another)."""
    return "numpy" if _context_numpy.get() else default or get_default_dtype()


def pin_rules(key: str) -> Any:
    """Make the rules :func:`rules_key` gave ``key`` (a default dtype, or ``"numpy"``) the
    ones of this thread until :func:`unpin_rules`. Returns the token to give back."""
    numpy = key == "numpy"
    return _context_numpy.set(numpy), pin_default("float64" if numpy else key)


def unpin_rules(token: Any) -> None:
    _context_numpy.reset(token[0])
    unpin_default(token[1])


def numpy_result_type_of(operands: Iterable[tuple[Any, Priority]]) -> str:
    """The result dtype NumPy 2 gives (NEP 50) for ``(dtype, priority)`` operands: only
    Python numbers (``WRAPPED``) are weak; ``ZERO_DIM`` and ``TENSOR`` are one strong class
    promoted by NumPy's table (``np.result_type``: int32 + float32 is float64), which the
    weak class meets as kantensor's classes meet (:func:`~.dtypes.combine_classes`: NEP
    50's rule for Python numbers). Strong dtypes NumPy lacks (bfloat16, float8, ...)
    promote by :func:`~.dtypes.result_type_of`."""
    strong: list[str] = []
    weak: list[str] = []
    for dtype, p in operands:
        name = normalize_dtype(dtype)
        if CATEGORY_OF[name] is STRING:
            raise no_strings()
        (weak if Priority(p) is Priority.WRAPPED else strong).append(name)
    if not strong and not weak:
        raise TypeError("result_type needs at least one operand")
    if any(BY_NAME[d].package != "numpy" for d in strong):
        return result_type_of([(d, Priority.TENSOR) for d in strong] +
                              [(d, Priority.WRAPPED) for d in weak])
    result = combine_classes(np.result_type(*strong).name if strong else None,
                             join_class(weak))
    assert result is not None
    return result


#: NumPy's floats, narrowest first: the loops a float ufunc has for real inputs.
_NUMPY_FLOATS = sorted((d for d in DTYPE_TABLE if d.category is FLOATING and
                        d.package == "numpy"), key=lambda d: d.bits)


def numpy_loop_float(dtype: str) -> str:
    """The dtype NumPy's float ufuncs (``np.sqrt``, ``np.arctan2``, ...) compute one
    operand of a NumPy ``dtype`` in: itself if inexact, else the narrowest float it casts
    to safely (their first loop it fits: bool, int8 and uint8 float16; int16 and uint16
    float32; wider integers float64)."""
    if is_inexact(dtype):
        return dtype
    return next(f.name for f in _NUMPY_FLOATS if is_lossless_cast(dtype, f.name))


def loop_float_of(operands: Iterable[tuple[Any, Priority]], numpy: bool) -> str:
    """``loopfloat(T, ...)`` of the DSL: the dtype a float ufunc computes ``(dtype,
    priority)`` operands in. Kantensor's rules (``numpy`` False): ``float(promote(T,
    ...))``, PyTorch's (``torch.sqrt`` of int8 is the default float). NumPy's: each
    operand's loop float, promoted (:func:`numpy_loop_float`), where a Python number
    (weak) stands as the operands' promotion (NEP 50 resolves it before the loop is
    picked): ``np.arctan2`` of int8 and uint8 is float16, of an int8 array and ``5``
    float16, of an int8 array and ``2.5`` float64. A strong dtype NumPy lacks keeps
    kantensor's ``float`` of the promotion."""
    operands = [(normalize_dtype(d), Priority(p)) for d, p in operands]
    if not numpy:
        return float_of(result_type_of(operands))
    joint = numpy_result_type_of(operands)
    if any(BY_NAME[d].package != "numpy" for d, _ in operands):
        return float_of(joint)
    return np.result_type(*(numpy_loop_float(joint if p is Priority.WRAPPED else d)
                            for d, p in operands)).name


@lru_cache(maxsize=4096)
def _promoted(operands: tuple[tuple[str, Priority], ...], numpy: bool) -> str:
    return numpy_result_type_of(operands) if numpy else result_type_of(operands)


@lru_cache(maxsize=4096)
def _loop_float(operands: tuple[tuple[str, Priority], ...], rules: str) -> str:
    return loop_float_of(operands, rules == "numpy")


def promoted(operands: tuple[tuple[str, Priority], ...]) -> str:
    """:func:`~.dtypes.result_type_of` on a tuple of ``(dtype, priority)`` (NumPy's
    :func:`numpy_result_type_of` inside :func:`numpy_rules`), memoized: the one cache of
    promotion (the solver's constraints and make_node share it)."""
    return _promoted(operands, _context_numpy.get())


def loop_float(operands: tuple[tuple[str, Priority], ...]) -> str:
    """:func:`loop_float_of` under the rules in force, memoized by :func:`rules_key` (under
    kantensor's rules it is the default float of an integer: the default is the key)."""
    return _loop_float(operands, rules_key())

"""Dtype names, normalisation and PyTorch-style type promotion: every dtype fact.

Dtypes are NumPy name strings (:data:`DTYPES`); the table of their facts, one row a
dtype, is :mod:`kantensor.types.dtypetable` (its names are importable from here).
Promotion is PyTorch's ``result_type``: three priority classes (wrapped Python numbers <
0-dim tensors < tensors) each promoted alone, then combined by category; NumPy's rules
where PyTorch has none (uint16/32/64).
The low-precision dtypes (bfloat16, float8, float4, int4, int2: rows whose ``package`` is
``ml_dtypes``) type without ml_dtypes, run with it (the ``lowp`` extra); bfloat16
promotes as in PyTorch, the others only where every value survives (:func:`promote_types`).
What holds the values (each dtype's NumPy dtype) is :mod:`kantensor.types.numpy_dtypes`;
NumPy 2's promotion, and which rules are in force, is :mod:`kantensor.types.numpyrules`.
See docs/promotion.rst, docs/types.rst.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import IntEnum
from typing import Any

import numpy as np

from ..syntax.ast.names import CATEGORIES as CATEGORY_WORDS
from ..syntax.ast.names import DTYPE_NAMES as DTYPE_WORDS
from ..syntax.vocabulary import FLOAT, REAL, Word
from .dtypetable import (
    BOOL,
    CATEGORIES,
    COMPLEX,
    DEFAULT_RANGE,
    DTYPE_TABLE,
    DTYPES,
    FLOATING,
    INTEGER,
    NUMPY_STRING,
    STRING,
    Category,
    DTypeInfo,
)
from .dtypetable import BY_NAME as _INFO
from .dtypetable import CATEGORY_OF as _CATEGORY

__all__ = [
    "BOOL", "CATEGORIES", "COMPLEX", "COMPLEX_OF", "COMPUTED_AS", "Category", "DEFAULT_RANGE",
    "DTYPES", "DTYPE_FUNCTIONS", "DTYPE_TABLE", "DTypeInfo", "FLOATING", "INITIAL_DEFAULT",
    "INTEGER", "LINALG_AS_FLOAT", "LINALG_IN_FLOAT64", "NUMPY_STRING",
    "Priority", "PromotionError", "REAL_OF", "STRING", "category", "combine_classes",
    "default_complex_dtype", "default_dtype", "float_of", "get_default_dtype", "dtype_info",
    "integer_range", "is_inexact", "is_integer", "is_lossless_cast", "is_low_precision",
    "is_unsigned", "join_class", "no_strings", "normalize_dtype", "operand_dtype_and_priority",
    "pin_default", "priority", "promote_types", "python_dtype",
    "real_of", "result_type", "result_type_of", "set_default_dtype", "unpin_default",
]


class Priority(IntEnum):
    """Priority classes of operands; a higher value has a higher priority."""

    WRAPPED = 0   # a Python number used in an operation
    ZERO_DIM = 1  # a 0-dim tensor that is not a wrapped number
    TENSOR = 2    # a tensor with ndim >= 1


# The fold order of a promotion (highest first): PyTorch's dtypes in table order (bfloat16,
# inexact, last), the others below them, so they meet the widest of the others last.
_ORDER = {d.name: (d.torch, i) for i, d in enumerate(DTYPE_TABLE)}


class PromotionError(TypeError):
    """Two dtypes kantensor does not promote (a low-precision pair where a common dtype
    would lose values or the libraries disagree)."""


def is_low_precision(dtype: Any) -> bool:
    """True for the dtypes NumPy lacks (bfloat16, float8, float4, int4, int2)."""
    return _INFO[normalize_dtype(dtype)].package != "numpy"


#: ``numpy.linalg``'s LAPACK functions (``inv``, ``det``, ``solve``, ...) on tensors: the
#: dtypes NumPy computes as ``float(T)`` types them (float32, float64 and the complex ones
#: in their own precision; integers and bool in float64, kantensor's default float where
#: NumPy's is float64: docs/numpy.rst); float16 is in neither set (NumPy raises "array
#: type float16 is unsupported in linalg"), nor string.
LINALG_AS_FLOAT: tuple[str, ...] = tuple(
    d.name for d in DTYPE_TABLE if d.package == "numpy" and d.name != "float16"
    and d.category is not STRING)
#: The dtypes NumPy lacks (bfloat16, float8, float4, int4, int2): its linalg reads them as
#: no float (``_commonType``) and computes them in float64, its result's dtype.
LINALG_IN_FLOAT64: tuple[str, ...] = tuple(d.name for d in DTYPE_TABLE
                                           if d.package != "numpy")


# Floats and the complex dtype of the same precision; read both ways below.
_PRECISION_PAIRS = (("float32", "complex64"), ("float64", "complex128"))
#: ``real(T)``: the real dtype of a complex one's precision.
REAL_OF: dict[str, str] = {c: f for f, c in _PRECISION_PAIRS}
#: The complex dtype whose real part holds a float dtype (float16, bfloat16: complex64).
COMPLEX_OF: dict[str, str] = {"float16": "complex64", "bfloat16": "complex64",
                              **dict(_PRECISION_PAIRS)}
DEFAULT_CHOICES = ("float16", "float32", "float64")
INITIAL_DEFAULT = _global_default = "float32"  # a process's first; set_default_dtype: all
# default_dtype(...): the current thread / asyncio task only; None defers to the global one
_context_default: ContextVar[str | None] = ContextVar("kantensor_default_dtype", default=None)


def _unsupported(x: Any, detail: str = "") -> TypeError:
    return TypeError(f"unsupported dtype {x!r}{detail}; supported dtypes are: "
                     f"{', '.join(DTYPES)}")


def normalize_dtype(x: Any) -> str:
    """The name in :data:`DTYPES` of a dtype-like ``x``, or raise TypeError.

    Accepts names and NumPy aliases (``"f8"``, ``"double"``; strings follow NumPy, so
    ``"float"`` is float64), ``np.dtype``, NumPy scalar types, and the Python types
    ``bool`` / ``int`` (int64) / ``float`` (the default float dtype) / ``complex`` (the
    default complex dtype); NumPy's ``StringDType()`` is string.
    """
    if isinstance(x, str) and x in _CATEGORY:
        return x
    if x is bool:
        return "bool"
    if x is int:
        return "int64"
    if x is float:
        return get_default_dtype()
    if x is complex:
        return default_complex_dtype()
    if not isinstance(x, str | np.dtype | type):
        raise _unsupported(x)
    try:
        dt = np.dtype(x)
    except (TypeError, ValueError) as exc:
        raise _unsupported(x) from exc
    if dt == NUMPY_STRING:
        return "string"
    name = dt.name
    if name not in _CATEGORY:
        raise _unsupported(x, f" (NumPy dtype {name!r})")
    return name


def category(dtype: Any) -> Category:
    """The :class:`Category` of ``dtype``."""
    return _CATEGORY[normalize_dtype(dtype)]


def is_integer(dtype: Any) -> bool:
    """True for signed and unsigned integer dtypes (not bool)."""
    return category(dtype) is INTEGER


def is_unsigned(dtype: Any) -> bool:
    """True for the unsigned integer dtypes (not bool)."""
    info = _INFO[normalize_dtype(dtype)]
    return info.category is INTEGER and not info.signed


def integer_range(dtype: Any) -> tuple[int, int]:
    """``(min, max)`` of an integer dtype (read from its bits, so int4 needs no
    ml_dtypes)."""
    info = _INFO[normalize_dtype(dtype)]
    if info.category is not INTEGER:
        raise TypeError(f"{info.name} is not an integer dtype")
    return (-(1 << info.bits - 1), (1 << info.bits - 1) - 1) if info.signed else \
        (0, (1 << info.bits) - 1)


def is_inexact(dtype: Any) -> bool:
    """True for floating and complex dtypes."""
    return category(dtype) >= FLOATING


def dtype_info(dtype: Any) -> DTypeInfo:
    """The row of ``dtype`` in :data:`DTYPE_TABLE`: all its facts (``.infinity``, ...)."""
    return _INFO[normalize_dtype(dtype)]


def _holds(wide: DTypeInfo, low: DTypeInfo) -> bool:
    """Whether NumPy's ``wide`` holds every value of the low-precision ``low`` (floats:
    single precision or more, complex; small integers: an integer of their range, any
    inexact dtype)."""
    if wide.category is COMPLEX or (wide.category is FLOATING and wide.bits >= 32):
        return True
    if low.category is INTEGER:
        return wide.category is FLOATING or (
            wide.category is INTEGER and wide.bits > low.bits and (wide.signed or not low.signed))
    return False


#: What values of a dtype are computed in: the narrowest NumPy integer for a low-precision
#: integer (NumPy with ml_dtypes sums int4 in int4, so 15+15+15 is 13), else itself.
COMPUTED_AS: dict[str, str] = {d.name: d.name if d.package == "numpy" or d.category is not
                               INTEGER else min((w for w in DTYPE_TABLE if w.package == "numpy"
                                                 and w.category is INTEGER and _holds(w, d)),
                                                key=lambda w: (w.bits, w.signed != d.signed)).name
                               for d in DTYPE_TABLE}


def _promote_rule(a: str, b: str) -> str | None:
    low = [d for d in (_INFO[a], _INFO[b]) if not d.torch]
    if low:  # a dtype PyTorch does not promote: with itself, or a NumPy dtype holding it
        if a == b:
            return a
        wide = _INFO[b] if low[0] is _INFO[a] else _INFO[a]
        return wide.name if len(low) == 1 and wide.package == "numpy" and \
            _holds(wide, low[0]) else None
    ca, cb = _CATEGORY[a], _CATEGORY[b]
    if "bfloat16" in (a, b) and ca == cb:  # PyTorch: beside float16, below float32
        return "float32" if "float16" in (a, b) else b if a == "bfloat16" else a
    if ca == cb or min(ca, cb) >= FLOATING:
        # Same category (NumPy's integer rules: uint64 + signed -> float64) or float+complex
        # (the complex whose real part holds both: float64 + complex64 -> complex128;
        # bfloat16 + complex64 -> complex64).
        return np.promote_types(*(COMPLEX_OF.get(d, d) if d == "bfloat16" else d
                                  for d in (a, b))).name
    return a if ca > cb else b  # the higher category wins, whatever the sizes


def _lossless_rule(a: str, b: str) -> bool:
    if _INFO[a].package == _INFO[b].package == "numpy":
        return bool(np.can_cast(a, b, "safe"))
    if b == "bfloat16":  # 8 significant bits: bool, the 8-bit integers and itself
        return a in ("bool", "int8", "uint8", "bfloat16")
    return a == b or _INFO[b].package == "numpy" and _holds(_INFO[b], _INFO[a])


#: The promotion of every pair that has one (a missing pair is refused; string has none).
_PROMOTE: dict[tuple[str, str], str] = {
    (a, b): r for a in DEFAULT_RANGE for b in DEFAULT_RANGE
    if (r := _promote_rule(a, b)) is not None}
#: ``(a, b)``: every value of ``a`` is one of ``b`` (NumPy's "safe" cast; a low-precision
#: dtype casts losslessly only to the NumPy dtypes that hold it; a string only to itself).
_LOSSLESS = frozenset([(a, b) for a in DEFAULT_RANGE for b in DEFAULT_RANGE
                       if _lossless_rule(a, b)] + [(t, t) for t in CATEGORIES["string"]])


def _pair(a: str, b: str) -> str:
    try:
        return _PROMOTE[a, b]
    except KeyError:
        if STRING in (_CATEGORY[a], _CATEGORY[b]):
            raise no_strings() from None
        raise PromotionError(
            f"kantensor does not promote {a} with {b}: a low-precision dtype promotes only "
            f"with itself and with a NumPy dtype that holds all its values; cast one "
            f"operand first") from None


def no_strings() -> PromotionError:
    return PromotionError("kantensor does not promote string: strings have no arithmetic "
                          "(they are typed only where a signature says T in string)")


def promote_types(a: Any, b: Any) -> str:
    """The smallest dtype both ``a`` and ``b`` promote to (commutative, PyTorch's lattice,
    bfloat16 included, extended by NumPy's integer rules). A low-precision dtype PyTorch
    does not promote (float8, float4, int4, int2) promotes with itself and the NumPy
    dtypes that hold it (int4 + int8 -> int8); PromotionError (a TypeError) otherwise."""
    return _pair(normalize_dtype(a), normalize_dtype(b))


def get_default_dtype() -> str:
    """The dtype Python floats take: the innermost :func:`default_dtype` block's, else the
    process-wide one (``"float32"`` unless :func:`set_default_dtype` changed it)."""
    local = _context_default.get()
    return _global_default if local is None else local


def _default_choice(dtype: Any) -> str:
    name = normalize_dtype(dtype)
    if name not in DEFAULT_CHOICES:
        raise TypeError(f"the default dtype must be one of {', '.join(DEFAULT_CHOICES)}, "
                        f"got {dtype!r}")
    return name


def set_default_dtype(dtype: Any) -> None:
    """Set the default float dtype (float16, float32 or float64) for the whole process:
    every thread and task sees it, except inside a :func:`default_dtype` block. Prefer
    ``with default_dtype(...)`` in libraries and threaded code."""
    global _global_default
    _global_default = _default_choice(dtype)


@contextmanager
def default_dtype(dtype: Any) -> Iterator[str]:
    """``with default_dtype("float64"):`` Python floats take ``dtype`` inside the block,
    in this thread or asyncio task only (a :class:`contextvars.ContextVar`); the previous
    default comes back on exit, also on an exception. Yields the dtype name."""
    token = _context_default.set(_default_choice(dtype))
    try:
        yield _context_default.get()
    finally:
        _context_default.reset(token)


def pin_default(dtype: str) -> Any:
    """Make ``dtype`` (a valid default, read once by the caller) the default in this thread
    until :func:`unpin_default`: one build reads the default once, whatever other threads
    do meanwhile. Returns the token to give back."""
    return _context_default.set(dtype)


def unpin_default(token: Any) -> None:
    _context_default.reset(token)


def default_complex_dtype() -> str:
    """The dtype Python complex numbers take: complex128 if the default is float64."""
    return COMPLEX_OF[get_default_dtype()]


def priority(ndim: int, wrapped: bool) -> Priority:
    """The promotion priority of an operand (§3): the one classifier every caller uses."""
    if wrapped:
        return Priority.WRAPPED
    return Priority.TENSOR if ndim else Priority.ZERO_DIM


def python_dtype(value: Any) -> str:
    """The dtype a Python number takes when it is wrapped (bool, int64, default float or
    complex); TypeError for anything else."""
    for python_type in (bool, int, float, complex):
        if isinstance(value, python_type):
            return normalize_dtype(python_type)
    raise TypeError(f"not a Python number: {type(value).__name__} {value!r}")


def float_of(dtype: str) -> str:
    """``float(T)``: T if it is inexact, else the default float dtype."""
    return dtype if _CATEGORY[dtype] >= FLOATING else get_default_dtype()


def real_of(dtype: str) -> str:
    """``real(T)``: the real dtype of a complex T's precision, else T itself."""
    return REAL_OF.get(dtype, dtype)


#: The one-argument dtype functions of the signature DSL, by their vocabulary row.
DTYPE_FUNCTIONS: dict[Word, Callable[[str], str]] = {FLOAT: float_of, REAL: real_of}


def join_class(dtypes: list[str]) -> str | None:
    """The promotion of one priority class's dtypes (None for none)."""
    # Folded highest dtype first, so integers meeting an inexact dtype are absorbed by it as
    # PyTorch does: the result never depends on operand order, although promote_types is
    # not associative (uint64 + int8 -> float64, but uint64 + float16 -> float16).
    result: str | None = None
    for d in sorted(dtypes, key=_ORDER.__getitem__, reverse=True):
        result = d if result is None else _pair(result, d)
    return result


def combine_classes(higher: str | None, lower: str | None) -> str | None:
    """PyTorch's ``combine_categories``: the result of a class and a lower-priority one."""
    ch = _CATEGORY[higher] if higher is not None else None
    cl = _CATEGORY[lower] if lower is not None else None
    if ch is COMPLEX:
        return higher
    if cl is COMPLEX:
        if ch is FLOATING and higher not in COMPLEX_OF:  # no complex of bfloat16 or float8
            raise PromotionError(f"kantensor does not promote {higher} with a lower-priority "
                                 f"{lower}: there is no complex dtype of {higher}")
        return COMPLEX_OF[higher] if ch is FLOATING else lower
    if ch is FLOATING:
        return higher
    if (ch is BOOL or cl is FLOATING) and higher is not None and lower is not None:
        return _pair(higher, lower)
    return higher if higher is not None else lower


def result_type_of(operands: Iterable[tuple[Any, Priority]]) -> str:
    """The result dtype of an operation on ``(dtype, priority)`` operands.

    All operands are bucketed by priority at once (the rule is not associative, so never
    fold it pairwise), each class is promoted on its own, and the classes are combined from
    the lowest priority upward as PyTorch's ``combine_categories`` does. PromotionError
    for operands that have no promotion (see :func:`promote_types`).
    """
    buckets: dict[Priority, list[str]] = {p: [] for p in Priority}
    for dtype, priority in operands:
        name = normalize_dtype(dtype)
        if _CATEGORY[name] is STRING:
            raise no_strings()
        buckets[Priority(priority)].append(name)
    if not any(buckets.values()):
        raise TypeError("result_type needs at least one operand")
    wrapped, zero_dim, tensor = (join_class(buckets[p]) for p in Priority)
    result = combine_classes(tensor, combine_classes(zero_dim, wrapped))
    assert result is not None
    return result


def operand_dtype_and_priority(x: Any) -> tuple[str, Priority]:
    """Classify one operand of :func:`result_type`.

    Dtype-likes (names, ``np.dtype``, types) count as tensors; graph Variables (with a
    ``.type``) are WRAPPED if their ``.wrapped`` is true; anything with ``.dtype`` and
    ``.ndim`` (TensorTypes, arrays, NumPy scalars) is TENSOR or ZERO_DIM by its ndim;
    Python numbers are WRAPPED with the dtype they take (int -> int64, float -> default).
    """
    if isinstance(x, str | np.dtype | type):
        return normalize_dtype(x), Priority.TENSOR
    ttype = getattr(x, "type", None)
    if hasattr(ttype, "dtype") and hasattr(ttype, "ndim"):
        return normalize_dtype(ttype.dtype), priority(ttype.ndim, getattr(x, "wrapped", False))
    if hasattr(x, "dtype") and hasattr(x, "ndim"):
        return normalize_dtype(x.dtype), priority(x.ndim, False)
    if isinstance(x, bool | int | float | complex):
        return python_dtype(x), Priority.WRAPPED
    raise TypeError(f"cannot take the dtype of {type(x).__name__} object {x!r}")


def result_type(*operands: Any) -> str:
    """The result dtype of an operation on ``operands`` (see
    :func:`operand_dtype_and_priority` for what they may be)."""
    return result_type_of(map(operand_dtype_and_priority, operands))


def is_lossless_cast(from_: Any, to: Any) -> bool:
    """True if every value of ``from_`` is exactly representable in ``to`` ("safe"; a
    table, so it needs no ml_dtypes)."""
    return (normalize_dtype(from_), normalize_dtype(to)) in _LOSSLESS


# The DSL reads dtype and category names as words; they are defined here, with the rest.
DTYPE_WORDS.define(DTYPES)
CATEGORY_WORDS.define(CATEGORIES)

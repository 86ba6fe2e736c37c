"""The table of supported dtypes: each dtype's facts in one row (:class:`DTypeInfo`:
name, category, signedness, bits, the package of its NumPy scalar type, infinities and
NaN, whether PyTorch promotes it), the sets and maps read from it alone (the names, what
a dtype variable ranges over, the categories of ``T in floating``), and NumPy's dtype of
string values. Names, categories and signedness are read here, never from a name's
spelling.

What the rows mean for normalisation, promotion and the default dtype is
:mod:`kantensor.types.dtypes`, which names all of this too (import from there)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum

import numpy as np


class Category(IntEnum):
    """Kinds of dtype, ordered: a higher category wins over a lower one. STRING stands
    outside that order (below the others only so that no ``>=`` test of the numeric
    kinds takes it): a string promotes with nothing."""

    STRING = -1
    BOOL = 0
    INTEGER = 1
    FLOATING = 2
    COMPLEX = 3


BOOL, INTEGER, FLOATING, COMPLEX, STRING = (
    Category.BOOL, Category.INTEGER, Category.FLOATING, Category.COMPLEX, Category.STRING)


@dataclass(frozen=True)
class DTypeInfo:
    """The facts of one supported dtype: its category, whether it is signed, its bits,
    the package whose attribute ``name`` is its NumPy scalar type (``numpy``, or
    ``ml_dtypes`` for the dtypes NumPy lacks), whether it holds the infinities and NaN
    (float8_e4m3fn has no infinity), whether PyTorch's promotion table has it, whether
    NumPy reduces it into an ``out=`` as into a new array (tests/test_backend_plan_ops),
    whether onnxruntime's SAME MaxPool kernel for it refuses a negative total pad (MLAS's:
    tests/test_onnx_window_refusals.py)."""

    name: str
    category: Category
    signed: bool
    bits: int
    package: str = "numpy"
    infinity: bool = False
    nan: bool = False
    torch: bool = True
    reduces_into: bool = False
    same_pad_refused: bool = False


#: Every supported dtype, in promotion order within each category (the one table: names,
#: categories and signedness are read here, never from a name's spelling).
DTYPE_TABLE: tuple[DTypeInfo, ...] = (
    DTypeInfo("bool", BOOL, False, 8),
    DTypeInfo("int8", INTEGER, True, 8),
    DTypeInfo("int16", INTEGER, True, 16),
    DTypeInfo("int32", INTEGER, True, 32),
    DTypeInfo("int64", INTEGER, True, 64),
    DTypeInfo("uint8", INTEGER, False, 8),
    DTypeInfo("uint16", INTEGER, False, 16),
    DTypeInfo("uint32", INTEGER, False, 32),
    DTypeInfo("uint64", INTEGER, False, 64),
    DTypeInfo("float16", FLOATING, True, 16, infinity=True, nan=True, same_pad_refused=True),
    DTypeInfo("float32", FLOATING, True, 32, infinity=True, nan=True, reduces_into=True,
              same_pad_refused=True),
    DTypeInfo("float64", FLOATING, True, 64, infinity=True, nan=True, reduces_into=True),
    DTypeInfo("complex64", COMPLEX, True, 64, infinity=True, nan=True),
    DTypeInfo("complex128", COMPLEX, True, 128, infinity=True, nan=True),
    # Low-precision dtypes NumPy lacks (ml_dtypes gives them: the lowp extra); every value
    # of a floating one is a float32 (tests/test_dtypes_lowp.py checks each bit pattern).
    DTypeInfo("bfloat16", FLOATING, True, 16, "ml_dtypes", infinity=True, nan=True),
    DTypeInfo("float8_e4m3fn", FLOATING, True, 8, "ml_dtypes", nan=True, torch=False),
    DTypeInfo("float8_e4m3fnuz", FLOATING, True, 8, "ml_dtypes", nan=True, torch=False),
    DTypeInfo("float8_e5m2", FLOATING, True, 8, "ml_dtypes", infinity=True, nan=True,
              torch=False),
    DTypeInfo("float8_e5m2fnuz", FLOATING, True, 8, "ml_dtypes", nan=True, torch=False),
    DTypeInfo("float8_e8m0fnu", FLOATING, False, 8, "ml_dtypes", nan=True, torch=False),
    DTypeInfo("float4_e2m1fn", FLOATING, True, 4, "ml_dtypes", torch=False),
    DTypeInfo("int4", INTEGER, True, 4, "ml_dtypes", torch=False),
    DTypeInfo("uint4", INTEGER, False, 4, "ml_dtypes", torch=False),
    DTypeInfo("int2", INTEGER, True, 2, "ml_dtypes", torch=False),
    DTypeInfo("uint2", INTEGER, False, 2, "ml_dtypes", torch=False),
    # Text (ONNX's STRING): no fixed width; values are NumPy's StringDType (NUMPY_STRING).
    # No arithmetic and no promotion; a dtype variable takes it only where a where-clause
    # says ``T in string`` (DEFAULT_RANGE).
    DTypeInfo("string", STRING, False, 0, torch=False),
)
#: Each dtype's row, by name.
BY_NAME: dict[str, DTypeInfo] = {d.name: d for d in DTYPE_TABLE}
DTYPES: tuple[str, ...] = tuple(BY_NAME)
#: What a dtype variable ranges over unless a where-clause names its category: every
#: dtype but string (bool and the numbers). An input dtype outside it is refused.
DEFAULT_RANGE: tuple[str, ...] = tuple(d.name for d in DTYPE_TABLE if d.category is not STRING)
#: The NumPy dtype of string values: NumPy 2's variable-width UTF-8 ``StringDType``.
NUMPY_STRING: np.dtype = np.dtypes.StringDType()
#: Each dtype's category, by name.
CATEGORY_OF: dict[str, Category] = {d.name: d.category for d in DTYPE_TABLE}


def _where(test: Callable[[DTypeInfo], bool]) -> frozenset[str]:
    return frozenset(d.name for d in DTYPE_TABLE if test(d))


#: The dtype categories usable in signatures (``T in floating``), as sets of dtype names.
CATEGORIES: dict[str, frozenset[str]] = {
    "bool": _where(lambda d: d.category is BOOL),
    "integer": _where(lambda d: d.category is INTEGER),
    "signed": _where(lambda d: d.category is INTEGER and d.signed),
    "unsigned": _where(lambda d: d.category is INTEGER and not d.signed),
    "floating": _where(lambda d: d.category is FLOATING),
    "complex": _where(lambda d: d.category is COMPLEX),
    "inexact": _where(lambda d: d.category in (FLOATING, COMPLEX)),
    "number": _where(lambda d: d.category in (INTEGER, FLOATING, COMPLEX)),
    "string": _where(lambda d: d.category is STRING),
}

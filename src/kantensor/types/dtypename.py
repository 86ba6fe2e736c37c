"""A tensor's dtype as its code reads it: ``x.dtype``, a name that compares as NumPy's.

:attr:`TensorVariable.dtype <kantensor.TensorVariable.dtype>` is the name of the dtype
(``"float32"``), as ``TensorType.dtype`` is, so that it prints, hashes and looks up like
the string. NumPy code compares a dtype with NumPy's types and aliases (``x.dtype ==
np.float32``, ``x.dtype == "f4"``, ``x.dtype != np.float64``) and reads its attributes
(``x.dtype.itemsize``, ``x.dtype.kind``, ``x.dtype.name``); a plain string answers the
first False and has none of the second, so code that branches on a dtype took the
other branch (a wrong type in ``eval_shape``). :class:`DtypeName` is the string, which
also compares and reads as ``np.dtype`` of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The attributes of ``np.dtype`` a :class:`DtypeName` answers as NumPy's dtype of it
#: (not ``type``: during ``eval_shape`` the traced code's ``np.float32`` is a wrapped
#: class, so ``x.dtype.type is np.float32`` would be False; it stays refused).
DTYPE_ATTRIBUTES = frozenset({
    "name", "kind", "itemsize", "char", "num", "str", "byteorder", "alignment", "descr",
    "isnative", "isbuiltin"})


def _numpy_dtype(x: Any) -> np.dtype | None:
    """``np.dtype(x)``, or None where NumPy has no dtype for ``x`` (or ``x`` is None,
    which NumPy's dtype comparison never equals)."""
    if x is None:
        return None
    try:
        return np.dtype(x)
    except (TypeError, ValueError):
        return None


class DtypeName(str):
    """The name of a dtype (a ``str``) that is also equal to what NumPy's dtype of that
    name is equal to: NumPy's scalar types, ``np.dtype`` objects, aliases (``"f4"``) and
    Python's types as NumPy reads them (``float`` is float64)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str) and str.__eq__(self, other):
            return True
        if not isinstance(other, str | type | np.dtype):
            return False
        mine, theirs = _numpy_dtype(str(self)), _numpy_dtype(other)
        return mine is not None and theirs is not None and mine == theirs

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__

    def __getattr__(self, name: str) -> Any:
        if name in DTYPE_ATTRIBUTES:
            dtype = _numpy_dtype(str(self))
            if dtype is not None:
                return getattr(dtype, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")


_NAMES: dict[str, DtypeName] = {}


def dtype_name(name: str) -> DtypeName:
    """The :class:`DtypeName` of the dtype name ``name`` (one object per name)."""
    found = _NAMES.get(name)
    if found is None:
        found = _NAMES[name] = DtypeName(name)
    return found

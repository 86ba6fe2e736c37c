"""Sizes made into NumPy numbers of a given dtype: ``np.int64(n)``, ``np.float32(d)``,
``np.array(len(x), dtype=np.int8)``.

In NumPy code a size is a Python int, and NumPy 2 makes a Python int into an integer
dtype only where it fits (``np.int8(200)`` and ``np.array(200, dtype=np.uint8)`` raise
OverflowError), while a cast of an array (``np.asarray(n).astype(np.int8)``) wraps
silently. So the value made here is the size's number cast to the dtype (the
``size_number`` Op, then ``cast``), tagged with the sizes that were Python ints
(:data:`PYTHON_INTS`), and :func:`fit_conditions` says what the sizes need to fit the
dtype (:func:`kantensor.ops.pyints.size_conditions`, the one home of that fact), for
``eval_shape``'s assumptions, as a division by a size is read from its node
(:func:`.located.divisors`). The scalar types (:data:`SCALAR_TYPES`) are wrapped classes
(:func:`.patches.wrap_class`), so ``dtype=np.float32`` and ``isinstance`` keep their
meaning; a NumPy number is a 0-d tensor here (see docs/numpy.rst's differences).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Apply, Variable
from ..ops.pyints import size_conditions
from ..types.conditions import Condition, Source
from ..types.dim import Dim
from ..types.dtypes import DTYPES, is_integer
from ..types.sizenum import Ratio, size_tensor

#: The tag of a value made of sizes that NumPy takes as Python ints: (dtype, sizes).
PYTHON_INTS = "python_ints"
#: The tag of a NumPy number (or 0-d array) made of sizes: not a Python int, so no
#: "Python int of sizes" check applies to what is computed with it (.pyintfits).
NUMPY_NUMBER = "numpy_number"


def numpy_number(v: Variable) -> bool:
    """Whether ``v`` is a NumPy number made of sizes here (``np.int64(n)``)."""
    return bool(v._tag) and NUMPY_NUMBER in v.tag


def sizes_in(obj: Any) -> list[Dim]:
    """The sizes (Dims) in ``obj``, a size or nested lists and tuples of them."""
    if isinstance(obj, Dim):
        return [obj]
    if isinstance(obj, list | tuple):
        return [d for v in obj for d in sizes_in(v)]
    return []


def tag_python_ints(out: Variable, obj: Any, dtype: str) -> Variable:
    """``out`` (NumPy's array of ``obj`` in ``dtype``), tagged with the sizes of ``obj``
    that NumPy would make into ``dtype`` as Python ints, where ``dtype`` is an integer."""
    sizes = sizes_in(obj)
    if sizes:
        out.tag[NUMPY_NUMBER] = True
    if sizes and is_integer(dtype):
        out.tag[PYTHON_INTS] = (dtype, tuple(sizes))
    return out


def fit_conditions(node: Apply) -> list[Condition]:
    """What the sizes of a value :func:`tag_python_ints` tagged need to fit its dtype
    (NumPy 2 raises OverflowError where they do not)."""
    out = []
    for v in node.outputs:
        found = v.tag.get(PYTHON_INTS) if v._tag else None
        if found is None:
            continue
        dtype, sizes = found
        for c in size_conditions([size_tensor(d) for d in sizes], dtype):
            out.append(Condition(c.left, c.op, c.right, Source(
                op="array", detail=f"the Python int {c.left} is made a NumPy {dtype}")))
    return out


def _scalar(kind: type) -> Callable[..., Any]:
    dtype = np.dtype(kind).name

    def traced(value: Any = 0, *rest: Any, **kw: Any) -> Any:
        if rest or kw or not isinstance(value, Dim | Ratio):
            return NotImplemented
        if isinstance(value, Ratio) and is_integer(dtype):
            return NotImplemented  # (a float made an int: NumPy truncates; refused)
        out = size_tensor(value).astype(dtype)
        return tag_python_ints(out, value, dtype)
    return traced


#: NumPy's abstract scalar types (no dtype of their own).
_ABSTRACT = (np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact,
             np.floating)


def _scalar_types() -> dict[str, Callable[..., Any]]:
    """Every name of ``numpy`` that is a scalar type of an integer or floating dtype of
    the dtype table (aliases too: ``np.double``, ``np.intp``), with its traced call."""
    out = {}
    for name in np.sctypeDict:  # (not dir(np): its lazy attributes import submodules)
        kind = vars(np).get(name) if isinstance(name, str) else None
        if isinstance(kind, type) and issubclass(kind, np.integer | np.floating) \
                and kind not in _ABSTRACT and np.dtype(kind).name in DTYPES:
            out[name] = _scalar(kind)
    return out


#: NumPy's scalar types that the traced code may call on a size, by name.
SCALAR_TYPES: dict[str, Callable[..., Any]] = _scalar_types()

"""Float values of sizes while a model is read. TorchScript exports ``a // b`` of sizes as
``Cast(to=FLOAT)``, ``Div``, ``Floor`` (``Ceil`` for a ceiling division), ``Cast(to=INT64)``;
this is what makes such a value exact, and no more.

A float holds every integer below ``2**p`` exactly (``p``, its precision: 11 bits for
float16, 24 for float32, 53 for float64), and no float arithmetic on such integers is
exact in general beyond that. So:

* a size cast to a float stays the same size (a Dim in a float value) under the
  condition ``|size| < 2**p``, which the facts decide or the node states as a choice:
  beyond it the value is the float's rounding, which is not folded (a contract counts
  those sizes as not covered, never as invalid);
* a float quotient of two such integers ``a / b`` (``b`` an int, not 0) is a
  :class:`Quotient`; since ``|a| < 2**p`` and ``|b| >= 1``, the rounded quotient lies on
  the same side of every integer as ``a / b`` (the nearest integer other than ``a / b``
  itself is ``1/|b|`` away, the rounding error below ``|a / b| * 2**-p < 1/|b|``), so
  its floor, ceiling and truncation (a cast to an integer) are those of ``a / b``;
* Floor, Ceil and Round of an integer are the integer; a Quotient takes part in
  nothing else (its Round, its sum, a comparison: not folded).

A float value of sizes is an object array of ints (each ``< 2**p`` in magnitude), Dims,
Quotients and None (unknown); only the kernels marked :func:`float_sizes` make one
(:func:`.values.computed` declines the others), and a builder reading a float parameter
never sees one (:func:`.values.as_param`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..types.conditions import Condition, Source
from ..types.dim import dim_max
from .shared import FOLD_FACTS, FOLD_NEEDS, Quotient

__all__ = ["Quotient", "entrywise", "exact_entry", "float_sizes", "is_float_sizes", "number",
           "precision", "quotient", "rounded"]


def entrywise(f: Any, *arrays: np.ndarray) -> np.ndarray:
    """``f`` of the entries of ``arrays`` (broadcast), as an object array."""
    parts = np.broadcast_arrays(*(np.asarray(a, dtype=object) for a in arrays))
    out = np.empty(parts[0].shape, dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = f(*(p[index] for p in parts))
    return out


def float_sizes(kernel: Any) -> Any:
    """Mark ``kernel`` as one that computes a float value of sizes exactly (a cast, the
    quotient, Floor/Ceil/Round, a selection: Identity, Concat, Gather, a Max, ...)."""
    kernel.float_sizes = True
    return kernel


def is_float_sizes(kernel: Any) -> bool:
    return getattr(kernel, "float_sizes", False)


def precision(dtype: Any) -> int | None:
    """The bits of ``dtype``'s significand (float32: 24), or None for a dtype NumPy does
    not describe (bfloat16, the float8s: not folded)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return None
    return np.finfo(dt).nmant + 1 if dt.kind == "f" else None


def exact_entry(v: Any, dtype: str, op: str) -> Any:
    """``v`` (an int, a Dim, None) as an entry of a float value of ``dtype``: an int
    exactly held (ValueError beyond ``2**p``: not folded), a Dim under the condition
    ``|v| < 2**p`` (decided by the facts, else recorded as ``op``'s choice)."""
    p = precision(dtype)
    if p is None:
        raise ValueError(f"a size in {dtype} is not folded")
    if v is None:
        return None
    limit = 1 << p
    if isinstance(v, int | np.integer):
        if not -limit < int(v) < limit:
            raise ValueError(f"{int(v)} in {dtype} is rounded")
        return int(v)
    facts = FOLD_FACTS.get()
    for side, bound in (("<", limit), (">", -limit)):
        if facts.decide((v, side, bound)) is not True:
            FOLD_NEEDS.get().append(Condition(v, side, bound, Source(
                op=op, detail=f"{v} is held exactly in {dtype} (below 2**{p})",
                otherwise=f"{v} rounded to {dtype}: a value not folded")))
    return v


def number(v: Any, dtype: str) -> Any:
    """An entry of a float value of sizes (an int, a Dim, a Quotient, None), or an
    integral float (from a constant) as an exactly held int; ValueError for any other
    float (not folded)."""
    if isinstance(v, np.floating | float):
        if not math.isfinite(v) or v != int(v):
            raise ValueError(f"{v} is not a size")
        return exact_entry(int(v), dtype, "")
    return v


def quotient(a: Any, b: Any, dtype: str) -> Any:
    """``a / b`` in a float value of sizes of ``dtype`` (see the module's doc): an int
    or a Dim where it is one, else a :class:`Quotient`; ValueError where the divisor is
    not a nonzero int, or the dividend a Quotient (not folded)."""
    a, b = number(a, dtype), number(b, dtype)
    if a is None or b is None:
        return None
    if not isinstance(b, int) or b == 0 or isinstance(a, Quotient):
        raise ValueError(f"a float quotient {a} / {b} of sizes is not folded")
    if b < 0:
        a, b = -a, -b
    if b == 1:
        return a
    if isinstance(a, int) and a % b == 0:
        return a // b
    return Quotient(a, b)


def rounded(v: Any, how: str) -> Any:
    """An entry of a float value of sizes rounded ``how`` (``floor``, ``ceil``,
    ``trunc``: a cast to an integer; ``round``: half to even): an integer is itself;
    a Quotient's floor, ceiling or truncation is that of its exact value (see the
    module's doc); its rounding to nearest is not folded (ValueError)."""
    if not isinstance(v, Quotient):
        return v
    a, b = v.a, v.b
    if how == "floor":
        return a // b
    if how == "ceil":
        return -((-a) // b)
    if how == "trunc":  # toward zero: the floor of |a| / b, signed
        facts = FOLD_FACTS.get()
        if isinstance(a, int) or facts.decide((a, ">=", 0)) is True:
            return a // b if not isinstance(a, int) or a >= 0 else -((-a) // b)
        if facts.decide((a, "<=", 0)) is True:
            return -((-a) // b)
        return dim_max(a, 0) // b - dim_max(-a, 0) // b
    raise ValueError(f"{how} of {v} is not folded")

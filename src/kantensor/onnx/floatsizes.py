"""Float values of sizes while a model is read. TorchScript exports ``a // b`` of sizes as
``Cast(to=FLOAT)``, ``Div``, ``Floor`` (``Ceil`` for a ceiling division), ``Cast(to=INT64)``;
this is what makes such a value exact, and no more.

A float holds every integer below ``2**p`` exactly (``p``, its precision: 11 bits for
float16, 24 for float32, 53 for float64), and no float arithmetic on such integers is
exact in general beyond that. So an entry of a float value of sizes is a
:class:`~.shared.FloatSize`: the exact value ``a / b`` with what it needs, the sizes
that must be below ``2**p`` for the float to hold it:

* a size cast to a float is the same size, needing ``|size| < 2**p``;
* its quotient by a nonzero integer ``b`` is kept exact: since ``|a| < 2**p`` and
  ``|b| >= 1``, the rounded quotient lies on the same side of every integer as ``a / b``
  (the nearest integer other than ``a / b`` itself is ``1/|b|`` away, the rounding error
  below ``|a / b| * 2**-p < 1/|b|``), so its floor, ceiling and truncation (a cast to an
  integer) are those of ``a / b``; Round of an integer is the integer;
* what moves or picks entries carries them (Identity, Concat, Gather, Unsqueeze,
  Squeeze, Reshape, Max, Min, ReduceMax, ReduceMin), and Abs, Sign and fmod of integers
  are exact in a float;
* a cast back to an integer states what the value needs as the node's conditions,
  each decided by the facts or kept as a *choice*: beyond it the float rounds the size,
  whose value is not folded (a contract counts those sizes as not covered, never as
  invalid). A float value never cast back states nothing (a box's coordinates scaled
  by a size need no condition).

Anything else (a fraction's rounding to nearest, a sum or product of floats, a
comparison, a quotient by a fraction or by a size) is not folded. Only the kernels marked
:func:`float_sizes` make a float value of sizes (:func:`.values.computed` declines the
others), and a builder reading a float parameter never sees one (:func:`.values.as_param`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..types.conditions import Condition, Source
from ..types.dim import Dim
from ..types.dimminmax import dim_max
from .shared import FOLD_FACTS, FOLD_NEEDS, FloatSize

__all__ = ["FloatSize", "entrywise", "float_sizes", "held", "is_float_sizes", "number",
           "precision", "quotient", "rounded", "to_integer", "whole", "wrap"]


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
    not describe (bfloat16, the float8s: not folded) or no float."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return None
    return np.finfo(dt).nmant + 1 if dt.kind == "f" else None


def _bits(dtype: str) -> int:
    p = precision(dtype)
    if p is None:
        raise ValueError(f"a size in {dtype} is not folded")
    return p


def number(v: Any, dtype: str) -> Any:
    """An entry of a float value of ``dtype`` (an int, a FloatSize, None), or a float
    from a constant, as one: an integer held exactly (ValueError for a fraction or an
    int of magnitude ``2**p`` or more: not folded)."""
    if v is None or isinstance(v, FloatSize):
        return v
    if isinstance(v, np.floating | float):
        if not math.isfinite(v) or v != int(v):
            raise ValueError(f"{v} is not a size")
    limit = 1 << _bits(dtype)
    if isinstance(v, Dim) or not -limit < int(v) < limit:
        raise ValueError(f"{v} in {dtype} is not folded")
    return int(v)


def held(v: Any, dtype: str) -> Any:
    """The entry ``v`` of a value of sizes (an int, a Dim, None) or of a float value
    (a FloatSize) cast to the float ``dtype``: the same value, needing ``|v| < 2**p``
    of ``dtype``'s ``p`` (a fraction: ValueError, its rounding is not folded)."""
    if isinstance(v, FloatSize):
        v, needs = v.whole()
        if not isinstance(v, Dim):
            return wrap(number(v, dtype), needs)
    else:
        needs = frozenset()
    if isinstance(v, Dim):
        _bits(dtype)  # (a float NumPy describes)
        return FloatSize(v, 1, needs | {(v, dtype)})
    return number(v, dtype)


def whole(v: Any) -> tuple[Any, frozenset]:
    """An integer entry of a float value: its value (an int, a Dim) and needs."""
    return v.whole() if isinstance(v, FloatSize) else (v, frozenset())


def wrap(value: Any, needs: frozenset) -> Any:
    """An integer ``value`` with ``needs`` as an entry of a float value."""
    return FloatSize(value, 1, needs) if needs else value


def quotient(x: Any, y: Any, dtype: str) -> Any:
    """``x / y`` in a float value of sizes of ``dtype`` (see the module's doc): exact
    where the divisor is a nonzero int and the dividend an integer; ValueError otherwise
    (not folded)."""
    x, y = number(x, dtype), number(y, dtype)
    if x is None or y is None:
        return None
    if not isinstance(y, int) or y == 0:
        raise ValueError(f"a float quotient of sizes by {y} is not folded")
    a, needs = whole(x)
    if y < 0:
        a, y = -a, -y
    if isinstance(a, int) and a % y == 0:
        return a // y
    return FloatSize(a, y, needs)


def rounded(v: Any, how: str) -> Any:
    """An entry of a float value of sizes rounded ``how`` (``floor``, ``ceil``;
    ``round``: half to even): an integer is itself; a fraction's floor and ceiling are
    those of its exact value (see the module's doc); its rounding to nearest is not
    folded (ValueError)."""
    if not isinstance(v, FloatSize) or v.b == 1:
        return v
    if how == "floor":
        return wrap(v.a // v.b, v.needs)
    if how == "ceil":
        return wrap(-((-v.a) // v.b), v.needs)
    raise ValueError(f"{how} of {v} is not folded")


def to_integer(v: Any, op: str) -> Any:
    """An entry of a float value of sizes cast to an integer (truncated toward zero),
    stating what it needs as ``op``'s conditions (the facts decide them, or each is a
    choice: beyond it the float rounds the size)."""
    if not isinstance(v, FloatSize):
        return v
    facts = FOLD_FACTS.get()
    for d, dtype in sorted(v.needs, key=str):
        p = _bits(dtype)
        limit = 1 << p
        for side, bound in (("<", limit), (">", -limit)):
            if facts.decide((d, side, bound)) is not True:
                FOLD_NEEDS.get().append(Condition(d, side, bound, Source(
                    op=op, detail=f"{d} is held exactly in {dtype} (below 2**{p})",
                    otherwise=f"{d} rounded to {dtype}: a value not folded")))
    a, b = v.a, v.b
    if b == 1:
        return a
    if isinstance(a, int) or facts.decide((a, ">=", 0)) is True:
        return a // b if not isinstance(a, int) or a >= 0 else -((-a) // b)
    if facts.decide((a, "<=", 0)) is True:
        return -((-a) // b)
    return dim_max(a, 0) // b - dim_max(-a, 0) // b  # (toward zero at either sign)

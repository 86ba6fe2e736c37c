"""The sizes of ONNX's Resize and Upsample: ``floor(n * scale)`` exactly, an aspect-ratio
policy's sizes, and the scale onnxruntime's kernel applies on each axis, as ints (for
the kernels of :mod:`.resize`) and as the signature's size expressions with their
where-clauses (for its builders; what onnxruntime accepts is :mod:`.resizecheck`)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...syntax.ast import Clause, DimExpr, DimVar, FixedDim, chosen, dim_max, dim_min
from ...types.dim import Dim
from ..shared import NotKnown
from .resizecheck import exact_through, float32_scaled

__all__ = ["aspect_dims", "aspect_size", "kernel_scales", "scale_compared", "scaled_dim",
           "scaled_size"]


def scaled_size(n: int, scale: float) -> int:
    """``floor(n * scale)`` exactly, with the scale's exact binary value ``p / q``:
    ONNX's reference computes it in float64, which is exact while ``n * p`` stays below
    2**53 (every n below 2**29 for a float32 scale); kantensor is exact for every n.
    onnxruntime computes it in float32 (:func:`.resizecheck.float32_scaled`), the same
    size only up to :func:`.resizecheck.exact_through`."""
    p, q = scale.as_integer_ratio()
    return (p * n) // q


def aspect_size(n: int, sizes: list[int], extents: list[int], policy: str) -> int:
    """An axis of size ``n`` resized by the scale ``min`` (``not_larger``) or ``max``
    (``not_smaller``) of ``sizes[j] / extents[j]``, rounded half up: round_half_up is
    monotone, so that is the min (max) over j of ``round_half_up(sizes[j] * n /
    extents[j])``, computed exactly in integers."""
    pick = min if policy == "not_larger" else max
    return pick((2 * w * n + e) // (2 * e) for w, e in zip(sizes, extents, strict=True))


def scaled_dim(dim: Any, d: DimVar, scale: float) -> tuple[DimExpr | None, list[Clause]]:
    """``floor(dim * scale)`` (``d``: the axis's dim) where onnxruntime's float32 size is
    that (:func:`.resizecheck.exact_through`: for a size not known, the build's choice
    ``d <= N``; a known size where it is not is unknown: None, and not typed where
    onnxruntime's product is past int64), and its clauses; None when the scale is not
    a finite number >= 0."""
    if not math.isfinite(scale) or scale < 0:
        return None, []
    if isinstance(dim, int):
        size, ort = scaled_size(dim, scale), float32_scaled(dim, scale)
        if ort is None:
            raise NotKnown(f"onnxruntime's float32 size of {dim} by {scale} is past int64 "
                           "(its cast is undefined there)")
        return (FixedDim(size) if size == ort else None), []
    p, q = scale.as_integer_ratio()
    if p == 0:
        return FixedDim(0), []
    through = exact_through(scale)
    bound = chosen(d <= through, _ROUNDED)
    if (through * p) // q == 0:  # (a tiny scale, or a huge one exact at 0 only)
        return FixedDim(0), [bound]
    return (d * p if q == 1 else (p * d) // q), [bound]


#: Where a size is past :func:`.resizecheck.exact_through`.
_ROUNDED = "a size onnxruntime's float32 product may round up (not floor(size * scale))"


def aspect_dims(picked: list[int], values: list[int], x: Any, a: list[DimVar],
            policy: str) -> tuple[dict[int, DimExpr], list[Clause]]:
    """The output size of each picked axis under an aspect-ratio policy (see
    :func:`aspect_size`), and the where-clauses: each picked size at least 1 (the
    scale divides by it). Two axes of one known size give the size asked for."""
    pick = dim_min if policy == "not_larger" else dim_max
    out: dict[int, DimExpr] = {}
    for i in picked:
        terms: list[DimExpr] = []
        for j, w in zip(picked, values, strict=True):
            ni, nj = x.shape[i], x.shape[j]
            if i == j or (ni is not None and ni == nj):
                terms.append(FixedDim(w))
            elif isinstance(ni, int) and isinstance(nj, int):
                terms.append(FixedDim(aspect_size(ni, [w], [nj], policy)))
            else:
                terms.append((2 * w * a[i] + a[j]) // (2 * a[j]))
        out[i] = terms[0] if len(terms) == 1 else pick(*terms)
    return out, [a[j] >= 1 for j in picked if not isinstance(x.shape[j], int)]


def kernel_scales(x: Any, picked: list[int], scales_value: Any, sizes_value: Any,
            policy: str) -> list[Fraction | None]:
    """The scale onnxruntime's kernel applies on each axis (None: not known): the
    ``scales`` given, else each size over the input's (1 on an empty axis), under an
    aspect-ratio policy their min (``not_larger``) or max (``not_smaller``) on every
    picked axis; 1 on an axis not picked."""
    out: list[Fraction | None] = [Fraction(1)] * x.ndim
    values = scales_value if scales_value is not None else sizes_value
    if values is None or len(values) != len(picked):
        return [None] * x.ndim
    ratios: list[Fraction | None] = []
    for ax, v in zip(picked, values, strict=True):
        n = x.shape[ax]
        if not isinstance(v, (int, float)):  # (not known, or a size named, not a number)
            ratios.append(None)
        elif scales_value is not None:
            ratios.append(Fraction(float(v)))
        elif isinstance(n, int) and isinstance(v, int):
            ratios.append(Fraction(1) if n == 0 else Fraction(int(v), n))
        else:
            ratios.append(None)
    if scales_value is None and policy != "stretch":
        known = None if None in ratios else (min if policy == "not_larger" else max)(ratios)
        ratios = [known] * len(picked)
    for ax, r in zip(picked, ratios, strict=True):
        out[ax] = r
    return out


def scale_compared(v: Any, n: Any, w: DimExpr, d: DimVar) -> tuple[Any, Any]:
    """Whether the scale of an axis of size ``n`` (``d``) resized to ``v`` (``w``) is 1,
    and at least 1 (:data:`.resizecheck.Cond`): ``w == d``, ``w >= d`` (an axis of size
    0 resized to 0 has the scale 1)."""
    if isinstance(v, int) and isinstance(n, int):
        return (() if v == n else False), (() if v >= n else False)
    if isinstance(v, Dim) and isinstance(n, Dim) and v == n:
        return (), ()
    return (w.eq(d),), (w >= d,)

"""What onnxruntime's Resize kernel (``UpsampleBase``) accepts and computes, as
conditions on sizes, for :mod:`.resize`'s builder.

* Every scale it applies must be greater than 0 (``ScalesValidation``): a constant
  ``scales`` entry of 0 or less (or NaN) is refused when the model loads; from
  ``sizes``, an axis of size ``n >= 1`` resized to ``w`` has the scale ``w / n``, so
  ``w >= 1``, and an axis of size 0 must be resized to 0 (``Input dim is zero but
  required output dim is non-zero``), its scale then 1.
* Linear and cubic interpolation only at some ranks, with some scales 1 (or at least 1):
  :func:`interpolates`, whose answer is a condition where the scales come from sizes
  (the scale of an axis is 1 exactly where its size is the input's).
* The size an axis of ``n`` takes by a ``scales`` entry ``s`` is ``int(n * s)`` computed
  in float32 (``float(n) * s``, then truncated), where ONNX's reference computes
  ``floor(n * s)`` in float64, exact at usual sizes: the two differ where the float32
  product rounds up to an integer (0.7 of 10: onnxruntime's 7, the reference's 6).
  :func:`exact_through` bounds the sizes where they agree.
* The scales and sizes inputs whose values are not known: their shapes
  (:func:`entries`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.templates import dims, size_of
from ...syntax.ast import Clause, Compare, DimExpr, dim_min
from ..shared import NotKnown

#: A condition of :func:`interpolates`: ``()`` holds, ``False`` fails at every size,
#: ``None`` not decided, else a conjunction of comparisons.
Cond = "tuple[Compare, ...] | bool | None"

#: Sizes below ``2**24`` are held exactly in float32.
_EXACT = 1 << 24
#: The sizes :func:`exact_through` tries one by one (in float32, as onnxruntime).
_SEARCHED = 1 << 16


#: The float32 products onnxruntime's cast to int64 is defined at (below ``2**63``).
_CAST = 2.0**63


def float32_scaled(n: int, scale: float) -> int | None:
    """onnxruntime's size of an axis of ``n`` by ``scale``: ``int(float(n) * scale)`` in
    float32 (``UpsampleBase::ComputeOutputShape``); None where the product is no size
    (inf, or past int64: the C++ cast is undefined there)."""
    with np.errstate(over="ignore"):
        product = np.float32(n) * np.float32(scale)
    return int(product) if np.isfinite(product) and product < _CAST else None


@lru_cache(maxsize=256)
def exact_through(scale: float) -> int:
    """The largest ``N`` such that at every size ``n <= N`` onnxruntime's float32 size
    (:func:`float32_scaled`) is the exact ``floor(n * scale)`` (``scale`` a float32 >
    0). For ``scale = p / 2**k``: where ``n * p < 2**24`` the exact product is below
    ``2**(24-k)``, so an integer ``m`` it is below is at most ``2**(24-k)``, and a float32
    rounds a value of ``[m-1, m)`` up to ``m`` only within half a spacing of m, less
    than ``m / 2**24 <= 2**-k``, the least distance of ``n*p/2**k`` from ``m``; an
    integer product is exact below ``2**24``. Where that bound is small (``p`` large:
    0.7 is ``11744051 / 2**24``) the sizes below :data:`_SEARCHED` are tried."""
    p, q = scale.as_integer_ratio()
    bound = (_EXACT - (q > 1)) // p
    if bound >= _SEARCHED - 1:
        return bound
    n = np.arange(_SEARCHED, dtype=np.int64)
    if p < _BIG and q < _BIG:
        exact = (n * p) // q
    else:  # (a tiny or huge scale: its ratio's terms are past int64)
        exact = np.array([(i * p) // q for i in range(_SEARCHED)], dtype=object)
    with np.errstate(over="ignore"):
        product = n.astype(np.float32) * np.float32(scale)
    sized = np.isfinite(product) & (product < _CAST)
    ort = np.where(sized, product, 0).astype(np.int64)
    wrong = np.flatnonzero(~sized | (ort != exact).astype(bool))
    return int(wrong[0]) - 1 if wrong.size else _SEARCHED - 1


#: Ratio terms whose products by the searched sizes stay in int64.
_BIG = 1 << 46


def valid_scale(scale: float) -> bool:
    """Whether onnxruntime applies ``scale`` (greater than 0; NaN is not)."""
    return scale > 0 and not math.isnan(scale)


def sized(a: DimExpr, w: DimExpr | int) -> list[Compare] | None:
    """What onnxruntime needs of an axis of size ``a`` resized to ``w`` (see the
    module's doc): ``w`` and ``a`` both 0 or both at least 1 (None: never, ``w < 0``)."""
    if isinstance(w, int):
        return None if w < 0 else [a.eq(0)] if w == 0 else [a >= 1]
    return [dim_min(a, 1).eq(dim_min(w, 1))]


def _and(*conds: Any) -> Any:
    if False in conds:
        return False
    if any(c is None for c in conds):
        return None
    return tuple(x for c in conds for x in c)


def _or(p: Any, q: Any) -> Any:
    if p == () or q == ():
        return ()
    if p is False or q is False:
        return q if p is False else p
    if p is None or q is None:
        return None
    if len(p) == len(q) == 1 and p[0].op == q[0].op == "==":  # (one of two is 0)
        return (((p[0].left - p[0].right) * (q[0].left - q[0].right)).eq(0),)
    return None


def interpolates(rank: int, one: list, at_least: list, mode: str, antialias: int) -> Any:
    """Whether onnxruntime's kernel (``UpsampleBase::ScalesValidation``) runs a linear
    or cubic Resize of this rank, given for each axis whether its scale is 1 (``one``)
    and at least 1 (``at_least``), each a :data:`Cond`. Linear: rank 2 or 3, rank 4
    with the outermost scale 1 and the next or the innermost 1, rank 5 with the two
    outermost 1. Cubic: rank 2, rank 4 with the two outermost 1, or the outermost and
    innermost 1 with antialias or the other two at least 1."""
    if mode == "linear":
        if rank in (2, 3):
            return ()
        if rank == 4:
            return _and(one[0], _or(one[1], one[3]))
        return _and(one[0], one[1]) if rank == 5 else False
    if mode == "cubic":
        if rank == 2:
            return ()
        if rank != 4:
            return False
        rest = () if antialias else _and(at_least[1], at_least[2])
        return _or(_and(one[0], one[1]), _and(one[0], one[3], rest))
    return ()


def of_ratio(r: Fraction | None) -> tuple[Any, Any]:
    """A known scale's (or None's) :data:`Cond` pair: is it 1, is it at least 1."""
    if r is None:
        return None, None
    return (() if r == 1 else False), (() if r >= 1 else False)


def entries(types: tuple, given: tuple, scales_value: Any, sizes_value: Any,
             count: int, empty_scales_run: bool) -> tuple[dict[int, list], list[Clause]]:
    """The dims of the scales (place 2) or sizes (3) input whose values are not known,
    and their clauses: onnxruntime reads, as the spec says, one element per resized axis
    (``count``: "Number of elements in scales should be equal to rank"), the scales of
    any shape, so that is their product. Scales not known beside a sizes input: at opsets
    11 and 12 (``empty_scales_run``) onnxruntime's kernel reads the sizes where the scales
    are empty (their product 0, as the spec asks) and refuses other scales, and refuses
    empty scales beside an empty sizes (so both at every length); from opset 13 ONNX's
    inference refuses both ("Either sizes or scales must be provided, but not both").
    Sizes not known of a length not known are left untyped (ONNX's inference in
    onnxruntime reads them as empty and refuses the model; a known length it checks),
    as are known sizes of another rank than 1 (onnxruntime runs a constant one and
    refuses a computed one, "shape input must be 1D tensor", which are not told apart
    here); sizes not known of another rank than 1 are refused."""
    sizes_empty = sizes_value is not None and len(sizes_value) == 0
    out: dict[int, list] = {}
    clauses: list[Clause] = []
    if 2 in given and scales_value is None:
        wanted = count
        if 3 in given:
            if not empty_scales_run:
                raise ParamError("scales not known beside a sizes input: onnxruntime refuses "
                                 "both from opset 13 (Either sizes or scales must be "
                                 "provided, but not both)")
            if sizes_empty:
                raise ParamError("scales not known beside an empty sizes: onnxruntime "
                                 "refuses them at every length (Only one of scales or "
                                 "sizes must be provided as input, or neither is)")
            wanted = 0
        elements = dims("e", input_type(types, given, 2).ndim)
        out[2] = elements
        clauses.append(size_of(elements).eq(wanted))
    if 3 in given:
        sizes = input_type(types, given, 3)
        if sizes_value is not None and sizes.ndim != 1:
            raise NotKnown(f"sizes of rank {sizes.ndim}: onnxruntime runs a constant one and "
                           "refuses a computed one (shape input must be 1D tensor)")
        if sizes_value is None:
            if sizes.ndim != 1:
                raise ParamError(f"sizes not known of rank {sizes.ndim}: onnxruntime refuses "
                                 "them (shape input must be 1D tensor)")
            if not isinstance(sizes.shape[0], int):
                raise NotKnown("sizes not known of a length not known: onnxruntime's ONNX "
                               "inference reads them as empty and refuses the model")
            out[3] = [count]
    return out, clauses


def input_type(types: tuple, given: tuple, place: int) -> Any:
    """The type of the input at ``place`` (given)."""
    return types[1 + [k for k in given if k > 0].index(place)]


def roi_length(types: tuple, given: tuple) -> Any:
    """The ``roi`` input's number of entries where it is given (the product of its
    type's axes, as onnxruntime reads it flattened: an int where known, else a Dim),
    else None: an omitted one onnxruntime reads as the whole input, and one of an axis
    not even named (``?``, a relation rendered from ranks alone) as before."""
    if 1 not in given:
        return None
    shape = input_type(types, given, 1).shape
    return None if any(d is None for d in shape) else math.prod(shape, start=1)


def roi_fits(o: DimExpr, rank: int, picked: int | None, out: list) -> Compare:
    """What onnxruntime needs of a ``tf_crop_and_resize`` roi of ``o`` entries (a length
    not known; "size of roi array should be 2 * N"): with ``axes`` (``picked`` resized
    axes) 2 entries per axis of X or per resized axis, always; without them 2 per axis
    where the output (sizes ``out``) is not empty (it reads the roi only then)."""
    if picked is None:
        return ((o - 2 * rank) * size_of(out)).eq(0)
    if picked == rank:
        return o.eq(2 * rank)
    return ((o - 2 * rank) * (o - 2 * picked)).eq(0)

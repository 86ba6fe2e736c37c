"""ONNX's Resize: its signature template (the output sizes from ``sizes`` or
``scales``: :mod:`.resizesizes`; what onnxruntime accepts: :mod:`.resizecheck`) and a
separable NumPy implementation (nearest, linear and cubic interpolation; every
coordinate transformation; no antialiasing). Upsample (opsets 7 to 9, deprecated since
10) is Resize of opset 10: ``floor(size * scale)`` on every axis, asymmetric
coordinates."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import builder, dims, groups, signed, size_of, typed
from ...syntax.ast import Clause, DimExpr, DimVar, FixedDim
from ...types.dim import Dim
from ..shared import NotKnown
from .resizecheck import (
    entries,
    input_type,
    interpolates,
    of_ratio,
    roi_fits,
    roi_length,
    sized,
    valid_scale,
)
from .resizesizes import (
    aspect_dims,
    aspect_size,
    kernel_scales,
    scale_compared,
    scaled_dim,
    scaled_size,
)


@builder
def build(types: tuple, given: tuple, scales_value: Any = None, sizes_value: Any = None,
          axes: tuple | None = None, keep_aspect_ratio_policy: str = "stretch",
          coordinate_transformation_mode: str = "half_pixel", mode: str = "nearest",
          antialias: int = 0, empty_scales_run: bool = False, **_: Any) -> dict[str, Any]:
    """Resize: the output sizes from ``sizes``, else from ``scales``. A non-empty
    ``scales`` with a ``sizes`` input (even an empty one) is refused, as onnxruntime
    does ("Only one of scales or sizes must be provided"; the spec: only one of them),
    and so are both empty or omitted, ``tf_crop_and_resize`` with a ``roi`` of another
    number of entries (of any shape: read flattened) than 2 per axis (onnxruntime: "size
    of roi array should be 2 * N"; without ``axes`` it reads the roi only where the
    output is not empty: a condition), a known scale of 0 or less, or infinite, and
    scales under a keep_aspect_ratio_policy other than stretch (ONNX's inference, in
    onnxruntime too). Each size ``w`` an axis of size ``n`` is resized to needs ``w`` and
    ``n`` both 0 or both at least 1 (the scale ``w / n`` onnxruntime applies is greater
    than 0, :mod:`.resizecheck`). Where onnxruntime's kernel
    interpolates linearly or cubically only by some scales
    (:func:`.resizecheck.interpolates`), that is a condition (scales from sizes) or
    decided (known scales): a Resize it refuses at every size, or where it is not
    decided (scales not known), is left untyped, as is a policy over negative axes or
    over sizes not known."""
    x = types[0]
    a = dims("a", x.ndim)
    picked = [normalize_axis(ax, x.ndim) for ax in axes] if axes else list(range(x.ndim))
    no_scales = 2 not in given or (scales_value is not None and len(scales_value) == 0)
    no_sizes = 3 not in given or (sizes_value is not None and len(sizes_value) == 0)
    if scales_value and 3 in given:  # (onnxruntime refuses an empty sizes too)
        raise ParamError("a non-empty scales leaves no place for a sizes input")
    if no_scales and no_sizes:
        raise ParamError("Resize needs non-empty scales or sizes")
    for name, v, empty in (("scales", scales_value, no_scales), ("sizes", sizes_value, no_sizes)):
        if not empty and v is not None and len(v) != len(picked):  # (onnxruntime refuses)
            raise ParamError(f"{len(v)} {name} for {len(picked)} resized axes: one per axis "
                             "of X, or of axes")
    length = roi_length(types, given)
    no_roi = coordinate_transformation_mode == "tf_crop_and_resize" and isinstance(
        length, int) and length not in {2 * x.ndim, 2 * len(picked) if axes else 2 * x.ndim}
    if no_roi and axes:  # (and without axes, where the output is not empty: below)
        raise ParamError(f"tf_crop_and_resize needs a roi of 2 entries per resized axis, "
                         f"or per axis (onnxruntime), not {length}")
    if not no_scales and scales_value is not None:
        for v in scales_value:
            if isinstance(v, int | float) and not valid_scale(float(v)):
                raise ParamError(f"a scale of {v}: onnxruntime needs every scale greater "
                                 "than 0 (ScalesValidation)")
            if isinstance(v, int | float) and math.isinf(v):  # (constant or computed)
                raise ParamError(f"a scale of {v}: onnxruntime needs every scale finite "
                                 "(ScalesValidation: Scale value must be finite)")
    policy = keep_aspect_ratio_policy
    if not no_sizes and policy != "stretch" and axes and min(axes) < 0:
        raise NotKnown("onnxruntime's kernel applies keep_aspect_ratio_policy to no negative "
                       "axis (it keeps every size there), the spec resizes it")
    out: list[DimExpr] = list(a)
    clauses: list[Clause] = []
    sizes = SizeNames(sizes_value)
    one: list[Any] = [()] * x.ndim  # (is each axis's scale 1, at least 1: resizecheck.Cond)
    at_least: list[Any] = [()] * x.ndim

    def unknown(ax: int) -> None:
        out[ax] = DimVar(f"u{ax}")
        clauses.append(out[ax] >= 0)
        one[ax] = at_least[ax] = None

    if not no_sizes:
        values = sizes_value
        if values is None or len(values) != len(picked):
            for ax in picked:
                unknown(ax)
        elif policy == "stretch":
            for ax, v in zip(picked, values, strict=True):
                if v is None:
                    unknown(ax)
                    clauses.extend(sized(a[ax], out[ax]))
                    continue
                out[ax] = signed(sizes.expr(v))
                need = sized(a[ax], v if isinstance(v, int) else out[ax])
                if need is None:
                    raise ParamError(f"a size of {v}: onnxruntime needs sizes >= 0")
                clauses.extend(need)
                one[ax], at_least[ax] = scale_compared(v, x.shape[ax], out[ax], a[ax])
        elif any(not isinstance(v, int) or v < 1 for v in values):
            raise NotKnown("a size under keep_aspect_ratio_policy that is not known, or not "
                           "at least 1: what onnxruntime's kernel accepts is not decided here")
        elif 0 in [x.shape[ax] for ax in picked]:
            raise ParamError("an axis of size 0 resized to a size of 1 or more: onnxruntime "
                             "refuses it (Input dim is zero but required output dim is "
                             "non-zero)")
        else:
            sized_, fits = aspect_dims(picked, values, x, a, policy)
            for ax, size in sized_.items():
                out[ax] = size
            clauses.extend(fits)
            for ax, r in enumerate(kernel_scales(x, picked, None, values, policy)):
                one[ax], at_least[ax] = of_ratio(r)
    elif 2 in given:
        if policy != "stretch":  # (ONNX's inference, in onnxruntime too, at every size)
            raise ParamError("Providing scales is incompatible with a keep_aspect_ratio_policy "
                             f"other than stretch (not {policy!r}): the spec applies it to "
                             "sizes only")
        values = scales_value
        if values is None or len(values) != len(picked) or any(v is None for v in values):
            for ax in picked:
                unknown(ax)
        else:
            for ax, s in zip(picked, values, strict=True):
                size, bound = scaled_dim(x.shape[ax], a[ax], float(s))
                if size is None:
                    unknown(ax)
                else:
                    out[ax] = size
                    clauses.extend(bound)
                one[ax], at_least[ax] = of_ratio(Fraction(float(s)))
            for ax in set(range(x.ndim)) - set(picked):  # (scaled by 1 in float32 too)
                size, bound = scaled_dim(x.shape[ax], a[ax], 1.0)
                if size is None:
                    unknown(ax)
                    one[ax] = at_least[ax] = ()
                clauses.extend(bound)
    else:
        raise ParamError("Resize needs scales or sizes")
    if no_roi:  # (onnxruntime reads the roi only for an output that is not empty)
        known = [o.size if isinstance(o, FixedDim) else n if o is d and isinstance(n, int)
                 else None for o, d, n in zip(out, a, x.shape, strict=True)]
        if 0 not in known and None not in known:
            raise ParamError("tf_crop_and_resize needs a roi of 2 entries per resized axis "
                             "(onnxruntime reads it where the output is not empty)")
        if 0 not in known:
            clauses.append(math.prod(out[1:], start=out[0]).eq(0))
    if mode in ("linear", "cubic"):
        runs = interpolates(x.ndim, one, at_least, mode, antialias)
        if runs is False:
            raise NotKnown(f"onnxruntime's kernel refuses a {mode} Resize of rank {x.ndim} "
                           "by these scales, the spec computes it")
        if runs is None:
            raise NotKnown(f"whether onnxruntime's kernel runs this {mode} Resize of rank "
                           f"{x.ndim} (by scales not known) is not decided here")
        clauses.extend(runs)
    more = len(types) - 1 - len(sizes.dims)
    places = [k for k in given if k > 0]
    if len(places) != more:  # (a call without given: roi, scales, sizes in order)
        places = list(range(1, 1 + more))
    read, more_clauses = entries(types, given, scales_value, sizes_value, len(picked),
                                  empty_scales_run)
    clauses.extend(more_clauses)
    if coordinate_transformation_mode == "tf_crop_and_resize" and isinstance(length, Dim):
        rank = input_type(types, given, 1).ndim  # (a roi of entries not known: read flat)
        read[1] = [DimVar("o")] if rank == 1 else dims("o", rank)
        clauses.append(roi_fits(size_of(read[1]), x.ndim, len(picked) if axes else None,
                                out))
    rest = [typed(read.get(k, g.dims), _DTYPES[k])
            for g, k in zip(groups("r", more), places, strict=True)]
    return {"x": a, "rest": rest, "sizes": sizes.patterns(), "y": out, "fits": clauses}


@builder
def build_11(types: tuple, given: tuple, **params: Any) -> dict[str, Any]:
    """Resize-11 and -12: :func:`build`, where scales not known beside a ``sizes`` input
    are read as the spec says, empty (onnxruntime's kernel reads the sizes then; from
    opset 13 both inputs are refused)."""
    return build(types, given, empty_scales_run=True, **params)


#: The dtype variable of each input after X by its place (roi, scales, sizes): the
#: entry's where-clauses say which dtypes each takes (its schema's).
_DTYPES = {1: "R", 2: "S", 3: "Z"}


@builder
def build_upsample(types: tuple, scales_value: Any = None, scales: Any = None,
                   mode: str = "nearest", **_: Any) -> dict[str, Any]:
    """Upsample: one scale per axis, the attribute ``scales`` (opset 7) or the value of
    the input (opset 9); an axis whose size cannot be written is unknown. A known scale
    below 1 is refused, as onnxruntime refuses it ("Scale value should be greater than
    or equal to 1"), and a linear Upsample its kernel does not interpolate (the rules of
    Resize's, :func:`.resizecheck.interpolates`) is left untyped."""
    values = scales if scales is not None else scales_value
    known = [float(v) if isinstance(v, int | float) else None for v in values or ()]
    if any(v is not None and not v >= 1 for v in known):
        raise ParamError(f"a scale below 1 in {tuple(values)}: onnxruntime's Upsample needs "
                         "every scale greater than or equal to 1")
    return _by_scales(types, values, mode)


@builder
def build_resize_10(types: tuple, scales_value: Any = None, mode: str = "nearest",
                    **_: Any) -> dict[str, Any]:
    """Resize-10: Upsample-9's relation (``floor(size * scale)`` on every axis, the
    scales an input) with scales below 1 too: a known scale must be greater than 0
    (onnxruntime refuses the model when it loads it, ``ScalesValidation``)."""
    for v in scales_value or ():
        if isinstance(v, int | float) and not valid_scale(float(v)):
            raise ParamError(f"a scale of {v}: onnxruntime needs every scale greater than 0")
    return _by_scales(types, scales_value, mode)


def _by_scales(types: tuple, values: Any, mode: str) -> dict[str, Any]:
    """The sizes of Upsample and Resize-10: each axis's ``floor(size * scale)`` where its
    scale is known (:func:`.resizesizes.scaled_dim`), else unknown; the scales input one element per
    axis, of any shape (the spec's number of elements; onnxruntime: "Number of elements
    in scales should be equal to rank"); a known
    infinite scale refused (onnxruntime refuses the model when it loads it); a linear
    one onnxruntime's kernel does not interpolate (:func:`.resizecheck.interpolates`)
    is left untyped."""
    x = types[0]
    if values is not None and len(values) != x.ndim:
        raise ParamError(f"{len(values)} scales for a tensor of dimension {x.ndim}")
    known = [float(v) if isinstance(v, int | float) else None for v in values or ()]
    if any(v is not None and math.isinf(v) for v in known):
        raise ParamError("an infinite scale: onnxruntime refuses the model when it loads it")
    if mode == "linear":
        ratios = [of_ratio(None if v is None or math.isinf(v) else Fraction(v))
                  for v in known] if values is not None else [(None, None)] * x.ndim
        runs = interpolates(x.ndim, [r[0] for r in ratios], [r[1] for r in ratios],
                            mode, 0)
        if runs != ():
            raise NotKnown(f"onnxruntime's kernel refuses a linear resize of rank "
                           f"{x.ndim} by these scales, or they are not known")
    a = dims("a", x.ndim)
    out: list[DimExpr] = list(a)
    clauses: list[Clause] = []
    for ax in range(x.ndim):
        s = values[ax] if values is not None else None
        size, bound = (scaled_dim(x.shape[ax], a[ax], float(s)) if isinstance(s, int | float)
                       else (None, []))
        if size is None:
            out[ax] = DimVar(f"u{ax}")
            clauses.append(out[ax] >= 0)
        else:
            out[ax] = size
            clauses.extend(bound)
    rest = []
    for t in types[1:]:  # (one element per axis, of any shape: onnxruntime reads them so)
        if values is None:
            entries = dims("e", t.ndim)
            rest.append(typed(entries, "S"))
            clauses.append(size_of(entries).eq(x.ndim))
        else:
            rest.append(typed(dims("e", t.ndim), "S"))
    return {"x": a, "rest": rest, "y": out, "fits": clauses}


def _coefficients(mode: str, ratio: np.ndarray, nearest: str, a: float) -> np.ndarray:
    """Weights of the neighbours ``base-1 .. base+2`` (cubic) or ``base, base+1``, for
    ``ratio`` in (0, 1] (the position past ``base``)."""
    r = ratio[:, None]
    if mode == "cubic":
        s, t = r + 1, 2 - r
        return np.concatenate([((a * s - 5 * a) * s + 8 * a) * s - 4 * a,
                               ((a + 2) * r - (a + 3)) * r * r + 1,
                               ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                               ((a * t - 5 * a) * t + 8 * a) * t - 4 * a], axis=1)
    if mode == "linear":
        return np.concatenate([1 - r, r], axis=1)
    whole = ratio == 1
    right = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
             "floor": np.zeros_like(whole), "ceil": np.ones_like(whole)}[nearest] | whole
    return np.stack([~right, right], axis=1).astype(np.float64)


def _positions(m: int, n: int, scale: float, how: str, roi: tuple | None) -> np.ndarray:
    x = np.arange(m, dtype=np.float64)
    width = scale * n
    if how == "align_corners":
        return np.zeros(m) if width == 1 else x * (n - 1) / (width - 1)
    if how == "asymmetric":
        return x / scale
    if how == "tf_crop_and_resize":
        lo, hi = roi
        base = (hi - lo) * (n - 1) / 2 if width == 1 else x * (hi - lo) * (n - 1) / (width - 1)
        return base + lo * (n - 1)
    if how == "pytorch_half_pixel":
        return np.full(m, -0.5) if width == 1 else (x + 0.5) / scale - 0.5
    if how == "half_pixel_symmetric":
        offset = n / 2 * (1 - m / width)
        return offset + (x + 0.5) / scale - 0.5
    if how == "tf_half_pixel_for_nn":  # (opsets 11 and 12)
        return (x + 0.5) / scale
    return (x + 0.5) / scale - 0.5


def _along(data: np.ndarray, axis: int, m: int, scale: float, roi: tuple | None,
           mode: str, how: str, nearest: str, a: float, exclude: int,
           fill: float) -> np.ndarray:
    n = data.shape[axis]
    pos = _positions(m, n, scale, how, roi)
    base = np.floor(pos)
    base = np.where(pos == base, pos - 1, base).astype(np.int64)
    ratio = pos - base
    weights = _coefficients(mode, ratio, nearest, a)
    first = -1 if mode == "cubic" else 0
    idx = base[:, None] + np.arange(first, first + weights.shape[1])
    if exclude:
        weights = np.where((idx >= 0) & (idx < n), weights, 0)
        weights = weights / weights.sum(axis=1, keepdims=True)
    taken = np.take(data, np.clip(idx, 0, n - 1), axis=axis)  # (..., m, k, ...)
    shape = [1] * taken.ndim
    shape[axis], shape[axis + 1] = weights.shape
    y = (taken * weights.reshape(shape)).sum(axis=axis + 1)
    if how == "tf_crop_and_resize":
        outside = (pos < 0) | (pos > n - 1)
        keep = [1] * y.ndim
        keep[axis] = m
        y = np.where(outside.reshape(keep), fill, y)
    return y


def resize(x: np.ndarray, *rest: np.ndarray, given: tuple, antialias: int = 0,
           axes: tuple | None = None, coordinate_transformation_mode: str = "half_pixel",
           cubic_coeff_a: float = -0.75, exclude_outside: int = 0,
           extrapolation_value: float = 0.0, keep_aspect_ratio_policy: str = "stretch",
           mode: str = "nearest", nearest_mode: str = "round_prefer_floor",
           **_: Any) -> np.ndarray:
    if antialias:
        raise NotImplementedError("Resize with antialias is not implemented")
    inputs = dict(zip(given[1:], rest, strict=False))
    r = x.ndim
    picked = [a % r for a in axes] if axes else list(range(r))
    roi = inputs.get(1)
    roi = None if roi is None or roi.size == 0 else roi.tolist()
    scales = inputs.get(2)
    sizes = inputs.get(3)
    if sizes is not None and sizes.size:
        wanted = [int(v) for v in sizes.tolist()]
        extents = [x.shape[a] for a in picked]
        ratios = [w / n for w, n in zip(wanted, extents, strict=True)]
        if keep_aspect_ratio_policy != "stretch":
            s = min(ratios) if keep_aspect_ratio_policy == "not_larger" else max(ratios)
            ratios = [s] * len(picked)
            wanted = [aspect_size(n, wanted, extents, keep_aspect_ratio_policy)
                      for n in extents]
    else:
        ratios = [float(v) for v in scales.tolist()]
        wanted = [scaled_size(x.shape[a], s) for a, s in zip(picked, ratios, strict=True)]
    y = x.astype(np.float64)
    for i, (a, m, s) in enumerate(zip(picked, wanted, ratios, strict=True)):
        box = None if roi is None else (roi[i], roi[i + len(picked)])
        if m == y.shape[a] and math.isclose(s, 1.0) and (box is None or box == (0.0, 1.0)):
            continue
        y = _along(y, a, m, s, box, mode, coordinate_transformation_mode, nearest_mode,
                   cubic_coeff_a, exclude_outside, extrapolation_value)
    return y.astype(x.dtype)


def upsample(x: np.ndarray, *rest: np.ndarray, scales: tuple | None = None,
             mode: str = "nearest", **_: Any) -> np.ndarray:
    """Upsample as Resize of opset 10 computes it: asymmetric coordinates; the nearest
    pixel is the floor of the position (its ceiling when an axis shrinks)."""
    ratios = [float(s) for s in (scales if scales is not None else rest[0].tolist())]
    y = x.astype(np.float64)
    for a, s in enumerate(ratios):
        m = scaled_size(x.shape[a], s)
        if m == y.shape[a] and s == 1.0:
            continue
        y = _along(y, a, m, s, None, mode, "asymmetric", "floor" if s >= 1 else "ceil",
                   -0.75, 0, 0.0)
    return y.astype(x.dtype)

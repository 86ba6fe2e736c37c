"""ONNX's object detection family (``onnx/defs/object_detection``): NonMaxSuppression
and RoiAlign (typed, not computed), and MaxRoiPool (of ``onnx/defs/nn``, a region of
interest op like RoiAlign) (``signatures/onnx/object_detection.toml``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.templates import alternative, dims, reads_ranks, typed
from ..syntax.alternative import Alternative
from ..syntax.ast import DimVar
from .shared import rest_operands

#: NonMaxSuppression's optional inputs' dtypes by their place (its schema's): the most
#: boxes per class int64, the two thresholds float32.
_NMS_DTYPES = {2: "int64", 3: "float32", 4: "float32"}


@reads_ranks
def build_nms(types: tuple, given: tuple = (0, 1), **_: Any) -> dict[str, Any]:
    """NonMaxSuppression: the optional inputs (``given`` says which the node has) of any
    shape, each of its schema's dtype."""
    rest = rest_operands(types, 2)
    return {"rest": [typed(r.dims, _NMS_DTYPES[place])
                     for r, place in zip(rest, given[2:], strict=True)]}


def _corners(box: np.ndarray, center: int) -> tuple[float, float, float, float]:
    """(x low, x high, y low, y high) of a box given as corners or centre and size."""
    if center:
        x, y, w, h = box
        return x - w / 2, x + w / 2, y - h / 2, y + h / 2
    y1, x1, y2, x2 = box
    return min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)


def _overlaps(a: np.ndarray, b: np.ndarray, center: int, threshold: float) -> bool:
    """Whether the intersection over union of two boxes exceeds ``threshold``."""
    ax0, ax1, ay0, ay1 = _corners(a, center)
    bx0, bx1, by0, by1 = _corners(b, center)
    w, h = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
    if w <= 0 or h <= 0:
        return False
    inter = w * h
    area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    if area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return inter / union > threshold


def nms(boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray, given: tuple = (0, 1),
        center_point_box: int = 0) -> np.ndarray:
    """Greedy selection per batch and class, by falling score (ties: lower index); each
    optional input read by its place (``given``: an iou_threshold without the most
    boxes per class is the iou threshold)."""
    placed = dict(zip(given[2:], rest, strict=True))
    limit = int(placed[2].ravel()[0]) if 2 in placed and placed[2].size else 0
    iou = float(placed[3].ravel()[0]) if 3 in placed and placed[3].size else 0.0
    floor = float(placed[4].ravel()[0]) if 4 in placed and placed[4].size else None
    found = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = sorted((i for i in range(len(s)) if floor is None or s[i] > floor),
                           key=lambda i: (-s[i], i))
            kept: list[int] = []
            for i in order:
                if len(kept) >= limit:
                    break
                if not any(_overlaps(boxes[b, i], boxes[b, j], center_point_box, iou)
                           for j in kept):
                    kept.append(i)
                    found.append((b, c, i))
    return np.array(found, dtype=np.int64).reshape(-1, 3)


@reads_ranks
def build_roi_align(types: tuple, output_height: int = 1, output_width: int = 1,
                    batch_indices_value: Any = None, **_: Any) -> dict[str, Any]:
    """RoiAlign: one output per region of interest. Constant batch indices
    (``batch_indices_value``) each name an image of X, ``0 <= k < n`` (onnxruntime
    refuses others, and any negative one); which image indices that are data name the
    run decides, but a region names one, so there are none where the batch is empty
    (:func:`_regions`)."""
    r, c, n, h, w = dims("r c n h w")
    inputs = [typed([n, c, h, w], "T"), typed([r, 4], "T"), typed([r], "I")]
    out = [typed([r, c, output_height, output_width], "T")]
    if batch_indices_value is None:
        return {"sig": _regions(inputs, out, n, r), "params": {"batch_indices_value": None}}
    if batch_indices_value and min(batch_indices_value) < 0:
        raise ParamError(f"a batch index is negative: {min(batch_indices_value)}")
    fits = [n >= max(batch_indices_value) + 1] if batch_indices_value else []
    return {"sig": [alternative(inputs, out, fits)], "params": {"batch_indices_value": None}}


def _regions(inputs: list, out: list, n: DimVar, r: DimVar) -> list[Alternative]:
    """The alternatives of regions whose images the data name in a batch of ``n``: an
    image to name (``n >= 1``), or no region (``r == 0``): onnxruntime refuses every
    region of an empty batch, whatever its index (RoiAlign's and MaxRoiPool's)."""
    return [alternative(inputs, out, [n >= 1]), alternative(inputs, out, [r.eq(0)])]


@reads_ranks
def build_max_roi_pool(types: tuple, pooled_shape: tuple, **_: Any) -> dict[str, Any]:
    """MaxRoiPool: one (C, pooled_h, pooled_w) map per region of interest (a row
    ``(batch_index, x1, y1, x2, y2)`` of ``rois``). A region names an image of X, so
    there are none where the batch is empty (:func:`_regions`); which image each names
    the data decide (the run checks it, as for RoiAlign)."""
    if len(pooled_shape) != 2 or min(pooled_shape) < 1:
        raise ParamError(f"pooled_shape {tuple(pooled_shape)}: two sizes of 1 or more")
    n, c, r, h, w = dims("n c r h w")
    return {"sig": _regions([typed([n, c, h, w], "T"), typed([r, 5], "T")],
                            [typed([r, c, *pooled_shape], "T")], n, r)}


def max_roi_pool(x: np.ndarray, rois: np.ndarray, *, pooled_shape: tuple,
                 spatial_scale: float = 1.0) -> np.ndarray:
    """Caffe's RoI max pooling, as onnxruntime computes it (in float32): each region's
    corners scaled and rounded half away from zero, its extent at least 1, split into
    ``pooled_shape`` bins (floor of the start, ceiling of the end, clamped to X); an
    empty bin is 0."""
    n, c, h, w = x.shape
    ph, pw = pooled_shape
    f32 = np.float32
    out = np.zeros((rois.shape[0], c, ph, pw), x.dtype)
    for k, roi in enumerate(np.asarray(rois, f32)):
        b = int(roi[0])
        if not 0 <= b < n:
            raise ValueError(f"MaxRoiPool: region {k} names image {b} of a batch of {n}")
        corner = roi[1:5] * f32(spatial_scale)
        x1, y1, x2, y2 = (int(np.sign(v) * np.floor(np.abs(v) + f32(0.5))) for v in corner)
        bin_h = f32(max(y2 - y1 + 1, 1)) / f32(ph)
        bin_w = f32(max(x2 - x1 + 1, 1)) / f32(pw)
        for i in range(ph):
            top = min(max(int(np.floor(f32(i) * bin_h)) + y1, 0), h)
            bottom = min(max(int(np.ceil(f32(i + 1) * bin_h)) + y1, 0), h)
            for j in range(pw):
                left = min(max(int(np.floor(f32(j) * bin_w)) + x1, 0), w)
                right = min(max(int(np.ceil(f32(j + 1) * bin_w)) + x1, 0), w)
                if bottom > top and right > left:
                    out[k, :, i, j] = x[b, :, top:bottom, left:right].max(axis=(1, 2))
    return out

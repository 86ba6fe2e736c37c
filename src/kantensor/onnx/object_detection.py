"""ONNX's object detection family (``onnx/defs/object_detection``): NonMaxSuppression
and RoiAlign (typed, not computed) (``signatures/onnx/object_detection.toml``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.templates import dims, reads_ranks, typed
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
    refuses others, and any negative one); indices that are data are not checked (the
    run decides)."""
    r, c, n = dims("r c n")
    fits = []
    if batch_indices_value:
        if min(batch_indices_value) < 0:
            raise ParamError(f"a batch index is negative: {min(batch_indices_value)}")
        fits.append(n >= max(batch_indices_value) + 1)
    return {"y": [r, c, output_height, output_width], "fits": fits,
            "params": {"batch_indices_value": None}}

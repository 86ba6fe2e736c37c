"""ONNX's sampling grids: GridSample and AffineGrid.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.sizes import SizeNames
from ...ops.templates import builder, dims, reads_ranks, signed
from ..shared import NotKnown


@reads_ranks
def build_grid_sample(types: tuple, **_: Any) -> dict[str, Any]:
    """GridSample: (N, C, spatial...) sampled at a grid (N, out..., r) -> (N, C, out...);
    every spatial axis of X at least 1, as onnxruntime requires whatever the grid ("Input
    spatial dimensions must be non-empty for sampling"). Of another rank than 4 or 5
    (the spec's any number of spatial axes, from opset 20) it is left untyped:
    onnxruntime's kernel refuses it ("Only 4-D or 5-D tensor is supported")."""
    x = types[0]
    if x.ndim not in (4, 5):
        raise NotKnown(f"GridSample of a {x.ndim}-d X: onnxruntime's kernel runs 4-D or 5-D "
                       "ones only, the spec any number of spatial axes")
    k = x.ndim - 2
    out, spatial = dims("o", k), dims("a", k)
    n, c = dims("n c")
    return {"x": [n, c, *spatial], "g": [n, *out, k], "y": [n, c, *out],
            "fits": [a >= 1 for a in spatial]}


def _reflect(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``v`` reflected by the nearer border until it lies in [lo, hi]."""
    span = hi - lo
    below, above = v < lo, v > hi
    dx = np.where(below, lo - v, v - hi)
    n = np.floor(dx / span)
    r = dx - n * span
    even = n % 2 == 0
    return np.where(below, np.where(even, lo + r, hi - r),
                    np.where(above, np.where(even, hi - r, lo + r), v))


def _cubic(t: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    s, u = t + 1, 1 - t
    return [((a * s - 5 * a) * s + 8 * a) * s - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * u - (a + 3)) * u * u + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]


def grid_sample(x: np.ndarray, grid: np.ndarray, *, align_corners: int = 0,
                mode: str = "linear", padding_mode: str = "zeros") -> np.ndarray:
    """Samples of x (N, C, spatial...) at the grid's normalised points (N, out..., k),
    the last grid axis in reverse axis order (x first)."""
    n, c = x.shape[:2]
    dims = x.shape[2:]
    k = len(dims)
    taps_per_axis, bounds = [], []
    for i, d in enumerate(dims):
        v = grid[..., k - 1 - i].astype(np.float64)
        v = (v + 1) / 2 * (d - 1) if align_corners else ((v + 1) * d - 1) / 2
        if mode == "nearest":
            v = np.rint(v)
        lo, hi = (0.0, d - 1.0) if align_corners else (-0.5, d - 0.5)
        outside = (v < lo) | (v > hi)
        if padding_mode == "border":
            v = np.where(outside, np.clip(v, 0, d - 1), v)
        elif padding_mode == "reflection":
            v = np.where(outside, _reflect(v, lo, hi), v)
        base = np.floor(v)
        t = v - base
        if mode == "nearest":
            taps = [(v, np.ones_like(v))]
        elif mode == "linear":
            taps = [(base, 1 - t), (base + 1, t)]
        else:
            taps = list(zip([base - 1, base, base + 1, base + 2], _cubic(t), strict=True))
        taps_per_axis.append(taps)
        bounds.append((lo, hi))
    batch = np.arange(n).reshape((n,) + (1,) * (grid.ndim - 2))
    out = np.zeros(grid.shape[:-1] + (c,))
    for combo in itertools.product(*taps_per_axis):
        weight = np.ones(grid.shape[:-1])
        valid = np.ones(grid.shape[:-1], dtype=bool)
        index = []
        for (pos, w), d, (lo, hi) in zip(combo, dims, bounds, strict=True):
            i = pos.astype(np.int64)
            if padding_mode == "zeros":
                valid &= (i >= 0) & (i < d)
            elif padding_mode == "reflection":
                i = np.trunc(_reflect(i.astype(np.float64), lo, hi)).astype(np.int64)
            index.append(np.clip(i, 0, d - 1))
            weight = weight * w
        picked = x[(batch, slice(None), *index)] if k else x  # (N, out..., C)
        out += (weight * valid)[..., None] * picked
    return np.moveaxis(out, -1, 1).astype(x.dtype)


@builder
def build_affine_grid(types: tuple, size_value: Any, **_: Any) -> dict[str, Any]:
    """AffineGrid: (N, H, W, 2) or (N, D, H, W, 3) from the size (N, C, spatial...);
    theta's batch is the size's N where that is known (onnxruntime checks it)."""
    if size_value is None:
        raise NotKnown("AffineGrid needs a constant size")
    if len(size_value) not in (4, 5):
        raise ParamError(f"size must be (N, C, H, W) or (N, C, D, H, W), got "
                         f"{len(size_value)} entries")
    sizes = SizeNames(size_value)
    if None in size_value[2:]:
        raise NotKnown("AffineGrid needs every size known")
    spatial = [signed(sizes.expr(v)) for v in size_value[2:]]
    k = len(spatial)
    n = dims("n")[0] if size_value[0] is None else signed(sizes.expr(size_value[0]))
    return {"theta": [n, k, k + 1], "sizes": sizes.patterns(), "y": [n, *spatial, k]}


def affine_grid(theta: np.ndarray, size: np.ndarray, *sizes: np.ndarray,
                align_corners: int = 0, **_: Any) -> np.ndarray:
    spatial = [int(v) for v in size.tolist()[2:]]

    def axis(n: int) -> np.ndarray:
        if align_corners:
            return np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
        return (np.arange(n) * 2 + 1) / n - 1

    coords = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")[::-1]
    base = np.stack([*coords, np.ones_like(coords[0])], axis=-1)  # (..., k+1): x, y, (z), 1
    return np.einsum("...j,nij->n...i", base, theta).astype(theta.dtype)

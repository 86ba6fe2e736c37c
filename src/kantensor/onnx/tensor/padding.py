"""ONNX's padding ops: Pad (constant, reflect, edge and wrap modes; negative pads crop) and
CenterCropPad (each picked axis cropped or padded about its centre to a given size). The
sizes are values of inputs (pads, shape), read with the model where known.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axes, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import (
    alternative,
    builder,
    checked,
    dims,
    groups,
    shifted,
    signed,
    size_of,
    typed,
)
from ...syntax.alternative import Alternative
from ...syntax.ast import Clause, DimVar
from ..shared import rest_operands


@builder
def build_pad(types: tuple, pads_value: Any, axes_value: Any = None, given: tuple = (0, 1),
              mode: str = "constant", **_: Any) -> dict[str, Any]:
    """Pad: each padded axis grows by its two pads (negative pads crop). Outside constant
    mode a padded axis must keep a value after cropping: a pad copies its values (NumPy
    and onnxruntime refuse an empty one; onnxruntime refuses a crop to nothing too); in
    reflect mode onnxruntime reflects once, so each pad is less than the cropped axis; in
    wrap mode it refuses any empty input. An empty input in reflect or edge mode copies
    nothing, and onnxruntime runs it where each empty axis stays empty (another
    alternative, :func:`_empty_input`). The constant value is of the data's dtype."""
    x = types[0]
    a = dims("a", x.ndim)
    if 3 in given:
        if axes_value is None or not all(isinstance(ax, int) for ax in axes_value):
            axes = None
        else:
            axes = [normalize_axis(ax, x.ndim) for ax in axes_value]
    else:
        axes = list(range(x.ndim))
    out: list[Any] = list(a)
    clauses: list[Clause] = []
    nets: list[int] | None = [] if mode in ("reflect", "edge") else None
    unknown = dims("u", x.ndim)
    if axes is None or pads_value is None or len(pads_value) != 2 * len(axes):
        out = unknown
        clauses = [u >= 0 for u in unknown]
        nets = None
    else:
        sizes = SizeNames(tuple(pads_value))
        k = len(axes)
        for i, ax in enumerate(axes):
            before, after = pads_value[i], pads_value[i + k]
            if before is None or after is None:
                out[ax] = unknown[ax]
                clauses.append(unknown[ax] >= 0)
                nets = None
            else:
                if nets is not None:
                    nets = nets + [before + after] if isinstance(before, int) and \
                        isinstance(after, int) else None
                out[ax] = a[ax] + signed(sizes.expr(before)) + signed(sizes.expr(after))
                if mode != "constant" and isinstance(before, int) and isinstance(after, int) \
                        and (before, after) != (0, 0):
                    # reflect copies at most the axis less its edge value per side
                    most = max(before, after, 0) if mode == "reflect" else 0
                    clauses.append(shifted(a[ax], min(before, 0) + min(after, 0)) >= most + 1)
    if mode == "wrap":  # onnxruntime refuses an empty input in wrap mode, pads or not
        clauses += [checked(d >= 1, lambda v, types, k=k: (
            f"axis {k} of {types[0]} is empty: onnxruntime's wrap mode refuses an empty "
            "input")) for k, d in enumerate(a)]
    sizes = SizeNames(pads_value, axes_value)
    rest = groups("r", len(types) - 2 - len(sizes.dims))
    places = given[2:] if len(given) - 2 == len(rest) else range(2, 2 + len(rest))
    # constant_value (the third input) is of the data's dtype; axes of any integer
    rest = [typed(r.dims, "T") if place == 2 else r
            for r, place in zip(rest, places, strict=True)]
    return {"sig": _empty_input([typed(a, "T"), typed(dims("k"), "int64"), *rest,
                                 *sizes.patterns()], a, out, clauses, axes, nets),
            "x": a, "y": out, "fits": clauses, "axes": axes, "nets": nets}


def _empty_input(inputs: list, a: list[DimVar], out: list, fits: list[Clause],
                 axes: Any, nets: list[int] | None) -> list[Alternative]:
    """Pad's alternatives: its clauses ``fits``; and in reflect or edge mode with every
    pad known (``nets``: each padded axis' two pads added, in ``axes``' order), an empty
    input, which onnxruntime runs where each empty axis stays empty and no axis is cropped
    below 0 (brute-forced over ranks 2 and 3: 8,412 empty inputs, none otherwise)."""
    outs = [typed(out, "T")]
    made = [alternative(inputs, outs, fits)]
    if nets is None or not fits:  # (no pad copies: no clause to waive)
        return made
    empty: list[Clause] = [size_of(a).eq(0)]
    for ax, net in zip(axes, nets, strict=True):
        if net > 0:
            empty.append(a[ax] >= 1)
        elif net < 0:
            empty.append(shifted(a[ax], net) >= 0)
    return [*made, alternative(inputs, outs, empty)]


def pad(x: np.ndarray, pads: np.ndarray, *rest: np.ndarray, mode: str = "constant",
        given: tuple = (0, 1), **_: Any) -> np.ndarray:
    more = dict(zip([g for g in given if g > 1], rest, strict=False))
    value = more[2].item() if 2 in more and more[2].size else 0
    axes = [int(a) % x.ndim for a in more[3]] if 3 in more else list(range(x.ndim))
    k = len(axes)
    widths = [(0, 0)] * x.ndim
    pads = [int(p) for p in pads.tolist()]
    for i, a in enumerate(axes):
        widths[a] = (pads[i], pads[i + k])
    crop = tuple(slice(max(-b, 0), x.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(widths))
    x = x[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in widths]
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode={"reflect": "reflect", "edge": "edge", "wrap": "wrap"}[mode])


@builder
def build_center_crop_pad(types: tuple, shape_value: Any, axes: tuple | None = None,
                          **_: Any) -> dict[str, Any]:
    """One size per axis picked, from ``shape``'s entries: as many as the axes, or one
    for every axis (ONNX's function body, which onnxruntime runs, broadcasts it: a value
    computed when the model runs, or a value of sizes). A known value of ints of another
    length is refused, one entry included: onnxruntime's shape inference refuses it where
    it sees the value (an initializer, a Constant, a Shape of static sizes; at its default
    optimisation level, constant folding, any value folded from them); where the length is
    not known, the relation needs it to be 1 or the number of axes (``(n - 1)*(n - k) ==
    0``) and each size is unknown."""
    x = types[0]
    a = dims("a", x.ndim)
    picked = normalize_axes(axes, x.ndim) if axes is not None else tuple(range(x.ndim))
    if axes is not None:
        picked = tuple(normalize_axis(ax, x.ndim) for ax in axes)
    k = len(picked)
    sizes = SizeNames(shape_value)
    out: list[Any] = list(a)
    clauses: list[Clause] = []
    rest = rest_operands(types, 1, sizes)
    rest[0] = typed(rest[0].dims, "I")  # (shape: of the entry's index dtypes)
    length = len(shape_value) if shape_value else types[1].shape[0] if \
        types[1].ndim == 1 else None
    values = list(shape_value) if shape_value else [None] * k
    if shape_value and length == 1 < k and not all(isinstance(v, int) for v in shape_value):
        values = values * k  # (a value of sizes: computed when the model runs)
    elif length == 1 and not shape_value and k > 1:
        values = [DimVar("u")] * k
        clauses.append(values[0] >= 0)
    elif type(length) is int and length != k:
        raise ParamError(f"shape has {length} entries, expected {k} (one "
                         f"per {'entry of axes' if axes is not None else 'axis of x'})")
    elif length is not None and type(length) is not int or length is None and \
            not shape_value and types[1].ndim == 1:  # (its length not known now)
        n = DimVar("n")
        rest[0] = typed([n], "I")
        clauses.append(((n - 1) * (n - k)).eq(0) if k > 1 else n.eq(1))
    for ax, v in zip(picked, values, strict=True):
        if isinstance(v, DimVar):
            out[ax] = v
        elif v is None:
            out[ax] = DimVar(f"u{ax}")
            clauses.append(out[ax] >= 0)
        else:
            out[ax] = signed(sizes.expr(v))
    return {"x": a, "rest": rest, "y": out, "fits": clauses, "params": {"axes": picked}}


def center_crop_pad(x: np.ndarray, shape: np.ndarray, *sizes: np.ndarray, axes: tuple,
                    **_: Any) -> np.ndarray:
    y = x
    entries = shape.tolist() * len(axes) if shape.size == 1 else shape.tolist()  # (one
    for ax, n in zip(axes, entries, strict=True):  # entry for every axis: broadcast)
        have = y.shape[ax]
        if have > n:
            start = (have - n) // 2
            y = np.take(y, np.arange(start, start + n), axis=ax)
        elif have < n:
            before = (n - have) // 2
            width = [(0, 0)] * y.ndim
            width[ax] = (before, n - have - before)
            y = np.pad(y, width)
    return y


@builder
def build_pad_attribute(types: tuple, pads: tuple, mode: str = "constant", **_: Any
                        ) -> dict[str, Any]:
    """Pad from opset 2 to 10: its pads an attribute (ints) and its constant value one
    too (a float), the sizes Pad's of those pads as constant inputs (onnxruntime runs
    both with one kernel)."""
    made = build_pad((types[0], types[0]), pads_value=tuple(pads), given=(0, 1), mode=mode)
    return {"sig": _empty_input([typed(made["x"], "T")], made["x"], made["y"], made["fits"],
                                made["axes"], made["nets"])}


def pad_attribute(x: np.ndarray, *, pads: tuple, mode: str = "constant", value: float = 0.0,
                  **_: Any) -> np.ndarray:
    return pad(x, np.asarray(pads, np.int64), np.asarray([value], x.dtype), mode=mode,
               given=(0, 1, 2))

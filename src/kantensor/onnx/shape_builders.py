"""Builders of the ONNX shape ops whose sizes come from input values (see
:mod:`.builders`)."""

from __future__ import annotations

import math
from typing import Any

from ..ops.families.indexing import slice_length
from ..ops.families.linalg import build_einsum
from ..ops.params import ParamError, normalize_axis
from ..ops.sizes import SizeNames
from ..ops.templates import builder, names, operand, product, reads_ranks, where
from ..types.dim import Dim
from .dtypes import dtype_of


def _entries(value: Any, n: int, what: str) -> list:
    """``value`` as ``n`` entries (None if unknown)."""
    if value is None:
        return [None] * n
    if len(value) != n:
        raise ParamError(f"{what} has {len(value)} entries, expected {n}")
    return list(value)


@reads_ranks
def split(types: tuple, axis: int, outputs: int, split_value: Any = None,
          num_outputs: int | None = None, given: tuple = (0,), **_: Any) -> dict[str, Any]:
    """Split: the sizes of the ``split`` input, else ``num_outputs`` (or as many as the
    node's outputs) chunks of ceil(size/n), the last one what is left (opset 18; before,
    equal parts)."""
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    dims = names("a", x.ndim)
    n, d = outputs, dims[ax]
    clauses: list[str] = []
    if 1 in given:
        values = _entries(split_value, n, "split") if split_value is not None else [None] * n
        sizes = SizeNames(tuple(values))
        parts = []
        for i, v in enumerate(values):
            if v is None:
                parts.append(f"p{i}")
                clauses.append(f"p{i} >= 0")
            else:
                parts.append(sizes.text(v))
        if all(v is not None for v in values):
            clauses.append(f"{'+'.join(parts)} == {d}")
        rest = ",(k):int64" + sizes.operands(after=True)
    else:
        if num_outputs is not None and num_outputs != n:
            raise ParamError(f"num_outputs is {num_outputs} but the node has {n} outputs")
        chunk = f"(({d}+{n - 1})//{n})"
        parts = [chunk] * (n - 1) + [f"{d}-{n - 1}*{chunk}" if n > 1 else d]
        if n > 1:  # ONNX's last chunk; negative (a size below n-1 chunks) is refused
            clauses.append(f"{parts[-1]} >= 0")
        rest = ""
    outs = []
    for p in parts:
        shape = list(dims)
        shape[ax] = p
        outs.append(operand(shape) + ":T")
    return {"x": operand(dims), "rest": rest, "parts": ",".join(outs),
            "fits": where(clauses), "params": {"axis": ax}}


def _value_text(sizes: SizeNames, v: Any) -> str | None:
    return None if v is None else sizes.text(v)


@builder
def slice_(types: tuple, starts_value: Any, ends_value: Any, axes_value: Any = None,
           steps_value: Any = None, given: tuple = (0, 1, 2), **_: Any) -> dict[str, Any]:
    """Slice: Python's slice along each listed axis (ONNX clamps the same way); a
    bound that is a size the model names (``seq``) counts as unknown unless it is the
    axis' own size."""
    x = types[0]
    dims = names("a", x.ndim)
    n = len(types[1].shape) and types[1].shape[0]
    if not isinstance(n, int):
        raise ParamError("starts has an unknown length")
    axes = list(range(n)) if 3 not in given else _entries(axes_value, n, "axes")
    steps = [1] * n if 4 not in given else _entries(steps_value, n, "steps")
    starts, ends = _entries(starts_value, n, "starts"), _entries(ends_value, n, "ends")
    out: list[str] = list(dims)
    clauses: list[str] = []
    if any(a is None or isinstance(a, Dim) for a in axes):
        out = [f"u{i}" for i in range(x.ndim)]
        clauses = [f"u{i} >= 0" for i in range(x.ndim)]
    else:
        picked = [normalize_axis(a, x.ndim) for a in axes]
        if len(set(picked)) != len(picked):
            raise ParamError(f"repeated axis in {tuple(axes)}")
        for i, ax in enumerate(picked):
            start, end, step = starts[i], ends[i], steps[i]
            own = x.shape[ax]
            if isinstance(end, Dim) and end == own:
                end = None if (not isinstance(step, int) or step > 0) else end
            if isinstance(start, Dim) and start == own and isinstance(step, int) and step < 0:
                start = None
            if not all(v is None or isinstance(v, int) for v in (start, end, step)) \
                    or step == 0 or (step is None):
                out[ax] = f"u{ax}"
                clauses.append(f"u{ax} >= 0")
                continue
            big = 1 << 62  # INT64_MAX and the like: the end of the axis
            start = None if start is not None and abs(start) >= big else start
            end = None if end is not None and abs(end) >= big else end
            out[ax] = slice_length(dims[ax], start, end, step)
    sizes = SizeNames(starts_value, ends_value, axes_value, steps_value)
    return {"x": operand(dims), "rest": ",(k):I" * (len(types) - 2 - len(sizes.dims))
            + sizes.operands(after=True), "y": operand(out), "fits": where(clauses)}


@builder
def expand(types: tuple, shape_value: Any, **_: Any) -> dict[str, Any]:
    """Expand: NumPy's broadcast of the input with the shape; an axis is decided when
    one side is 1 or both are the same size, unknown otherwise."""
    x, shape = types[0], types[1]
    dims = names("a", x.ndim)
    k = shape.shape[0]
    if not isinstance(k, int):
        raise ParamError("shape has an unknown length")
    target = _entries(shape_value, k, "shape")
    sizes = SizeNames(tuple(target))
    n = max(k, x.ndim)
    out, clauses = [], []
    for i in range(n):
        j, t = i - (n - x.ndim), (target[i - (n - k)] if i >= n - k else 1)
        own = x.shape[j] if j >= 0 else 1
        d = dims[j] if j >= 0 else "1"
        if t == 1 or (t is not None and (t is own or t == own)):
            out.append(d)
        elif own == 1 and t is not None:
            out.append(sizes.text(t))
        elif isinstance(t, int):  # a valid broadcast against a size other than 1 gives it
            out.append(str(t))
        else:
            out.append(f"u{i}")
            clauses.append(f"u{i} >= 0")
    return {"x": operand(dims), "sizes": sizes.operands(after=True), "y": operand(out),
            "fits": where(clauses)}


@builder
def tile(types: tuple, repeats_value: Any, **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    reps = _entries(repeats_value, x.ndim, "repeats")
    sizes = SizeNames(tuple(reps))
    out, clauses = [], []
    for i, r in enumerate(reps):
        if r is None:
            out.append(f"u{i}")
            clauses.append(f"u{i} >= 0")
        else:
            out.append(f"{dims[i]}*{sizes.text(r)}")
    return {"x": operand(dims), "sizes": sizes.operands(after=True), "y": operand(out),
            "fits": where(clauses)}


@builder
def range_(types: tuple, start_value: Any, limit_value: Any, delta_value: Any,
           **_: Any) -> dict[str, Any]:
    """Range: max(ceil((limit - start) / delta), 0) elements, from the values when they
    are known (an int limit may be a size the model names)."""
    values = [v[0] if v else None for v in (start_value, limit_value, delta_value)]
    start, limit, delta = values
    sizes = SizeNames(tuple(values))
    if all(isinstance(v, int | float) for v in values) and delta != 0:
        return {"sizes": "", "n": str(max(math.ceil((limit - start) / delta), 0)),
                "fits": ""}
    if all(isinstance(v, int) or isinstance(v, Dim) for v in values) and \
            isinstance(delta, int) and delta > 0 and isinstance(start, int):
        lim = sizes.text(limit)
        return {"sizes": sizes.operands(after=True),
                "n": f"max({lim}{delta - 1 - start:+d},0)//{delta}", "fits": ""}
    return {"sizes": sizes.operands(after=True), "n": "u", "fits": " where u >= 0"}


@builder
def pad(types: tuple, pads_value: Any, axes_value: Any = None, given: tuple = (0, 1),
        **_: Any) -> dict[str, Any]:
    """Pad: each padded axis grows by its two pads (negative pads crop)."""
    x = types[0]
    dims = names("a", x.ndim)
    if 3 in given:
        if axes_value is None or not all(isinstance(a, int) for a in axes_value):
            axes = None
        else:
            axes = [normalize_axis(a, x.ndim) for a in axes_value]
    else:
        axes = list(range(x.ndim))
    out: list[str] = list(dims)
    clauses: list[str] = []
    if axes is None or pads_value is None or len(pads_value) != 2 * len(axes):
        out = [f"u{i}" for i in range(x.ndim)]
        clauses = [f"u{i} >= 0" for i in range(x.ndim)]
        sizes = SizeNames()
    else:
        sizes = SizeNames(tuple(pads_value))
        k = len(axes)
        for i, ax in enumerate(axes):
            before, after = pads_value[i], pads_value[i + k]
            if before is None or after is None:
                out[ax] = f"u{ax}"
                clauses.append(f"u{ax} >= 0")
            else:
                out[ax] = f"{dims[ax]}+({sizes.text(before)})+({sizes.text(after)})"
    sizes = SizeNames(pads_value, axes_value)
    return {"x": operand(dims), "rest": "".join(
                f",(*r{i})" for i in range(len(types) - 2 - len(sizes.dims))),
            "sizes": sizes.operands(after=True), "y": operand(out), "fits": where(clauses)}


@reads_ranks
def along_axis(types: tuple, **_: Any) -> dict[str, Any]:
    """The input's shape, any other inputs anything (Trilu's k, CumSum's axis)."""
    return {"x": operand(names("a", types[0].ndim)),
            "rest": "".join(f",(*r{i})" for i in range(len(types) - 1))}


@builder
def topk(types: tuple, axis: int, K_value: Any, **_: Any) -> dict[str, Any]:
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    dims = names("a", x.ndim)
    k = K_value[0] if K_value else None
    sizes = SizeNames(k) if isinstance(k, Dim) else SizeNames()
    out = list(dims)
    clauses = []
    if k is None:
        out[ax] = "u"
        clauses.append(f"u <= {dims[ax]}")
    else:
        out[ax] = sizes.text(k)
        clauses.append(f"{out[ax]} <= {dims[ax]}")
    return {"x": operand(dims), "sizes": sizes.operands(after=True), "y": operand(out),
            "fits": where(clauses), "params": {"axis": ax}}


@builder
def one_hot(types: tuple, axis: int, depth_value: Any, **_: Any) -> dict[str, Any]:
    i = types[0]
    n = i.ndim + 1
    ax = normalize_axis(axis, n)
    dims = names("a", i.ndim)
    depth = depth_value[0] if depth_value else None
    out = list(dims)
    if isinstance(depth, int | float):
        out.insert(ax, str(int(depth)))
        clauses = []
    else:
        out.insert(ax, "u")
        clauses = ["u >= 0"]
    sizes = SizeNames(depth_value)
    return {"i": operand(dims), "sizes": sizes.operands(after=True), "y": operand(out),
            "fits": where(clauses), "params": {"axis": ax}}


@reads_ranks
def nonzero(types: tuple, **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    return {"x": operand(dims), "n": str(x.ndim), "size": product(dims)}


@reads_ranks
def compress(types: tuple, axis: int | None = None, **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    if axis is None:
        return {"x": operand(dims), "y": "(u)", "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out = list(dims)
    out[ax] = "u"
    return {"x": operand(dims), "y": operand(out), "params": {"axis": ax}}


@reads_ranks
def unique(types: tuple, axis: int | None = None, **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    if axis is None:
        return {"x": operand(dims), "y": "(u)", "n": product(dims), "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out = list(dims)
    out[ax] = "u"
    return {"x": operand(dims), "y": operand(out), "n": dims[ax], "params": {"axis": ax}}


@builder
def einsum(types: tuple, equation: str, **_: Any) -> dict[str, Any]:
    made = build_einsum(types, subscripts=equation.replace(" ", ""))
    made.pop("params", None)
    return made


@reads_ranks
def eye_like(types: tuple, dtype: int | None = None, **_: Any) -> dict[str, Any]:
    x = types[0]
    return {"dt": dtype_of(dtype, "EyeLike") if dtype is not None else x.dtype}


@reads_ranks
def depth_to_space(types: tuple, blocksize: int, **_: Any) -> dict[str, Any]:
    b = blocksize
    return {"x": "(n,c,h,w)", "y": f"(n,c//{b * b},h*{b},w*{b})",
            "fits": f" where c % {b * b} == 0"}


@reads_ranks
def space_to_depth(types: tuple, blocksize: int, **_: Any) -> dict[str, Any]:
    b = blocksize
    return {"x": "(n,c,h,w)", "y": f"(n,c*{b * b},h//{b},w//{b})",
            "fits": f" where h % {b} == 0, w % {b} == 0"}


@builder
def gather_nd(types: tuple, batch_dims: int = 0, **_: Any) -> dict[str, Any]:
    """GatherND: the indices' leading axes, then the data's axes after the batch axes
    and the ``q`` indexed ones (``q``, the indices' last size, must be known)."""
    x, i = types
    q = i.shape[-1] if i.ndim else None
    if not isinstance(q, int):
        raise ParamError("the indices' last axis must have a known size")
    dims, idx = names("a", x.ndim), names("i", i.ndim)
    return {"x": operand(dims), "i": operand([*idx[:-1], q]),
            "y": operand([*idx[:-1], *dims[batch_dims + q:]])}


@reads_ranks
def dropout(types: tuple, outputs: int, **_: Any) -> dict[str, Any]:
    """Dropout: the output, and the mask (bool) when the node asks for it."""
    x = operand(names("a", types[0].ndim))
    return {"x": x, "rest": "".join(f",(*r{i})" for i in range(len(types) - 1)),
            "outs": f"{x}:T" + (f",{x}:bool" if outputs > 1 else "")}

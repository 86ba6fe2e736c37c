"""Builders of the ONNX Ops' signature templates (see ``signatures/onnx``).

A builder renders text from the input ranks (or types), the attributes and the values of
constant inputs; the relation decides every type. ONNX's axis conventions are resolved
here (negative axes made positive, ``keepdims``, ``allowzero``), so each implementation
computes exactly what its type says. Values of inputs are parameters named
``<input>_value`` (None when unknown when the model was read): ints, Dims (each carried
by a ``(s0):bool`` size input, see :class:`~kantensor.ops.sizes.SizeNames`) and None.
"""

from __future__ import annotations

import math
from typing import Any

from ..ops.families.indexing import slice_length
from ..ops.families.linalg import build_einsum
from ..ops.params import ParamError, normalize_axes, normalize_axis
from ..ops.sizes import SizeNames
from ..ops.templates import names, operand, product, reads_ranks, where
from ..types.dim import Dim
from .dtypes import dtype_of


def _unknown(prefix: str, n: int) -> tuple[list[str], list[str]]:
    """``n`` fresh unknown sizes and the clauses declaring them."""
    dims = names(prefix, n)
    return dims, [f"{d} >= 0" for d in dims]


@reads_ranks
def variadic(types: tuple, **_: Any) -> dict[str, Any]:
    """``+():T,():T,...->():T`` for as many inputs as the node has (Max, Sum, Mean)."""
    return {"inputs": ",".join(["():T"] * len(types))}


@reads_ranks
def bounds(types: tuple, **_: Any) -> dict[str, Any]:
    """Clip's optional min and max, of the input's dtype: the operands present."""
    return {"bounds": ",():T" * (len(types) - 1)}


@reads_ranks
def cast(types: tuple, to: int, **_: Any) -> dict[str, Any]:
    """Cast's target dtype, from the ONNX element type ``to``."""
    return {"to_dtype": dtype_of(to, "Cast")}


@reads_ranks
def same_axis(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """One axis of the input (Softmax, Hardmax, CumSum's attribute form): resolved."""
    x = types[0]
    dims = names("a", x.ndim)
    return {"x": operand(dims), "params": {"axis": normalize_axis(axis, max(x.ndim, 1))
                                              if x.ndim else 0}}


@reads_ranks
def flatten(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Flatten: the axes before ``axis`` and from it, each multiplied out."""
    x = types[0]
    if not -x.ndim <= axis <= x.ndim:
        raise ParamError(f"axis {axis} is out of bounds for a tensor of dimension {x.ndim}")
    axis = axis + x.ndim if axis < 0 else axis
    dims = names("a", x.ndim)
    return {"x": operand(dims), "y": operand([product(dims[:axis]), product(dims[axis:])]),
            "params": {"axis": axis}}


@reads_ranks
def transpose(types: tuple, perm: tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    x = types[0]
    perm = tuple(reversed(range(x.ndim))) if perm is None else perm
    if sorted(normalize_axis(p, x.ndim) for p in perm) != list(range(x.ndim)):
        raise ParamError(f"perm {perm} is not a permutation of the {x.ndim} axes")
    dims = names("a", x.ndim)
    return {"x": operand(dims), "y": operand(dims[p % x.ndim] for p in perm),
            "params": {"perm": tuple(p % x.ndim for p in perm)}}


def _ints(value: Any, what: str) -> tuple[int, ...]:
    """A known value of ints (axes, perm); ParamError if unknown or symbolic."""
    if value is None or not all(isinstance(v, int) for v in value):
        raise ParamError(f"{what} must be constant integers when the model is read, "
                         f"got {value!r}")
    return tuple(value)


@reads_ranks
def reduce(types: tuple, keepdims: int, axes_value: Any = None, axes: Any = None,
           noop_with_empty_axes: int = 0, given: tuple = (0,), **_: Any) -> dict[str, Any]:
    """ReduceX: the axes from the input (opset 18, ReduceSum 13) or the attribute; none
    means all, or none at all with ``noop_with_empty_axes``."""
    x = types[0]
    if 1 in given:
        chosen = _ints(axes_value, "axes")
    else:
        chosen = tuple(axes) if axes is not None else ()
    if not chosen:
        chosen = () if noop_with_empty_axes else tuple(range(x.ndim))
    picked = normalize_axes(chosen, x.ndim)
    dims = names("a", x.ndim)
    kept = [1 if i in picked else d for i, d in enumerate(dims)] if keepdims else \
        [d for i, d in enumerate(dims) if i not in picked]
    return {"x": operand(dims), "rest": ",(k)" if 1 in given else "",
            "y": operand(kept), "params": {"axes": picked, "axes_value": None}}


@reads_ranks
def arg_reduce(types: tuple, axis: int, keepdims: int, **_: Any) -> dict[str, Any]:
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    dims = names("a", x.ndim)
    out = [1 if i == ax else d for i, d in enumerate(dims)] if keepdims else \
        [d for i, d in enumerate(dims) if i != ax]
    return {"x": operand(dims), "y": operand(out), "params": {"axis": ax}}


def reshape(types: tuple, shape_value: Any, allowzero: int, **_: Any) -> dict[str, Any]:
    """Reshape: 0 copies the input's size (unless ``allowzero``), -1 is the input's size
    over the others; a Dim entry is its size input, an unknown one a fresh size."""
    x, shape = types[0], types[1]
    dims = names("a", x.ndim)
    if shape_value is None:
        k = shape.shape[0]
        if not isinstance(k, int):
            raise ParamError("the output rank is unknown: shape has an unknown length")
        out, clauses = _unknown("u", k)
        return {"x": operand(dims), "sizes": "", "y": operand(out),
                "fits": where(clauses)}
    sizes = SizeNames(shape_value)
    own = {d: dims[i] for i, d in enumerate(x.shape) if isinstance(d, Dim | int)}
    text: list[str] = []
    clauses: list[str] = []
    free = None
    rest = list(dims)
    for i, entry in enumerate(shape_value):
        if entry is None:
            text.append(f"u{i}")
            clauses.append(f"u{i} >= 0")
        elif entry == 0 and not allowzero:
            if i >= x.ndim:
                raise ParamError(f"shape entry {i} is 0 (copy) but the input has {x.ndim} axes")
            text.append(dims[i])
        elif isinstance(entry, int) and entry == -1:
            if free is not None:
                raise ParamError("shape has more than one -1")
            free = i
            text.append("")
        elif isinstance(entry, int) and entry < 0:
            raise ParamError(f"shape entry {entry} is negative")
        elif isinstance(entry, Dim) and entry in own and own[entry] in rest:
            text.append(own[entry])  # one of the input's own sizes
        else:
            text.append(sizes.text(entry))
    unknown = any(e is None for e in shape_value)
    if free is None:
        if not unknown:
            clauses.append(f"{product(dims)} == {product(text)}")
    elif unknown:
        text[free] = "w"
        clauses.append("w >= 0")
    else:
        others = [t for i, t in enumerate(text) if i != free]
        left = list(dims)
        kept = []
        for t in others:  # an input axis named again cancels out of the quotient
            if t in left:
                left.remove(t)
            else:
                kept.append(t)
        num, den = product(left), product(kept)
        text[free] = f"({num})//({den})" if kept else f"({num})"
        if kept:
            clauses.append(f"({num}) % ({den}) == 0")
    return {"x": operand(dims), "sizes": sizes.operands(after=True), "y": operand(text),
            "fits": where(clauses)}


@reads_ranks
def shape(types: tuple, start: int, end: int | None, **_: Any) -> dict[str, Any]:
    """Shape: as many entries as the axes from ``start`` to ``end`` (clamped)."""
    n = types[0].ndim
    picked = range(n)[slice(start, end)]
    return {"x": operand(names("a", n)), "n": str(len(picked)),
            "params": {"start": picked.start if len(picked) else 0,
                       "end": picked.stop if len(picked) else 0}}


@reads_ranks
def gather(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Gather: the indices' axes replace ``axis``."""
    x, i = types
    ax = normalize_axis(axis, x.ndim)
    dims, idx = names("a", x.ndim), names("i", i.ndim)
    return {"x": operand(dims), "i": operand(idx),
            "y": operand(dims[:ax] + idx + dims[ax + 1:]), "params": {"axis": ax}}


@reads_ranks
def gather_elements(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    x, i = types
    if x.ndim != i.ndim:
        raise ParamError(f"data has {x.ndim} axes but indices {i.ndim}")
    ax = normalize_axis(axis, x.ndim)
    dims, idx = names("a", x.ndim), names("i", i.ndim)
    return {"x": operand(dims), "i": operand(idx), "y": operand(idx), "params": {"axis": ax}}


@reads_ranks
def concat(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Concat: the sizes along ``axis`` add up; the others are one."""
    n = types[0].ndim
    ax = normalize_axis(axis, n)
    operands = []
    for k, t in enumerate(types):
        if t.ndim != n:
            raise ParamError(f"input {k} has {t.ndim} axes, input 0 has {n}")
        dims = names("a", n)
        dims[ax] = f"c{k}"
        operands.append(operand(dims) + ":T")
    out = names("a", n)
    out[ax] = "+".join(f"c{k}" for k in range(len(types)))
    return {"inputs": ",".join(operands), "y": operand(out), "params": {"axis": ax}}


def unsqueeze(types: tuple, axes_value: Any, **_: Any) -> dict[str, Any]:
    x = types[0]
    n = x.ndim + len(axes_value or ())
    axes = normalize_axes(_ints(axes_value, "axes"), n)
    dims = iter(names("a", x.ndim))
    out = [1 if i in axes else next(dims) for i in range(n)]
    return {"x": operand(names("a", x.ndim)), "y": operand(out),
            "params": {"axes_value": axes}}


def squeeze(types: tuple, axes_value: Any = None, given: tuple = (0,), **_: Any
            ) -> dict[str, Any]:
    """Squeeze: the given axes must be 1; without axes, those known to be 1."""
    x = types[0]
    dims = names("a", x.ndim)
    if 1 in given:
        axes = normalize_axes(_ints(axes_value, "axes"), x.ndim)
    else:
        if any(d is None or isinstance(d, Dim) for d in x.shape):
            raise ParamError("Squeeze without axes needs every size known")
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    text = [1 if i in axes else d for i, d in enumerate(dims)]
    return {"x": operand(text), "rest": ",(k)" if 1 in given else "",
            "y": operand(d for i, d in enumerate(dims) if i not in axes),
            "params": {"axes_value": axes}}


@reads_ranks
def constant_of_shape(types: tuple, input_value: Any, value: Any, **_: Any
                      ) -> dict[str, Any]:
    """ConstantOfShape: the sizes of the input's value; the dtype of ``value``."""
    dtype = value[0]
    if input_value is None:
        raise ParamError("needs a constant shape")
    sizes = SizeNames(input_value)
    out, clauses = [], []
    for i, entry in enumerate(input_value):
        if entry is None:
            out.append(f"u{i}")
            clauses.append(f"u{i} >= 0")
        else:
            out.append(sizes.text(entry))
    return {"sizes": sizes.operands(after=True), "y": operand(out), "dtype": dtype,
            "fits": where(clauses)}


@reads_ranks
def gemm(types: tuple, transA: int, transB: int, **_: Any) -> dict[str, Any]:
    """Gemm: A is (M, K) or (K, M), B (K, N) or (N, K); C has at most two axes and
    broadcasts to (M, N), so its sizes are 1 or the result's."""
    if types[0].ndim != 2 or types[1].ndim != 2:
        raise ParamError("A and B must be matrices")
    c = ""
    if len(types) > 2:
        rank = types[2].ndim
        if rank > 2:
            raise ParamError(f"C has {rank} axes, at most 2 broadcast to (M, N)")
        c = "," + operand(names("c", rank)) + ":T"
    return {"a": "(k,m)" if transA else "(m,k)", "b": "(n,k)" if transB else "(k,n)", "c": c}


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
        else:
            out.append(f"u{i}")
            clauses.append(f"u{i} >= 0")
    return {"x": operand(dims), "sizes": sizes.operands(after=True), "y": operand(out),
            "fits": where(clauses)}


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
                "n": f"max({lim}-{start}+{delta - 1},0)//{delta}", "fits": ""}
    return {"sizes": sizes.operands(after=True), "n": "u", "fits": " where u >= 0"}


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
                out[ax] = f"{dims[ax]}+{sizes.text(before)}+{sizes.text(after)}"
    sizes = SizeNames(pads_value, axes_value)
    return {"x": operand(dims), "rest": "".join(
                f",(*r{i})" for i in range(len(types) - 2 - len(sizes.dims))),
            "sizes": sizes.operands(after=True), "y": operand(out), "fits": where(clauses)}


@reads_ranks
def along_axis(types: tuple, **_: Any) -> dict[str, Any]:
    """The input's shape, any other inputs anything (Trilu's k, CumSum's axis)."""
    return {"x": operand(names("a", types[0].ndim)),
            "rest": "".join(f",(*r{i})" for i in range(len(types) - 1))}


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


@reads_ranks
def layer_norm(types: tuple, axis: int, outputs: int = 1, stash_type: int = 1, **_: Any
               ) -> dict[str, Any]:
    """LayerNormalization: Y like X; Mean and InvStdDev keep the axes before ``axis``
    and have 1 from it on. Scale and B broadcast to the normalised axes."""
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    dims = names("a", x.ndim)
    stat = operand([*dims[:ax], *[1] * (x.ndim - ax)]) + ":" + (
        dtype_of(stash_type, "LayerNormalization"))
    outs = [f"{operand(dims)}:T", stat, stat][:outputs]
    return {"x": operand(dims), "rest": "".join(f",(*r{i}):T" for i in range(len(types) - 1)),
            "outs": ",".join(outs), "params": {"axis": ax}}


@reads_ranks
def same_shape(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """The output(s) of X's shape and dtype; any other inputs of any shape."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "rest": "".join(f",(*r{i})" for i in range(len(types) - 1)),
            "outs": ",".join([f"{dims}:T"] * outputs)}


@reads_ranks
def global_pool(types: tuple, **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    return {"x": operand(dims), "y": operand([*dims[:2], *[1] * (x.ndim - 2)])}


def _window(n: str, k: int, s: int, d: int, pb: int, pe: int, auto_pad: str,
            ceil_mode: int) -> str:
    """The output size of a sliding window over an axis of size ``n``."""
    eff = (k - 1) * d + 1
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return f"({n}+{s - 1})//{s}"
    if auto_pad == "VALID":
        return f"({n}-{eff})//{s}+1"
    if ceil_mode:
        return ""  # decided by the caller: unknown unless sizes are known
    return f"({n}+{pb + pe}-{eff})//{s}+1"


def pool(types: tuple, kernel_shape: tuple | None = None, strides: tuple | None = None,
         pads: tuple | None = None, dilations: tuple | None = None,
         auto_pad: str = "NOTSET", ceil_mode: int = 0, outputs: int = 1, **_: Any
         ) -> dict[str, Any]:
    """Conv and the pools: (N, C, spatial...) -> (N, C or M, windows...). The kernel is
    the attribute or the weight's spatial sizes (Conv)."""
    x = types[0]
    k = x.ndim - 2
    dims = names("a", x.ndim)
    conv = len(types) > 1 and kernel_shape is None or len(types) > 1 and types[1].ndim == x.ndim
    if conv:
        w = types[1]
        wd = names("w", w.ndim)
        kernel = w.shape[2:] if kernel_shape is None else kernel_shape
    else:
        kernel = kernel_shape
    if kernel is None or not all(isinstance(v, int) for v in kernel):
        raise ParamError("the kernel's spatial sizes must be known")
    strides = strides or (1,) * k
    dilations = dilations or (1,) * k
    pads = pads or (0,) * (2 * k)
    out, clauses = [], []
    for i in range(k):
        text = _window(dims[2 + i], kernel[i], strides[i], dilations[i], pads[i], pads[i + k],
                       auto_pad, ceil_mode)
        if not text:
            n = x.shape[2 + i]
            if isinstance(n, int):
                eff = (kernel[i] - 1) * dilations[i] + 1
                size = -(-(n + pads[i] + pads[i + k] - eff) // strides[i]) + 1
                if (size - 1) * strides[i] >= n + pads[i]:
                    size -= 1
                text = str(size)
            else:
                text = f"u{i}"
                clauses.append(f"u{i} >= 0")
        out.append(text)
    if conv:
        y = operand([dims[0], wd[0], *out])
        operands = f",{operand(wd)}:T" + ",(*b):T" * (len(types) - 2)
    else:
        y = operand([dims[0], dims[1], *out])
        operands = ""
    outs = f"{y}:T" + (f",{y}:int64" if outputs > 1 else "")
    return {"x": operand(dims), "rest": operands, "outs": outs, "fits": where(clauses),
            "params": {"kernel_shape": tuple(kernel), "strides": tuple(strides),
                       "pads": tuple(pads), "dilations": tuple(dilations)}}


@reads_ranks
def same_shape_stats(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """BatchNormalization: Y like X; in training, the running mean and variance like
    the input mean and variance (of X's channels)."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "rest": ",(c):T" * (len(types) - 1),
            "outs": ",".join([f"{dims}:T", "(c):T", "(c):T"][:outputs])}

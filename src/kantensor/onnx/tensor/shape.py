"""ONNX's shape ops: Shape, Size, Transpose, Concat, Unsqueeze, Squeeze, Split, Tile,
Pad, DepthToSpace, SpaceToDepth and CenterCropPad (Reshape: :mod:`.reshape`, Slice:
:mod:`.slicing`).
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axes, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import (
    builder,
    checked,
    dims,
    groups,
    reads_known_sizes,
    reads_ranks,
    shifted,
    signed,
    typed,
)
from ...syntax.ast import Clause, DimVar, FixedDim, chosen
from ...syntax.ast.dims import as_expr
from ...types.dim import Dim
from ..floatsizes import float_sizes
from ..shared import (
    RANK_BY_VALUES,
    NotKnown,
    constant_ints,
    known_ints,
    rest_operands,
    size_entry,
    value_entries,
)
from ..values import TypeStandIn, sizes_value


@reads_ranks
def build_shape(types: tuple, start: int, end: int | None, **_: Any) -> dict[str, Any]:
    """Shape: as many entries as the axes from ``start`` to ``end`` (clamped)."""
    n = types[0].ndim
    picked = range(n)[slice(start, end)]
    return {"x": dims("a", n), "n": len(picked),
            "params": {"start": picked.start if len(picked) else 0,
                       "end": picked.stop if len(picked) else 0}}


def shape(x: np.ndarray | TypeStandIn, *, start: int, end: int) -> np.ndarray:
    """The sizes of the axes from ``start`` to ``end``: ints when the graph runs, the
    type's sizes (Dims) when the model is read (``reads_only = "shapes"``)."""
    return sizes_value(x.shape[start:end])


def size(x: np.ndarray | TypeStandIn) -> np.ndarray:
    """The number of elements (a Dim when the model is read; None if a size is
    unknown)."""
    return sizes_value(x.size)


@reads_ranks
def build_transpose(types: tuple, perm: tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    x = types[0]
    perm = tuple(reversed(range(x.ndim))) if perm is None else perm
    if sorted(normalize_axis(p, x.ndim) for p in perm) != list(range(x.ndim)):
        raise ParamError(f"perm {perm} is not a permutation of the {x.ndim} axes")
    a = dims("a", x.ndim)
    return {"x": a, "y": [a[p % x.ndim] for p in perm],
            "params": {"perm": tuple(p % x.ndim for p in perm)}}


def transpose(x: np.ndarray, *, perm: tuple) -> np.ndarray:
    return np.transpose(x, perm)


@reads_ranks
def build_concat(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Concat: the sizes along ``axis`` add up; the others are one."""
    n = types[0].ndim
    ax = normalize_axis(axis, n)
    operands = []
    along = dims("c", len(types))
    for k, t in enumerate(types):
        if t.ndim != n:
            raise ParamError(f"input {k} has {t.ndim} axes, input 0 has {n}")
        a = dims("a", n)
        a[ax] = along[k]
        operands.append(typed(a, "T"))
    out: list[Any] = dims("a", n)
    out[ax] = functools.reduce(operator.add, along)
    return {"inputs": operands, "y": out, "params": {"axis": ax}}


@float_sizes
def concat(*arrays: np.ndarray, axis: int) -> np.ndarray:
    return np.concatenate(arrays, axis=axis)


@reads_known_sizes
def build_unsqueeze(types: tuple, axes_value: Any = None, axes: Any = None, **_: Any
                    ) -> dict[str, Any]:
    """Unsqueeze: the axes from the input (opset 13; a scalar is one axis, as the
    runtimes take it) or the attribute (opsets 1 to 12). Axes not known when the model
    is read, of a known number ``k`` (the input's static length): ``k`` more axes, each
    of unknown size (which ones are 1 the run decides; onnxruntime refuses repeated
    axes, so there are exactly ``k`` more)."""
    x = types[0]
    a = dims("a", x.ndim)
    given = [] if len(types) < 2 else [typed([], "int64")] if types[1].ndim == 0 else \
        [typed(dims("k"), "int64")]
    if axes is None and known_ints(axes_value) is None and len(types) > 1 and (
            types[1].ndim == 0 or isinstance(types[1].shape[0], int)):
        more = 1 if types[1].ndim == 0 else types[1].shape[0]
        out = dims("u", x.ndim + more)
        return {"x": a, "y": out, "rest": given, "fits": [u >= 0 for u in out],
                "params": {"axes_value": None}}
    chosen = constant_ints(axes_value if axes is None else axes, "axes")
    n = x.ndim + len(chosen)
    picked = normalize_axes(chosen, n)
    rest = iter(a)
    out = [1 if i in picked else next(rest) for i in range(n)]
    return {"x": a, "y": out, "rest": given, "fits": [],
            "params": {"axes_value": picked} if axes is None else {"axes": picked}}


@float_sizes
def unsqueeze(x: np.ndarray, *rest: np.ndarray, axes_value: tuple | None = (),
              axes: tuple = ()) -> np.ndarray:
    if not axes and axes_value is None:  # (not known when the model was read)
        axes = tuple(int(v) for v in np.asarray(rest[0]).ravel())
        return np.expand_dims(x, normalize_axes(axes, x.ndim + len(axes)))
    return np.expand_dims(x, axes or axes_value)


@reads_known_sizes
def build_squeeze(types: tuple, axes_value: Any = None, given: tuple = (0,),
                  axes: Any = None, **_: Any) -> dict[str, Any]:
    """Squeeze: the given axes (the input's, opset 13; the attribute's, opsets 1 to 12)
    must be 1; without axes, those known to be 1."""
    x = types[0]
    a = dims("a", x.ndim)
    if axes is None and 1 in given and axes_value is not None and len(axes_value) == 1 \
            and isinstance(axes_value[0], Dim) and 0 < x.ndim <= _MOST_PICKED:
        return _squeeze_one(x, a, axes_value)
    if axes is None and 1 in given and axes_value is None and x.ndim and \
            types[1].shape == (1,):  # one axis of a value not known (a Loop's iteration
        # number in the body a run calls): one axis fewer, which the run decides (what
        # it needs is the Loop's body conditions', or a note of the contract's: .unread)
        out, unknown = _one_fewer(x, a)
        return {"x": a, "rest": [typed(dims("k"), "int64")], "y": out,
                "fits": [*(u >= 0 for u in unknown), _some_one(a)],
                "params": {"axes_value": (None,), "axes": None}}
    if axes is not None:
        axes = normalize_axes(tuple(axes), x.ndim)
    elif 1 in given:
        axes = normalize_axes(constant_ints(axes_value, "axes", RANK_BY_VALUES), x.ndim)
    else:
        if any(d is None or isinstance(d, Dim) for d in x.shape):
            raise NotKnown("Squeeze without axes needs every size known")
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    return {"x": [1 if i in axes else d for i, d in enumerate(a)],
            "rest": [typed(dims("k"), "int64")] if 1 in given else [],
            "y": [d for i, d in enumerate(a) if i not in axes], "fits": [],
            "params": {"axes_value": axes, "axes": axes}}


def _squeeze_one(x: Any, a: list, axes_value: tuple) -> dict[str, Any]:
    """Squeeze of one axis ``e`` whose value is a size (a Loop's iteration number): one
    axis fewer, each size the input's there where it and the next one are the same size
    (whichever axis goes), else unknown. What it needs: ``0 <= e`` (a choice: a negative
    axis counts from the end, those sizes not covered), ``e < rank``, and the axis ``e``
    of size 1, which for an integer ``e`` in ``0 .. r-1`` is the Lagrange form
    ``sum_k (-1)**(r-1-k) * C(r-1, k) * (a_k - 1) * prod_{m != k} (e - m) == 0`` (every
    term but ``k = e``'s is 0 there): a Loop checks it at each iteration."""
    r = x.ndim
    sizes = SizeNames(axes_value)
    e = as_expr(sizes.expr(axes_value[0]))
    out, unknown = _one_fewer(x, a)
    clauses: list[Clause] = [chosen(e >= 0, _NEGATIVE_AXIS), e <= r - 1,
                             *(u >= 0 for u in unknown)]
    picked: Any = 0
    for k in range(r):
        term = math.comb(r - 1, k) * (a[k] - 1)
        for m in range(r):
            if m != k:
                term = term * (e - m)
        picked = picked + term if (r - 1 - k) % 2 == 0 else picked - term
    clauses.append(as_expr(picked).eq(0))
    return {"x": a, "rest": [typed(dims("k"), "int64"), *sizes.patterns()], "y": out,
            "fits": clauses, "params": {"axes_value": axes_value, "axes": None}}


def _some_one(a: list) -> Clause:
    """``prod(a_k - 1) == 0``: some axis of sizes ``a`` is 1, which a Squeeze of one axis
    the data pick needs whichever it is (onnxruntime fails at every value where none is:
    'Dimension of input ... must be 1'), and which some value meets where one is. Past
    :data:`_MOST_PICKED` axes (its degree is the rank) the node is left untyped: a
    condition dropped would make the contract say valid where every axis fails."""
    if len(a) > _MOST_PICKED:
        raise NotKnown(f"one axis of unknown value, of an input of {len(a)} axes: what it "
                       f"needs (some axis of size 1) is stated for at most {_MOST_PICKED}")
    product: Any = 1
    for d in a:
        product = product * (d - 1)
    return as_expr(product).eq(0)


def _one_fewer(x: Any, a: list) -> tuple[list, list]:
    """The dims after one axis of ``x`` (dims ``a``) goes, whichever it is: the input's
    where an axis and the next one are the same size, else unknown; and the unknown
    ones."""
    out: list[Any] = []
    unknown: list[DimVar] = []
    for j in range(x.ndim - 1):
        here, after = x.shape[j], x.shape[j + 1]
        if here is not None and (here is after or here == after):
            out.append(a[j])
        else:
            unknown.append(DimVar(f"u{j}"))
            out.append(unknown[-1])
    return out, unknown


#: What a negative axis of a Squeeze does, where its value is a size (:func:`_squeeze_one`)
_NEGATIVE_AXIS = "a negative axis counts from the end"

#: The most axes of which :func:`_squeeze_one` picks one (its condition is of degree
#: rank - 1 in the axis; past this the node is refused, as before)
_MOST_PICKED = 6


@float_sizes
def squeeze(x: np.ndarray, *rest: np.ndarray, axes_value: tuple, **_: Any) -> np.ndarray:
    if axes_value and not all(isinstance(v, int) for v in axes_value):  # (sizes: read
        axes_value = tuple(int(v) for v in np.asarray(rest[0]).ravel())  # when it runs)
    return np.squeeze(x, axis=axes_value) if axes_value else x.copy()


@reads_ranks
def build_split(types: tuple, axis: int, outputs: int, split_value: Any = None,
                num_outputs: int | None = None, given: tuple = (0,), **_: Any) -> dict[str, Any]:
    """Split (opset 18): the sizes of the ``split`` input, else ``num_outputs`` chunks of
    ceil(size/n), the last one what is left; one of the two must be given."""
    if 1 not in given and num_outputs is None:
        raise ParamError("neither a 'split' input nor the 'num_outputs' attribute is given")
    if 1 not in given and num_outputs != outputs:
        raise ParamError(f"num_outputs is {num_outputs} but the node has {outputs} outputs")
    return _split(types, axis, outputs, split_value, given)


@reads_ranks
def build_split_equal(types: tuple, axis: int, outputs: int, split_value: Any = None,
                      given: tuple = (0,), **_: Any) -> dict[str, Any]:
    """Split before opset 18: without a ``split`` input the parts are equal, so the axis
    is a multiple of the number of outputs (onnx's shape inference, which onnxruntime
    runs, refuses "The input is not evenly splittable")."""
    made = _split(types, axis, outputs, split_value, given)
    if 1 not in given and outputs > 1:
        d = dims("a", types[0].ndim)[made["params"]["axis"]]
        made["fits"].append(checked((d % outputs).eq(0), lambda v, _, d=d.name, n=outputs: (
            f"the axis of size {v[d]} does not split into {n} equal parts")))
    return made


def _split(types: tuple, axis: int, outputs: int, split_value: Any, given: tuple
           ) -> dict[str, Any]:
    """The parts of a Split: the sizes of the ``split`` input, else as many chunks as the
    node's outputs of ceil(size/n), the last one what is left."""
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    a = dims("a", x.ndim)
    n, d = outputs, a[ax]
    clauses: list[Clause] = []
    rest: list = []
    parts: list = []
    if 1 in given:
        values = value_entries(split_value, n, "split") if split_value is not None else [None] * n
        sizes = SizeNames(tuple(values))
        for i, v in enumerate(values):
            if v is None:
                (p,) = dims(f"p{i}")
                parts.append(p)
                clauses.append(p >= 0)
            else:
                parts.append(sizes.expr(v))
        if all(v is not None for v in values):
            written = [FixedDim(p) if isinstance(p, int) else p for p in parts]
            clauses.append(functools.reduce(operator.add, written).eq(d))
        rest = [typed(dims("k"), "int64"), *sizes.patterns()]
    else:
        chunk = (d + (n - 1)) // n
        parts = [chunk] * (n - 1) + [d - (n - 1) * chunk if n > 1 else d]
        if n > 1:  # ONNX's last chunk; negative (a size below n-1 chunks) is refused
            clauses.append(parts[-1] >= 0)
    outs = [typed([*a[:ax], p, *a[ax + 1:]], "T") for p in parts]
    return {"x": a, "rest": rest, "parts": outs, "fits": clauses, "params": {"axis": ax}}


def split(x: np.ndarray, *rest: np.ndarray, axis: int, outputs: int, **_: Any) -> tuple:
    if rest:
        sizes = [int(v) for v in np.asarray(rest[0]).tolist()]
    else:
        d = x.shape[axis]
        chunk = -(-d // outputs)
        sizes = [chunk] * (outputs - 1) + [d - (outputs - 1) * chunk]
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


@builder
def build_tile(types: tuple, repeats_value: Any, **_: Any) -> dict[str, Any]:
    x = types[0]
    a = dims("a", x.ndim)
    reps = value_entries(repeats_value, x.ndim, "repeats")
    sizes = SizeNames(tuple(reps))
    out: list = []
    clauses: list[Clause] = []
    for i, r in enumerate(reps):
        if r is None:
            (u,) = dims(f"u{i}")
            out.append(u)
            clauses.append(u >= 0)
        else:
            out.append(a[i] * size_entry(sizes, r, clauses, "repeats"))
    return {"x": a, "sizes": sizes.patterns(), "y": out, "fits": clauses}


def tile(x: np.ndarray, repeats: np.ndarray, *sizes: np.ndarray, **_: Any) -> np.ndarray:
    return np.tile(x, [int(r) for r in repeats.tolist()])


@builder
def build_pad(types: tuple, pads_value: Any, axes_value: Any = None, given: tuple = (0, 1),
              mode: str = "constant", **_: Any) -> dict[str, Any]:
    """Pad: each padded axis grows by its two pads (negative pads crop). Outside constant
    mode a padded axis must keep a value after cropping: a pad copies its values (NumPy
    and onnxruntime refuse an empty one; onnxruntime refuses a crop to nothing too); in
    reflect mode onnxruntime reflects once, so each pad is less than the cropped axis; in
    wrap mode it refuses any empty input."""
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
    unknown = dims("u", x.ndim)
    if axes is None or pads_value is None or len(pads_value) != 2 * len(axes):
        out = unknown
        clauses = [u >= 0 for u in unknown]
    else:
        sizes = SizeNames(tuple(pads_value))
        k = len(axes)
        for i, ax in enumerate(axes):
            before, after = pads_value[i], pads_value[i + k]
            if before is None or after is None:
                out[ax] = unknown[ax]
                clauses.append(unknown[ax] >= 0)
            else:
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
    return {"x": a, "rest": groups("r", len(types) - 2 - len(sizes.dims)),
            "sizes": sizes.patterns(), "y": out, "fits": clauses}


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


@reads_ranks
def build_depth_to_space(types: tuple, blocksize: int, **_: Any) -> dict[str, Any]:
    b = blocksize
    n, c, h, w = dims("n c h w")
    return {"x": [n, c, h, w], "y": [n, c // (b * b), h * b, w * b],
            "fits": [(c % (b * b)).eq(0)]}


def depth_to_space(x: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = x.shape
    b = blocksize
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


@reads_ranks
def build_space_to_depth(types: tuple, blocksize: int, **_: Any) -> dict[str, Any]:
    b = blocksize
    n, c, h, w = dims("n c h w")
    return {"x": [n, c, h, w], "y": [n, c * (b * b), h // b, w // b],
            "fits": [(h % b).eq(0), (w % b).eq(0)]}


def space_to_depth(x: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = x.shape
    b = blocksize
    order = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(order)
    return y.reshape(n, c * b * b, h // b, w // b)


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

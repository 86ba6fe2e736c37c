"""ONNX's shape ops: Shape, Size, Transpose, Concat, Unsqueeze, Squeeze, Split, Tile,
DepthToSpace and SpaceToDepth (Reshape: :mod:`.reshape`, Slice: :mod:`.slicing`, Pad and
CenterCropPad: :mod:`.padding`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axes, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import (
    builder,
    checked,
    dims,
    reads_known_sizes,
    reads_ranks,
    sum_of,
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
    size_entry,
    value_entries,
)
from ..values import TypeStandIn, sizes_value


@reads_ranks
def build_shape(types: tuple, start: int = 0, end: int | None = None, **_: Any
                ) -> dict[str, Any]:
    """Shape: as many entries as the axes from ``start`` to ``end`` (clamped)."""
    n = types[0].ndim
    picked = range(n)[slice(start, end)]
    return {"x": dims("a", n), "n": len(picked),
            "params": {"start": picked.start if len(picked) else 0,
                       "end": picked.stop if len(picked) else 0}}


def shape(x: np.ndarray | TypeStandIn, *, start: int = 0, end: int | None = None
          ) -> np.ndarray:
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
    out[ax] = sum_of(along)  # (balanced: 90 inputs nest 7 levels deep, not 90)
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
    must be 1; without axes, those known to be 1, each named size kept where it is not 1
    (a choice: where it is 1, onnxruntime drops that axis too, another rank)."""
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
    fits: list[Clause] = []
    if axes is not None:
        axes = normalize_axes(tuple(axes), x.ndim)
    elif 1 in given:
        axes = normalize_axes(constant_ints(axes_value, "axes", RANK_BY_VALUES), x.ndim)
    else:  # (no axes: those of size 1; a size that is no int is kept where it is not 1)
        if any(d is None for d in x.shape):
            raise NotKnown("Squeeze without axes needs every size known or named")
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
        fits = [chosen(a[i].ne(1), _DROPPED) for i, d in enumerate(x.shape)
                if not isinstance(d, int)]
    return {"x": [1 if i in axes else d for i, d in enumerate(a)],
            "rest": [typed(dims("k"), "int64")] if 1 in given else [],
            "y": [d for i, d in enumerate(a) if i not in axes], "fits": fits,
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
#: Squeeze without axes where a named size is 1: that axis is dropped too (a type of
#: another rank than the build's, which keeps it)
_DROPPED = "an axis of size 1 is dropped"

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


@reads_ranks
def build_split_attribute(types: tuple, axis: int, outputs: int, split: Any = None,
                          **_: Any) -> dict[str, Any]:
    """Split before opset 13: the sizes of the ``split`` attribute (one per output, each
    >= 0, their sum the axis's size), else equal parts (:func:`build_split_equal`)."""
    if split is None:
        return build_split_equal(types, axis, outputs)
    sizes = (split,) if isinstance(split, int) else tuple(split)
    if len(sizes) != outputs or any(v < 0 for v in sizes):
        raise ParamError(f"split {sizes} must have one size >= 0 for each of the node's "
                         f"{outputs} outputs")
    made = _split(types, axis, outputs, None, (0,))
    a = made["x"]
    ax = made["params"]["axis"]
    made["parts"] = [typed([*a[:ax], v, *a[ax + 1:]], "T") for v in sizes]
    made["fits"] = [a[ax].eq(sum(sizes))]
    return made


def split_attribute(x: np.ndarray, *, axis: int, outputs: int, split: Any = None,
                    **_: Any) -> tuple:
    """Split before opset 13 (the sizes an attribute, else equal parts). The keyword
    ``split`` is the attribute's name, so the module's :func:`split` is reached through
    :func:`_split_equal`."""
    if split is None:
        return _split_equal(x, axis, outputs)
    sizes = [split] if isinstance(split, int) else list(split)
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis % x.ndim))


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
            clauses.append(sum_of(written).eq(d))
        rest = [typed(dims("k"), "int64"), *sizes.patterns()]
    else:
        chunk = (d + (n - 1)) // n
        parts = [chunk] * (n - 1) + [d - (n - 1) * chunk if n > 1 else d]
        if n > 1:  # ONNX's last chunk; negative (a size below n-1 chunks) is refused
            clauses.append(parts[-1] >= 0)
    outs = [typed([*a[:ax], p, *a[ax + 1:]], "T") for p in parts]
    return {"x": a, "rest": rest, "parts": outs, "fits": clauses, "params": {"axis": ax}}


def split(x: np.ndarray, *rest: np.ndarray, axis: int, outputs: int, **_: Any) -> tuple:
    """Split by the sizes of the ``split`` input, else in ONNX's chunks."""
    if rest:
        sizes = [int(v) for v in np.asarray(rest[0]).tolist()]
        return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))
    return _split_equal(x, axis, outputs)


def _split_equal(x: np.ndarray, axis: int, outputs: int) -> tuple:
    """ONNX's chunks of ceil(size/outputs), the last one what is left."""
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

"""Builders of the ONNX Ops' signature templates (see ``signatures/onnx``).

A builder renders text from the input ranks (or types), the attributes and the values of
constant inputs; the relation decides every type. ONNX's axis conventions are resolved
here (negative axes made positive, ``keepdims``, ``allowzero``), so each implementation
computes exactly what its type says. Values of inputs are parameters named
``<input>_value`` (None when unknown when the model was read): ints, Dims (each carried
by a ``(s0):bool`` size input, see :class:`~kantensor.ops.sizes.SizeNames`) and None.
"""

from __future__ import annotations

from typing import Any

from ..ops.params import ParamError, normalize_axes, normalize_axis
from ..ops.sizes import SizeNames
from ..ops.templates import builder, names, operand, product, reads_ranks, where
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


@builder
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


@builder
def unsqueeze(types: tuple, axes_value: Any, **_: Any) -> dict[str, Any]:
    x = types[0]
    n = x.ndim + len(axes_value or ())
    axes = normalize_axes(_ints(axes_value, "axes"), n)
    dims = iter(names("a", x.ndim))
    out = [1 if i in axes else next(dims) for i in range(n)]
    return {"x": operand(names("a", x.ndim)), "y": operand(out),
            "params": {"axes_value": axes}}


@builder
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


@reads_ranks
def any_rest(types: tuple, **_: Any) -> dict[str, Any]:
    """The inputs after the first two, of any shape and dtype (zero points)."""
    return {"rest": "".join(f",(*z{i})" for i in range(len(types) - 2))}

"""Builders and NumPy wrappers for the shape family (``signatures/shape.toml``).

Every builder names each input axis (``a0, a1, ...``) and writes the output
shape as dim expressions over those names: a reshaped size is a product
(``a0*a1``), a concatenated axis a sum, a split axis a quotient. Conditions
NumPy checks on sizes (a split divides, a broadcast axis is 1 or the target)
become where-clauses, so they are decided statically when the sizes are known
and left to NumPy at run time otherwise. Parameters that only mean something
once the rank is known (negative axes, ``axis=None``) are resolved into explicit
values under ``"params"``, so the impl computes exactly what the type says.
"""

from __future__ import annotations

import functools
import math
import operator
import warnings
from typing import Any

import numpy as np

from ...syntax.ast import DimExpr, DimVar, FixedDim, TensorPattern, dim_max, dim_min
from ...types.dim import Dim
from ...types.symbols import free_symbols, substitute
from ..params import AxisError, ParamError, normalize_axes, normalize_axis
from ..sizes import (
    SizeNames,
    concrete,
    dim_expr,
    foreign_names,
    given_axis,
    given_operands,
    input_axes,
    input_axis,
    symbol_of,
)
from ..templates import (
    Message,
    builder,
    checked,
    dims,
    joined_dtypes,
    rank_error,
    reads_ranks,
    shifted,
    size_of,
    sum_of,
    typed,
)

# --------------------------------------------------------------------------- helpers


def _as_axes(axis: int | tuple[int, ...]) -> tuple[int, ...]:
    return (axis,) if isinstance(axis, int) else tuple(axis)


# --------------------------------------------------------------------------- builders


def _symbols(x: Any, dims: list[str]) -> dict[str, Dim]:
    """The input's named sizes, each as the dim variable of its axis: in ``n`` of
    ``float32[n,8]``, ``{"n": a0}``."""
    return {entry.name: Dim(name) for entry, name in zip(x.shape, dims, strict=True)
            if isinstance(entry, Dim) and entry.name is not None}


@builder
def reshaped(types: tuple, shape: tuple[int | Dim, ...],
             axes_of: tuple[tuple[Dim, int], ...] = (), **_: Any) -> dict[str, Any]:
    """reshape: the sizes multiply to the input's size. Like NumPy, any negative
    entry (at most one) is the unknown size, the input size divided by the others.
    A symbolic entry is written over the axis names of the input when it is made of the
    input's own sizes (its named sizes, ``x.shape[i]``), and over the length of a
    ``shape_of`` input for another tensor's ``y.shape[i]``. When the
    input has unknown or symbolic sizes and the target is known, the known part of the
    input's size must divide the target (``32*n == 25`` has no solution)."""
    x = types[0]  # then the shape_of inputs of other variables' sizes
    a = dims("a", x.ndim)
    size = size_of(a)
    # axes_of: the axes found when the node was built (the types seen at run time under
    # check=True have the actual ints instead of the named sizes).
    own = input_axes(0, x.ndim)  # x.shape[i] of an axis unknown when the node was built
    given, _ = given_operands([shape])  # y.shape[i]: an input each
    names_of = [str(d) for d in a]
    named = _symbols(x, names_of) if not axes_of else {}
    symbols = {**named, **{symbol_of(d): Dim(names_of[i]) for d, i in axes_of},
               **{key: Dim(names_of[i]) for key, i in own.items()}, **given}
    # other inputs' named sizes: a SizeOp input each (sizes.foreign_names)
    foreign = foreign_names(shape, [k for k in symbols if isinstance(k, str)])
    symbols.update({name: Dim(f"r{i}") for i, name in enumerate(foreign)})
    operands = [typed([DimVar(str(d))], "bool") for d in given.values()] + \
        [typed([DimVar(f"r{i}")], "bool") for i in range(len(foreign))]
    out: list[Any] = []
    for entry in shape:
        if isinstance(entry, Dim):
            unknown = sorted(free_symbols(entry) - set(symbols))
            if unknown:
                raise ParamError(f"size {entry} is not made of the sizes of the input "
                                 f"({x}): {', '.join(unknown)} would not be known when "
                                 "the graph runs")
            out.append(dim_expr(substitute(entry, symbols)))
        else:
            out.append(entry)
    free = [i for i, s in enumerate(shape) if isinstance(s, int) and s < 0]
    if len(free) > 1:
        raise ParamError(f"shape {shape}: can only specify one unknown dimension")
    ints = [s for s in shape if isinstance(s, int) and s >= 0]
    known = _written_product([e for i, e in enumerate(out) if i not in free])
    symbolic = len(ints) + len(free) < len(shape)  # some entry is a Dim
    params = {"axes_of": axes_of or _axes_of(x, shape, own)} if symbolic else {}
    message = _cannot_reshape(names_of, shape)
    if not free:
        if len(ints) == len(shape):
            _check_divides(x, math.prod(ints))
        return {"x": a, "sizes": operands, "y": out,
                "fits": [checked(size.eq(known), message)], "params": params}
    if len(ints) == len(shape) - 1 and math.prod(ints) == 0:
        raise ParamError(f"shape {shape}: the unknown dimension is undetermined when the "
                         "other sizes multiply to 0")
    # An entry that is one of the input's axes cancels that axis: x.reshape(x.shape[0], -1)
    # of (n, 8, 4) gives (n, 8*4), not (n, (n*8*4)//n).
    rest, others = list(a), []
    for i, entry in enumerate(out):
        if i not in free and isinstance(entry, DimVar) and entry in rest:
            rest.remove(entry)
        elif i not in free:
            others.append(entry)
    rest_size, rest_known = size_of(rest), _written_product(others)
    out[free[0]] = rest_size // rest_known if others else rest_size
    # NumPy refuses an unknown size beside sizes that multiply to 0, even where the
    # cancelled axes make the quotient look defined: (0, 3).reshape(0, -1) fails. (Ints
    # alone that multiply to 0 were refused above.)
    fits = [known >= 1] * symbolic + \
        ([checked((rest_size % rest_known).eq(0), message)] if others else [])
    return {"x": a, "sizes": operands, "y": out, "fits": fits, "params": params}


def _written_product(entries: list) -> DimExpr:
    """The product of a shape's entries as written (``5*5*n``, ints not folded), ``1``
    for none."""
    items = [FixedDim(e) if isinstance(e, int) else e for e in entries] or [FixedDim(1)]
    return functools.reduce(operator.mul, items)


def _cannot_reshape(dims: list[str], shape: tuple) -> Message:
    """NumPy's words for a reshape whose sizes do not fit, with the input's type and
    its size as the failed clause saw it."""
    def message(values: Any, types: tuple) -> str:
        x = types[0]
        sizes = [n if n is not None else values.get(d) for d, n in zip(dims, x.shape,
                                                                        strict=True)]
        known = all(isinstance(n, int) for n in sizes)
        # the sizes the clause saw, where the type leaves them unknown: float64[5,2]
        shown = type(x)(x.dtype, tuple(sizes)) if known and x.shape != tuple(sizes) else x
        size = math.prod(sizes) if known else "?"
        return f"cannot reshape {shown} (size {size}) into ({', '.join(map(str, shape))}" \
               f"{',' * (len(shape) == 1)})"
    return message


def _axes_of(x: Any, shape: tuple[int | Dim, ...], own: dict[Any, int]
             ) -> tuple[tuple[Dim, int], ...]:
    """For reshape's implementation: each symbol of the shape with the axis of the
    input whose size it is (a named size of x's type, or x.shape[i] of an unknown one)."""
    used = set().union(*(free_symbols(e) for e in shape if isinstance(e, Dim)))
    named = tuple((n, i) for i, n in enumerate(x.shape)
                  if isinstance(n, Dim) and n.name is not None and n.name in used)
    return named + tuple((input_axis(0, i), i) for key, i in own.items() if key in used)


def _check_divides(x: Any, target: int) -> None:
    """A target size that the input's size can never have, when some of the input's
    sizes are not known ints: the known part of the size must divide the target."""
    if all(isinstance(n, int) for n in x.shape):
        return  # the where-clause decides it
    known = math.prod(n for n in x.shape if isinstance(n, int))
    if known and target % known:
        factors = [str(n) if n is not None else "?" for n in x.shape]
        raise rank_error("reshape", f"cannot reshape {x} (size {'*'.join(factors)}) into a "
                         f"size of {target}: {known}*k == {target} has no integer solution")


@reads_ranks
def permuted(types: tuple, axes: int | tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    """transpose/permute_dims: ``axes`` is a permutation of the axes (negative ones
    count from the end); None reverses them, as ``x.T`` does."""
    (x,) = types
    n = x.ndim
    if axes is None:
        perm = tuple(reversed(range(n)))
    else:
        given = _as_axes(axes)
        if len(given) != n:
            raise ParamError(f"axes {given} don't match a tensor of dimension {n}")
        perm = tuple(normalize_axis(a, n) for a in given)
        if len(set(perm)) != n:
            raise AxisError(f"repeated axis in axes {given}")
    a = dims("a", n)
    return {"x": a, "y": [a[p] for p in perm], "params": {"axes": perm}}


@reads_ranks
def expanded(types: tuple, axis: int | tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    """expand_dims: new axes of size 1 at ``axis``, positions in the *output*."""
    (x,) = types
    if axis is None:
        raise ParamError("axis must be an int or a tuple of ints, got None")
    axes = _as_axes(axis)
    out_ndim = x.ndim + len(axes)
    positions = normalize_axes(axes, out_ndim)
    a = dims("a", x.ndim)
    rest = iter(a)
    out = [1 if i in positions else next(rest) for i in range(out_ndim)]
    return {"x": a, "y": out, "params": {"axis": positions}}


@reads_ranks
def joined(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """concatenate: equal ranks (>= 1), equal sizes except along ``axis``, whose
    sizes add up; ``axis=None`` concatenates the flattened inputs."""
    if not types:
        raise ParamError("need at least one tensor to concatenate")
    if axis is None:
        each = [dims(f"x{i}_", t.ndim) for i, t in enumerate(types)]
        inputs, dtype = joined_dtypes(each)
        return {"inputs": inputs, "y": [typed([sum_of([size_of(d) for d in each])], dtype)]}
    ndim = types[0].ndim
    if any(t.ndim != ndim for t in types):
        raise rank_error("concatenate", "all the input tensors must have the same number "
                         f"of dimensions, got {[t.ndim for t in types]}")
    if ndim == 0:
        raise rank_error("concatenate", "zero-dimensional tensors cannot be concatenated")
    ax = normalize_axis(axis, ndim)
    shared = dims("d", ndim)
    along = dims("c", len(types))
    inputs, dtype = joined_dtypes([[c if i == ax else d for i, d in enumerate(shared)]
                                   for c in along])
    out = [sum_of(along) if i == ax else d for i, d in enumerate(shared)]
    return {"inputs": inputs, "y": [typed(out, dtype)], "params": {"axis": ax}}


@reads_ranks
def stacked(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """stack: inputs of one shape, joined along a new axis of size len(arrays)."""
    if not types:
        raise ParamError("need at least one tensor to stack")
    ndim = types[0].ndim
    if any(t.ndim != ndim for t in types):
        raise rank_error("stack", "all input tensors must have the same shape, got ranks "
                         f"{[t.ndim for t in types]}")
    ax = normalize_axis(axis, ndim + 1)
    d = dims("d", ndim)
    out = [*d[:ax], len(types), *d[ax:]]
    inputs, dtype = joined_dtypes([d] * len(types))
    return {"inputs": inputs, "y": [typed(out, dtype)], "params": {"axis": ax}}


def _slice_bound(index: int, size: DimVar) -> DimExpr:
    """Where Python slicing puts ``index`` on an axis of ``size``: clipped to
    ``[0, size]``, negative indices counted from the end."""
    return dim_min(index, size) if index >= 0 else dim_max(size - (-index), 0)


@reads_ranks
def sections(types: tuple, indices_or_sections: int | tuple[int, ...] | None, axis: int,
             **_: Any) -> dict[str, Any]:
    """split: an int k gives k equal parts (the size must divide, as NumPy
    requires); a tuple of indices gives the slices between them, clipped like
    Python slices (so parts may be empty)."""
    (x,) = types
    if indices_or_sections is None:
        raise ParamError("indices_or_sections must be an int or a tuple of ints, got None")
    if x.ndim == 0:
        raise AxisError("a 0-d tensor has no axis to split")
    ax = normalize_axis(axis, x.ndim)
    a = dims("a", x.ndim)
    n = a[ax]

    def part(size: DimExpr) -> TensorPattern:
        return typed([size if i == ax else d for i, d in enumerate(a)])

    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise ParamError(f"the number of sections must be positive, got {k}")
        return {"x": a, "parts": [part(n // k)] * k, "fits": [(n % k).eq(0)],
                "params": {"axis": ax}}
    bounds = [FixedDim(0), *(_slice_bound(i, n) for i in indices_or_sections), n]
    sizes = [dim_max(end - start, 0) for start, end in zip(bounds[:-1], bounds[1:], strict=True)]
    return {"x": a, "parts": [part(s) for s in sizes], "fits": [], "params": {"axis": ax}}


@builder
def broadcast(types: tuple, shape: tuple[int | Dim, ...], **_: Any) -> dict[str, Any]:
    """broadcast_to: the input's axes align with the end of ``shape``; each must be
    1 or the target size, written ``(a-1)*(a-s) == 0`` (a product is zero exactly
    when a factor is), decided when the size is known and by NumPy otherwise. A Dim
    of ``shape`` (``broadcast_to(v, x.shape)``) is the length of a SizeOp input."""
    x = types[0]
    sizes = SizeNames(shape)
    if any(isinstance(s, int) and s < 0 for s in shape):
        raise ParamError(f"all sizes of the target shape {shape} must be non-negative")
    if len(shape) < x.ndim:
        raise rank_error("broadcast_to", f"cannot broadcast a tensor of dimension {x.ndim} "
                         f"to the shape {shape} of fewer dimensions")
    lead = len(shape) - x.ndim
    ins: list[Any] = []
    clauses = []
    for i, (d, s) in enumerate(zip(dims("a", x.ndim), shape[lead:], strict=True)):
        known = x.shape[i]
        if isinstance(s, int) and isinstance(known, int) and known not in (1, s):
            raise rank_error("broadcast_to", f"axis {i} of size {known} cannot be "
                             f"broadcast to {s} (it must be 1 or {s})")
        if isinstance(s, int) and s == 1:
            ins.append(1)
        else:
            ins.append(d)
            clauses.append(((d - 1) * (d - sizes.expr(s))).eq(0))
    return {"x": ins, "sizes": sizes.patterns(), "y": [sizes.expr(s) for s in shape],
            "fits": clauses}


@reads_ranks
def flattened(types: tuple, **_: Any) -> dict[str, Any]:
    """flatten: one axis holding every element (a 0-d input gives one element)."""
    (x,) = types
    a = dims("a", x.ndim)
    return {"x": a, "y": [size_of(a)]}


@reads_ranks
def differenced(types: tuple, n: int, axis: int, **_: Any) -> dict[str, Any]:
    """diff: the n-th difference shortens ``axis`` by n (to no less than 0).
    Like NumPy, n=0 returns the input as it is, without looking at ``axis``."""
    (x,) = types
    if n < 0:
        raise ParamError(f"order n must be non-negative, got {n}")
    a = dims("a", x.ndim)
    if n == 0:
        return {"x": a, "y": a}
    if x.ndim == 0:
        raise rank_error("diff", "diff needs a tensor with at least one dimension")
    ax = normalize_axis(axis, x.ndim)
    out = [dim_max(d - n, 0) if i == ax else d for i, d in enumerate(a)]
    return {"x": a, "y": out, "params": {"axis": ax}}


#: Output length of a 1-d convolution of lengths n and m, by mode.
CONVOLVE_SIZES = {"full": lambda n, m: n + m - 1, "same": dim_max,
                  "valid": lambda n, m: dim_max(n, m) - dim_min(n, m) + 1}


@reads_ranks
def convolved(types: tuple, mode: str, **_: Any) -> dict[str, Any]:
    """convolve: 1-d inputs (a 0-d one counts as length 1, as in NumPy), both
    non-empty; the output length depends on ``mode``."""
    lengths: list[Any] = []
    for d, t in zip(dims("n m"), types, strict=True):
        if t.ndim > 1:
            raise rank_error("convolve", f"inputs must be 1-d (or 0-d), got {t.ndim} "
                             "dimensions")
        lengths.append(d if t.ndim else FixedDim(1))
    n, m = lengths
    (a, v), dtype = joined_dtypes([[d] if d != FixedDim(1) else [] for d in lengths])
    return {"a": [a], "v": [v], "y": [typed([CONVOLVE_SIZES[mode](n, m)], dtype)],
            "fits": [d >= 1 for d in (n, m) if d != FixedDim(1)]}


def _check_fill(dtype: str, ndim: int, value: Any) -> None:
    """Reject a ``constant_values`` that NumPy's pad refuses to store in ``dtype``
    (NaN in an integer tensor, a Python int out of some integer ranges). NumPy's
    rules here are its own (-1 wraps into uint8, 300 fails for int8), so they are
    asked of NumPy itself, on an empty tensor of the same dtype and rank."""
    if ndim == 0:  # NumPy stores nothing, so it accepts any value
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            np.pad(np.zeros((0,) * ndim, dtype), 0, constant_values=value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ParamError(f"constant_values {value!r} cannot be stored in a "
                             f"{dtype} tensor: {exc}") from None


@reads_ranks
def padded(types: tuple, pad_width: tuple[tuple[int, int], ...], constant_values: Any,
           **_: Any) -> dict[str, Any]:
    """pad (constant mode): one (before, after) pair for every axis, or one pair for
    all of them; each axis grows by its pair's sum."""
    (x,) = types
    _check_fill(x.dtype, x.ndim, constant_values)
    return _padded(x, pad_width)


@reads_ranks
def padded_edges(types: tuple, pad_width: tuple[tuple[int, int], ...], **_: Any
                 ) -> dict[str, Any]:
    """pad_edges (modes edge, reflect, symmetric, wrap): :func:`padded`'s shape, and an
    axis that grows is not empty (NumPy: "can't extend empty axis"; one element is
    enough, also to reflect: NumPy repeats it)."""
    (x,) = types
    made = _padded(x, pad_width)
    made["fits"] = [d >= 1 for d, p in zip(made["x"], made["params"]["pad_width"],
                                           strict=False) if sum(p)]
    return made


def _padded(x: Any, pad_width: tuple[tuple[int, int], ...]) -> dict[str, Any]:
    if len(pad_width) == 1:
        pairs = pad_width * x.ndim
    elif len(pad_width) == x.ndim:
        pairs = pad_width
    else:
        raise ParamError(f"pad_width has {len(pad_width)} (before, after) pairs for a "
                         f"tensor of dimension {x.ndim}")
    a = dims("a", x.ndim)
    out = [shifted(d, sum(p)) for d, p in zip(a, pairs, strict=True)]
    # A 0-d tensor keeps one (unused) pair: NumPy refuses an empty pad_width.
    return {"x": a, "y": out, "params": {"pad_width": pairs or ((0, 0),)}}


@reads_ranks
def single(types: tuple, **_: Any) -> dict[str, Any]:
    """item: a tensor of size 1 (the product of its sizes is 1)."""
    (x,) = types
    a = dims("a", x.ndim)
    return {"x": a, "size": size_of(a)}


# --------------------------------------------------------------------------- wrappers


def concatenate(*arrays: np.ndarray, axis: int | None) -> np.ndarray:
    """``numpy.concatenate`` with the tensors as separate arguments (the impl
    calling convention)."""
    return np.concatenate(arrays, axis=axis)


def stack(*arrays: np.ndarray, axis: int) -> np.ndarray:
    """``numpy.stack`` with the tensors as separate arguments."""
    return np.stack(arrays, axis=axis)


def split(x: np.ndarray, indices_or_sections: int | tuple[int, ...], axis: int
          ) -> np.ndarray | tuple[np.ndarray, ...]:
    """``numpy.split``, giving a lone array (not a one-element list) when there is
    one part, since an Op with one output returns its value itself."""
    parts = np.split(x, indices_or_sections, axis=axis)
    return parts[0] if len(parts) == 1 else tuple(parts)


def vstack(*arrays: np.ndarray) -> np.ndarray:
    """``numpy.vstack`` with the tensors as separate arguments."""
    return np.vstack(arrays)


def hstack(*arrays: np.ndarray) -> np.ndarray:
    """``numpy.hstack`` with the tensors as separate arguments."""
    return np.hstack(arrays)


def item(x: np.ndarray) -> np.ndarray:
    """``x.item()`` as a 0-d array of x's dtype."""
    return np.asarray(x).reshape(())


def reshape(x: np.ndarray, *sizes: np.ndarray, shape: tuple[Any, ...],
            axes_of: tuple[tuple[Any, int], ...] = ()) -> np.ndarray:
    """``numpy.reshape`` to a shape that may hold symbolic sizes: ``axes_of`` says which
    axis of ``x`` each named size is, and other variables' sizes are the lengths of
    ``sizes`` (see :func:`~kantensor.ops.sizes.given_operands`)."""
    if axes_of or sizes:
        values = {symbol_of(d): x.shape[i] for d, i in axes_of}
        given = len({s for e in shape if isinstance(e, Dim) for s in free_symbols(e)
                     if not isinstance(s, str) and s not in values})
        values.update({symbol_of(given_axis(k)): len(s) for k, s in enumerate(sizes[:given])})
        foreign = foreign_names(shape, [k for k in values if isinstance(k, str)])
        values.update({name: len(s) for name, s in zip(foreign, sizes[given:], strict=True)})
        shape = tuple(int(substitute(s, values)) if isinstance(s, Dim) else s for s in shape)
    return np.reshape(x, shape)


def broadcast_to(x: np.ndarray, *sizes: np.ndarray, shape: tuple[Any, ...]) -> np.ndarray:
    """``numpy.broadcast_to``; the Dims of ``shape`` are the lengths of ``sizes``."""
    return np.broadcast_to(x, concrete([shape], sizes)[0])


def argsort(x: np.ndarray, axis: int | None) -> np.ndarray:
    """``numpy.argsort`` with a stable sort, so that equal elements keep their order
    (NumPy's default sort leaves the order of ties unspecified)."""
    return np.argsort(x, axis=axis, kind="stable")

"""Builders and implementations for indexing: basic ``x[...]``, take, take_along_axis.

The length of a sliced axis is written as a dim expression of the input's dim
variable (with ``min``/``max``/``//``), so the signature computes it exactly
for a known size, keeps it symbolic for a :class:`~kantensor.Dim` and leaves it
unknown for an unknown size. The expressions follow ``slice.indices(n)``:
start and stop are clamped into ``[0, n]`` (``[-1, n-1]`` for a negative step,
shifted by one here so that both are in ``[0, n]`` as well).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..params import normalize_axis
from ..templates import names, operand, product, rank_error, reads_ranks, where

#: A position in ``[0, n]`` as ("start", p) = min(p, n) or ("end", q) = max(n - q, 0).
Bound = tuple[str, int]


# --------------------------------------------------------------------------- getitem

def _bound_text(bound: Bound, n: str) -> str:
    """The text of a clamped position along an axis of size ``n``."""
    side, offset = bound
    if offset == 0:
        return "0" if side == "start" else n
    return f"min({offset},{n})" if side == "start" else f"max({n}-{offset},0)"


def _position(value: int | None, default: Bound, shift: int = 0) -> Bound:
    """``value + shift`` clamped into ``[0, n]``: a non-negative value counts from the
    start, a negative one from the end (Python's slice rule)."""
    if value is None:
        return default
    if value >= 0:
        return ("start", value + shift)
    return ("end", -value - shift)


def _count(upper: Bound, lower: Bound, n: str) -> tuple[str, bool]:
    """``max(upper - lower, 0)``, simplified where the bounds allow it, as (text,
    clamped): when ``clamped`` the size is ``max(text, 0)``, else ``text`` itself."""
    if upper == ("start", 0) or lower == ("end", 0) or upper == lower or (
            upper[0] == lower[0] == "start" and upper[1] <= lower[1]) or (
            upper[0] == lower[0] == "end" and upper[1] >= lower[1]):
        return "0", False
    if lower == ("start", 0):
        return _bound_text(upper, n), False
    if upper == ("end", 0):  # n - lower
        if lower[0] == "start":
            return f"{n}-{lower[1]}", True
        return _bound_text(("start", lower[1]), n), False
    if upper[0] == lower[0] == "start":  # min(p, n) - min(q, n) with p > q
        return f"min({upper[1]},{n})-{lower[1]}", True
    if upper[0] == lower[0] == "end":  # max(n-p, 0) - max(n-q, 0) with p < q
        return f"min({_bound_text(upper, n)},{lower[1] - upper[1]})", False
    if upper[0] == "end":  # max(n-q, 0) - min(p, n)
        return f"{n}-{upper[1] + lower[1]}", True
    return f"{_bound_text(upper, n)}-{_bound_text(lower, n)}", True


def slice_length(n: str, start: int | None, stop: int | None, step: int | None) -> str:
    """The length of ``x[start:stop:step]`` along an axis of size ``n``, as a dim
    expression (``len(range(*slice(start, stop, step).indices(n)))``)."""
    step = 1 if step is None else step
    if step > 0:
        count, clamped = _count(_position(stop, ("end", 0)), _position(start, ("start", 0)),
                                n)
    else:  # positions shifted by +1: start in [0, n], stop in [0, n]
        count, clamped = _count(_position(start, ("end", 0), 1),
                                _position(stop, ("start", 0), 1), n)
    size = abs(step)
    if count == "0":
        return count
    if size == 1:
        return f"max({count},0)" if clamped else count
    # (max(c, 0) + size - 1)//size == max(c + size - 1, 0)//size
    if clamped:
        return f"max({count}+{size - 1},0)//{size}"
    return f"({count}+{size - 1})//{size}"


def _expand(index: tuple, ndim: int) -> list:
    """The index with ``...`` replaced by full slices; IndexError-like rank errors for
    too many indices. Trailing axes without an index are kept whole."""
    used = sum(item is not None and item is not Ellipsis for item in index)
    if used > ndim:
        raise rank_error("getitem", f"too many indices for tensor: tensor is "
                                    f"{ndim}-dimensional, but {used} were indexed")
    full = ("slice", None, None, None)
    items: list = []
    for item in index:
        if item is Ellipsis:
            items.extend([full] * (ndim - used))
        else:
            items.append(item)
    if Ellipsis not in index:
        items.extend([full] * (ndim - used))
    return items


@reads_ranks
def basic_index(types: tuple, index: tuple, **_: Any) -> dict[str, Any]:
    """``x`` -> ``y`` for a basic index (ints, slices, None, ``...``).

    An int drops its axis and needs the axis to be long enough (``a >= i + 1``, or
    ``a >= -i`` for a negative ``i``); a slice gives :func:`slice_length`; None
    inserts an axis of size 1."""
    (x,) = types
    dims = names("a", x.ndim)
    out: list[str] = []
    clauses: list[str] = []
    axis = 0
    for item in _expand(index, x.ndim):
        if item is None:
            out.append("1")
            continue
        dim = dims[axis]
        axis += 1
        if isinstance(item, int):
            clauses.append(f"{dim} >= {item + 1 if item >= 0 else -item}")
        else:
            out.append(slice_length(dim, *item[1:]))
    return {"x": operand(dims), "y": operand(out), "checks": where(clauses)}


def _as_key(index: tuple) -> tuple:
    """A normalised index back in NumPy's form (slices instead of tuples)."""
    return tuple(slice(*item[1:]) if isinstance(item, tuple) else item for item in index)


def getitem(x: np.ndarray, index: tuple) -> np.ndarray:
    """``x[index]`` for a normalised basic index (a view, as in NumPy)."""
    return x[_as_key(index)]


# --------------------------------------------------------------------------- take

def _nonempty(looked_up: list[str], n: str) -> str:
    """``, min(size, 1) <= n``: NumPy checks every index it looks up against the
    axis length ``n``, so looking up anything in an empty axis is an error. It looks
    up each index once per position of the axes before ``axis``; the axes after it
    do not matter (``take(zeros((0, 0)), 0, axis=0)`` raises)."""
    return f", min({product(looked_up)},1) <= {n}"


@reads_ranks
def take(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """np.take: the axis is replaced by the indices' shape; ``None`` (or any of the
    axes 0 and -1 of a 0-d tensor, as in NumPy) takes from the flattened tensor."""
    x, indices = types
    dims = names("a", x.ndim)
    taken = names("b", indices.ndim)
    if axis is None or (x.ndim == 0 and axis in (0, -1)):
        return {"x": operand(dims), "i": operand(taken), "y": operand(taken),
                "cond": _nonempty(taken, product(dims)), "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out = [*dims[:ax], *taken, *dims[ax + 1:]]
    return {"x": operand(dims), "i": operand(taken), "y": operand(out),
            "cond": _nonempty([*dims[:ax], *taken], dims[ax]), "params": {"axis": ax}}


def _along_operand(ax: int, ndim: int, dim: str) -> str:
    """``(.ax., dim, .rest.)``: the axes around ``ax`` as anonymous groups, which
    broadcast between the operands under ``+``."""
    parts = [f".{ax}."] if ax else []
    parts.append(dim)
    if ndim - ax - 1:
        parts.append(f".{ndim - ax - 1}.")
    return operand(parts)


def _static_empty_take(x: Any, indices: Any, ax: int) -> bool:
    """Whether static sizes show a non-empty result taken from an empty axis (NumPy
    raises IndexError whatever the index values are). The other axes broadcast, so
    this is only decided here, from fully known sizes."""
    if x.shape[ax] != 0:
        return False
    sizes = [indices.shape[ax], *(s for i, s in enumerate(x.shape) if i != ax),
             *(s for i, s in enumerate(indices.shape) if i != ax)]
    return all(isinstance(s, int) and s > 0 for s in sizes)


def take_along_axis(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """np.take_along_axis: same ranks, the axis takes the indices' size, the other
    axes broadcast; ``None`` takes from the flattened tensor with 1-d indices."""
    x, indices = types
    if axis is None:
        if indices.ndim != 1:
            raise rank_error("take_along_axis", f"with axis=None the indices must be 1-d, "
                                                f"got {indices.ndim} dimensions")
        dims = names("a", x.ndim)
        return {"x": operand(dims), "i": "(k)", "y": "(k)",
                "cond": _nonempty(["k"], product(dims))}
    ax = normalize_axis(axis, x.ndim)
    if indices.ndim != x.ndim:
        raise rank_error("take_along_axis", f"the indices must have as many dimensions as "
                                            f"the tensor ({x.ndim}), got {indices.ndim}")
    if _static_empty_take(x, indices, ax):
        raise rank_error("take_along_axis", f"cannot take a non-empty result from axis "
                                            f"{ax} of size 0")
    return {"x": _along_operand(ax, x.ndim, "n"), "i": _along_operand(ax, x.ndim, "k"),
            "y": _along_operand(ax, x.ndim, "k"), "cond": "", "params": {"axis": ax}}

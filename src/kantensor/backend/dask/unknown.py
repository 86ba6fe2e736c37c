"""Which of Dask's algorithms take chunks of unknown size (``nan``: a boolean mask's, whose
sizes the data decides), on which axes.

Dask's elementwise, reduction, contraction and scan functions work on blocks of any
size; others need the sizes of some axes (``flip`` to reverse them, ``trace`` to find
the diagonal) and fail from inside Dask with its own words where they are unknown
("cannot convert float NaN to integer"); Dask's ``concatenate`` (and the Ops built on
it) compares the axes it does not join, where :mod:`.joining` pairs their blocks by
origin instead.
Each kind of :data:`.algorithms.ALGORITHMS` says which unknown axes it takes
(``unknown(call, axes)``); for the others :func:`resolved` asks the session for the
sizes: an UnknownChunksError naming ``compute_chunk_sizes``, or with
``compute_chunk_sizes=True`` the sizes computed once per origin (DESIGN §12: nothing
computed in the call unless the user opts in).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import dask.array as da

from .lower import NodeCall, known

__all__ = ["always", "except_along", "joined", "moments_of_one_axis", "never",
           "reduces_empty", "resolved", "tiled", "vectors"]


def resolved(call: NodeCall, values: list[Any],
             takes: Callable[[NodeCall, frozenset[int]], bool]) -> list[Any]:
    """``values`` with the unknown chunk sizes an algorithm does not take (``takes(call,
    unknown axes)`` False) resolved or refused by the call's session."""
    out = []
    for i, x in enumerate(values):
        if isinstance(x, da.Array):
            axes = frozenset(a for a, c in enumerate(x.chunks) if not known(c))
            if axes and not takes(call, axes):
                x = call.session.sizes(call, i, x)
        out.append(x)
    return out


def never(call: NodeCall, axes: frozenset[int]) -> bool:
    return False


def always(call: NodeCall, axes: frozenset[int]) -> bool:
    return True


def except_along(key: str, default: int | None = 0
                  ) -> Callable[[NodeCall, frozenset[int]], bool]:
    """Unknown sizes allowed on every axis but those the parameter ``key`` names
    (``default`` where the Op has none; None: every axis)."""
    def ok(call: NodeCall, axes: frozenset[int]) -> bool:
        axis = call.params.get(key, default)
        if axis is None:
            return False
        ndim = max(call.node.inputs[0].type.ndim, 1)
        named = {a % ndim for a in (axis if isinstance(axis, tuple | list) else (axis,))}
        return not axes & named
    return ok


def reduces_empty(call: NodeCall, axes: frozenset[int]) -> bool:
    """A tree reduction: unknown sizes allowed on every axis where its reduction has an
    identity; a maximum or minimum (``max``, ``min`` without ``initial``, a norm of order
    inf or -inf) reduces no empty block (NumPy: "zero-size array to reduction operation
    maximum"), and a mask may leave a block empty, so not along the axes it reduces."""
    name, params = getattr(call.op, "name", ""), call.params
    if name in ("max", "min") and params.get("initial") is None or \
            name == "norm" and params.get("ord") in (math.inf, -math.inf):
        return except_along("axis", None)(call, axes)
    return True


def moments_of_one_axis(call: NodeCall, axes: frozenset[int]) -> bool:
    """var, std: Dask's moments of several axes give NaN, or fail, where a block is
    empty (a mask may leave one): unknown sizes allowed off the reduced axes, or where
    one axis is reduced."""
    axis, ndim = call.params.get("axis"), max(call.node.inputs[0].type.ndim, 1)
    reduced = range(ndim) if axis is None else axis if isinstance(axis, tuple | list) \
        else (axis,)
    return len(reduced) <= 1 or except_along("axis", None)(call, axes)


def tiled(call: NodeCall, axes: frozenset[int]) -> bool:
    """tile: by int reps, none 0 where an axis is repeated (Dask's tile of an empty
    result makes it of the sizes): each repeated axis's copies joined block by block
    (:func:`.joining.tiled_join`), the unknown axes aligned by their origin."""
    reps = call.params.get("reps")
    reps = reps if isinstance(reps, tuple | list) else (reps,)
    if not all(isinstance(r, int) for r in reps):
        return False
    return all(r == 1 for r in reps) or 0 not in reps


def vectors(call: NodeCall, axes: frozenset[int]) -> bool:
    """outer of vectors (of more axes, Dask flattens them: a reshape needing sizes)."""
    return all(v.type.ndim == 1 for v in call.node.inputs)


def joined(call: NodeCall, axes: frozenset[int]) -> bool:
    """concatenate: along an axis (``axis=None`` joins the flattened inputs: a reshape
    needing sizes); the inputs' unknown axes other than the joined one are aligned by
    their origin (:func:`.joining.aligned_off`)."""
    return call.params.get("axis", 0) is not None

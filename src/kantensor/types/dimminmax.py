"""``min`` and ``max`` of sizes: :func:`dim_min`, :func:`dim_max` and the DSL's
:data:`DIM_CALLS`.

Arguments are flattened (``min(a, min(b, c)) == min(a, b, c)``) and an argument another
one bounds at every size is dropped (``max(0, n) == n``, ``min((h + 1)//2, h//2) ==
h//2``, by :func:`kantensor.types.prove.order`), keeping the sizes it divides by
(``max(b, b % b)`` is ``b + 0//b``: no value at ``b == 0``); the rest are kept sorted
(:func:`kantensor.types.poly.ordered_args`) in one opaque atom of
:mod:`kantensor.types.dim`. Apart from the Dim class because nothing of its arithmetic
needs them.
"""

from __future__ import annotations

from ..syntax.vocabulary import MAX, MIN
from .dim import DimLike, as_dim, dim_add, dim_mul, kept_divisors, lone_atom_of, opaque_dim
from .divisors import by_size
from .poly import Opaque
from .poly import ordered_args as _ordered_args
from .prove import order

__all__ = ["DIM_CALLS", "dim_max", "dim_min"]


def _order(x: DimLike, y: DimLike) -> int | None:
    """-1 if ``x <= y`` at every size (sizes are ``>= 0``), 1 if ``x >= y``, 0 if equal,
    None if neither is proven (:func:`kantensor.types.prove.order`)."""
    return order(dim_add(x, dim_mul(y, -1)))


def _minmax(op: str, args: tuple[object, ...]) -> DimLike:
    if not args:
        raise TypeError(f"dim_{op} expected at least 1 argument, got 0")
    flat: list[DimLike] = []
    for x in map(as_dim, args):
        atom = lone_atom_of(x)
        flat.extend(atom.args if isinstance(atom, Opaque) and atom.op == op else (x,))
    kept: list[DimLike] = []
    for x in flat:  # each argument drops those it beats, and is dropped if one beats it
        survivors, wins = [], True
        for k in kept:
            order = _order(x, k)
            if order is not None and order != 0 and (order < 0) == (op == "min"):
                continue  # x beats k
            survivors.append(k)
            if order is not None:
                wins = False  # k beats x, or equals it
        kept = survivors + [x] if wins else survivors
    x = kept[0] if len(kept) == 1 else opaque_dim(op, *_ordered_args(kept))
    if len(kept) == len(flat) or not any(by_size(y) for y in flat):
        return x
    return kept_divisors(x, opaque_dim(op, *flat))  # (the sizes a dropped argument divides by)


def dim_min(*args: DimLike) -> DimLike:
    """The minimum of ints and Dims (an int when decidable, else a canonical ``min``)."""
    return _minmax("min", args)


def dim_max(*args: DimLike) -> DimLike:
    """The maximum of ints and Dims (an int when decidable, else a canonical ``max``)."""
    return _minmax("max", args)


#: The DSL's size functions on ints and Dims, for :func:`kantensor.syntax.ast.evaluate`.
DIM_CALLS = {MIN.text: dim_min, MAX.text: dim_max}

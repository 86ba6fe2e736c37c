"""The values of a signature's dim expressions in a direct build
(:mod:`.direct`): over the sizes the names have there (ints or named sizes), kept per
build and across builds."""

from __future__ import annotations

from typing import Any

from ..logic.dims import COMPARE
from ..syntax import ast as A
from ..types.dim import DIM_CALLS, Dim
from ..types.facts import Facts
from ..types.symbols import free_symbols
from .broadcasts import Fails

__all__ = ["Open", "constant_holds", "evaluated", "named", "output_size"]


class Open(Exception):
    """Not decided without search: the relation answers."""


def named(x: Any) -> bool:
    """A size over the user's named sizes only (no unknown of another solve)."""
    return isinstance(x, Dim) and (x.name is not None or all(
        isinstance(u, str) for u in free_symbols(x)))


def constant_holds(clause: A.Compare) -> bool:
    """Whether a comparison of constant expressions holds."""
    try:
        diff = evaluated(clause.left, {}, {}) - evaluated(clause.right, {}, {})
    except (ZeroDivisionError, KeyError, Open):
        return False
    return type(diff) is int and COMPARE[clause.op](diff, 0)


#: Dim expressions' values across builds, by the node and its names' values (the node
#: kept beside, so its id names it while the entry lives): a model's nodes of one kind
#: over the same sizes (a fire module's two 1x1 convs, a template's build) evaluate one
#: expression once. Emptied when full.
_VALUES: dict[tuple, tuple] = {}
_NAMES: dict[int, tuple] = {}  # a node's names, in order (by id, the node kept beside)
MAX_VALUES = 4096


def evaluated(node: Any, dims: dict, values: dict[int, Any]) -> Any:
    """A dim expression's value over the sizes the names have (ints or named sizes);
    Open where a name is unknown (the relation keeps what it needs of it). ``values``
    keeps it by the node's identity for one build: a template's output size and its
    clause ``size >= 1`` are one node, and a ``min`` over named sizes is ordered by the
    prover, which costs; :data:`_VALUES` keeps it across builds."""
    found = values.get(id(node))
    if found is not None:
        return found
    names = _NAMES.get(id(node))
    if names is None or names[0] is not node:
        if len(_NAMES) >= MAX_VALUES:
            _NAMES.clear()
        names = _NAMES[id(node)] = (node, tuple(A.expr_names(node)))
    key = (id(node), *[dims[name] for name in names[1]])  # (KeyError: a name unbound)
    for x in key:
        if x is None:
            raise Open
    kept = _VALUES.get(key)
    if kept is not None and kept[0] is node:
        found = kept[1]
    else:
        found = A.evaluate(node, dims.__getitem__, calls=DIM_CALLS)
        if len(_VALUES) >= MAX_VALUES:
            _VALUES.clear()
        _VALUES[key] = (node, found)
    values[id(node)] = found
    return found


def output_size(node: Any, dims: dict, values: dict, facts: Facts) -> Any:
    """An output's dim expression, as its equation and the forward answer give it: an
    int (none negative), or over named sizes the value the equation defines, simplified
    under the facts."""
    try:
        size = evaluated(node, dims, values)
    except (ZeroDivisionError, KeyError):
        raise Open from None
    if type(size) is int:
        if size < 0:
            raise Fails
        return size
    if not named(size):
        raise Open
    # the equation out == size defines out as size itself: solve_for(out - size)
    # gives size back (a coefficient 1, no other term holds out; Dims are canonical)
    return facts.simplify(size)

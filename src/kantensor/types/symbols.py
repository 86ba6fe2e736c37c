"""The symbols of size expressions, and substituting values for them.

:func:`free_symbols` lists what a Dim names (named sizes by name, unknowns by key, also
inside ``//``, ``%``, min and max); :func:`substitute` replaces them by ints or Dims and
makes the result canonical again (:mod:`kantensor.types.dim`).
"""

from __future__ import annotations

from collections.abc import Hashable

from .dim import (
    DimLike,
    _exact,
    _floordiv,
    _minmax,
    _mod,
    _rebuild,
    _set_free,
    as_dim,
)
from .poly import Opaque

__all__ = ["APPLY", "free_symbols", "substitute"]


def free_symbols(x: DimLike) -> frozenset[Hashable]:
    """The symbols occurring in ``x`` (also inside ``//``, ``%``, min, max): the names
    of named Dims and the keys of unknowns."""
    x = as_dim(x)
    if isinstance(x, int):
        return frozenset()
    free = x._free
    if free is None:
        names: set[Hashable] = set()
        for mono, _ in x._terms:
            for atom, _p in mono:
                if isinstance(atom, Opaque):
                    names.update(*map(free_symbols, atom.args))
                else:
                    names.add(atom)
        free = frozenset(names)
        _set_free(x, free)
    return free


#: The operations of opaque atoms, by their ``op``: what rebuilding an atom calls.
APPLY = {"//": _floordiv, "%": _mod, "/": lambda a, k: _exact(a, k),
          "min": lambda *a: _minmax("min", a), "max": lambda *a: _minmax("max", a)}


def _subst(x: DimLike, values: dict[Hashable, DimLike]) -> DimLike:
    if isinstance(x, int) or values.keys().isdisjoint(free_symbols(x)):
        return x
    return _rebuild(x, lambda a: APPLY[a.op](*(_subst(g, values) for g in a.args))
                    if isinstance(a, Opaque) else values.get(a))


def substitute(x: DimLike, mapping: dict[Hashable, DimLike]) -> DimLike:
    """Replace symbols (names or unknowns' keys) by ints or Dims and re-canonicalise
    (all ints give an ``int``).

    ``//`` and ``%`` are computed like Python's; division by a zero int raises
    ``ZeroDivisionError``.
    """
    return _subst(as_dim(x), {name: as_dim(v) for name, v in mapping.items()})


"""The symbols of size expressions, and substituting values for them.

:func:`free_symbols` lists what a Dim names (named sizes by name, unknowns by key, also
inside ``//``, ``%``, min and max); :func:`substitute` replaces them by ints or Dims and
makes the result canonical again (:mod:`kantensor.types.dim`). A :class:`DataSymbol` is a
size the data decide (a model's NonZero count): an atom known by its object, never by
its spelling; :func:`private` makes another such size, one no user can name (for the
sizes kantensor stands in for others with).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any

from .dim import (
    Dim,
    DimLike,
    as_dim,
    atom_dim,
    cache_free,
    dim_mul,
    dim_pow,
    exact_quotient,
    from_poly,
)
from .dimdivide import dim_floordiv, dim_mod
from .dimminmax import dim_max, dim_min
from .poly import Opaque, Private

__all__ = ["APPLY", "DataSymbol", "data_size", "free_symbols", "linear", "private",
           "rebuild", "substitute"]


class DataSymbol(Private):
    """A size the data decide when a model runs (how many elements a NonZero finds): a
    named size (a :class:`~.poly.Private` ``str``, so every rule for named sizes holds of
    it) whose identity is this object, never its spelling: a ``dim_param`` spelled alike
    is another size, and no text parses into it. ``why`` says which node decides it;
    ``bounds``, what that node's op guarantees of it (``NonZero <= n``: conditions over
    it and input sizes), lets a contract over the inputs quantify it away (valid for
    every value the data may give, for none, or undecided)."""

    why: str
    bounds: tuple[Any, ...]

    def __new__(cls, name: str, why: str = "", bounds: tuple[Any, ...] = ()) -> DataSymbol:
        self = str.__new__(cls, name)
        self.why, self.bounds = why, bounds
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return DataSymbol, (str.__str__(self), self.why, self.bounds)

    def __repr__(self) -> str:
        return f"<size {str.__str__(self)} the data decide>"


def data_size(name: str, why: str) -> Dim:
    """The Dim of a new :class:`DataSymbol`: another size than every other one."""
    return Dim(DataSymbol(name, why))


def private(text: str) -> Dim:
    """A new named size that no user, model or text can name: its name is a
    :class:`~.poly.Private` of ``text`` (for printing only), equal to itself alone, so a
    size a user spells as ``text`` is another size, and so is another ``private(text)``.
    It is interned while held (``Dim(d.name) is d``)."""
    return Dim(Private(text))


def linear(x: DimLike) -> tuple[tuple[tuple[Hashable, int], ...], int] | None:
    """``x`` as ``sum(c * s) + constant`` over its symbols ``s``: the pairs ``(s, c)``
    and the constant, or None where it has a product, a power or a ``//``, ``%``, min or
    max (for evaluating it at many values without substituting)."""
    if isinstance(x, int):
        return (), x
    pairs, constant = [], 0
    for mono, c in x._terms:
        if not mono:
            constant = c
        elif len(mono) != 1 or mono[0][1] != 1 or isinstance(mono[0][0], Opaque):
            return None
        else:
            pairs.append((mono[0][0], c))
    return tuple(pairs), constant


def free_symbols(x: DimLike) -> frozenset[Hashable]:
    """The symbols occurring in ``x`` (also inside ``//``, ``%``, min, max): the names
    of named Dims and the keys of unknowns."""
    if type(x) is Dim:
        free = x._free
        if free is not None:
            return free
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
        cache_free(x, free)
    return free


def rebuild(x: Dim, value: Callable[[Any], DimLike | None]) -> DimLike:
    """``x`` with each atom ``a`` replaced by ``value(a)`` (kept where that is None), made
    canonical again: what substituting, and every rewriting of atoms under facts, does."""
    total: Counter = Counter()  # summed in one dict, made canonical once: linear
    for mono, c in x._terms:
        term: DimLike = c
        for atom, p in mono:
            v = value(atom)
            term = dim_mul(term, dim_pow(atom_dim(atom) if v is None else v, p))
        total.update({(): term} if isinstance(term, int) else dict(term._terms))
    return from_poly(total)


#: The operations of opaque atoms, by their ``op``: what rebuilding an atom calls.
APPLY = {"//": dim_floordiv, "%": dim_mod, "/": lambda a, k: exact_quotient(a, k),
          "min": dim_min, "max": dim_max}


def _subst(x: DimLike, values: dict[Hashable, DimLike]) -> DimLike:
    if isinstance(x, int) or values.keys().isdisjoint(free_symbols(x)):
        return x
    return rebuild(x, lambda a: APPLY[a.op](*(_subst(g, values) for g in a.args))
                    if isinstance(a, Opaque) else values.get(a))


def substitute(x: DimLike, mapping: dict[Hashable, DimLike]) -> DimLike:
    """Replace symbols (names or unknowns' keys) by ints or Dims and re-canonicalise
    (all ints give an ``int``).

    ``//`` and ``%`` are computed like Python's; division by a zero int raises
    ``ZeroDivisionError``.
    """
    return _subst(as_dim(x), {name: as_dim(v) for name, v in mapping.items()})



def sign_when_large(x: DimLike) -> int | None:
    """The sign (-1, 0 or 1) of ``x`` where all its sizes are large and equal (``-n``: -1,
    ``n - 5``: 1), the sign its form shows; 0 or None (divided by 0 there) where it shows
    none (``n - m``, ``(m - n)//(n - m)``)."""
    try:
        value = substitute(x, dict.fromkeys(free_symbols(x), 1 << 20))
    except ZeroDivisionError:
        return None
    return (value > 0) - (value < 0)

"""Sizes as messages say them: an unknown reads as the name its variable was made for,
and a broadcast failure names each operand's own axis."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.symbols import free_symbols, substitute
from .terms import Fresh, prefix_of

__all__ = ["broadcast_text", "readable", "size_names"]


def broadcast_text(axes: tuple, inputs: bool = True) -> str:
    """``axis 0 is 2 and 5`` (the same axis of every operand), else ``axis 1 of input 0
    is 4 and axis 2 of input 1 is 6`` (``inputs`` False: without ``of input i``, for a
    message that names the operands in order): ``axes`` holds ``(input, axis, size)``."""
    if len({axis for _, axis, _ in axes}) == 1 and axes[0][1] is not None:
        return f"axis {axes[0][1]} is " + " and ".join(readable(v) for *_, v in axes)
    return " and ".join(f"{'an axis' if axis is None else f'axis {axis}'}"
                        f"{f' of input {i}' if inputs else ''} is {readable(v)}"
                        for i, axis, v in axes)


def readable(value: DimLike) -> str:
    """A value for messages: an unknown reads as the name its variable was made for
    (a signature's dim, a type's Dim) or ``?``; messages only, never identity."""
    if isinstance(value, int):
        return str(value)
    names = {}
    for u in free_symbols(value):
        if not isinstance(u, str):
            hint = prefix_of(u)
            names[u] = Dim(hint) if hint.isidentifier() else Dim("unknown")
    if len(names) == 1 and value == unknown(next(iter(names))) and \
            names[next(iter(names))] == Dim("unknown"):
        return "?"
    return str(substitute(value, names))


def size_names(values: Iterable[DimLike]) -> dict[Any, Dim]:
    """A distinct name for each unknown in ``values``, as the user can tell it: a user's
    logic variable its token (``var("m")``: m, ``var()``: _16, as ``kt.query`` names
    it), a solver's size the signature's name it was made for, or, where two would
    share one, the token ``run`` shows it with (``~n_4``: n_4); a name a named size or
    another unknown has gets a digit (``m1``). Messages only, never identity."""
    symbols = {x for v in values if isinstance(v, Dim) for x in free_symbols(v)}
    taken = {x for x in symbols if isinstance(x, str)}
    unknowns = sorted((x for x in symbols if not isinstance(x, str)), key=_token)
    wanted = {u: prefix_of(u) if type(u) is Fresh and prefix_of(u).isidentifier()
              else _token(u) for u in unknowns}
    shared = Counter(wanted.values())
    names: dict[Any, Dim] = {}
    for u in unknowns:
        name = wanted[u] if shared[wanted[u]] == 1 else _token(u)
        base, k = name, 1
        while name in taken:
            name, k = f"{base}{k}", k + 1
        taken.add(name)
        names[u] = Dim(name)
    return names


def _token(u: Any) -> str:
    """``u``'s token as an identifier (``_16``; an int token ``3``: ``_3``)."""
    token = str(getattr(u, "token", ""))
    return token if token.isidentifier() else f"_{token}"

"""Sizes as messages say them: an unknown reads as the name its variable was made for,
and a broadcast failure names each operand's own axis."""

from __future__ import annotations

from ..types.dim import Dim, DimLike, unknown
from ..types.symbols import free_symbols, substitute
from .terms import prefix_of

__all__ = ["broadcast_text", "readable"]


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

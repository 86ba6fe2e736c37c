"""A dimension seen with two sizes: the reason a solve records, carrying what NumPy's
gufunc sentence needs (:func:`kantensor.signature.messages.failure_message` says it)."""

from __future__ import annotations

from typing import Any

from ..logic.store import Reason
from ..logic.terms import isvar
from ..syntax.alternative import Alternative, Place

__all__ = ["core_mismatch", "show"]

#: Where a dimension was seen: the operand, its axis, and its core axis (the axis among
#: the operand's core dims, loop dims not counted: NumPy's "core dimension").
Seen = tuple[Place, int, int]


def show(value: Any) -> str:
    """A size as messages show it (``?`` for one not known)."""
    return "?" if isvar(value) else str(value)


def core_mismatch(alt: Alternative, name: str, first: Seen | None, value: Any,
                  second: Seen, size: Any) -> Reason:
    """``dimension n is 4 in input 0 (axis 1) but 5 in input 1 (axis 0)``, with the
    facts ``first``/``second`` (:data:`Seen`), ``sizes`` and, for an alternative with
    a loop prefix (a gufunc), its ``core`` signature (``(m?,n),(n,p?)->(m?,p?)``)."""
    origin = "another operand" if first is None else f"{first[0]} (axis {first[1]})"
    text = (f"dimension {name} is {show(value)} in {origin} but {show(size)} in "
            f"{second[0]} (axis {second[1]})")
    core = None
    if alt.loop is not None:
        core = "->".join(",".join("(" + ",".join(map(str, p.dims)) + ")" for p in side)
                         for side in (alt.inputs, alt.outputs))
    return Reason(text, "core", first=first, second=second, sizes=(value, size), core=core)

"""What an ONNX entry declares of its values for the size analyses: catalogue data read
by the entry's properties (:class:`~.onnxop.OnnxOp`), never by its op type's spelling.

``values``    how the values of the node's first output follow from its inputs' values
              (:data:`VALUES`): the value intervals of :mod:`.intervals` and the bool
              conditions of :mod:`.needs` follow them
``compares``  the comparison its bool output states of its two inputs (:data:`COMPARES`,
              the DSL's operator), so that a comparison of sizes is a size condition
``counts``    the dotted path of the :class:`Counting` that says which of its outputs'
              sizes its data decides (:mod:`.datasizes`)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import onnx

from ..ops.catalogue import CatalogueError
from ..ops.trust import TrustError, resolve

__all__ = ["COMPARES", "NEGATED", "NOTHING", "VALUES", "Counting", "Declared", "declared_of"]

#: ``values``: ``kept`` (the first input's values only, rearranged or repeated),
#: ``negated`` (the first input's bools negated), ``cast`` (the first input's values
#: converted to the output's dtype), ``range`` (Range's ``start + k*delta``), ``sum``,
#: ``difference``, ``product`` (of the two inputs, elementwise), ``joined`` (the inputs'
#: values joined along the ``axis`` attribute: Concat).
VALUES = ("kept", "negated", "cast", "range", "sum", "difference", "product", "joined")
#: ``compares``: the comparisons, each with its negation.
NEGATED = {"==": "!=", "<": ">=", ">": "<=", "<=": ">", ">=": "<"}
COMPARES = tuple(NEGATED)


@dataclass(frozen=True)
class Counting:
    """An op whose outputs have a size its data decides: ``axes`` gives the (output,
    axis) pairs that are that one size; ``guaranteed``: whether what the op's relation
    states of it holds by the op's semantics (NonZero's count is at most its input's
    number of elements), so it is a fact, not a condition the inputs must meet;
    ``what`` it counts, in words."""

    axes: Callable[[onnx.NodeProto, tuple], list[tuple[int, int]]]
    guaranteed: bool
    what: str


@dataclass(frozen=True)
class Declared:
    """What one entry declares: its ``values`` (one of :data:`VALUES`, or None), what it
    ``compares`` (one of :data:`COMPARES`, or None) and what it ``counts`` (or None)."""

    values: str | None = None
    compares: str | None = None
    counts: Counting | None = None


#: What an entry that declares nothing declares.
NOTHING = Declared()


def declared_of(extra: dict[str, Any], where: str) -> Declared:
    """What an entry's keys ``extra`` declare; CatalogueError where its ``values`` or
    ``compares`` is not one of the words this module knows, or its ``counts`` does not
    name a :class:`Counting`."""
    for key, words in (("values", VALUES), ("compares", COMPARES)):
        if extra.get(key, words[0]) not in words:
            raise CatalogueError(f"{where}: {key} must be one of "
                                 f"{', '.join(map(repr, words))}, got {extra[key]!r}")
    path = extra.get("counts")
    if path is None:
        return Declared(extra.get("values"), extra.get("compares")) if \
            "values" in extra or "compares" in extra else NOTHING
    found = resolved(path, where, "counts")
    if not isinstance(found, Counting):
        raise CatalogueError(f"{where}: counts: {path!r} is not a Counting")
    return Declared(extra.get("values"), extra.get("compares"), found)


def resolved(path: Any, where: str, key: str) -> Any:
    """What the dotted ``path`` of an entry's ``key`` names (``where``: the entry), or a
    CatalogueError saying why not (no string, or untrusted / not found)."""
    if not isinstance(path, str):
        raise CatalogueError(f"{where}: {key} must be a dotted path")
    try:
        return resolve(path)
    except TrustError as exc:
        raise CatalogueError(f"{where}: {key}: {exc}") from None

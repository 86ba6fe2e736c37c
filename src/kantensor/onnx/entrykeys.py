"""What an ONNX entry's keys say beyond its Op's signature: the outputs a node may name
(its ``outputs`` key) and the name its Op shows in messages (its op type).

ONNX's schema says of each op, at each opset, how many outputs a node may have and which
it must name (``onnx.defs``: ``min_output``, ``max_output`` and each formal output's
option): TopK names both Values and Indices, Dropout may leave out its mask, Split has
one or more. The checker and onnxruntime refuse a node outside them (a TopK of one
output), and so does kantensor (:func:`check_outputs`): the model is not ONNX.

An entry states its outputs as it states its inputs (``outputs = ["Values",
"Indices"]``): a name is a required output, a trailing ``?`` marks an optional one, a
leading ``*`` a variadic one of at least one output (``*name?``: of any number, none
included). Without the key an entry has one required output, as most ops. Read once per
entry (:func:`counts`); checked once per node read (:func:`fits`, inline where it
matters).

An entry's Op is named in messages by its op type, as ONNX names it (``Reshape``,
``MaxPool``): the catalogue's own names (``Reshape-13``, the entry of opsets 13 to 18)
tell entries of one file apart, and read as an opset the model need not have (a Reshape
of an opset 17 model was ``Reshape-13``, a Conv of any opset up to 21 ``Conv-1``). The
entry's opsets are said where they decide (a node of an opset no entry types: see
:func:`~.registry.lookup`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ops.catalogue import CatalogueError
from .loading import OnnxImportError

__all__ = ["DEFAULT", "Counts", "check_outputs", "counts", "fits", "gives", "specs"]

#: The outputs of an entry without an ``outputs`` key: one required output.
DEFAULT = ("output",)

#: What a node of an entry may name: the fewest outputs, the most (None: any number)
#: and the positions that must be named (not ``""``).
Counts = tuple[int, int | None, tuple[int, ...]]


def specs(value: Any, where: str) -> tuple[str, ...]:
    """The validated ``outputs`` of an entry's table (:data:`DEFAULT` when absent):
    CatalogueError naming ``where`` when it is no list of names, or a variadic output
    is not the last."""
    if value is None:
        return DEFAULT
    if not isinstance(value, list) or not value or not all(
            isinstance(v, str) and v.strip("*?") for v in value):
        raise CatalogueError(f"{where}: outputs must be a non-empty list of names")
    if any(v.startswith("*") for v in value[:-1]):
        raise CatalogueError(f"{where}: outputs: only the last output may be variadic (*)")
    return tuple(value)


def gives(extra: dict[str, Any], where: str) -> Counts:
    """What a node of the entry whose ONNX keys are ``extra`` may name of its outputs."""
    return counts(specs(extra.get("outputs"), where))


def counts(outputs: Sequence[str]) -> Counts:
    """The fewest and most outputs a node may name, and the positions it must name, as
    ONNX's schema computes them from its formal outputs (a required output after
    optional ones makes them count: their places are given, as ``""``)."""
    least, most, required = 0, 0, []
    for k, spec in enumerate(outputs):
        if spec.startswith("*"):
            return (least if spec.endswith("?") else most + 1), None, tuple(required)
        most += 1
        if not spec.endswith("?"):
            least = most
            required.append(k)
    return least, most, tuple(required)


def fits(found: Counts, wanted: Sequence[str]) -> bool:
    """Whether a node's output names (``""`` for one left out) fit ``found``."""
    least, most, required = found
    n = len(wanted)
    if n < least or most is not None and n > most:
        return False
    for k in required:
        if k < n and not wanted[k]:
            return False
    return True


def check_outputs(entry: Any, wanted: Sequence[str], where: str) -> None:
    """OnnxImportError saying why a node's output names ``wanted`` do not fit its
    catalogue entry's ``outputs`` (nothing when they fit); ``where`` names the node."""
    outputs = specs(dict(entry.extra).get("outputs"), entry.where)
    least, most, required = counts(outputs)
    n = len(wanted)
    names = ", ".join(s.strip("*?") + "?" * s.endswith("?") for s in outputs)
    if n < least or most is not None and n > most:
        expected = f"{least}" if least == most else \
            f"{least} or more" if most is None else f"{least} to {most}"
        raise OnnxImportError(f"{where}: {n} output{'s' * (n != 1)}, {expected} expected "
                              f"({names})")
    for k in required:
        if k < n and not wanted[k]:
            raise OnnxImportError(f"{where}: output {k} ({outputs[k]}) is required but "
                                  "named ''")



"""Bounds on what a node of a model may make, checked as it is read, so a model's work
is bounded by its size: an input whose value decides the types has a few entries per
axis (checked from its type before a builder makes anything per entry), and no node's
output may have more axes, or a size nested deeper, than a type text may (each node's
work is bounded by its inputs' types; a chain of nodes cannot grow them without end)."""

from __future__ import annotations

import math

from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.limits import MAX_NESTING
from ..types.type import TensorType
from .loading import MAX_RANK, OnnxImportError, clipped

__all__ = ["MAX_VALUE_ENTRIES", "bounded", "value_entries"]

#: The most entries of an input whose value decides an output's type (Reshape's shape,
#: Expand's shape, Slice's starts, Pad's pads, Split's split, ...), checked from its
#: type before anything is built: these hold a few entries per axis. A value of sizes
#: (Dims) is folded while the model is read up to this many entries too.
MAX_VALUE_ENTRIES = 4 * MAX_RANK


def value_entries(t: TensorType, k: int, name: str, where: str) -> None:
    """OnnxImportError if input ``k`` (``name``), whose value decides the node's types,
    may have more than :data:`MAX_VALUE_ENTRIES` entries by its type (checked before a
    builder makes anything per entry)."""
    sizes = [d for d in t.shape if isinstance(d, int)]
    if any(d > MAX_VALUE_ENTRIES for d in sizes) or \
            len(sizes) == t.ndim and math.prod(sizes) > MAX_VALUE_ENTRIES:
        raise OnnxImportError(clipped(f"{where}: input {k} ({name}) is {t}; an input whose "
                                      "value decides the types has at most "
                                      f"{MAX_VALUE_ENTRIES} entries"))


def bounded(t: Type, where: str) -> None:
    """OnnxImportError if ``t`` (a tensor's type, or a sequence's or an optional's
    elements') has more than MAX_RANK axes, or a size nested more than MAX_NESTING
    levels deep (as a type text may be: infer_shapes writes sizes so). Without these
    bounds a chain of nodes could grow them, and the work, without end (each Unsqueeze
    adding axes, each Slice by a step of 2 nesting a floor division)."""
    if isinstance(t, OptionalType):
        return bounded(t.element, where)
    shape = t.shape if isinstance(t, TensorType | SequenceType) else None
    if shape is None:
        return None
    if len(shape) > MAX_RANK:
        raise OnnxImportError(f"{where} would have {len(shape)} axes, at most {MAX_RANK} "
                              "(NumPy's limit)")
    for axis, d in enumerate(shape):
        if isinstance(d, Dim) and "(" in (text := str(d)):
            depth = deepest = 0
            for c in text:
                if c == "(":
                    depth += 1
                    deepest = max(deepest, depth)
                elif c == ")":
                    depth -= 1
            if deepest > MAX_NESTING:
                raise OnnxImportError(clipped(
                    f"{where} axis {axis} would be {text}: a size nested {deepest} levels "
                    f"deep, at most {MAX_NESTING}"))
    return None

"""Bounds on what a node of a model may make, checked as it is read, so a model's work
is bounded by its size: an input whose value decides the types has a few entries per
axis (checked from its type before a builder makes anything per entry), and no node's
output may have more axes, or a size nested deeper, than a type text may (each node's
work is bounded by its inputs' types; a chain of nodes cannot grow them without end)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import onnx

from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.limits import MAX_NESTING, MAX_TYPE_TEXT
from ..types.type import TensorType
from .loading import MAX_RANK, OnnxImportError, clipped

__all__ = ["MAX_INDEX_ENTRIES", "MAX_VALUE_ENTRIES", "arity", "bounded", "few_entries",
           "oversized", "value_entries"]

#: The most entries of an input whose value decides an output's type (Reshape's shape,
#: Expand's shape, Slice's starts, Pad's pads, Split's split, ...), checked from its
#: type before anything is built: these hold a few entries per axis. A value of sizes
#: (Dims) is folded while the model is read up to this many entries too.
MAX_VALUE_ENTRIES = 4 * MAX_RANK

#: The most entries of constant indices read for the conditions their values make
#: (GatherND's, ScatterND's, ReverseSequence's lengths, RoiAlign's batch indices: the
#: ``index_values`` parameters); larger ones are taken as data, as computed ones are, so
#: that a model's constant cannot make its reading take time and memory per entry.
MAX_INDEX_ENTRIES = 1 << 16


def arity(specs: Sequence[str], node: onnx.NodeProto, where: str) -> None:
    """OnnxImportError if ``node``'s inputs do not fit its entry's ``specs`` (``x``
    required, ``x?`` optional, ``*xs`` one or more, ``*xs?`` any number): a required one
    absent, or more than the entry has (checked before any is read)."""
    for k, spec in enumerate(specs):
        if spec.startswith("*"):
            if not spec.endswith("?") and (k >= len(node.input) or not node.input[k]):
                raise OnnxImportError(f"{where}: input {k} ({spec.strip('*')}): at least "
                                      "one is required")
            return None
        if not spec.endswith("?") and (k >= len(node.input) or not node.input[k]):
            raise OnnxImportError(f"{where}: input {k} ({spec}) is required")
    if len(node.input) > len(specs):
        raise OnnxImportError(f"{where}: {len(node.input)} inputs, at most {len(specs)} "
                              "expected")
    return None


def value_entries(t: Type, k: int, name: str, where: str) -> None:
    """OnnxImportError if input ``k`` (``name``), whose value decides the node's types,
    may have more than :data:`MAX_VALUE_ENTRIES` entries by its type (checked before a
    builder makes anything per entry; a sequence or an optional is refused by the node's
    Op after)."""
    if not isinstance(t, TensorType):
        return None
    sizes = [d for d in t.shape if isinstance(d, int)]
    if any(d > MAX_VALUE_ENTRIES for d in sizes) or \
            len(sizes) == t.ndim and math.prod(sizes) > MAX_VALUE_ENTRIES:
        raise OnnxImportError(clipped(f"{where}: input {k} ({name}) is {t}; an input whose "
                                      "value decides the types has at most "
                                      f"{MAX_VALUE_ENTRIES} entries"))


def few_entries(t: Type, most: int) -> bool:
    """Whether a tensor of type ``t`` has at most ``most`` entries by its sizes (all of
    them ints)."""
    if not isinstance(t, TensorType) or not all(type(d) is int for d in t.shape):
        return False
    return math.prod(t.shape) <= most


def oversized(d: object) -> str | None:
    """Why the size ``d`` is larger than a type text may state (its text longer than
    MAX_TYPE_TEXT, or nested more than MAX_NESTING levels deep), or None. Sizes a chain
    of nodes computes can grow without end (each Slice by a step of 2 nests a min, each
    ``(3*v + 1)//2`` of a Shape's value doubles the text): a bound on each one bounds
    the work of every node after it."""
    if not isinstance(d, Dim):
        return None
    text = str(d)
    if len(text) > MAX_TYPE_TEXT:
        return f"a size of {len(text)} characters, at most {MAX_TYPE_TEXT}"
    if text.count("(") <= MAX_NESTING:  # (no deeper than its parentheses: the loop
        return None  # below walks only a text that may be; a window's size has two)
    depth = deepest = 0
    for c in text:
        if c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth -= 1
    if deepest > MAX_NESTING:
        return f"a size nested {deepest} levels deep, at most {MAX_NESTING}"
    return None


def bounded(t: Type, where: str | Callable[[], str]) -> None:
    """OnnxImportError if ``t`` (a tensor's type, or a sequence's or an optional's
    elements') has more than MAX_RANK axes, or a size larger than a type text may state
    (:func:`oversized`; infer_shapes writes sizes as such text). Without these bounds a
    chain of nodes could grow them, and the work, without end (each Unsqueeze adding
    axes). ``where`` names the value in the message (a callable: made only then)."""
    if isinstance(t, OptionalType):
        return bounded(t.element, where)
    shape = t.shape if isinstance(t, TensorType | SequenceType) else None
    if shape is None:
        return None
    if len(shape) > MAX_RANK:
        raise OnnxImportError(f"{_named(where)} would have {len(shape)} axes, at most "
                              f"{MAX_RANK} (NumPy's limit)")
    for axis, d in enumerate(shape):
        if type(d) is int or d is None:  # (most sizes: no text to make)
            continue
        why = oversized(d)
        if why is not None:
            raise OnnxImportError(clipped(f"{_named(where)} axis {axis} would be {d}: "
                                          f"{why}"))
    return None


def _named(where: str | Callable[[], str]) -> str:
    return where if isinstance(where, str) else where()

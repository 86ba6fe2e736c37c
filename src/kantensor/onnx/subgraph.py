"""Subgraphs of ONNX nodes (If's branches, the bodies of Loop, Scan and SequenceMap):
typed in the scope of the graph around them, joined, and run as kantensor functions.

A subgraph is read by a reader of its own whose outer scope is the graph of its node
(see :meth:`kantensor.onnx.importer._Reader.child`): the outer values it uses are
*captured*, so that its function takes them as inputs after its own, and its node takes
the outer Variables as inputs after the ONNX ones. A :class:`~.runner.Runner` compiles
the subgraph's Variables into a function when the node first runs.

What is not known of a size is said, not dropped: :class:`SizeNote` records why a size
of a node's output is unknown (a reason, or the cases that decide it: the branch an
If's condition picks, zero iterations or more of a loop).
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..graph.type import Type
from ..graph.walk import toposort
from ..types.containers import OptionalType, SequenceType, join_shapes
from ..types.dim import Dim
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType
from .registry import UnsupportedOp

__all__ = ["SizeCondition", "SizeNote", "base_name", "fresh_names", "join_types",
           "output_types", "size_conditions", "size_notes"]


@dataclass(frozen=True)
class SizeNote:
    """Why a size of a node's output is unknown: ``reason`` in words, and ``cases``, the
    conditions (text in the DSL's expression syntax, or ``cond`` / ``not cond`` for the
    value of an input) with the size each one gives."""

    node: str
    output: str  # an output, or the name of a loop's number of iterations
    axis: int | str  # an axis, "length" (a sequence's) or "count" (a loop's iterations)
    reason: str
    cases: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        if self.axis == "count":
            where = f"{self.output}, the number of iterations of {self.node},"
        elif self.axis == "length":
            where = f"the length of {self.output} ({self.node})"
        else:
            where = f"axis {self.axis} of {self.output} ({self.node})"
        text = f"{where} is not known: {self.reason}"
        if self.cases:
            text += "; " + ", ".join(f"{size} if {cond}" for cond, size in self.cases)
        return text


@dataclass(frozen=True)
class SizeCondition:
    """A condition a node puts on sizes (``0 <= loop_iters``, ``loop_iters <= n``): the
    two sides (ints or Dims) and the comparison; :meth:`holds` checks it at sizes given by
    name."""

    left: Any
    op: str  # <=, <, ==
    right: Any
    node: str

    def holds(self, **sizes: int) -> bool:
        values = [substitute(side, sizes) if isinstance(side, Dim) else side
                  for side in (self.left, self.right)]
        if not all(isinstance(v, int) for v in values):
            raise ValueError(f"{self}: the sizes given do not decide it")
        a, b = values
        return a <= b if self.op == "<=" else a < b if self.op == "<" else a == b

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}".replace(" + ", "+")


@dataclass
class Notes:
    """The SizeNotes of one node's outputs, made while its handler types it."""

    node: str
    found: list[SizeNote] = field(default_factory=list)

    def add(self, output: str, axis: int | str, reason: str, cases: Iterable = ()) -> None:
        self.found.append(SizeNote(self.node, output, axis, reason, tuple(cases)))


def output_types(sub: Any, label: str) -> list[Type]:
    """The types of a subgraph's outputs (read by ``sub``); the error of the unsupported
    node that reaches one, if any."""
    out = []
    for info in sub.proto.output:
        why = sub.untyped.get(info.name)
        if why is not None:
            raise UnsupportedOp(f"{label}: the subgraph's output {info.name!r} is not "
                                f"typed: {why}") from why
        out.append(sub.type_of(info.name, None))
    return out


def size_notes(outputs: Variable | Sequence[Variable]) -> list[SizeNote]:
    """Why sizes of the graph of ``outputs`` (read by :func:`~kantensor.onnx.from_onnx`)
    are unknown, where a node of control flow says it: the branch an If's condition
    picks, a loop's number of iterations, a size no iteration rule solves."""
    listed = _listed(outputs, "size_notes")
    return [n for node in toposort(listed) for n in node.tag.get("notes", ())] if listed else []


def size_conditions(outputs: Variable | Sequence[Variable]) -> list[SizeCondition]:
    """The conditions the nodes of control flow of the graph of ``outputs`` put on the
    sizes they introduce (``0 <= loop_iters``, ``loop_iters <= n``), each once, naming
    the first node that states it (two NonZeros of one mask count one size, and each
    states its bound)."""
    found: dict[tuple, SizeCondition] = {}
    for node in toposort(_listed(outputs, "size_conditions")):
        for c in node.tag.get("conditions", ()):
            found.setdefault((c.left, c.op, c.right), c)
    return list(found.values())


def _listed(outputs: Variable | Sequence[Variable], caller: str) -> list[Variable]:
    """``outputs`` as a list, or a TypeError saying what ``caller`` takes (a model given
    as it is, rather than the outputs :func:`~kantensor.onnx.from_onnx` reads from it)."""
    if isinstance(outputs, Variable):
        return [outputs]
    if isinstance(outputs, Sequence) and all(isinstance(v, Variable) for v in outputs):
        return list(outputs)
    raise TypeError(f"{caller} takes the outputs from_onnx reads (a Variable or a list of "
                    f"them), got {type(outputs).__name__}: call "
                    f"{caller}(kantensor.onnx.from_onnx(model)[1])")


def base_name(label: str) -> str:
    """A Python identifier made from a node's label (its name, else its outputs), to
    name the sizes it introduces (``loop_1_iters``)."""
    text = re.sub(r"\W+", "_", label).strip("_") or "node"
    return f"n_{text}" if text[0].isdigit() else text[:64]


def fresh_names(base: str, count: int, taken: set[str]) -> list[str]:
    """``count`` names of sizes starting with ``base`` that none of ``taken`` is."""
    out: list[str] = []
    k = 0
    while len(out) < count:
        name = f"{base}{k}"
        k += 1
        if name not in taken:
            out.append(name)
    return out


def names_in(types: Iterable[Type | None]) -> set[str]:
    """The names of the named sizes in ``types``."""
    out: set[str] = set()
    for t in types:
        for d in _dims(t):
            if isinstance(d, Dim):
                out |= {s for s in free_symbols(d) if isinstance(s, str)}
    return out


def _dims(t: Type | None) -> list:
    if isinstance(t, TensorType):
        return list(t.shape)
    if isinstance(t, SequenceType):
        return [*(t.shape or ()), t.length, *(d for e in (t.elements or ()) for d in e.shape)]
    if isinstance(t, OptionalType):
        return _dims(t.element)
    return []


def join_types(a: Type, b: Type, what: str) -> tuple[Type, list[tuple[int | str, Any, Any]]]:
    """The type of a value that is of type ``a`` or of type ``b`` (an If's output), and
    the sizes where they differ as ``(axis or "length", a's, b's)``. UnsupportedOp when
    no kantensor type holds both (tensors of different ranks); TypeError when ONNX
    allows no such node (different dtypes or kinds)."""
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        if a.dtype != b.dtype:
            raise TypeError(f"{what}: the branches give {a.dtype} and {b.dtype}")
        if a.ndim != b.ndim:
            raise UnsupportedOp(f"{what}: the branches give ranks {a.ndim} and {b.ndim}, "
                                "which no tensor type holds both of")
        differ = [(k, x, y) for k, (x, y) in enumerate(zip(a.shape, b.shape, strict=True))
                  if not _same(x, y)]
        return TensorType(a.dtype, join_shapes([a.shape, b.shape])), differ
    if isinstance(a, SequenceType) and isinstance(b, SequenceType):
        if a.dtype != b.dtype:
            raise TypeError(f"{what}: the branches give sequences of {a.dtype} and {b.dtype}")
        same = a.elements is not None and a.elements == b.elements
        length = a.length if _same(a.length, b.length) else None
        differ = [] if _same(a.length, b.length) else [("length", a.length, b.length)]
        if same:
            return a, []
        return SequenceType(a.dtype, join_shapes([a.shape, b.shape]), length), differ
    if isinstance(a, OptionalType) and isinstance(b, OptionalType):
        inner, differ = join_types(a.element, b.element, what)
        return OptionalType(inner), differ
    raise TypeError(f"{what}: the branches give {a} and {b}")


def _same(x: Any, y: Any) -> bool:
    return x is not None and y is not None and x == y


def stacked(values: list, dtype: Any, empty: tuple[int, ...], axis: int = 0) -> np.ndarray:
    """Per-iteration values stacked along a new ``axis``; after no iteration, an empty
    array whose other sizes are ``empty``."""
    if values:
        return np.stack(values, axis=axis)
    shape = list(empty)
    shape.insert(axis, 0)
    return np.zeros(shape, dtype=dtype)


#: Names pickles of older versions refer to that are no longer here, and where they went
#: (a pickle names the classes it holds where they were when it was made).
_MOVED = {"Runner": "kantensor.onnx.runner.Runner"}


def __getattr__(name: str) -> Any:
    """A name of :data:`_MOVED` (as unpickling asks for it): a function refusing the
    pickle in words; kantensor's pickles are exchanged between processes running one
    version of it, not kept across versions (docs/backend.rst)."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def refused(*_: Any, **__: Any) -> Any:
        raise pickle.UnpicklingError(
            f"this pickle was made by another version of kantensor: it names "
            f"{__name__}.{name}, which is now {_MOVED[name]}. A kantensor pickle is for "
            "processes running the same version of kantensor (a pool, a cluster), not "
            "kept across versions: make the graph or Function again (from its ONNX model, "
            "or its code)")
    return refused

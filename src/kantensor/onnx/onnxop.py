"""One ONNX entry (:class:`OnnxOp`): the op type and opsets it types, its ONNX inputs
and its Op, made and checked from its catalogue table (a structured op's table too:
:class:`StructuredEntry`). The keys of the tables are :mod:`.registry`'s doc; finding
an op type's entries is :mod:`.registry`'s."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..graph.once import once
from ..ops.catalogue import CatalogueError, Entry
from ..ops.family import OpFamily
from ..ops.op import SignatureOp
from ..signature.overloads import compiled
from ..syntax.alternative import Overloads
from ..types.dtypes import DEFAULT_RANGE
from ..types.type import TensorType
from .declared import Declared, declared_of, resolved
from .entrykeys import Counts, gives
from .structured import Structured

__all__ = ["FIRST_OPSET", "KEYS", "OnnxOp", "StructuredEntry", "load_structured"]

#: The keys ONNX entries add to a catalogue entry.
KEYS = ("onnx", "domain", "since", "until", "inputs", "outputs", "reads_only",
        "containers", "values", "compares", "counts")

#: The keys of a structured entry's table (``op`` names its handler).
STRUCTURED_KEYS = ("name", "op", "doc", *KEYS[:6])

#: What a kernel may read only of its inputs (``reads_only``).
READS_ONLY = ("shapes",)

#: What an input whose dtype names no category takes (no string).
_NUMBERS = frozenset(DEFAULT_RANGE)

#: The first opset of the default domain an entry types unless it says otherwise.
FIRST_OPSET = 13


@dataclass(frozen=True, eq=False)
class OnnxOp:
    """One entry: the op type and opsets it types, its ONNX inputs, and the Op (equal
    to itself only: a key of the node memo)."""

    op_type: str
    domain: str
    since: int
    until: int | None
    inputs: tuple[str, ...]
    entry: Entry | StructuredEntry
    op: SignatureOp | OpFamily | Structured
    gives: Counts  # (what a node may name of its outputs: .entrykeys.fits)

    @property
    def structured(self) -> bool:
        """Whether a :class:`~.structured.Structured` handler types the node."""
        return isinstance(self.op, Structured)

    @once
    def reads_shapes(self) -> bool:
        """Whether the kernel reads its inputs' shapes only (``reads_only = "shapes"``),
        so that it computes its output's value from their types."""
        return dict(self.entry.extra).get("reads_only") == "shapes"

    @once
    def containers(self) -> Structured | None:
        """The handler typing the node when an input is a sequence or an optional."""
        path = dict(self.entry.extra).get("containers")
        return None if path is None else _handler(path, self.entry.where, "containers")

    @once
    def declared(self) -> Declared:
        """What it declares of its values for the size analyses (:mod:`.declared`)."""
        return declared_of(dict(self.entry.extra), self.entry.where)

    @once
    def plain(self) -> bool:
        """Whether its Op types every node (no handler: not structured, no
        ``containers``), so the importer asks no handler."""
        return not self.structured and self.containers is None

    @once
    def _counts(self) -> tuple[int, tuple[int, ...], int | None]:
        """How many inputs lead that are all required, the positions of the required ones
        after them, and the most inputs (None: variadic)."""
        lead, required = 0, []
        for k, spec in enumerate(self.inputs):
            if spec.startswith("*"):  # (one or more unless marked ``?``)
                return lead, (*required, *(() if spec.endswith("?") else (k,))), None
            if not spec.endswith("?"):
                if k == lead:
                    lead += 1
                else:
                    required.append(k)
        return lead, tuple(required), len(self.inputs)

    def fits(self, names: list[str]) -> bool:
        """Whether a node's input names (``""`` for an absent one) fit its inputs: every
        required one given, no more than it takes (:func:`~.bounds.arity` says what
        does not; this is its quick yes, once per node read)."""
        lead, required, most = self._counts
        n = len(names)
        if n < lead or most is not None and n > most or "" in names[:lead]:
            return False
        return not required or all([k < n and names[k] != "" for k in required])

    def covers(self, opset: int) -> bool:
        return self.since <= opset and (self.until is None or opset <= self.until)

    @once
    def takes_strings(self) -> bool:
        """Whether an input may be a string: an alternative of its signature admits one
        (``T in string``); for an Op with parameters, of its signature rendered for some
        example (RandomNormalLike's input is a string only where ``dtype`` is given)."""
        sig = getattr(self.op, "signature", None)
        sigs = [sig] if isinstance(sig, Overloads) else self._example_signatures()
        return any(not allowed <= _NUMBERS for s in sigs if isinstance(s, Overloads)
                   for c in compiled(s) for allowed in c.input_dtypes)

    def _example_signatures(self) -> Iterator[Overloads]:
        for example in () if self.structured else self.entry.examples:
            if "in" not in example:
                continue
            params = {k: v for k, v in example.items() if k not in ("in", "out", "error")}
            types = tuple(TensorType.parse(t) for t in _flat(example["in"]))
            try:
                op = self.op.bind(**params) if isinstance(self.op, OpFamily) else self.op
                yield op.signature_for(types)[0]
            except (TypeError, ValueError, IndexError):
                continue

    @once
    def attributes(self) -> dict[str, Any]:
        """The attribute parameters (the call's keyword-only ones; a handler's own), by
        name."""
        if self.structured:
            return dict(self.op.attributes)
        return {p.name: p for p in self.entry.spec.params if p.keyword_only}

    @once
    def bounded(self) -> tuple[int, ...]:
        """The positions of the inputs whose value intervals the entry reads (a
        ``<name>_bounds`` parameter of the call, or ``<name>_columns``: those of each
        column, :attr:`columned`; :mod:`kantensor.onnx.intervals`)."""
        params = {p.name for p in self.entry.spec.params}
        return tuple(k for k, s in enumerate(self.inputs) if not s.startswith("*")
                     and ({f"{s.strip('*?')}_bounds", f"{s.strip('*?')}_columns"} & params))

    @once
    def columned(self) -> frozenset[int]:
        """The positions of :attr:`bounded` whose columns' intervals the entry reads (a
        ``<name>_columns`` parameter: GatherND's index tuples)."""
        params = {p.name for p in self.entry.spec.params}
        return frozenset(k for k in self.bounded
                         if f"{self.inputs[k].strip('*?')}_columns" in params)

    @once
    def reads(self) -> tuple[int, ...]:
        """The positions of the inputs whose values the entry reads (a ``<name>_value``
        parameter of the call)."""
        if self.structured:
            return ()
        params = {p.name for p in self.entry.spec.params}
        return tuple(k for k, s in enumerate(self.inputs) if not s.startswith("*")
                     and f"{s.strip('*?')}_value" in params)


@dataclass(frozen=True)
class StructuredEntry:
    """The table of a structured op (see :mod:`.registry`'s doc): where it is, its name, doc
    and ONNX keys. It has no examples of its own (its tests build models)."""

    file: str
    index: int
    name: str
    doc: str
    handler: Structured
    extra: tuple[tuple[str, Any], ...]
    examples: tuple = ()

    @property
    def where(self) -> str:
        return f"{self.file}: op #{self.index + 1} ({self.name})"

    def run_examples(self, op: Any = None) -> int:
        return 0

    def example_errors(self, op: Any = None) -> list[str]:
        return []


def _handler(path: Any, where: str, key: str) -> Structured:
    """The handler a dotted path names (an instance of a Structured class)."""
    cls = resolved(path, where, key)
    if not (isinstance(cls, type) and issubclass(cls, Structured)):
        raise CatalogueError(f"{where}: {key}: {path!r} is not a Structured handler class")
    return cls()


def load_structured(file: str, index: int, raw: dict) -> StructuredEntry:
    """The validated entry of a structured op's table."""
    where = f"{file}: op #{index + 1}" + (f" ({raw['name']})" if "name" in raw else "")
    unknown = sorted(set(raw) - set(STRUCTURED_KEYS))
    if unknown:
        raise CatalogueError(f"{where}: unknown key{'s' * (len(unknown) > 1)} "
                             f"{', '.join(unknown)}; a structured op's table takes "
                             f"{', '.join(STRUCTURED_KEYS)}")
    for key in ("name", "doc"):
        if not isinstance(raw.get(key, ""), str):
            raise CatalogueError(f"{where}: {key} must be a string")
    if "name" not in raw:
        raise CatalogueError(f"{where}: missing name")
    extra = tuple((k, raw[k]) for k in KEYS if k in raw)
    return StructuredEntry(file, index, raw["name"], raw.get("doc", ""),
                           _handler(raw["op"], where, "op"), extra)


def is_structured(raw: Any) -> bool:
    return isinstance(raw, dict) and "op" in raw


def _flat(value: list) -> list:
    return [t for v in value for t in (_flat(v) if isinstance(v, list) else [v])]


def onnx_op(entry: Entry | StructuredEntry) -> OnnxOp:
    extra = dict(entry.extra)
    where = entry.where
    since, until = extra.get("since", FIRST_OPSET), extra.get("until")
    if not is_opset(since) or not (until is None or is_opset(until)):
        raise CatalogueError(f"{where}: since and until must be opset numbers (ints >= 1)")
    if until is not None and until < since:
        raise CatalogueError(f"{where}: until ({until}) is before since ({since})")
    if not all(isinstance(extra.get(key, ""), str) for key in ("onnx", "domain")):
        raise CatalogueError(f"{where}: onnx and domain must be strings")
    if extra.get("reads_only", READS_ONLY[0]) not in READS_ONLY:
        raise CatalogueError(f"{where}: reads_only must be one of "
                             f"{', '.join(map(repr, READS_ONLY))}, got {extra['reads_only']!r}")
    declared_of(extra, where)
    inputs = extra.get("inputs")
    if inputs is None and isinstance(entry, StructuredEntry):
        raise CatalogueError(f"{where}: a structured op names its inputs (inputs = [...])")
    if inputs is None:
        inputs = [p.name if p.kind != "*tensors" else "*" + p.name
                  for p in entry.spec.params if p.is_tensor]
    if not isinstance(inputs, list) or not all(isinstance(i, str) for i in inputs):
        raise CatalogueError(f"{where}: inputs must be a list of names")
    op_type, domain = extra.get("onnx", entry.name), extra.get("domain", "")
    op = entry.handler if isinstance(entry, StructuredEntry) else \
        entry.make_op(op_type)  # (named in messages as ONNX names it: .entrykeys)
    return OnnxOp(op_type, domain, since, until, tuple(inputs), entry, op, gives(extra, where))


def is_opset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1

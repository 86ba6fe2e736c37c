"""Sizes the data decides, named after the node that decides them.

NonZero's count, Compress's, Unique's, NonMaxSuppression's, and TopK's ``k`` where its
value is not known when the model is read: no input size gives them, and the relation
of the node's Op leaves them a size of its own (``u`` in ``{x}:T->({n},u):int64``). The
importer makes it a size of its own, a :class:`~kantensor.types.symbols.DataSymbol`
(identity by the object: a ``dim_param`` spelled alike, even in a subgraph read later,
is another size), printed after its node (``NonZero_3`` for a node named
``/NonZero_3``, ``NonZero_idx`` for an unnamed one whose first output is ``idx``: an
identifier, fresh against every ``dim_param`` of the model's inputs and subgraphs), so
that the values computed from it (Transpose, GatherND, Gather, ConstantOfShape, Concat,
...) are typed exactly in terms of it, and records where it comes from
(:class:`DataSize`: which node decides it and what it counts; in from_onnx's graph, a
:class:`~.subgraph.SizeNote` on the node, which :func:`~.subgraph.size_notes` lists).

One name is one size in every run: a node's outputs that count the same (Unique's
values, first indices and counts; TopK's values and indices) share it, two nodes of the
same op, attributes and input values (two NonZeros of one mask; an input name is one
value only in the graph that defines it) share it too (the same computation on the same
values gives the same count), and any other two counts get two names. Only the nodes
of a graph that runs at most once per run of the model (the main graph, an If's
branches outside loops) name their counts: in a loop's body a count
changes from one iteration to the next, so there it stays unknown. An If whose branches
give different sizes gives a size its condition's value decides: one more name, after
the If.

What the op's semantics guarantees of its count (``u <= numel(x)`` for NonZero: the
relation's condition on its own size) is a *fact* about it, known to every later node
and the subgraphs it holds (:meth:`~.scope.Scope.child`; and the symbol's ``bounds``),
not a condition the inputs must meet: a contract does not constrain it as if the user
chose it, nor lists it among the input sizes. What an op
needs of a count it is given (TopK's ``k <= x.shape[axis]``) stays a condition, over a
size that is no input: a check made when the model runs, which a contract over the
inputs quantifies away (:mod:`kantensor.types.contracts`).
"""

from __future__ import annotations

import itertools
import keyword
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import onnx

from ..ops.located import relocated
from ..types.conditions import Clause, Condition, InnerSize, Source
from ..types.dim import Dim, DimLike, unknown
from ..types.facts import Facts
from ..types.intervals import interval
from ..types.symbols import DataSymbol, data_size, free_symbols, substitute
from ..types.type import TensorType
from ..types.variable import AxisSize
from .declared import Counting
from .protos import label as node_label
from .subgraph import SizeCondition, SizeNote, base_name, fresh_names, names_in

__all__ = ["COMPRESS", "NONZERO", "NON_MAX_SUPPRESSION", "TOP_K", "UNIQUE", "DataSize",
           "DataSizes"]

_FLIPPED = {">=": "<=", ">": "<"}  # (a SizeCondition compares with <=, < or ==)


def _attribute(node: onnx.NodeProto, name: str) -> int | None:
    for a in node.attribute:
        if a.name == name:
            return int(a.i)
    return None


def _on(axis: int | None, rank: int) -> int:
    """``axis`` of a tensor of ``rank`` axes as an index (0 for a flattened output)."""
    if axis is None:
        return 0
    return axis + rank if axis < 0 else axis


def _nonzero(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, 1)]


def _compress(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, _on(_attribute(node, "axis"), outs[0].ndim))]


def _unique(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, _on(_attribute(node, "axis"), outs[0].ndim)), (1, 0), (3, 0)]


def _nms(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, 0)]


def _topk(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    axis = _attribute(node, "axis")
    at = _on(-1 if axis is None else axis, outs[0].ndim)
    return [(0, at), (1, at)]


#: How the outputs of each op whose data decides a size hold it: the ``counts`` its
#: catalogue entry names (:mod:`.declared`).
NONZERO = Counting(_nonzero, True, "how many elements of its input are not zero")
COMPRESS = Counting(_compress, True, "how many elements of its condition are true")
UNIQUE = Counting(_unique, True, "how many different values its input holds")
NON_MAX_SUPPRESSION = Counting(_nms, True, "how many boxes it selects")
TOP_K = Counting(_topk, False, "the value of its input k")


@dataclass(frozen=True)
class DataSize:
    """A size the data decides: its ``name``, the ``op`` and ``node`` (the node's label)
    that decide it, and ``what`` it counts."""

    name: str
    op: str
    node: str
    what: str

    def __str__(self) -> str:
        return f"{self.name} is decided when the model runs, at {self.op} node " \
            f"{self.node!r}: {self.what}"


class DataSizes:
    """The sizes the data decides in one model (shared by its readers): each by name
    (``sizes``; ``dims``: its Dim), and the name of each computation that decides one."""

    def __init__(self) -> None:
        self.sizes: dict[str, DataSize] = {}
        self.dims: dict[str, Dim] = {}
        self._by_key: dict[Hashable, str] = {}
        #: symbol -> an axis of a built Variable that has that size (from_onnx's graph)
        self._axes: dict[DataSymbol, tuple[Any, Dim]] = {}
        self._seen: dict[Any, tuple[int, set[str]]] = {}  # (see _taken)
        self._model: set[str] | None = None  # every dim_param of the model (see _taken)

    def at_run_time(self, scope: Any, value: tuple | None) -> tuple | None:
        """A known value (a parameter: ints, Dims, None) of a node the reader ``scope``
        builds, with each size the data decides in its graph written as the axis of the
        Variable that has it (``NonZero_3`` as ``nonzero3.shape[1]``), so that the Op
        taking it reads the size from that value when the graph runs (no input of the
        function binds it: see :mod:`kantensor.ops.sizes`); its type is still in the
        size's name. (A size of a graph around it is bound by the stand-ins it captures.)"""
        if not value or not self._axes:
            return value
        out = []
        for entry in value:
            if isinstance(entry, Dim):
                names = {s for s in free_symbols(entry) if type(s) is DataSymbol
                         and s in self._axes and self._axes[s][0] is scope}
                if names:
                    entry = substitute(entry, {n: self._axes[n][1] for n in names})
            out.append(entry)
        return tuple(out)

    def located(self, scope: Any, variables: list) -> None:
        """Remember, for each size the data decides that ``variables`` (Variables the
        reader ``scope`` built) have, an axis that has it (see :meth:`at_run_time`)."""
        for var in variables:
            t = getattr(var, "type", None)
            for axis, d in enumerate(t.shape if isinstance(t, TensorType) else ()):
                s = d.name if isinstance(d, Dim) else None
                if type(s) is DataSymbol and s not in self._axes:
                    self._axes[s] = (scope, unknown(AxisSize(var, axis)))

    def picked(self, scope: Any, node: onnx.NodeProto, types: list, notes: list[SizeNote]
               ) -> tuple[list, list[SizeCondition]]:
        """The types of an If's outputs (``types``, joined from its branches) with each
        size that differs between the branches (``notes``: the condition decides it)
        named after the node: the condition's value decides it, so one name is one size
        in every run. What every branch's size is known to meet bounds it
        (:func:`_between`): facts for the nodes after the If (``scope.facts``, the
        symbol's ``bounds``), returned as the node's size conditions."""
        out = list(types)
        stated: list[SizeCondition] = []
        taken: set[str] | None = None
        for note in notes:
            if not isinstance(note.axis, int):
                continue
            k = list(node.output).index(note.output) if note.output in node.output else -1
            t = out[k] if k >= 0 else None
            if not isinstance(t, TensorType) or t.shape[note.axis] is not None:
                continue
            if taken is None:
                taken = self._taken(scope)
            name = self._fresh(base_name(node.name or f"If_{node.output[0]}"), taken)
            taken.add(name)
            size = self._new(DataSize(name, "If", note.node, "the branch its condition "
                                      "picks: " + ", ".join(f"{size} if {cond}"
                                                            for cond, size in note.cases)))
            shape = list(t.shape)
            shape[note.axis] = size
            out[k] = TensorType(t.dtype, shape)
            known = _between(size, [d for _, d in note.cases], scope.facts,
                             _taken(scope, self._seen), Source(op="If", node=note.node))
            if known:
                size.name.bounds = known
                scope.facts = scope.facts.with_(*known)
                stated += [SizeCondition(c.right, _FLIPPED[c.op], c.left, note.node)
                           if c.op in _FLIPPED else
                           SizeCondition(c.left, c.op, c.right, note.node) for c in known]
        return out, stated

    def _new(self, record: DataSize) -> Dim:
        """The size of a new record (its symbol's own: see the module's doc)."""
        self.sizes[record.name] = record
        size = self.dims[record.name] = data_size(record.name, str(record))
        return size

    def _taken(self, scope: Any) -> set[str]:
        """The names a new size's name must differ from (so printed types and the
        ``dim_param`` infer_shapes writes say one size by one name): those of the types
        read so far, every ``dim_param`` of the model (its subgraphs' too, read later or
        never) and the sizes named so far."""
        if self._model is None:
            self._model = model_names(scope.model.graph)
        return _taken(scope, self._seen) | self._model | set(self.sizes)

    @staticmethod
    def _fresh(name: str, taken: set[str]) -> str:
        if keyword.iskeyword(name):
            name += "_"
        if name in taken:
            (name,) = fresh_names(name, 1, taken)
        return name

    def named(self, scope: Any, node: onnx.NodeProto, outs: tuple, conditions: tuple,
              counting: Counting) -> tuple[tuple, tuple[Clause, ...]]:
        """``outs`` of ``node`` (an op whose entry declares ``counting``, read by the
        reader ``scope``)
        with the size its data decides named (its output Variables' types too, their
        node's ``tag["notes"]`` saying why, a :class:`SizeNote` per axis), and of its
        ``conditions`` (portable: the node's own size an InnerSize's unknown) those its
        inputs must meet; the others, what the op guarantees of that size, are facts for
        the nodes after it (``scope.facts``), not the model's conditions. Unchanged where
        no size is left to name (the op's relation gave it, or gives several)."""
        try:
            places = [(k, a) for k, a in counting.axes(node, outs)
                      if k < len(outs) and isinstance(outs[k], TensorType)
                      and 0 <= a < outs[k].ndim]
        except (TypeError, ValueError):  # an attribute of another kind: ONNX refused it
            return outs, conditions
        inner = {s for c in conditions for s in c.symbols() if isinstance(s, InnerSize)}
        if not places or len(inner) > 1 or any(outs[k].shape[a] is not None
                                                for k, a in places):
            return outs, conditions
        key = (node.op_type, tuple((n, _home(scope, n)) for n in node.input),
               _attributes(node))
        name = self._by_key.get(key)
        label = node_label(node)
        if name is None:
            name = self._fresh(base_name(node.name or f"{node.op_type}_{node.output[0]}"),
                               self._taken(scope))
            self._by_key[key] = name
            self._new(DataSize(name, node.op_type, label, counting.what))
        size = self.dims[name]
        symbol = size.name
        new = list(outs)
        for k, a in places:
            shape = list(new[k].shape)
            shape[a] = size
            new[k] = TensorType(new[k].dtype, shape)
        renamed = tuple(c.substitute({u: size for u in inner}) for c in conditions) \
            if inner else conditions
        if counting.guaranteed:
            own = tuple(c for c in renamed if symbol in c.symbols())
            needs = tuple(c for c in renamed if symbol not in c.symbols())
        else:
            own, needs = (), renamed
        why = f"decided by the data at {node.op_type} node {label!r} ({counting.what}): " \
            f"the size {name}"
        notes = [SizeNote(label, node.output[k] if k < len(node.output) else "", a, why)
                 for k, a in places]
        owner = None
        for name_, t in zip(node.output, new, strict=False):
            var = scope.vars.get(name_) if name_ else None
            if var is not None:
                var.type, owner = t, var.owner
        if scope.graph:
            self.located(scope, [scope.vars.get(n) for n in node.output if n])
        if owner is not None:  # why, and what the op guarantees (size_conditions), over
            owner.tag["notes"] = (*owner.tag.get("notes", ()), *notes)  # its inputs
            inputs = [scope.vars.get(n) if n else None for n in node.input]
            owner.conditions = relocated(needs, inputs)  # (a guarantee is no condition)
            placed = relocated(own, inputs)
            owner.tag["conditions"] = (*owner.tag.get("conditions", ()), *(
                SizeCondition(c.right, _FLIPPED[c.op], c.left, label) if c.op in _FLIPPED
                else SizeCondition(c.left, c.op, c.right, label)
                for c in placed if isinstance(c, Condition) and c.op != "!="))
        if own:
            known = relocated(own, [scope.var(n, node) if n else None for n in node.input],
                              label)
            scope.facts = scope.facts.with_(*known)
            if not symbol.bounds:  # (two nodes counting alike state the same)
                symbol.bounds = tuple(c for c in known if isinstance(c, Condition))
        return tuple(new), needs


def _between(size: Dim, cases: list, facts: Facts, visible: set,
             source: Source) -> tuple[Condition, ...]:
    """What an If's ``size`` is known to meet, as it is one of the branches' sizes
    ``cases`` (which the condition picks): ``size <= U`` for a bound ``U`` every case is
    at most under ``facts`` (and what the nodes deciding the cases' sizes guarantee of
    them: a NonMaxSuppression's ``<= M``), ``size >= L`` likewise. The candidates are
    the cases themselves and those guarantees' other sides, where they name only sizes
    known outside the branches (``visible``: a count made inside one exists only where
    that branch runs). SSDlite's ``0`` or ``NonMaxSuppression <= M`` gives ``If <= M``.
    Each case is judged under the guarantees of its own counts only: a count's holds
    only where its branch runs (a then count's ``<= N - 5`` says nothing of the else
    case, which runs at ``N < 5`` too)."""
    if any(d is None for d in cases):  # (a branch whose size is not known)
        return ()
    own = [[c for s in free_symbols(d) if type(s) is DataSymbol for c in s.bounds
            if isinstance(c, Condition)] for d in cases]
    within = [facts.with_(*g) if g else facts for g in own]
    out: list[Condition] = []
    for op in ("<=", ">="):
        candidates = [*cases, *(_other_side(c, d, op) for d, g in zip(cases, own, strict=True)
                                for c in g)]
        for bound in dict.fromkeys(b for b in candidates if b is not None):
            if not all(s in visible or type(s) is str for s in free_symbols(bound)):
                continue
            if isinstance(bound, int) and op == ">=" and bound <= 0:
                continue  # (every size is >= 0)
            if all(_holds(d, op, bound, f) for d, f in zip(cases, within, strict=True)):
                out.append(Condition(size, op, bound, source))
                break  # (the first that bounds them all: a case's own, or its guarantee)
    return tuple(out)


def _holds(d: DimLike, op: str, bound: DimLike, facts: Facts) -> bool:
    """Whether ``d op bound`` holds under ``facts``: shown by the interval of their
    difference (each size ``>= 0``: a sum of twenty ``min(300, u)`` is ``>= 0``, where
    the prover, splitting each min, gives up), else by the facts."""
    lo, _ = interval(bound - d if op == "<=" else d - bound)
    return lo is not None and lo >= 0 or facts.decide(Condition(d, op, bound)) is True


def _other_side(c: Condition, d: DimLike, op: str) -> DimLike | None:
    """``U`` where ``c`` says ``d op U`` (``op`` ``<=`` or ``>=``, either way round)."""
    if not isinstance(d, Dim):
        return None
    left, right = c.left, c.right
    if c.op == op and left == d:
        return right
    if c.op == _FLIPPED_OP[op] and right == d:
        return left
    return None


_FLIPPED_OP = {"<=": ">=", ">=": "<="}


def _attributes(node: onnx.NodeProto) -> bytes:
    return b"".join(a.SerializeToString(deterministic=True) for a in node.attribute)


def _home(scope: Any, name: str) -> Any:
    """The reader whose graph defines ``name`` as ``scope`` reads it: a name is one value
    in one graph only (two subgraphs, the branches of two Ifs, may each define ``y``)."""
    while scope.parent is not None and name in scope.outer:
        scope = scope.parent
    return scope


def _taken(scope: Any, seen: dict[Any, tuple[int, set[str]]]) -> set[str]:
    """The names of sizes the types of ``scope`` and the scopes around it use, each
    reader's types read once (``seen``: a reader -> how many of its types were read,
    and their names): a model with many counts stays linear."""
    out: set[str] = set()
    while scope is not None:
        done, names = seen.get(scope, (0, set()))
        if len(scope.types) > done:
            names |= names_in(itertools.islice(scope.types.values(), done, None))
            seen[scope] = (len(scope.types), names)
        out |= names
        scope = scope.parent
    return out


def model_names(graph: onnx.GraphProto) -> set[str]:
    """Every ``dim_param`` of the inputs, outputs and value infos of the graphs the nodes
    of ``graph`` hold, at any depth (each graph once: the work is the model's size). The
    main graph's own inputs are read as types; its outputs and value infos are never
    read, and infer_shapes writes them anew."""
    out: set[str] = set()
    stack = _held(graph)
    while stack:
        g = stack.pop()
        for info in (*g.input, *g.output, *g.value_info):
            out.update(_dim_params(info.type))
        stack += _held(g)
    return out


def _held(graph: onnx.GraphProto) -> list[onnx.GraphProto]:
    """The graphs the nodes of ``graph`` hold as attributes."""
    found: list[onnx.GraphProto] = []
    for node in graph.node:
        for a in node.attribute:
            if a.type == _GRAPH:
                found.append(a.g)
            elif a.type == _GRAPHS:
                found.extend(a.graphs)
    return found


_GRAPH, _GRAPHS = onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS


def _dim_params(t: onnx.TypeProto) -> list[str]:
    """The ``dim_param`` s of a type (a tensor's, or a sequence's or optional's element's)."""
    found: list[str] = []
    while True:
        kind = t.WhichOneof("value")
        if kind in ("tensor_type", "sparse_tensor_type"):
            inner = getattr(t, kind)
            if inner.HasField("shape"):
                found += [d.dim_param for d in inner.shape.dim if d.dim_param]
            return found
        if kind == "sequence_type":
            t = t.sequence_type.elem_type
        elif kind == "optional_type":
            t = t.optional_type.elem_type
        else:  # a map's values, or no type: no dims read here
            return found

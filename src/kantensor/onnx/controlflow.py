"""ONNX's control-flow family (``onnx/defs/controlflow``): If, Loop and Scan
(``signatures/onnx/controlflow.toml``), each handler beside its kernel (SequenceMap, an
op of that file too, in :mod:`.sequencemap`).

**If** types both branches. A condition known when the model is read picks its branch's
types (and values); otherwise each output is the join of the branches': a size they
agree on is kept, one they do not is unknown, with a :class:`~.subgraph.SizeNote` whose
cases say which size each value of the condition gives (written as a size condition,
``n == 1``, when the condition compares sizes, else as the condition input's value).

**Loop** and **Scan** type their body once, with each size of a carried value a symbol
of its own, and read off how an iteration changes it (:mod:`.recurrence`): unchanged,
grown by a fixed step (a Concat of a fixed size, a KV cache's one more position), set to
a fixed size; those are solved in closed form in the number of iterations (``n0 +
k*iters``); any other change leaves the size unknown, with the reason. The number of
iterations is the trip count when the condition is known true and the body keeps it
true, 0 when it is known false, the scan axis' size for Scan; otherwise it is a size of
its own, named after the node (``loop_iters``), with the conditions ``0 <= loop_iters``
and ``loop_iters <= M`` recorded on the node. Scan outputs get the iteration axis.

Each node runs its subgraphs as compiled kantensor functions (:class:`~.runner.Runner`)
when the graph runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx

from ..graph.type import Type
from ..ops.located import VariableAxis
from ..ops.params import normalize_axis
from ..types.containers import join_shapes
from ..types.dim import unknown
from ..types.type import TensorType
from .dtypes import DTYPES, dtype_of
from .loadrefused import inference_refuses, refused_at_load
from .loopcount import iteration_count
from .needs import (
    body_conditions,
    branch_conditions,
    compared,
    empty_shape,
    idle_scans,
    refused_index,
    scan_conditions,
)
from .recurrence import (
    HoldsNowhere,
    Recurrence,
    after_any,
    fails_where_run,
    runtime_types,
    scope_names,
)
from .registry import UnsupportedOp
from .runner import Runner, runner
from .sequence import apply, scalar_value
from .shared import NotKnown
from .structured import Structured, needed
from .subgraph import Notes, SizeCondition, join_types, output_types, stacked


def _truth(value: np.ndarray | None) -> bool | None:
    """A known condition's truth (None: unknown, or not one element)."""
    if value is None or np.size(value) != 1 or np.asarray(value).dtype == object:
        return None
    return bool(np.asarray(value).reshape(-1)[0])


def _values_equal(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return a is not None and b is not None and a.shape == b.shape and a.dtype == b.dtype \
        and bool(np.all(a == b))


# -- If ---------------------------------------------------------------------------------
def condition_texts(scope: Any, name: str) -> tuple[str, str]:
    """How the cases of a condition input ``name`` are written: as a size condition
    when a comparison of sizes known when the model is read computes it (``n == 1`` and
    ``n != 1``), else as the input's value (``name`` and ``not name``)."""
    sides = compared(scope, name)
    if sides is None:
        return name, f"not {name}"
    left, yes, no, right = sides
    left, right = (str(s).replace(" ", "") for s in (left, right))
    return f"{left} {yes} {right}", f"{left} {no} {right}"


class If(Structured):
    attributes = {"then_branch": "graph", "else_branch": "graph"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        if "then_branch" not in attrs or "else_branch" not in attrs:
            raise TypeError("If needs both its then_branch and else_branch")
        c = scope.var(node.input[0], node)
        if not isinstance(c.type, TensorType) or c.type.dtype != "bool" or \
                any(d != 1 for d in c.type.shape if isinstance(d, int)):
            raise TypeError(f"the condition must be one bool, got {c.type}")
        cond = _truth(scope.value(node.input[0]))
        subs: dict[bool, Any] = {}
        failed: dict[bool, Exception] = {}
        for truth, key in ((True, "then_branch"), (False, "else_branch")):
            try:
                sub = scope.child(attrs[key], [], once=True)
                subs[truth] = (sub, output_types(sub, f"{label}: {key}"))
            except (UnsupportedOp, TypeError, ValueError, IndexError) as exc:
                if cond == truth or (cond is None and (
                        failed or not fails_where_run(exc, scope, attrs[key])) or
                        cond is not None and inference_refuses(scope, attrs[key])):
                    raise  # a branch that never runs may fail its sizes (a dead branch
                failed[truth] = exc  # of an export), not what onnxruntime's inference
                # refuses at load; one the data pick whose relations hold at no size
                # fails where it is picked (.needs)
        live = [subs[cond]] if cond is not None else list(subs.values())
        counts = {len(types) for _, types in live}
        if len(counts) > 1 or counts != {len(node.output)}:
            raise TypeError(f"the branches give {' and '.join(map(str, sorted(counts)))} "
                            f"outputs, the node has {len(node.output)}")
        notes = Notes(label)
        types, values = self.join(scope, node, live, notes)
        bounds: list[SizeCondition] = []
        if notes.found and scope.once:  # (see .datasizes)
            types, bounds = scope.counts.picked(scope, node, types, notes.found)
        names = [n for n in dict.fromkeys(n for sub, _ in subs.values() for n in sub.captured)]
        outer = [scope.var(n, node) for n in names]
        runners = {truth: runner(sub, f"{label}: {'then' if truth else 'else'}_branch")
                   if scope.graph else None for truth, (sub, _) in subs.items()}
        outs = apply("If", if_, tuple(types), [c, *outer], then=runners.get(True),
                     other=runners.get(False), names=tuple(names))
        if notes.found:
            outs[0].owner.tag["notes"] = tuple(notes.found)
            if bounds:  # (what the branches guarantee of the size picked: size_conditions)
                outs[0].owner.tag["conditions"] = (
                    *outs[0].owner.tag.get("conditions", ()), *bounds)
            if scope.graph and scope.once:
                scope.counts.located(scope, outs)
        needed(scope, outs, (*refused_at_load(  # (whichever branch runs)
            scope, [attrs["then_branch"], attrs["else_branch"]], label), *branch_conditions(
            scope, node, label, {t: s for t, (s, _) in subs.items()}, cond, failed)))
        # (the branch taken fails where its nodes' do)
        return list(zip(outs, values, strict=True))

    @staticmethod
    def join(scope: Any, node: onnx.NodeProto, live: list, notes: Notes
             ) -> tuple[list[Type], list]:
        if len(live) == 1:
            sub, types = live[0]
            return types, [sub.value(info.name) if isinstance(t, TensorType) else None
                           for info, t in zip(sub.proto.output, types, strict=True)]
        (a, ta), (b, tb) = live
        yes, no = condition_texts(scope, node.input[0])
        types, values = [], []
        for k, (x, y) in enumerate(zip(ta, tb, strict=True)):
            name = node.output[k] or f"output {k}"
            t, differ = join_types(x, y, f"output {k}")
            for axis, then_size, else_size in differ:
                notes.add(name, axis, "the branch the condition picks decides it",
                          ((yes, then_size), (no, else_size)))
            types.append(t)
            va, vb = (s.value(i.name) if isinstance(t, TensorType) else None
                      for s, i in ((a, a.proto.output[k]), (b, b.proto.output[k])))
            values.append(va if _values_equal(va, vb) else None)
        return types, values


def if_(cond: np.ndarray, *outer: Any, then: Runner | None, other: Runner | None,
        names: tuple[str, ...]) -> Any:
    branch = then if bool(np.asarray(cond).reshape(-1)[0]) else other
    if branch is None:
        raise RuntimeError("If: the branch taken was not typed when the model was read")
    values = dict(zip(names, outer, strict=True))
    out = branch(*(values[n] for n in branch.captured))
    return out[0] if len(out) == 1 else tuple(out)


def check_declared(body: onnx.GraphProto, formal: list[Type], label: str) -> None:
    """TypeError where a body's input declares an element type other than the one the
    node passes it (``formal``: a tensor's dtype, or a sequence's elements'): onnx's
    inference and onnxruntime refuse it (a SequenceMap of uint8 elements into a body
    taking float32)."""
    for k, (info, t) in enumerate(zip(body.input, formal, strict=False)):
        proto = info.type
        kind = proto.WhichOneof("value")
        if kind == "sequence_type":
            proto = proto.sequence_type.elem_type
            kind = proto.WhichOneof("value")
        elem = proto.tensor_type.elem_type if kind == "tensor_type" else 0
        dtype = getattr(t, "dtype", None)
        if elem and dtype is not None and DTYPES.get(elem) != dtype:
            raise TypeError(f"{label}: the body's input {k} ({info.name!r}) is declared "
                            f"{DTYPES.get(elem, elem)}, the node passes {t}")


# -- Loop -------------------------------------------------------------------------------
class Loop(Structured):
    iterates = True
    attributes = {"body": "graph"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        if "body" not in attrs:
            raise TypeError("Loop needs its body")
        names = [*node.input, "", ""][:max(2, len(node.input))]
        m_name, c_name, carried_names = names[0], names[1], names[2:]
        present = (bool(m_name), bool(c_name))
        ins = [scope.var(n, node) for n in names if n]
        carried = ins[sum(present):]
        for what, name, dtype in (("the trip count", m_name, "int64"),
                                  ("the condition", c_name, "bool")):
            t = scope.type_of(name, node) if name else None
            if t is not None and (not isinstance(t, TensorType) or
                                  any(d != 1 for d in t.shape)):
                raise TypeError(f"{what} must be one value, got {t}")
            if t is not None and t.dtype is not None and t.dtype != dtype:
                raise TypeError(f"{what} must be {dtype} (its schema's), got {t}")
        check_declared(attrs["body"], [TensorType("int64", ()), TensorType("bool", ()),
                                       *(v.type for v in carried)], label)
        trips = scalar_value(scope, m_name) if m_name else None
        start = _truth(scope.value(c_name)) if c_name else True
        n_carried = len(carried)
        n_scan = len(node.output) - n_carried
        if n_scan < 0:
            raise TypeError(f"{n_carried} carried values but {len(node.output)} outputs")
        notes = Notes(label)
        try:
            rec: Any = Recurrence(scope, attrs["body"], [v.type for v in carried], label,
                                  notes, lead=[TensorType("int64", ()), TensorType("bool", ())],
                                  index=True)
        except HoldsNowhere as exc:  # (its first iteration runs unless the count is 0)
            if start is True and not m_name:
                raise
            rec = _Idle(exc, attrs["body"], carried, n_carried, label)
        count, facts = iteration_count(label, trips, bool(m_name), start, rec.condition(),
                                       notes, scope_names(scope), scope.once, scope.facts)
        if facts:  # a count of its own: its bounds are facts for the nodes after it
            scope.facts = scope.facts.with_(*count.name.bounds)
        finals, scans = rec.solve(count, n_scan, [o for o in node.output])
        idle = idle_scans(label, count, attrs["body"].output[1 + n_carried:], scans)
        empty = [empty_shape(attrs["body"].output[1 + n_carried + j], t)
                 for j, t in enumerate(scans)]
        types = [*finals, *(TensorType(t.dtype, (count, *(after_any(z, e, count) for z, e in
                                                         zip(zero, t.shape, strict=True))))
                            for t, zero in zip(scans, empty, strict=True))]
        body = None
        outer_names: list[str] = []
        nowhere: tuple = ()  # (the body, read to run, holds at no size around it)
        if scope.graph and not isinstance(rec, _Idle) and count != 0:  # (0: never runs)
            formal = [TensorType("int64", ()), TensorType("bool", ()),
                      *runtime_types(rec, [v.type for v in carried])]
            try:
                body = runner(scope.child(attrs["body"], formal, graph=True),
                              f"{label}: body")
                outer_names = list(body.captured)
            except (TypeError, ValueError, IndexError) as exc:  # (its relations at the
                # carried values' own sizes contradict the facts: it fails wherever it
                # runs, so the Loop runs no iteration; a count >= 1 runs one)
                if isinstance(count, int) or not fails_where_run(exc, scope, attrs["body"],
                                                                 formal):
                    raise
                nowhere = refused_index(node, label, count, HoldsNowhere(str(exc)),
                                        "its body, read as it runs, holds at no size")
        outer = [scope.var(n, node) for n in outer_names]
        outs = apply("Loop", loop, tuple(types), [*ins, *outer], body=body,
                     present=present, n_carried=n_carried,
                     scans=tuple((t.dtype, z) for t, z in zip(scans, empty, strict=True)))
        owner = outs[0].owner
        if notes.found:
            owner.tag["notes"] = tuple(notes.found)
        if facts:
            owner.tag["conditions"] = tuple(facts)
        idle = (*refused_at_load(scope, [attrs["body"]], label), *idle)
        needed(scope, outs, (*idle, *nowhere, *refused_index(node, label, count,
                                                             rec.refused)) if
               isinstance(rec, _Idle) else (*idle, *body_conditions(
                   scope, node, label, rec.sub, count, rec.all, rec.known, index=rec.index,
                   more=rec.same, first=rec.first),
                   *refused_index(node, label, count, rec.refused)))
        values = [None] * len(outs)
        if count == 0:  # the initial values, untouched
            values[:n_carried] = [scope.value(n) if isinstance(v.type, TensorType) else None
                                  for n, v in zip(carried_names, carried, strict=True)]
        return list(zip(outs, values, strict=True))


class _Idle:
    """The types of a Loop whose body holds nowhere (:class:`.recurrence.HoldsNowhere`),
    which runs only where it runs no iteration (onnxruntime runs it there): its carried
    values keep their initial types, each scan output has the rank its body output
    declares (an undeclared one: the Loop is left untyped), of sizes left unknown; the Loop
    needs ``count == 0`` (:func:`~.needs.refused_index`), and where the count is known
    to be >= 1, it is refused."""

    def __init__(self, refused: HoldsNowhere, body: onnx.GraphProto, carried: list,
                 n_carried: int, label: str):
        self.refused, self.carried, self.label = refused, carried, label
        self.declared = list(body.output[1 + n_carried:])

    def condition(self) -> bool:
        """True: the count is the trip count where the first condition holds (the
        first iteration runs, and fails, unless the trip count is 0)."""
        return True

    def solve(self, count: Any, n_scan: int, outputs: list[str]
              ) -> tuple[list[Type], list[TensorType]]:
        if isinstance(count, int) and count >= 1 or len(self.declared) != n_scan:
            raise self.refused
        if any(not (i.type.HasField("tensor_type") and i.type.tensor_type.HasField("shape"))
               for i in self.declared):  # (run at count 0 by onnxruntime: idle_scans)
            raise NotKnown(f"node {self.label!r} (Loop) runs no iteration, and its body "
                           "does not declare the shape of a scan output")
        return [v.type for v in self.carried], [
            TensorType(dtype_of(i.type.tensor_type.elem_type, f"node {self.label!r}"),
                       (None,) * len(i.type.tensor_type.shape.dim)) for i in self.declared]


def loop(*args: Any, body: Runner, present: tuple[bool, bool], n_carried: int,
         scans: tuple[tuple[str, tuple[int, ...]], ...]) -> Any:
    it = iter(args)
    trips = int(np.asarray(next(it)).reshape(-1)[0]) if present[0] else None
    cond = bool(np.asarray(next(it)).reshape(-1)[0]) if present[1] else True
    carried = [next(it) for _ in range(n_carried)]
    outer = list(it)
    collected: list[list] = [[] for _ in scans]
    i = 0
    while cond and (trips is None or i < trips):
        if body is None:  # (_Idle: its contract says count == 0)
            raise ValueError("a Loop whose body holds at no iteration number runs one")
        out = body(np.array(i, dtype=np.int64), np.array(cond), *carried, *outer)
        cond = bool(np.asarray(out[0]).reshape(-1)[0])
        carried = out[1:1 + n_carried]
        for k, value in enumerate(out[1 + n_carried:]):
            collected[k].append(value)
        i += 1
    result = [*carried, *(stacked(c, dtype, zero) for c, (dtype, zero) in
                          zip(collected, scans, strict=True))]
    return result[0] if len(result) == 1 else tuple(result)


# -- Scan -------------------------------------------------------------------------------
class Scan(Structured):
    """Scan from opset 9 on (:class:`Scan8` before)."""

    iterates = True
    #: Whether every input and output has a batch axis first (Scan-8's; the class the
    #: catalogue picks by the opset says so, the one home of that fact)
    batched = False
    attributes = {"body": "graph", "num_scan_inputs": "int", "scan_input_axes": "ints",
                  "scan_input_directions": "ints", "scan_output_axes": "ints",
                  "scan_output_directions": "ints"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        if "body" not in attrs or "num_scan_inputs" not in attrs:
            raise TypeError("Scan needs its body and num_scan_inputs")
        batched = self.batched
        names = list(node.input)
        lens_name = names.pop(0) if batched else ""
        ins = [scope.var(n, node) for n in names]
        m = attrs["num_scan_inputs"]
        n_state = len(ins) - m
        if not 1 <= m <= len(ins):
            raise TypeError(f"num_scan_inputs is {m}; the node has {len(ins)} inputs "
                            "(at least one of them scanned)")
        if len(node.output) < n_state:
            raise TypeError(f"{n_state} loop state variables but {len(node.output)} "
                            "outputs")
        types = [v.type for v in ins]
        for i, t in enumerate(types):
            if not isinstance(t, TensorType):
                raise TypeError(f"Scan takes tensors, input {i} is {t}")
            if batched and t.ndim < 1 + (i >= n_state):
                raise TypeError(f"input {i} has no batch axis")
        check_declared(attrs["body"], types, label)  # (a slice has its input's dtype)
        batch = None
        if batched:
            batch = join_shapes([(t.shape[0],) for t in types])
            batch = batch[0] if batch else None
            types = [TensorType(t.dtype, t.shape[1:]) for t in types]
        in_axes = [normalize_axis(a, types[n_state + j].ndim) for j, a in enumerate(
            attrs.get("scan_input_axes", (0,) * m))] if not batched else [0] * m
        in_dirs = tuple(attrs.get("scan_input_directions", attrs.get("directions", (0,) * m)))
        lengths = [types[n_state + j].shape[a] for j, a in enumerate(in_axes)]
        known = [n for n in lengths if n is not None]
        count = known[0] if known else None
        if any(isinstance(a, int) and isinstance(b, int) and a != b
               for a in known for b in known):
            raise ValueError(f"the scan inputs have different lengths {lengths}")
        facts = [SizeCondition(count, "==", n, label) for n in dict.fromkeys(known[1:])
                 if n != count]  # scanned together: one length
        slices = [TensorType(t.dtype, t.shape[:a] + t.shape[a + 1:])
                  for t, a in zip(types[n_state:], in_axes, strict=True)]
        notes = Notes(label)
        stand_ins = [[unknown(VariableAxis(v, a + batched)) if d is None else None
                      for a, d in enumerate(t.shape)]
                     for v, t in zip(ins[:n_state], types[:n_state], strict=True)]
        rec = Recurrence(scope, attrs["body"], types[:n_state], label, notes, tail=slices,
                         keeps_shapes=True, stand_ins=stand_ins)
        n_scan = len(node.output) - n_state
        finals, scans = rec.solve(count, n_scan, list(node.output))
        out_axes = [normalize_axis(a, t.ndim + 1) for a, t in zip(
            attrs.get("scan_output_axes", (0,) * n_scan), scans, strict=False)] \
            if not batched else [0] * n_scan
        out_dirs = tuple(attrs.get("scan_output_directions", (0,) * n_scan))
        outs_t = [*finals, *(TensorType(t.dtype, t.shape[:a] + (count,) + t.shape[a:])
                             for t, a in zip(scans, out_axes, strict=True))]
        if batched:
            outs_t = [TensorType(t.dtype, (batch, *t.shape)) for t in outs_t]
        body = None
        outer_names: list[str] = []
        if scope.graph:
            formal = [*runtime_types(rec, types[:n_state]), *slices]
            body = runner(scope.child(attrs["body"], formal, graph=True), f"{label}: body")
            outer_names = list(body.captured)
        lens = [scope.var(lens_name, node)] if lens_name else []
        outer = [scope.var(n, node) for n in outer_names]
        outs = apply("Scan", scan, tuple(outs_t), [*lens, *ins, *outer], body=body,
                     n_state=n_state, n_scan_in=m, in_axes=tuple(in_axes),
                     in_dirs=in_dirs, out_axes=tuple(out_axes), out_dirs=out_dirs,
                     scans=tuple(scans), batched=batched, has_lens=bool(lens_name))
        if notes.found:
            outs[0].owner.tag["notes"] = tuple(notes.found)
        if facts:
            outs[0].owner.tag["conditions"] = tuple(facts)
        if count is None:  # (no scan input states it: the first one's axis, unknown)
            count = unknown(VariableAxis(ins[n_state], in_axes[0] + batched))
        if batched and batch is None:
            batch = unknown(VariableAxis(ins[0], 0))
        needed(scope, outs, (*refused_at_load(scope, [attrs["body"]], label),
                             *scan_conditions(label, count, batch), *rec.kept, *body_conditions(
            scope, node, label, rec.sub, count, rec.all, {**rec.known, **rec.outer},
            runs=True)))
        return [(o, None) for o in outs]


def _scan_once(body: Runner, states: list, xs: list, outer: list, count: int,
               in_axes: tuple, in_dirs: tuple, out_axes: tuple, out_dirs: tuple,
               scans: tuple) -> list:
    collected: list[list] = [[] for _ in scans]
    for t in range(count):
        slices = [np.take(x, count - 1 - t if d else t, axis=a)
                  for x, a, d in zip(xs, in_axes, in_dirs, strict=True)]
        out = body(*states, *slices, *outer)
        states = out[:len(states)]
        for k, value in enumerate(out[len(states):]):
            collected[k].append(value)
    stacks = [stacked(c[::-1] if d else c, t.numpy_dtype, (0,) * t.ndim, a)
              for c, t, a, d in zip(collected, scans, out_axes, out_dirs, strict=True)]
    return [*states, *stacks]


def scan(*args: Any, body: Runner, n_state: int, n_scan_in: int, in_axes: tuple,
         in_dirs: tuple, out_axes: tuple, out_dirs: tuple, scans: tuple, batched: bool,
         has_lens: bool) -> Any:
    args = list(args)
    lens = args.pop(0) if has_lens else None
    states, xs = args[:n_state], args[n_state:n_state + n_scan_in]
    outer = args[n_state + n_scan_in:]
    if not batched:
        count = xs[0].shape[in_axes[0]] if xs else 0
        result = _scan_once(body, states, xs, outer, count, in_axes, in_dirs, out_axes,
                            out_dirs, scans)
    else:
        per_batch = []
        full = xs[0].shape[1] if xs else 0
        for b in range(states[0].shape[0] if states else xs[0].shape[0]):
            count = full if lens is None else int(lens[b])
            one = _scan_once(body, [s[b] for s in states], [x[b, :count] for x in xs],
                             outer, count, in_axes, in_dirs, out_axes, out_dirs, scans)
            for k in range(n_state, len(one)):  # scan outputs padded to the full length
                pad = [(0, 0)] * one[k].ndim
                pad[0] = (0, full - count)
                one[k] = np.pad(one[k], pad)
            per_batch.append(one)
        result = [np.stack(parts) for parts in zip(*per_batch, strict=True)]
    return result[0] if len(result) == 1 else tuple(result)


class Scan8(Scan):
    """Scan-8: every input and output has a batch axis first (and an optional
    sequence_lens input before them); its attributes are the body, num_scan_inputs and
    ``directions`` (of the scanned inputs); the axes and the outputs' directions came at
    9, when ``directions`` and the batch axis went (onnxruntime refuses an attribute its
    opset's schema lacks)."""

    attributes = {"body": "graph", "num_scan_inputs": "int", "directions": "ints"}
    batched = True


__all__ = ["If", "Loop", "Scan", "Scan8"]

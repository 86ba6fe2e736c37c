"""The sizes of a loop's carried values after any number of iterations, in closed form.

A Loop's or a Scan's body is typed once, with each size of each carried value a symbol
of its own (``s``) and, for a Loop, the iteration number a symbol too (the value of the
body's first input). What the body makes of ``s`` is its rule for one iteration:

* ``s`` itself: the size never changes (it is the initial size ``n0``);
* ``s + k`` for a size ``k`` no iteration changes (a Concat of a fixed size, a KV
  cache's one more position, a SequenceInsert, an inner loop's growth): after ``n``
  iterations it is ``n0 + k*n``;
* a size ``e`` free of every symbol that changes (a fixed size, a size of an outer
  value): after one iteration or more it is ``e``, after none ``n0``, so after ``n``
  it is ``n0 + (e - n0)*min(1, n)``;
* anything else (a size that depends on another changing size, on the iteration
  number, a data-dependent one): the size is left unknown, with the reason.

The solution is sound for every number of iterations: each rule holds for any value of
the symbols, since the body was typed for all of them at once.

A Scan's states keep their shapes instead (onnxruntime refuses a run where an iteration
changes one): each is its initial size, and the Scan needs the body to give it back
(:meth:`Recurrence._keep`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.type import Type
from ..syntax.errors import TypeInferenceError
from ..types.conditions import Condition, Source
from ..types.containers import OptionalType, SequenceType, join_shapes
from ..types.dim import Dim
from ..types.dimminmax import dim_min
from ..types.facts import EMPTY
from ..types.symbols import DataSymbol, free_symbols, substitute
from ..types.type import TensorType
from .loading import OnnxImportError
from .loadrefused import inference_refuses
from .registry import UnsupportedOp
from .shared import NotKnown
from .subgraph import Notes, base_name, fresh_names, names_in, output_types

__all__ = ["HoldsNowhere", "Recurrence", "after_any", "fails_where_run", "runtime_types",
           "scope_names"]


def scope_names(scope: Any) -> set[str]:
    """The named sizes the scope (and the scopes around it) knows: in its types, its
    known values (an outer Loop's iteration number is only a value) and its facts. A
    loop names its sizes by spelling, so a name in none of these would be fresh only
    in the types and take an outer body's fact (``L_s0 <= N - 1`` of its iteration
    number) as its own."""
    taken: set[str] = set()
    facts_seen: set[int] = set()
    while scope is not None:
        taken |= names_in(scope.types.values())
        for value in scope.values.values():
            if isinstance(value, np.ndarray) and value.dtype == object:
                taken |= {s for d in value.flat for s in _symbols(d) if isinstance(s, str)}
        facts = getattr(scope, "facts", EMPTY)
        if id(facts) not in facts_seen:
            facts_seen.add(id(facts))
            taken |= {s for c in facts for s in c.symbols() if isinstance(s, str)}
        scope = scope.parent
    return taken


def _symbols(d: Any) -> set:
    return set(free_symbols(d)) if isinstance(d, Dim) else set()


def fails_where_run(exc: Exception, scope: Any, graph: Any, formal: list = ()) -> bool:
    """Whether a subgraph's refusal ``exc`` says it fails only where it runs: its
    relations hold at no size, or a value it reads is invalid (a Split of ``-1`` rows),
    not a node left untyped (:class:`~.shared.NotKnown`), an op not supported or a
    malformed node, nor a node whose attributes or constants ONNX's shape inference
    refuses (``graph``, read by ``scope`` with inputs of the types ``formal``:
    :func:`~.loadrefused.inference_refuses`): onnxruntime refuses those models when it
    loads them, whichever branch or iteration runs."""
    return isinstance(exc, TypeInferenceError | ValueError) and \
        not isinstance(exc, NotKnown | UnsupportedOp | OnnxImportError) and \
        inference_refuses(scope, graph, formal) is None


class HoldsNowhere(TypeInferenceError):
    """A Loop's body whose relations hold at no iteration number and no carried sizes
    (typed with the number unknown, it is refused: row 0 of a tensor of no rows): the
    Loop runs only where it runs no iteration."""


class Recurrence:
    """A loop's body typed with symbolic carried sizes (see the module's doc).

    ``lead`` are the body's inputs before the carried values (a Loop's iteration number
    and condition, whose values are the symbol of the iteration number and True: the
    body only runs while the condition holds), ``tail`` those after them (a Scan's
    slices); ``lead_out`` the body's outputs before the carried ones (a Loop's
    condition)."""

    def __init__(self, scope: Any, body: Any, init: list[Type], label: str, notes: Notes,
                 lead: list[Type] = (), tail: list[Type] = (), index: bool = False,
                 keeps_shapes: bool = False, stand_ins: Any = ()):
        self.scope, self.body, self.init, self.label, self.notes = scope, body, init, \
            label, notes
        self.keeps_shapes = keeps_shapes  # (a Scan: see ``_keep``; ``stand_ins``, per
        self.stand_ins = list(stand_ins)  # state and axis, the graph's size standing for
        self.kept: tuple[Condition, ...] = ()  # an unknown initial size, or None)
        self.outer: dict[str, Any] = {}
        self.lead_out = 1 if index else 0
        taken = scope_names(scope) | names_in(init) | names_in(tail)
        base = base_name(label) + "_s"
        count = sum(len(_sizes(t)) for t in init) + 1
        pool = iter(fresh_names(base, count, taken))
        self.formal: list[Type] = []
        self.symbols: list[list[str]] = []  # per carried value: its tensor axes' or length's
        for t in init:
            formal, names = _symbolic(t, pool)
            self.formal.append(formal)
            self.symbols.append(names)
        self.index = next(pool) if index else None
        self.all = {n for names in self.symbols for n in names} | (
            {self.index} if self.index else set())
        self.lead, self.tail = list(lead), list(tail)
        self.refused: Exception | None = None
        self.same: tuple[Condition, ...] = ()
        self.out = self._type(self.formal)

    def _type(self, formal: list[Type]) -> list[Type]:
        """The body's output types for carried inputs of the types ``formal``."""
        values: list = []
        if self.index is not None:
            j = np.empty((), dtype=object)
            j[()] = Dim(self.index)
            values = [j, np.array(True)]
        inputs = [*self.lead, *formal, *self.tail]
        self.refused = None
        try:
            self.sub = self.scope.child(self.body, inputs, values, graph=False)
        except (TypeError, ValueError, IndexError) as exc:
            if self.index is None:
                raise  # the iteration number's symbol may be what a builder refuses:
            try:  # typed without it, the body's conditions over it are not stated
                self.sub = self.scope.child(self.body, inputs, [None, np.array(True)],
                                            graph=False)  # (needs.refused_index)
            except (TypeError, ValueError, IndexError) as again:  # at no iteration number
                if not fails_where_run(again, self.scope, self.body, inputs):
                    raise  # either: fails wherever it runs
                raise HoldsNowhere(str(again)) from again
            self.refused = exc
        return output_types(self.sub, self.label)

    def condition(self) -> bool | None:
        """The body's condition whenever an iteration ran (it runs only while its
        condition holds), when known: True (only the trip count ends the loop), False
        (the loop ends after this iteration)."""
        value = self.sub.value(self.sub.proto.output[0].name)
        if value is None or np.size(value) != 1 or value.dtype == object:
            return None
        return bool(np.asarray(value).reshape(-1)[0])

    def solve(self, count: Any, n_scan: int, outputs: list[str]
              ) -> tuple[list[Type], list[TensorType]]:
        """The carried values' types after ``count`` iterations (an int, a Dim or None)
        and each scan output's per-iteration type."""
        n = len(self.init)
        if len(self.out) != self.lead_out + n + n_scan:
            raise TypeError(f"the body has {len(self.out)} outputs, expected "
                            f"{self.lead_out + n + n_scan}")
        carried_out = self.out[self.lead_out:self.lead_out + n]
        pairs = []  # (symbol, initial size, the body's size)
        for k, (t0, out) in enumerate(zip(self.init, carried_out, strict=True)):
            _check_kind(t0, out, k)
            pairs += zip(self.symbols[k], _sizes(t0), _sizes(out), strict=True)
        constant = {s: n0 for s, n0, e in pairs if isinstance(e, Dim) and e == Dim(s)}
        known = {s: n0 for s, n0 in constant.items() if n0 is not None}
        self.changing = self.all - set(known) - set(self.outer)
        finals: dict[str, Any] = {}
        reasons: dict[str, Any] = {}
        body_out = self.out
        if self.keeps_shapes:
            body_out = self._keep(pairs, known, finals, reasons)
            self.changing = self.all - set(known) - set(self.outer)
        for s, n0, e in pairs:
            if s not in finals:
                finals[s], reasons[s] = self._final(s, n0, e, known, count)
        stuck = {s: n0 for s, n0, e in pairs if reasons[s] is not None and n0 is not None
                 and finals[s] is None and not isinstance(reasons[s], tuple)}
        if stuck:  # no rule in closed form: does the initial size stay? (induction)
            body_out, kept = self._fixpoint(stuck, known)
            for s in kept:
                finals[s], reasons[s] = stuck[s], None
                known[s] = stuck[s]
            self.changing = self.all - set(known) - set(self.outer)
        carried_out = body_out[self.lead_out:self.lead_out + n]
        out_types: list[Type] = []
        for k, (t0, out) in enumerate(zip(self.init, carried_out, strict=True)):
            name = outputs[k] if k < len(outputs) and outputs[k] else f"output {k}"
            out_types.append(self._carried_type(t0, out, k, name, finals, reasons, known,
                                                count))
        scans = []
        for j, t in enumerate(body_out[self.lead_out + n:]):
            if not isinstance(t, TensorType):
                raise TypeError(f"scan output {j} is {t}: a scan output is a tensor")
            name = outputs[n + j] if n + j < len(outputs) and outputs[n + j] else \
                f"output {n + j}"
            scans.append(TensorType(t.dtype, self._fixed(t.shape, known, name, 1)))
        self.same = self._same(body_out[self.lead_out + n:], pairs, known)
        self.known = known  # the carried sizes no iteration changes (for .needs)
        self.first = {s: n0 for s, n0, _ in pairs if s not in known and n0 is not None}
        # (the sizes that change, at the first iteration: their initial ones, for .needs)
        return out_types, scans

    def _same(self, scans: list[Type], pairs: list, known: dict) -> tuple[Condition, ...]:
        """What stacking the scan outputs needs: onnxruntime refuses a run where two
        iterations give one of them different shapes, so each size that changes between
        iterations (over the iteration number, or a carried size that changes) equals its
        size at the first iteration (the iteration number 0, each carried size its initial
        one: where it is not known, a size the data decide): conditions over the body's
        symbols, which :func:`~.needs.body_conditions` states at every iteration."""
        first = {s: n0 if n0 is not None else Dim(DataSymbol(
            f"{s}_0", f"the initial size of a value {self.label!r} carries (not known "
            "when the model is read)")) for s, n0, _ in pairs if s not in known}
        if self.index is not None:
            first[self.index] = 0
        source = Source(op="Loop" if self.index is not None else "Scan", node=self.label,
                        detail="onnxruntime stacks a scan output only where every "
                        "iteration gives it one shape")
        out = []
        for t in scans:
            for d in t.shape if isinstance(t, TensorType) else ():
                d = substitute(d, known) if isinstance(d, Dim) else d
                if _symbols(d) & self.changing:
                    try:
                        start = substitute(d, first)
                    except ZeroDivisionError:  # no size at the first iteration: the
                        continue  # body's own conditions fail there (a Range's step i)
                    if not (start is d or start == d):
                        out.append(Condition(d, "==", start, source))
        return tuple(dict.fromkeys(out))

    def _keep(self, pairs: list, known: dict, finals: dict, reasons: dict) -> list[Type]:
        """A Scan's state variables keep their initial shapes: onnxruntime refuses a run
        where an iteration gives one another shape (onnx.reference runs it). So the body
        is typed again with each known initial size ``n0`` in place of its symbol (at
        every iteration of a run that succeeds, the body sees these sizes and the same
        slices' sizes), each such size is ``n0`` after any number of iterations, and the
        node needs the size ``e`` the body gives back to be ``n0`` (``kept``; a size
        the body leaves unknown states no condition). An unknown initial size stays a
        symbol of the body, its type unknown, and the body's conditions over it are over
        its stand-in (``outer``: the unknown axis of the Scan's input). The body's output
        types."""
        stand = {s: d for names, axes in zip(self.symbols, self.stand_ins, strict=False)
                 for s, d in zip(names, axes, strict=False) if d is not None}
        start = {s: n0 for s, n0, _ in pairs if n0 is not None}
        out = self._type([self._at(t, names, start) for t, names in
                          zip(self.formal, self.symbols, strict=True)])
        after = [e for k, _ in enumerate(self.symbols) for e in _sizes(out[self.lead_out + k])]
        conditions = []
        source = Source(op="Scan", node=self.label, detail="onnxruntime keeps each state "
                        "variable's shape from one iteration to the next")
        for (s, n0, _), e in zip(pairs, after, strict=True):
            if n0 is None and s not in stand:
                continue
            finals[s], reasons[s] = n0, None
            if n0 is None:
                self.outer[s] = n0 = stand[s]
            else:
                known[s] = n0
            e = substitute(e, stand) if isinstance(e, Dim) else e
            if e is not None and not _symbols(e) & self.all and not (e is n0 or e == n0):
                conditions.append(Condition(e, "==", n0, source))
        self.kept = tuple(conditions)
        return out

    def _fixpoint(self, stuck: dict[str, Any], known: dict[str, Any]
                  ) -> tuple[list[Type], set[str]]:
        """Type the body again with the ``stuck`` sizes (no rule in closed form) at their
        initial sizes, the others still symbols: a size the body gives back unchanged
        stays so at every iteration (the body's typing is a function of its input
        types); one it changes becomes unknown, and the body is typed again until no
        size changes. The last output types, and the sizes kept."""
        kept = dict(stuck)
        for _ in range(len(stuck) + 1):
            formal = [self._at(t, names, kept) for t, names in zip(self.formal, self.symbols,
                                                                    strict=True)]
            out = self._type(formal)
            changed = False
            for k, names in enumerate(self.symbols):
                for s, e in zip(names, _sizes(out[self.lead_out + k]), strict=True):
                    if s not in kept:
                        continue
                    e = substitute(e, {**known, **kept}) if isinstance(e, Dim) else e
                    if e is None or e != kept[s]:
                        del kept[s]
                        changed = True
            if not changed:
                return out, set(kept)
        return out, set()

    @staticmethod
    def _at(t: Type, names: list[str], sizes: dict[str, Any]) -> Type:
        """A symbolic carried type with the symbols of ``sizes`` given their sizes."""
        if isinstance(t, OptionalType):
            return OptionalType(Recurrence._at(t.element, names, sizes))
        if isinstance(t, TensorType):
            return TensorType(t.dtype, [sizes.get(n, d) for n, d in zip(names, t.shape,
                                                                         strict=True)])
        if isinstance(t, SequenceType) and names and names[0] in sizes:
            return SequenceType(t.dtype, t.shape, sizes[names[0]])
        return t

    def _final(self, s: str, n0: Any, e: Any, known: dict, count: Any) -> tuple[Any, Any]:
        """One carried size after ``count`` iterations, and why it is unknown (a reason,
        or (reason, cases)) when it is."""
        if count == 0 or isinstance(e, Dim) and e == Dim(s):  # no iteration, or none
            return n0, None  # changes it: the initial size (unknown only if it was)
        if e is None:
            return None, "the body gives it an unknown size"
        e = substitute(e, known) if isinstance(e, Dim) else e
        step = e - Dim(s) if isinstance(e, Dim) else None
        if step is not None and not _symbols(step) & self.all:  # a step no iteration changes
            if count == 0:
                return n0, None
            if n0 is None or count is None:
                return None, f"it grows by {step} each iteration, from " \
                    f"{'an unknown size' if n0 is None else n0}, and the number of " \
                    "iterations is unknown"
            return n0 + step * count, None
        if not _symbols(e) & self.all:  # set to e by every iteration
            size = after_any(n0, e, count)
            return size, None if size is not None else \
                f"it is {e} after an iteration, and its initial size is unknown"
        if self.index is not None and self.index in _symbols(e):
            return None, f"it changes with the iteration number ({e})"
        return None, f"each iteration makes it {e}, which is no fixed step"

    def _carried_type(self, t0: Type, out: Type, k: int, name: str, finals: dict,
                      reasons: dict, known: dict, count: Any) -> Type:
        if isinstance(t0, OptionalType):  # the body may give the element itself: the
            inner = self._carried_type(t0.element, _element(out), k, name, finals, reasons,
                                       known, count)  # value is then that, or the
            return inner if not isinstance(out, OptionalType) and isinstance(count, int) \
                and count >= 1 else OptionalType(inner)  # optional after no iteration
        for s in self.symbols[k]:
            if reasons[s] is not None:
                axis = "length" if isinstance(t0, SequenceType) else \
                    self.symbols[k].index(s)
                reason = reasons[s]
                cases = ()
                if isinstance(reason, tuple):
                    reason, cases = reason
                self.notes.add(name, axis, reason, cases)
        if isinstance(t0, TensorType):
            return TensorType(t0.dtype, [finals[s] for s in self.symbols[k]])
        if isinstance(t0, SequenceType):
            shape = self._fixed(out.shape, known, name, None)
            if count != 0 and t0.length != 0:
                shape = join_shapes([t0.shape, shape])
            elif count == 0:
                shape = t0.shape
            return SequenceType(t0.dtype, shape, finals[self.symbols[k][0]])
        return t0

    def _fixed(self, shape: tuple | None, known: dict, name: str, offset: int | None
               ) -> tuple | None:
        """``shape`` with the constant symbols replaced by their sizes and the sizes that
        change between iterations unknown (noted for a scan output, whose axes come
        after the iteration axis: ``offset``)."""
        if shape is None:
            return None
        out = []
        for a, d in enumerate(shape):
            d = substitute(d, known) if isinstance(d, Dim) else d
            if _symbols(d) & self.changing:
                if offset is not None:
                    self.notes.add(name, a + offset, f"it changes between iterations ({d})")
                d = None
            elif _symbols(d) & self.outer.keys():
                if offset is not None:
                    self.notes.add(name, a + offset, "it depends on a state's initial size, "
                                   f"which is unknown ({substitute(d, self.outer)})")
                d = None
            out.append(d)
        return tuple(out)


def _symbolic(t: Type, pool: Any) -> tuple[Type, list[str]]:
    """``t`` with a symbol of its own (from ``pool``) for each size a loop may change (a
    tensor's every axis, a sequence's length), and the symbols' names."""
    if isinstance(t, TensorType):
        names = [next(pool) for _ in t.shape]
        return TensorType(t.dtype, [Dim(n) for n in names]), names
    if isinstance(t, SequenceType):
        name = next(pool)
        return SequenceType(t.dtype, t.shape, Dim(name)), [name]
    if isinstance(t, OptionalType):
        inner, names = _symbolic(t.element, pool)
        return OptionalType(inner), names
    return t, []


def _element(t: Type) -> Type:
    return t.element if isinstance(t, OptionalType) else t


def _sizes(t: Type) -> tuple:
    """The sizes of a carried type that :func:`_symbolic` gives symbols, in order."""
    t = _element(t)
    if isinstance(t, TensorType):
        return t.shape
    if isinstance(t, SequenceType):
        return (t.length,)
    return ()


def after_any(before: Any, after: Any, count: Any) -> Any:
    """A size that is ``before`` after no iteration and ``after`` after one or more, for
    ``count`` iterations: ``before + (after - before)*min(1, count)`` (None where a side
    is unknown and the count does not decide)."""
    if count == 0 or before == after:
        return before
    if isinstance(count, int) and count >= 1:
        return after
    if before is None or after is None or count is None:
        return None
    return before + (after - before) * dim_min(1, count)


def _check_kind(t0: Type, out: Type, k: int) -> None:
    """A carried value keeps its kind, dtype and rank from one iteration to the next (an
    optional may become its element: ONNX's runtimes take that too)."""
    a, b = _element(t0), _element(out)
    same = type(a) is type(b) and getattr(a, "dtype", None) == getattr(b, "dtype", None) \
        and (isinstance(t0, OptionalType) or not isinstance(out, OptionalType))
    if same and isinstance(a, TensorType):
        same = a.ndim == b.ndim
    if not same:
        raise TypeError(f"carried value {k} is {t0} before an iteration and {out} after it")


class _Only:
    """What runtime_types reads of a Recurrence, for one carried value."""

    def __init__(self, names: list[str], changing: set[str]):
        self.symbols, self.changing = [names], changing


def runtime_types(rec: Recurrence | _Only, init: list[Type]) -> list[Type]:
    """The carried values' types as the body's function takes them at every iteration:
    the sizes no iteration changes (known ones), the others unknown."""
    out: list[Type] = []
    for t, names in zip(init, rec.symbols, strict=True):
        if isinstance(t, OptionalType):
            (inner,) = runtime_types(_Only(names, rec.changing), [t.element])
            out.append(OptionalType(inner))
        elif isinstance(t, TensorType):
            out.append(TensorType(t.dtype, [d if s not in rec.changing else None
                                            for s, d in zip(names, t.shape, strict=True)]))
        elif isinstance(t, SequenceType):  # elements of any shape (an empty one's
            out.append(SequenceType(t.dtype))  # declared rank may not be theirs)
        else:
            out.append(t)
    return out

"""NumPy broadcasting of one axis as a constraint: the :class:`Broadcast` of sizes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..types.dim import Dim, DimLike
from ..types.facts import Facts
from ..types.poly import Opaque, lone_atom
from .dims import definitions, open_unknowns, size_value
from .rigid import assumed_of, decide_equal
from .store import Constraint, Progress, Reason, bind_choices, facts_of, said, unify_oc
from .terms import Symbol, isvar, walk
from .wording import broadcast_text, readable

__all__ = ["Broadcast", "broadcast_top", "jointly", "jointly_judged"]


def _broadcast_size(sizes: list, s: dict, pending: tuple) -> tuple[Any, bool] | None:
    """``(the one of several unknown sizes they broadcast to, whether all are equal)``
    (see :func:`broadcast_top`)."""
    defined = definitions(pending, s)
    found = broadcast_top([defined.get(v, size_value(v, s)) for v in sizes], facts_of(s))
    return None if found is None else (sizes[found[0]], found[1])


def broadcast_top(values: list[DimLike], facts: Facts) -> tuple[int, bool] | None:
    """``(the index of the one of several sizes they broadcast to, whether all are
    equal)``: the others equal to it (structurally, or by the facts where no unknown
    is open) or ``min(it, c)`` with ints ``c >= 1`` (``b``, ``min(4, b)``: b, 1 or NumPy
    refuses); None where no size is that."""
    for j, top in enumerate(values):
        same = [d == 0 or (not open_unknowns(d) and facts.decide((d, "==", 0)) is True)
                for d in (top - other for other in values)]
        if all(eq or _min_of(other, top) for eq, other in zip(same, values, strict=True)):
            return j, all(same)
    return None


def _fits(v: Any, k: int, s: dict) -> bool | None:
    """Whether size ``v`` is settled beside the known size ``k`` it broadcasts with: an
    int (checked already), or a named size the facts say is 1 or ``k``; None if a named
    size the facts say is neither (no broadcast)."""
    if not isvar(v):
        return True
    if type(v) is not Symbol:
        return False
    facts = facts_of(s)
    same, one = facts.decide((v.dim, "==", k)), facts.decide((v.dim, "==", 1))
    if same is False and one is False:
        return None
    return same is True or one is True


def _min_of(x: DimLike, top: DimLike) -> bool:
    atom = lone_atom(x._terms) if isinstance(x, Dim) else None  # min(top, c, ...), c >= 1
    return isinstance(atom, Opaque) and atom.op == "min" and top in atom.args and all(
        a == top or (isinstance(a, int) and a >= 1) for a in atom.args)


@dataclass(frozen=True, eq=False)
class Broadcast(Constraint):
    """NumPy broadcasting of one axis: ``out`` is the broadcast of ``sizes``.

    Static rules: 1s drop out; one known size k != 1 gives k (unknown sizes must then
    be 1 or k: labeling says which); two different known sizes fail; a single distinct
    unknown gives itself; several different unknowns give the one that pending
    equations make the others equal to or the ``min`` of with ints (``b`` beside
    ``min(4, b)``), else leave ``out`` unknown.
    """

    sizes: tuple
    out: Any
    where: str = ""
    #: per size, ``(input, axis)``: the operand it is an axis of, in that operand's own
    #: numbering (axis None: not known when the constraint was made); for messages, so
    #: it may be a function giving that tuple (made only when a message is)
    operands: tuple | Callable[[], tuple] = ()
    #: the where-clause it is (the DSL's tree, for messages), or None
    clause: Any = None

    def check(self, s: dict, pending: tuple) -> Progress:
        out = self._check(s, pending)
        if out is None or out[1] or not any(type(walk(v, out[0])) is Symbol
                                            for v in self.sizes):
            return out
        return out if jointly(out[0], (self, *pending)) else None

    def _check(self, s: dict, pending: tuple) -> Progress:
        values = [walk(v, s) for v in self.sizes]
        known = {v for v in values if not isvar(v) and v != 1}
        if len(known) > 1:
            return None
        if known:
            (k,) = known
            new = unify_oc(self.out, k, s)
            if new is False:
                return None
            fits = [_fits(v, k, new) for v in values]
            return None if None in fits else (new, all(fits))
        rest = {v for v in values if isvar(v)}
        if not rest:  # every input is 1
            new = unify_oc(self.out, 1, s)
            return (new, True) if new is not False else None
        if len(rest) == 1:  # the others are 1: out is that size
            new = unify_oc(self.out, next(iter(rest)), s)
            return (new, True) if new is not False else None
        out = walk(self.out, s)
        if not isvar(out) and out == 1:  # every input must be 1
            new = s
            for v in rest:
                new = unify_oc(v, 1, new)
                if new is False:
                    return None
            return new, True
        found = _broadcast_size([v for v in values if isvar(v)], s, pending)
        if found is not None:
            new = unify_oc(self.out, found[0], s)
            return (new, found[1]) if new is not False else None
        return s, False

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        out = walk(self.out, s)
        unknown_sizes = [v for v in (walk(x, s) for x in self.sizes)
                         if isvar(v) and v not in rigid and v is not out]
        if not unknown_sizes:
            return None
        v = unknown_sizes[0]
        if isvar(out):  # this one is 1, or it is the result
            return bind_choices(v, (1,)) + [lambda st, v=v: unify_oc(v, self.out, st) or None]
        return bind_choices(v, (1,) if out == 1 else (out, 1))

    def terms(self) -> tuple:
        return (*self.sizes, self.out)

    def explain(self, s: dict) -> str:
        values = [size_value(v, s) for v in self.sizes]
        out = walk(self.out, s)
        out = None if isvar(out) else out
        operands = self.operands() if callable(self.operands) else self.operands
        axes = tuple((i, axis, v) for (i, axis), v in zip(operands, values, strict=True)) \
            if operands else ()  # a where-clause's broadcast: no operand axes known
        known = {v for v in values if isinstance(v, int) and v != 1}
        needs = f", and the output needs {readable(out)}" \
            if out is not None and len(known) < 2 else ""
        if not axes:  # a where-clause's broadcast: its text says it all
            where = (self.where,) if self.clause is None else ("where-clause ", self.clause)
            return said(*where, ": cannot broadcast sizes ",
                        ", ".join(readable(v) for v in values), needs)
        text = "could not be broadcast: " + broadcast_text(axes) + needs
        words = "could not be broadcast: " + broadcast_text(axes, inputs=False) + needs
        return Reason(text, "broadcast", axes=axes, out=out, said=words)


#: The most assignments of named sizes :func:`jointly` tries (more: not judged).
MAX_JOINT = 4096


def jointly(s: dict, constraints: Iterable[Any]) -> bool:
    """Whether the broadcasts among ``constraints`` whose result is an int and whose
    sizes are ints or named sizes hold together at some values of those named sizes
    (False only where none does): each named size is 1 or the result of every such
    broadcast it is in, and not what the facts and the equalities recorded so far say
    it is not. Alone each may hold where together none do (``float32[a,a] *
    float32[b,b]`` is no ``float32[2,3]``: a named size is rigid, never bound)."""
    stated, domains, shared = [], {}, {}
    for c in constraints:
        if not isinstance(c, Broadcast) or not jointly_judged(c, s):
            continue  # (an unknown size or result: not judged here)
        out = walk(c.out, s)
        values = [walk(v, s) for v in c.sizes]
        stated.append((values, out))
        for v in dict.fromkeys(values):
            if type(v) is Symbol:
                domains[v] = domains.get(v, {1, out}) & {1, out}
                shared[v] = shared.get(v, 0) + 1
    facts = facts_of(s)
    said = {x for pair in assumed_of(s) for x in pair}  # (named sizes recorded equal)
    if not facts and all(n == 1 and v.dim not in said for v, n in shared.items()):
        return True  # (no size in two of them, none said of: each holds alone)
    for v, dom in domains.items():
        domains[v] = [k for k in sorted(dom) if not (facts or v.dim in said) or
                      decide_equal(s, v.dim, k) is not False]
    if math.prod(len(d) for d in domains.values()) > MAX_JOINT:
        return True
    names = list(domains)
    for ks in itertools.product(*(domains[v] for v in names)):
        at = dict(zip(names, ks, strict=True))
        if all(_broadcasts_to([at.get(v, v) for v in values], out)
               for values, out in stated):
            return True
    return False


def jointly_judged(c: Broadcast, s: dict) -> bool:
    """Whether :func:`jointly` judges the broadcast ``c``: its result is an int, its
    sizes ints or named sizes."""
    out = walk(c.out, s)
    return type(out) is int and all(type(v) is int or type(v) is Symbol
                                    for v in (walk(x, s) for x in c.sizes))


def _broadcasts_to(sizes: list[int], out: int) -> bool:
    """Whether ints ``sizes`` broadcast (NumPy's rule) to ``out``."""
    rest = {k for k in sizes if k != 1}
    return rest == {out} or not rest and out == 1

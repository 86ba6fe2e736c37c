"""NumPy broadcasting of one axis as a constraint: the :class:`Broadcast` of sizes."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..types.conditions import AnyOf, Condition
from ..types.dim import Dim, DimLike
from ..types.facts import Facts
from ..types.factsproducts import named_product
from ..types.poly import Opaque, lone_atom
from ..types.symbols import free_symbols, substitute
from .broadcastsizes import broadcast_onto
from .dims import COMPARE, Compare, Equation, Expr, definitions, open_unknowns, size_value
from .rigid import assumed_of, decide_equal
from .store import Constraint, Progress, Reason, bind_choices, facts_of, said, unify_oc
from .terms import Symbol, isvar, walk
from .wording import broadcast_text, readable

__all__ = ["Broadcast", "broadcast_top", "jointly"]


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


#: The most cases :func:`_refuted` assumes in all (each a set of facts made): a
#: hostile broadcast of many named sizes stays bounded, and is then not refuted.
MAX_REFUTE = 64


def _refuted(c: Broadcast, s: dict, pending: tuple) -> bool:
    """Whether a broadcast whose result is a named size and whose sizes are named sizes
    or ints (no unknown) holds at no values of the names (:func:`jointly` judges those
    whose result is an int, by their few values): NumPy's condition on them
    (:func:`.broadcastsizes.broadcast_onto`: each size is the result or 1, and one is
    the result unless it is 1) fails under the facts, the equalities recorded so far
    and the equations and where-clauses pending over named sizes only, case by case
    (``2*b`` onto ``2*b + 1``: ``2*b == 1`` has no int root; ``[a] + [b]`` onto ``a + b +
    1``: ``a == 1`` and ``b == 1`` leave ``3 == 1``), within :data:`MAX_REFUTE` cases
    assumed. :func:`jointly` tries values, which never refutes a condition over sizes
    that grow without bound. False where it is not shown (kept, never a guess)."""
    values = [walk(v, s) for v in (*c.sizes, c.out)]
    if any(isvar(v) and type(v) is not Symbol for v in values):
        return False
    dims = [v.dim if type(v) is Symbol else v for v in values]
    stated = [Condition(x, "==", y) for x, y in assumed_of(s)]
    for d in pending:
        if isinstance(d, Equation) or isinstance(d, Compare) and not d.otherwise:
            try:
                left, right = d.left.value(s), d.right.value(s)
            except ZeroDivisionError:
                continue
            if all(isinstance(x, str) for x in free_symbols(left) | free_symbols(right)):
                stated.append(Condition(left, "==" if isinstance(d, Equation) else d.op,
                                        right))
    clauses = [clause.cases if isinstance(clause, AnyOf) else ((clause,),)
               for clause in broadcast_onto(dims[:-1], dims[-1])]
    budget = [MAX_REFUTE]

    def nowhere(facts: Facts, k: int, named: dict) -> bool:
        if k == len(clauses):
            return False  # every clause has a case that may hold (as far as shown)
        for case in clauses[k]:
            more, written = named, []
            for x in case:  # (a product a case before names: its name, see
                x, more = named_product(more, x)  # named_product)
                written.append(x)
            case = tuple(written)
            if any(facts.decide(x) is False for x in case):
                continue
            if budget[0] <= 0:
                return False
            budget[0] -= 1
            grown = facts.with_(*case)
            if grown.consistent() and not nowhere(grown, k + 1, more):
                return False
        return True

    return nowhere(facts_of(s).with_(*stated), 0, {})


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
        if out is None or not any(type(walk(v, out[0])) is Symbol for v in self.sizes):
            return out
        if not out[1] and type(walk(self.out, out[0])) is Symbol and \
                _refuted(self, out[0], pending):
            return None
        return out if _jointly_once(out[0], (self, *pending)) else None

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
        if isvar(out):  # this one is 1, or it is the result where that is not 1 (at 1
            return bind_choices(v, (1,)) + [lambda st, v=v: self._result(v, st)]  # the
        return bind_choices(v, (1,) if out == 1 else (out, 1))  # first: none twice)

    def _result(self, v: Any, s: dict) -> tuple[dict, tuple] | None:
        """The guess that size ``v`` is the result (an unknown or a named size): bound
        to it, and the result ``!= 1`` posted (where it is 1, ``v`` is 1: the other
        guess), so answers of the two never state one point twice."""
        new = unify_oc(v, self.out, s)
        if new is False:
            return None
        return new, (Compare("!=", Expr(self.out), Expr(1), "the broadcast size != 1"),)

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


#: The most values of one group of named sizes :func:`jointly` tries (more: that group
#: is not judged here; the witness judges it when ``run`` gives the answer).
MAX_JOINT = 4096

#: The most named sizes of one group :func:`jointly` judges (a level of search each).
MAX_NAMES = 256


#: The verdicts of :func:`jointly` last given, by the substitution's and the
#: constraints' identities (each check of a round of pending constraints asks again of
#: the same substitution); each keeps them, so no identity is reused while it is here.
#: Shared by every thread (Dask builds graphs from threads): a lookup is one dict
#: operation (atomic); a change, the oldest dropped and the new one kept, is several,
#: made under :data:`_VERDICTS_LOCK` (two threads dropping the same oldest one raised
#: KeyError; the size could pass :data:`MAX_VERDICTS`).
_VERDICTS: dict = {}

#: Held while :data:`_VERDICTS` changes (only where a verdict is new: ``jointly`` ran).
_VERDICTS_LOCK = threading.Lock()

#: The most verdicts :data:`_VERDICTS` keeps (the oldest dropped first).
MAX_VERDICTS = 64


def _jointly_once(s: dict, constraints: tuple) -> bool:
    """:func:`jointly`, asked once per substitution and set of constraints (a
    substitution is never changed in place: a binding copies it)."""
    key = (id(s), len(s), frozenset(map(id, constraints)))
    kept = _VERDICTS.get(key)
    if kept is not None:
        return kept[2]
    verdict = jointly(s, constraints)
    with _VERDICTS_LOCK:
        if len(_VERDICTS) >= MAX_VERDICTS:  # (one out, one in: every change is here)
            dropped = _VERDICTS.pop(next(iter(_VERDICTS)))  # noqa: F841 (freed on return,
            # outside the lock: nothing it frees runs under it)
        _VERDICTS[key] = (s, constraints, verdict)
    return verdict


def jointly(s: dict, constraints: Iterable[Any]) -> bool:
    """Whether the broadcasts among ``constraints`` whose result is an int and whose
    sizes are ints or named sizes hold together at some values of those named sizes
    (False only where none does): each named size is 1 or the result of every such
    broadcast it is in, and not what the facts and the equalities recorded so far say
    it is not; the equations and where-clauses among ``constraints`` over those named
    sizes only, and the recorded equalities of two of them, must hold there too. Alone
    each may hold where together none do (``float32[a,a] * float32[b,b]`` is no
    ``float32[2,3]``: a named size is rigid, never bound). The named sizes are judged in
    groups that share a broadcast or a condition; a group not decided within
    :data:`MAX_JOINT` values tried is taken to hold (not judged: ``run``'s witness
    judges every pending broadcast again before an answer is given)."""
    constraints = tuple(constraints)
    stated, domains, shared = [], {}, 0
    for c in constraints:
        if not isinstance(c, Broadcast) or not _judged(c, s):
            continue  # (an unknown size or result: not judged here)
        out = walk(c.out, s)
        values = [walk(v, s) for v in c.sizes]
        names = {v.dim: v for v in values if type(v) is Symbol}
        if not names:
            continue  # (ints only: judged by the broadcast itself)
        stated.append((set(names), _broadcast_holds(values, out)))
        for dim in names:
            shared += dim in domains
            domains[dim] = domains.get(dim, {1, out}) & {1, out}
    if not stated:
        return True
    said = {x for pair in assumed_of(s) for x in pair}  # (named sizes recorded equal)
    conditions = _conditions(constraints, s, set(domains))
    facts = facts_of(s)
    if not (shared or conditions or facts or said):
        return True  # (each name in one broadcast, no condition: each holds alone)
    stated += conditions
    alone: dict = {}  # (the tests over one named size: its values failing them dropped)
    for names, test in stated:
        if len(names) == 1:
            alone.setdefault(next(iter(names)), []).append(test)
    for dim, dom in domains.items():
        tests = alone.get(dim, ())
        domains[dim] = [k for k in sorted(dom) if (not (facts or dim in said) or
                        decide_equal(s, dim, k) is not False) and
                        all(test({dim: k}) for test in tests)]
        if not domains[dim]:
            return False  # (no value of this named size meets its own conditions)
    budget = [MAX_JOINT * 4]  # (the values tried in all its groups)
    return all(_holds_somewhere(group, domains, budget) for group in _linked(stated))


def _conditions(constraints: tuple, s: dict, names: set) -> list:
    """The equations and where-clauses among ``constraints`` (not a builder's choice's,
    which has an otherwise), and the recorded equalities, over the named sizes
    ``names`` only (at least one), each as ``(its named sizes, whether it may hold at
    given values of them)``."""
    found = []
    pairs = [(x - y, "==") for x, y in assumed_of(s)]
    for c in constraints:
        if isinstance(c, Equation) or isinstance(c, Compare) and not c.otherwise:
            try:
                pairs.append((c.left.value(s) - c.right.value(s),
                              "==" if isinstance(c, Equation) else c.op))
            except ZeroDivisionError:
                continue
    for diff, op in pairs:
        symbols = free_symbols(diff) if isinstance(diff, Dim) else set()
        if symbols and all(isinstance(x, str) for x in symbols) and \
                (held := {Dim(x) for x in symbols}) <= names:
            found.append((held, _condition_holds(diff, op, held)))
    return found


def _condition_holds(diff: DimLike, op: str, held: set) -> Callable[[dict], bool]:
    """The test of ``diff op 0`` over the named sizes ``held``: False only where its
    value is an int that fails it (a value left open, or none, is left to the
    condition itself)."""
    def holds(at: dict) -> bool:
        try:
            value = substitute(diff, {str(d): at[d] for d in held})
        except ZeroDivisionError:
            return True
        return not isinstance(value, int) or COMPARE[op](value, 0)
    return holds


def _broadcast_holds(values: list, out: int) -> Callable[[dict], bool]:
    def holds(at: dict) -> bool:
        return _broadcasts_to([at[v.dim] if type(v) is Symbol else v for v in values], out)
    return holds


def _linked(stated: list) -> list[list]:
    """``stated`` (pairs of named sizes and a test) in groups that share no named size."""
    groups: list[tuple[set, list]] = []
    for names, test in stated:
        joined = [g for g in groups if g[0] & names]
        held, members = set(names), [(names, test)]
        for g in joined:
            held |= g[0]
            members += g[1]
            groups.remove(g)
        groups.append((held, members))
    return [members for _, members in groups]


def _holds_somewhere(group: list, domains: dict, budget: list) -> bool:
    """Whether every test of the group (pairs of named sizes and a test) holds at some
    values of its named sizes (their domains'): the names given values one at a time
    (fewest values first), each test judged once its names have one; True (not judged)
    past :data:`MAX_JOINT` values tried or :data:`MAX_NAMES` names, or once ``budget``
    (shared by the groups of one call) is spent."""
    order = sorted({d for names, _ in group for d in names},
                   key=lambda d: (len(domains[d]), str(d)))
    if len(order) > MAX_NAMES:
        return True  # (not judged: one level of search per name)
    place = {d: i for i, d in enumerate(order)}
    due: list[list] = [[] for _ in order]
    for names, test in group:
        due[max(place[d] for d in names)].append(test)
    tries = [MAX_JOINT]

    at: dict = {}  # (the values given so far: one dict, each entry undone on return)

    def assign(i: int) -> bool | None:
        dim = order[i]
        try:
            for k in domains[dim]:
                tries[0] -= 1
                budget[0] -= 1
                if tries[0] < 0 or budget[0] < 0:
                    return None  # (not judged)
                at[dim] = k
                if all(test(at) for test in due[i]):
                    found = True if i + 1 == len(order) else assign(i + 1)
                    if found is not False:
                        return found
            return False
        finally:
            at.pop(dim, None)

    return assign(0) is not False


def _judged(c: Broadcast, s: dict) -> bool:
    """Whether :func:`jointly` judges the broadcast ``c``: its result is an int, its
    sizes ints or named sizes."""
    out = walk(c.out, s)
    return type(out) is int and all(type(v) is int or type(v) is Symbol
                                    for v in (walk(x, s) for x in c.sizes))


def _broadcasts_to(sizes: list[int], out: int) -> bool:
    """Whether ints ``sizes`` broadcast (NumPy's rule) to ``out``."""
    rest = {k for k in sizes if k != 1}
    return rest == {out} or not rest and out == 1

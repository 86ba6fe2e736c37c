"""kanren's ``run`` and the size equations still pending in its answers.

``run`` reifies each state its goals yield and shows no conditions: an answer whose
state still holds an equation or where-clause over sizes (named, or unknowns) claims
that some values of those sizes meet it. Propagation decides most such equations (they fail,
or bind the unknown); one none of its methods decides (``(b*b) % 257 == 3``: int
divisors whose classes are too many to read) would make the answer a guess. So before
a :class:`~.store.TypeState` is reified, the pending equations and where-clauses,
grouped by the sizes they share, are judged by a witness: values at which all of a
group's hold, looked for among the few values the methods of :mod:`.oneunknown` and
:mod:`.quotients` leave, else among the sizes up to :data:`MAX_WITNESS` (one size) or
small tuples (two or three sizes, :data:`MAX_JOINT`; a group over more is not judged
and refused). Where none is found the answer is not given: :class:`UndecidedAnswer`
names the condition, which ``kt.query`` states in its answer's ``where``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from itertools import product
from typing import Any

from unification.core import reify

from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION
from ..types.prove import bounds
from ..types.symbols import free_symbols, substitute
from .dims import COMPARE, Compare, Equation
from .oneunknown import candidates
from .quotients import may_hold, named_values, tail_values
from .rigid import facts_of
from .store import TypeState, TypeStore
from .wording import size_names

__all__ = ["MAX_WITNESS", "UndecidedAnswer", "judge"]

#: The sizes ``0 .. MAX_WITNESS - 1`` a witness is looked for among, where no method
#: leaves a few values (bounded work per answer: one evaluation per size and equation).
MAX_WITNESS = 4096

#: The sizes tried first, before any method is asked (most witnesses are small).
SMALL = 64

#: The most values a method's set of values is tried at.
MAX_VALUES = 1 << 16

#: The most sizes one group of equations and where-clauses is judged over together,
#: and the most tuples of their values tried (a group over more sizes is not judged).
MAX_JOINT_SIZES = 3
MAX_JOINT = 1 << 12


class UndecidedAnswer(ValueError):
    """A ``run`` answer whose state holds a size condition that nothing decides and no
    values tried meet: the answer would be a guess. ``condition`` is the condition's
    text, ``size`` the size (or sizes, joined by ", ") it is over."""

    def __init__(self, condition: str, size: str):
        self.condition, self.size = condition, size
        several = ", " in size
        super().__init__(
            f"run cannot give this answer as true: it holds only where {condition}, a "
            f"condition over the size{'s' if several else ''} {size} that the solver "
            f"cannot decide and for which no value{'s' if several else ''} of {size} "
            f"tried (its bounds', else 0 to {MAX_WITNESS - 1}) {'are' if several else 'is'}"
            f" found. kt.query states such a condition in its answer's where; or bind "
            f"{size} (eq, membero)")


def judge(S: TypeState) -> None:
    """Raise :class:`UndecidedAnswer` unless every size's pending equations in ``S``
    have a witness (judged once per state)."""
    if S.__dict__.get("_judged"):
        return
    store = S.constraints.get(TypeStore)
    if store is not None and store.pending:
        _judge(store.pending, S.data)
    S.__dict__["_judged"] = True


def _judge(pending: tuple, s: dict) -> None:
    """Group the pending equations and where-clauses by the sizes they share, and find a
    witness for each group: one size alone by :func:`_witness`, two or three together
    by :func:`_joint`; a group over more sizes, or with no witness, raises."""
    checks: list[tuple[str, DimLike, DimLike, DimLike, frozenset]] = []
    for c in pending:
        if not isinstance(c, Equation | Compare):
            continue
        try:
            left, right = c.left.value(s), c.right.value(s)
        except ZeroDivisionError:
            continue
        diff = left - right
        symbols = frozenset(free_symbols(diff)) if isinstance(diff, Dim) else frozenset()
        checks.append(("==" if isinstance(c, Equation) else c.op, left, right, diff,
                       symbols))
    for sizes, group in _groups(_eliminated(checks)):
        if _found(sizes, group, s, pending):
            continue
        op, left, right, diff, _ = next((c for c in group if c[0] == "=="), group[0])
        if left - right != diff:  # an equation an unknown was eliminated from
            op = "=="
        names = size_names([left, right, *(unknown(v) for v in sizes
                                           if not isinstance(v, str))])
        raise UndecidedAnswer(f"{_text(left, names)} {op} {_text(right, names)}",
                              ", ".join(sorted(v if isinstance(v, str) else str(names[v])
                                               for v in sizes)))


def _eliminated(checks: list) -> list:
    """The checks with each unknown an equation gives as the value of the others
    (``? == a//b``: an open output size) replaced by that value in the rest, and the
    equation by the value's being a size (``a//b >= 0``, and has a value)."""
    checks = list(checks)
    changed = True
    while changed:
        changed = False
        for i, (op, left, right, diff, symbols) in enumerate(checks):
            if op != "==":
                continue
            for u in sorted((v for v in symbols if not isinstance(v, str)), key=repr):
                value = _solved(diff, u)
                if value is None:
                    continue
                rest = [(o, lt, rt, substitute(d, {u: value}), s - {u} | _symbols(value))
                        if u in s else (o, lt, rt, d, s)
                        for j, (o, lt, rt, d, s) in enumerate(checks) if j != i]
                checks = [*rest, (">=", left, right, value, _symbols(value))]
                changed = True
                break
            if changed:
                break
    return checks


def _symbols(x: DimLike) -> frozenset:
    return frozenset(free_symbols(x)) if isinstance(x, Dim) else frozenset()


def _solved(diff: DimLike, u: Any) -> DimLike | None:
    """``e`` with ``diff == 0`` exactly where the unknown ``u`` is ``e`` (``diff`` is
    ``±u`` plus terms without ``u``), else None."""
    for sign in (1, -1):
        rest = diff - sign * unknown(u)
        if u not in _symbols(rest):
            return -sign * rest
    return None


def _text(x: DimLike, names: dict) -> str:
    return str(substitute(x, names)) if isinstance(x, Dim) else str(x)


def _groups(checks: list) -> list[tuple[list, list]]:
    """The checks in groups that share no size, each with its sizes (in a fixed order)."""
    groups: list[tuple[set, list]] = []
    for check in checks:
        symbols = check[4]
        joined = [g for g in groups if g[0] & symbols] if symbols else []
        sizes, members = set(symbols), [check]
        for g in joined:
            sizes |= g[0]
            members = g[1] + members
            groups.remove(g)
        groups.append((sizes, members))
    return [(sorted(sizes, key=repr), members) for sizes, members in groups]


def _found(sizes: list, group: list, s: dict, pending: tuple) -> bool:
    """Whether a witness of the group's checks is found."""
    if not sizes:  # no size left: the check is an int, or has no value
        return all(_compares(op, diff, {}) if op != "==" else may_hold(diff, {})
                   for op, _, _, diff, _ in group)
    if len(sizes) == 1:
        (v,) = sizes
        diffs = [diff for op, _, _, diff, _ in group if op == "=="]
        compares = [(op, diff) for op, _, _, diff, _ in group if op != "=="]
        return _witness(v, diffs, compares, s, pending) is not None
    return len(sizes) <= MAX_JOINT_SIZES and _joint(sizes, group, s, pending)


def _joint(sizes: list, group: list, s: dict, pending: tuple) -> bool:
    """Whether some sizes, together, meet every check of the group: each size ranges
    over its :data:`SMALL` least values (fewer for three sizes: :data:`MAX_JOINT`
    tuples in all) and the few values its own equations leave."""
    facts = facts_of(s)
    per = max(2, int(round(MAX_JOINT ** (1 / len(sizes)))))
    values = []
    for v in sizes:
        own = [diff for op, _, _, diff, symbols in group if op == "==" and symbols == {v}]
        tried = _tried(v, own, s, pending) if own else None
        if own and tried is None:
            return False  # an equation of v alone holds nowhere
        few = list(range(min(per, SMALL)))
        if tried is not None:
            few += [k for k in list(tried[:per]) if k not in few]
        values.append([k for k in few if not isinstance(v, str)
                       or facts.decide((Dim(v) - k, "==", 0)) is not False])
    triples = [c.triple() for c in facts.atoms] if any(isinstance(v, str) for v in sizes) \
        else []
    for ks in product(*values):
        at = dict(zip(sizes, ks, strict=True))
        if all(may_hold(diff, at) if op == "==" else _compares(op, diff, at)
               for op, _, _, diff, _ in group) \
                and all(_compares(op, d, at) for d, op, _ in triples):
            return True
    return False


def _witness(v: Any, diffs: list, compares: Iterable, s: dict, pending: tuple
             ) -> int | None:
    """A size at which every equation ``diff == 0`` of ``diffs`` and every comparison
    ``diff op 0`` of ``compares`` holds (and, for a named size, that the facts allow),
    or None where none is found among the :data:`SMALL` sizes and :func:`_tried`."""
    facts = facts_of(s)
    found = _first(v, range(SMALL), diffs, compares, facts)
    if found is not None:
        return found
    tried = _tried(v, diffs, s, pending)
    return None if tried is None else _first(v, tried, diffs, compares, facts)


def _first(v: Any, tried: Iterable[int], diffs: list, compares: Iterable, facts: Any
           ) -> int | None:
    compares = tuple(compares)
    for k in tried:
        at = {v: k}
        if all(may_hold(d, at) for d in diffs) and all(_compares(op, d, at)
                                                       for op, d in compares) \
                and (not isinstance(v, str)
                     or facts.decide((Dim(v) - k, "==", 0)) is not False):
            return k
    return None


def _tried(v: Any, diffs: list, s: dict, pending: tuple) -> Any:
    """The sizes a witness is looked for among: the few values a method leaves one of
    the equations (None if a method shows it holds nowhere), else the values its bounds
    allow (``n//1000 == 5``: 5000 to 5999), else :data:`MAX_WITNESS` sizes from its
    least."""
    least = 0
    for diff in diffs:
        few = named_values(diff, s, pending) if isinstance(v, str) else \
            candidates(diff, v)
        if few is None and not isinstance(v, str):
            few = tail_values(diff, v)
        if few is NO_SOLUTION:
            return None
        if isinstance(few, int):
            return (few,)
        if isinstance(few, range | tuple | list) and len(few[:MAX_VALUES + 1]) <= MAX_VALUES:
            return few
    for diff in diffs:
        lo, hi = bounds(((diff, "==", 0),), Dim(v) if isinstance(v, str) else unknown(v))
        lo = max(lo or 0, 0)
        if hi is not None and hi - lo < MAX_VALUES:
            return range(lo, hi + 1)
        least = max(least, lo)
    return range(least, least + MAX_WITNESS)


def _compares(op: str, diff: DimLike, at: dict) -> bool:
    try:
        value = substitute(diff, at)
    except ZeroDivisionError:
        return False
    return not isinstance(value, int) or COMPARE[op](value, 0)


_reify_mapping = reify.dispatch(object, Mapping)


def _reify_judged(e: Any, S: TypeState) -> Any:
    """``reify`` of any term (a variable, a tuple, a constant: what ``run`` shows) in a
    state of ours: the state is judged first. Registered on ``reify``, the entry ``run``
    calls once per answer, not on ``_reify`` (whose per-type entries walk the term's
    parts and would be ambiguous with an ``object`` one). kanren's own goals reify too,
    mid-search (``membero`` its arguments), where a later goal may still bind a size:
    their states are not judged (the answers they lead to are, when ``run`` shows them)."""
    if not _mid_search(sys._getframe(2)):
        judge(S)
    return _reify_mapping(e, S)


def _mid_search(caller: Any) -> bool:
    """Whether ``reify`` was called by a kanren goal (not by ``run``, whose answers
    reach reify from ``run`` itself or from the code consuming its lazy stream)."""
    return caller is not None and caller.f_globals.get("__name__", "").startswith(
        "kanren") and caller.f_code.co_name != "run"


reify.add((object, TypeState), _reify_judged)

"""kanren's ``run`` and the size equations still pending in its answers.

``run`` reifies each state its goals yield and shows no conditions: an answer whose
state still holds an equation or where-clause over sizes (named, or unknowns) claims
that some values of those sizes meet it. Propagation decides most such equations (they fail,
or bind the unknown); one none of its methods decides (``(b*b) % 257 == 3``: int
divisors whose classes are too many to read) would make the answer a guess. So before
a :class:`~.store.TypeState` is reified, the pending equations and where-clauses,
and the equalities of named sizes the solve recorded, grouped by the sizes they share, are
judged by a witness: values at which all of a group's hold, looked for among the few
values the methods of :mod:`.oneunknown` and :mod:`.quotients` leave or the bounds
allow, else among the sizes up to :data:`MAX_WITNESS` (one size); a group over several
sizes gives them values one at a time, each size its least values or, once the
others have theirs, those its own methods leave (:func:`_search`, at most
:data:`MAX_SEARCH` tries, a substitution charged a try per term). Where none is found the
answer is not given:
:class:`UndecidedAnswer` names the condition, which ``kt.query`` states in its
answer's ``where``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from types import CodeType
from typing import Any

from kanren import run as kanren_run
from unification.core import reify

from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION
from ..types.prove import bounds
from ..types.symbols import substitute
from .broadcast import Broadcast
from .broadcastsizes import broadcast_onto
from .casesplit import split_witness
from .dims import COMPARE, Compare, Equation, size_value
from .eliminate import eliminated, resolved, symbols_of
from .fewvalues import enumerated, few_values, late_hold
from .oneunknown import candidates
from .quotients import SUBSTITUTIONS, Spent, charge, may_hold, named_values, tail_values
from .rigid import assumed_of
from .store import TypeState, TypeStore, facts_of
from .wording import size_names

__all__ = ["MAX_WITNESS", "UndecidedAnswer", "judge"]

#: The sizes ``0 .. MAX_WITNESS - 1`` a witness is looked for among, where no method
#: leaves a few values (bounded work per answer: one evaluation per size and equation).
MAX_WITNESS = 4096

#: The sizes tried first, before any method is asked (most witnesses are small).
SMALL = 64

#: The most values a method's set of values is tried at.
MAX_VALUES = 1 << 16

#: The most values a group of conditions over several sizes is tried at in all (one
#: size at a time: :func:`_search`), and the most times its sizes' own methods are
#: asked for values (each may cost an elimination): a hostile group stays bounded.
MAX_SEARCH = 1 << 12
MAX_ASKS = 64

#: The fewest values of a size that is not the last of a search (values its own
#: checks allow) the next sizes are searched under (two sizes: 64 each, three: 16).
FEW = 8


class UndecidedAnswer(ValueError):
    """A ``run`` answer whose state holds a size condition that nothing decides and no
    values tried meet: the answer would be a guess. ``condition`` is the condition's
    text (the conditions judged together, joined by " and "), ``size`` the size (or
    sizes, joined by ", ") it is over. ``answers``: those ``run(0, ...)`` or
    ``run(k, ...)`` gave before it, in order (the refusal ends the tuple they would
    have been returned in); ``()`` where ``run``'s lazy stream is read
    (``run(None, ...)``: its reader has them already)."""

    answers: tuple = ()

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
    pending = store.pending if store is not None else ()
    if pending or assumed_of(S.data):
        _judge(pending, S.data)
    S.__dict__["_judged"] = True


def _judge(pending: tuple, s: dict) -> None:
    """Group the pending equations and where-clauses, and the equalities of named sizes
    the solve recorded (:func:`~.rigid.assumed_of`: ``a == 3``, ``a == b``, conditions
    of the answer too), by the sizes they share, and find a witness for each group: one
    size alone by :func:`_witness`, several by :func:`_search`; a group with none found
    raises, naming each condition with its own comparison and the sizes they state.
    (``run``'s states carry no facts: only ``kt.query``'s forward solve has them, and it
    never reifies a state.)"""
    checks: list[tuple[str, DimLike, DimLike, DimLike, frozenset, str | tuple]] = []
    stated = [("==" if isinstance(c, Equation) else c.op, c.left, c.right)
              for c in pending if isinstance(c, Equation | Compare)]
    for op, left, right in stated:
        try:
            left, right = left.value(s), right.value(s)
        except ZeroDivisionError:
            continue
        diff = left - right
        checks.append((op, left, right, diff, symbols_of(diff), op))
    for x, y in assumed_of(s):
        diff = x - y
        checks.append(("==", x, y, diff, symbols_of(diff), "=="))
    checks += _broadcast_checks(pending, s)
    checks, defs = eliminated(checks)
    for sizes, group in _groups(checks):
        if not _found(sizes, group, s, pending, defs):
            raise _refused(group)


def _broadcast_checks(pending: tuple, s: dict) -> list:
    """NumPy's condition of each pending broadcast (its result ``out``: each size is
    ``out`` or 1, one is ``out`` unless ``out`` is 1), a case ``x == y or x == 1`` as
    the equation ``(x - y)*(x - 1) == 0``: broadcasts that each hold alone may hold
    nowhere together (``float32[x,x] * float32[b,b]`` is no ``float32[2,3]``, ``x`` an
    unknown). Every one is judged, those :func:`~.broadcast.jointly` judged as they
    propagated too: it leaves a group it cannot decide, and the equations on sizes
    that are not all named, to this."""
    checks = []
    for c in pending:
        if not isinstance(c, Broadcast):
            continue
        values = [size_value(v, s) for v in c.sizes]
        for clause in broadcast_onto(values, size_value(c.out, s)):
            cases = getattr(clause, "cases", ((clause,),))
            pairs = tuple((k.left, k.right) for (k,) in cases)
            if any(type(x) is int and x == y for x, y in pairs):
                continue  # (a case of ints that holds: the clause holds)
            pairs = tuple(p for p in pairs if not type(p[0]) is type(p[1]) is int) or pairs
            diff: DimLike | None = 1
            try:
                for x, y in pairs:
                    diff = diff * (x - y)
            except ValueError:  # (too large a product to expand: judged case by case
                diff = None  # alone, casesplit.split_witness)
            symbols = symbols_of(diff) if diff is not None else \
                frozenset().union(*(symbols_of(x) | symbols_of(y) for x, y in pairs))
            checks.append(("==", diff, 0, diff, symbols, pairs))
    return checks


def _refused(group: list) -> UndecidedAnswer:
    """The refusal of a group: each condition as stated, with its own comparison (an
    equation an unknown was eliminated from as the equation it was; a broadcast's
    case by case), and the sizes those conditions state."""
    values = [x for c in group for x in (
        c[1:3] if isinstance(c[5], str) else [x for pair in c[5] for x in pair])]
    names = size_names(values)
    said = dict.fromkeys(f"{_text(left, names)} {op} {_text(right, names)}"
                         if isinstance(op, str) else "(" + " or ".join(
                             f"{_text(x, names)} == {_text(y, names)}" for x, y in op) + ")"
                         for _, left, right, _, _, op in group)
    sizes = {x for v in values for x in symbols_of(v)}
    return UndecidedAnswer(" and ".join(said), ", ".join(sorted(
        v if isinstance(v, str) else str(names[v]) for v in sizes)))


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


def _found(sizes: list, group: list, s: dict, pending: tuple, defs: dict) -> bool:
    """Whether a witness of the group's checks is found: every value tried where each
    size has a few (:func:`~.fewvalues.enumerated`), else searched."""
    if any(c[3] is None for c in group):  # (a broadcast's product too large to expand)
        return split_witness(sizes, group, facts_of(s), defs)
    domains = few_values(sizes, group) if sizes else None
    found = None if domains is None else enumerated(sizes, group, defs, domains)
    if found is not None:
        return found
    if len(sizes) > 1:
        return _search(sizes, group, s, pending, defs) or (
            any(not isinstance(c[5], str) for c in group) and
            split_witness(sizes, group, facts_of(s), defs))  # (its cases: values they fix)
    group = [(c[0], *c[1:3], resolved(c[3], defs), *c[4:]) for c in group]
    if not sizes:  # no size left: the check is an int, or has no value
        return all(_compares(op, diff, {}) if op != "==" else may_hold(diff, {})
                   for op, _, _, diff, *_ in group)
    if len(sizes) == 1:
        (v,) = sizes
        diffs = [diff for op, _, _, diff, *_ in group if op == "=="]
        compares = [(op, diff) for op, _, _, diff, *_ in group if op != "=="]
        return _witness(v, diffs, compares, s, pending) is not None
    return False  # (unreachable: several sizes are searched)


class _Budget:
    """What a search over several sizes may still spend: value tries, and asks of a
    size's own methods (each may cost an elimination)."""

    __slots__ = ("left", "asks")

    def __init__(self) -> None:
        self.left, self.asks = [MAX_SEARCH], MAX_ASKS  # (left: SUBSTITUTIONS's, shared)


def _search(sizes: list, group: list, s: dict, pending: tuple, defs: dict) -> bool:
    """Whether some values of the sizes, together, meet every check of the group: the
    sizes are given values one at a time (those fewest equations tie first), each check
    judged once its sizes all have one; a size a check leaves alone once the others
    have values is tried at the values its own methods leave (the few roots or
    classes, its bounds: ``a*b + c*d == 7`` at a = b = c = 0 is ``7 == 0``, at
    c = 1 it leaves d = 7), else at its least values; a check holding a defined
    unknown (:func:`~.eliminate.eliminated`) is judged at each value, the unknown's value
    evaluated there. At most :data:`MAX_SEARCH` tries in all."""
    order = sorted(sizes, key=lambda v: (sum(1 for c in group if c[0] == "==" and
                                             v in c[4]), repr(v)))
    budget = _Budget()
    per = min(SMALL, max(FEW, round(MAX_SEARCH ** (1 / len(sizes)))))  # 64, 16, 8...

    def assign(i: int, at: dict) -> bool:
        v = order[i]
        known = {*at, v}
        mine = [(op, diff) for op, _, _, diff, sym, _ in group if v in sym and sym <= known]
        late = [(op, d) for op, d in mine if symbols_of(d) & defs.keys()]
        mine = [c for c in mine if c not in late]
        budget.left[0] -= 1
        for _, d in mine:
            charge(d)  # (a substitution costs a try per term)
        try:
            diffs = [substitute(d, at) for op, d in mine if op == "=="]
            compares = [(op, substitute(d, at)) for op, d in mine if op != "=="]
        except ZeroDivisionError:  # a check without value at the values given so far
            return False
        last, accepted = i + 1 == len(order), 0
        for k in _values(v, diffs, compares, s, pending, budget, last):
            budget.left[0] -= 1
            if budget.left[0] < 0:
                return False
            there = {v: k}
            if all(may_hold(d, there) for d in diffs) and \
                    all(_compares(op, d, there) for op, d in compares) and \
                    late_hold(late, defs, {**at, v: k}):
                if last or assign(i + 1, {**at, v: k}):
                    return True
                accepted += 1
                if accepted >= per:
                    return False
        return False

    token = SUBSTITUTIONS.set(budget.left)  # (every substitution of the search, the
    try:  # methods' asks too, is charged: may_hold, charge)
        return assign(0, {})
    except Spent:
        return False
    finally:
        SUBSTITUTIONS.reset(token)


def _values(v: Any, diffs: list, compares: list, s: dict, pending: tuple,
            budget: _Budget, last: bool) -> Iterable[int]:
    """The values a search tries ``v`` at: where its checks leave it alone and its
    methods leave it a set holding every value that meets them (:func:`_exact`), that
    set; else its :data:`SMALL` least, then from the least its bounds allow (the last
    size :data:`SMALL` of them: it is tried under each set of values of the others)."""
    if any(not may_hold(d, {}) for d in diffs if isinstance(d, int)):
        return  # an equation the other sizes' values decide false
    alone = [d for d in diffs if symbols_of(d) == {v}]
    bounded = [(op, d) for op, d in compares if symbols_of(d) == {v}]
    if not (alone or bounded) or budget.asks <= 0:
        yield from range(SMALL)  # (no more asks: its least values only)
        return
    budget.asks -= 1
    exact, least = _exact(v, alone, s, pending, bounded)
    if exact is None:
        return
    if exact is not _OPEN:
        yield from (k for k in exact if k >= 0)
        return
    yield from range(SMALL)
    if least >= SMALL or not last:
        yield from range(max(least, SMALL), max(least, SMALL) + (SMALL if last else
                                                                 MAX_WITNESS))


def _witness(v: Any, diffs: list, compares: Iterable, s: dict, pending: tuple
             ) -> int | None:
    """A size at which every equation ``diff == 0`` of ``diffs`` and every comparison
    ``diff op 0`` of ``compares`` holds,
    or None where none is found among the :data:`SMALL` sizes and :func:`_tried`."""
    found = _first(v, range(SMALL), diffs, compares)
    if found is not None:
        return found
    tried = _tried(v, diffs, s, pending, compares)
    return None if tried is None else _first(v, tried, diffs, compares)


def _first(v: Any, tried: Iterable[int], diffs: list, compares: Iterable) -> int | None:
    compares = tuple(compares)
    for k in tried:
        if k < 0:
            continue  # no size
        at = {v: k}
        if all(may_hold(d, at) for d in diffs) and all(_compares(op, d, at)
                                                       for op, d in compares):
            return k
    return None


def _tried(v: Any, diffs: list, s: dict, pending: tuple, compares: Iterable = ()
           ) -> Any:
    """The sizes a witness is looked for among: :func:`_exact`'s, else
    :data:`MAX_WITNESS` sizes from the least its bounds allow."""
    exact, least = _exact(v, diffs, s, pending, compares)
    return range(least, least + MAX_WITNESS) if exact is _OPEN else exact


#: The comparisons bounds are read from.
_ORDERS = frozenset({"<", "<=", ">", ">="})

#: :func:`_exact` found no set that holds every value meeting the conditions.
_OPEN = object()


def _exact(v: Any, diffs: list, s: dict, pending: tuple, compares: Iterable = ()
           ) -> tuple[Any, int]:
    """Every value of ``v`` meeting the equations ``diff == 0`` and comparisons, as far
    as a method shows them, and the least value the bounds allow: the few values a
    method leaves one of the equations (None if a method shows it holds nowhere), else
    the values its bounds and the comparisons' allow (``n//1000 == 5``: 5000 to 5999),
    else :data:`_OPEN` (``n >= 5000``: the least is 5000)."""
    least = 0
    for diff in diffs:
        few = named_values(diff, s, pending) if isinstance(v, str) else \
            candidates(diff, v)
        if few is None and not isinstance(v, str):
            few = tail_values(diff, v)
        if few is NO_SOLUTION:
            return None, 0
        if isinstance(few, int):
            return (few,), 0
        if isinstance(few, range | tuple | list) and len(few[:MAX_VALUES + 1]) <= MAX_VALUES:
            return few, 0
    x = Dim(v) if isinstance(v, str) else unknown(v)
    compares = tuple((d, op, 0) for op, d in compares if op in _ORDERS)
    for conditions in [*(((diff, "==", 0),) for diff in diffs),
                       *([compares] if compares else [])]:
        lo, hi = bounds(conditions, x)
        lo = max(lo or 0, 0)
        if hi is not None and hi - lo < MAX_VALUES:
            return range(lo, hi + 1), 0
        least = max(least, lo)
    return _OPEN, least


def _compares(op: str, diff: DimLike, at: dict) -> bool:
    charge(diff)
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
    their states are not judged (the answers they lead to are, when ``run`` shows them).
    Nothing else tells the two apart (a goal reifies its input state, ``run`` the last
    goal's output, one state object and type either way), so the caller is read: a
    state is left unjudged only where the caller is positively one of kanren's goals."""
    caller = _caller(sys._getframe(1))
    if caller is not None and caller.f_code in _goal_codes():
        return _reify_mapping(e, S)  # mid-search
    given = _given(caller)
    try:
        judge(S)
    except UndecidedAnswer as refused:
        if given is not None:
            refused.answers = tuple(given)
            del _GIVEN[caller]
        raise
    answer = _reify_mapping(e, S)
    if given is not None:
        given.append(answer)
    return answer


def _caller(frame: Any) -> Any:
    """The first caller of ``reify`` past the dispatch machinery (at any depth). Only
    one of kanren's goals (:func:`_goal_codes`) leaves a state unjudged: anything else,
    ``run`` itself, a later kanren's ``run`` helper, a wrapper, the code consuming
    ``run``'s lazy stream, is judged (a caller not recognised costs a refusal, never a
    wrong answer)."""
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] \
            in _DISPATCH:
        frame = frame.f_back
    return frame


#: The answers each call of kanren's ``run`` still running gave so far, by its frame
#: (held while here, so never another call's): a refusal carries its call's.
_GIVEN: dict = {}


def _given(caller: Any) -> list | None:
    """The list of the answers given so far by the ``run`` call ``caller`` is (None
    where ``caller`` is no call of kanren's ``run``: its stream is read lazily)."""
    if caller is None or caller.f_code is not kanren_run.__code__:
        return None
    if caller not in _GIVEN:
        if _GIVEN:  # calls that have returned (on no thread's stack) are let go
            running = set()
            for frame in sys._current_frames().values():
                while frame is not None and frame not in running:
                    running.add(frame)
                    frame = frame.f_back
            for frame in [f for f in _GIVEN if f not in running]:
                del _GIVEN[frame]
        _GIVEN[caller] = []
    return _GIVEN[caller]


#: The packages ``reify`` runs through before reaching this module's function.
_DISPATCH = frozenset({"multipledispatch", "unification"})

_GOAL_CODES: list = [0, frozenset()]  # (kanren modules seen, their goals' code objects)


def _goal_codes() -> frozenset:
    """The code objects of kanren's goals: the named functions nested in its modules'
    functions and methods (``membero``'s ``membero_goal``), never in ``run`` nor a
    comprehension or lambda (a later ``run`` could reify its answers from one). Read
    again when a kanren module is imported."""
    modules = [m for name, m in list(sys.modules.items())
               if name == "kanren" or name.startswith("kanren.")]
    if len(modules) != _GOAL_CODES[0]:
        found: set = set()
        for module in modules:
            for obj in list(vars(module).values()):
                for f in [obj, *(vars(obj).values() if isinstance(obj, type) else ())]:
                    code = getattr(f, "__code__", None)
                    if code is not None and f is not kanren_run and \
                            getattr(f, "__module__", None) == module.__name__:
                        found |= _nested(code)
        _GOAL_CODES[:] = [len(modules), frozenset(found)]
    return _GOAL_CODES[1]


def _nested(code: CodeType) -> set:
    """The named functions' code objects nested in ``code`` (at any depth)."""
    found = set()
    for const in code.co_consts:
        if isinstance(const, CodeType) and not const.co_name.startswith("<"):
            found |= {const} | _nested(const)
    return found


reify.add((object, TypeState), _reify_judged)

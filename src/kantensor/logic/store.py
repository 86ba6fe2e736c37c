"""kantensor's constraints inside kanren's constraint store, propagation and labeling.

A signature's relation leaves what it cannot decide yet (sizes, broadcasting,
promotion, where-clauses) as *constraints* in a :class:`TypeStore`, one of the
stores of kanren's ``ConstrainedState``. kanren calls every store after every
unification (``post_unify_check``), so a constraint is re-checked whenever any goal
(``eq``, ``membero``, another relation) binds a variable: answers never depend on the
order of goals. A check may bind variables itself (``n + 1 == 5`` binds ``n``); the
other stores (kanren's ``neq``) are then re-checked against the new bindings.

:func:`labelo` is the goal that enumerates the choices still open (like CLP(FD)'s
``label``). Every state a goal here yields is a fresh copy, so a later goal that
mutates its store (kanren's ``neq`` does) never changes another branch's answers.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from typing import Any

from kanren import lall
from kanren.constraints import ConstrainedState, ConstraintStore
from unification import unify

from .rigid import facts_of, kept_rigid, unify_rigid
from .terms import GROUND, VARS, Fresh, Symbol, TensorTerm, isvar, term_vars, walk

__all__ = ["Beyond", "Constraint", "Reason", "TypeState", "TypeStore", "copy_state",
           "explaining",
           "facts_of", "fail_because",
           "fresh_state", "labelo", "post", "propagate", "relations_first", "said",
           "unify_oc"]

#: A constraint's progress: None (it fails), or (substitution, done) optionally
#: followed by constraints to add (which may replace it).
Progress = tuple | None
#: A guess for :func:`labelo`: the substitution it makes (None: it fails), or that and
#: the constraints it posts beside (``(s, constraints)``: a broadcast's size that is the
#: result, not 1, where the result is not 1 either, so the guesses never overlap).
Choice = Callable[[dict], "dict | tuple[dict, tuple] | None"]


class Others:
    """The constraints other than the one being checked, during one pass of
    :func:`propagate`: those after it and those kept so far, viewed without copying (so a
    pass over n constraints is linear, not quadratic). ``memo`` is shared by the whole
    pass: a check may keep there what it derived from the others (see
    :func:`kantensor.logic.dims.definitions`), keyed by the substitution it read. A check
    reads it while it runs and keeps no reference: the pass moves ``start`` along."""

    __slots__ = ("pending", "start", "kept", "memo")

    def __init__(self, pending: tuple, start: int, kept: list, memo: dict):
        self.pending, self.start, self.kept, self.memo = pending, start, kept, memo

    def __iter__(self) -> Iterator[Constraint]:
        pending = self.pending
        for i in range(self.start, len(pending)):
            yield pending[i]
        yield from self.kept

    def __len__(self) -> int:
        return len(self.pending) - self.start + len(self.kept)


class Constraint:
    """A propagator over a substitution ``s`` (a plain dict).

    ``check(s, pending)`` returns None when the constraint cannot hold, else
    ``(s, done)`` or ``(s, done, new_constraints)``; ``pending`` holds the other
    constraints still waiting, an iterable (a tuple, or :class:`Others`; some checks
    read definitions from them).
    ``choices(s, rigid)`` lists ways to make progress by guessing (for :func:`labelo`);
    ``rigid`` holds the variables of named Dims, which stay symbolic. A choice wrapped
    in :class:`Beyond` lies past a query's rank bound: it is reported, not taken.
    """

    __slots__ = ()

    def check(self, s: dict, pending: tuple) -> Progress:
        raise NotImplementedError

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list[Choice] | None:
        return None

    def terms(self) -> tuple:
        """The logic terms it constrains (for :func:`labelo`'s relevance test)."""
        return ()

    def explain(self, s: dict) -> str:
        return f"constraint {type(self).__name__} does not hold"


# -- failure reasons ----------------------------------------------------------------
class Reason(str):
    """A failure reason: its text, and what a front end needs to say it in the user's
    words: ``kind`` (``"clause"``, ``"category"``, ``"broadcast"`` or ``""``) and
    ``facts``, the values the failing constraint saw (for a where-clause ``clause`` (its
    text), ``values`` (each size name's value), ``said`` (its sides' values) and
    ``tree`` (the clause as the DSL's tree, or None); for a category ``category`` and
    ``got``; for broadcasting ``axes``: ``(input, axis or None, size)`` per operand).
    A reason made by :func:`said` also has ``parts``: the pieces its text joins, the
    operands' places and the DSL's nodes among them kept as objects."""

    kind: str
    facts: dict

    def __new__(cls, text: str, kind: str = "", **facts: Any) -> Reason:
        self = super().__new__(cls, text)
        self.kind = kind
        self.facts = facts
        return self


def said(*parts: Any, kind: str = "", **facts: Any) -> Reason:
    """The reason whose text is ``parts`` joined (``str`` of each), keeping them: an
    explanation names a place (``input 1``) or a dim of the relation by the user's
    operand and axis, from the objects, never by reading the text again."""
    return Reason("".join(map(str, parts)), kind, parts=parts, **facts)


_REASONS: contextvars.ContextVar[list | None] = contextvars.ContextVar("reasons", default=None)


class explaining:
    """Context manager collecting failure reasons (only then are messages built)."""

    def __enter__(self) -> list[str]:
        self.reasons: list[str] = []
        self.token = _REASONS.set(self.reasons)
        return self.reasons

    def __exit__(self, *exc: object) -> None:
        _REASONS.reset(self.token)


def fail_because(reason: Callable[[], str]) -> None:
    """Record why a branch fails, if someone is collecting reasons."""
    reasons = _REASONS.get()
    if reasons is not None:
        reasons.append(reason())


# -- unification with an occurs check ---------------------------------------------------
def _occurs(v: Any, term: Any, s: dict) -> bool:
    """Does ``v`` occur in ``term``, following the bindings of ``s`` (once each)?"""
    if type(term) is tuple:  # the commonest term: a shape of sizes, each ground, unbound
        for t in term:       # or bound to a ground size (checked in one pass)
            if t is v:
                return True
            if type(t) not in GROUND:
                if type(t) is not Fresh and type(t) is not Symbol:
                    break  # something to follow: the general walk below
                bound = s.get(t, t)
                if bound is not t and type(bound) not in GROUND:
                    break
        else:
            return False
    stack: list = [term]
    seen: set | None = None  # made when a variable is met (most terms are ground)
    while stack:
        t = stack.pop()
        if t is v:
            return True
        kind = type(t)
        if kind in GROUND:
            continue
        if kind is tuple or kind is list:
            stack.extend(t)
        elif kind is TensorTerm:
            stack.extend((t.dtype, t.shape, t.wrapped))
        elif isvar(t):
            if seen is None:
                seen = set()
            elif t in seen:
                continue
            seen.add(t)
            bound = s.get(t, t)
            stack.append(bound if bound is not t else None)
        elif isinstance(t, TensorTerm):
            stack.extend((t.dtype, t.shape, t.wrapped))
        elif isinstance(t, tuple | list):
            stack.extend(t)
    return False


def unify_oc(u: Any, v: Any, s: dict) -> dict | bool:
    """``unify`` on a plain substitution that refuses cyclic bindings.

    Between a variable the solver made (:class:`~.terms.Fresh`) and another, the Fresh
    one is bound: a caller's variable stays the representative of its class, so kanren's
    stores that key constraints by it (``neq``'s, which compares variables by token)
    still find it after a signature ties it to the solver's variables.

    A named size (:class:`~.terms.Symbol`) is never bound: an unknown size met with it
    takes it; met with another named size or an int, the two are equal where the facts
    (:data:`~.terms.FACTS`) say so, differ where they say so (no unifier), and
    otherwise the equality is recorded as a condition (:data:`~.terms.ASSUMED`).

    Binding a variable and comparing two ground values of one class (two ints, two
    dtype names), the commonest cases when types are matched, are done here directly
    (the same result as ``unify``, without its dispatch, whose first call in a process
    orders every registered signature, and generators); shapes are unified size by
    size; any other pair goes through ``unify``."""
    if type(u) in VARS:
        u = walk(u, s)
    if type(v) in VARS:
        v = walk(v, s)
    if u is v:
        return s
    if type(u) is Symbol or type(v) is Symbol:
        return unify_rigid(u, v, s)
    if type(v) in VARS and (type(u) not in VARS or type(v) is Fresh is not type(u)):
        u, v = v, u  # a variable the solver made is bound, never the caller's to it
    if type(u) in VARS:
        kind = type(v)  # a variable here is unbound (walked) and not u: nothing to check
        if kind not in GROUND and kind not in VARS and (kind is not tuple or v) and \
                _occurs(u, v, s):
            return False
        out = s.copy()
        out[u] = v
        return out
    kind = type(u)
    if kind is type(v) and kind in GROUND:  # two sizes, two dtypes (names)
        return s if u == v else False
    if kind is tuple and type(v) is tuple:  # two shapes: size by size
        if len(u) != len(v):
            return False
        for a, b in zip(u, v, strict=True):
            s = unify_oc(a, b, s)
            if s is False:
                return False
        return s
    out = unify(u, v, s)
    if out is False or out is s:
        return out
    for key in out.keys() - s.keys():
        if key not in out:
            continue
        value = out[key]
        if type(key) is Symbol:  # unify bound a named size: a condition, not a binding
            del out[key]
            out = unify_rigid(key, value, out)
            if out is False:
                return False
        elif type(value) is Fresh and type(key) is not Fresh and value not in out:
            del out[key]  # the caller's variable stays the representative (see below)
            out[value] = key
        elif _occurs(key, value, out):
            return False
    return out


# -- the store ------------------------------------------------------------------------
class TypeStore(ConstraintStore):
    """The pending kantensor constraints of a state, and the logic variable standing for
    each named Dim of the types given to relations (so a Dim is one size everywhere)."""

    __slots__ = ("pending", "dims", "variables")
    op_str = "kantensor"

    def __init__(self, pending: tuple = (), dims: dict | None = None,
                 variables: dict | None = None):
        super().__init__({})
        self.pending = pending
        self.dims = {} if dims is None else dims
        #: the term of each graph Variable given to relations: one Variable is one term
        #: (its unknown sizes the same variables) wherever it is used (by identity)
        self.variables = {} if variables is None else variables

    def pre_unify_check(self, lvar_map: Any, lvar: Any = None, value: Any = None) -> bool:
        return True

    def post_unify_check(self, lvar_map: Any, lvar: Any = None, value: Any = None,
                         old_state: Any = None) -> bool:
        # kanren passes the new state as old_state; propagation may extend it in place.
        if old_state is None:
            return True
        return kept_rigid(old_state, lvar, value) and propagate(old_state)

    def copy(self) -> TypeStore:
        return TypeStore(self.pending, dict(self.dims), dict(self.variables))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeStore) and self.pending == other.pending \
            and self.dims == other.dims and self.variables == other.variables

    def __hash__(self) -> int:  # pragma: no cover - stores are not hashed by kanren
        return id(self)

    def constraints_str(self, lvar: Any) -> str:
        return f"kantensor: {len(self.pending)} pending"


# The judging at reification is switched on by importing kantensor.query (it imports .witness).
class TypeState(ConstrainedState):
    """The kanren state a relation's goal yields: kanren's ``ConstrainedState``, whose
    reification (kanren's ``run``) first judges the size equations still pending in it
    (:mod:`.witness`), since ``run`` shows no conditions."""


def fresh_state(S: Any) -> TypeState:
    """A copy of ``S`` as a :class:`TypeState` with a TypeStore (never ``S`` itself)."""
    if isinstance(S, ConstrainedState):
        S = copy_state(S)
    else:
        data = dict(S)
        S = TypeState.__new__(TypeState)
        S.data, S.constraints = data, {}
    if TypeStore not in S.constraints:
        S.constraints[TypeStore] = TypeStore()
    return S


def copy_state(S: ConstrainedState) -> TypeState:
    """``S.copy()`` as a :class:`TypeState`: its substitution and a copy of each store,
    made without ``UserDict``'s item-by-item ``update`` (the solver copies a state per
    alternative)."""
    new = TypeState.__new__(TypeState)
    new.data = S.data.copy()
    new.constraints = {k: v.copy() for k, v in S.constraints.items()}
    return new


def post(S: ConstrainedState, *constraints: Constraint) -> bool:
    """Add constraints to ``S`` (in place) and propagate; False if that fails."""
    store = S.constraints[TypeStore]
    store.pending = store.pending + constraints
    return propagate(S)


def propagate(S: ConstrainedState, changed: bool = False) -> bool:
    """Re-check the pending constraints of ``S`` (in place) until nothing changes, then
    re-check kanren's other stores if bindings were added (or ``changed``)."""
    store = S.constraints.get(TypeStore)
    s = S.data
    if store is not None and store.pending:
        pending = store.pending
        while True:
            progress = False
            kept: list[Constraint] = []
            others = Others(pending, 0, kept, {})  # one view per pass, moved along
            for i, c in enumerate(pending):
                others.start = i + 1
                out = c.check(s, others)
                if out is None:
                    fail_because(lambda c=c, s=s: c.explain(s))
                    return False
                if out[0] is not s:
                    s = out[0]
                    progress = True
                if not out[1]:
                    kept.append(c)
                if len(out) > 2 and out[2]:
                    kept.extend(out[2])
                    progress = True
            pending = tuple(kept)
            if not progress or not pending:  # no change, or nothing left to re-check
                break
        store.pending = pending
    if s is not S.data or changed:
        S.data = s
        for other in S.constraints.values():
            if other is not store and not other.post_unify_check(s, None, None, S):
                return False
    return True


# -- labeling -----------------------------------------------------------------------------
def labelo(*terms: Any, beyond: Callable[[Iterator[ConstrainedState]], None] | None = None
           ) -> Callable[[Any], Iterator[ConstrainedState]]:
    """The goal enumerating the choices still open for ``terms`` (all terms if none):
    dtypes, ranks, broadcast sizes, overload variants, wrapped flags. Sizes that stay
    unknown are not enumerated; they reify as symbolic Dims.

    A rank is enumerated up to the relation's ``max_rank``; where one more axis could
    fit, ``beyond`` (if given) receives a lazy iterator of the states past the bound."""

    def goal(S: Any) -> Iterator[ConstrainedState]:
        if not isinstance(S, ConstrainedState) or TypeStore not in S.constraints:
            yield S
            return
        stack = [S]
        while stack:
            st = stack.pop()
            options = _open_choices(st, terms)
            if not options:
                yield st
                continue
            branches = []
            for option in options:
                if isinstance(option, Beyond):
                    if beyond is not None:
                        beyond(_beyond_states(st, option))
                    continue
                new = _chosen(st, option)
                if new is not None and propagate(new, changed=True):
                    branches.append(new)
            stack.extend(reversed(branches))

    goal.labels = True  # (see relations_first)
    return goal


def relations_first(*goals: Callable[[Any], Iterator[Any]]) -> Callable[[Any], Iterator[Any]]:
    """kanren's ``lall(*goals)`` with the goals that only post constraints (kantensor's
    relations, marked ``posts_constraints``) first, the others after them in their own
    order, and :func:`labelo` last: the same answers (a conjunction of relations does not
    depend on order), found sooner, since the constraints prune every later choice. After
    six ``membero`` over 14 dtypes, a relation is asked once per ground combination that
    kanren's breadth-first search reaches, which takes seconds even for a plain Python
    predicate; moved first, it takes milliseconds."""
    def rank(goal: Any) -> int:
        return 0 if getattr(goal, "posts_constraints", False) else \
            2 if getattr(goal, "labels", False) else 1

    return lall(*sorted(goals, key=rank))


def _open_choices(S: ConstrainedState, terms: tuple) -> list[Choice] | None:
    s = S.data
    store = S.constraints[TypeStore]
    wanted = {id(v) for v in term_vars(terms, s)} if terms else None
    # the sizes of given types' Dims are symbols, not unknowns to enumerate
    rigid = frozenset(w for v in store.dims.values() if isvar(w := walk(v, s)))  # Symbols
    for c in store.pending:
        if wanted is not None and not any(id(v) in wanted for v in term_vars(c.terms(), s)):
            continue
        options = c.choices(s, rigid)
        if options:
            return options
    return None


class Beyond:
    """Choices past the rank bound (more than ``max_rank`` axes where more would fit):
    :func:`labelo` does not take them, it hands the states they lead to to its
    ``beyond`` callback, lazily, so a query can tell whether the bound cut answers."""

    __slots__ = ("choices",)

    def __init__(self, *choices: Choice):
        self.choices = choices


def _beyond_states(S: ConstrainedState, option: Beyond) -> Iterator[ConstrainedState]:
    """The states the choices of ``option`` lead to, where their constraints hold (run
    when read)."""
    for choice in option.choices:
        new = _chosen(S, choice)
        if new is not None and propagate(new, changed=True):
            yield new


def _chosen(S: ConstrainedState, choice: Choice) -> TypeState | None:
    """A copy of ``S`` with ``choice`` made (its substitution, and the constraints it
    posts, still to propagate); None where it fails or guesses nothing new (it would
    label forever)."""
    new = copy_state(S)
    s = choice(new.data)
    posted: tuple = ()
    if type(s) is tuple:
        s, posted = s
    if s is None or s is False or s is new.data:
        return None
    new.data = s
    if posted:
        store = new.constraints[TypeStore]
        store.pending = store.pending + posted
    return new


def bind_choices(v: Any, values: Any) -> list[Choice]:
    """One choice per value: bind ``v`` to it."""
    return [lambda s, x=x: unify_oc(v, x, s) or None for x in values]


def guess(terms: Any, s: dict, values: Any) -> list[Choice] | None:
    """Choices binding the first unbound variable of ``terms`` to each of ``values``;
    None when every term is bound."""
    v = first_unbound(terms, s)
    return None if v is None else bind_choices(v, values)


def first_unbound(terms: Any, s: dict) -> Any | None:
    """The first unbound variable among ``terms`` (walked), or None."""
    for t in terms:
        w = walk(t, s)
        if isvar(w):
            return w
    return None

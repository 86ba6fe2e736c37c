"""One answer of a query, read from a solver state: each of the user's logic variables
under its name (a dtype, a size, a shape or a type), the sizes the answer leaves unknown
named afresh, and the constraints between them that the values alone do not say
(:class:`Answer`). The anonymous variables :func:`~kantensor.query.pattern` makes for
what the user left open are never shown."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from kanren.constraints import ConstrainedState
from unification import isvar, var

from ..logic.answers import REFUTED, symbolic_values, where_text
from ..logic.kept import folded
from ..logic.store import TypeStore, facts_of
from ..logic.terms import ASSUMED, TensorTerm, prefix_of, term_vars, walk
from ..types.conditions import AnyOf, Clause, Condition
from ..types.dim import Dim
from ..types.dimfacts import solve_for
from ..types.facts import Facts
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType
from .opendtypes import OpenDType

#: The anonymous variables :func:`~kantensor.query.pattern` made for what the user left
#: open: they are the pattern's, not the user's, so answers never show them (identity by
#: object).
ANONYMOUS: weakref.WeakSet = weakref.WeakSet()


def anonymous() -> Any:
    """A fresh logic variable for what a pattern leaves open (in :data:`ANONYMOUS`)."""
    v = var()
    ANONYMOUS.add(v)
    return v


def user_vars(terms: Sequence[Any]) -> list[Any]:
    """The logic variables the user wrote, in order of appearance."""
    return [v for v in term_vars(list(terms), {}) if v not in ANONYMOUS]


def variable_names(user: Sequence[Any]) -> dict[Any, str]:
    """``{variable: name}``: how answers name the user's logic variables (their tokens,
    the names they were made with)."""
    return {v: str(v.token) for v in user}


class _Namer:
    """Fresh Dim names for sizes an answer leaves unknown (unique in the answer): a size
    the user named keeps that name, any other is ``n``, ``n1``, ..."""

    def __init__(self, taken: set[str], names: dict[Any, str], own: dict[Any, str]):
        """``taken``: names no fresh size may have; ``names``: the user's variables'
        names (taken too); ``own``: an unknown size a user variable stands for, and its
        name, which it keeps (where no given size has it)."""
        self.taken = taken | set(names.values())
        self.names = names
        self.own = {w: name for w, name in own.items() if name not in taken}

    def __call__(self, v: Any) -> Dim:
        if v in self.own:
            return Dim(self.own.pop(v))
        base = self.names.get(v) or prefix_of(v)
        base = base if base.isidentifier() else "n"
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return Dim(name)


def answer_in(user: list[Any], roles: set, S: ConstrainedState,
              names: dict[Any, str], ranges: dict[Any, frozenset[str]] | None = None
              ) -> Answer | None:
    """The answer in state ``S``: each user variable's value under its name in ``names``
    (``roles``: the variables that stand for one size); None where the constraints left
    hold at no named sizes. Each dtype of ``ranges`` (the query's terms' dtypes left
    open and the dtypes each ranges over, as :func:`~.opendtypes.settled_states` gives
    them with ``S``) is an :class:`~.opendtypes.OpenDType`, named after the user's
    variable where one stands for it, else ``T``, ``T1``, ..."""
    s = S.data
    store = S.constraints[TypeStore]
    named = {walk(v, s): dim for dim, v in reversed(list(store.dims.items()))
             if isvar(walk(v, s))}  # a given type's Dims first: they keep their names
    # every name a given size mentions is taken (``n`` of a size number ``n - 3`` too: a
    # fresh size named ``n`` would be that ``n``, a relation the answer does not have)
    taken = {x for d in store.dims for x in free_symbols(d) if isinstance(x, str)}
    # an unknown size a user variable stands for is named after it (named first), unless
    # the constraints define it (``s0 == 6*m``: s0 is 6*m, not s0 where s0 == 6*m)
    own: dict[Any, str] = {}
    for v in user:
        w = walk(v, s)
        if v in roles and isvar(w) and w not in named and names[v].isidentifier():
            own.setdefault(w, names[v])
    sizes = list(term_vars([*own, *size_positions(user, s), *roles], s))
    residual: list[Clause] = []
    namer = _Namer(taken, names, own)
    values = symbolic_values(sizes, s, store.pending, named, namer, residual)
    if REFUTED in residual:
        return None  # the constraints left hold at no named sizes: no answer
    dtypes = _open_dtypes(user, S, names, namer.taken, ranges or {})
    for a, b, _ in s.get(ASSUMED, ()):  # two named sizes (or one and an int) made equal
        if Condition(a, "==", b) not in residual:
            residual.append(Condition(a, "==", b))
    for dim, v in store.dims.items():  # a given type's Dim the relation gave a value
        w = walk(v, s)
        if dim.name is not None and (not isvar(w) or named.get(w, dim) != dim) and \
                (c := Condition(dim, "==", named[w] if isvar(w) else w)) not in residual:
            residual.append(c)

    # the answer holds only where its own conditions do: its sizes are written under
    # them too (``i + 0//j`` where ``j >= 1`` is ``i``: the kept divisor is nonzero there)
    residual = list(folded(residual, facts_of(s)))  # (and its conditions, as make_node's)
    facts, fixed = facts_of(s).with_(*residual), _fixed(residual)
    if not satisfiable(residual, facts):
        return None  # its conditions hold at no sizes: no answer (never one that cannot)

    def size(x: Any) -> Any:
        """A size in make_node's form: a named size its conditions fix to an int is that
        int (``broadcast_to{shape=(n, 3)}`` of ``float32[2,1]`` is ``float32[2,3]`` where
        ``2 - n == 0``, as make_node says), simplified under the facts (a slice ``x[1:n]``
        of ``float32[2]`` is ``min(1, n//2)`` there; the query said ``max(0, min(2, n) -
        1)``, the same at every n), and under the answer's own conditions (a divisor
        kept as ``0//j`` is 0 where they show ``j >= 1``)."""
        if type(x) is not Dim:
            return x
        return facts.simplify(substitute(x, fixed) if fixed else x)

    def value(term: Any, is_size: bool = False) -> Any:
        t = walk(term, s)
        if isvar(t):
            return size(values.get(t)) if is_size else dtypes.get(t)
        if type(t) is Dim:
            return size(t)
        if isinstance(t, TensorTerm):
            dtype, shape = walk(t.dtype, s), value(t.shape)
            if isinstance(dtype, str) and isinstance(shape, tuple) and \
                    all(x is not None for x in shape):
                return TensorType(dtype, shape)
            return TensorTerm(dtypes.get(dtype) if isvar(dtype) else dtype, shape,
                              walk(t.wrapped, s))
        if isinstance(t, tuple):
            return tuple(value(x, True) for x in t)
        return t

    try:
        return Answer({names[v]: value(v, v in roles) for v in user}, residual,
                      tuple(dtypes.values()))
    except ZeroDivisionError:  # (its conditions fix a divisor to 0: ``b % a`` where
        return None  # ``a == 0``, no value wherever the answer holds: no answer)


def satisfiable(where: Sequence[Clause], facts: Facts) -> bool:
    """False where the conditions ``where`` (``facts``: the solve's facts with them)
    hold at no sizes, as far as the facts show: they are inconsistent, refute one of
    them (:meth:`~kantensor.types.facts.Facts.decide`: ``a**2 == a + 20`` beside
    ``a == 1``), or a disjunction
    among them has no case that they allow (each case has a condition they refute:
    ``a == b or a == 1`` beside ``a != 1`` and ``a != b``, a later alternative's refusal
    of an earlier one beside its own broadcast); else True (kept, never dropped on a
    guess)."""
    if not facts.consistent():
        return False
    return all(any(facts.allows(case) and not any(facts.decide(x) is False for x in case)
                   for case in c.cases) if isinstance(c, AnyOf)
               else facts.decide(c) is not False for c in where)


def _open_dtypes(user: list[Any], S: ConstrainedState, names: dict[Any, str],
                 taken: set[str], ranges: dict[Any, frozenset[str]]) -> dict[Any, OpenDType]:
    """Each open dtype of ``ranges``, as an :class:`~.opendtypes.OpenDType` with its set:
    named after the user's variable that is it (``D`` of ``pattern(D, (3,))``), else
    ``T``, ``T1``, ... (no name the answer has)."""
    if not ranges:
        return {}
    s = S.data
    own: dict[Any, str] = {}
    for v in user:  # (two of the user's variables made one dtype: the first's name)
        if isvar(w := walk(v, s)):
            own.setdefault(w, names[v])
    taken = set(taken) | set(names.values())
    out = {}
    for v, dtypes in ranges.items():
        name = own.get(v)
        if name is None:
            name, k = "T", 1
            while name in taken:
                name, k = f"T{k}", k + 1
            taken.add(name)
        out[v] = OpenDType(name, dtypes)
    return out


def _fixed(where: Sequence[Clause]) -> dict[str, int]:
    """The named sizes an answer's equalities make ints (``2 - n == 0``: n is 2)."""
    out: dict[str, int] = {}
    for c in where:
        if isinstance(c, Condition) and c.op == "==":
            diff = c.left - c.right
            names = free_symbols(diff) if isinstance(diff, Dim) else set()
            if len(names) == 1 and all(isinstance(u, str) for u in names):
                value = solve_for(diff, next(iter(names)), 0)
                if type(value) is int and value >= 0:
                    out[next(iter(names))] = value
    return out


class Answer(dict):
    """One answer of a query: each user variable's value; ``where`` holds the
    constraints between its symbolic sizes that the values alone do not say
    (:class:`~kantensor.logic.answers.Condition`, such as ``m > 2``), so that
    ``X = float32[m]`` never claims every ``m``. Equal to a plain dict of the same
    values (``where`` aside)."""

    def __init__(self, values: dict[str, Any], where: Sequence[Condition] = (),
                 dtypes: Sequence[OpenDType] = ()):
        super().__init__(values)
        self.where = tuple(where)
        #: the dtypes the answer leaves open (:class:`~.opendtypes.OpenDType`), each
        #: with the set the relation lets it range over
        self.dtypes = tuple(dtypes)

    def where_text(self) -> str:
        """What has to hold besides the values, as one line: the sizes' constraints
        (``m > 2``), then the sets the open dtypes range over (``T != string``); empty
        where nothing does."""
        parts = [where_text(self.where)] if self.where else []
        return " and ".join(parts + self._dtype_clauses())

    def _dtype_clauses(self) -> list[str]:
        return [c for d in self.dtypes if (c := d.clause()) is not None]

    def __repr__(self) -> str:
        text = dict.__repr__(self)
        where = [*map(str, self.where), *self._dtype_clauses()]
        return f"Answer({text}, where={where!r})" if where else text


def size_positions(terms: list, s: dict) -> list:
    """Every size position of ``terms`` (walked), for naming unknown sizes."""
    out, stack = [], list(terms)
    while stack:
        t = walk(stack.pop(), s)
        if isinstance(t, TensorTerm):
            stack.append(t.shape)
        elif isinstance(t, tuple):
            out.extend(t)
    return out

"""Overloads: the compiled alternatives of a signature, and the constraint that an
alternative applies only where no earlier one accepts the inputs (as in ``make_node``)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..logic.broadcast import Broadcast
from ..logic.dims import Compare, Equation, Expr
from ..logic.rigid import assumed_of
from ..logic.store import (
    Beyond,
    Constraint,
    Progress,
    TypeStore,
    bind_choices,
    fresh_state,
    unify_oc,
)
from ..logic.terms import TensorTerm, fresh, isvar, term_vars, walk
from ..syntax.alternative import Overloads
from ..types.dim import Dim, unknown
from ..types.dtypes import DTYPES
from ..types.numpyrules import rules_key
from ..types.symbols import free_symbols, substitute
from .compile import CompiledAlternative, compile_alternative

__all__ = ["FirstMatch", "compiled"]


@lru_cache(maxsize=1024)
def compiled(sig: Overloads) -> tuple[CompiledAlternative, ...]:
    """The compiled alternatives of a signature, in order (compiled once)."""
    return tuple(compile_alternative(a) for a in sig.alternatives)


@dataclass(frozen=True, eq=False)
class FirstMatch(Constraint):
    """Alternative ``k`` applies only where no earlier alternative accepts the inputs, as
    in ``make_node``. Decided once every input's dtype, rank and wrapped flag is known:
    it holds if no earlier alternative accepts them whatever their unknown sizes are,
    fails if one accepts them with every size known; otherwise it waits for the sizes
    (a later ``eq`` may bind them) until labeling ``settled`` it. Then the unknown sizes
    are the answer's own (each of its instances is a type make_node is given), so it
    holds where each earlier alternative that accepts some sizes refuses them: it posts
    one way an earlier alternative refuses (:func:`refusals`; labeling tries each, with
    ``branch``) and waits again for the next one (``refuted`` holds those done). An
    alternative whose refusal it cannot state (see :func:`refusals`) is taken to accept
    the unknown sizes, as make_node does."""

    sig: Overloads
    k: int
    inputs: tuple
    max_rank: int
    settled: Any = None
    refuted: frozenset = frozenset()
    branch: Any = field(default_factory=lambda: fresh(prefix="branch"))

    def check(self, s: dict, pending: tuple) -> Progress:
        key = ground_key(self.inputs, s)
        if key is None:
            return s, False
        default = rules_key()
        earlier = [j for j in range(self.k) if j not in self.refuted
                   and _accepts(self.sig, j, key, default)]
        if not earlier:
            return s, True
        if self.settled is None or all(n is not None for _, sizes, _ in key for n in sizes):
            return None
        if isvar(walk(self.settled, s)):
            return s, False
        ways = refusals(self.sig, earlier[0], self.inputs, s)
        if not ways:  # it accepts every size, or its refusal cannot be said
            return None
        if len(ways) == 1 or not isvar(branch := walk(self.branch, s)):
            way = ways[0] if len(ways) == 1 else ways[branch]
            return s, True, [*way, FirstMatch(self.sig, self.k, self.inputs, self.max_rank,
                                              self.settled, self.refuted | {earlier[0]},
                                              fresh(prefix="branch"))]
        return s, False

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        for t in self.inputs:
            t = walk(t, s)
            if not isinstance(t, TensorTerm):
                continue
            for part, values in ((t.dtype, DTYPES), (t.wrapped, (False, True))):
                if isvar(walk(part, s)):
                    return bind_choices(walk(part, s), values)
            if isvar(walk(t.shape, s)):
                shape = walk(t.shape, s)
                options: list = [lambda st, n=n, shape=shape: unify_oc(shape, tuple(
                    fresh() for _ in range(n)), st) or None for n in range(self.max_rank + 2)]
                options[-1] = Beyond(options[-1])  # max_rank + 1 axes: past the bound
                return options
        if self.settled is not None and isvar(walk(self.settled, s)):
            return bind_choices(walk(self.settled, s), (True,))
        if isvar(walk(self.branch, s)):
            key = ground_key(self.inputs, s)
            earlier = [j for j in range(self.k) if j not in self.refuted and key is not None
                       and _accepts(self.sig, j, key, rules_key())]
            if earlier:
                ways = refusals(self.sig, earlier[0], self.inputs, s)
                if ways and len(ways) > 1:
                    return bind_choices(walk(self.branch, s), range(len(ways)))
        return None

    def terms(self) -> tuple:
        return self.inputs

    def explain(self, s: dict) -> str:
        return "an earlier alternative of the signature applies to these inputs"


def ground_key(inputs: tuple, s: dict) -> tuple | None:
    """``((dtype, sizes, wrapped), ...)`` of the inputs with unknown sizes as None, or
    None while a dtype, rank or wrapped flag is unknown."""
    key = []
    for t in inputs:
        t = walk(t, s)
        if not isinstance(t, TensorTerm):
            return None
        dtype, shape, wrapped = walk(t.dtype, s), walk(t.shape, s), walk(t.wrapped, s)
        if isvar(dtype) or isvar(wrapped) or not isinstance(shape, tuple):
            return None
        key.append((dtype, tuple(d if isinstance(d := walk(x, s), int) else None
                                 for x in shape), wrapped))
    return tuple(key)


@lru_cache(maxsize=65536)
def _accepts(sig: Overloads, j: int, key: tuple, default_dtype: str) -> bool:
    """Does alternative ``j`` of ``sig`` accept inputs ``key`` (see ground_key)?"""
    c = compiled(sig)[j]
    if c.n_in != len(key):
        return False
    S = fresh_state({})
    terms = [TensorTerm(d, tuple(fresh() if n is None else n for n in sizes), w)
             for d, sizes, w in key]
    return not c.refuses(terms, S.data) and c.apply(S, terms, [fresh() for _ in c.alt.outputs])


#: The comparison that holds exactly where one does not.
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
#: A negated bound ``n <= c`` on one size is enumerated when it leaves at most this many
#: values (``n in 0..c``), else kept as a constraint.
MAX_VALUES = 8


@dataclass(frozen=True)
class _Condition:
    """Something an alternative needs of the inputs' unknown sizes: ``holds`` posts it,
    each entry of ``fails`` one way it fails (a tuple of constraints)."""

    holds: tuple
    fails: tuple


def refusals(sig: Overloads, j: int, inputs: tuple, s: dict) -> list[tuple] | None:
    """The ways alternative ``j`` of ``sig`` refuses ``inputs`` (dtypes, ranks and
    wrapped flags known; the unknown sizes as they are in ``s``), each as the size
    constraints to post; the ways are disjoint (way i: the first i conditions of ``j``
    hold and the next fails). ``[()]``: it refuses them whatever the sizes; ``[]``: it
    accepts every size. None when a condition is not one it can negate exactly (a
    broadcast whose result is an input's size, a size constraint over the
    alternative's own unknowns, a dtype or axis constraint left open)."""
    c = compiled(sig)[j]
    terms, sizes = [], []
    for t in inputs:
        t = walk(t, s)
        shape = tuple(walk(x, s) for x in walk(t.shape, s))
        sizes += [x for x in shape if isvar(x) and x not in sizes]
        terms.append(TensorTerm(walk(t.dtype, s), shape, walk(t.wrapped, s)))
    S = fresh_state({})
    if c.refuses(terms, S.data) or not c.apply(S, terms, [fresh() for _ in c.alt.outputs]):
        return [()]
    conditions = _conditions(S.data, S.constraints[TypeStore].pending, sizes)
    if conditions is None:
        return None
    ways: list[tuple] = []
    for i, condition in enumerate(conditions):
        before = tuple(x for other in conditions[:i] for x in other.holds)
        ways += [before + way for way in condition.fails]
    return ways


def _conditions(s: dict, pending: tuple, sizes: list) -> list[_Condition] | None:
    """What an alternative applied in ``s`` (with ``pending`` left) needs of ``sizes``,
    the inputs' unknown sizes (see :func:`refusals`)."""
    rep: dict[Any, Any] = {}  # a variable of s -> the input size it stands for
    # the equalities of named sizes (with each other, or with ints) it needed: the
    # alternative refuses where one fails (``(n),(n)->(n)`` on ``[a],[b]``: ``a != b``)
    out = [_compare(_named(x), "==", _named(y)) for x, y in assumed_of(s)]
    for v in sizes:
        w = walk(v, s)
        if not isvar(w):
            out.append(_compare(Expr(v), "==", Expr(w)))
        elif w in rep:
            out.append(_compare(Expr(rep[w]), "==", Expr(v)))
        else:
            rep[w] = v
    defined = {}
    for c in pending:  # an equation defining one of the alternative's own sizes
        if isinstance(c, Equation) and c.left.env is None and isvar(v := walk(c.left.node, s)) \
                and v not in rep:
            defined[v] = c
    for c in pending:
        if isinstance(c, Equation) and c in defined.values():
            continue
        if isinstance(c, Equation | Compare):
            sides = [_over(x, s, rep, defined) for x in (c.left, c.right)]
            if None in sides:
                return None
            out.append(_compare(*sides[:1], "==" if isinstance(c, Equation) else c.op,
                                sides[1]))
        elif isinstance(c, Broadcast) and (
                isvar(o := walk(c.out, s)) and o not in rep and
                not any(o in term_vars(d.terms(), s) for d in pending if d is not c)
                or type(o) is int and o != 1 and o in [walk(x, s) for x in c.sizes]):
            # (a result that is one of the sizes, an int other than 1, is theirs wherever
            # they broadcast: ``3`` beside an input's unknown size)
            values = [walk(x, s) for x in c.sizes]
            if any(isvar(x) and x not in rep for x in values):
                return None
            out.append(_broadcastable([rep.get(x, x) if isvar(x) else x for x in values]))
        else:
            return None
    return out


def _named(x: Any) -> Expr:
    """A named size's Dim, or an int, as an expression of no logic variable."""
    return Expr(x) if isinstance(x, int) else Expr(x, {})


def _over(e: Expr, s: dict, rep: dict, defined: dict) -> Expr | None:
    """``e`` over the inputs' sizes (the alternative's own sizes replaced by what
    defines them), or None if it needs a size of the alternative's own."""
    try:
        value = e.value(s)
        for _ in range(len(defined) + 1):
            own = [u for u in free_symbols(value) if not isinstance(u, str) and u not in rep] \
                if not isinstance(value, int) else []  # (a str: a named size, rigid)
            if not own:
                break
            if any(u not in defined for u in own):
                return None
            value = substitute(value, {u: defined[u].right.value(s) for u in own})
    except ZeroDivisionError:
        return None
    if isinstance(value, int):
        return Expr(value)
    keys = [u for u in free_symbols(value) if not isinstance(u, str)]
    if any(u not in rep for u in keys):
        return None
    return Expr(value, {u: rep[u] for u in keys})  # named sizes stay themselves


def _compare(left: Expr, op: str, right: Expr) -> _Condition:
    """The condition ``left op right``: it fails where the negated comparison holds (a
    bound on one size that leaves a few values: each value)."""
    holds = Equation(left, right, f"{left} == {right}", "where-clause") if op == "==" \
        else Compare(op, left, right, f"{left} {op} {right}")
    negated = _NEGATED[op]
    for size, bound, o in ((left, right, negated), (right, left, _FLIPPED[negated])):
        if o in ("<", "<=") and isinstance(bound.node, int) and bound.env is None and \
                not (size.env is None and isinstance(size.node, int)) and _lone(size):
            top = bound.node - (o == "<")
            if top < MAX_VALUES:
                return _Condition((holds,), tuple(
                    (Equation(size, Expr(n), f"{size} == {n}", "where-clause"),)
                    for n in range(top + 1)))
    return _Condition((holds,), ((Compare(negated, left, right, f"{left} {negated} {right}"),),))


#: ``a op b`` is ``b flipped[op] a``.
_FLIPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _lone(e: Expr) -> bool:
    """Is ``e`` a single size (not an expression of several)?"""
    if e.env is None:
        return True
    if not isinstance(e.node, Dim) or len(e.env) > 1:
        return False
    if not e.env:  # a named size alone
        return e.node.name is not None
    (key,) = e.env
    return e.node == (Dim(key) if isinstance(key, str) else unknown(key))


def _broadcastable(values: list) -> _Condition:
    """The sizes ``values`` (ints, or the inputs' size variables) broadcast: it fails
    where two of them differ and neither is 1."""
    ways = []
    for a, b in itertools.combinations(values, 2):
        if 1 in (a, b) or (not isvar(a) and not isvar(b)):
            continue  # never a clash, or one broadcasting has decided already
        way = tuple(Compare("!=", Expr(x), Expr(1), "!= 1") for x in (a, b) if isvar(x))
        ways.append((*way, Compare("!=", Expr(a), Expr(b), "differ")))
    return _Condition((Broadcast(tuple(values), fresh()),), tuple(ways))

"""One node's relation, run on the sizes the graph knows now.

A unit of refinement (:mod:`.units`) is a node of the graph, a SpecifyShape or a type
the user requires (``given``). :func:`run` states the unit's operands as kanren terms,
runs the relation with :func:`~kantensor.signature.solve.solutions` and reads off what
every solution agrees on: a size, or that two sizes are one, or a size as an
expression of others. Runs are memoized on the operands written with canonical
symbols, so the 100,000 nodes of a chain of additions cost one solve.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from kanren.constraints import ConstrainedState
from unification import isvar

from ..logic.answers import symbolic_values
from ..logic.dims import Equation, Expr
from ..logic.store import TypeStore, explaining, fresh_state, labelo, post, propagate, unify_oc
from ..logic.terms import TensorTerm, fresh, walk
from ..signature.signature import Signature
from ..signature.solve import solutions
from ..types.dim import Dim, DimLike, unknown
from ..types.numpyrules import pin_rules, rules_key, unpin_rules
from ..types.symbols import free_symbols, substitute
from .sizes import Hole, symbol_dim
from .units import UNIFY, Unify, Unit

__all__ = ["cases", "run", "run_sizes", "why_not"]

#: Most cases :func:`cases` lists for one unit (more: the unit is not split).
MAX_CASES = 8


# -- canonical operands ---------------------------------------------------------------
class _HoleSlot:
    """The i-th unknown of a canonical run (identity by object, interned by index)."""

    __slots__ = ("index", "dim")

    def __init__(self, index: int) -> None:
        self.index = index
        self.dim = unknown(self)

    def __repr__(self) -> str:
        return f"?{self.index}"


class _Slots(dict):
    """The slots by index (``_HOLE_SLOTS[i]``: the i-th unknown of every canonical run),
    each made when first asked for: the one home of a slot's number."""

    def __missing__(self, i: int) -> _HoleSlot:
        slot = self[i] = _HoleSlot(i)
        return slot


_HOLE_SLOTS = _Slots()


def _canonical(operands: Sequence[tuple[str, bool, tuple]]) -> tuple[tuple, list]:
    """The operands with their symbols renamed in order of appearance (named Dims to
    ``d0, d1, ...``, unknowns to slot unknowns), and the symbols in that order."""
    names: dict[Hashable, Any] = {}
    order: list[Hashable] = []
    out = []
    for dtype, wrapped, entries in operands:
        canon = []
        for e in entries:
            if isinstance(e, int):
                canon.append(e)
            elif not isinstance(e, Dim):  # a lone unknown: a Hole (or another key)
                slot = names.get(e)
                if slot is None:
                    slot = names[e] = _HOLE_SLOTS[len(order)].dim
                    order.append(e)
                canon.append(slot)
            elif e.name is not None:  # a lone named Dim
                slot = names.get(e.name)
                if slot is None:
                    slot = names[e.name] = Dim(f"d{len(order)}")
                    order.append(e.name)
                canon.append(slot)
            else:
                for sym in sorted(free_symbols(e), key=_symbol_order):
                    if sym not in names:
                        names[sym] = Dim(f"d{len(order)}") if isinstance(sym, str) \
                            else _HOLE_SLOTS[len(order)].dim
                        order.append(sym)
                canon.append(substitute(e, names))
        out.append((dtype, wrapped, tuple(canon)))
    return tuple(out), order


def _symbol_order(sym: Hashable) -> tuple:
    return (0, sym) if isinstance(sym, str) else (1, id(sym))


# -- one run --------------------------------------------------------------------------
def _slotted(sizes: tuple, slots: dict) -> tuple | None:
    """``sizes`` with each lone Hole written as its slot (numbered in order of first
    appearance over the calls that share ``slots``, which it extends), or None where a
    named Dim or an expression is among them (renamed in general: :func:`_canonical`)."""
    canon = []
    for e in sizes:
        if type(e) is int:
            canon.append(e)
        elif type(e) is Hole:
            slot = slots.get(e)
            if slot is None:
                slot = slots[e] = _HOLE_SLOTS[len(slots)]
            canon.append(slot)
        else:
            return None
    return tuple(canon)


def run(unit: Unit, operands: Sequence[tuple[str, bool, tuple]],
        default_dtype: str | None = None) -> dict[Hashable, Any] | None:
    """What every solution of ``unit``'s relation on ``operands`` agrees on, as
    ``{symbol: entry}`` over the operands' own symbols; None when there is no solution.
    (``default_dtype``: :func:`~kantensor.types.numpyrules.rules_key`, when the caller read it.)"""
    default_dtype = default_dtype or unit.rules or rules_key()
    slots: dict = {}  # each lone hole's slot, in order of appearance
    plain = []
    for operand in operands:
        entries = operand[2]
        for e in entries:
            if type(e) is not int:
                break
        else:
            plain.append(operand)
            continue
        canon = _slotted(entries, slots)
        if canon is None:  # a named Dim, an expression: renamed in general
            canon, order = _canonical(operands)
            found = _solve(unit.relation, unit.n_inputs, canon, default_dtype)
            return None if found is None else _back(found, order)
        plain.append((operand[0], operand[1], canon))
    if not slots:  # sizes all ints: the operands are their own canonical form
        found = _solve(unit.relation, unit.n_inputs, tuple(plain), default_dtype)
        return None if found is None else {}
    # ints and lone holes: the canonical form keyed by the slots themselves (hashed by
    # object, where _canonical's form hashes a Dim per hole), the same facts as _solve's
    found = _solve_slots(unit.relation, unit.n_inputs, tuple(plain), default_dtype)
    return None if found is None else _back(found, list(slots))


def run_sizes(unit: Unit, entries: Sequence[tuple], default_dtype: str
              ) -> dict[Hashable, Any] | None:
    """:func:`run` of a node's unit on its operands' sizes ``entries`` (one tuple per
    operand, in order; their dtypes and wrapped flags are the unit's Operands'), the
    canonical run memoized in ``unit.memo``, which the units of one Op on operands of
    the same types share: ints and lone holes, the usual sizes, need no kanren terms, no
    solver memo key (the relation, hashed in Python) and no renaming back but a hole
    per slot; a named Dim or an expression runs :func:`run`."""
    memo = unit.memo
    key = [default_dtype]
    slots: dict = {}  # each lone hole's slot, in order of appearance
    for sizes in entries:
        for e in sizes:
            if type(e) is not int:
                break
        else:
            key.append(sizes)  # (sizes all ints: their own canonical form)
            continue
        canon = _slotted(sizes, slots)
        if canon is None:  # a named Dim, an expression: renamed in general
            return run(unit, [(*kind, sizes) for kind, sizes in
                              zip(unit.kinds, entries, strict=True)], default_dtype)
        key.append(canon)
    key = tuple(key)
    found = memo.get(key, memo)
    if found is memo:  # (a miss: the solver's memo, as run asks it)
        plain = tuple((*kind, canon) for kind, canon in zip(unit.kinds, key[1:], strict=True))
        found = memo[key] = _solve_slots(unit.relation, unit.n_inputs, plain, default_dtype) \
            if slots else _solve(unit.relation, unit.n_inputs, plain, default_dtype)
    if found is None:
        return None
    if not slots:
        return {}
    order = list(slots)
    out = {}
    for (_, i), value in found:
        if type(value) is not int:
            return _back(found, order)
        out[order[i]] = value
    return out


def cases(unit: Unit, operands: Sequence[tuple[str, bool, tuple]]) -> list[dict] | None:
    """The finitely many ways ``unit``'s relation can hold on ``operands`` once its open
    choices are labelled (a broadcast size is 1 or the result, a floor division leaves a
    few values): each case as :func:`run` gives facts, over the operands' symbols. None
    when the choices are not finite and few (at most :data:`MAX_CASES`)."""
    if unit.relation is UNIFY:
        return None
    canon, order = _canonical(operands)
    found = _cases(unit.relation, unit.n_inputs, canon, unit.rules or rules_key())
    if found is None:
        return None
    return [_back(facts, order) for facts in found]


@lru_cache(maxsize=16384)
def _cases(relation: Any, n_inputs: int, canon: tuple, default_dtype: str
           ) -> tuple[tuple, ...] | None:
    token = pin_rules(default_dtype)  # (the rules it is keyed by: the node's)
    try:
        states, symvar = _states(relation, n_inputs, canon)
        keys = [v for v in symvar.values()]
        out: dict[tuple, None] = {}
        steps = 0
        for S in states:
            for T in labelo(*keys)(S):
                steps += 1
                facts = tuple(sorted(_facts(T, symvar).items(), key=lambda kv: kv[0][1]))
                out[facts] = None
                if len(out) > MAX_CASES or steps > 16 * MAX_CASES:
                    return None
    finally:
        unpin_rules(token)
    return tuple(out)


def _back(found: tuple, order: list) -> dict[Hashable, Any]:
    """Canonical facts over the operands' own symbols (see :func:`run`)."""
    out = {}
    back = None
    for (_, i), value in found:
        if isinstance(value, tuple):  # the same size as another symbol
            other = order[value[1]]
            value = other if isinstance(other, Hole) else symbol_dim(other)
        elif not isinstance(value, int):
            if back is None:
                back = {(f"d{j}" if isinstance(sym, str) else _HOLE_SLOTS[j]): symbol_dim(sym)
                        for j, sym in enumerate(order)}
            value = substitute(value, back)
        out[order[i]] = value
    return out


def why_not(unit: Unit, operands: Sequence[tuple[str, bool, tuple]]) -> str:
    """Why ``unit``'s relation has no solution on ``operands``, in the solver's words."""
    if unit.relation is UNIFY:
        return _mismatch(operands)
    canon, _ = _canonical(operands)
    token = pin_rules(unit.rules or rules_key())  # (the rules it failed under)
    try:
        with explaining() as reasons:
            found = list(_states(unit.relation, unit.n_inputs, canon)[0])
    finally:
        unpin_rules(token)
    if found:  # pragma: no cover - asked only after a failure
        return "no solution"
    return reasons[0] if reasons else "the sizes do not fit its signature"


def _mismatch(operands: Sequence[tuple[str, bool, tuple]]) -> str:
    """Where two operands that must be one type differ."""
    (_, _, have), (_, _, want) = operands
    for axis, (a, b) in enumerate(zip(have, want, strict=True)):
        if isinstance(a, int) and isinstance(b, int) and a != b:
            return f"axis {axis} is {a}, not {b}"
    return "their sizes cannot be equal"


@lru_cache(maxsize=65536)
def _solve_slots(relation: Signature | Unify, n_inputs: int, plain: tuple, default_dtype: str
                 ) -> tuple | None:
    """:func:`_solve` of operands whose unknowns are slots (``_HoleSlot``), not their Dims."""
    canon = tuple((dtype, wrapped, tuple(e if type(e) is int else e.dim for e in entries))
                  for dtype, wrapped, entries in plain)
    return _solve(relation, n_inputs, canon, default_dtype)


@lru_cache(maxsize=65536)
def _solve(relation: Signature | Unify, n_inputs: int, canon: tuple, default_dtype: str
           ) -> tuple | None:
    """The agreed facts of a canonical run: ``(((kind, index), value), ...)``, kind 0
    for a named Dim and 1 for an unknown, solved under the rules ``default_dtype`` keys
    (:func:`~kantensor.types.numpyrules.rules_key`: a node's own, see ``Unit.rules``)."""
    token = pin_rules(default_dtype)
    try:
        states, symvar = _states(relation, n_inputs, canon)
        agreed: dict | None = None
        for S in states:
            facts = _facts(S, symvar)
            agreed = facts if agreed is None else {
                k: v for k, v in agreed.items() if k in facts and facts[k] == v}
    finally:
        unpin_rules(token)
    if agreed is None:
        return None
    return tuple(sorted(agreed.items(), key=lambda kv: kv[0][1]))


def _states(relation: Signature | Unify, n_inputs: int, canon: tuple
            ) -> tuple[Iterator[ConstrainedState], dict]:
    S = fresh_state({})
    symvar: dict[tuple, Any] = {}
    terms, equations = [], []
    for dtype, wrapped, entries in canon:
        sizes = []
        for e in entries:
            if isinstance(e, int):
                sizes.append(e)
                continue
            env = {}
            for sym in free_symbols(e):
                key = (0, int(sym[1:])) if isinstance(sym, str) else (1, sym.index)
                env[sym] = symvar.setdefault(key, fresh())
            (sym,) = env if len(env) == 1 else (None,)
            if sym is not None and e == (Dim(sym) if isinstance(sym, str) else sym.dim):
                sizes.append(next(iter(env.values())))
            else:
                v = fresh()
                equations.append(Equation(Expr(v), Expr(e, env), str(e), "size"))
                sizes.append(v)
        terms.append(TensorTerm(dtype, tuple(sizes), wrapped))
    if equations and not post(S, *equations):
        return iter(()), symvar
    if relation is UNIFY:
        return _unified(S, terms), symvar
    return (S2 for S2, _ in solutions(relation, S, terms[:n_inputs], terms[n_inputs:])), symvar


def _unified(S: ConstrainedState, terms: list) -> Iterator[ConstrainedState]:
    s = unify_oc(terms[0], terms[1], S.data)
    if s is not False:
        S.data = s
        if propagate(S, changed=True):
            yield S


def _facts(S: ConstrainedState, symvar: dict) -> dict:
    """What state ``S`` says of the canonical symbols: ints, equalities (to the first
    symbol of a group, named Dims first) and values as expressions of other symbols."""
    s = S.data
    facts: dict[tuple, DimLike] = {}
    groups: dict[Any, list[tuple]] = {}
    for key, v in symvar.items():
        w = walk(v, s)
        if isvar(w):
            groups.setdefault(w, []).append(key)
        else:
            facts[key] = w
    rep_of: dict[Any, tuple] = {}
    for w, keys in groups.items():
        keys.sort()  # (0, i) before (1, j): a named Dim is the better name
        rep_of[w] = rep = keys[0]
        for other in keys[1:]:
            facts[other] = rep
    named = {w: _key_dim(rep) for w, rep in rep_of.items() if rep[0] == 0}
    open_vars = [w for w, rep in rep_of.items() if rep[0] == 1]
    values = symbolic_values(open_vars, s, S.constraints[TypeStore].pending, named)
    for w, value in values.items():
        rename = {}
        for sym in free_symbols(value):
            if isinstance(sym, str):
                continue
            if sym not in rep_of:
                break  # a size of the signature's own, not of the operands
            rename[sym] = _key_dim(rep_of[sym])
        else:
            value = substitute(value, rename) if rename else value
            rep = rep_of[w]
            if value != _key_dim(rep) and _key_symbol(rep) not in free_symbols(value):
                facts[rep] = value
    return facts


def _key_dim(key: tuple) -> Dim:
    return Dim(f"d{key[1]}") if key[0] == 0 else _HOLE_SLOTS[key[1]].dim


def _key_symbol(key: tuple) -> Hashable:
    return f"d{key[1]}" if key[0] == 0 else _HOLE_SLOTS[key[1]]

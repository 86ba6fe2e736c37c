"""A conjunction of conditions over several sizes, solved into cells.

A :class:`Cell` is a box of sizes: each free size's :class:`~.sizeset.SizeSet`, the
sizes that others define (``K == N``; ``D == 2*n``), and the conditions over several
sizes that no box states (``H <= W``), kept as they are. :func:`solve` turns a
conjunction into a list of cells whose union is exactly its solutions:

1. an equality that gives a size by others (``a*s + rest == 0`` with ``s`` nowhere else
   in it) defines ``s`` (with ``-rest`` a multiple of ``a`` and the value ``>= 0``), and
   ``s`` is replaced everywhere;
2. a condition over one size is solved exactly (:mod:`.univariate`);
3. an equality of a product of factors over disjoint sizes with an int
   (``N*((H + 13)//32 - 1)*((W + 13)//32 - 1) == 36``, a Reshape against a weight) is
   split into the ways the int factors into values of each factor, each a cell; a
   product divisible by an int (``(D*N) % 6 == 0``) into the ways the int splits into
   divisors of each factor (``N % 2 == 0 and D % 3 == 0``, ...), cells that may overlap;
4. what is left stays in the cell (``rest``): then its sets hold what is necessary,
   not what is sufficient (:attr:`Cell.exact` is False).

Sizes the caller calls *hidden* (data-dependent sizes, not inputs) are eliminated by
step 1 where an equality gives them; a condition still naming one is kept apart
(``hidden``), as it cannot be stated over the inputs, and so is such a definition: that
some value of the hidden size meets the conditions is necessary, not sufficient.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from ..conditions import Condition
from ..dim import Dim, DimLike, atom_dim, unknown
from ..divisors import int_divisors
from ..facts import Facts
from ..poly import Opaque
from ..productsign import decided, factors
from ..symbols import free_symbols, substitute
from .evaluate import condition_holds, evaluator
from .sizeset import ALL, Inexpressible, SizeSet
from .univariate import solve as solve_one

__all__ = ["MAX_CELLS", "Cell", "by_factors", "dim_of", "solve"]

#: The most cells one conjunction is split into (past it: the split is not made).
MAX_CELLS: Final = 4096
#: The most values a factor is tried at when a product is split.
_MAX_DIVISORS: Final = 512


def dim_of(symbol: Hashable) -> Dim:
    """The Dim of a size: a named Dim, or the unknown of a key."""
    return Dim(symbol) if isinstance(symbol, str) else unknown(symbol)


@dataclass(frozen=True)
class Cell:
    """A box of sizes (see the module's doc): ``sets`` of the free sizes (a size not in
    it may be any size), ``defined`` sizes as expressions of the free ones, ``rest``
    (conditions over several sizes, over the free ones) and ``hidden`` (conditions
    naming sizes that are not inputs). ``covered`` is False for a cell where an
    overload's choice fails (:attr:`~.atoms.Atom.chosen`): its points are only not
    excluded, since the graph's types are not the ones that apply there."""

    sets: Mapping[Hashable, SizeSet]
    defined: Mapping[Hashable, DimLike] = field(default_factory=dict)
    rest: tuple[Condition, ...] = ()
    hidden: tuple[Condition, ...] = ()
    covered: bool = True

    @property
    def exact(self) -> bool:
        """Whether its sets and definitions are its points exactly (and valid)."""
        return self.covered and not self.rest and not self.hidden

    def set_of(self, symbol: Hashable) -> SizeSet:
        return self.sets.get(symbol, ALL)

    def values(self, point: Mapping[Hashable, int]) -> dict[Hashable, int]:
        """The free sizes of ``point`` with the defined ones computed; a size defined by
        sizes ``point`` gives no value (hidden ones: one unknown size equal to another)
        is left out."""
        out = dict(point)
        for s, e in self.defined.items():
            if free_symbols(e) <= out.keys():
                out[s] = evaluator(e)(out)
        return out

    def contains(self, point: Mapping[Hashable, int]) -> bool:
        """Whether ``point`` (every size) is in the cell, its ``rest`` included."""
        for s, v in point.items():
            if s in self.defined:
                if evaluator(self.defined[s])(point) != v:
                    return False
            elif v not in self.set_of(s):
                return False
        return all(condition_holds(c, point) for c in self.rest)


# -- solving -----------------------------------------------------------------------------
class _Work:
    """The state of one branch of the search."""

    def __init__(self, conditions: list[Condition], sets: dict, defined: dict):
        self.conditions = conditions
        self.sets = sets
        self.defined = defined


def solve(conditions: Sequence[Condition], order: Sequence[Hashable] = (),
          hidden: Iterable[Hashable] = (), split: bool = True) -> list[Cell] | None:
    """The cells whose union is the solutions of ``conditions`` (see the module's doc);
    ``order`` lists the sizes, those to keep first (a later one is defined by an earlier
    one); ``hidden`` are sizes that are not inputs; ``split`` False keeps products
    unsplit (in ``rest``). None when the cells would be more than :data:`MAX_CELLS`."""
    rank = {s: i for i, s in enumerate(order)}
    hide = frozenset(hidden)
    out: list[Cell] = []
    stack = [_Work(list(conditions), {}, {})]
    while stack:
        work = stack.pop()
        step = _step(work, rank, hide, split)
        if step is None:
            continue  # no sizes
        if isinstance(step, Cell):
            out.append(step)
        else:
            stack.extend(reversed(step))
        if len(out) + len(stack) > MAX_CELLS:
            return None
    return out


def _key(symbol: Hashable, rank: Mapping, hide: frozenset) -> tuple:
    """Which size an equality defines (the greatest): hidden sizes first, then the last
    inputs."""
    return (symbol in hide, rank.get(symbol, len(rank)), str(symbol))


def _step(work: _Work, rank: Mapping, hide: frozenset, split: bool = True
          ) -> Cell | list[_Work] | None:
    """Solve ``work`` as far as it goes: a Cell, the branches of a product split, or None
    where no sizes meet it."""
    conds = _substituted(work, rank, hide)
    if conds is None:
        return None
    sets = dict(work.sets)
    multi: list[Condition] = []
    for c in conds:
        syms = c.symbols()
        if len(syms) == 1:
            (s,) = syms
            if s not in hide:
                solved = solve_one(*c.key, s)
                if solved is not None:
                    try:
                        sets[s] = sets.get(s, ALL) & solved
                    except Inexpressible:
                        multi.append(c)
                        continue
                    if not sets[s]:
                        return None
                    continue
        multi.append(c)
    rest, hidden_rest = [], []
    for c in multi:
        verdict = _decided(c, sets)
        if verdict is False:
            return None
        if verdict is True:
            continue
        if split and c.op == "==" and not (c.symbols() & hide):
            branches = _product_split(c, sets, conds)
            if branches is None:
                branches = _congruence_split(c)
            if branches is not None:
                return [_Work([*(x for x in conds if x is not c), *case], sets,
                              dict(work.defined)) for case in branches]
        (hidden_rest if c.symbols() & hide else rest).append(c)
    # a hidden size an equality defined: that some value of it meets the conditions is
    # necessary, not sufficient (its value is the data's, or a size no input names)
    hidden_rest += [Condition(dim_of(s), "==", e) for s, e in work.defined.items()
                    if s in hide]
    return Cell(sets, dict(work.defined), tuple(rest), tuple(hidden_rest))


def _substituted(work: _Work, rank: Mapping, hide: frozenset) -> list[Condition] | None:
    """The conditions with every size an equality defines replaced (the definitions
    recorded in ``work``); None if one is false."""
    conds = list(work.conditions)
    defined = work.defined
    while True:
        found = None
        for c in conds:
            if c.op == "==":
                found = _definition(c, rank, hide, work.sets)
                if found is not None:
                    break
        if found is None:
            break
        c, s, value, needs = found
        if s in work.sets:  # a size solved before: its value (an int) must be in its set
            if value not in work.sets.pop(s):
                return None
        mapping = {s: value}
        try:
            defined.update({t: substitute(e, mapping) for t, e in defined.items()})
            conds = [x.substitute(mapping) for x in conds if x is not c] + needs
        except ZeroDivisionError:  # a condition divides by a size that is 0 there:
            return None  # false, as condition_holds takes it (``x % (B*C)`` at B = 0)
        defined[s] = value
    out = []
    for c in conds:
        d, op = c.key
        if isinstance(d, int):
            if not condition_holds(c, {}):
                return None
            continue
        out.append(c)
    return out


def _definition(c: Condition, rank: Mapping, hide: frozenset, sets: Mapping
                ) -> tuple[Condition, Hashable, DimLike, list[Condition]] | None:
    """``(c, s, value, needs)`` where ``c`` says ``s == value`` (under the conditions
    ``needs``: that the value is a size, and an int), for the size ``s`` to define (one
    with a set already only by an int); None if ``c`` defines none."""
    d = c.key[0]
    if isinstance(d, int):
        return None
    inside: set = set()
    linear: dict[Hashable, int] = {}
    for mono, coeff in d._terms:
        for a, p in mono:
            if isinstance(a, Opaque):
                inside |= free_symbols(atom_dim(a))
            elif len(mono) == 1 and p == 1:
                linear[a] = linear.get(a, 0) + coeff
            else:
                inside.add(a)
    candidates = [s for s in linear if s not in inside and sum(
        1 for mono, _ in d._terms if any(a == s for a, _ in mono)) == 1 and (
        s not in sets or free_symbols(d) == {s})]
    if not candidates:
        return None
    s = max(candidates, key=lambda t: _key(t, rank, hide))
    a = linear[s]
    rest = d - a * dim_of(s)  # a*s + rest == 0
    num = -rest if a > 0 else rest
    k = abs(a)
    needs = [Condition(num, ">=", 0, c.source)]
    if k > 1:
        needs.append(Condition(num % k, "==", 0, c.source))
        value: DimLike = num // k
    else:
        value = num
    needs = [x for x in needs if not isinstance(x.key[0], int) or not condition_holds(x, {})]
    if any(isinstance(x.key[0], int) for x in needs):
        needs = [Condition(0, "==", 1, c.source)]  # an int value that is no size
    return c, s, value, needs


def _decided(c: Condition, sets: Mapping[Hashable, SizeSet]) -> bool | None:
    """What the bounds of the sets decide of a condition over several sizes."""
    facts = []
    for s in c.symbols():
        known = sets.get(s)
        if known is None:
            continue
        v = dim_of(s)
        if known.min:
            facts.append(Condition(v, ">=", known.min))
        if known.max is not None:
            facts.append(Condition(v, "<=", known.max))
    store = Facts(facts)
    found = store.decide(c)
    return by_factors(c, store) if found is None and facts else found


def by_factors(c: Condition, store: Facts) -> bool | None:
    """``c`` on a product of factors over disjoint sizes (:func:`factors`) decided by
    each factor's bounds under ``store``, a factor's own min, max or product bounded by
    its parts (:mod:`..productsign`); None: no such product, or the bounds leave it
    open."""
    return decided(c.key[0], c.key[1], store.bounds)


def _product_split(c: Condition, sets: Mapping[Hashable, SizeSet],
                   conds: Sequence[Condition]) -> list[list[Condition]] | None:
    """The branches of ``product == int``: one per way the int is a product of values
    of the factors (each branch: every factor equal to its value), or None when ``c`` is
    not such a product or the ways are too many."""
    split = factors(c.key[0])
    if split is None:
        return None
    k, fs, const = split  # k*product + const == 0
    if -const % k:
        return []  # no product of ints is the value it needs
    target = -const // k
    if target == 0:
        return [[Condition(f, "==", 0, c.source)] for f in fs]
    divisors = int_divisors(target)
    if len(divisors) * 2 > _MAX_DIVISORS:
        return None
    options = []
    for f in fs:
        vals = []
        for v in [*divisors, *(-x for x in divisors)]:
            if _possible(f, v, sets):
                vals.append(v)
        options.append(vals)
    branches = []
    for values in itertools.product(*options):
        if math.prod(values) == target:
            branches.append([Condition(f, "==", v, c.source) for f, v in zip(fs, values,
                                                                               strict=True)])
            if len(branches) > MAX_CELLS:
                return None
    return branches


def _congruence_split(c: Condition) -> list[list[Condition]] | None:
    """The branches of ``(k0*f1*f2*...) % k == 0`` (a Reshape's volume divisible by its
    known sizes), factors over disjoint sizes: ``k' = k / gcd(k, k0)`` divides the product
    exactly where ``k' = a1*a2*...`` with each ``a_i`` dividing ``f_i`` (take ``a1`` the
    gcd of ``f1`` and ``k'``, and so on), one branch per such split; None when ``c`` is
    no such congruence."""
    d = c.key[0]
    if isinstance(d, int) or len(d._terms) != 1:
        return None
    (mono, coeff), = d._terms
    if len(mono) != 1 or mono[0][1] != 1:
        return None
    atom = mono[0][0]
    if not isinstance(atom, Opaque) or atom.op != "%" or not isinstance(atom.args[1], int):
        return None
    split = factors(atom.args[0])
    if split is None or split[2] != 0:
        return None
    k0, fs, _ = split
    k = atom.args[1] // math.gcd(atom.args[1], k0)
    divisors = int_divisors(k)
    if len(divisors) ** len(fs) > _MAX_DIVISORS:
        return None
    branches = []
    for values in itertools.product(divisors, repeat=len(fs)):
        if math.prod(values) == k:
            branches.append([Condition(f % a, "==", 0, c.source)
                             for f, a in zip(fs, values, strict=True) if a > 1])
    return branches


def _possible(f: DimLike, v: int, sets: Mapping[Hashable, SizeSet]) -> bool:
    """Whether the factor ``f`` can be ``v`` (False only when shown impossible)."""
    syms = free_symbols(f)
    if len(syms) != 1:
        return True
    (s,) = syms
    solved = solve_one(*Condition(f, "==", v).key, s)
    if solved is None:
        return True
    try:
        return bool(solved & sets.get(s, ALL))
    except Inexpressible:
        return True

"""Deciding the sign of size expressions: linear integer reasoning over canonical
polynomials (:mod:`kantensor.types.poly`).

Every symbol and unknown is a size, so an integer ``>= 0``. An expression is made linear
by naming its non-linear parts: a floor quotient ``x//k`` by an int is a variable ``q``
with ``k*q <= x <= k*q + k - 1``; ``x % k`` is ``x - k*q``; an exact quotient ``x/k`` is
a ``q`` with ``x == k*q``; ``min``/``max`` are split into cases (each argument the least,
or greatest, in turn) or, past :data:`MAX_CASES`, bounded on one side; a product of
atoms or a quotient by a size is a variable bounded by interval arithmetic, and by the
facts where they show its numerator ``>= 0`` (``(K + N - 1)//K`` under ``K >= 1``);
``k*(x//k)`` is ``x - x % k`` and, the other way, ``x - x % k`` divided by ``k`` is
``x//k`` and leaves 0 (all undefined at ``k == 0``). :func:`proves` then refutes the
negated goal with Fourier–Motzkin elimination (:mod:`.intelim`), rounding each derived
inequality to integers (``2*t <= 1`` is ``t <= 0``), within :data:`MAX_INEQUALITIES`.
The answer is sound: ``True`` only when the goal holds at every integer point of the
facts; otherwise it is not proven (never guessed).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable
from functools import lru_cache
from typing import Any, Final

from . import monotone
from .intelim import MAX_INEQUALITIES, Linear, add, infeasible, scale
from .intervals import interval, mul_interval, nonnegative, nonnegative_atom, power_interval
from .onesize import over_one_size
from .poly import Opaque

__all__ = ["MAX_CASES", "MAX_INEQUALITIES", "MAX_QUESTION_TERMS", "Linear", "bounds",
           "conditions_terms", "order", "proves", "terms_of"]

#: The most combinations of min/max cases a proof splits into (then bounded one-sided).
MAX_CASES: Final = 64
#: The most terms the sides of a question may have in all (past it: not proven, at once).
MAX_QUESTION_TERMS: Final = 64

#: A goal or a fact: ``(form, op)`` with op ``">="`` (form >= 0) or ``"=="`` (form == 0).
Relation = tuple[Linear, str]


def _terms(x: Any) -> tuple | int:
    """The canonical terms of a size (an int is a constant)."""
    return x if isinstance(x, int) else x._terms


def terms_of(sides: Iterable[Any]) -> int:
    """How many terms the sizes ``sides`` have in all: what :func:`proves` and
    :func:`bounds` weigh against :data:`MAX_QUESTION_TERMS`."""
    return sum(len(_terms(x)) for x in sides if not isinstance(x, int))


def conditions_terms(conditions: Iterable[Any]) -> int:
    """:func:`terms_of` the triples ``(d, op, 0)`` of ``conditions`` but ``!=``'s (as a
    set of facts holds them), counted without making them."""
    return sum([len(d._terms) for d in [c.key[0] for c in conditions if c.op != "!="]
                if type(d) is not int])


class _System:
    """The linear constraints of one case: what its atoms mean, and the facts."""

    def __init__(self, choice: dict[Opaque, int]):
        self.choice = choice  # min/max atom -> the argument taken as least/greatest
        self.forms: dict[Any, Linear] = {}
        self.ineqs: list[Linear] = []  # form >= 0
        self.eqs: list[Linear] = []  # form == 0
        self._aux = itertools.count()
        self.signless: list[tuple[Opaque, Linear]] = []  # (see settle)
        self.unsigned: list[tuple[Opaque, Linear]] = []  # (a numerator's sign: settle)

    def form(self, x: Any) -> Linear:
        """The linear form of a canonical size (int, or anything with ``_terms``)."""
        terms = _terms(x)
        if isinstance(terms, int):
            return {}, terms
        total: Linear = ({}, 0)
        for mono, c in terms:
            if not mono:
                total = add(total, ({}, c))
            elif len(mono) == 1 and mono[0][1] == 1:
                total = add(total, self.atom(mono[0][0]), c)
            else:
                total = add(total, self.product(mono), c)
        return total

    def _variable(self, key: Any, low: int | None = 0, high: int | None = None) -> Linear:
        form = self.forms.get(key)
        if form is None:
            form = self.forms[key] = ({key: 1}, 0)
            if low is not None:
                self.ineqs.append(({key: 1}, -low))
            if high is not None:
                self.ineqs.append(({key: -1}, high))
        return form

    def atom(self, a: Hashable) -> Linear:
        form = self.forms.get(a)
        if form is not None:
            return form
        if not isinstance(a, Opaque):  # a symbol or an unknown: a size
            return self._variable(a)
        op, args = a.op, a.args
        if op in ("min", "max"):
            form = self._extreme(a)
        elif op in ("//", "%", "/") and type(args[1]) is int and args[1] > 0:
            x, k = self.form(args[0]), args[1]
            q = ({("q", a): 1}, 0)
            if op == "/":
                self.eqs.append(add(x, q, -k))
            else:
                self.ineqs.append(add(x, q, -k))  # x - k*q >= 0
                self.ineqs.append(add(scale(add(x, q, -k), -1), ({}, k - 1)))
            form = q if op != "%" else add(x, q, -k)
        elif (chunks := _chunks(a)) is not None:  # c*(y % k) - c*y is -c*k*(y//k)
            y, c = chunks
            form = ({}, 0) if op == "%" else scale(self.form(y // a.args[1]), -c)
        else:  # a quotient or remainder by a size: bounded only
            form = self._by_size(a)
        self.forms[a] = form
        return form

    def _extreme(self, a: Opaque) -> Linear:
        args = [self.form(g) for g in a.args]
        i = self.choice.get(a)
        if i is not None:  # this case: argument i is the least (min) or greatest (max)
            for j, other in enumerate(args):
                if j != i:
                    diff = add(other, args[i], -1)  # other - chosen
                    self.ineqs.append(diff if a.op == "min" else scale(diff, -1))
            return args[i]
        m = ({("m", a): 1}, 0)  # one-sided: m <= every argument (min), >= (max)
        if nonnegative_atom(a):  # (and >= 0 where its arguments are: min(300, u) == 0
            self.ineqs.append(m)  # fails only as min(300, u) >= 1, not as < 0)
        for g in args:
            diff = add(g, m, -1)
            self.ineqs.append(diff if a.op == "min" else scale(diff, -1))
        return m

    def _by_size(self, a: Opaque) -> Linear:
        v = ({("d", a): 1}, 0)
        if nonnegative(a.args[1]):
            self._positive(a, v)
        else:  # (built as it is, ONNX's Mod by -D: of Python's sign; see settle)
            self.signless.append((a, v))
        return v

    def settle(self) -> None:
        """Bound the quotients and remainders by a divisor of no known sign where one
        constraint alone says its sign (a traced case's ``N - K >= 1`` for ``4//(N - K)``;
        ``-D <= 0`` of ``N % (-D)``, whose remainder is ``<= 0``): called once the facts
        are in."""
        while self.signless:
            a, v = self.signless.pop()
            den = self.form(a.args[1])
            if self._implied(den, 1):
                self._positive(a, v)
            elif a.op == "%" and self._implied(scale(den, -1), 0):
                self.ineqs.append(scale(v, -1))  # den + 1 <= r <= 0
                self.ineqs.append(add(add(v, den, -1), ({}, -1)))
        while self.unsigned:  # a numerator the facts show >= 0 (K + N - 1 under K >= 1)
            a, v = self.unsigned.pop()
            num = self.form(a.args[0])
            if infeasible([*self.ineqs, add(scale(num, -1), ({}, -1))], self.eqs) is True:
                self.ineqs += [add(num, v, -1)] + ([v] if a.op == "//" else [])

    def _implied(self, form: Linear, low: int) -> bool:
        """Whether one constraint (or the form's structure) says ``form >= low``."""
        coeffs, c0 = form
        if not coeffs:
            return c0 >= low
        return any(co == coeffs and c <= c0 - low for co, c in self.ineqs) or any(
            co == coeffs and c == c0 - low for co, c in self.eqs)

    def _positive(self, a: Opaque, v: Linear) -> None:
        """The bounds of ``a``, a quotient or remainder by a divisor ``>= 1``."""
        num, den = a.args
        nonneg = nonnegative(num)
        if a.op == "%":  # 0 <= r <= den - 1 and, for num >= 0, r <= num
            self.ineqs.append(v)
            self.ineqs.append(add(add(self.form(den), v, -1), ({}, -1)))
            if nonneg:
                self.ineqs.append(add(self.form(num), v, -1))
            else:
                self.unsigned.append((a, v))
        elif nonneg:  # num >= 0 divided by a size >= 1: 0 <= q <= num
            self.ineqs.append(v)
            self.ineqs.append(add(self.form(num), v, -1))
        elif (high := interval(num)[1]) is not None and high <= 0:  # num <= 0 by a size
            self.ineqs.append(add(v, self.form(num), -1))  # >= 1: num <= q <= 0 (or -1)
            self.ineqs.append(({("d", a): -1}, -1 if high < 0 else 0))
        else:
            self.unsigned.append((a, v))

    def product(self, mono: tuple) -> Linear:
        form = self.forms.get(mono)
        if form is not None:
            return form
        q = _times_divisor(mono)
        if q is not None:  # k*(x//k) is x - x % k (both undefined at k == 0)
            x, k = q.args
            return self._remember(mono, add(self.form(x), self.form(x % k), -1))
        low, high = 1, 1
        for atom, p in mono:
            lo, hi = self._interval(atom)
            lo, hi = power_interval(lo, hi, p)
            low, high = mul_interval(low, high, lo, hi)
        return self._remember(mono, self._variable(("p", mono), low, high))

    def _remember(self, key: Any, form: Linear) -> Linear:
        self.forms[key] = form
        return form

    def _interval(self, atom: Hashable) -> tuple[int | None, int | None]:
        """Bounds of an atom from its own structure (sizes >= 0)."""
        if not isinstance(atom, Opaque):
            return 0, None
        return (0, None) if nonnegative_atom(atom) else (None, None)

    def relation(self, left: Any, op: str, right: Any) -> list[Relation] | None:
        """``left op right`` as relations over this system's variables (None: ``!=``,
        which is no conjunction of them)."""
        d = add(self.form(left), self.form(right), -1)
        if op == "==":
            return [(d, "==")]
        if op == ">=":
            return [(d, ">=")]
        if op == ">":
            return [(add(d, ({}, -1)), ">=")]
        if op == "<=":
            return [(scale(d, -1), ">=")]
        if op == "<":
            return [(add(scale(d, -1), ({}, -1)), ">=")]
        return None


# -- the entry point ----------------------------------------------------------------------
def _extremes(xs: Iterable[Any]) -> list[Opaque]:
    """The min/max atoms of sizes ``xs`` (inside other atoms too), each once, in order."""
    found: dict[Opaque, None] = {}
    stack = list(xs)
    while stack:
        x = stack.pop()
        terms = _terms(x)
        if isinstance(terms, int):
            continue
        for mono, _ in terms:
            for atom, _ in mono:
                if isinstance(atom, Opaque):
                    if atom.op in ("min", "max"):
                        found.setdefault(atom)
                    stack.extend(atom.args)
    return list(found)


def _cases(extremes: list[Opaque]) -> Iterable[dict[Opaque, int]]:
    sizes = [len(a.args) for a in extremes]
    if math.prod(sizes) > MAX_CASES:
        yield {}  # too many: every min/max bounded on one side (weaker, still sound)
        return
    for pick in itertools.product(*(range(n) for n in sizes)):
        yield dict(zip(extremes, pick, strict=True))


@lru_cache(maxsize=1 << 14)
def proves(facts: tuple[tuple[Any, str, Any], ...], goal: tuple[Any, str, Any]) -> bool:
    """Whether ``goal`` (``(left, op, right)``, op one of ``== >= > <= <``) holds at every
    point where all ``facts`` (the same triples; ``!=`` facts are not used) hold and every
    size is ``>= 0``. True only when proven."""
    left, op, right = goal
    sides = [x for f in facts for x in (f[0], f[2])] + [left, right]
    if terms_of(sides) > MAX_QUESTION_TERMS:
        return _lumped(facts, goal, sides)  # (else too large to reason about cheaply)
    found = over_one_size(facts, goal)
    if found is None:  # facts of one symbol each, monotone: at the corners of their box
        found = monotone.proves(facts, goal)
    if found is not None:
        return found
    if facts and monotone.proves(facts, goal, partial=True):
        return True  # (over the box of fewer facts: proven, wherever all of them hold)
    return _eliminates(facts, goal, sides)


def _eliminates(facts: tuple, goal: tuple, sides: list) -> bool:
    """:func:`proves` by Fourier–Motzkin elimination, case by case of the min/max."""
    left, op, right = goal
    for choice in _cases(_extremes(sides)):
        system = _System(choice)
        negations = _negated(system, left, op, right)
        if negations is None:
            return False
        for fact in facts:
            rel = system.relation(*fact)
            for form, kind in rel or ():
                (system.eqs if kind == "==" else system.ineqs).append(form)
        system.settle()
        for negation in negations:  # every way the goal fails must be impossible
            ineqs = system.ineqs + [negation]
            if not infeasible(ineqs, system.eqs):
                return False
    return True


class _Lumped:
    """A size with some of its terms lumped into one (see :func:`_lumped`): what
    :class:`_System` reads of a size, its terms."""

    __slots__ = ("_terms",)

    def __init__(self, terms: tuple) -> None:
        self._terms = terms


def _lumped(facts: tuple, goal: tuple, sides: list) -> bool:
    """:func:`proves` of a question too large for it, its repeated sums each made one
    size: terms ``>= 0`` that occur in the same sides with one coefficient a side (the
    ``min(300, NonZero_i)`` of a hundred classes summed, in a fact ``If <= M`` and in a
    question ``M >= 1 or min(300, If) == 0``) are one size ``s >= 0``. That loses only
    what ties ``s`` to its terms: a proof over it holds of every value of the sum. The
    facts that share no size with the goal or a sum, not even through others, are left out
    (a proof from fewer facts holds where all do). False (not proven) where the question
    stays too large."""
    where: dict[tuple, list] = {}  # a term's monomial -> [(side, its coefficient)]
    for i, x in enumerate(sides):
        if not isinstance(x, int):
            for mono, c in x._terms:
                if mono:
                    where.setdefault(mono, []).append((i, c))
    blocks: dict[tuple, list] = {}
    for mono, at in where.items():
        if all(nonnegative_atom(a) or p > 0 and p % 2 == 0 for a, p in mono):
            blocks.setdefault(tuple(at), []).append(mono)
    lump: dict[tuple, Any] = {}  # monomial -> its block's one size
    for k, monos in enumerate(blocks.values()):
        if len(monos) > 1:
            for mono in monos:
                lump[mono] = ((("lumped", k), 1),)
    if not lump:
        return False

    def lumped(x: Any) -> Any:
        if isinstance(x, int):
            return x
        kept: dict[tuple, int] = {}
        for mono, c in x._terms:
            key = lump.get(mono, mono)
            if key is mono or key not in kept:
                kept[key] = c  # (one coefficient a side: the block's once)
        return _Lumped(tuple(kept.items()))

    facts = tuple((lumped(a), op, lumped(b)) for a, op, b in facts)
    goal = (lumped(goal[0]), goal[1], lumped(goal[2]))
    facts = _linked(facts, goal, {m[0][0] for m in lump.values()})
    sides = [x for f in facts for x in (f[0], f[2])] + [goal[0], goal[2]]
    if terms_of(sides) > MAX_QUESTION_TERMS:
        return False
    return _eliminates(facts, goal, sides)


def _names(x: Any) -> set:
    """The atoms of a size, and of its atoms' arguments."""
    found: set = set()
    stack = [x]
    while stack:
        terms = _terms(stack.pop())
        if isinstance(terms, int):
            continue
        for mono, _ in terms:
            for atom, _ in mono:
                if atom not in found:
                    found.add(atom)
                    if isinstance(atom, Opaque):
                        stack.extend(atom.args)
    return found


def _linked(facts: tuple, goal: tuple, seeds: set) -> tuple:
    """The facts that share an atom with the goal or ``seeds``, or with a fact that
    does, and so on (a goal ``0 >= 1``, whether the facts meet, names none)."""
    named = [_names(f[0]) | _names(f[2]) for f in facts]
    seen = _names(goal[0]) | _names(goal[2]) | seeds
    kept: set[int] = set()
    grew = True
    while grew:
        grew = False
        for i, names in enumerate(named):
            if i not in kept and not names.isdisjoint(seen):
                kept.add(i)
                seen |= names
                grew = True
    return tuple(f for i, f in enumerate(facts) if i in kept)


def order(diff: Any) -> int | None:
    """The sign of ``diff`` (``x - y``) at every size: 1 if ``>= 0``, -1 if ``<= 0``, 0 if it
    is 0, None if none is proven: by its structure (:func:`~.intervals.interval`), and by
    :func:`proves` when it holds a floor, remainder or min/max."""
    if isinstance(diff, int):
        return (diff > 0) - (diff < 0)
    lo, hi = interval(diff)
    if lo is not None and lo >= 0:
        return 1
    if hi is not None and hi <= 0:
        return -1
    if any(isinstance(a, Opaque) for m, _ in diff._terms for a, _ in m):
        if proves((), (diff, ">=", 0)):
            return 1
        if proves((), (diff, "<=", 0)):
            return -1
    return None


def _negated(system: _System, left: Any, op: str, right: Any) -> list[Linear] | None:
    """The ways ``left op right`` fails, each one ``form >= 0``."""
    d = add(system.form(left), system.form(right), -1)
    below = add(scale(d, -1), ({}, -1))  # d <= -1
    above = add(d, ({}, -1))  # d >= 1
    return {"==": [below, above], ">=": [below], ">": [scale(d, -1)], "<=": [above],
            "<": [d]}.get(op)


@lru_cache(maxsize=1 << 14)  # (a simplification asks it again of each atom it meets)
def bounds(facts: tuple[tuple[Any, str, Any], ...], x: Any) -> tuple[int | None, int | None]:
    """The least and greatest value of ``x`` where every fact holds and every size is
    ``>= 0``, as far as elimination shows (None: unbounded, or not shown); in a case
    that cannot happen, nothing. ``(1, 0)``: no point meets the facts."""
    sides = [y for f in facts for y in (f[0], f[2])] + [x]
    if terms_of(sides) > MAX_QUESTION_TERMS:
        return None, None
    found = monotone.bounds(facts, x)
    if found is not None:
        return found
    low: int | None = None
    high: int | None = None
    first, seen = True, False
    for choice in _cases(_extremes(sides)):
        system = _System(choice)
        target = ("bound",)
        system.eqs.append(add(system.form(x), ({target: 1}, 0), -1))
        for fact in facts:
            for form, kind in system.relation(*fact) or ():
                (system.eqs if kind == "==" else system.ineqs).append(form)
        system.settle()
        left = infeasible(system.ineqs, system.eqs, keep=target)
        if left is True:
            continue  # this case cannot happen
        seen = True
        lo, hi = (None, None) if left is False else _read_bounds(left, target)
        low = lo if first else (None if lo is None or low is None else min(low, lo))
        high = hi if first else (None if hi is None or high is None else max(high, hi))
        first = False
    return (low, high) if seen else (1, 0)


def _read_bounds(system: dict[tuple, int], target: Any) -> tuple[int | None, int | None]:
    lo: int | None = None
    hi: int | None = None
    for items, const in system.items():
        if len(items) != 1:
            continue
        (v, a), = items
        if v != target:
            continue
        if a > 0:  # a*t + c >= 0: t >= ceil(-c/a)
            b = -(const // a)
            lo = b if lo is None else max(lo, b)
        else:  # t <= floor(c/-a)
            b = const // -a
            hi = b if hi is None else min(hi, b)
    return lo, hi


def _times_divisor(mono: tuple) -> Opaque | None:
    """The quotient ``x//k`` of a product ``k*(x//k)`` of a size ``k`` (one atom) and a
    quotient by it, if ``mono`` is one."""
    if len(mono) != 2 or mono[0][1] != 1 or mono[1][1] != 1:
        return None
    for (q, _), (k, _) in (mono, mono[::-1]):
        if isinstance(q, Opaque) and q.op == "//" and not isinstance(q.args[1], int) and \
                q.args[1]._terms == ((((k, 1),), 1),):
            return q
    return None


def _chunks(a: Opaque) -> tuple[Any, int] | None:
    """``(y, c)`` if ``a`` divides ``c*(y % k) - c*y`` by ``k`` (``N - N % K``, ``N + (-N) %
    K``: ``-c*k*(y//k)``, both undefined at ``k == 0``) for ``c`` 1 or -1, else None."""
    num, k = a.args
    if isinstance(num, int) or isinstance(k, int):
        return None
    for mono, c in num._terms:
        r = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 and c in (1, -1) else None
        if isinstance(r, Opaque) and r.op == "%" and not isinstance(r.args[0], int) and \
                not isinstance(r.args[1], int) and r.args[1]._terms == k._terms and \
                (r.args[0] * -c)._terms == tuple(t for t in num._terms if t[0] is not mono):
            return r.args[0], c
    return None

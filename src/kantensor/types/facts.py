"""Size facts: what is known of sizes, the one store every front end decides and
simplifies size expressions with.

Every size is an integer ``>= 0``. A :class:`Facts` is a conjunction of conditions
(:class:`~kantensor.types.conditions.Condition`) taken to hold beside that. It decides
conditions (:meth:`Facts.decide`: True, False, or None when the facts neither imply it
nor its negation — never guessed), bounds expressions (:meth:`Facts.bounds`), simplifies
them (:meth:`Facts.simplify`: ``max(0, seq)`` is ``seq``; ``min(64, seq)`` is ``seq``
under ``seq <= 64``; ``2*(h//2)`` is ``h`` under ``h % 2 == 0``) and reduces a build's
conditions to the few and plain ones the facts leave (:meth:`Facts.reduce`). The
reasoning is :mod:`kantensor.types.prove`'s.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable
from typing import Any, Final

from . import factbox, factparts
from .boxorder import ordered
from .canon import canonical_form
from .conditions import COMPARE, NEGATED, Clause, Condition, conjunction
from .dim import Dim, DimLike, as_dim
from .factsatoms import by_size, nonzero, size_divisors
from .factsform import under_facts
from .factsproducts import nonlinear, product_bounds
from .factsreduce import reduced
from .productsign import decided as by_factors
from .prove import MAX_QUESTION_TERMS, conditions_terms, proves, terms_of
from .prove import bounds as _bounds
from .quotientbound import upper
from .readback import has_opaque
from .stated import GENERAL as _GENERAL
from .stated import implied, lower_bounds, rising, rising_facts
from .stated import unfacted as _unfacted
from .symbols import free_symbols

__all__ = ["EMPTY", "Facts", "simplify"]

#: Most answers of :meth:`Facts.about` one Facts keeps.
MAX_ABOUT: Final = 256


class Facts:
    """A conjunction of conditions taken to hold (beside: every size is ``>= 0``).
    Immutable and hashable; adding conditions gives a new Facts."""

    __slots__ = ("atoms", "_triples", "_hash", "_symbols", "_about", "_lows", "_rising",
                 "_box", "_grew", "_parts", "_weight")

    def __init__(self, atoms: Iterable[Condition] = ()):
        atoms = frozenset(atoms)
        self.atoms = atoms
        self._triples: tuple | None = None  # made on first use (see triples)
        self._hash = hash(atoms)
        self._symbols: dict | None = None  # symbol -> [(atom, its symbols)]: see about()
        self._about: dict | None = None  # about()'s answers, by the symbols asked of
        self._lows: dict | None = None  # what each fact says of its own terms (see states)
        self._rising: bool | None = None  # see unbounded
        self._box: tuple | None = None  # the prover's box of the facts (see .factbox)
        self._parts: Any = None  # its parts sharing no symbol, or pending (see about)
        self._weight: int | None = None  # its triples' terms in all (see oversized, _grown)
        self._grew: tuple | None = None  # the conditions with_ last added, and what the
        # set it made knew of its atoms' least values, trend and box (see _grown): the
        # atoms' keys' alone, so the same for equal conditions of other sources

    @property
    def triples(self) -> tuple:
        """The atoms as the prover's ``(left, op, right)`` triples, in one order for one
        set (the proofs' memo keys on it). Made on first use, not in ``__init__``: an
        unpickled Facts is made before the nodes its atoms name are filled in."""
        if self._triples is None:
            found = [c.triple() for c in self.atoms if c.op != "!="]
            if len(found) > 1:
                found.sort(key=str)
            self._triples = tuple(found)
        return self._triples

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Facts) and self.atoms == other.atoms)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        # rebuilt from its atoms: a pickle may hash a Facts (a dict key, a set member)
        # before slot state would be restored, and the hash is derived state
        return (Facts, (tuple(self.atoms),))

    def __bool__(self) -> bool:
        return bool(self.atoms)

    def __len__(self) -> int:
        return len(self.atoms)

    def __iter__(self):
        return iter(self.atoms)

    def __repr__(self) -> str:
        return "Facts(" + ", ".join(sorted(map(str, self.atoms))) + ")"

    def with_(self, *clauses: Clause) -> Facts:
        """These facts and the conditions ``clauses`` surely make true (see
        :func:`conjunction`)."""
        new = conjunction(clauses)
        if not new or all(c in self.atoms for c in new):
            return self
        added = frozenset(new)
        last = self._grew
        if last is not None and last[0] == added:
            # (the same conditions again, other sources: a build's kept conditions, its
            # node's and the model's note of them, each grown from one set of facts)
            return self._grown(Facts(self.atoms | added), new, last[1:])
        grown = self._grown(Facts(self.atoms | added), new)
        self._grew = added, grown._lows, grown._rising, grown._box, grown._weight, \
            grown._parts
        return grown

    def union(self, other: Facts) -> Facts:
        if other is self or not other.atoms or other.atoms <= self.atoms:
            return self
        if self.atoms <= other.atoms:
            return other
        return self._grown(Facts(self.atoms | other.atoms), other.atoms - self.atoms)

    def _grown(self, grown: Facts, new: Iterable[Condition], known: tuple | None = None
               ) -> Facts:
        """``grown`` (these facts and ``new``) with what these facts know of their atoms'
        least values, trends and parts carried over and added to by ``new`` (a model's
        facts grow by a node's conditions at a time: each set walked every atom again).
        ``known``: the least values, trend, box, prover weight and parts of a set of the
        same atoms grown from these facts (they are the atoms' keys' alone: equal
        conditions of other sources say the same; a part is made of symbols and counts)."""
        lows, rising_, box, weight, parts = known or (None,) * 5
        if rising_ is None and self._rising is not None:
            rising_ = self._rising and rising_facts(new)
        if lows is None and self._lows is not None:
            lows = dict(self._lows)
            for v, low in lower_bounds(new).items():
                if v not in lows or lows[v] < low:
                    lows[v] = low
        # (parts pending or made: joined alike, see .factparts)
        grown._rising, grown._lows, grown._box, grown._weight, grown._parts = \
            rising_, lows, box, weight, parts
        if (self._box is not None and box is None) or (
                self._parts is not None and parts is None) or (
                self._weight is not None and weight is None):
            added = [c for c in new if c not in self.atoms]
            if len(added) > 1:
                added = list(dict.fromkeys(added))  # (the first of equal ones: the set's)
            if self._weight is not None and weight is None:  # (its new atoms' terms
                grown._weight = self._weight + conditions_terms(added)  # added: oversized)
            if self._box is not None and box is None:
                grown._box = factbox.grown(self._box, [c.triple() for c in added])
            if self._parts is not None and parts is None:
                grown._parts = factparts.grown(self._parts, added)
        return grown

    def about(self, symbols: Iterable[Hashable]) -> Facts:
        """The facts that mention one of ``symbols`` (and, transitively, the facts those
        facts' other symbols are in): what a question over ``symbols`` can use. Kept per
        set of symbols (an importer asks it of every node, mostly of the same sizes)."""
        if not self.atoms:
            return EMPTY
        wanted = frozenset(symbols)
        if not wanted:
            return EMPTY
        found = self._about.get(wanted) if self._about is not None else None
        if found is None:
            parts = self._parts
            if parts is None:  # (made whole, then carried over as the set grows)
                parts = self._parts = factparts.joined(factparts.NO_PARTS, self.atoms)
            elif type(parts) is not tuple:
                parts = self._parts = factparts.made(parts)
            found = self if factparts.hold_all(parts, wanted, len(self.atoms)) else \
                self._connected(wanted)  # (every fact: no walk)
            if self._about is None:
                self._about = {}
            if len(self._about) < MAX_ABOUT:
                self._about[wanted] = found
        return found

    def _connected(self, symbols: frozenset) -> Facts:
        """The atoms reached from ``symbols`` through the symbols they share: by a walk
        over the symbols (each atom's listed under each of its symbols, made once)."""
        by_symbol = self._symbols
        if by_symbol is None:
            by_symbol = {}
            for c in self.atoms:
                named = c.symbols()
                for u in named:
                    by_symbol.setdefault(u, []).append((c, named))
            self._symbols = by_symbol
        seen = set(symbols)
        todo = list(seen)
        kept: set[Condition] = set()
        while todo:
            for c, named in by_symbol.get(todo.pop(), ()):
                if c not in kept:
                    kept.add(c)
                    for u in named:
                        if u not in seen:
                            seen.add(u)
                            todo.append(u)
        return self if len(kept) == len(self.atoms) else Facts(kept)

    # -- questions ------------------------------------------------------------------------
    def decide(self, condition: Condition | tuple[DimLike, str, DimLike]) -> bool | None:
        """True where the facts imply ``condition``, False where they imply its negation
        (or nothing meets both), None when they do neither."""
        if type(condition) is tuple and condition[1] in _AT_LEAST and \
                type(condition[2]) is int and condition[2] == 0:
            # (d, op, 0) is its own key: no Condition made (a build asks this of its
            # where-clauses and of each output size it computes)
            d, op = condition[0], condition[1]
            if type(d) is not Dim:
                d = as_dim(d)
        else:
            if not isinstance(condition, Condition):
                condition = Condition(*condition)
            d, op = condition.key
        if isinstance(d, int):
            return COMPARE[op](d, 0)
        if op in ("==", "!=") and self.atoms and self.says_nonzero(d):
            return op == "!="  # (a kept divisor's own d != 0: the triples leave it out)
        if op in _AT_LEAST and self.atoms and self.states(d, op):
            return True  # (first: the common answer; _unfacted's is True or not used)
        found = _unfacted(d, op)
        if found is True or (found is not _GENERAL and not self.atoms):
            return found  # (what holds of every size >= 0 holds under any facts)
        if op in _AT_LEAST and self.unbounded(d):  # it holds past some point, where the
            # facts hold too: the prover would not refute it (a window's out >= 1)
            if self._box is None:
                self._box = factbox.made(c.triple() for c in self.atoms)
            self._box, found = factbox.proven(self._box, (d, op, 0), True)  # (the prover's
            if found is None:  # over its box, not made again: see .factbox)
                found = proves(self.triples, (d, op, 0))
            return True if found else self._nearer(d, op)
        formed = None
        if op in ("==", "!=") and has_opaque(d) and not getattr(_FORMING, "on", False):
            formed = self._formed(condition)  # (first: a floor chain's max atoms split
            # the prover's cases; the forms that agree at every size it answers alike)
            if formed is (op == "=="):
                return formed
        found = _decide(self.triples, ordered(self.triples, d), op)  # (a min/max the
        # facts over one symbol order is its winning argument: fewer cases to split)
        if found is None and formed is None and type(d) is Dim:  # a product over
            found = by_factors(d, op, self.bounds)  # disjoint sizes: by factors' bounds
        if found is None and formed is None and type(d) is Dim and by_size(d):
            found = self._nowhere_defined(d, op)
        if found is None and formed is None:
            found = self._nearer(d, op)
        if found is None and formed is None and self.atoms and \
                not getattr(_FORMING, "on", False):
            if nonlinear(d) or self._knows_a_value():  # (else its form is _formed's)
                found = self._valued(d, op)  # (last: its form under the facts an int)
            if found is None and nonlinear(d) and \
                    not self.with_(Condition(d, op, 0)).consistent():
                found = False  # (a product's bounds with the facts leave no sizes)
        return formed if found is None else found

    def oversized(self, *sizes: DimLike) -> bool:
        """Whether a question over ``sizes`` under these facts has more terms than the
        prover takes (:data:`~.prove.MAX_QUESTION_TERMS`: it gives up at once)."""
        weight = self._weight
        if weight is None:
            weight = self._weight = conditions_terms(self.atoms)
        return weight + terms_of(sizes) > MAX_QUESTION_TERMS

    def near(self, symbols: Iterable[Hashable]) -> Facts:
        """The facts over ``symbols`` alone (every symbol of each among them): fewer
        facts a question over ``symbols`` is asked again under where all of them are too
        many for the prover (a model's facts of a hundred NonZero counts, one of them
        ``NonZero_30 <= N``). What they imply, all of them imply: a proof from them holds
        wherever every fact does."""
        wanted = frozenset(symbols)
        kept = [c for c in self.atoms if c.symbols() <= wanted]
        return self if len(kept) == len(self.atoms) else Facts(kept)

    def _nearer(self, d: DimLike, op: str) -> bool | None:
        """True where the facts over ``d``'s symbols alone (:meth:`near`) imply ``d op
        0``, asked where all the facts are too many for the prover; else None. Only True
        is taken from them (their False, sound too, is left to the whole set: a refuted
        condition is an error, said only where every fact is weighed)."""
        if not self.atoms or not self.oversized(d):
            return None
        fewer = self.near(free_symbols(d))
        return True if fewer is not self and fewer.decide((d, op, 0)) is True else None

    def allows(self, conditions: Iterable[Condition]) -> bool:
        """False where no sizes meet these facts and ``conditions`` at once (as far as it
        is shown: :meth:`consistent`, and where all the facts are too many for the
        prover, the facts over the conditions' symbols alone, :meth:`near`), else True."""
        conditions = list(conditions)
        grown = self.with_(*conditions)
        if not grown.consistent():
            return False
        if not self.atoms or not grown.oversized():
            return True
        fewer = self.near(frozenset().union(*(c.symbols() for c in conditions)))
        return fewer is self or fewer.with_(*conditions).consistent()

    def _nowhere_defined(self, d: Dim, op: str) -> bool | None:
        """False where the facts and each size ``d`` divides by nonzero refute ``d op 0``:
        where a divisor is 0 it has no value, so it holds nowhere (``1 == a % a``); else
        None (what they imply is not taken: True is said where it holds at every size).
        Its form under those facts is asked too (``k <= (n*n) % n - 1``: ``(n*n) % n`` is
        0 there), and a bound through its quotients' bounds (``n//n - 1 > 0``:
        :func:`.quotientbound.upper`)."""
        within = self.with_(*(nonzero(x) for x in size_divisors(d)))
        if within is self:
            return None
        if within.decide((d, op, 0)) is False:
            return False
        if not getattr(_FORMING, "on", False):  # its form there (``(a*a) % a`` is 0)
            formed = within.simplify(d)
            if formed is not d and within.decide((formed, op, 0)) is False:
                return False
        high = upper(d, within.decide) if op in _AT_LEAST else None
        return False if high is not None and within.decide((high, op, 0)) is False else None

    def _formed(self, condition: Condition) -> bool | None:
        """The condition decided by the forms of its sides under the facts
        (:meth:`simplify`): where their difference is an int, it is that int wherever
        the facts hold. Asked where the prover leaves an equality over floors, min or
        max open (its bounds decide orders); not while a form is being made (simplify
        asks decide)."""
        _FORMING.on = True
        try:
            gap = self.simplify(condition.left) - self.simplify(condition.right)
            if not isinstance(gap, int):
                gap = canonical_form(gap)
        finally:
            _FORMING.on = False
        return COMPARE[condition.op](gap, 0) if isinstance(gap, int) else None

    def _valued(self, d: DimLike, op: str) -> bool | None:
        """``d op 0`` decided by ``d``'s form under the facts (:meth:`simplify`: equal to
        ``d`` wherever they hold) where that form is an int: the facts' known values put
        into products and powers, which the prover, linear in them, does not (``a == 1``
        makes ``a**2 - a - 20`` -20; ``a == 0`` makes ``a*b**2 - b**2`` ``-b**2``, decided
        in turn); else None. Not while a form is being made."""
        _FORMING.on = True
        try:
            value = self.simplify(d)
            if isinstance(value, int):
                return COMPARE[op](value, 0)
            same = value is d or (type(value) is Dim and value._terms == d._terms)
            return None if same else self.decide((value, op, 0))
        finally:
            _FORMING.on = False

    def _knows_a_value(self) -> bool:
        """Whether a fact says one size is an int (``a == 1``): what :meth:`_valued` puts
        into a linear ``d``'s products inside its atoms; without one, a linear ``d``'s
        form under the facts is only what the prover and :meth:`_formed` already ask."""
        return any(c.op == "==" and type(c.key[0]) is Dim and len(c.key[0]._terms) == 2
                   and not c.key[0]._terms[1][0] and len(c.key[0]._terms[0][0]) == 1
                   for c in self.atoms)

    def says_nonzero(self, d: DimLike) -> bool:
        """Whether a fact ``e != 0`` with ``e`` ``d`` or ``-d`` says ``d`` is not 0. The
        prover's triples leave ``!=`` facts out, so a divisor that may be negative, kept
        as ``v != 0`` (:func:`.factsatoms.nonzero`), would not decide itself, and a
        ``0//v`` would stay in a size written under that very fact."""
        return any(c.op == "!=" and (c.key[0] == d or c.key[0] == -d) for c in self.atoms)

    def states(self, d: Dim, op: str, shift: int = 0) -> bool:
        """Whether one fact says ``d + shift op 0`` or more (:mod:`.stated`): a window's
        kept ``out >= 1`` is the next node's ``out >= 0`` (what :meth:`decide` answers
        first; a caller with ``d`` and an int asks it without making their sum)."""
        if not self.atoms:
            return False
        lows = self._lows
        if lows is None:
            lows = self._lows = lower_bounds(self.atoms)  # (made whole, then kept)
        return implied(lows, d, op, shift)

    def rising(self) -> bool:
        """Whether every fact says a rising size is at least an int
        (:func:`.stated.rising_facts`: a stack of windows' kept ``out >= 1``)."""
        if self._rising is None:
            self._rising = rising_facts(self.atoms)
        return self._rising

    def unbounded(self, x: DimLike) -> bool:
        """Whether ``x`` has no upper bound where the facts hold, shown without the
        prover (:func:`.stated.rising`): a window's output size under the kept ``out >=
        1`` of the windows before it. False: not shown (its bounds may say more)."""
        return self.rising() and rising(x)

    def consistent(self) -> bool:
        """False where no sizes meet every fact (as far as it is shown: the prover, and
        the facts' known values put into their products, :meth:`_valued_false`), else
        True. Facts that each say a rising size is at least an int (a stack of windows'
        kept ``out >= 1``) hold wherever the sizes are large: True without the prover's
        box."""
        return self.rising() or not proves(self.triples, (0, ">=", 1)) and \
            not self._valued_false()

    def _valued_false(self) -> bool:
        """Whether facts over a product or power of sizes (the prover, linear in them,
        reads it as an atom of its own) hold nowhere: one has a form under the facts
        (:meth:`simplify`) that is an int it fails at (``a == 1`` makes ``a**2 == a +
        20`` say ``-20 == 0``), or the bounds a product equal to an int puts on its
        factors, or a size dividing every term of one but its int, on itself
        (:func:`.factsproducts.product_bounds`), leave no sizes (``a*b == 1`` beside
        ``a*b == a + b``; ``a*b == 2*a + 1``, so ``a == 1``, beside ``b >= 4``). Not while
        a form is being made."""
        if getattr(_FORMING, "on", False):
            return False
        over = [c for c in self.atoms if nonlinear(c.key[0])]
        if not over:
            return False
        if any(self._valued(*c.key) is False for c in over):
            return True
        bounded = [c for c in product_bounds(over) if c not in self.atoms]
        return bool(bounded) and not self.with_(*bounded).consistent()  # (once: its
        # bounds are among its atoms; a size made 1 is put into its products there)

    def bounds(self, x: DimLike) -> tuple[int | None, int | None]:
        """The least and greatest value of ``x`` the facts allow (None: not bounded on
        that side as far as they show)."""
        if isinstance(x, int):
            return x, x
        if self.atoms and self.oversized(x):  # (the prover's bounds under all: none)
            fewer = self.near(free_symbols(x))
            if fewer is not self:
                return fewer.bounds(x)
        return _bounds(self.triples, x)

    def simplify(self, x: DimLike) -> DimLike:
        """``x`` in its simplest form under the facts (equal to ``x`` wherever they hold):
        :func:`simplify`'s answer, asked of its home directly (one call fewer a size)."""
        return under_facts(x, self)

    def reduce(self, clauses: Iterable[Clause], asked: Iterable[Condition] = ()
               ) -> list[Clause] | None:
        """``clauses`` as few and as plain as these facts allow, None if they refute one
        (:func:`.factsreduce.reduced`; ``asked``: the conditions found open already)."""
        return reduced(self, clauses, asked)


_AT_LEAST: Final = frozenset((">=", ">"))  # (a condition d op 0 whose key is (d, op))
_FORMING: Final = threading.local()  # .on while Facts._formed makes forms (per thread)


def _decide(triples: tuple, d: DimLike, op: str) -> bool | None:
    if op == "!=":
        eq = _decide(triples, d, "==")
        return None if eq is None else not eq
    if proves(triples, (d, op, 0)):
        return True
    if op == "==":
        if proves(triples, (d, ">", 0)) or proves(triples, (d, "<", 0)) or \
                proves(triples + ((d, "==", 0),), (0, ">=", 1)):
            return False
        return None
    return False if proves(triples, (d, NEGATED[op], 0)) else None


EMPTY: Final = Facts()
"""No facts beyond every size being ``>= 0``."""


def simplify(x: DimLike, facts: Facts = EMPTY) -> DimLike:
    """``x`` simplified under ``facts``: min/max arguments that another one bounds are
    dropped, a floor quotient or remainder whose argument stays in one block is a
    constant or a difference, a size or an atom a fact equates with an int is that int,
    and a remainder a fact says is 0 makes its quotient exact (``2*(h//2) == h``); the
    result is in its canonical form (:mod:`kantensor.types.canon`): sizes equal at every
    size of the decidable fragment get one form."""
    return under_facts(x, facts)

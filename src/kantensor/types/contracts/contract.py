"""The contract of a graph or a model: which input sizes it accepts.

A :class:`Contract` is the conjunction of what every node's relation needs of the sizes
(its :class:`Atom` s, each a :class:`~kantensor.types.conditions.Condition` or
:class:`~kantensor.types.conditions.AnyOf` with the nodes that impose it), over the named
input sizes. Solved (:mod:`.cells`), it is a finite union of boxes; it answers
:meth:`~Contract.holds` (with the violated atom and its node), :meth:`~Contract.sets`
(each size's intervals and congruences), :meth:`~Contract.solutions` in a box,
:meth:`~Contract.sample`, :meth:`~Contract.fix` (sizes given), and prints itself in words
and in the DSL's syntax (:mod:`.words`).

It is exact where the atoms are stated over the inputs and each case solves into exact
cells; otherwise :attr:`~Contract.exact` is False and :attr:`~Contract.inner` (sufficient)
and :attr:`~Contract.outer` (necessary) are the labelled approximations: a condition over
a size that is no input (a data-dependent count: a check made when the model runs, which
``holds`` quantifies away over what the count's node guarantees of it, True where it
holds at every count, False where at none), a condition over several sizes that no
box states, a case split past its limits, or an overload's choice (an atom that is
:attr:`~.atoms.Atom.chosen`: a node typed for the first of alternatives of other ranks
or dtypes). Where a choice fails, a later alternative gives the node other types than
the graph's, so what follows it is not known there: those sizes are not covered (their
cells keep only the conditions of the atoms before the choice, and ``holds`` is
undecided), never called invalid.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any, Final

from ..conditions import AnyOf, Clause, Condition
from ..dim import Dim, DimLike
from ..symbols import DataSymbol, free_symbols
from .atoms import Atom, Reaches, Sets, Verdict, condition_holds
from .box import Box, valid_box
from .cells import Cell, dim_of
from .cells import solve as solve_cells
from .minsplit import split_mins
from .points import cell_key, choices_of, pick, points, projection
from .quantified import MAX_HIDDEN, Outcome, joint_failures, outcome, outcomes
from .sizeset import SizeSet
from .words import contract_dsl, contract_html, contract_text

__all__ = ["MAX_CASES", "MAX_HIDDEN", "Contract"]

#: The most cases the disjunctions of a contract expand to (past it: approximated).
MAX_CASES: Final = 256


class Contract:
    """What the inputs' sizes must meet (see the module's doc). ``sizes`` lists the
    input sizes in order as ``(name, symbol)`` (the symbol of a named Dim is its name;
    an unnamed input axis is an unknown's key); ``fixed`` what :meth:`fix` gave;
    ``notes`` say what the atoms may lack (nodes that were not typed): then the atoms are
    only necessary (``holds`` is undecided where they all hold, ``inner`` is empty)."""

    def __init__(self, atoms: Sequence[Atom], sizes: Sequence[tuple[str, Hashable]],
                 fixed: Mapping[str, DimLike] | None = None, notes: Sequence[str] = (),
                 origins: Sequence[Atom] | None = None,
                 bounds: Sequence[Condition] = (), reaches: Reaches | None = None):
        self.atoms: tuple[Atom, ...] = tuple(atoms)
        #: which nodes read which (None: not known): a need of a node no choice reaches
        #: was not typed under it (see :meth:`holds`)
        self.reaches = reaches
        #: each atom as it was before :meth:`fix` gave sizes
        self.origins: tuple[Atom, ...] = self.atoms if origins is None else tuple(origins)
        self.sizes: tuple[tuple[str, Hashable], ...] = tuple(sizes)
        self.fixed = dict(fixed or {})
        self.notes = tuple(notes)
        self._symbol = {name: s for name, s in self.sizes}
        self._name = {s: name for name, s in self.sizes}
        named = set(self._name)
        self.hidden: frozenset[Hashable] = frozenset(
            s for a in self.atoms for s in a.symbols() if s not in named)
        #: what is known of the hidden sizes (a Loop's count: ``0 <= iters <= n``; what
        #: the op deciding a size the data decide guarantees of it: ``NonZero <= n``)
        self.bounds: tuple[Condition, ...] = tuple(dict.fromkeys((*bounds, *(
            c for s in sorted(self.hidden, key=str) if type(s) is DataSymbol
            for c in s.bounds))))

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the input sizes, in order."""
        return tuple(name for name, _ in self.sizes)

    # -- the solved form --------------------------------------------------------------
    @cached_property
    def _solved(self) -> tuple[tuple[Cell, ...], bool]:
        cases, complete = _cases(self.atoms)
        cases = split_mins(cases, self.hidden, MAX_CASES) or cases  # (c >= min(1, n))
        order = [s for _, s in self.sizes]
        cells: list[Cell] = []
        for case in cases:
            found = solve_cells(case, order, self.hidden)
            if found is None:
                found = solve_cells(case, order, self.hidden, split=False)
                if found is None:
                    complete = False
                    continue
            cells.extend(found)
        for case in _uncovered(self.atoms):
            found = solve_cells(case, order, self.hidden) or \
                solve_cells(case, order, self.hidden, split=False)
            if found is None:  # pragma: no cover - a case of one bound and plain conditions
                found = [Cell({})]
            cells.extend(replace(c, covered=False) for c in found)
        cells.sort(key=lambda c: cell_key(c, order))
        return _unsubsumed(cells, self.hidden), complete

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The boxes whose union is the valid sizes (see :mod:`.cells`)."""
        return self._solved[0]

    @property
    def exact(self) -> bool:
        """Whether the cells are exactly the valid sizes (else see :attr:`inner` and
        :attr:`outer`)."""
        return self._solved[1] and not self.notes and all(c.exact for c in self.cells)

    @property
    def empty(self) -> bool:
        """Whether no sizes are valid (as far as the cells show)."""
        return not self.cells and self._solved[1]

    @property
    def inner(self) -> Contract:
        """Sufficient: sizes in its cells are valid (the exact cells only; none where
        the ``notes`` say conditions are missing)."""
        if self.exact:
            return self
        return _Approximation(self, [] if self.notes else [c for c in self.cells if c.exact],
                              "sufficient")

    @property
    def outer(self) -> Contract:
        """Necessary: valid sizes are in its cells (the conditions no box states, and
        those over sizes that are no inputs, dropped)."""
        if self.exact:
            return self
        return _Approximation(self, [Cell(c.sets, c.defined) for c in self.cells],
                              "necessary")

    @property
    def label(self) -> str:
        return "exact" if self.exact else "approximate"

    # -- questions --------------------------------------------------------------------
    def _values(self, mapping: Mapping[str, int] | None, sizes: Mapping[str, int]
                ) -> dict[Hashable, int]:
        given = {**(mapping or {}), **sizes}
        unknown = sorted(set(given) - set(self._symbol))
        if unknown:
            raise ValueError(f"{', '.join(unknown)}: not a size of the contract (its sizes: "
                             f"{', '.join(self.names) or 'none'})")
        for k, v in given.items():
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"size {k} must be an int >= 0, got {v!r}")
        return {self._symbol[k]: v for k, v in given.items()}

    def holds(self, mapping: Mapping[str, int] | None = None, /, **sizes: int) -> Verdict:
        """Whether the sizes (by name; a dict for names that are no identifiers, such as
        ``"x.shape[1]"``) are valid: a :class:`Verdict`, False with the first atom they
        violate. Sizes the atoms name must all be given."""
        values = self._values(mapping, sizes)
        needed = {s for a in self.atoms for s in a.symbols()} - self.hidden
        missing = [self._name[s] for _, s in self.sizes if s in needed and s not in values]
        if missing:
            raise ValueError(f"holds: give a value to {', '.join(missing)}")
        shown = {self._name[s]: v for s, v in values.items()}
        undecided: list[Atom] = []
        pending: list[Atom] = []  # choices that may fail here (the data decide)
        always: list[Atom] = []  # those that fail here whatever the data
        for atom in self.atoms:
            hidden = atom.symbols() & self.hidden
            seen = outcomes(atom, hidden, values, self.bounds) if hidden else \
                frozenset((outcome(atom, values),))
            if seen != {Outcome.HOLDS} and pending and not self._apart(atom, pending):
                continue  # typed under a choice that may fail: says nothing for sure
            if seen == {Outcome.FAILS}:
                return Verdict(False, atom, shown, [s for _, s in self.sizes])
            if Outcome.CHOSEN in seen:  # the atoms after it assume it holds: where it
                pending.append(atom)  # fails (by the data, or always) they say nothing
                if seen == {Outcome.CHOSEN}:
                    always.append(atom)
            elif Outcome.FAILS in seen:
                undecided.append(atom)
        if undecided:
            failing = joint_failures(undecided, frozenset().union(
                *(a.symbols() & self.hidden for a in undecided)), values, self.bounds)
            if failing:
                return Verdict(False, failing[0][0], shown, [s for _, s in self.sizes],
                               note=_whichever(failing, self._name))
        if pending or undecided:
            first = min((*pending, *undecided), key=self.atoms.index)
            return Verdict(None, first, shown, chose=first in always)
        if self.notes:  # conditions are missing: the atoms' holding is only necessary
            return Verdict(None, None, shown, note=self.notes[0])
        return Verdict(True, None, shown)

    def _apart(self, atom: Atom, choices: Sequence[Atom]) -> bool:
        """Whether ``atom``'s nodes were typed apart from the ``choices`` (no node that
        chose reaches them, as :attr:`reaches` shows): its need stands where they fail
        (a Squeeze beside a Loop whose count is chosen ``>= 1``)."""
        if self.reaches is None or not atom.sources:
            return False
        choosers = {s.node for a in choices for s in a.sources if s.otherwise}
        return bool(choosers) and all(s.node and self.reaches(c, s.node) is False
                                      for s in atom.sources for c in choosers)

    def fix(self, mapping: Mapping[str, Any] | None = None, /, **sizes: Any) -> Contract:
        """The contract with some sizes given (ints, or another size: a name or a Dim;
        ``fix(N=1, W="H")`` for square images of one)."""
        given = {**(mapping or {}), **sizes}
        values: dict[Hashable, DimLike] = {}
        for name, v in given.items():
            if name not in self._symbol:
                raise ValueError(f"fix: {name} is not a size of the contract (its sizes: "
                                 f"{', '.join(self.names) or 'none'})")
            if isinstance(v, str):
                if v not in self._symbol:
                    raise ValueError(f"fix: {v} is not a size of the contract")
                v = dim_of(self._symbol[v])
            if not isinstance(v, int | Dim) or isinstance(v, bool):
                raise ValueError(f"fix: {name} must be an int or a size, got {v!r}")
            values[self._symbol[name]] = v
        atoms, origins = [], []
        for atom, origin in zip(self.atoms, self.origins, strict=True):
            clause = _substituted(atom.clause, values)
            if clause.symbols() or not Atom(clause).holds({}):  # what the sizes decide
                atoms.append(Atom(clause, atom.sources))  # true is no condition any more
                origins.append(origin)
        kept = [(n, s) for n, s in self.sizes if s not in values]
        bounds = [_substituted(c, values) for c in self.bounds]
        return Contract(atoms, kept, {**self.fixed, **given}, self.notes, origins, bounds,
                        self.reaches)

    def emptied_by(self) -> Atom | None:
        """Where no sizes are valid: the first atom (in node order, as it was before
        :meth:`fix`) that leaves none with the atoms before it; None when some sizes are
        valid."""
        if not self.empty:
            return None
        for i in range(len(self.atoms)):
            if Contract(self.atoms[:i + 1], self.sizes).empty:
                return self.origins[i]
        return self.origins[-1] if self.origins else None

    def sets(self) -> Sets:
        """Each size's values: ``{name: SizeSet}`` over the cells (a size no atom names
        is any size). Sets of an inexact contract are the necessary ones (``necessary``
        names them)."""
        out: dict[str, SizeSet] = {}
        necessary = set()
        for name, s in self.sizes:
            total = SizeSet()
            for cell in self.cells:
                part, exact = projection(cell, s)
                total |= part
                if not exact or not cell.exact:
                    necessary.add(name)
            out[name] = total
        if not self._solved[1] or self.notes:
            necessary = set(out)
        return Sets(out, necessary)

    def solutions(self, box: Mapping[str, Any] | None = None, /, limit: int | None = None,
                  **ranges: Any) -> list[dict[str, int]]:
        """The valid points of a box, in order: ``box`` (or keywords) maps a size to an
        int, ``(lo, hi)`` (inclusive), a ``range`` or any ints; a size not given takes
        every value of its set, which must then be finite."""
        given = {**(box or {}), **ranges}
        choices: dict[Hashable, list[int] | tuple[int, int]] = {}
        for name, r in given.items():
            if name not in self._symbol:
                raise ValueError(f"solutions: {name} is not a size of the contract")
            choices[self._symbol[name]] = choices_of(name, r)
        seen: set[tuple] = set()
        out = []
        for cell in self.cells:
            for point in points(cell, [s for _, s in self.sizes], choices, self._name):
                key = tuple(point[s] for _, s in self.sizes)
                if key in seen:
                    continue
                seen.add(key)
                named = {self._name[s]: point[s] for _, s in self.sizes}
                if self.holds(named).value:
                    out.append(named)
        out.sort(key=lambda p: tuple(p.values()))
        return out if limit is None else out[:limit]

    def sample(self, near: Mapping[str, int] | None = None, seed: int | None = None
               ) -> dict[str, int] | None:
        """A valid point: the one nearest ``near`` (by name; else the least sizes), or
        with ``seed`` a random one; None when none is found."""
        order = [s for _, s in self.sizes]
        want = {self._symbol[k]: v for k, v in (near or {}).items() if k in self._symbol}
        rng = random.Random(seed) if seed is not None else None
        cells = list(self.cells)
        if rng is not None:
            rng.shuffle(cells)
        best, best_cost = None, None
        for cell in cells:
            for _ in range(8 if rng is not None else 1):
                point = pick(cell, order, want, rng)
                if point is None:
                    continue
                named = {self._name[s]: point[s] for s in order}
                if not self.holds(named).value:
                    continue
                if rng is not None:
                    return named
                cost = sum(abs(point[s] - want.get(s, 0)) for s in order)
                if best_cost is None or cost < best_cost:
                    best, best_cost = named, cost
        return best if best is not None else self._searched(want, rng)

    def _searched(self, want: Mapping[Hashable, int], rng: random.Random | None
                  ) -> dict[str, int] | None:
        """A valid point found by enumerating growing boxes from each cell's least sizes
        (or ``want``), where the points picked from the cells' sets miss conditions that
        no box states."""
        order = [s for _, s in self.sizes]
        for span in (8, 32, 128):
            found = []
            for cell in self.cells:
                start = {s: want.get(s, cell.set_of(s).min or 0) for s in order}
                box = {s: (max(0, start[s] - span // 2 * (s in want)),
                           start[s] + span) for s in order}
                for point in points(cell, order, box, self._name):
                    named = {self._name[s]: point[s] for s in order}
                    if self.holds(named).value:
                        found.append(named)
                        if rng is None or len(found) >= 32:
                            break
                if found and rng is None:
                    return found[0]
            if found:
                return rng.choice(found)
        return None

    # -- text -------------------------------------------------------------------------
    def __str__(self) -> str:
        return contract_text(self)

    def __repr__(self) -> str:
        return f"<Contract over {', '.join(self.names) or 'no sizes'} ({self.label}), " \
               f"{len(self.atoms)} atoms, {len(self.cells)} boxes>"

    def dsl(self) -> str:
        """The contract in the DSL's where-clause syntax: one ``where ...`` per case of
        its disjunctions (the DSL has no ``or``)."""
        return contract_dsl(self)

    def _repr_html_(self) -> str:
        return contract_html(self)

    def box(self, opt: Mapping[str, int] | None = None, cap: Mapping[str, int] | None = None,
            scale: int = 2, least: int = 1) -> Box:
        """A box of valid sizes around ``opt``: each size's ``(min, opt, max)``, every
        point valid, and beside it what the valid set holds that no box says (see
        :func:`~.box.valid_box`)."""
        return valid_box(self, opt, cap, scale, least)


def _substituted(c: Clause, values: Mapping[Hashable, DimLike]) -> Clause:
    """``c`` at the given sizes; a disjunction keeps the cases its ints do not decide
    false (one case they decide true makes it no condition: a case with no conditions)."""
    if not values.keys() & c.symbols():
        return c
    c = c.substitute(values)
    if not isinstance(c, AnyOf):
        return c
    cases = []
    for case in c.cases:
        left = tuple(x for x in case if x.symbols() or not condition_holds(x, {}))
        if any(not x.symbols() for x in left):
            continue  # an int condition that fails: the case is out
        if not left:
            return Condition(0, "==", 0, c.source)  # a case that holds: true
        cases.append(left)
    if len(cases) == 1 and len(cases[0]) == 1:
        return cases[0][0]
    return AnyOf(tuple(cases), c.source)


class _Approximation(Contract):
    """An inner or outer approximation of a contract: its own cells, labelled."""

    def __init__(self, of: Contract, cells: list[Cell], kind: str):
        super().__init__(of.atoms, of.sizes, of.fixed, of.notes, of.origins, of.bounds,
                         of.reaches)
        self.kind = kind
        self._cells = tuple(cells)
        self.__dict__["_solved"] = (self._cells, True)

    @property
    def exact(self) -> bool:
        return False

    @property
    def label(self) -> str:
        return self.kind

    def holds(self, mapping: Mapping[str, int] | None = None, /, **sizes: int) -> Verdict:
        """Whether the sizes are in one of its cells (all sizes must be given)."""
        values = self._values(mapping, sizes)
        missing = [n for n, s in self.sizes if s not in values]
        if missing:
            raise ValueError(f"holds: give a value to {', '.join(missing)}")
        shown = {self._name[s]: v for s, v in values.items()}
        inside = any(cell.contains(values) for cell in self._cells)
        return Verdict(inside, None, shown)

    def sets(self) -> Sets:
        out = super().sets()
        return Sets(out, out if self.kind == "necessary" else ())


def _unsubsumed(cells: list[Cell], hidden: frozenset) -> tuple[Cell, ...]:
    """``cells`` without each one whose conditions over the ``hidden`` sizes (no inputs)
    an exact cell's box makes idle (its box over the inputs is in the exact one's): the
    same union, said by the exact cells (an If whose two branches both need ``D == N``,
    under ``if_then == 0`` and ``if_then == 1``, is valid exactly at ``D == N``)."""
    exact = [c for c in cells if c.exact]
    return tuple(c for c in cells if not (c.hidden and c.covered) or not any(
        _within(c, e, hidden) for e in exact))


def _within(a: Cell, b: Cell, hidden: frozenset) -> bool:
    """Whether the box of ``a`` over the sizes that are not ``hidden`` (its sets and
    definitions) is in that of ``b``."""
    defined = {s: d for s, d in a.defined.items() if s not in hidden}
    return defined == b.defined and all(
        not free_symbols(d) & hidden for d in defined.values()) and all(
        (a.set_of(s) & b.set_of(s)) == a.set_of(s)
        for s in (a.sets.keys() | b.sets.keys()) - hidden)


def _uncovered(atoms: Sequence[Atom]) -> list[list[Condition]]:
    """Conjunctions whose union holds where an atom first fails by an overload's choice
    (the plain conditions before the atom and those before the choice in its case
    holding, the choice failing): sizes the contract does not cover (see the module's
    doc). The union may hold more (where another case of the atom holds): it only
    widens :attr:`Contract.outer`."""
    out: list[list[Condition]] = []
    before: list[Condition] = []
    for a in atoms:
        out.extend([*before, *earlier, c.negated()] for earlier, c in a.choices())
        if len(out) > MAX_CASES:
            return [list(before)]  # where the choices fail is too long to say
        if isinstance(a.clause, Condition):
            before.append(a.clause)
    return out


def _cases(atoms: Sequence[Atom]) -> tuple[list[list[Condition]], bool]:
    """The conjunctions the atoms' disjunctions expand to, and whether all were kept."""
    plain = [a.clause for a in atoms if isinstance(a.clause, Condition)]
    cases: list[list[Condition]] = [plain]
    complete = True
    for a in atoms:
        if isinstance(a.clause, AnyOf):
            grown = [case + list(option) for case in cases for option in a.clause.cases]
            if len(grown) > MAX_CASES:
                complete = False  # this disjunction is left out: necessary only
                continue
            cases = grown
    return cases, complete


def _whichever(failing: list[tuple[Atom, dict[Hashable, int]]],
               names: Mapping[Hashable, str]) -> str:
    """Why atoms that each fail only at some values of the sizes the data decide make
    the sizes invalid: at every value, one of them fails (each with a value it fails
    at)."""
    sizes = sorted({h for _, point in failing for h in point}, key=str)
    each = "; ".join(f"{a} at " + ", ".join(f"{names.get(h, h)}={v}" for h, v in point.items())
                     for a, point in failing)
    return f"whichever {', '.join(map(str, sizes))} the data give, a condition fails: {each}"

"""The atoms of a contract and its answers: :class:`Atom` (a condition and the nodes
that impose it), :class:`Verdict` (what ``holds`` says) and :class:`Sets` (each size's
values)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..conditions import Clause, Condition, Source, is_choice
from ..dim import Dim
from ..facts import Facts
from ..factsatoms import still_needs
from ..symbols import DataSymbol
from .cells import by_factors
from .evaluate import condition_holds
from .sizeset import SizeSet
from .words import factored

__all__ = ["Atom", "Sets", "Verdict", "condition_holds", "merged_atoms", "node_text"]


@dataclass(frozen=True)
class Atom:
    """One condition of a contract, and every node that imposes it (``sources``, in the
    order of the nodes)."""

    clause: Clause
    sources: tuple[Source, ...] = ()

    @property
    def nodes(self) -> tuple[str, ...]:
        """The nodes that impose it: ONNX node names, or the Ops (and lines) of a graph."""
        return tuple(dict.fromkeys(node_text(s) for s in self.sources))

    @property
    def chosen(self) -> str:
        """Where the atom is, or has, an overload's choice (a node that built its types
        for a first alternative that holds under it, see
        :class:`~kantensor.types.conditions.Source`): the types a later one gives where it
        fails; else empty. Sizes where the atom fails only by a choice are not covered by
        the contract: neither valid nor invalid (see :meth:`choices`)."""
        if self._whole():
            return " or ".join(dict.fromkeys(s.otherwise for s in self.sources if s.otherwise))
        if isinstance(self.clause, Condition):
            return ""
        return " or ".join(dict.fromkeys(c.source.otherwise for case in self.clause.cases
                                         for c in case if is_choice(c)))

    def _whole(self) -> bool:
        """Whether every condition of the atom is a choice. A condition is one where the
        first node to state it chose (the clause kept is that node's): a later node that
        states it too was typed under that choice (a Pad after a Reshape whose shape
        entry ``c - 2`` is chosen ``>= 0`` needs ``c - 2 >= 0`` of the types it was
        given), so its need says nothing where the choice fails."""
        if isinstance(self.clause, Condition):
            return is_choice(self.clause)
        return bool(self.sources) and all(s.otherwise for s in self.sources)

    def choices(self) -> list[tuple[tuple[Condition, ...], Condition]]:
        """``(earlier, choice)`` per choice of each case of the atom, ``earlier`` the
        conditions before it in its case (in the order of their nodes): where those hold
        and the choice fails, a later alternative applies (a case of code that branched
        on sizes, with a ``squeeze`` in it), and the conditions after it in the case were
        made for the types it chose, so they say nothing there. Every condition of an
        atom all of whose sources are choices is one."""
        whole = self._whole()
        cases = ((self.clause,),) if isinstance(self.clause, Condition) else \
            self.clause.cases
        return [(case[:i], c) for case in cases for i, c in enumerate(case)
                if whole or is_choice(c)]

    def fails_by_choice(self, values: Mapping[Hashable, int]) -> bool:
        """Whether, where the atom fails at ``values``, it fails by a choice: in one of its
        cases, the first condition that fails is a choice."""
        return any(not condition_holds(c, values) and
                   all(condition_holds(e, values) for e in earlier)
                   for earlier, c in self.choices())

    def symbols(self) -> frozenset[Hashable]:
        return self.clause.symbols()

    def holds(self, values: Mapping[Hashable, int]) -> bool:
        clause = self.clause
        if isinstance(clause, Condition):
            return condition_holds(clause, values)
        return any(all(condition_holds(c, values) for c in case) for case in clause.cases)

    def where(self) -> str:
        """``Reshape n15``, ``MaxPool n14, n7``: who imposes it."""
        nodes = self.nodes
        return ", ".join(nodes) if nodes else "the graph"

    def chooser(self) -> str:
        """Who made the choice (:attr:`chosen`): the nodes among :meth:`where`'s whose
        sources are choices (all of them where none is)."""
        nodes = dict.fromkeys(node_text(s) for s in self.sources if s.otherwise)
        return ", ".join(nodes) if nodes else self.where()

    def __str__(self) -> str:
        return f"{self.clause}  ({self.where()})"


def node_text(source: Source) -> str:
    parts = [source.op] if source.op and not source.node.startswith(source.op) else []
    if source.node and source.node != source.op:
        parts.append(source.node)
    if source.location:
        parts.append(f"at {source.location}")
    return " ".join(parts) or "?"


class Verdict:
    """What :meth:`Contract.holds` says: truthy where the sizes are valid; where not,
    ``atom`` is the first atom (in node order) they violate. ``decided`` is False where
    the answer depends on sizes that are no inputs, where an overload's choice
    (:attr:`Atom.chosen`) fails and the graph's types are not the ones that apply
    (``chose``), or where every atom holds but the contract's ``notes`` say some are
    missing (a node not typed; then ``note`` says it); ``bool()`` refuses then. False
    with a ``note`` where atoms over sizes the data decide fail together at every value
    they may take (an If whose two branches both need what fails)."""

    __slots__ = ("value", "atom", "sizes", "_order", "note", "chose")

    def __init__(self, value: bool | None, atom: Atom | None, sizes: Mapping[str, int],
                 order: Sequence[Hashable] = (), note: str = "", chose: bool = False):
        self.value, self.atom, self.sizes = value, atom, dict(sizes)
        self._order = tuple(order)
        self.note = note  # why it is undecided where no atom says (a node not typed)
        self.chose = chose  # undecided: the atom fails by a choice at these sizes

    @property
    def decided(self) -> bool:
        return self.value is not None

    def __bool__(self) -> bool:
        if self.value is None:
            raise TypeError(f"{self!r} (see Verdict.decided)")
        return self.value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, bool):
            return self.value is other
        return isinstance(other, Verdict) and (self.value, self.atom) == (other.value,
                                                                           other.atom)

    def __hash__(self) -> int:
        return hash((self.value, self.atom))

    def __repr__(self) -> str:
        at = ", ".join(f"{k}={v}" for k, v in self.sizes.items())
        if self.value:
            return "True"
        if self.value is None and self.atom is None:
            return f"undecided at {at}: every condition holds, but {self.note}"
        if self.value is None and self.atom is not None and self.chose:
            return f"undecided at {at}: {self.atom.clause} fails there, so {self.atom.chooser()} " \
                   f"gives {self.atom.chosen}, not the type the graph was built for"
        if self.value is None:
            data = sorted((s for s in self.atom.symbols() if type(s) is DataSymbol), key=str)
            if data:
                return f"undecided at {at}: {self.atom} is checked when the model runs " \
                       f"(it depends on {', '.join(data)}, which the data decide, not the " \
                       "input sizes)"
            return f"undecided at {at}: {self.atom} names sizes that are not inputs"
        if self.atom is None:  # an approximation's cells: no atom to name
            return f"False: outside its boxes at {at}"
        if self.note:
            return f"False at {at}: {self.note}"
        clause = self.atom.clause
        text = factored(clause, self._order) if isinstance(clause, Condition) \
            else str(clause)
        return f"False: {text} fails at {at} ({self.atom.where()})"

    __str__ = __repr__


class Sets(dict):
    """``{size: SizeSet}`` (see :meth:`Contract.sets`); ``necessary`` names the sizes
    whose sets are only necessary (the exact set is smaller)."""

    def __init__(self, sets: Mapping[str, SizeSet], necessary: Iterable[str] = ()):
        super().__init__(sets)
        self.necessary = frozenset(necessary)

    @property
    def exact(self) -> bool:
        return not self.necessary

    def __str__(self) -> str:
        return "\n".join(v.text(k) + ("  (necessary)" if k in self.necessary else "")
                         for k, v in self.items())


#: ``reaches(a, b)``: whether node ``b`` reads what node ``a`` computes (through any
#: path of the graph; a node reaches itself), None where not known
Reaches = Callable[[str, str], "bool | None"]


def merged_atoms(clauses: Iterable[Clause], inputs: Collection[Hashable] | None = None,
                 reaches: Reaches | None = None) -> list[Atom]:
    """Atoms of ``clauses`` (in order), equal conditions once with all their sources, and
    none that another implies (:func:`pruned`; ``inputs``: the sizes that are inputs,
    None for all). With ``reaches``, a need that only restates a choice on a branch the
    chooser does not reach is its own atom (:func:`_unchosen`)."""
    order: dict[Clause, list[Source]] = {}
    for c in clauses:
        sources = order.setdefault(c, [])
        for s in _sources(c):
            if s not in sources:
                sources.append(s)
    atoms = [Atom(c, tuple(s)) for c, s in order.items()]
    if reaches is not None:
        atoms = _unchosen(atoms, reaches)
    return pruned(atoms, inputs)


def _unchosen(atoms: list[Atom], reaches: Reaches) -> list[Atom]:
    """``atoms`` with each need that a choice's atom merged but that was not typed under
    the choice split off, as an atom placed just before the choice's. A condition the
    first node stated as a choice covers a later node's same need only where that node
    reads the chooser's output (it was typed under the choice, see :meth:`Atom._whole`);
    a node on another branch (``ConstantOfShape [c - 2]`` beside ``Reshape`` to ``[c, c
    - 2]``) is refused where the condition fails, whatever the choice. A need stays
    covered where ``reaches`` does not know, or where a later atom's choice reaches it
    (it was typed under that one, which it would then be checked before)."""
    out: list[Atom] = []
    for i, atom in enumerate(atoms):
        clause = atom.clause
        if not (isinstance(clause, Condition) and is_choice(clause)):
            out.append(atom)
            continue
        choosers = [s.node for s in atom.sources if s.otherwise]
        later = [s.node for a in atoms[i + 1:] for s in a.sources if s.otherwise]
        free = tuple(s for s in atom.sources if not s.otherwise and s.node and all(
            reaches(c, s.node) is False for c in (*choosers, *later)))
        if free:
            out.append(Atom(Condition(clause.left, clause.op, clause.right, free[0]), free))
            atom = Atom(clause, tuple(s for s in atom.sources if s not in free))
        out.append(atom)
    return out


def pruned(atoms: list[Atom], inputs: Collection[Hashable] | None = None) -> list[Atom]:
    """``atoms`` without the bounds another atom's bound implies, as the prover shows it
    (a strided conv stack's first window, ``samples//5 - 1 >= 1``, where its last needs
    ``(samples + 240)//320 - 1 >= 1``): the same valid set, said once. Of two that imply
    each other the first stays; nothing the prover does not show is dropped. A bound is
    kept beside one that names a size it does not and that is no input (of ``inputs``,
    None for all): a data-dependent count's bound is only undecided where the kept one
    would fail (``N >= 1`` beside ``N - k >= 1``: ``holds(N=0)`` is False, not undecided).
    An overload's choice (:attr:`Atom.chosen`) drops no need: where it fails the need
    still decides ``holds``."""
    bounds = [a for a in atoms if isinstance(a.clause, Condition) and a.clause.key[1] in
              (">=", ">") and not isinstance(a.clause.key[0], int)]
    if len(bounds) < 2:
        return atoms
    # an equality of a product (x.view(N, -1) after windows: N*(min(1, P) - 1) == 0) is
    # decided alike, by the bounds over one size each
    products = [a for a in atoms if isinstance(a.clause, Condition) and a.clause.key[1] in
                ("==", "!=") and isinstance(a.clause.key[0], Dim)]
    facts: dict[int, Facts] = {}
    dropped: set[int] = set()
    for i, a in enumerate(bounds):
        names = a.clause.symbols()
        for j, b in enumerate(bounds):
            others = b.clause.symbols()
            if j == i or j in dropped or not names <= others or (
                    inputs is not None and not others - names <= inputs) or b.chosen:
                continue  # (a choice holds only where the graph's types do: no need)
            by = facts.setdefault(j, Facts([b.clause]))
            if by.decide(a.clause) is True and _defined(a.clause, by) and (
                    j < i or facts.setdefault(i, Facts([a.clause])).decide(b.clause) is not True):
                dropped.add(i)
                break
    candidates = bounds + products
    for i, a in enumerate(candidates):  # a product whose factors the bounds over its own
        # sizes bound (a Flatten after two windows: each factor >= 1 where they fit)
        names = a.clause.symbols()
        if i in dropped or not isinstance(a.clause.key[0], Dim) or len(names) < 2:
            continue
        by = [b.clause for j, b in enumerate(bounds) if j != i and j not in dropped
              and not b.chosen and len(b.clause.symbols()) == 1 and b.clause.symbols() <= names]
        if by and by_factors(a.clause, Facts(by)) is True and _defined(a.clause, Facts(by)):
            dropped.add(i)
    if not dropped:
        return atoms
    gone = {id(candidates[i]) for i in dropped}
    return [a for a in atoms if id(a) not in gone]


def _defined(c: Condition, by: Facts) -> bool:
    """Whether ``c`` is defined wherever ``by`` holds: each size it divides by is not 0
    there (``(N*M)//M >= 0`` is implied by ``N + M >= 2`` but not defined at M == 0,
    where it does not hold: dropped, the contract would take M == 0)."""
    return still_needs(c, by) == []


def _sources(c: Clause) -> list[Source]:
    if isinstance(c, Condition):
        return [c.source] if c.source is not None else []
    out = [c.source] if c.source is not None else []
    out += [x.source for case in c.cases for x in case if x.source is not None]
    return list(dict.fromkeys(out))

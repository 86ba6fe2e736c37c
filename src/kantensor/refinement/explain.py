"""Why refinement fails: the chain of nodes whose relations lead to a contradiction.

Explanations are built only after a failure, by re-running relations: an operand axis
takes part in the conflict when erasing its size (making it unknown) lets the failing
relation hold; a size learnt from a node rests on the operand axes whose erasure
stops that node from deciding it. Each step of the chain names the node, the operand,
the axis and the value, earlier causes first.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

from ..graph.basic import Variable
from ..signature.signature import Signature
from ..syntax.alternative import Overloads
from ..syntax.errors import TypeInferenceError
from .relations import run, why_not
from .sizes import Entry, Hole, Sizes, has_hole, symbols_of
from .units import Unit, describe, is_size_carrier, node_relation, node_unit
from .wording import clause_axes, clause_said, in_user_terms, in_words

__all__ = ["Conflict", "RefinementError", "Step", "explain_conflict"]

#: How many steps a chain shows at most (the rest are counted).
MAX_STEPS = 12


@dataclass(frozen=True, eq=False)
class Step:
    """``variable`` axis ``axis`` is ``value`` because of ``source`` (a node or a given
    type), which decides it from the operand sizes in ``premises``. Two steps are equal
    when they say the same of the same variables (variables by identity: ``==`` on
    tensors compares their elements)."""

    variable: Variable
    axis: int
    value: Entry  # an int, a Dim, or a Hole (the size of another, unknown axis)
    source: str
    premises: tuple[tuple[Variable, int, Entry], ...]

    def _key(self) -> tuple:
        return (id(self.variable), self.axis, self.value, self.source,
                tuple((id(v), a, x) for v, a, x in self.premises))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Step) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        why = "; ".join(f"{_axis(v, a)} is {_shown(x)}" for v, a, x in self.premises)
        return f"{_axis(self.variable, self.axis)} is {_shown(self.value)} " \
               f"because of {self.source}" + (f" ({why})" if why else "")


@dataclass(frozen=True)
class Conflict:
    """The relation that has no solution: its label, the operand axes whose sizes
    clash there, and the solver's reason."""

    source: str
    axes: tuple[tuple[Variable, int, Entry], ...]
    reason: str

    def __str__(self) -> str:
        clash = ", ".join(f"{_axis(v, a)} = {_shown(x)}" for v, a, x in self.axes)
        return f"{self.source} fails" + (f" with {clash}" if clash else "") + \
            f": {self.reason}"


class RefinementError(TypeInferenceError):
    """No sizes satisfy every node of the graph: ``chain`` holds the :class:`Step` s
    that led there, causes first, and ``conflict`` the relation that fails. A long
    chain shows its first two steps (where it starts) and its last ones, up to
    :data:`MAX_STEPS` in all."""

    def __init__(self, chain: tuple[Step, ...], conflict: Conflict,
                 header: str = "the graph's sizes contradict each other") -> None:
        lines = [str(s) for s in chain]
        if len(chain) > MAX_STEPS:
            hidden = len(chain) - MAX_STEPS
            lines[2:hidden + 2] = [f"... ({hidden} more steps like these)"]
        lines.append(str(conflict))
        super().__init__(f"{header}:\n  "
                         + "\n  ".join(lines))
        self.chain = chain
        self.conflict = conflict


def _axis(variable: Variable, axis: int) -> str:
    """``x axis 1``; an input that only carries a size into a size parameter is that size
    (``B``, ``x.shape[0]``: its one axis is the size)."""
    if is_size_carrier(variable):
        return describe(variable)
    return f"{describe(variable)} axis {axis}"


def _shown(value: Entry) -> str:
    if isinstance(value, Hole):
        return f"the size of {_axis(value.variable, value.axis)}"
    return "an unknown size" if has_hole(value) else str(value)


def _operands(sizes: Sizes, unit: Unit, erase: frozenset = frozenset()) -> list:
    """The unit's operands as run() takes them, the ``(operand, axis)`` pairs in
    ``erase`` made unknown."""
    out = []
    for i, op in enumerate(unit.operands):
        entries = op.fixed if op.variable is None else sizes.current(op.variable)
        if erase:
            entries = tuple(_Erased(i, a) if (i, a) in erase else e
                            for a, e in enumerate(entries))
        out.append((op.dtype, op.wrapped, entries))
    return out


class _Erased:
    """A size made unknown to test whether it matters (identity by object)."""

    __slots__ = ("operand", "axis")

    def __init__(self, operand: int, axis: int) -> None:
        self.operand, self.axis = operand, axis


def _refined_axes(sizes: Sizes, unit: Unit) -> list[tuple[int, int]]:
    """The operand axes of ``unit`` whose sizes refinement changed."""
    found = []
    for i, op in enumerate(unit.operands):
        if op.variable is None:
            continue
        for axis, entry in enumerate(sizes.entries[op.variable]):
            if any(s in sizes.bindings for s in symbols_of(entry)):
                found.append((i, axis))
    return found


def explain_conflict(sizes: Sizes, unit: Unit) -> RefinementError:
    """The error for ``unit``'s relation failing on the sizes known now."""
    raw = _why_not(sizes, unit)
    reason = in_user_terms(raw, unit)
    refined = _refined_axes(sizes, unit)
    candidates = refined + [ax for ax in _built_axes(sizes, unit) if ax not in refined]
    clashing = _clashing(sizes, unit, candidates)
    chosen = clashing or refined
    read = [(i, a % len(sizes.current(unit.operands[i].variable)))
            for i, a in clause_axes(unit, raw)]  # (their values are in its sentence)
    read = [ax for ax in read if ax in candidates and ax not in chosen]
    if read:
        chosen = sorted([*chosen, *read], key=candidates.index)
    axes = tuple((unit.operands[i].variable, a, sizes.current(unit.operands[i].variable)[a])
                 for i, a in sorted(chosen))  # said in the operands' order, axis by axis
    story = _Story(sizes)
    for i, a in chosen:
        story.explain((unit.operands[i].variable, a))
    about = "dtypes" if getattr(raw, "kind", "") in ("category", "dtype") else "sizes"
    said = clause_said(sizes, unit, raw) or in_words(unit, reason)
    chosen = _chosen(unit)
    if chosen:
        said += (f" (the node's types are its overload's first alternative's, under "
                 f"{chosen[0]}; where that fails a later one gives {chosen[1]}, which the "
                 "graph was not built for: its contract leaves such sizes uncovered)")
    return RefinementError(tuple(story.steps), Conflict(unit.label, axes, said),
                           f"the graph's {about} contradict each other")


def _chosen(unit: Unit) -> tuple[str, str] | None:
    """Where the node's types are an overload's choice (see
    :class:`~kantensor.types.conditions.Source`): the conditions of the choice, and what
    a later alternative gives where they fail; else None."""
    conditions = unit.node.conditions if unit.node is not None else ()
    chosen = [c for c in conditions if c.source is not None and c.source.otherwise]
    if not chosen:
        return None
    return (" and ".join(map(str, chosen)),
            " or ".join(dict.fromkeys(c.source.otherwise for c in chosen)))


def _why_not(sizes: Sizes, unit: Unit) -> str:
    """The solver's reason: of an overload whose dtypes and ranks fit the operands
    (its sizes are why it fails: ``mod``'s int8 overload, not the ones whose promoted
    dtype is refused), else of the first."""
    operands = _operands(sizes, unit)
    relation = unit.relation
    if isinstance(relation, Overloads) and len(relation.alternatives) > 1:
        erased = _operands(sizes, unit, frozenset(
            (i, a) for i, (_, _, entries) in enumerate(operands) for a in range(len(entries))))
        for alt in relation.alternatives:
            # (no memo: the unit's holds the runs of its own relation)
            one = replace(unit, relation=Signature(alternatives=(alt,)), memo=None)
            if run(one, erased) is not None:
                return why_not(one, operands)
    return why_not(unit, operands)


def _clashing(sizes: Sizes, unit: Unit, candidates: list) -> list:
    """The axes among ``candidates`` whose sizes clash: erasing one lets the relation
    hold, alone or beside the unit's output axes (an output size a node computed
    forwards from the same input clashes too: ``h[?,4] + u[5]`` with ``h + u`` built as
    ``[?,4]`` names ``h`` axis 1 as well as ``u`` axis 0)."""
    def holds(erase: frozenset) -> bool:
        return run(unit, _operands(sizes, unit, erase)) is not None

    found = [ax for ax in candidates if holds(frozenset([ax]))]
    outputs = frozenset(ax for ax in candidates if ax[0] >= unit.n_inputs)
    if outputs and not holds(outputs):
        found += [ax for ax in candidates if ax not in found and ax not in outputs
                  and holds(outputs | {ax})]
    return sorted(found, key=candidates.index)


def _built_axes(sizes: Sizes, unit: Unit) -> list[tuple[int, int]]:
    """The operand axes of ``unit`` whose known sizes a node gave when the graph was
    built (not a size the user wrote on an input)."""
    return [(i, a) for i, op in enumerate(unit.operands)
            if op.variable is not None and op.variable.owner is not None
            for a, e in enumerate(sizes.entries[op.variable]) if not has_hole(e)]


Axis = tuple  # (Variable, axis)


def undefined_size(sizes: Sizes, unit: Unit) -> RefinementError:
    """The error for ``unit`` when a size of one of its operands has no value with the
    sizes known now: an expression of its type divides by zero there (``n1//n0`` with
    ``n0 = 0``)."""
    for op in unit.operands:
        if op.variable is None:
            continue
        for axis, entry in enumerate(sizes.entries[op.variable]):
            try:
                sizes.resolve(entry)
            except ZeroDivisionError as exc:
                bound = [s for s in symbols_of(entry) if s in sizes.bindings]
                where = ", ".join(sorted(f"{s} = {sizes.symbol_value(s)}" for s in bound))
                return RefinementError(_causes(sizes, unit, op.variable, set(bound)),
                                       Conflict(unit.label, (), (
                    f"{describe(op.variable)} axis {axis} has size {entry}, which has no "
                    f"value {f'where {where}' if where else 'here'} ({exc})")))
    raise AssertionError("undefined_size: every size of the unit has a value")


def _causes(sizes: Sizes, unit: Unit, broken: Variable, bound: set) -> tuple[Step, ...]:
    """The steps that gave the sizes ``bound`` to the other operands of ``unit`` (the
    broken variable's own sizes cannot all be written); none if a step would need a size
    that has no value either."""
    story = _Story(sizes)
    try:
        for op in unit.operands:
            if op.variable is None or op.variable is broken:
                continue
            for axis, entry in enumerate(sizes.entries[op.variable]):
                if bound & set(symbols_of(entry)):
                    story.explain((op.variable, axis))
    except ZeroDivisionError:
        return ()
    return tuple(story.steps)


class _Story:
    """Explains sizes as steps, causes first.

    Each binding made by a unit is either a *decision* (the unit's relation gave a
    size from its other operands) or a *link* (it made two unknown sizes one). The
    size of an axis is explained by the nearest decision reached through links: the
    decision's step, then one step per link back to the axis.
    """

    def __init__(self, sizes: Sizes) -> None:
        self.sizes = sizes
        self.steps: list[Step] = []
        self.done: set[Axis] = set()
        self.origins: dict[Axis, list] = {}
        self.links: dict[Axis, list] = {}
        for symbol, binding in sizes.bindings.items():
            unit = binding.source
            holding = self._holding(unit, symbol, None)
            if isinstance(binding.value, Hole):
                other = self._holding(unit, binding.value, symbol)
                if holding and other:
                    self.links.setdefault(holding[0], []).append((other[0], unit))
                    self.links.setdefault(other[0], []).append((holding[0], unit))
            else:
                for ax in holding:
                    self.origins.setdefault(ax, []).append((unit, symbol))

    def _reaches(self, entry: Entry, target: Hashable, avoid: Hashable | None) -> bool:
        stack, seen = list(symbols_of(entry)), set()
        bindings = self.sizes.bindings
        while stack:
            s = stack.pop()
            if s is target:
                return True
            if s is avoid or s in seen:
                continue
            seen.add(s)
            if s in bindings:
                stack.extend(symbols_of(bindings[s].value))
        return False

    def _holding(self, unit: Unit, symbol: Hashable, avoid: Hashable | None) -> list[Axis]:
        """The operand axes of ``unit`` whose sizes go through ``symbol``."""
        return [(op.variable, a) for op in unit.operands if op.variable is not None
                for a, e in enumerate(self.sizes.entries[op.variable])
                if self._reaches(e, symbol, avoid)]

    def value(self, ax: Axis) -> Entry:
        return self.sizes.current(ax[0])[ax[1]]

    def explain(self, start: Axis) -> None:
        """Add the steps that gave axis ``start`` its size (nothing if it was given),
        causes first. Iterative: a chain through 100,000 nodes is followed whole."""
        stack: list[tuple[Axis, tuple | None]] = [(start, None)]
        while stack:
            ax, ready = stack.pop()
            if ready is not None:  # its causes are explained: the steps themselves
                self._emit(*ready)
                continue
            if ax in self.done:
                continue
            self.done.add(ax)
            path = self._path_to_origin(ax)
            if path is None:
                found = self._forward(ax)
                if found is not None:  # fixed when the graph was built, by its node
                    unit, premises = found
                    stack.append((ax, (ax, unit, premises, [])))
                    stack.extend((p, None) for p in reversed(premises))
                continue
            (origin, (unit, symbol)), links = path
            premises = [(unit.operands[i].variable, a) for i, a in self._premises(unit, symbol)
                        if unit.operands[i].variable is not None]
            self.done.update([origin] + [nxt for nxt, _ in links])
            stack.append((ax, (origin, unit, premises, links)))
            stack.extend((p, None) for p in reversed(premises))

    def _emit(self, origin: Axis, unit: Unit, premises: list[Axis], links: list) -> None:
        self.steps.append(Step(origin[0], origin[1], self.value(origin), unit.label,
                               tuple((v, a, self.value((v, a))) for v, a in premises)))
        previous = origin
        for nxt, link_unit in links:
            self.steps.append(Step(nxt[0], nxt[1], self.value(nxt), link_unit.label,
                                   ((previous[0], previous[1], self.value(previous)),)))
            previous = nxt

    def _forward(self, ax: Axis) -> tuple[Unit, list[Axis]] | None:
        """The node that gave axis ``ax`` its known size when the graph was built, and the
        axes of its operands it decided it from; None for a size the user wrote (an input
        of the graph) or one no node decides alone."""
        variable, axis = ax
        node = variable.owner
        if node is None or has_hole(self.value(ax)):
            return None
        relation = node_relation(node)
        if relation is None:
            return None
        unit = node_unit(node, relation)
        where = (len(node.inputs) + next(i for i, o in enumerate(node.outputs) if o is variable),
                 axis)
        premises = self._premises_for(unit, frozenset([where]))
        if premises is None:
            return None
        return unit, [(unit.operands[i].variable, a) for i, a in premises]

    def _premises(self, unit: Unit, symbol: Hashable) -> list[tuple[int, int]]:
        """The operand axes (operand index, axis) from which ``unit`` decides
        ``symbol``: with the axes that hold ``symbol`` erased it still decides them;
        erasing a premise as well, it no longer does."""
        sizes = self.sizes
        holding = frozenset((i, a) for i, op in enumerate(unit.operands)
                            if op.variable is not None
                            for a, e in enumerate(sizes.entries[op.variable])
                            if self._reaches(e, symbol, None))
        return self._premises_for(unit, holding) or []

    def _premises_for(self, unit: Unit, holding: frozenset) -> list[tuple[int, int]] | None:
        """The operand axes from which ``unit`` decides the axes ``holding`` (None if it
        does not decide them once they are erased)."""
        sizes = self.sizes

        def decided(erase: frozenset) -> bool:
            found = run(unit, _operands(sizes, unit, erase))
            return found is not None and any(
                isinstance(s, _Erased) and (s.operand, s.axis) in holding and not any(
                    isinstance(t, _Erased) for t in symbols_of(v))
                for s, v in found.items())

        if not holding or not decided(holding):
            return None
        known = [(i, a) for i, op in enumerate(unit.operands)
                 for a, e in enumerate(op.fixed if op.variable is None
                                       else sizes.current(op.variable))
                 if (i, a) not in holding and not has_hole(e)]
        out = [ax for ax in known if not decided(holding | {ax})]
        if out or not known:
            return out
        # every size is decided twice over (c = concatenate(a, b[3,5]) built as [?,5]
        # decides a axis 1 from b or from c): keep the fewest that decide it, inputs
        # before outputs (erasing outputs first)
        erased, kept = set(holding), []
        for ax in sorted(known, key=lambda ax: ax[0] < unit.n_inputs):
            if decided(frozenset(erased | {ax})):
                erased.add(ax)
            else:
                kept.append(ax)
        return sorted(kept)

    def _path_to_origin(self, start: Axis) -> tuple | None:
        """The nearest decision from ``start`` through links (breadth first): the
        decided axis with its unit and symbol, and the links from there to ``start``."""
        parent: dict[Axis, tuple | None] = {start: None}
        queue = [start]
        for ax in queue:
            if ax in self.origins:
                found, links = ax, []
                while parent[ax] is not None:
                    prev, unit = parent[ax]
                    links.append((prev, unit))
                    ax = prev
                return (found, self.origins[found][0]), links
            for nxt, unit in self.links.get(ax, ()):
                if nxt not in parent:
                    parent[nxt] = (ax, unit)
                    queue.append(nxt)
        return None

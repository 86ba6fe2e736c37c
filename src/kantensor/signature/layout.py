"""The layout of an alternative's axes: its groups (the variable-length parts of its
operands) and the items of each operand, per flexible-dims variant, compiled once per
alternative. :class:`kantensor.signature.axes.Structure` applies it.

Groups: every variable-length part of an operand is a *group*: ``...``, ``*name``, the
j-th ``.k.`` group, and the implicit group of loop dims placed first when the
alternative has a loop prefix (and no ``...``/``*name``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..graph.once import once
from ..syntax import ast as A
from ..syntax.alternative import Alternative, Loop, Place
from ..types.interning import WeakInterner
from .flex import Flexible, flexible

__all__ = ["LOOP", "Axes", "Group", "GroupKind", "Item", "Layout"]


class GroupKind(Enum):
    """The kinds of variable-length parts of an operand."""

    LOOP = "loop dims"  # the implicit loop dims of a loop prefix
    ANON = ".k."  # the j-th anonymous group
    ANY = "..."
    NAMED = "*name"


class Group:
    """A group of axes: the loop dims, the ``index``-th ``.k.`` group (``length`` k),
    ``...``, or ``*name``. Interned: equal groups are one object, the same in every
    operand that holds it, so groups compare and hash by identity (every application of
    an alternative keys its terms on them)."""

    __slots__ = ("kind", "name", "index", "length", "_text", "__weakref__")
    kind: GroupKind
    name: str | None
    index: int | None
    length: int | None

    def __new__(cls, kind: GroupKind, name: str | None = None, index: int | None = None,
                length: int | None = None) -> Group:
        key = (kind, name, index, length)
        return _GROUPS.get(key) or _GROUPS.intern(key, cls._make(*key))

    @classmethod
    def _make(cls, kind: GroupKind, name: str | None, index: int | None,
              length: int | None) -> Group:
        self = object.__new__(cls)
        for attr, value in (("kind", kind), ("name", name), ("index", index),
                            ("length", length)):  # fmt: skip
            object.__setattr__(self, attr, value)
        if kind is GroupKind.LOOP:
            text = "loop dims"
        elif kind is GroupKind.ANON:
            text = f"group #{index + 1} of the .k. groups"  # type: ignore[operator]
        else:
            text = f"group {'...' if kind is GroupKind.ANY else '*' + str(name)}"
        object.__setattr__(self, "_text", text)  # named once: broadcasts are labelled by it
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Group is immutable")

    def __reduce__(self) -> tuple:
        return (Group, (self.kind, self.name, self.index, self.length))

    def __repr__(self) -> str:
        return f"Group({self.kind}, name={self.name!r}, index={self.index}, " \
               f"length={self.length})"

    def __str__(self) -> str:
        """How messages name the group."""
        return self._text


_GROUPS = WeakInterner()
LOOP = Group(GroupKind.LOOP)


@dataclass(frozen=True)
class Item:
    """One position of an operand pattern: a single axis (an AST dim) or a group;
    ``length`` is the group's number of axes when it is known (``.k.``)."""

    node: Any
    length: int | None = None
    #: the node if it is a group, else None (read on every match: computed once)
    group: Group | None = field(init=False, repr=False, compare=False)
    #: a single axis as a direct build matches a shape against it: ``(name, None)`` for
    #: a name, ``(None, size)`` for a fixed size, ``(None, None)`` for another dim;
    #: None for a group (an item is shared by the layouts: made once)
    pair: tuple[str | None, int | None] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        node = self.node
        group = node if isinstance(node, Group) else None
        object.__setattr__(self, "group", group)
        object.__setattr__(self, "pair", None if group is not None else (
            (node.name, None) if type(node) is A.DimVar else
            (None, node.size) if type(node) is A.FixedDim else (None, None)))


@dataclass(frozen=True)
class Layout:
    """The items of every operand for one flexible-dims variant."""

    items: tuple[tuple[Item, ...], ...]
    groups: tuple[Group, ...]  # the groups, in order of appearance
    #: per operand, NumPy's rule for its flexible dims under this variant: ``(present,
    #: full)``, it applies iff ``(rank >= full) == present``; None: no flexible dims
    rank_rules: tuple[tuple[bool, int] | None, ...] = ()

    def __post_init__(self) -> None:
        # per operand: its groups of any length, its axes outside them, and its group of
        # any length if it has exactly one (what matching a shape needs, computed once)
        if not self.groups:  # (single axes only: most layouts a template renders)
            object.__setattr__(self, "counts", tuple([(0, len(row), None)
                                                      for row in self.items]))
            return
        counts = []
        for row in self.items:
            variables = tuple(it for it in row if it.group and it.length is None)
            fixed = sum(1 if it.group is None else (it.length or 0) for it in row)
            counts.append((len(variables), fixed, variables[0] if variables else None))
        object.__setattr__(self, "counts", tuple(counts))

    @property
    def holders(self) -> dict[Group, tuple[int, ...]]:
        """Per group, the operands that hold it (made when first asked: a layout whose
        groups are not broadcast, most of those a template renders, never asks)."""
        found = self.__dict__.get("_holders")
        if found is None:
            found = self._index()[0]
        return found

    @property
    def starts(self) -> dict[tuple[int, Group], tuple[int, tuple[Group, ...]]]:
        """Per (operand, group), the single axes and the groups before it there (where
        it starts, for messages; made when first asked)."""
        found = self.__dict__.get("_starts")
        if found is None:
            found = self._index()[1]
        return found

    def _index(self) -> tuple[dict, dict]:
        """:attr:`holders` and :attr:`starts`, found in one pass and kept."""
        holders: dict[Group, dict[int, None]] = {}
        starts: dict[tuple[int, Group], tuple[int, tuple[Group, ...]]] = {}
        for i, row in enumerate(self.items):
            singles, before = 0, []
            for it in row:
                if it.group is None:
                    singles += 1
                    continue
                holders.setdefault(it.group, {})[i] = None
                starts.setdefault((i, it.group), (singles, tuple(before)))
                before.append(it.group)
        found = {g: tuple(v) for g, v in holders.items()}, starts
        object.__setattr__(self, "_holders", found[0])
        object.__setattr__(self, "_starts", found[1])
        return found


class Axes:
    """How the operands of an alternative lay out their axes, per variant (compiled once
    per alternative, with the layouts it is asked for)."""

    def __init__(self, alt: Alternative) -> None:
        self.alt = alt
        self.n_in = len(alt.inputs)
        self.broadcast = alt.loop is Loop.BROADCAST
        # loop dims of their own unless a group of any length holds them
        self.loop = alt.loop is not None and not any(
            isinstance(d, A.AnyGroup | A.NamedGroup) for op in alt.operands for d in op.dims)
        self.flex: Flexible | None = flexible(alt)
        self._layouts: dict[tuple[bool, ...], Layout | None] = {}
        #: the one layout when there are no flexible dims (read on every check)
        self.fixed: Layout | None = self.layout() if self.flex is None else None

    @once
    def places(self) -> tuple[Place, ...]:
        """Each operand's place (what messages call it), read on every match of the
        relation; made when first asked (a direct build never asks)."""
        return tuple([self.alt.place(i) for i in range(len(self.alt.operands))])

    def where(self, i: int) -> Place:
        return self.places[i]

    def layout(self, presence: tuple[bool, ...] = ()) -> Layout | None:
        """The layout of the variant selected by ``presence`` (``()`` without flexible
        dims); None if that variant is inconsistent."""
        if presence in self._layouts:
            return self._layouts[presence]
        if self.flex is None:  # (one layout, shared by the alternatives of its operands)
            alt = self.alt
            key = (alt.inputs, alt.outputs, self.loop)
            out = _SHARED.get(key)
            if out is None:
                if len(_SHARED) >= 4096:
                    _SHARED.clear()
                out = _SHARED[key] = self._build(alt, presence)
            self._layouts[presence] = out
            return out
        variant = self.flex.variant(presence)
        out = self._layouts[presence] = None if variant is None else \
            self._build(variant, presence)
        return out

    def _build(self, variant: Alternative, presence: tuple[bool, ...]) -> Layout:
        items: list[tuple[Item, ...]] = []
        for op in variant.operands:
            row = [_LOOP_ITEM] if self.loop else []
            j = 0
            for d in op.dims:
                kind = type(d)
                if kind is A.DimVar or kind is A.FixedDim:  # (most axes: a shared item)
                    found = _ITEMS.get(d)
                    row.append(found if found is not None else _item(d))
                elif isinstance(d, A.AnonGroup):
                    row.append(Item(Group(GroupKind.ANON, index=j, length=d.k), d.k))
                    j += 1
                elif isinstance(d, A.AnyGroup):
                    row.append(Item(Group(GroupKind.ANY)))
                elif isinstance(d, A.NamedGroup):
                    row.append(Item(Group(GroupKind.NAMED, name=d.name)))
                else:
                    row.append(_item(d))
            items.append(tuple(row))
        groups = tuple(dict.fromkeys(it.group for row in items for it in row if it.group))
        flex = self.flex
        rules = (None,) * len(items) if flex is None else tuple(
            None if flex.present(presence, i) is None
            else (flex.present(presence, i), flex.full(i)) for i in range(len(items)))
        return Layout(tuple(items), groups, rules)


#: The layouts of alternatives without flexible dims, by their operands and loop prefix:
#: a template's alternatives that differ in their where-clauses alone (a gather's
#: bound on its index, its case of an empty index) lay out their axes alike, and a
#: Layout is immutable (see :meth:`Axes.layout`).
_SHARED: dict[tuple, Layout] = {}


#: The item of the loop dims (an Item is immutable: one serves every layout).
_LOOP_ITEM = Item(LOOP)

#: The items of names and fixed sizes made so far (an alternative's layout is made
#: when it is first compiled, at each new rank: most of its items are these).
_ITEMS: dict[Any, Item] = {}


def _item(d: Any) -> Item:
    """The item of a single axis ``d``: one per name or fixed size, shared."""
    if type(d) is not A.DimVar and type(d) is not A.FixedDim:
        return Item(d)
    found = _ITEMS.get(d)
    if found is None:
        if len(_ITEMS) >= 4096:
            _ITEMS.clear()
        found = _ITEMS[d] = Item(d)
    return found

"""The sizes of a whole graph while it is refined: symbols and what is known of them.

Every axis of every Variable holds a size: an int, a Dim over the user's named Dims,
or an unknown. Each unknown axis gets its own :class:`Hole` (a symbol of the Dim
algebra, keyed by object), so that "these two unknown sizes are equal" can be learnt
by one node and used by another. Refinement binds symbols (a hole, or a user's Dim
the graph forces) to values; each binding removes one free symbol for good, so the
worklist ends.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple

from ..graph.basic import Variable
from ..types.dim import Dim, DimLike, unknown
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType

__all__ = ["Binding", "Entry", "Hole", "Sizes", "as_dim", "has_hole", "symbol_dim",
           "symbols_of"]


class Hole:
    """The unknown size of one axis of one Variable (identity by object). An entry
    that is a lone unknown is the Hole itself; inside an expression it is the Dim
    algebra's unknown keyed by the Hole (:attr:`dim`)."""

    __slots__ = ("variable", "axis", "_dim")

    def __init__(self, variable: Variable, axis: int) -> None:
        self.variable = variable
        self.axis = axis
        self._dim: Dim | None = None

    @property
    def dim(self) -> Dim:
        if self._dim is None:
            self._dim = unknown(self)
        return self._dim

    def __repr__(self) -> str:
        return f"{self.variable} axis {self.axis}"


#: A size while refining: an int, a lone unknown, or a Dim (named Dims, expressions).
Entry = int | Hole | Dim


def symbol_dim(symbol: Hashable) -> Dim:
    """The Dim of one symbol: a user's named Dim, or an unknown."""
    if isinstance(symbol, str):
        return Dim(symbol)
    return symbol.dim if isinstance(symbol, Hole) else unknown(symbol)


def as_dim(entry: Entry) -> DimLike:
    """An entry in the Dim algebra."""
    return entry.dim if isinstance(entry, Hole) else entry


def symbols_of(entry: Entry) -> frozenset:
    """The symbols an entry mentions (holes and the names of Dims)."""
    if isinstance(entry, int):
        return frozenset()
    return frozenset((entry,)) if isinstance(entry, Hole) else free_symbols(entry)


def has_hole(entry: Entry) -> bool:
    """Does the entry still involve an unknown size?"""
    return isinstance(entry, Hole) or (isinstance(entry, Dim) and any(
        isinstance(s, Hole) for s in free_symbols(entry)))


class Binding(NamedTuple):
    """Why a symbol has its value: the unit (node or given type) whose relation forced
    it (in :attr:`Sizes.bindings`, whose order is the order they were made)."""

    value: Entry
    source: Any


_new_binding = tuple.__new__  # (a Binding without a Python frame)


class Sizes:
    """The graph's sizes: each Variable's entries, and the bindings of its symbols."""

    def __init__(self) -> None:
        self.entries: dict[Variable, tuple[Entry, ...]] = _Entries()
        self.bindings: dict[Hashable, Binding] = {}
        #: resolved values, with the number of bindings when they were resolved
        self._resolved: dict[Hashable, tuple[Entry, int]] = {}
        #: which Variables mention a symbol (directly, or through a binding); a hole
        #: missing is mentioned by its own Variable only (:meth:`_users`)
        self.users: dict[Hashable, list[Variable]] = {}
        #: each Variable's current sizes and whether they involve an unknown (what
        #: :meth:`resolve_entries` gives), kept up to date by :meth:`bind` through
        #: ``users``; a Variable missing is resolved again when asked
        self.known: dict[Variable, tuple[tuple[Entry, ...], bool]] = {}
        #: how many holes are not bound (none: no size involves an unknown)
        self.free_holes = 0
        #: ``{n: ((n,), False)}``: the known sizes of a one-axis Variable whose hole is
        #: bound to the int n, one tuple per n, so that the Variables a chain binds to 7
        #: share their sizes and their refined type (:meth:`types_of` compares the
        #: sizes by object first)
        self._alone: dict[int, tuple[tuple[int], bool]] = {}

    def copy(self) -> Sizes:
        """An independent copy (the entries are shared: they never change)."""
        new = Sizes.__new__(Sizes)
        new.entries = self.entries
        new.bindings = dict(self.bindings)
        new._resolved = dict(self._resolved)
        new.users = {k: list(v) for k, v in self.users.items()}
        new.known = {}  # (each Sizes drops its own when it binds)
        new.free_holes = self.free_holes
        new._alone = self._alone  # (immutable values: shared)
        return new

    def add_all(self, variables: list[Variable]) -> None:
        """Register each tensor Variable of ``variables`` (:meth:`add`; a sequence's or
        an optional's type stays as it is) but the scalars: nothing to refine, and a
        chain's million constants need no entries (:class:`_Entries` gives them)."""
        add, entries, known = self.add, self.entries, self.known
        holes = 0
        for v in variables:
            t = v.type
            if not isinstance(t, TensorType):
                continue
            shape = t.shape
            if not shape:
                continue
            if shape != (None,) or v in entries:
                add(v)
                continue
            hole = Hole(v, 0)  # (add written out for one unknown axis, the usual case)
            entries[v] = one = (hole,)
            known[v] = (one, True)
            holes += 1
        self.free_holes += holes

    def add(self, variable: Variable) -> None:
        """Register ``variable``: its unknown axes become holes."""
        if variable in self.entries:
            return
        entries = variable.type.shape
        users = self.users
        plain = True
        named = False
        for axis, size in enumerate(entries):
            if type(size) is int:
                continue
            plain = False
            if size is None:  # an unknown axis: a hole of its own
                hole = Hole(variable, axis)
                entries = (*entries[:axis], hole, *entries[axis + 1:])
                self.free_holes += 1
            else:
                named = True
                for symbol in free_symbols(size):
                    users.setdefault(symbol, []).append(variable)
        self.entries[variable] = entries
        if not named:  # ints and its own new holes, none bound: known as they are
            self.known[variable] = (entries, not plain)

    def resolve(self, entry: Entry) -> Entry:
        """``entry`` with every bound symbol replaced by what it is bound to."""
        if isinstance(entry, int):
            return entry
        bindings = self.bindings
        if isinstance(entry, Hole):
            return self.symbol_value(entry) if entry in bindings else entry
        name = entry.name
        if name is not None:  # a lone named Dim
            return self.symbol_value(name) if name in bindings else entry
        free = free_symbols(entry)
        if not any(s in bindings for s in free):
            return entry
        return substitute(entry, {s: as_dim(self.symbol_value(s))
                                  for s in free if s in bindings})

    def symbol_value(self, symbol: Hashable) -> Entry:
        """The current value of a symbol (itself, or its Dim, when free)."""
        binding = self.bindings.get(symbol)
        if binding is None:
            return symbol if isinstance(symbol, Hole) else symbol_dim(symbol)
        stamp = len(self.bindings)
        cached = self._resolved.get(symbol)
        if cached is not None and (cached[1] == stamp or _settled(cached[0], self.bindings)):
            if cached[1] != stamp:
                self._resolved[symbol] = (cached[0], stamp)
            return cached[0]
        value = self.resolve(binding.value)
        self._resolved[symbol] = (value, stamp)
        return value

    def current(self, variable: Variable) -> tuple[Entry, ...]:
        """The variable's sizes as known now."""
        cached = self.known.get(variable)
        return (cached or self.resolve_entries(variable))[0]

    def open(self, variable: Variable) -> bool:
        """Do the variable's sizes still involve an unknown?"""
        cached = self.known.get(variable)
        return (cached or self.resolve_entries(variable))[1]

    def resolve_entries(self, variable: Variable) -> tuple[tuple[Entry, ...], bool]:
        """The variable's current sizes and whether they involve an unknown, kept until
        a symbol they mention is bound (:meth:`bind` updates or drops them)."""
        resolve = self.resolve
        value = tuple([resolve(e) for e in self.entries[variable]])
        holes = False
        for e in value:
            if type(e) is not int and has_hole(e):
                holes = True
                break
        cached = self.known[variable] = (value, holes)
        return cached

    def bind(self, symbol: Hashable, value: Entry, source: Any) -> list[Variable]:
        """Bind a free symbol; returns the Variables whose sizes changed."""
        self.bindings[symbol] = _new_binding(Binding, (value, source))
        if type(symbol) is Hole:
            self.free_holes -= 1
        changed = self.users.pop(symbol, None)  # (bound once: never asked again)
        if changed is None:
            changed = [symbol.variable] if type(symbol) is Hole else []
        known = self.known
        if type(value) is int:  # (what (symbol,) is now: for an int, one tuple per value,
            alone = self._alone.get(value)  # which the Variables bound to it share)
            if alone is None:
                alone = self._alone[value] = ((value,), False)
        else:
            alone = ((value,), type(value) is Hole or has_hole(value))
        for v in changed:  # their sizes mention the symbol
            cached = known.get(v)
            if cached is not None:
                entries = cached[0]
                if len(entries) == 1 and entries[0] is symbol:
                    cached = alone
                else:
                    cached = _rebound(entries, symbol, value)
                if cached is None:  # resolved again when asked
                    del known[v]
                else:
                    known[v] = cached
        if type(value) is Hole:  # (_users written out)
            users = self.users.get(value)
            if users is None:
                self.users[value] = [value.variable, *changed]
            else:
                users.extend(changed)
        elif not isinstance(value, int):
            for s in free_symbols(value):
                self._users(s).extend(changed)
        return changed

    def _users(self, symbol: Hashable) -> list[Variable]:
        """The Variables that mention ``symbol``, filed (a hole's start with its own)."""
        users = self.users.get(symbol)
        if users is None:
            users = self.users[symbol] = [symbol.variable] if type(symbol) is Hole else []
        return users

    def types_of(self, variables: list[Variable]) -> dict[Variable, TensorType]:
        """The refined type of each Variable (:meth:`type_of`; a Variable that is not
        registered keeps its type), one TensorType per refined shape."""
        made: dict = {}
        known, entries, type_of = self.known.get, self.entries, self.type_of
        out = {}
        last = (None, None, None)  # the last made type, its dtype and sizes (the object)
        for v in variables:
            t = v.type
            if type(t) is TensorType and not t.shape:  # a scalar (a chain's constants):
                out[v] = t  # no sizes to refine, and never filed (no lookup that misses)
                continue
            cached = known(v)
            if cached is not None:
                value, holes = cached
                if value is t.shape:
                    out[v] = t  # sizes all ints, as the graph has them
                    continue
                if not holes:  # (type_of written out: one made type per shape)
                    if value is last[2] and t.dtype == last[1]:  # (Variables bound
                        out[v] = last[0]  # together share their sizes' tuple)
                        continue
                    key = (t.dtype, value)
                    made_t = made.get(key)
                    if made_t is None:
                        made_t = made[key] = TensorType(t.dtype, value)
                    out[v] = made_t
                    last = (made_t, t.dtype, value)
                    continue
            out[v] = type_of(v, made) if v in entries else v.type
        return out

    def type_of(self, variable: Variable, made: dict | None = None) -> TensorType:
        """The refined TensorType: a size that still involves an unknown is ``None``
        (``made``: the types made so far, by dtype and sizes, to reuse)."""
        value, holes = self.known.get(variable) or self.resolve_entries(variable)
        if value is variable.type.shape:  # sizes all ints, as the graph has them
            return variable.type
        key = (variable.type.dtype, value)
        if made is not None and not holes:
            t = made.get(key)
            if t is not None:
                return t
        t = TensorType(variable.type.dtype, [None if has_hole(v) else v for v in value]
                       if holes else value)
        if made is not None and not holes:
            made[key] = t
        return t


class _Entries(dict):
    """Each registered Variable's entries; a scalar tensor Variable, never registered,
    has none (``()``) without being filed (``in`` is False for it)."""

    def __missing__(self, variable: Variable) -> tuple:
        t = getattr(variable, "type", None)
        if isinstance(t, TensorType) and t.shape == ():
            return ()
        raise KeyError(variable)


def _rebound(entries: tuple[Entry, ...], symbol: Hashable, value: Entry
             ) -> tuple[tuple[Entry, ...], bool] | None:
    """Resolved sizes after ``symbol`` is bound to ``value`` (itself resolved), with
    whether they involve an unknown: each lone hole that is the symbol becomes the
    value. None where the symbol is inside an expression (a Dim)."""
    out = []
    holes = False
    for e in entries:
        if e is symbol:
            e = value
        elif type(e) is not int and type(e) is not Hole:
            return None
        if type(e) is not int and has_hole(e):
            holes = True
        out.append(e)
    return tuple(out), holes


def _settled(entry: Entry, bindings: dict) -> bool:
    """Is ``entry`` free of bound symbols (so a cached resolution still holds)?"""
    if isinstance(entry, int):
        return True
    if isinstance(entry, Hole):
        return entry not in bindings
    return not any(s in bindings for s in free_symbols(entry))

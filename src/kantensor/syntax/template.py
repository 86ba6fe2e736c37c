"""Templates: a signature with placeholders, parsed once, filled with objects.

An Op with parameters (a catalogue entry with a builder) writes its signature as a
template: the DSL with placeholders ``{name}`` that its builder fills, for each input
ranks, with the objects of :mod:`kantensor.syntax.ast` (never text to parse again):

- ``{sig}`` as a whole alternative: an :class:`Alternative` or a sequence of them (or
  anything with ``alternatives``, a Signature);
- ``{x}`` as an operand (``{x}:T``): a sequence of dims (``[a0, 1, a2]``, ints are
  fixed sizes) or a :class:`TensorPattern`; as an operand without a dtype it may also
  be several operands (a sequence of TensorPatterns, ``{inputs}``);
- ``({n},u)``, ``{given} == 0``: a dim expression or an int;
- ``:{dtype}``, ``{t} in floating``: a dtype term or a dtype's name;
- right after an operand or a where-clause (``{x}:T{rest}->{y}:T{fits}``): a sequence
  of operands and where-clauses, spliced there (the clauses join the alternative's
  where-clauses, those of operands first).

A where-clause naming a set of dtypes (``Z in (int8, uint8)``) on a dtype variable that no
operand of a filled alternative has is left out of it: the variable of an optional input
the builder left out (the catalogue states each ONNX input's set once, whichever inputs a
node has). ``{sig} where ...`` adds its where-clauses to each alternative ``{sig}`` is
filled with.

:meth:`Template.fill` builds the alternatives (each checked as any alternative is); the
parts without a placeholder are built once, when the template is parsed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .alternative import Alternative, Loop, with_clauses
from .ast import (
    CLAUSE_TYPES,
    EXPR_TYPES,
    AnonGroup,
    AnyGroup,
    Clause,
    DTypeHole,
    DTypeName,
    DTypeVar,
    FlexDim,
    Hole,
    InCategory,
    NamedGroup,
    TensorPattern,
    dtype_names,
)
from .errors import placeholder_error

__all__ = ["AlternativeHole", "AlternativeTemplate", "OperandHole", "Operands", "Spliced",
           "Template",
           "TemplateError", "TemplateRules"]


class Operands(tuple):
    """Operands to fill one operand placeholder with (``{inputs}``, ``{sizes}``): as
    many as it holds, none at all when it is empty (an empty list of dims is one 0-d
    operand)."""

    __slots__ = ()


class TemplateError(TypeError):
    """A builder filled a placeholder with something that cannot stand there."""


@dataclass(frozen=True)
class OperandHole:
    """``{name}`` or ``{name}:dtype`` standing for an operand (or, without a dtype,
    several)."""

    name: str
    dtype: Any = None

    def __str__(self) -> str:
        return "{" + self.name + "}" + ("" if self.dtype is None else f":{self.dtype}")


@dataclass(frozen=True)
class Spliced:
    """An operand or where-clause followed by placeholders (``{x}:T{rest}``) whose
    operands and clauses are spliced after it."""

    item: Any
    names: tuple[str, ...]

    def __str__(self) -> str:
        return str(self.item) + "".join("{" + n + "}" for n in self.names)


@dataclass(frozen=True)
class AlternativeHole:
    """``{name}`` standing for whole alternatives; ``where``: clauses that join each of
    them (``{sig} where T in (float16, float32)``: the catalogue states an op's dtype
    sets once, whatever alternatives its builder makes)."""

    name: str
    where: tuple[Any, ...] = ()

    def __str__(self) -> str:
        text = "{" + self.name + "}"
        return text + (" where " + ", ".join(map(str, self.where)) if self.where else "")


@dataclass(frozen=True)
class AlternativeTemplate:
    """One alternative with placeholders; ``built`` is the alternative itself when it
    has none (built and checked once)."""

    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...]
    where: tuple[Any, ...]
    loop: Loop | None
    max_loop_dims: int | None
    built: Alternative | None = None

    def __str__(self) -> str:
        loop = ("" if self.loop is None else self.loop.value) + \
            ("" if self.max_loop_dims is None else str(self.max_loop_dims))
        text = f"{loop}{','.join(map(str, self.inputs))}->{','.join(map(str, self.outputs))}"
        return text + (" where " + ", ".join(map(str, self.where)) if self.where else "")


class Template:
    """A signature template, parsed once (:func:`kantensor.syntax.parser.parse_template`);
    ``fill(values)`` gives its alternatives for the placeholders' values."""

    __slots__ = ("alternatives", "dtype_holes", "holes", "n_inputs", "n_outputs")

    def __init__(self, alternatives: Iterable[AlternativeTemplate | AlternativeHole]):
        self.alternatives = tuple(alternatives)
        found: dict[str, type | None] = {}
        for alt in self.alternatives:
            _collect(alt, found)
        #: the placeholders' names, in order of appearance, and those standing for dtypes
        self.holes: tuple[str, ...] = tuple(found)
        self.dtype_holes = frozenset(n for n, kind in found.items() if kind is DTypeHole)
        first = self.alternatives[0]
        plain = isinstance(first, AlternativeTemplate)
        #: top-level operands of the first alternative's sides, a placeholder counted as
        #: one (what the text shows; a builder may make it several)
        self.n_inputs = len(first.inputs) if plain else 1
        self.n_outputs = len(first.outputs) if plain else 1

    def __str__(self) -> str:
        return " | ".join(map(str, self.alternatives))

    def __repr__(self) -> str:
        return f"Template({str(self)!r})"

    def fill(self, values: Mapping[str, Any]) -> tuple[Alternative, ...]:
        """The alternatives with each placeholder replaced by ``values[name]``;
        TemplateError for a missing or misplaced value, IllFormed (a ValueError) for an
        alternative the DSL's rules refuse."""
        missing = [n for n in self.holes if n not in values]
        if missing:
            raise TemplateError(f"placeholder{'s' * (len(missing) > 1)} "
                                f"{', '.join('{' + n + '}' for n in missing)} not filled")
        out: list[Alternative] = []
        operands: dict[OperandHole, tuple[TensorPattern, ...]] = {}  # made once a fill
        for alt in self.alternatives:
            if isinstance(alt, AlternativeHole):
                made = _alternatives(alt.name, values[alt.name])
                out.extend(made if not alt.where else [_joined(a, alt.where) for a in made])
            elif alt.built is not None:
                out.append(alt.built)
            else:
                out.append(_fill_alternative(alt, values, operands))
        return tuple(out)


class TemplateRules:
    """The parser's rules for placeholders (a mixin of its transformer, which has
    ``text`` and ``template``: whether the text may have placeholders)."""

    text: str
    template: bool

    def _alternative_template(self, inputs: list, outputs: list, clauses: list,
                              kind: Loop | None, cap: int | None) -> AlternativeTemplate:
        """A template's alternative; built (and checked) now if it has no placeholder."""
        made = AlternativeTemplate(tuple(inputs), tuple(outputs), tuple(clauses), kind, cap)
        if Template([made]).holes:
            return made
        built = Alternative(tuple(inputs), tuple(outputs), tuple(clauses), kind, cap)
        return AlternativeTemplate(built.inputs, built.outputs, built.where, kind, cap, built)

    def _hole(self, tok: Any) -> str:
        if not self.template:
            raise placeholder_error(self.text, tok.start_pos)
        return str(tok)[1:-1]

    def alternative_hole(self, c: list[Any]) -> AlternativeHole:
        return AlternativeHole(self._hole(c[0]), tuple(self._resolve(c[1] or [])))

    def operand_hole(self, c: list[Any]) -> OperandHole:
        return OperandHole(self._hole(c[0]), c[1])

    def spliced(self, c: list[Any]) -> Spliced:
        return Spliced(c[0], tuple(self._hole(t) for t in c[1:]))

    def expr_hole(self, c: list[Any]) -> Hole:
        return Hole(self._hole(c[0]))

    def dtype_hole(self, c: list[Any]) -> DTypeHole:
        return DTypeHole(self._hole(c[0]))


# --------------------------------------------------------------------------- filling


def _fill_alternative(alt: AlternativeTemplate, values: Mapping[str, Any],
                      operands: dict[OperandHole, tuple[TensorPattern, ...]]) -> Alternative:
    """``alt`` filled; ``operands``: the operands each operand placeholder was filled with
    in the alternatives before (the same values fill it alike: ``{x}:t`` in every
    alternative of a reduction is made once)."""
    spliced: list[Clause] = []
    inputs = _fill_side(alt.inputs, values, spliced, operands)
    outputs = _fill_side(alt.outputs, values, spliced, operands)
    where: list[Clause] = spliced
    for c in alt.where:
        if isinstance(c, Spliced):
            where.append(_subst(c.item, values))
            for name in c.names:
                for x in _sequence(name, values[name]):
                    if not isinstance(x, CLAUSE_TYPES):
                        raise TemplateError(f"{{{name}}} after a where-clause takes where-"
                                            f"clauses, got {x!r}")
                    where.append(x)
        else:
            where.append(_subst(c, values))
    where = _bound_sets(where, (*inputs, *outputs))
    return Alternative(tuple(inputs), tuple(outputs), tuple(where), alt.loop,
                       alt.max_loop_dims)


def _joined(alt: Alternative, where: tuple[Clause, ...]) -> Alternative:
    """A ``{sig}``'s alternative ``alt`` with the template's ``{sig} where ...`` clauses
    after its own, without the dtype-set clauses on a variable no operand has (see
    :func:`_bound_sets`, of its own clauses too)."""
    if any(type(c) is InCategory and type(c.category) is tuple for c in alt.where):
        return Alternative(alt.inputs, alt.outputs, tuple(_bound_sets(
            [*alt.where, *where], alt.operands)), alt.loop, alt.max_loop_dims)
    return with_clauses(alt, tuple(_bound_sets(list(where), alt.operands)))


def _bound_sets(where: list[Clause], operands: tuple[TensorPattern, ...]) -> list[Clause]:
    """``where`` without the dtype-set clauses (``Z in (int8, uint8)``) on a dtype
    variable no operand has: the variable of an optional input the node lacks (the
    zero point of a QuantizeLinear without one), which the clause says nothing of."""
    sets = [c for c in where if type(c) is InCategory and type(c.category) is tuple
            and type(c.dtype) is DTypeVar]
    if not sets:
        return where
    names = set()
    for op in operands:  # (most operands' dtype is a variable: its name read as it is)
        dtype = op.dtype
        if type(dtype) is DTypeVar:
            names.add(dtype.name)
        elif dtype is not None:
            names.update(dtype_names(dtype))
    if all([c.dtype.name in names for c in sets]):
        return where
    return [c for c in where if not (type(c) is InCategory and type(c.category) is tuple
                                     and type(c.dtype) is DTypeVar
                                     and c.dtype.name not in names)]


def _fill_side(slots: tuple, values: Mapping[str, Any], clauses: list,
               operands: dict[OperandHole, tuple[TensorPattern, ...]]) -> list:
    out: list[TensorPattern] = []
    for slot in slots:
        names: tuple[str, ...] = ()
        if isinstance(slot, Spliced):
            slot, names = slot.item, slot.names
        if isinstance(slot, OperandHole):
            made = operands.get(slot)
            if made is None:
                made = operands[slot] = _operand(slot, values)
            out.extend(made)
        else:
            out.append(_subst(slot, values))
        for name in names:
            for x in _sequence(name, values[name]):
                if isinstance(x, TensorPattern):
                    out.append(x)
                elif isinstance(x, CLAUSE_TYPES):
                    clauses.append(x)
                else:
                    raise TemplateError(f"{{{name}}} after an operand takes operands and "
                                        f"where-clauses, got {x!r}")
    return out


def _operand(hole: OperandHole, values: Mapping[str, Any]) -> tuple[TensorPattern, ...]:
    """The operands an operand placeholder stands for."""
    value = values[hole.name]
    dtype = None if hole.dtype is None else _subst(hole.dtype, values)
    if isinstance(value, TensorPattern):
        value = [value]
    elif isinstance(value, Operands):
        return tuple(value if dtype is None else [TensorPattern(x.dims, dtype) for x in value])
    elif not isinstance(value, Sequence) or isinstance(value, str):
        raise TemplateError(f"{{{hole.name}}} is an operand: give its dims (a list), "
                            f"got {value!r}")
    if value and all(isinstance(x, TensorPattern) for x in value):
        out = []
        for x in value:
            if dtype is not None and x.dtype is not None:
                raise TemplateError(f"{{{hole.name}}}:{hole.dtype} has its dtype in the "
                                    f"template, but it was given {x}")
            out.append(x if dtype is None else TensorPattern(x.dims, dtype))
        return tuple(out)
    try:
        return (TensorPattern(tuple(value), dtype),)
    except TypeError as exc:
        raise TemplateError(f"{{{hole.name}}}: {exc}") from None


def _sequence(name: str, value: Any) -> Sequence:
    if isinstance(value, (TensorPattern, *CLAUSE_TYPES)):
        return (value,)
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise TemplateError(f"{{{name}}} is spliced: give a list of operands and "
                            f"where-clauses, got {value!r}")
    return value


def _alternatives(name: str, value: Any) -> Sequence[Alternative]:
    value = getattr(value, "alternatives", value)
    if isinstance(value, Alternative):
        return (value,)
    if not isinstance(value, Sequence) or not value or \
            not all(isinstance(a, Alternative) for a in value):
        raise TemplateError(f"{{{name}}} is a whole alternative: give Alternatives or a "
                            f"Signature, got {value!r}")
    return value


#: Nodes that hold no placeholder and are returned as they are.
_LEAVES = (*EXPR_TYPES[:2], DTypeName, DTypeVar, FlexDim, AnonGroup, AnyGroup, NamedGroup,
           int, str, type(None))


def _subst(node: Any, values: Mapping[str, Any]) -> Any:
    """``node`` with its placeholders replaced (the constructors check the values)."""
    if isinstance(node, _LEAVES):
        return node
    if isinstance(node, Hole | DTypeHole):
        return values[node.name]
    if isinstance(node, tuple):
        return tuple(_subst(x, values) for x in node)
    if not _has_hole(node):
        return node
    changes = {f.name: _subst(getattr(node, f.name), values)
               for f in dataclasses.fields(node) if f.name != "message"}
    try:
        return dataclasses.replace(node, **changes)
    except TypeError as exc:
        raise TemplateError(f"in {node}: {exc}") from None


def _has_hole(node: Any) -> bool:
    """Does ``node`` hold a placeholder? (Remembered on the node, which is immutable: a
    :class:`Template`'s walk remembers it on each of its nodes as it goes.)"""
    found = node.__dict__.get("_holes") if hasattr(node, "__dict__") else None
    if found is None:
        found = _collect(node, {})
    return found


def _collect(node: Any, found: dict[str, type | None]) -> bool:
    """Add the names of ``node``'s placeholders to ``found`` (in order of appearance),
    each with the kind of its first use (recursive: a template's nesting is bounded);
    whether it holds one, which each node of fields walked remembers (:func:`_has_hole`
    reads it when the template is filled, instead of walking each node again).

    What a node is (a placeholder, a tuple, a node of fields, a leaf) is read once per
    class (:func:`_kind`), and a leaf among a node's parts is passed over without a
    call: a template's nodes are mostly leaves (names, dtype names, ints), walked once
    per template parsed in a process's first use of each entry."""
    kind = _KINDS.get(type(node))
    if kind is None:
        kind = _kind(type(node))
    if type(kind) is tuple:  # a node of fields (or a leaf: none)
        held = False
        get = _KINDS.get
        for name in kind:
            part = getattr(node, name)
            if get(type(part)) is not _LEAF and _collect(part, found):
                held = True
        if kind and hasattr(node, "__dict__"):
            object.__setattr__(node, "_holes", held)
        return held
    if kind is _TUPLE:
        held = False
        get = _KINDS.get
        for x in node:
            if get(type(x)) is not _LEAF and _collect(x, found):
                held = True
        return held
    if kind is _NAMED:  # Hole, DTypeHole, AlternativeHole
        found.setdefault(node.name, type(node))
        return True
    if kind is _OPERAND:
        found.setdefault(node.name, OperandHole)
        _collect(node.dtype, found)
        return True
    held = _collect(node.item, found)  # (_SPLICED)
    for name in node.names:
        found.setdefault(name, Spliced)
    return held or bool(node.names)


#: What :func:`_collect` does with a node of a class, by class (see :func:`_kind`): one
#: of these markers, or the fields it walks (a tuple of their names; :data:`_LEAF`, no
#: field, for a leaf).
_NAMED, _OPERAND, _SPLICED, _TUPLE = "named", "operand", "spliced", "tuple"
_LEAF: tuple[str, ...] = ()
_KINDS: dict[type, Any] = {}


def _kind(cls: type) -> Any:
    """What a node of class ``cls`` is to :func:`_collect` (filed in :data:`_KINDS`): a
    placeholder's class (its subclasses too), a tuple, else its :func:`_fields`."""
    if issubclass(cls, Hole | DTypeHole | AlternativeHole):
        made: Any = _NAMED
    elif issubclass(cls, OperandHole):
        made = _OPERAND
    elif issubclass(cls, Spliced):
        made = _SPLICED
    elif issubclass(cls, tuple):
        made = _TUPLE
    else:
        made = _fields(cls) or _LEAF
    _KINDS[cls] = made
    return made


#: The fields :func:`_collect` walks, by class (see :func:`_fields`).
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that may hold placeholders (all but ``message``), found
    once a class; none for a leaf (not a dataclass, or one of :data:`_LEAVES`)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = () if not dataclasses.is_dataclass(cls) or issubclass(
            cls, (*_LEAVES, Loop)) else tuple(
                f.name for f in dataclasses.fields(cls) if f.name != "message")
    return names

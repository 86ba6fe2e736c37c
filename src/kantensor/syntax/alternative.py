"""An alternative (one overload) of a signature, and the DSL's one well-formedness check.

:func:`check` runs whenever an :class:`Alternative` is built, from text or from Python.
It raises :class:`IllFormed` naming the offending name, so the parser can point at
it (a SignatureSyntaxError with a position) without repeating any rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from .ast import (
    CLAUSE_TYPES,
    DTYPE_NAMES,
    AnonGroup,
    AnyGroup,
    Broadcasts,
    Clause,
    Compare,
    DimVar,
    DTypeEq,
    DTypeName,
    DTypeVar,
    FixedDim,
    FlexDim,
    InCategory,
    NamedGroup,
    TensorPattern,
    dtype_names,
    expr_names,
    near_dtype,
)
from .ast.names import hashed_once
from .limits import check_ast_nesting

__all__ = ["Alternative", "IllFormed", "Kind", "Loop", "Overloads", "Place", "Side", "check",
           "resolve_dtype_names", "unbound_in_clauses", "with_clauses"]


class Loop(Enum):
    """An alternative's loop prefix; the value is how the DSL writes it."""

    BROADCAST = "+"  # loop dims broadcast (NumPy's rule)
    EQUAL = "="  # loop dims must be equal

    def __str__(self) -> str:
        return self.value


class Kind(Enum):
    """How a name is used; the value is how messages say it."""

    DIM = "dimension"
    FLEX = "flexible dimension 'name?'"
    GROUP = "named group '*name'"
    DTYPE = "dtype variable"


class IllFormed(ValueError):
    """An alternative breaks a rule of the DSL. ``name`` (if any) is the name the
    message is about; ``kind`` the way it is used where the parser should point."""

    def __init__(self, message: str, name: str | None = None, kind: Kind | None = None,
                 expected: str = "a well-formed alternative"):
        super().__init__(message)
        self.name = name
        self.kind = kind
        self.expected = expected


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


class Side(Enum):
    """Where in an alternative a name is used: an input, an output or a where-clause."""

    INPUT = "input"
    OUTPUT = "output"
    WHERE = "where"


@dataclass(frozen=True)
class Place:
    """A place of an alternative: operand ``index`` of a ``side``, or its where-clauses
    (``index`` None). ``str()`` is how messages name it: ``input 0``."""

    side: Side
    index: int | None = None

    def __str__(self) -> str:
        return "a where-clause" if self.side is Side.WHERE else f"{self.side.value} {self.index}"


_IN_WHERE = Place(Side.WHERE)

#: The places of the first operands of each side, made once (a Place is immutable):
#: every alternative a template fills asks for its operands' places when it is checked.
_PLACES = {side: tuple(Place(side, i) for i in range(64)) for side in (Side.INPUT,
                                                                       Side.OUTPUT)}


def _place(side: Side, i: int) -> Place:
    made = _PLACES[side]
    return made[i] if i < len(made) else Place(side, i)


@hashed_once
@dataclass(frozen=True)
class Alternative:
    """One overload: ``[loop] inputs -> outputs [where clauses]``.

    ``loop`` is None (no loop dims) or a :class:`Loop` (given as one, or as its text
    ``"+"``/``"="``); ``max_loop_dims`` caps the number of loop dims.
    """

    inputs: tuple[TensorPattern, ...]
    outputs: tuple[TensorPattern, ...]
    where: tuple[Clause, ...] = ()
    loop: Loop | None = None
    max_loop_dims: int | None = None

    def __post_init__(self) -> None:
        check_ast_nesting(self)  # before anything walks the expressions recursively
        for attr, types in (("inputs", TensorPattern), ("outputs", TensorPattern),
                            ("where", CLAUSE_TYPES)):  # fmt: skip
            items = tuple(getattr(self, attr))
            for x in items:
                if not isinstance(x, types):
                    raise TypeError(f"{attr} must hold {types}, got {x!r}")
            _set(self, attr, items)
        if not self.outputs:
            raise ValueError("a signature needs at least one output")
        if self.loop is not None and not isinstance(self.loop, Loop):
            if self.loop not in ("+", "="):
                raise ValueError(f"loop must be None, a Loop, '+' or '=', got {self.loop!r}")
            _set(self, "loop", Loop(self.loop))
        cap = self.max_loop_dims
        if cap is not None and (
            self.loop is None or isinstance(cap, bool) or not isinstance(cap, int) or cap < 0
        ):
            raise ValueError("max_loop_dims must be an int >= 0 and needs a loop prefix")
        check(self)

    @property
    def operands(self) -> tuple[TensorPattern, ...]:
        return (*self.inputs, *self.outputs)

    def place(self, i: int) -> Place:
        """The place of operand ``i`` of :attr:`operands`."""
        n_in = len(self.inputs)
        return _place(Side.INPUT, i) if i < n_in else _place(Side.OUTPUT, i - n_in)

    def __str__(self) -> str:
        loop = ("" if self.loop is None else self.loop.value) + \
            ("" if self.max_loop_dims is None else str(self.max_loop_dims))
        text = f"{loop}{','.join(map(str, self.inputs))}->{','.join(map(str, self.outputs))}"
        return text + (" where " + ", ".join(map(str, self.where)) if self.where else "")


def with_clauses(alt: Alternative, clauses: tuple[Clause, ...]) -> Alternative:
    """``alt`` with ``clauses`` after its where-clauses, as ``Alternative`` makes it
    (equal, and refused alike). Where each clause is ``T in ...`` of the dtype variable
    of one of ``alt``'s inputs (``{sig} where T in (int8, uint8)``: every render of such
    a template adds them to the alternatives its builder just made and checked), no rule
    of :func:`check` can refuse what ``alt`` passed: ``T`` is a dtype wherever ``alt``
    uses it and an input binds it, a category or a set of dtype names (checked when the
    clause was made) holds no name, and the clause nests one level. So it is made
    without walking ``alt`` again; otherwise it is checked whole."""
    where = (*alt.where, *clauses)
    names = {op.dtype.name for op in alt.inputs if type(op.dtype) is DTypeVar}
    if not all([type(c) is InCategory and type(c.dtype) is DTypeVar and c.dtype.name in names
                for c in clauses]):
        return Alternative(alt.inputs, alt.outputs, where, alt.loop, alt.max_loop_dims)
    made = object.__new__(Alternative)
    for name, value in (("inputs", alt.inputs), ("outputs", alt.outputs), ("where", where),
                        ("loop", alt.loop), ("max_loop_dims", alt.max_loop_dims)):
        _set(made, name, value)
    return made


class Overloads:
    """A signature's alternatives, tried in order: what the solver takes. Immutable,
    hashed once (a cache key); ``str()`` is the canonical text. The public
    :class:`kantensor.Signature` is this with its constructors and ``infer``.
    ``arities`` holds the ``(inputs, outputs)`` counts of its alternatives (every build
    checks them)."""

    __slots__ = ("alternatives", "arities", "_hash")
    alternatives: tuple[Alternative, ...]
    arities: frozenset[tuple[int, int]]

    def __init__(self, alternatives: Iterable[Alternative]) -> None:
        alts = tuple(alternatives)
        if not alts or not all(isinstance(a, Alternative) for a in alts):
            raise TypeError("alternatives must be a non-empty sequence of Alternative")
        object.__setattr__(self, "alternatives", alts)
        object.__setattr__(self, "arities", frozenset(
            (len(a.inputs), len(a.outputs)) for a in alts))
        object.__setattr__(self, "_hash", hash(alts))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __str__(self) -> str:
        return " | ".join(map(str, self.alternatives))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Overloads):
            return NotImplemented
        return self.alternatives == other.alternatives

    def __hash__(self) -> int:
        return self._hash


# --------------------------------------------------------------------------- the check


_Use = tuple[str, Kind, Place]  # (name, kind, place)


def _uses(alt: Alternative) -> tuple[list[_Use], list[tuple[str, str]]]:
    """Every (name, kind, place) used, and the ambiguous bare ``a == b`` dtype pairs."""
    uses, pairs, _ = _scan(alt)
    return uses, pairs


#: The dims that are groups (their rules: :func:`_check_groups`).
_GROUPS = (AnonGroup, AnyGroup, NamedGroup)


def _scan(alt: Alternative) -> tuple[list[_Use], list[tuple[str, str]], bool]:
    """:func:`_uses`, and whether an operand has a group (else no group rule applies).
    One pass, the common dims (a name, a fixed size) first: every alternative a
    template fills is checked, at each new rank."""
    uses: list[_Use] = []
    append = uses.append
    pairs: list[tuple[str, str]] = []
    grouped = False
    n_in = len(alt.inputs)
    for i, op in enumerate(alt.operands):
        place = _place(Side.INPUT, i) if i < n_in else _place(Side.OUTPUT, i - n_in)
        for d in op.dims:
            kind = type(d)
            if kind is DimVar:
                append((d.name, Kind.DIM, place))
            elif kind is FixedDim:
                continue
            elif isinstance(d, FlexDim):
                append((d.name, Kind.FLEX, place))
            elif isinstance(d, _GROUPS):
                grouped = True
                if isinstance(d, NamedGroup):
                    append((d.name, Kind.GROUP, place))
            else:
                uses.extend([(n, Kind.DIM, place) for n in expr_names(d)])
        dtype = op.dtype
        if type(dtype) is DTypeVar:  # (most operands: ``:T``)
            append((dtype.name, Kind.DTYPE, place))
        elif dtype is not None:
            uses.extend([(n, Kind.DTYPE, place) for n in dtype_names(dtype)])
    for c in alt.where:
        if isinstance(c, Compare):
            names = expr_names(c.left) + expr_names(c.right)
            uses.extend([(n, Kind.DIM, _IN_WHERE) for n in names])
        elif isinstance(c, Broadcasts):
            names = [n for a in (*c.args, c.result) for n in expr_names(a)]
            uses.extend([(n, Kind.DIM, _IN_WHERE) for n in names])
        elif isinstance(c, InCategory):
            uses.extend([(n, Kind.DTYPE, _IN_WHERE) for n in dtype_names(c.dtype)])
        elif isinstance(c, DTypeEq) and _bare(c.left) and _bare(c.right):
            pairs.append((c.left.name, c.right.name))
        else:
            names = dtype_names(c.left) + dtype_names(c.right)
            uses.extend([(n, Kind.DTYPE, _IN_WHERE) for n in names])
    return uses, pairs, grouped


def _bare(x: object) -> bool:
    return isinstance(x, DTypeVar | DTypeName)


def check(alt: Alternative) -> None:
    """The well-formedness rules of an alternative; IllFormed on the first broken one."""
    uses, pairs, grouped = _scan(alt)
    bound, closed, dtypes = _check_kinds(uses, pairs)
    _check_typos(dtypes)
    if grouped:
        _check_groups(alt)
    if not closed:  # (every name an input's: nothing to bind, no flexible dim unbound)
        _check_bound(alt, uses, bound)


def _check_kinds(uses: list[_Use], pairs: list[tuple[str, str]]
                 ) -> tuple[set[str], bool, list[str]]:
    """Refuse a name used as two kinds; the names the inputs bind, whether they are
    every name used (in the same pass: :func:`_scan` lists the inputs' uses first), and
    the names used as dtypes, in order of first use."""
    kinds: dict[str, Kind] = {}
    setdefault = kinds.setdefault
    inputs = Side.INPUT
    bound: set[str] = set()
    closed = True
    for name, kind, place in uses:
        if setdefault(name, kind) is not kind:
            _wrong_kind(name, kind, kinds[name])
        if place.side is inputs:
            bound.add(name)
        elif closed and name not in bound:
            closed = False
    dtypes = [name for name, kind in kinds.items() if kind is Kind.DTYPE]
    if not pairs:
        return bound, closed, dtypes  # (no ambiguous ``a == b``: nothing to resolve)
    for name in (n for p in pairs for n in p):
        if setdefault(name, Kind.DTYPE) is not Kind.DTYPE:
            _wrong_kind(name, Kind.DTYPE, kinds[name])
    known = resolve_dtype_names({n for n, k, _ in uses if k is Kind.DTYPE}, pairs)
    for a, b in pairs:
        if a not in known:
            raise IllFormed(f"'{a} == {b}' would read as a dim comparison: use {a} or {b} "
                            "as a dtype elsewhere in the alternative (an operand dtype, "
                            "'in', compatible(), ...)", a)
    return bound, closed, dtypes


def _wrong_kind(name: str, kind: Kind, first: Kind) -> None:
    raise IllFormed(f"'{name}' is used as a {kind.value}, but it is a {first.value}", name,
                    kind, f"a {first.value}")


def _check_typos(dtypes: list[str]) -> None:
    """A dtype variable spelled almost like a dtype is a typo (``flaot32``): each name
    used as a dtype (:func:`_check_kinds`) asked once."""
    for name in dtypes:
        if close := near_dtype(name):
            raise IllFormed(f"unknown dtype '{name}' (did you mean {close}?)",
                            name, Kind.DTYPE, close)


def _check_groups(alt: Alternative) -> None:
    anon: dict[int, int] = {}
    for i, op in enumerate(alt.operands):
        variable = [d for d in op.dims if isinstance(d, AnyGroup | NamedGroup)]
        if len(variable) > 1 and i < len(alt.inputs):
            raise IllFormed(f"input {op} has {len(variable)} groups of any length; an "
                            "input may have at most one ('...' or '*name'), since where "
                            "one ends and the next begins could not be known (outputs "
                            "may have several: their lengths come from the inputs)",
                            getattr(variable[1], "name", None), Kind.GROUP,
                            "at most one group of any length")
        j = 0
        for d in op.dims:
            if isinstance(d, AnonGroup):
                k = anon.setdefault(j, d.k)
                if k != d.k:
                    raise IllFormed(f"anonymous group #{j + 1} has {k} dims in one operand "
                                    f"but {d.k} in {op}; the j-th '.k.' group is the same "
                                    "group in every operand")
                j += 1
    in_groups = {type(d) if isinstance(d, AnyGroup) else d
                 for op in alt.inputs for d in op.dims if isinstance(d, AnyGroup | NamedGroup)}
    for op in alt.outputs:
        for d in op.dims:
            key = type(d) if isinstance(d, AnyGroup) else d
            if isinstance(d, AnyGroup | NamedGroup) and key not in in_groups:
                raise IllFormed(f"group {d} appears in an output but in no input, so its "
                                "length cannot be known", getattr(d, "name", None), Kind.GROUP)


def _close_definitions(alt: Alternative, bound: set[str]) -> None:
    """Add to ``bound`` every name a where-clause ``name == expression`` defines over
    bound names, until none is left (a definition may use another's name)."""
    changed = True
    while changed:
        changed = False
        for c in alt.where:
            for target, source in _definitions(c):
                if target not in bound and set(source) <= bound:
                    bound.add(target)
                    changed = True


def _check_bound(alt: Alternative, uses: list[_Use], bound: set[str]) -> None:
    """Names in outputs and where-clauses must be bound by an input, or defined by a
    where-clause ``name == expression`` over names that are bound, or declared as an
    unknown size by a comparison with bound names (``m <= n``: a mask's count) or with
    a constant alone (``m >= 0``: a size only known when the graph runs)."""
    for name, kind, place in uses:  # (``bound``: the inputs' names, :func:`_check_kinds`)
        if kind is Kind.FLEX and place.side is Side.OUTPUT and name not in bound:
            raise IllFormed(f"flexible dimension {name}? appears in no input", name, kind)
    _close_definitions(alt, bound)
    for c in alt.where:
        if isinstance(c, Compare) and c.op != "==":
            names = set(expr_names(c.left)) | set(expr_names(c.right))
            if names & bound or len(names) == 1:
                bound |= names
    for name, kind, place in uses:
        if name not in bound and name not in DTYPE_NAMES:
            what = kind.value
            hint = f"; define it with a where-clause ({name} == ...)" \
                if kind in (Kind.DIM, Kind.DTYPE) else ""
            raise IllFormed(f"{what} {name} in {place} is bound by no input{hint}",
                            name, kind, "a name bound by an input")


def unbound_in_clauses(alt: Alternative) -> list[tuple[str, Clause]]:
    """``(name, clause)`` for each size name a where-clause uses that no operand has and
    no ``name == ...`` clause defines (``k`` in ``(m,n)->(m) where m > k``). Legal (a
    comparison declares a size known only when the graph runs, and builders render such
    clauses), but in a catalogue file a slip: ``kantensor check`` refuses it."""
    uses, _ = _uses(alt)
    bound = {n for n, _, place in uses if place.side is not Side.WHERE}
    _close_definitions(alt, bound)
    found: dict[tuple[str, Clause], None] = {}
    for c in alt.where:
        if isinstance(c, Compare):
            names = expr_names(c.left) + expr_names(c.right)
        elif isinstance(c, Broadcasts):
            names = [n for a in (*c.args, c.result) for n in expr_names(a)]
        else:
            continue
        found.update({(n, c): None for n in names if n not in bound})
    return list(found)


def _definitions(c: Clause) -> Iterable[tuple[str, list[str]]]:
    """``(name, names it is computed from)`` for a clause that can define a name."""
    if isinstance(c, Compare) and c.op == "==":
        for target, other in ((c.left, c.right), (c.right, c.left)):
            if isinstance(target, DimVar):
                yield target.name, expr_names(other)
    elif isinstance(c, Broadcasts) and isinstance(c.result, DimVar):
        yield c.result.name, [n for a in c.args for n in expr_names(a)]
    elif isinstance(c, DTypeEq):
        for target, other in ((c.left, c.right), (c.right, c.left)):
            if isinstance(target, DTypeVar):
                yield target.name, dtype_names(other)


def resolve_dtype_names(known: Iterable[str], pairs: Iterable[tuple[str, str]]) -> set[str]:
    """The names that are dtypes: ``known`` and dtype names, plus, through the ambiguous
    ``a == b`` clauses in ``pairs``, every name equated with one of those."""
    known = set(known)
    known.update(DTYPE_NAMES)  # not ``|``: a WordSet's would go through Set's mixin
    graph: dict[str, list[str]] = {}
    for a, b in pairs:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, []).append(a)
    todo = [n for n in graph if n in known]
    while todo:
        for m in graph[todo.pop()]:
            if m not in known:
                known.add(m)
                todo.append(m)
    return known

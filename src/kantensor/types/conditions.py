"""Conditions on sizes: what a relation needs of them and could not decide.

A :class:`Condition` says ``left op right`` between sizes (an equality or affine
relation, an interval bound, a congruence ``e % k == 0``, a product, a floor division of
conv/pool arithmetic), with its :class:`Source`: the Op or ONNX node that needs it and,
in traced code, the user's line. An :class:`AnyOf` is a disjunction of conjunctions
(NumPy broadcasting: ``a == b or a == 1 or b == 1``; the cases of an overload). A size
a condition cannot name is an unknown keyed by an :class:`InputAxis` (an input's axis of
one build) or an :class:`InnerSize` (a size of the signature's own).

What is known of sizes, and deciding conditions, is :mod:`kantensor.types.facts`'.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, TypeAlias

from .dim import DimLike, as_dim
from .divisors import by_size, size_divisors
from .poly import Opaque
from .symbols import free_symbols, substitute

__all__ = ["COMPARE", "NEGATED", "AnyOf", "Clause", "Condition", "InnerSize", "InputAxis",
           "Source", "conjunction", "expand", "has_choice", "is_choice", "negate"]

COMPARE: Final = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
               ">": operator.gt, ">=": operator.ge}
NEGATED: Final = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_FLIPPED: Final = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class Source:
    """Where a condition comes from: ``op`` (an Op's name or an ONNX op type), ``node``
    (an ONNX node's name, or the graph's description of the node), ``location`` (the
    user's ``file:line`` in traced code) and ``code`` (the user's expression there);
    ``detail`` says which operands and axes meet (``axis 1 of x must equal axis 0 of
    w``). ``otherwise`` marks a condition of an overload's *choice*, not of its relation:
    the types were built for the first alternative (``squeeze`` keeping an axis under
    ``!= 1``), and where the condition fails a later alternative applies with other
    types, which ``otherwise`` says (``float32[3]``); a contract counts such sizes as not
    covered, never as invalid. Any may be empty."""

    op: str = ""
    node: str = ""
    location: str = ""
    code: str = ""
    detail: str = ""
    otherwise: str = ""

    def replaced(self, **changes: str) -> Source:
        """This source with the fields ``changes`` names: ``dataclasses.replace``'s
        answer without its look at the class's fields at every call (each condition
        the importer notes is given its node's name)."""
        new = object.__new__(Source)
        new.__dict__.update(self.__dict__, **changes)
        return new

    def __str__(self) -> str:
        parts = [self.code or self.op]
        if self.node and self.node != self.op:
            parts.append(f"(node {self.node})")
        if self.location:
            parts.append(f"at {self.location}")
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class InputAxis:
    """The unknown size of axis ``axis`` of input ``input`` of one build: the key of the
    unknown (:func:`~kantensor.types.dim.unknown`) a condition names such a size by."""

    input: int
    axis: int

    def __str__(self) -> str:
        return f"input{self.input}.shape[{self.axis}]"


@dataclass(frozen=True)
class InnerSize:
    """A size a signature introduces and nothing defines (``k`` in ``(n)->(n) where n ==
    2*k``): the key of the unknown a condition names it by (``name`` is the signature's;
    ``index`` tells two apart)."""

    name: str
    index: int

    def __str__(self) -> str:
        return f"{self.name}_{self.index}"


class Condition:
    """``left op right`` between sizes (op one of ``== != < <= > >=``), with its
    :class:`Source`. Two conditions that say the same are equal (``N == D`` and
    ``D == N``; ``a <= b`` and ``b >= a``), whatever their sources: the same key, and
    the same sizes their sides divide by (``a + n//k == 2*a + n//k`` has the key of ``a
    == 0`` but no value at ``k == 0``: it is not ``a == 0``)."""

    __slots__ = ("left", "op", "right", "source", "_key")

    def __init__(self, left: DimLike, op: str, right: DimLike, source: Source | None = None):
        if op not in COMPARE:
            raise ValueError(f"a condition compares with one of {', '.join(COMPARE)}, got {op!r}")
        self.left, self.op, self.right = as_dim(left), op, as_dim(right)
        self.source = source
        self._key = _normal_key(self.left, op, self.right)

    @property
    def key(self) -> tuple[DimLike, str]:
        """``(d, op)`` with ``d op 0`` (op one of ``== != >= >``) saying the same."""
        return self._key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Condition) and self._key == other._key and (
            self.left is other.left and self.right is other.right or _defined_alike(self, other))

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Condition({self})"

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    def symbols(self) -> frozenset[Hashable]:
        """The names (and unknowns' keys) it mentions."""
        return free_symbols(self.left) | free_symbols(self.right)

    def holds(self, sizes: Mapping[Hashable, int], undefined: bool = False) -> bool:
        """Whether it holds when the sizes it names have ``sizes``; ValueError if one of
        them is missing. Where it divides by a size that is 0 there it has no value
        (Python raises), and it does not hold: ``undefined``, False (a caller after a
        superset of the points where it may hold passes True)."""
        try:
            d = substitute(self._key[0], sizes)
            for side in (self.left, self.right):  # (a division its key lost: n//k - n//k)
                if by_size(side):
                    substitute(side, sizes)
        except ZeroDivisionError:
            return undefined
        if not isinstance(d, int):
            missing = sorted(map(str, free_symbols(d)))
            raise ValueError(f"{self} needs a value for {', '.join(missing)}")
        return COMPARE[self._key[1]](d, 0)

    def negated(self) -> Condition:
        """The condition that holds exactly where this one does not."""
        return Condition(self.left, NEGATED[self.op], self.right, self.source)

    def substitute(self, mapping: Mapping[Hashable, DimLike]) -> Condition:
        return Condition(substitute(self.left, mapping), self.op,
                         substitute(self.right, mapping), self.source)

    @classmethod
    def at_least(cls, left: DimLike, op: str, right: DimLike, difference: DimLike,
                 source: Source | None = None) -> Condition:
        """``left op right`` (op ``>=`` or ``>``, the sides sizes already) whose ``left -
        right`` the caller has (``difference``): its key without subtracting again (a
        where-clause a direct build compared)."""
        made = object.__new__(cls)
        made.left, made.op, made.right, made.source = left, op, right, source
        made._key = difference, op
        return made

    def with_source(self, source: Source | None) -> Condition:
        same = object.__new__(Condition)  # the same sides: no need to normalise again
        same.left, same.op, same.right, same._key = self.left, self.op, self.right, self._key
        same.source = source
        return same

    def triple(self) -> tuple[DimLike, str, int]:
        """``(d, op, 0)``: the form :func:`kantensor.types.prove.proves` takes."""
        return self._key[0], self._key[1], 0

    def __reduce__(self) -> tuple:
        # made from its sides and key first, its source set after: a pickle reaches a
        # condition again through its source (a node whose Facts hold it) and hashes it
        # there, before slot state would be restored (a Function's graph did not unpickle)
        return _rebuilt, (self.left, self.op, self.right, self._key), (None,
                                                                       {"source": self.source})


def _defined_alike(x: Condition, y: Condition) -> bool:
    """Whether ``x`` and ``y`` (one key) divide by the same sizes: where one is 0, both
    have no value (asked only of two with one key; most divide by none)."""
    if not (by_size(x.left) or by_size(x.right) or by_size(y.left) or by_size(y.right)):
        return True
    return set(size_divisors(x.left) + size_divisors(x.right)) == \
        set(size_divisors(y.left) + size_divisors(y.right))


def _rebuilt(left: DimLike, op: str, right: DimLike, key: tuple[DimLike, str]) -> Condition:
    """A :class:`Condition` of these sides and key (its source set by the unpickler)."""
    made = object.__new__(Condition)
    made.left, made.op, made.right, made._key, made.source = left, op, right, key, None
    return made


def _normal_key(left: DimLike, op: str, right: DimLike) -> tuple[DimLike, str]:
    if op in ("<", "<="):
        left, right, op = right, left, _FLIPPED[op]
    if op in ("==", "!=") and type(left) is int and type(right) is not int and \
            right._terms[0][1] > 0:
        return right - left, op  # -(left - right): its lead is right's (ints come last)
    d = left - right
    if op in ("==", "!=") and _negative_lead(d):
        d = -d
    return d, op


def _negative_lead(d: DimLike) -> bool:
    if isinstance(d, int):
        return d < 0
    return d._terms[0][1] < 0  # the canonical polynomial's first term


@dataclass(frozen=True)
class AnyOf:
    """A disjunction of conjunctions: it holds where one of ``cases`` (each a tuple of
    conditions, all holding) does. ``source`` says who needs it."""

    cases: tuple[tuple[Condition, ...], ...]
    source: Source | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyOf) and set(map(frozenset, self.cases)) == \
            set(map(frozenset, other.cases))

    def __hash__(self) -> int:
        # kept once made: a model's memo keys hash every open disjunction it carries
        try:
            return self.__dict__["_hash"]
        except KeyError:
            value = hash(frozenset(map(frozenset, self.cases)))
            object.__setattr__(self, "_hash", value)
            return value

    def __getstate__(self) -> dict:
        # a string's hash differs between processes: an unpickled copy makes its own
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def holds(self, sizes: Mapping[Hashable, int], undefined: bool = False) -> bool:
        """Whether one case holds at ``sizes`` (a condition with no value there: as
        :meth:`Condition.holds` says)."""
        return any(all(c.holds(sizes, undefined) for c in case) for case in self.cases)

    def symbols(self) -> frozenset[Hashable]:
        return frozenset().union(*(c.symbols() for case in self.cases for c in case))

    def substitute(self, mapping: Mapping[Hashable, DimLike]) -> AnyOf:
        return AnyOf(tuple(tuple(c.substitute(mapping) for c in case) for case in self.cases),
                     self.source)

    def __str__(self) -> str:
        return " or ".join(" and ".join(map(str, case)) if len(case) == 1 or len(self.cases) == 1
                           else "(" + " and ".join(map(str, case)) + ")"
                           for case in self.cases) if self.cases else "false"


#: What a build records: one condition, or a disjunction of conjunctions.
Clause: TypeAlias = "Condition | AnyOf"


def is_choice(c: object) -> bool:
    """Whether ``c`` is a condition of an overload's choice (its source says what applies
    ``otherwise``, see :class:`Source`): where it fails, other types apply, so those
    sizes are not covered, never invalid."""
    return isinstance(c, Condition) and c.source is not None and bool(c.source.otherwise)


def has_choice(c: Clause) -> bool:
    """Whether ``c`` is, or has (itself or in one of a disjunction's cases), an
    overload's choice (:func:`is_choice`)."""
    if isinstance(c, Condition):
        return is_choice(c)
    try:  # kept once found, as its hash is: a model read again node by node asks it of
        return c.__dict__["_choice"]  # each disjunction its node slots replay
    except KeyError:
        found = bool(c.source is not None and c.source.otherwise) or any(
            is_choice(x) for case in c.cases for x in case)
        object.__setattr__(c, "_choice", found)
        return found


def negate(clauses: Iterable[Clause]) -> AnyOf:
    """The negation of a conjunction of conditions (a disjunction of their negations).
    Disjunctions among them are not negated here (ValueError)."""
    cases = []
    for c in clauses:
        if not isinstance(c, Condition):
            raise ValueError("only a conjunction of conditions is negated")
        cases.append((c.negated(),))
    return AnyOf(tuple(cases))


def conjunction(clauses: Iterable[Clause]) -> tuple[Condition, ...]:
    """The conditions that hold wherever ``clauses`` do: each Condition, and each AnyOf
    of one case."""
    out: list[Condition] = []
    for c in clauses:
        if isinstance(c, Condition):
            out.append(c)
        elif len(c.cases) == 1:
            out.extend(c.cases[0])
    return tuple(out)


def expand(c: Condition) -> tuple[Condition, ...]:
    """``c`` as a conjunction of plainer conditions where one says the same: a size equal
    to the max (min) of arguments it is one of is at least (most) each other one; a min
    at least ``y`` is each argument at least ``y``, a max at most ``y`` each at most; a
    min at most an int ``y`` is its one argument that may be (the others ints above
    ``y``: ``min(2**63, seq + 2) <= 1026``, an int64 interval's end, is ``seq + 2 <=
    1026``), a max at least ``y`` likewise."""
    for x, other in ((c.left, c.right), (c.right, c.left)):
        atom = _lone(other)
        if atom is None or atom.op not in ("min", "max"):
            continue
        op = c.op if other is c.right else _FLIPPED[c.op]  # now: x op other
        if op == "==" and x in atom.args:
            want = ">=" if atom.op == "max" else "<="
            return tuple(Condition(x, want, a, c.source) for a in atom.args if a != x)
        if (atom.op, op) in (("min", "<="), ("max", ">=")):  # x <= min(...), x >= max
            return tuple(Condition(x, op, a, c.source) for a in atom.args)
        if type(x) is int and (atom.op, op) in (("min", ">="), ("min", ">"), ("max", "<="),
                                                 ("max", "<")):
            # x >= min(...): x >= some argument, which no int argument failing it is
            may = [a for a in atom.args if type(a) is not int or COMPARE[op](x, a)]
            if len(may) == 1 and type(may[0]) is not int:  # (on the side it was)
                return (Condition(x, op, may[0], c.source) if other is c.right else
                        Condition(may[0], c.op, x, c.source),)
    return (c,)


def _lone(x: DimLike) -> Opaque | None:
    if isinstance(x, int) or len(x._terms) != 1:
        return None
    (mono, coeff), = x._terms
    if coeff != 1 or len(mono) != 1 or mono[0][1] != 1:
        return None
    atom = mono[0][0]
    return atom if isinstance(atom, Opaque) else None

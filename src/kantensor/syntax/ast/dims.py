"""Dim expressions and dim items of the DSL, and :func:`evaluate`, their one evaluator.

Dim variables support ``+ - * // % **`` (with ints too), so ``n - k + 1`` builds the
same tree as the text ``n-k+1``, and the comparisons ``< <= > >=`` (and the methods
``eq``/``ne``: ``==`` stays structural equality) build a :class:`Compare` clause, so
``b >= 6`` is the where-clause ``b >= 6``. Items are what an operand lists: an
expression, a flexible dim ``n?`` or a group (``.k.``, ``...``, ``*name``). A
:class:`Hole` is a template's ``{name}``, filled by :mod:`kantensor.syntax.template`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

from ..limits import MAX_EXPONENT, MAX_POWER_BITS, NESTING_LEVELS
from ..vocabulary import DIM_FUNCTIONS, DIM_OPERATORS, MAX, MIN
from .names import CMP_OPS, check_name, hashed_once, set_field

__all__ = [
    "EXPR_TYPES", "ITEM_TYPES", "AnonGroup", "AnyGroup", "BinOp", "Call", "Compare",
    "DimExpr", "DimItem", "DimVar", "FixedDim", "FlexDim", "Hole", "Message", "NamedGroup",
    "as_expr", "as_item", "depth", "dim_max", "dim_min", "divisors", "evaluate", "expr_names",
    "written",
]  # fmt: skip

# The binary operators by their text, with how tightly they bind (from the vocabulary).
_PREC = {w.text: w.precedence for w in DIM_OPERATORS if w.precedence is not None}
_FUNCTIONS = frozenset(w.text for w in DIM_FUNCTIONS)


class _Arith:
    """``+ - * // % **`` (and reflected, with ints) building :class:`BinOp`; ``< <= > >=``
    and :meth:`eq`/:meth:`ne` building a :class:`Compare` clause."""

    __slots__ = ()

    def _cmp(self, op: str, other: object) -> Compare:
        if isinstance(other, bool) or not isinstance(other, (int, *EXPR_TYPES, Hole)):
            return NotImplemented
        return Compare(op, self, other)

    def __lt__(self, o: object) -> Compare: return self._cmp("<", o)
    def __le__(self, o: object) -> Compare: return self._cmp("<=", o)
    def __gt__(self, o: object) -> Compare: return self._cmp(">", o)
    def __ge__(self, o: object) -> Compare: return self._cmp(">=", o)  # fmt: skip

    def eq(self, other: DimExpr | int) -> Compare:
        """The clause ``self == other`` (``==`` itself compares the trees)."""
        return Compare("==", self, other)

    def ne(self, other: DimExpr | int) -> Compare:
        """The clause ``self != other``."""
        return Compare("!=", self, other)

    def _op(self, op: str, other: object, reflected: bool = False) -> BinOp:
        if isinstance(other, bool) or not isinstance(other, (int, *EXPR_TYPES, Hole)):
            return NotImplemented
        return BinOp(op, other, self) if reflected else BinOp(op, self, other)

    def __add__(self, o: object) -> BinOp: return self._op("+", o)
    def __radd__(self, o: object) -> BinOp: return self._op("+", o, True)
    def __sub__(self, o: object) -> BinOp: return self._op("-", o)
    def __rsub__(self, o: object) -> BinOp: return self._op("-", o, True)
    def __mul__(self, o: object) -> BinOp: return self._op("*", o)
    def __rmul__(self, o: object) -> BinOp: return self._op("*", o, True)
    def __floordiv__(self, o: object) -> BinOp: return self._op("//", o)
    def __rfloordiv__(self, o: object) -> BinOp: return self._op("//", o, True)
    def __mod__(self, o: object) -> BinOp: return self._op("%", o)
    def __rmod__(self, o: object) -> BinOp: return self._op("%", o, True)  # fmt: skip
    def __pow__(self, o: object) -> BinOp: return self._op("**", o)  # fmt: skip


@dataclass(frozen=True)
class DimVar(_Arith):
    """A dim variable ``n``, shared by every operand of an alternative."""

    name: str

    def __post_init__(self) -> None:
        check_name(self.name, "dim")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FixedDim(_Arith):
    """A fixed size ``3``."""

    size: int

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 0:
            raise ValueError(f"a fixed dim must be an int >= 0, got {self.size!r}")

    def __str__(self) -> str:
        return str(self.size)


@hashed_once
@dataclass(frozen=True)
class BinOp(_Arith):
    """``left op right`` with op in ``+ - * // % **``; ints are wrapped as FixedDim.
    The exponent of ``**`` is an int from 0 to :data:`MAX_EXPONENT`."""

    op: str
    left: DimExpr
    right: DimExpr

    def __post_init__(self) -> None:
        if self.op not in _PREC:
            raise ValueError(f"unknown dim operator {self.op!r}")
        set_field(self, "left", as_expr(self.left))
        set_field(self, "right", as_expr(self.right))
        if self.op == "**" and not (isinstance(self.right, FixedDim)
                                    and self.right.size <= MAX_EXPONENT):
            raise ValueError(f"the exponent of ** must be an int from 0 to {MAX_EXPONENT}, "
                             f"got {self.right}")
        _remember_levels(self, depth(self.left), depth(self.right))

    def __str__(self) -> str:
        return written(self)


@hashed_once
@dataclass(frozen=True)
class Call(_Arith):
    """``min(a, b, ...)`` or ``max(a, b, ...)``."""

    fn: str
    args: tuple[DimExpr, ...]

    def __post_init__(self) -> None:
        if self.fn not in _FUNCTIONS:
            raise ValueError(f"unknown dim function {self.fn!r}")
        set_field(self, "args", tuple(as_expr(a) for a in self.args))
        if not self.args:
            raise ValueError(f"{self.fn}() needs at least one argument")
        _remember_levels(self, *map(depth, self.args))

    def __str__(self) -> str:
        return written(self)


@dataclass(frozen=True)
class Hole(_Arith):
    """A template's placeholder ``{name}`` standing for a dim expression or a dtype: a
    template (:mod:`kantensor.syntax.template`) replaces it by the value given for
    ``name``; an alternative never holds one."""

    name: str

    def __str__(self) -> str:
        return "{" + self.name + "}"


EXPR_TYPES = (DimVar, FixedDim, BinOp, Call)


def depth(x: object) -> int | None:
    """The levels :func:`~kantensor.syntax.limits.check_ast_nesting` finds in the dim
    expression ``x`` when they are known without walking it: none for a name, a fixed
    size or a placeholder, those an operator or a call remembered when it was made;
    None otherwise (the check then walks it)."""
    kind = type(x)
    if kind is DimVar or kind is FixedDim or kind is Hole:
        return 0
    return x.__dict__.get(NESTING_LEVELS) if kind is BinOp or kind is Call else None


def _remember_levels(node: object, *inner: int | None) -> None:
    """Remember on ``node`` its levels, one more than the deepest of the nodes it holds
    (``inner``, their :func:`depth`), when each of theirs is known: a node made of nodes
    is made after them, so the levels of an expression built up by operators (a
    builder's, at each new rank) are known as it is built, and the check of the
    alternative holding it does not walk it again."""
    if None not in inner:
        set_field(node, NESTING_LEVELS, max(inner) + 1)


def as_expr(x: object) -> DimExpr:
    """A dim expression; an int is a FixedDim."""
    if isinstance(x, int) and not isinstance(x, bool):
        return FixedDim(x)
    if not isinstance(x, EXPR_TYPES) and x.__class__ is not Hole:
        raise TypeError(f"not a dim expression: {x!r}")
    return x


#: What a where-clause's failure means in the user's words: called with the value of
#: each size name of the clause where it failed (the relation's own failure
#: information) and the input types as given, it returns the sentence (NumPy's own).
Message = Callable[[Mapping[str, Any], tuple], str]


@hashed_once
@dataclass(frozen=True)
class Compare:
    """A dim comparison ``left op right``, op in ``== != < <= > >=``; also what the
    comparison operators of dim expressions build (``b >= 6``). ``message`` (not part
    of its identity) says its failure in the user's words; ``otherwise`` (part of it)
    marks a builder's *choice* (a slice bound read as counting from the start), what
    applies where it fails (see :class:`~kantensor.types.conditions.Source`)."""

    op: str
    left: DimExpr
    right: DimExpr
    message: Message | None = field(default=None, compare=False, repr=False)
    otherwise: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.op not in CMP_OPS:
            raise ValueError(f"unknown comparison {self.op!r}")
        set_field(self, "left", as_expr(self.left))
        set_field(self, "right", as_expr(self.right))
        if self.message is None or type(self.message) is FunctionType:
            _remember_levels(self, depth(self.left), depth(self.right))

    def __bool__(self) -> bool:
        raise TypeError(f"the where-clause {self} has no truth value (the relation "
                        "decides it; compare ints to decide now)")

    def __str__(self) -> str:
        return written(self)


def written(node: DimExpr | Compare, name: Callable[[str], str] = str) -> str:
    """The text of a dim expression or comparison, each dim variable written as
    ``name(its name)`` (its own name by default: ``str(node)``). An explanation says a
    clause over the operands' axes this way (``x.shape[1] >= 2``), from the relation's own
    tree and the names it knows, never by rewriting text."""
    if isinstance(node, DimVar):
        return name(node.name)
    if isinstance(node, BinOp):
        if node.op == "**":  # the base is an atom: n**2, (n+1)**2
            return f"{_paren(node.left, _prec(node.left) <= 3, name)}**{node.right}"
        p = _PREC[node.op]
        # Left-associative: parenthesize a lower-precedence left operand and a right
        # operand of the same or lower precedence.
        left = _paren(node.left, _prec(node.left) < p, name)
        right = _paren(node.right, _prec(node.right) <= p, name)
        return f"{left}{node.op}{right}"
    if isinstance(node, Call):
        return f"{node.fn}({','.join(written(a, name) for a in node.args)})"
    if isinstance(node, Compare):
        return f"{written(node.left, name)} {node.op} {written(node.right, name)}"
    return str(node)


def _prec(x: DimExpr) -> int:
    return _PREC[x.op] if isinstance(x, BinOp) else 4


def _paren(x: DimExpr, needed: bool, name: Callable[[str], str] = str) -> str:
    return f"({written(x, name)})" if needed else written(x, name)


def dim_min(*args: DimExpr | int) -> Call:
    """``min(args...)`` as a dim expression."""
    return Call(MIN.text, args)  # type: ignore[arg-type]


def dim_max(*args: DimExpr | int) -> Call:
    """``max(args...)`` as a dim expression."""
    return Call(MAX.text, args)  # type: ignore[arg-type]


@dataclass(frozen=True)
class FlexDim:
    """NumPy's flexible dim ``n?``: present in all operands using it, or in none."""

    name: str

    def __post_init__(self) -> None:
        check_name(self.name, "dim")

    def __str__(self) -> str:
        return f"{self.name}?"


@dataclass(frozen=True)
class AnonGroup:
    """``.k.``: a group of exactly k >= 1 anonymous dims."""

    k: int

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"an anonymous group needs an int k >= 1, got {self.k!r}")

    def __str__(self) -> str:
        return f".{self.k}."


@dataclass(frozen=True)
class AnyGroup:
    """``...``: one group of dims of any length, the same group in every operand."""

    def __str__(self) -> str:
        return "..."


@dataclass(frozen=True)
class NamedGroup:
    """``*name``: a named group of dims of any length."""

    name: str

    def __post_init__(self) -> None:
        check_name(self.name, "group")

    def __str__(self) -> str:
        return f"*{self.name}"



ITEM_TYPES = (*EXPR_TYPES, FlexDim, AnonGroup, AnyGroup, NamedGroup)


def as_item(x: object) -> DimItem:
    """An operand item; an int is a FixedDim."""
    if isinstance(x, int) and not isinstance(x, bool):
        return FixedDim(x)
    if not isinstance(x, ITEM_TYPES) and x.__class__ is not Hole:
        raise TypeError(f"not a dim: {x!r}")
    return x


def expr_names(x: DimExpr) -> list[str]:
    """The dim names in an expression, in order of appearance (iterative). An operator's
    or a call's names are found once and remembered on it (nodes are immutable): an
    alternative's check, its compiled form, its direct plan and its builds each ask
    them, and an output's size is often a clause's side too."""
    kind = type(x)
    if kind is DimVar:
        return [x.name]
    if kind is FixedDim:
        return []
    found = x.__dict__.get(_NAMES) if kind is BinOp or kind is Call else None
    if found is not None:
        return list(found)
    out: list[str] = []
    stack = [x]
    while stack:
        node = stack.pop()
        if isinstance(node, DimVar):
            out.append(node.name)
        elif isinstance(node, BinOp | Call):
            known = node.__dict__.get(_NAMES)
            if known is not None:
                out += known
            elif isinstance(node, BinOp):
                stack += (node.right, node.left)
            else:
                stack.extend(reversed(node.args))
        elif isinstance(node, Hole):
            raise ValueError(f"placeholder {node} outside a template")
    if kind is BinOp or kind is Call:
        set_field(x, _NAMES, tuple(out))
    return out


#: The attribute an operator's or a call's names are remembered in (see expr_names).
_NAMES = "_names"


def divisors(x: DimExpr) -> tuple[DimExpr, ...]:
    """The divisors of ``x``'s ``//`` and ``%`` that are not ints (``m`` and ``k - 1`` in
    ``n//m + n % (k - 1)``), at any depth (a divisor's own too), each once: ``x`` is
    undefined where one of them is 0 (Python raises), whatever the Dim algebra makes of
    the rest (``(n//m) % 1`` and ``0*(n//m)`` are 0, ``n//m - n//m + n`` is ``n``: their
    value drops ``m``, their text keeps it). Found once a node and remembered on it."""
    if type(x) is not BinOp and type(x) is not Call:
        return ()
    found = x.__dict__.get(_DIVISORS)
    if found is not None:
        return found
    stack: list[tuple[DimExpr, bool]] = [(x, False)]  # (iterative: deep trees are fine)
    while stack:
        node, ready = stack.pop()
        if node.__dict__.get(_DIVISORS) is not None:
            continue
        children = (node.left, node.right) if type(node) is BinOp else tuple(node.args)
        inner = [c for c in children if type(c) is BinOp or type(c) is Call]
        if not ready:
            stack.append((node, True))
            stack.extend((c, False) for c in inner)
            continue
        out: dict[DimExpr, None] = {}
        if type(node) is BinOp and node.op in ("//", "%") and type(node.right) is not FixedDim:
            out[node.right] = None
        for c in inner:
            out.update(dict.fromkeys(c.__dict__[_DIVISORS]))
        set_field(node, _DIVISORS, tuple(out))
    return x.__dict__[_DIVISORS]


_DIVISORS = "_divisors"  # the attribute a node's divisors are remembered in


#: A size while evaluating: an int, or a size object of a higher layer (a
#: :class:`kantensor.types.Dim`) that has the arithmetic operators.
DimLike = Any

def _power(a: DimLike, b: DimLike) -> DimLike:
    """``a ** b``; ValueError, before it is computed, for a power of ints past
    :data:`~kantensor.syntax.limits.MAX_POWER_BITS` bits."""
    if isinstance(a, int) and isinstance(b, int) and abs(a) > 1 and \
            (abs(a).bit_length() - 1) * b > MAX_POWER_BITS:
        shown = str(a) if a.bit_length() <= 64 else f"an int of {a.bit_length()} bits"
        raise ValueError(f"a size expression is too large: {shown} to the power {b} has "
                         f"more than {MAX_POWER_BITS} bits")
    return a ** b


_BINARY: dict[str, Callable[[DimLike, DimLike], DimLike]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": _power,
}
def _least(*values: int) -> int:
    return min(values)  # (of a tuple: min(0) is 0, where Python's min(0) raises)


def _greatest(*values: int) -> int:
    return max(values)


#: ``min`` and ``max`` on ints; a layer whose sizes are symbolic passes its own.
INT_CALLS: Mapping[str, Callable[..., DimLike]] = {MIN.text: _least, MAX.text: _greatest}


def evaluate(expr: DimExpr, lookup: Callable[[str], DimLike],
             check: Callable[[DimLike], object] | None = None,
             calls: Mapping[str, Callable[..., DimLike]] = INT_CALLS) -> DimLike:
    """The value of ``expr``, its names replaced by ``lookup(name)`` (ints or Dims).

    ``calls`` implements the DSL's size functions (``min``, ``max``) on the values:
    :data:`kantensor.types.dimminmax.DIM_CALLS` for Dims.

    The one evaluator of dim expressions: the solver looks names up in its
    substitution, ``TensorType.parse`` maps them to named Dims. Iterative, so deep
    expressions do not exhaust the stack; ``//`` or ``%`` by a zero size raises
    ZeroDivisionError. ``check`` sees every intermediate value (a limit on the terms a
    product of sums expands to raises there, before the next step can blow up).
    """
    values: list[DimLike] = []
    stack: list[tuple[DimExpr, bool]] = [(expr, False)]
    while stack:
        node, ready = stack.pop()
        if isinstance(node, FixedDim):
            values.append(node.size)
        elif isinstance(node, DimVar):
            values.append(lookup(node.name))
        elif not ready:
            stack.append((node, True))
            children = (node.left, node.right) if isinstance(node, BinOp) else node.args
            stack.extend((c, False) for c in reversed(children))
        elif isinstance(node, BinOp):
            right = values.pop()
            if check is not None and node.op == "**" and values[-1].__class__ is not int:
                check(values[-1] * values[-1])  # a square first: grows no faster than steps
            values[-1] = _BINARY[node.op](values[-1], right)
            if check is not None:
                check(values[-1])
        else:
            n = len(node.args)
            args = values[-n:]
            del values[-n:]
            values.append(calls[node.fn](*args))
    return values[0]


DimExpr = DimVar | FixedDim | BinOp | Call
DimItem = DimExpr | FlexDim | AnonGroup | AnyGroup | NamedGroup

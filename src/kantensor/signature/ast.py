"""AST of the signature DSL: frozen, hashable dataclasses with structural ``==``.

``str(node)`` is the node's canonical text (the constructors reject objects whose text
would not parse back). Dim variables support ``+ - * // %`` (with ints too), so
``n - k + 1`` builds the same tree as the text ``n-k+1``.

The dim expressions here are the one dim-expression language of kantensor: signatures,
``TensorType.parse`` and the command line's query terms all parse into these nodes, and
:func:`evaluate` is the one evaluator, computing in the Dim algebra of
:mod:`kantensor.types.dim`. Operands and where-clauses are checked for well-formedness
as a whole when an :class:`~kantensor.signature.alternative.Alternative` is built.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from ..types.dim import DimLike
from ..types.dim import dim_max as _dim_max
from ..types.dim import dim_min as _dim_min
from ..types.dtypes import CATEGORIES as _CATEGORY_SETS
from ..types.dtypes import DTYPES

__all__ = [
    "CATEGORIES", "CMP_OPS", "DTYPE_NAMES", "RESERVED",
    "DimVar", "FixedDim", "FlexDim", "AnonGroup", "AnyGroup", "NamedGroup", "BinOp", "Call",
    "DTypeName", "DTypeVar", "Promote", "Join", "FloatOf", "RealOf",
    "TensorPattern", "Compare", "InCategory", "DTypeEq", "Compatible",
    "DimExpr", "DimItem", "DType", "Clause",
    "dim_vars", "dtype_vars", "dim_min", "dim_max", "evaluate", "expr_names", "dtype_names",
]  # fmt: skip

DTYPE_NAMES = frozenset(DTYPES)
CATEGORIES = frozenset(_CATEGORY_SETS)
RESERVED = frozenset("where in min max promote join float real compatible".split())
CMP_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_PREC = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2, "**": 3}
#: The largest exponent of ``**`` (a size expression stays a small polynomial).
MAX_EXPONENT = 64
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_name(name: object, what: str, *, dtype_ok: bool = False) -> None:
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise ValueError(f"{what} name must be an identifier, got {name!r}")
    if name in RESERVED:
        raise ValueError(f"{name!r} is a reserved word and cannot name a {what}")
    if name in DTYPE_NAMES and not dtype_ok:
        raise ValueError(f"{name!r} is a dtype name and cannot name a {what}")


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


# --------------------------------------------------------------------------- dims


class _Arith:
    """``+ - * // %`` (and reflected, with ints) building :class:`BinOp`."""

    __slots__ = ()

    def _op(self, op: str, other: object, reflected: bool = False) -> BinOp:
        if isinstance(other, bool) or not isinstance(other, (int, *_EXPR_TYPES)):
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
        _check_name(self.name, "dim")

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
        _set(self, "left", _expr(self.left))
        _set(self, "right", _expr(self.right))
        if self.op == "**" and not (isinstance(self.right, FixedDim)
                                    and self.right.size <= MAX_EXPONENT):
            raise ValueError(f"the exponent of ** must be an int from 0 to {MAX_EXPONENT}, "
                             f"got {self.right}")

    def __str__(self) -> str:
        if self.op == "**":  # the base is an atom: n**2, (n+1)**2
            return f"{_paren(self.left, _prec(self.left) <= 3)}**{self.right}"
        p = _PREC[self.op]
        # Left-associative: parenthesize a lower-precedence left operand and a right
        # operand of the same or lower precedence.
        left = _paren(self.left, _prec(self.left) < p)
        right = _paren(self.right, _prec(self.right) <= p)
        return f"{left}{self.op}{right}"


@dataclass(frozen=True)
class Call(_Arith):
    """``min(a, b, ...)`` or ``max(a, b, ...)``."""

    fn: str
    args: tuple[DimExpr, ...]

    def __post_init__(self) -> None:
        if self.fn not in ("min", "max"):
            raise ValueError(f"unknown dim function {self.fn!r}")
        _set(self, "args", tuple(_expr(a) for a in self.args))
        if not self.args:
            raise ValueError(f"{self.fn}() needs at least one argument")

    def __str__(self) -> str:
        return f"{self.fn}({','.join(map(str, self.args))})"


_EXPR_TYPES = (DimVar, FixedDim, BinOp, Call)


def _expr(x: object) -> DimExpr:
    if isinstance(x, int) and not isinstance(x, bool):
        return FixedDim(x)
    if not isinstance(x, _EXPR_TYPES):
        raise TypeError(f"not a dim expression: {x!r}")
    return x


def _prec(x: DimExpr) -> int:
    return _PREC[x.op] if isinstance(x, BinOp) else 4


def _paren(x: DimExpr, needed: bool) -> str:
    return f"({x})" if needed else str(x)


def dim_min(*args: DimExpr | int) -> Call:
    """``min(args...)`` as a dim expression."""
    return Call("min", args)  # type: ignore[arg-type]


def dim_max(*args: DimExpr | int) -> Call:
    """``max(args...)`` as a dim expression."""
    return Call("max", args)  # type: ignore[arg-type]


@dataclass(frozen=True)
class FlexDim:
    """NumPy's flexible dim ``n?``: present in all operands using it, or in none."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "dim")

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
        _check_name(self.name, "group")

    def __str__(self) -> str:
        return f"*{self.name}"


# --------------------------------------------------------------------------- dtypes


@dataclass(frozen=True)
class DTypeName:
    """A concrete dtype such as ``float32``."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in DTYPE_NAMES:
            raise ValueError(f"unknown dtype name {self.name!r}")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DTypeVar:
    """A dtype variable ``T``."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "dtype variable")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Promote:
    """``promote(T, U, ...)``: NumPy's result type of the arguments."""

    args: tuple[DType, ...]

    def __post_init__(self) -> None:
        _set(self, "args", tuple(_dtype(a) for a in self.args))
        if not self.args:
            raise ValueError("promote() needs at least one argument")

    #: True for ``join``: every argument ranks as a tensor (see :class:`Join`).
    joint: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"{'join' if self.joint else 'promote'}({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class Join(Promote):
    """``join(T, U, ...)``: the result type with every argument ranked as a tensor.

    Ops that put the values of all their inputs into one output (concatenate, stack)
    use it: a 0-d input is not demoted below the others as it is in arithmetic."""

    joint: ClassVar[bool] = True


@dataclass(frozen=True)
class DTypeFunction:
    """A one-argument dtype function; ``function`` names it in the text form and in
    :data:`kantensor.logic.dtypes.DTYPE_FUNCTIONS`."""

    arg: DType
    function: ClassVar[str] = ""

    def __post_init__(self) -> None:
        _set(self, "arg", _dtype(self.arg))

    def __str__(self) -> str:
        return f"{self.function}({self.arg})"


@dataclass(frozen=True)
class FloatOf(DTypeFunction):
    """``float(T)``: T if it is inexact, else the default float."""

    function: ClassVar[str] = "float"


@dataclass(frozen=True)
class RealOf(DTypeFunction):
    """``real(T)``: the real dtype of T's precision (complex64 -> float32), else T."""

    function: ClassVar[str] = "real"


_DTYPE_TYPES = (DTypeName, DTypeVar, Promote, DTypeFunction)


def expr_names(x: DimExpr) -> list[str]:
    """The dim names in an expression, in order of appearance (iterative)."""
    out, stack = [], [x]
    while stack:
        node = stack.pop()
        if isinstance(node, DimVar):
            out.append(node.name)
        elif isinstance(node, BinOp):
            stack += (node.right, node.left)
        elif isinstance(node, Call):
            stack.extend(reversed(node.args))
    return out


def dtype_names(x: DType) -> list[str]:
    """The dtype variable names in a dtype term, in order of appearance."""
    out, stack = [], [x]
    while stack:
        node = stack.pop()
        if isinstance(node, DTypeVar):
            out.append(node.name)
        elif isinstance(node, Promote):
            stack.extend(reversed(node.args))
        elif isinstance(node, DTypeFunction):
            stack.append(node.arg)
    return out


_BINARY: dict[str, Callable[[DimLike, DimLike], DimLike]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b,
}
_CALLS = {"min": _dim_min, "max": _dim_max}


def evaluate(expr: DimExpr, lookup: Callable[[str], DimLike],
             check: Callable[[DimLike], object] | None = None) -> DimLike:
    """The value of ``expr``, its names replaced by ``lookup(name)`` (ints or Dims).

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
            values.append(_CALLS[node.fn](*args))
    return values[0]


def _dtype(x: object) -> DType:
    """A dtype node; a str is a DTypeName if it names a dtype, else a DTypeVar."""
    if isinstance(x, str):
        return DTypeName(x) if x in DTYPE_NAMES else DTypeVar(x)
    if not isinstance(x, _DTYPE_TYPES):
        raise TypeError(f"not a dtype: {x!r}")
    return x


# --------------------------------------------------------------------------- operands, clauses

_ITEM_TYPES = (*_EXPR_TYPES, FlexDim, AnonGroup, AnyGroup, NamedGroup)


@dataclass(frozen=True)
class TensorPattern:
    """One operand: ``(dims...)`` with an optional ``:dtype``."""

    dims: tuple[DimItem, ...]
    dtype: DType | None = None

    def __post_init__(self) -> None:
        dims = tuple(_item(d) for d in self.dims)
        if sum(isinstance(d, AnyGroup) for d in dims) > 1:
            raise ValueError("an operand may contain at most one '...'")
        _set(self, "dims", dims)
        if self.dtype is not None:
            _set(self, "dtype", _dtype(self.dtype))

    def __str__(self) -> str:
        dtype = "" if self.dtype is None else f":{self.dtype}"
        return f"({','.join(map(str, self.dims))}){dtype}"


def _item(x: object) -> DimItem:
    if isinstance(x, int) and not isinstance(x, bool):
        return FixedDim(x)
    if not isinstance(x, _ITEM_TYPES):
        raise TypeError(f"not a dim: {x!r}")
    return x


@dataclass(frozen=True)
class Compare:
    """A dim comparison ``left op right``, op in ``== != < <= > >=``."""

    op: str
    left: DimExpr
    right: DimExpr

    def __post_init__(self) -> None:
        if self.op not in CMP_OPS:
            raise ValueError(f"unknown comparison {self.op!r}")
        _set(self, "left", _expr(self.left))
        _set(self, "right", _expr(self.right))

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class InCategory:
    """``T in CATEGORY`` (any dtype term is accepted on the left)."""

    dtype: DType
    category: str

    def __post_init__(self) -> None:
        _set(self, "dtype", _dtype(self.dtype))
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown dtype category {self.category!r}")

    def __str__(self) -> str:
        return f"{self.dtype} in {self.category}"


@dataclass(frozen=True)
class DTypeEq:
    """``T == U`` between dtypes."""

    left: DType
    right: DType

    def __post_init__(self) -> None:
        _set(self, "left", _dtype(self.left))
        _set(self, "right", _dtype(self.right))

    def __str__(self) -> str:
        return f"{self.left} == {self.right}"


@dataclass(frozen=True)
class Compatible:
    """``compatible(T, U)``: the two dtypes can be cast safely."""

    left: DType
    right: DType

    def __post_init__(self) -> None:
        _set(self, "left", _dtype(self.left))
        _set(self, "right", _dtype(self.right))

    def __str__(self) -> str:
        return f"compatible({self.left},{self.right})"


_CLAUSE_TYPES = (Compare, InCategory, DTypeEq, Compatible)


def _names(names: str | Iterable[str]) -> list[str]:
    return names.replace(",", " ").split() if isinstance(names, str) else list(names)


def dim_vars(names: str | Iterable[str]) -> tuple[DimVar, ...]:
    """``dim_vars("m n p")`` -> ``(DimVar('m'), DimVar('n'), DimVar('p'))``."""
    return tuple(DimVar(n) for n in _names(names))


def dtype_vars(names: str | Iterable[str]) -> tuple[DTypeVar, ...]:
    """``dtype_vars("x y")`` -> ``(DTypeVar('x'), DTypeVar('y'))``."""
    return tuple(DTypeVar(n) for n in _names(names))


DimExpr = DimVar | FixedDim | BinOp | Call
DimItem = DimExpr | FlexDim | AnonGroup | AnyGroup | NamedGroup
DType = DTypeName | DTypeVar | Promote | Join | FloatOf | RealOf
Clause = Compare | InCategory | DTypeEq | Compatible

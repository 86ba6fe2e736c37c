"""Operands and where-clauses of the DSL (checked as a whole when an alternative is
built, by :func:`kantensor.syntax.alternative.check`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import FunctionType

from ..limits import NESTING_LEVELS
from .dims import (
    AnyGroup,
    Compare,
    DimExpr,
    DimItem,
    DimVar,
    FixedDim,
    Message,
    as_expr,
    as_item,
    depth,
)
from .dtypes import DType, DTypeName, DTypeVar, as_dtype
from .names import CATEGORIES, DTYPE_NAMES, hashed_once, set_field

__all__ = ["CLAUSE_TYPES", "Broadcasts", "Clause", "Compare", "Compatible", "DTypeEq", "InCategory",
           "TensorPattern", "category_text", "checked", "dim_vars", "dtype_vars"]

#: The sizes that nest no level, and the dtypes an operand's levels are known with
#: when it is made (see :func:`~kantensor.syntax.limits.check_ast_nesting`): no dtype,
#: a dtype's name or a dtype variable.
_PLAIN_DIMS = frozenset({DimVar, FixedDim})
_PLAIN_DTYPES = frozenset({type(None), DTypeVar, DTypeName})
_NAMED_DTYPES = frozenset({DTypeVar, DTypeName})

# Every clause has a ``message`` (a :data:`Message`, not part of its identity: ``==``,
# ``hash`` and ``str`` ignore it) that says its failure in the user's words.
_MESSAGE = field(default=None, compare=False, repr=False)


@hashed_once
@dataclass(frozen=True)
class TensorPattern:
    """One operand: ``(dims...)`` with an optional ``:dtype``."""

    dims: tuple[DimItem, ...]
    dtype: DType | None = None

    def __post_init__(self) -> None:
        dims = self.dims
        plain = type(dims) is tuple
        for d in dims if plain else ():  # (names and fixed sizes: most operands a
            if type(d) not in _PLAIN_DIMS:  # builder makes, taken as they are)
                plain = False
                break
        if not plain:
            dims = tuple(as_item(d) for d in dims)
            if sum(isinstance(d, AnyGroup) for d in dims) > 1:
                raise ValueError("an operand may contain at most one '...'")
            set_field(self, "dims", dims)
        dtype = self.dtype
        if dtype is not None and type(dtype) not in _PLAIN_DTYPES:
            set_field(self, "dtype", as_dtype(dtype))
        if plain and type(self.dtype) in _PLAIN_DTYPES:
            set_field(self, NESTING_LEVELS, 1)  # (names and sizes nest no level)
        elif type(self.dtype) in _PLAIN_DTYPES:
            # one level more than its deepest size (see check_ast_nesting), known without
            # walking it where each size's is (most operands builders make at a new rank)
            inner = [0 if type(d) in _PLAIN_DIMS else depth(d) for d in dims]
            if None not in inner:
                set_field(self, NESTING_LEVELS, max(inner, default=0) + 1)

    def __str__(self) -> str:
        dtype = "" if self.dtype is None else f":{self.dtype}"
        return f"({','.join(map(str, self.dims))}){dtype}"


@dataclass(frozen=True)
class InCategory:
    """``T in CATEGORY``, or ``T in (float16, float32)``: a set of dtype names (kept
    sorted and without repeats, so that equal sets are equal clauses) where no category
    names the set (ONNX's type constraints). Any dtype term is accepted on the left."""

    dtype: DType
    category: str | tuple[str, ...]

    message: Message | None = _MESSAGE

    def __post_init__(self) -> None:
        set_field(self, "dtype", as_dtype(self.dtype))
        if isinstance(self.category, str):
            if self.category not in CATEGORIES:
                raise ValueError(f"unknown dtype category {self.category!r}")
        else:
            names = tuple(sorted(set(self.category)))
            unknown = [n for n in names if n not in DTYPE_NAMES]
            if not names or unknown:
                raise ValueError(f"a dtype set holds dtype names, got {self.category!r}")
            set_field(self, "category", names)
        if type(self.dtype) in _NAMED_DTYPES and (self.message is None or type(
                self.message) is FunctionType):  # (a name's or a set's: one level, as
            set_field(self, NESTING_LEVELS, 1)  # check_ast_nesting finds, not walked)

    def __str__(self) -> str:
        return f"{self.dtype} in {category_text(self.category)}"


def category_text(category: str | tuple[str, ...]) -> str:
    """A category as the DSL writes it: its name, or its dtypes in parentheses."""
    return category if isinstance(category, str) else f"({', '.join(category)})"


@dataclass(frozen=True)
class DTypeEq:
    """``T == U`` between dtypes."""

    left: DType
    right: DType

    message: Message | None = _MESSAGE

    def __post_init__(self) -> None:
        set_field(self, "left", as_dtype(self.left))
        set_field(self, "right", as_dtype(self.right))

    def __str__(self) -> str:
        return f"{self.left} == {self.right}"


@dataclass(frozen=True)
class Compatible:
    """``compatible(T, U)``: the two dtypes can be cast safely."""

    left: DType
    right: DType

    message: Message | None = _MESSAGE

    def __post_init__(self) -> None:
        set_field(self, "left", as_dtype(self.left))
        set_field(self, "right", as_dtype(self.right))

    def __str__(self) -> str:
        return f"compatible({self.left},{self.right})"


@dataclass(frozen=True)
class Broadcasts:
    """``broadcast(a, b, ...) == c``: NumPy's broadcasting of one axis, each argument is
    1 or ``c``, and ``c`` is 1 only if they all are (einsum's repeated indices)."""

    args: tuple[DimExpr, ...]
    result: DimExpr

    message: Message | None = _MESSAGE

    def __post_init__(self) -> None:
        args = tuple(as_expr(a) for a in self.args)
        if not args:
            raise ValueError("broadcast() needs at least one size")
        set_field(self, "args", args)
        set_field(self, "result", as_expr(self.result))

    def __str__(self) -> str:
        return f"broadcast({','.join(map(str, self.args))}) == {self.result}"


CLAUSE_TYPES = (Compare, InCategory, DTypeEq, Compatible, Broadcasts)



def checked(clause: Clause, message: Message) -> Clause:
    """``clause`` carrying ``message``, its failure in the user's words (as
    ``torch._check(cond, msg)`` does): ``checked(n >= 1, lambda values, types: ...)``.

    A comparison given a function is copied as it is, its message set: its fields were
    normalised when it was made, and what it remembers (its hash, its levels, whether it
    holds a placeholder) is not of its message, which is none of its identity and a leaf
    to the nesting check. A builder checks several clauses at each new rank, and
    ``dataclasses.replace`` made each anew through its fields (about 400 bytecodes a
    clause in a first call)."""
    if type(clause) is Compare and type(message) is FunctionType:
        made = object.__new__(Compare)
        made.__dict__.update(clause.__dict__)
        set_field(made, "message", message)
        return made
    return dataclasses.replace(clause, message=message)


def chosen(clause: Compare, otherwise: str) -> Compare:
    """``clause`` as a builder's choice: where it fails, ``otherwise`` applies (other
    types than the build's), so those sizes are not covered, not invalid."""
    return dataclasses.replace(clause, otherwise=otherwise)


def _names(names: str | Iterable[str]) -> list[str]:
    return names.replace(",", " ").split() if isinstance(names, str) else list(names)


def dim_vars(names: str | Iterable[str]) -> tuple[DimVar, ...]:
    """``dim_vars("m n p")`` -> ``(DimVar('m'), DimVar('n'), DimVar('p'))``."""
    return tuple(DimVar(n) for n in _names(names))


def dtype_vars(names: str | Iterable[str]) -> tuple[DTypeVar, ...]:
    """``dtype_vars("x y")`` -> ``(DTypeVar('x'), DTypeVar('y'))``."""
    return tuple(DTypeVar(n) for n in _names(names))


Clause = Compare | InCategory | DTypeEq | Compatible | Broadcasts

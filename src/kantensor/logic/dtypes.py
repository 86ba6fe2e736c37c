"""dtype constraints: promotion (ground fast path, enumeration otherwise),
``float(T)`` and ``real(T)``, categories and compatibility."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from unification import isvar

from ..types.dtypes import (
    DTYPES,
    Category,
    Priority,
    category,
    get_default_dtype,
    is_inexact,
    is_lossless_cast,
    is_unsigned,
    result_type_of,
)
from .state import Constraint, KState, unify_oc, walk

#: Categories usable in where-clauses: ``T in floating``.
CATEGORIES: dict[str, frozenset[str]] = {
    "bool": frozenset({"bool"}),
    "integer": frozenset(d for d in DTYPES if category(d) == Category.INTEGER),
    "signed": frozenset(d for d in DTYPES if category(d) == Category.INTEGER
                        and not is_unsigned(d)),
    "unsigned": frozenset(d for d in DTYPES if is_unsigned(d)),
    "floating": frozenset(d for d in DTYPES if category(d) == Category.FLOATING),
    "complex": frozenset(d for d in DTYPES if category(d) == Category.COMPLEX),
    "inexact": frozenset(d for d in DTYPES if is_inexact(d)),
    "number": frozenset(d for d in DTYPES if d != "bool"),
}


@lru_cache(maxsize=4096)
def _promote(operands: tuple[tuple[str, Priority], ...]) -> str:
    return result_type_of(operands)


def _unify_done(u: Any, v: Any, s: KState) -> tuple[KState, bool] | None:
    out = unify_oc(u, v, s)
    return (out, True) if out is not False else None


def _first_unknown(terms: Any, s: KState) -> Any | None:
    for t in terms:
        w = walk(t, s)
        if isvar(w):
            return w
    return None


def _enumerate(v: Any, options: Any) -> list:
    return [lambda st, d=d: unify_oc(v, d, st) or None for d in sorted(options)]


@dataclass(frozen=True, eq=False)
class Promote(Constraint):
    """``out == result_type(operands)`` with each operand's priority (§3 of the design).

    Ground operands: a cached dict lookup. Otherwise it waits; labeling
    enumerates the unknown operand dtypes.
    """

    out: Any
    operands: tuple  # ((dtype term, Priority), ...)
    where: str = ""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        ground = []
        for term, prio in self.operands:
            d = walk(term, s)
            if isvar(d):
                return s, False
            ground.append((d, prio))
        return _unify_done(self.out, _promote(tuple(ground)), s)

    def choices(self, s: KState) -> list | None:
        v = _first_unknown((t for t, _ in self.operands), s)
        return None if v is None else _enumerate(v, DTYPES)

    def explain(self, s: KState) -> str:
        got = ", ".join(str(walk(t, s)) for t, _ in self.operands)
        return f"{self.where}: promoting ({got}) gives {_promote_text(self, s)}, " \
               f"not {walk(self.out, s)}"


def _promote_text(c: Promote, s: KState) -> str:
    try:
        return _promote(tuple((walk(t, s), p) for t, p in c.operands))
    except Exception:  # pragma: no cover - only for messages
        return "?"


def float_of(dtype: str) -> str:
    """``float(T)``: T if it is inexact, else the default float dtype."""
    return dtype if is_inexact(dtype) else get_default_dtype()


def real_of(dtype: str) -> str:
    """``real(T)``: the real dtype of a complex T's precision, else T itself."""
    return _REAL.get(dtype, dtype)


_REAL = {"complex64": "float32", "complex128": "float64"}

#: One-argument dtype functions of the signature DSL, by name.
DTYPE_FUNCTIONS = {"float": float_of, "real": real_of}


@dataclass(frozen=True, eq=False)
class DTypeMap(Constraint):
    """``out == f(T)`` for a function of :data:`DTYPE_FUNCTIONS` (``float``, ``real``)."""

    out: Any
    arg: Any
    function: str
    where: str = ""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        d = walk(self.arg, s)
        if isvar(d):
            return s, False
        return _unify_done(self.out, DTYPE_FUNCTIONS[self.function](d), s)

    def choices(self, s: KState) -> list | None:
        v = _first_unknown((self.arg,), s)
        return None if v is None else _enumerate(v, DTYPES)

    def explain(self, s: KState) -> str:
        return f"{self.where}: {self.function}({walk(self.arg, s)}) is not {walk(self.out, s)}"


@dataclass(frozen=True, eq=False)
class InCategory(Constraint):
    """``T in CATEGORY`` (a where-clause)."""

    dtype: Any
    category: str
    name: str = "T"

    def check(self, s: KState) -> tuple[KState, bool] | None:
        d = walk(self.dtype, s)
        if isvar(d):
            return s, False
        return (s, True) if d in CATEGORIES[self.category] else None

    def choices(self, s: KState) -> list | None:
        v = _first_unknown((self.dtype,), s)
        return None if v is None else _enumerate(v, CATEGORIES[self.category])

    def explain(self, s: KState) -> str:
        return f"where-clause {self.name} in {self.category} fails: " \
               f"{self.name} is {walk(self.dtype, s)}"


@dataclass(frozen=True, eq=False)
class Compatible(Constraint):
    """``compatible(T, U)``: one of the two dtypes casts to the other without loss."""

    left: Any
    right: Any
    text: str = ""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        a, b = walk(self.left, s), walk(self.right, s)
        if isvar(a) or isvar(b):
            return s, False
        return (s, True) if is_lossless_cast(a, b) or is_lossless_cast(b, a) else None

    def choices(self, s: KState) -> list | None:
        v = _first_unknown((self.left, self.right), s)
        return None if v is None else _enumerate(v, DTYPES)

    def explain(self, s: KState) -> str:
        return f"where-clause {self.text} fails: {walk(self.left, s)} and " \
               f"{walk(self.right, s)} do not convert losslessly either way"

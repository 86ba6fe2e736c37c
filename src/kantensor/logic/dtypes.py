"""dtype constraints: promotion with priorities derived from the terms, ``float(T)`` and
``real(T)``, categories, compatibility, and what a wrapped Python number can be.

Promotion of ground operands is a cached dict lookup; an unknown dtype, rank or wrapped
flag makes the constraint wait, and labeling enumerates it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..syntax.ast import category_text
from ..syntax.vocabulary import Word
from ..types.dtypes import (
    CATEGORIES,
    DEFAULT_RANGE,
    DTYPE_FUNCTIONS,
    DTYPES,
    Priority,
    PromotionError,
    is_lossless_cast,
    priority,
    python_dtype,
)
from ..types.numpyrules import loop_float, promoted
from .store import Constraint, Progress, Reason, bind_choices, guess, said, unify_oc
from .terms import isvar, walk

__all__ = ["Compatible", "DTypeMap", "InCategory", "InDefaultRange", "Operand", "Promote",
           "WrappedOk", "category_dtypes"]

_IN_RANGE = frozenset(DEFAULT_RANGE)
#: Where each dtype stands in the table (bool, the ints by width, ...): the order
#: labeling tries a category's dtypes in, so answers list them as the table does.
_TABLE_ORDER = {d: i for i, d in enumerate(DTYPES)}


def category_dtypes(category: str | tuple[str, ...]) -> frozenset[str]:
    """The dtypes of a where-clause's category: a category's name, or a set of dtype
    names (``T in (float16, float32)``, as :class:`~kantensor.syntax.ast.InCategory`
    keeps it), made once per set (a check of a dtype is one lookup)."""
    if type(category) is str:
        return CATEGORIES[category]
    found = _SETS.get(category)
    if found is None:
        found = _SETS[category] = frozenset(category)
    return found


#: Each dtype set a where-clause names, as a frozenset (by its sorted names).
_SETS: dict[tuple[str, ...], frozenset[str]] = {}


def _done_if_unified(u: Any, v: Any, s: dict) -> Progress:
    out = unify_oc(u, v, s)
    return (out, True) if out is not False else None


@dataclass(frozen=True)
class Operand:
    """One operand of a promotion: its dtype, shape and wrapped terms. ``shape`` None
    ranks the operand as a tensor whatever it is (``join``, constant dtypes)."""

    dtype: Any
    shape: Any = None
    wrapped: Any = False

    def priority(self, s: dict) -> Priority | None:
        """The operand's priority (§3), or None while its rank or flag is unknown."""
        if self.shape is None:
            return Priority.TENSOR
        shape, wrapped = walk(self.shape, s), walk(self.wrapped, s)
        if isvar(shape) or isvar(wrapped):
            return None
        return priority(len(shape), wrapped)


@dataclass(frozen=True, eq=False)
class Promote(Constraint):
    """``out == result_type(operands)``, each operand ranked by its own term; ``loop``:
    ``out == loopfloat(operands)`` (the float a float ufunc computes them in)."""

    out: Any
    operands: tuple[Operand, ...]
    where: str = ""
    loop: bool = False

    def check(self, s: dict, pending: tuple) -> Progress:
        ground = []
        for op in self.operands:
            d = walk(op.dtype, s)
            p = op.priority(s)
            if isvar(d) or p is None:
                return s, False
            ground.append((d, p))
        try:
            result = (loop_float if self.loop else promoted)(tuple(ground))
        except PromotionError:  # dtypes with no promotion (bfloat16 + float16): no answer
            return None
        return _done_if_unified(self.out, result, s)

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        return guess([op.dtype for op in self.operands], s, DEFAULT_RANGE) or \
            guess([op.wrapped for op in self.operands], s, (False, True))

    def terms(self) -> tuple:
        return (self.out, *(t for op in self.operands for t in (op.dtype, op.shape,
                                                                 op.wrapped)))

    def explain(self, s: dict) -> str:
        got = ", ".join(str(walk(op.dtype, s)) for op in self.operands)
        ground = tuple((walk(op.dtype, s), op.priority(s)) for op in self.operands)
        doing = "the loop float of" if self.loop else "promoting"
        if not all(isinstance(d, str) and p is not None for d, p in ground):
            return f"{self.where}: {doing} ({got}) gives ?, not {walk(self.out, s)}"
        try:
            result = (loop_float if self.loop else promoted)(ground)
        except PromotionError as exc:
            return f"{self.where}: {doing} ({got}) fails: {exc}"
        return f"{self.where}: {doing} ({got}) gives {result}, not {walk(self.out, s)}"


@dataclass(frozen=True, eq=False)
class DTypeMap(Constraint):
    """``out == f(T)`` for a dtype function of the DSL (``float``, ``real``)."""

    out: Any
    arg: Any
    function: Word
    where: str = ""

    def check(self, s: dict, pending: tuple) -> Progress:
        d = walk(self.arg, s)
        if isvar(d):
            return s, False
        if d not in _IN_RANGE:  # float(string): no such dtype
            return None
        return _done_if_unified(self.out, DTYPE_FUNCTIONS[self.function](d), s)

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        return guess((self.arg,), s, DEFAULT_RANGE)

    def terms(self) -> tuple:
        return (self.out, self.arg)

    def explain(self, s: dict) -> str:
        d, name = walk(self.arg, s), self.function.text
        if isinstance(d, str) and d not in _IN_RANGE:  # (its result is no dtype: not named)
            return f"{self.where}: {name}({d}) is no dtype: {name} takes bool and the " \
                f"numbers, not {d}"
        return f"{self.where}: {name}({d}) is not {walk(self.out, s)}"


@dataclass(frozen=True, eq=False)
class InCategory(Constraint):
    """``T in CATEGORY`` (a where-clause)."""

    dtype: Any
    category: str | tuple[str, ...]
    name: str = "T"
    #: the inputs whose dtype ``name`` is, when it is one input's own dtype variable
    #: (``u`` of ``(b):u``; empty for ``promote(x,y)``); for messages
    inputs: tuple = ()

    #: the dtypes the clause accepts (its category's or its set's): what :meth:`check`
    #: tests a bound dtype against and labeling enumerates (set once, when made)
    members: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", category_dtypes(self.category))

    def check(self, s: dict, pending: tuple) -> Progress:
        d = walk(self.dtype, s)
        if isvar(d):
            return s, False
        return (s, True) if d in self.members else None

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        return guess((self.dtype,), s, sorted(self.members,
                                              key=lambda d: (_TABLE_ORDER.get(d, len(DTYPES)), d)))

    def terms(self) -> tuple:
        return (self.dtype,)

    def explain(self, s: dict) -> str:
        got = walk(self.dtype, s)
        category = category_text(self.category)
        return Reason(f"where-clause {self.name} in {category} fails: {self.name} is "
                      f"{got}", "category", category=category, got=got,
                      inputs=self.inputs, clause=f"{self.name} in {category}")


@dataclass(frozen=True, eq=False)
class InDefaultRange(Constraint):
    """An input's dtype is in :data:`~kantensor.types.dtypes.DEFAULT_RANGE` (not a
    string) where its annotation names no category. It never enumerates: a dtype left
    open stays open (any dtype of the range); it fails once the dtype is a string."""

    dtype: Any
    where: Any = ""  # the operand's place (an object whose str names it)

    #: the dtypes it accepts (every dtype but string): what :meth:`check` tests a bound
    #: dtype against, and the set an answer states of a dtype it leaves open
    members: ClassVar[frozenset[str]] = _IN_RANGE

    def check(self, s: dict, pending: tuple) -> Progress:
        d = walk(self.dtype, s)
        if isvar(d):
            return s, False
        return (s, True) if d in self.members else None

    def terms(self) -> tuple:
        return (self.dtype,)

    def explain(self, s: dict) -> str:
        return said(self.where, f" has dtype {walk(self.dtype, s)}, not taken here: a "
                    f"dtype ranges over bool and the numbers, strings only where a "
                    f"where-clause says T in string", kind="dtype")


@dataclass(frozen=True, eq=False)
class Compatible(Constraint):
    """``compatible(T, U)``: one of the two dtypes casts to the other without loss."""

    left: Any
    right: Any
    text: str = ""

    def check(self, s: dict, pending: tuple) -> Progress:
        a, b = walk(self.left, s), walk(self.right, s)
        if isvar(a) or isvar(b):
            return s, False
        return (s, True) if is_lossless_cast(a, b) or is_lossless_cast(b, a) else None

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        return guess((self.left, self.right), s, DTYPES)

    def terms(self) -> tuple:
        return (self.left, self.right)

    def explain(self, s: dict) -> str:
        return f"where-clause {self.text} fails: {walk(self.left, s)} and " \
               f"{walk(self.right, s)} do not convert losslessly either way"


def wrapped_dtypes() -> tuple[str, ...]:
    """The dtypes a wrapped Python number can have (with the current default dtype)."""
    return tuple(dict.fromkeys(python_dtype(x) for x in (True, 0, 0.0, 0j)))


@dataclass(frozen=True, eq=False)
class WrappedOk(Constraint):
    """A wrapped operand is a Python number: rank 0, a dtype Python numbers take."""

    dtype: Any
    shape: Any
    wrapped: Any
    where: Any = ""  # the operand's place (an object whose str names it)

    def check(self, s: dict, pending: tuple) -> Progress:
        flag = walk(self.wrapped, s)
        if isvar(flag):
            return s, False
        if flag is not True:
            return s, True
        out = unify_oc(self.shape, (), s)
        if out is False:
            return None
        d = walk(self.dtype, out)
        if isvar(d):
            return out, False
        return (out, True) if d in wrapped_dtypes() else None

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        if isvar(walk(self.wrapped, s)):
            return bind_choices(walk(self.wrapped, s), (False, True))
        return guess((self.dtype,), s, wrapped_dtypes())

    def terms(self) -> tuple:
        return (self.dtype, self.shape, self.wrapped)

    def explain(self, s: dict) -> str:
        return said(self.where, ": a wrapped Python number has no axes and a dtype among "
                    f"{', '.join(wrapped_dtypes())}, got {walk(self.dtype, s)}")

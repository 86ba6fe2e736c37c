"""The logic term of a tensor type, with unify/reify registered for kanren."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from unification import Var
from unification import isvar as _isvar
from unification.core import _reify, _unify, construction_sentinel

from ..types.dim import Dim

__all__ = ["ASSUMED", "FACTS", "GROUND", "VARS", "Fresh", "Symbol", "TensorTerm", "fresh",
           "isvar", "symbol", "term_vars", "walk"]


#: Terms that are never logic variables (checked by type: ``isvar`` is slow).
GROUND = frozenset({int, str, bool, type(None), float})


class Fresh(Var):
    """A logic variable the solver makes: unique by construction, so it skips
    unification's registry of tokens, and it hashes and compares by identity (cheap
    as a key of a substitution). To unification and kanren it is a ``Var``."""

    __slots__ = ("_made",)
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    @property
    def token(self) -> str:
        """``prefix_N``: written only when read (messages, names), not when made."""
        prefix, n = self._made
        return f"{prefix}_{n}"


class Symbol(Fresh):
    """The logic variable of a named size (a ``Dim`` of a given type): *rigid*. The
    solver never binds it: where a relation needs it equal to another size, that is a
    condition (:data:`ASSUMED`), never a merge. Its value in size arithmetic is its Dim
    (``dim``), so expressions and conditions are in the user's names."""

    __slots__ = ("dim",)


_FRESH_IDS = itertools.count(1)
_new = object.__new__
#: The types of logic variables kantensor makes or meets most (fast type checks).
VARS = frozenset({Var, Fresh, Symbol})


def symbol(dim: Any) -> Symbol:
    """The rigid variable standing for the size ``dim`` (a named Dim, or an expression
    of them) in one solve."""
    v = _new(Symbol)
    v._made = (getattr(dim, "name", None) or "size", next(_FRESH_IDS))
    v.dim = dim
    return v


class _Reserved:
    """A key of a substitution that is no logic variable: what a solve carries beside
    the bindings, copied with them so each branch has its own (walk never meets it)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


#: The substitution's record of the equalities a solve needed between rigid sizes
#: (named sizes, or one and an int) and could not decide: a tuple of ``(a, b)`` pairs
#: of Dims/ints, conditions of the answer.
ASSUMED = _Reserved("assumed")
#: The substitution's :class:`~kantensor.types.facts.Facts`: what is known of the named
#: sizes while this solve runs (absent: nothing beyond every size being >= 0).
FACTS = _Reserved("facts")


def fresh(prefix: str = "") -> Var:
    """A new logic variable, its token ``prefix_N`` (names in messages come from it)."""
    v = _new(Fresh)
    v._made = (prefix, next(_FRESH_IDS))
    return v


def prefix_of(v: Any) -> str:
    """The prefix a variable was made with by :func:`fresh` (the signature name it
    stands for, such as ``m``), or ``""``; read from the variable, not its token's text."""
    return v._made[0] if type(v) is Fresh else ""


def isvar(term: Any) -> bool:
    """Is ``term`` a logic variable? (unification's ``isvar``, answered by type first.)"""
    kind = type(term)
    return kind in VARS or (kind not in _NOT_KEYS and _isvar(term))


def walk(term: Any, s: Mapping) -> Any:
    """What ``term`` stands for in substitution ``s``: a variable is followed along its
    bindings; any other term is itself. (unification's ``transitive_get``, without a
    context manager per call or a lookup of terms that cannot be variables.)"""
    if type(term) in _NOT_KEYS:
        return term
    try:
        while term in s:
            term = s[term]
    except TypeError:  # an unhashable term is no key of a substitution
        pass
    return term


@dataclass(frozen=True)
class TensorTerm:
    """``TensorTerm(dtype, shape, wrapped, value)``: a tensor type as a logic term.

    ``dtype`` is a dtype name or a logic variable; ``shape`` a tuple of sizes (ints or
    logic variables) or a logic variable when even the rank is unknown; ``wrapped``
    says whether the operand is a Python number used in an operation (True, False or a
    logic variable). The promotion priority of an operand is derived from its rank
    and ``wrapped`` inside the relation (§3, §7 of the design). ``value`` is what a
    wrapped Python int is, where it is known: an int (a constant's), or a size term
    (a size used as a number, ``x + (n - 3)``: the rigid variable of ``n - 3``); None
    where nothing says it (unknown: it unifies with any value). The relation of an Op
    that computes in its output's dtype states that it fits there
    (:class:`~kantensor.logic.pyints.PyIntFits`), as NumPy 2 requires.
    """

    dtype: Any
    shape: Any
    wrapped: Any = False
    value: Any = field(default=None, repr=False)  # (reprs as before where it is None)

    def __init__(self, dtype: Any, shape: Any, wrapped: Any = False, value: Any = None
                 ) -> None:
        # the fields, written once into the instance (still frozen afterwards): a frozen
        # dataclass's own __init__ calls object.__setattr__ per field, twice the time,
        # and every solve makes a term per operand
        fields = self.__dict__
        fields["dtype"], fields["shape"], fields["wrapped"] = dtype, shape, wrapped
        fields["value"] = value

    def __str__(self) -> str:
        shape = self.shape
        body = ",".join(str(d) if isinstance(d, int | Dim) else "?" for d in shape) \
            if isinstance(shape, tuple) else "..."  # (a size an answer names: its Dim)
        dtype = self.dtype  # a name, or an answer's open dtype (its name), else ?
        dtype = "?" if dtype is None or isvar(dtype) else str(dtype)
        return f"{dtype}[{body}]" + (" (wrapped)" if self.wrapped is True else "")


def _unify_term(u: TensorTerm, v: TensorTerm, s: Mapping) -> Any:
    s = yield _unify(u.dtype, v.dtype, s)
    if s is not False:
        s = yield _unify(u.shape, v.shape, s)
    if s is not False:
        s = yield _unify(u.wrapped, v.wrapped, s)
    if s is not False and u.value is not None and v.value is not None:  # (None: unknown)
        s = yield _unify(u.value, v.value, s)
    yield s


def _reify_term(u: TensorTerm, s: Mapping) -> Any:
    dtype = yield _reify(u.dtype, s)
    shape = yield _reify(u.shape, s)
    wrapped = yield _reify(u.wrapped, s)
    value = None if u.value is None else (yield _reify(u.value, s))
    yield construction_sentinel
    yield TensorTerm(dtype, shape, wrapped, value)


#: Terms that are never keys of a substitution (only logic variables are bound), so
#: walk returns them without hashing them.
_NOT_KEYS = GROUND | {TensorTerm, tuple}

_unify.add((TensorTerm, TensorTerm, Mapping), _unify_term)
_reify.add((TensorTerm, Mapping), _reify_term)


def term_vars(term: Any, s: Mapping) -> Iterator[Any]:
    """The unbound logic variables of ``term`` under ``s`` (iterative, each once; a
    cyclic binding is followed once, so this ends even on one)."""
    stack, seen = [term], set()
    while stack:
        t = stack.pop()
        while isvar(t) and t not in seen:
            seen.add(t)
            bound = s.get(t, t)
            if bound is t:
                yield t
                break
            t = bound
        if isvar(t):
            continue
        if isinstance(t, TensorTerm):
            stack.extend((t.wrapped, t.shape, t.dtype))
        elif isinstance(t, tuple | list):
            stack.extend(reversed(t))

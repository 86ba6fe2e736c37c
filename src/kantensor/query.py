"""Relational queries: kanren's ``run`` over a signature's relation and ``labelo``.

Any part of a type can be a logic variable (:func:`var`): a whole type, a dtype, one
size, or a whole shape. :func:`query` runs the Op's relation (the same one
``make_node`` runs forwards) together with :func:`~kantensor.logic.store.labelo`, and
returns every answer lazily as a :class:`Solutions` object.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

from kanren import eq, lall
from kanren.constraints import ConstrainedState
from unification import isvar, var

from .logic.dims import symbolic_values
from .logic.store import TypeStore, labelo
from .logic.terms import TensorTerm, term_vars, walk
from .signature.display import solutions_html
from .signature.signature import Signature
from .signature.solve import DEFAULT_MAX_RANK, Relation, relation
from .types.dim import Dim
from .types.dtypes import normalize_dtype
from .types.type import TensorType

__all__ = ["Solutions", "pattern", "query", "var"]

#: The anonymous variables :func:`pattern` made for what the user left open: they are
#: the pattern's, not the user's, so answers never show them (identity by object).
_ANONYMOUS: weakref.WeakSet = weakref.WeakSet()


def _anonymous() -> Any:
    v = var()
    _ANONYMOUS.add(v)
    return v


def pattern(dtype: Any = None, shape: Any = None, wrapped: Any = False) -> TensorTerm:
    """A tensor type whose dtype, shape or sizes may be logic variables.

    ``pattern(var("d"), (var("n"), 3))``; ``None`` means "anything" (a fresh anonymous
    variable, never shown in answers). ``wrapped`` may be a logic variable too: a
    wrapped operand is a Python number used in an operation (§3).
    """
    if dtype is None:
        dtype = _anonymous()
    elif not isvar(dtype):
        dtype = normalize_dtype(dtype)
    if shape is None:
        shape = _anonymous()
    elif not isvar(shape):
        shape = tuple(_anonymous() if d is None else _size(d) for d in shape)
    if wrapped is None:
        wrapped = _anonymous()
    elif not isvar(wrapped) and not isinstance(wrapped, bool):
        raise TypeError(f"wrapped must be True, False, None or a logic variable, got "
                        f"{wrapped!r}")
    return TensorTerm(dtype, shape, wrapped)


def _size(d: Any) -> Any:
    if isvar(d):
        return d
    if isinstance(d, bool) or not isinstance(d, int):
        raise TypeError(f"a size in a pattern must be an int, None or a logic variable, "
                        f"got {d!r}")
    if d < 0:
        raise ValueError(f"a size must be >= 0, got {d}")
    return d


class Solutions:
    """The answers of a query, computed lazily: iterate, index, or take ``len`` (which
    enumerates them all, up to the query's ``limit``)."""

    def __init__(self, stream: Iterator[dict], names: list[str], limit: int | None,
                 max_rank: int = DEFAULT_MAX_RANK):
        self._stream = stream if limit is None else itertools.islice(stream, limit)
        self._seen: list[dict] = []
        self._done = False
        self.names = names
        self.limit = limit
        self.max_rank = max_rank

    def __iter__(self) -> Iterator[dict]:
        yield from self._seen
        if self._done:
            return
        for answer in self._stream:
            self._seen.append(answer)
            yield answer
        self._done = True

    def __len__(self) -> int:
        for _ in self:
            pass
        return len(self._seen)

    def __getitem__(self, i: int) -> dict:
        if i < 0:
            return list(self)[i]
        for k, answer in enumerate(self):
            if k == i:
                return answer
        raise IndexError(f"solution {i} out of range")

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def __repr__(self) -> str:
        rows = list(itertools.islice(self, 21))
        if not rows:
            return "no solutions"
        text = "\n".join(", ".join(f"{k} = {_fmt(v)}" for k, v in r.items())
                         for r in rows[:20])
        return text + ("\n..." if len(rows) > 20 else "")

    def _repr_html_(self) -> str:
        return solutions_html(self.names, self)


def _fmt(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_fmt, value)) + ("," if len(value) == 1 else "") + ")"
    return str(value)


# -- answers --------------------------------------------------------------------------
def _user_vars(terms: Sequence[Any]) -> list[Any]:
    """The logic variables the user wrote, in order of appearance."""
    return [v for v in term_vars(list(terms), {}) if v not in _ANONYMOUS]


class _Namer:
    """Fresh Dim names for sizes an answer leaves unknown (unique in the answer)."""

    def __init__(self, taken: set[str]):
        self.taken = taken

    def __call__(self, v: Any) -> Dim:
        base = str(v.token).rsplit("_", 1)[0]
        base = base if base.isidentifier() else "n"
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return Dim(name)


def _answer(user: list[Any], roles: set, S: ConstrainedState) -> dict[str, Any]:
    """The answer in state ``S``: each user variable's value (``roles``: the variables
    that stand for one size)."""
    s = S.data
    store = S.constraints[TypeStore]
    named = {walk(v, s): dim for dim, v in reversed(list(store.dims.items()))
             if isvar(walk(v, s))}  # a given type's Dims first: they keep their names
    taken = {d.name for d in store.dims if d.name} | {str(v.token) for v in user}
    for v in user:  # an unknown size a user variable stands for is named after it
        w = walk(v, s)
        if v in roles and isvar(w) and w not in named and str(v.token).isidentifier():
            named[w] = Dim(str(v.token))
    sizes = list(term_vars([*_shapes(user, s), *roles], s))
    values = symbolic_values(sizes, s, store.pending, named, _Namer(taken))

    def value(term: Any, is_size: bool = False) -> Any:
        t = walk(term, s)
        if isvar(t):
            return values.get(t) if is_size else None
        if isinstance(t, TensorTerm):
            dtype, shape = walk(t.dtype, s), value(t.shape)
            if isinstance(dtype, str) and isinstance(shape, tuple) and \
                    all(x is not None for x in shape):
                return TensorType(dtype, shape)
            return TensorTerm(None if isvar(dtype) else dtype, shape, walk(t.wrapped, s))
        if isinstance(t, tuple):
            return tuple(value(x, True) for x in t)
        return t

    return {str(v.token): value(v, v in roles) for v in user}


def _shapes(terms: list, s: dict) -> list:
    """Every size position of ``terms`` (walked), for naming unknown sizes."""
    out, stack = [], list(terms)
    while stack:
        t = walk(stack.pop(), s)
        if isinstance(t, TensorTerm):
            stack.append(t.shape)
        elif isinstance(t, tuple):
            out.extend(t)
    return out


def query(op_or_signature: Any, inputs: Sequence[Any], outputs: Sequence[Any],
          limit: int | None = None, max_rank: int = DEFAULT_MAX_RANK) -> Solutions:
    """Every assignment of the logic variables in ``inputs``/``outputs`` that fits.

    ``inputs``/``outputs`` hold TensorTypes (or compact text like ``"float32[3,?]"``),
    ``pattern(...)`` terms, or logic variables (a bare variable input stands for a tensor
    type, not a Python number). Each answer maps the user's variables to dtypes, sizes,
    shapes or types; a size the signature leaves open is a symbolic Dim. ``max_rank``
    bounds the axes tried where a rank is unknown.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise ValueError(f"limit must be None or an int >= 0, got {limit!r}")
    target = Signature.parse(op_or_signature) if isinstance(op_or_signature, str) \
        else op_or_signature
    rel = relation(target, max_rank)
    _check_counts(rel, len(inputs), len(outputs))
    for x in [*inputs, *outputs]:
        if isinstance(x, str):
            TensorType.parse(x)  # syntax errors now, not when the answers are read
    user = _user_vars([*inputs, *outputs])
    roles = {v for v in user if any(v is x for x in _shapes([*inputs, *outputs], {}))}
    typed = [eq(x, TensorTerm(var(), var(), False)) for x in inputs if isvar(x)]
    goal = lall(*typed, rel.goal(inputs, outputs), labelo())

    def stream() -> Iterator[dict]:
        seen: set[str] = set()
        for S in goal(ConstrainedState()):
            answer = _answer(user, roles, S)
            key = repr(sorted(answer.items()))
            if key not in seen:
                seen.add(key)
                yield answer

    return Solutions(stream(), [str(v.token) for v in user], limit, max_rank)


def _check_counts(rel: Relation, n_in: int, n_out: int) -> None:
    alternatives = getattr(rel.target, "alternatives", None)
    if alternatives is not None:
        counts = {(len(a.inputs), len(a.outputs)) for a in alternatives}
    else:
        counts = {(n_in, rel.n_outputs)}
    if (n_in, n_out) not in counts:
        want = " or ".join(f"{i} input{'s' * (i != 1)} and {o} output{'s' * (o != 1)}"
                           for i, o in sorted(counts))
        raise TypeError(f"{rel.name}: takes {want}, got {n_in} input{'s' * (n_in != 1)} "
                        f"and {n_out} output{'s' * (n_out != 1)}")

"""Relational queries: run a signature forwards, backwards or both ways.

Any part of a type can be a logic variable (``kt.var("y")``): a whole type,
a dtype, one size, or a whole shape. :func:`query` returns every solution
lazily as a :class:`Solutions` object.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from unification import isvar, var

from .logic.dims import symbolic_values
from .logic.state import KState, label, walk
from .logic.terms import TensorTerm
from .ops.op import OpFamily, TemplateOp
from .signature.ast import Signature
from .signature.display import solutions_html
from .signature.solve import TermBuilder, compiled
from .types.dtypes import Priority, normalize_dtype
from .types.type import TensorType

__all__ = ["Solutions", "pattern", "query", "var"]


def pattern(dtype: Any = None, shape: Any = None) -> TensorTerm:
    """A tensor type whose dtype, shape or sizes may be logic variables.

    ``pattern(var("d"), (var("n"), 3))``; ``None`` means "anything"
    (a fresh anonymous variable).
    """
    if dtype is None:
        dtype = var()
    elif not isvar(dtype):
        dtype = normalize_dtype(dtype)
    if shape is None:
        shape = var()
    elif not isvar(shape):
        shape = tuple(var() if d is None else d for d in shape)
    return TensorTerm(dtype, shape)


def signature_of(obj: Any, inputs: Sequence[Any] = ()) -> tuple[Signature, str | None]:
    """The Signature of an Op (a template Op's rendered for ``inputs``), a Signature
    or signature text, and the Op's name if there is one."""
    if isinstance(obj, Signature):
        return obj, None
    if isinstance(obj, str):
        return Signature.parse(obj), None
    if isinstance(obj, OpFamily):
        obj = obj.bind()
    if isinstance(obj, TemplateOp):
        sig, op = obj.signature_for(tuple(_rank_proxy(x, i) for i, x in enumerate(inputs)))
        return sig, str(op)
    sig = getattr(obj, "signature", None)
    if isinstance(sig, Signature):
        return sig, getattr(obj, "name", None)
    raise TypeError(f"expected an Op with a signature, a Signature or signature text, "
                    f"got {type(obj).__name__}")


def _rank_proxy(x: Any, i: int) -> TensorType:
    """A TensorType standing for input ``x`` while an Op's template is rendered:
    templates need ranks (and known sizes), never the unknowns themselves."""
    if isinstance(x, str):
        x = TensorType.parse(x)
    if isinstance(x, TensorType):
        return x
    if isinstance(x, TensorTerm) and isinstance(x.shape, tuple):
        dtype = x.dtype if isinstance(x.dtype, str) else "float64"
        return TensorType(dtype, tuple(d if isinstance(d, int) else None for d in x.shape))
    raise TypeError(f"input {i}: an Op with parameters renders its signature from the "
                    f"input ranks, so input {i} needs a known rank (a TensorType or a "
                    f"pattern with a shape tuple), got {x!r}")


def _user_vars(terms: Iterable[Any]) -> list[Any]:
    """Named logic variables the user wrote, in order of appearance."""
    found: list[Any] = []
    stack = list(terms)[::-1]
    while stack:
        t = stack.pop()
        if isvar(t):
            if t not in found and not str(t.token).startswith("_"):
                found.append(t)
        elif isinstance(t, TensorTerm):
            stack.extend([t.shape, t.dtype])
        elif isinstance(t, tuple | list):
            stack.extend(reversed(t))
    return found


def _term(x: Any, builder: TermBuilder, where: str) -> Any:
    if isinstance(x, TensorType):
        return builder.term(x, where)
    if isvar(x) or isinstance(x, TensorTerm):
        return x
    if isinstance(x, str):
        return builder.term(TensorType.parse(x), where)
    raise TypeError(f"{where}: expected a TensorType, kt.pattern(...) or a logic variable, "
                    f"got {x!r}")


class Solutions:
    """The solutions of a query, computed lazily (iterate, index or take ``len``)."""

    def __init__(self, stream: Iterator[dict], names: list[str], limit: int | None):
        self._stream = stream if limit is None else itertools.islice(stream, limit)
        self._seen: list[dict] = []
        self.names = names

    def __iter__(self) -> Iterator[dict]:
        yield from self._seen
        for answer in self._stream:
            self._seen.append(answer)
            yield answer

    def __len__(self) -> int:
        for _ in self:
            pass
        return len(self._seen)

    def __getitem__(self, i: int) -> dict:
        for k, answer in enumerate(self):
            if k == i:
                return answer
        raise IndexError(i)

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def __repr__(self) -> str:
        rows = list(itertools.islice(self, 20))
        more = "" if len(rows) < 20 else "\n..."
        return "\n".join(", ".join(f"{k} = {_fmt(v)}" for k, v in r.items()) for r in rows) \
            + more if rows else "no solutions"

    def _repr_html_(self) -> str:
        return solutions_html(self.names, self)


def _fmt(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_fmt, value)) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def _value(term: Any, s: KState, sym: dict) -> Any:
    term = walk(term, s)
    if isvar(term):
        return sym.get(term)
    if isinstance(term, TensorTerm):
        dtype = walk(term.dtype, s)
        shape = _value(term.shape, s, sym)
        if isvar(dtype) or not isinstance(shape, tuple):
            return TensorTerm(None if isvar(dtype) else dtype, shape)
        return TensorType(dtype, shape)
    if isinstance(term, tuple):
        return tuple(_value(t, s, sym) for t in term)
    return term


def query(op_or_signature: Any, inputs: Sequence[Any], outputs: Sequence[Any],
          limit: int | None = None) -> Solutions:
    """All assignments of the logic variables in ``inputs``/``outputs`` that fit.

    ``inputs``/``outputs`` hold TensorTypes (or compact strings like
    ``"float32[3,?]"``), ``kt.pattern(...)`` terms, or logic variables.
    Each solution maps variable names to dtypes, sizes, shapes or types;
    a size the signature leaves open is ``None``.
    """
    sig, _ = signature_of(op_or_signature, inputs)
    builder = TermBuilder()
    in_terms = [_term(x, builder, f"input {i}") for i, x in enumerate(inputs)]
    out_terms = [_term(x, builder, f"output {i}") for i, x in enumerate(outputs)]
    user = _user_vars([*in_terms, *out_terms])
    names = [str(v.token) for v in user]
    prios = tuple(Priority.TENSOR for _ in in_terms)

    def stream() -> Iterator[dict]:
        seen: set = set()
        for c in compiled(sig):
            if len(c.alt.inputs) != len(in_terms) or len(c.alt.outputs) != len(out_terms):
                continue
            start = KState(store=tuple(builder.constraints))
            for s in c.goal(in_terms, out_terms, prios)(start):
                for s2 in label(s):
                    flat = _flat_sizes(user, s2)
                    sym = symbolic_values(flat, s2, builder.reverse())
                    answer = {n: _value(v, s2, sym) for n, v in zip(names, user, strict=True)}
                    key = repr(sorted(answer.items(), key=lambda kv: kv[0]))
                    if key not in seen:
                        seen.add(key)
                        yield answer

    return Solutions(stream(), names, limit)


def _flat_sizes(terms: list, s: KState) -> list:
    out: list = []
    stack = list(terms)
    while stack:
        t = walk(stack.pop(), s)
        if isinstance(t, TensorTerm):
            stack.append(t.shape)
        elif isinstance(t, tuple):
            stack.extend(t)
        else:
            out.append(t)
    return out



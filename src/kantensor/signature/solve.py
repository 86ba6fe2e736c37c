"""Forward inference with a signature: input TensorTypes -> output TensorTypes.

Each signature compiles once (cached on the object); inference results
are memoized per (signature, input types, priorities). On failure the
solve is replayed while collecting reasons, so errors say which
constraint failed, where and with which values.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from unification import isvar, var

from ..logic.dims import ArithEq, symbolic_values
from ..logic.state import KState, explaining, walk
from ..logic.terms import TensorTerm
from ..types.dim import Dim, free_symbols
from ..types.dtypes import Priority, get_default_dtype
from ..types.type import TensorType
from .ast import Signature
from .compile import GUARD, CompiledAlternative, compile_alternative
from .errors import TypeInferenceError


@lru_cache(maxsize=1024)
def compiled(sig: Signature) -> tuple[CompiledAlternative, ...]:
    """The compiled alternatives of ``sig`` (flexible dims expanded), in order."""
    text = str(sig)
    return tuple(c for alt in sig.alternatives for c in compile_alternative(alt, text))


def default_priorities(types: Sequence[TensorType]) -> tuple[Priority, ...]:
    return tuple(Priority.TENSOR if t.ndim else Priority.ZERO_DIM for t in types)


class TermBuilder:
    """Turns TensorTypes into logic terms: unknown sizes become fresh variables, each
    named Dim one variable, and Dim expressions a variable tied by a constraint."""

    def __init__(self) -> None:
        self.symbols: dict[str, Any] = {}  # Dim name -> var
        self.constraints: list[ArithEq] = []
        self.expressions: dict[Dim, Any] = {}  # one var per Dim expression

    def symbol(self, name: str) -> Any:
        v = self.symbols.get(name)
        if v is None:
            v = self.symbols[name] = var(prefix=name)
        return v

    def size(self, entry: Any, where: str) -> Any:
        if entry is None:
            return var()
        if isinstance(entry, int):
            return entry
        if entry.name is not None:
            return self.symbol(entry.name)
        if entry in self.expressions:
            return self.expressions[entry]
        v = self.expressions[entry] = var()
        leaves = {n: self.symbol(n) for n in free_symbols(entry)}
        self.constraints.append(ArithEq(v, ("dim", entry, leaves), str(entry), where))
        return v

    def term(self, t: TensorType, where: str) -> TensorTerm:
        return TensorTerm(t.dtype, tuple(self.size(e, f"{where} axis {a}")
                                         for a, e in enumerate(t.shape)))

    def reverse(self) -> dict[Any, str]:
        return {v: n for n, v in self.symbols.items()}


class _Undetermined(Exception):
    """An output dtype the inputs do not fix (e.g. ``()->():T``)."""


def _type_of(term: TensorTerm, s: KState, sym: dict) -> TensorType:
    term = walk(term, s)
    dtype = walk(term.dtype, s)
    if isvar(dtype):
        raise _Undetermined
    shape = []
    for d in walk(term.shape, s):
        d = walk(d, s)
        shape.append(d if isinstance(d, int) else sym.get(d))
    return TensorType(dtype, shape)


def solve_forward(c: CompiledAlternative, types: Sequence[TensorType],
                  priorities: tuple) -> tuple[TensorType, ...] | None:
    builder = TermBuilder()
    in_terms = [builder.term(t, f"input {i}") for i, t in enumerate(types)]
    out_terms = [var() for _ in c.alt.outputs]
    start = KState(store=tuple(builder.constraints))
    for s in c.goal(in_terms, out_terms, priorities)(start):
        shapes = [walk(t, s).shape for t in out_terms]
        flat = [d for sh in shapes for d in walk(sh, s)]
        sym = symbolic_values(flat, s, builder.reverse())
        return tuple(_type_of(t, s, {k: _clean(v) for k, v in sym.items()})
                     for t in out_terms)
    return None


def _clean(value: Any) -> Any:
    """Symbolic values that still mention solver placeholders are unknown."""
    if isinstance(value, Dim) and any(n.startswith("_") for n in free_symbols(value)):
        return None
    return value


def explain(sig: Signature, types: Sequence[TensorType], priorities: tuple) -> str:
    """Why no alternative of ``sig`` accepts ``types``, in words."""
    found = []
    for c in compiled(sig):
        if len(c.alt.inputs) != len(types):
            continue
        with explaining() as reasons:
            try:
                solve_forward(c, types, priorities)
            except _Undetermined:
                reasons.append("the output dtype is not determined by the inputs")
        reason = reasons[0] if reasons else "no solution"
        if reason != GUARD:
            found.append((c, reason))
    if not found:
        ndims = ", ".join(str(t.ndim) for t in types)
        return f"no variant of the flexible dims fits inputs with ({ndims}) axes"
    if len(found) == 1:
        return found[0][1]
    return "; ".join(dict.fromkeys(f"[{c.alt}] {reason}" for c, reason in found))


@lru_cache(maxsize=65536)
def _infer_cached(sig: Signature, types: tuple[TensorType, ...], priorities: tuple,
                  default_dtype: str) -> tuple[TensorType, ...] | str:
    """Memoized on the default float dtype too: float(T) and wrapped floats use it."""
    for c in compiled(sig):
        if len(c.alt.inputs) != len(types):
            continue
        try:
            out = solve_forward(c, types, priorities)
        except _Undetermined:
            return "the output dtype is not determined by the inputs"
        if out is not None:
            return out
    return explain(sig, types, priorities)


def infer(sig: Signature, input_types: Sequence[TensorType],
          priorities: Sequence[Priority] | None = None, name: object = None
          ) -> tuple[TensorType, ...]:
    """Output types of ``sig`` applied to ``input_types``; TypeInferenceError if none.

    ``name`` (an Op, or its name) prefixes error messages; it is only formatted then."""
    types = tuple(input_types)
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise TypeError(f"input {i} must be a TensorType, got {t!r}")
    n_inputs = {len(a.inputs) for a in sig.alternatives}
    if len(types) not in n_inputs:
        want = " or ".join(map(str, sorted(n_inputs)))
        raise TypeInferenceError(f"{_label(sig, name)}: takes {want} inputs, got {len(types)}",
                                 signature=sig)
    prios = tuple(priorities) if priorities is not None else default_priorities(types)
    if len(prios) != len(types):
        raise ValueError(f"{_label(sig, name)}: priorities has {len(prios)} entries for "
                         f"{len(types)} inputs")
    out = _infer_cached(sig, types, prios, get_default_dtype())
    if isinstance(out, str):
        raise TypeInferenceError(f"{_label(sig, name)}: {out}", signature=sig)
    return out


def _label(sig: Signature, name: object) -> str:
    """How errors name the signature (built only when there is an error)."""
    return f"{name} {sig}" if name else str(sig)

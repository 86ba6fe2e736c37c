"""Overloads: the compiled alternatives of a signature, and the constraint that an
alternative applies only where no earlier one accepts the inputs (as in ``make_node``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..logic.store import Beyond, Constraint, Progress, bind_choices, fresh_state, unify_oc
from ..logic.terms import TensorTerm, fresh, isvar, walk
from ..syntax.alternative import Overloads
from ..types.dtypes import DTYPES, get_default_dtype
from .compile import CompiledAlternative, compile_alternative

__all__ = ["FirstMatch", "compiled"]


@lru_cache(maxsize=1024)
def compiled(sig: Overloads) -> tuple[CompiledAlternative, ...]:
    """The compiled alternatives of a signature, in order (compiled once)."""
    return tuple(compile_alternative(a) for a in sig.alternatives)


@dataclass(frozen=True, eq=False)
class FirstMatch(Constraint):
    """Alternative ``k`` applies only where no earlier alternative accepts the inputs, as
    in ``make_node``. Decided once every input's dtype, rank and wrapped flag is known:
    it holds if no earlier alternative accepts them whatever their unknown sizes are,
    fails if one accepts them with every size known; otherwise it waits for the sizes
    (a later ``eq`` may bind them), until labeling takes make_node's view (``settled``
    bound: an unknown size is unknown to make_node too, so an earlier alternative that
    accepts it wins)."""

    sig: Overloads
    k: int
    inputs: tuple
    max_rank: int
    settled: Any = None

    def check(self, s: dict, pending: tuple) -> Progress:
        key = ground_key(self.inputs, s)
        if key is None:
            return s, False
        default = get_default_dtype()
        if not any(_accepts(self.sig, j, key, default) for j in range(self.k)):
            return s, True
        if self.settled is None or not isvar(walk(self.settled, s)) or all(
                n is not None for _, sizes, _ in key for n in sizes):
            return None
        return s, False

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        for t in self.inputs:
            t = walk(t, s)
            if not isinstance(t, TensorTerm):
                continue
            for field, values in ((t.dtype, DTYPES), (t.wrapped, (False, True))):
                if isvar(walk(field, s)):
                    return bind_choices(walk(field, s), values)
            if isvar(walk(t.shape, s)):
                shape = walk(t.shape, s)
                options: list = [lambda st, n=n, shape=shape: unify_oc(shape, tuple(
                    fresh() for _ in range(n)), st) or None for n in range(self.max_rank + 2)]
                options[-1] = Beyond(options[-1])  # max_rank + 1 axes: past the bound
                return options
        if self.settled is not None and isvar(walk(self.settled, s)):
            return bind_choices(walk(self.settled, s), (True,))
        return None

    def terms(self) -> tuple:
        return self.inputs

    def explain(self, s: dict) -> str:
        return "an earlier alternative of the signature applies to these inputs"


def ground_key(inputs: tuple, s: dict) -> tuple | None:
    """``((dtype, sizes, wrapped), ...)`` of the inputs with unknown sizes as None, or
    None while a dtype, rank or wrapped flag is unknown."""
    key = []
    for t in inputs:
        t = walk(t, s)
        if not isinstance(t, TensorTerm):
            return None
        dtype, shape, wrapped = walk(t.dtype, s), walk(t.shape, s), walk(t.wrapped, s)
        if isvar(dtype) or isvar(wrapped) or not isinstance(shape, tuple):
            return None
        key.append((dtype, tuple(d if isinstance(d := walk(x, s), int) else None
                                 for x in shape), wrapped))
    return tuple(key)


@lru_cache(maxsize=65536)
def _accepts(sig: Overloads, j: int, key: tuple, default_dtype: str) -> bool:
    """Does alternative ``j`` of ``sig`` accept inputs ``key`` (see ground_key)?"""
    c = compiled(sig)[j]
    if c.n_in != len(key):
        return False
    S = fresh_state({})
    terms = [TensorTerm(d, tuple(fresh() if n is None else n for n in sizes), w)
             for d, sizes, w in key]
    return not c.refuses(terms, S.data) and c.apply(S, terms, [fresh() for _ in c.alt.outputs])

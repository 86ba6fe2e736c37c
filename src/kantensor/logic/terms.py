"""The logic term of a tensor type, with unify/reify registered for kanren."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from unification.core import _reify, _unify, construction_sentinel


@dataclass(frozen=True)
class TensorTerm:
    """``TensorTerm(dtype, shape)``: dtype a str or logic var; shape a tuple of sizes
    (int or logic var) or a logic var when even the number of axes is unknown."""

    dtype: Any
    shape: Any

    def __kt_children__(self) -> tuple:
        return (self.dtype, self.shape)

    def __str__(self) -> str:
        shape = self.shape
        body = ",".join("?" if not isinstance(d, int) else str(d) for d in shape) \
            if isinstance(shape, tuple) else "..."
        return f"{self.dtype}[{body}]"


def _unify_term(u: TensorTerm, v: TensorTerm, s: Mapping) -> Any:
    s = yield _unify(u.dtype, v.dtype, s)
    if s is False:
        yield False
        return
    yield _unify(u.shape, v.shape, s)


def _reify_term(u: TensorTerm, s: Mapping) -> Any:
    dtype = yield _reify(u.dtype, s)
    shape = yield _reify(u.shape, s)
    yield construction_sentinel
    yield TensorTerm(dtype, shape)


_unify.add((TensorTerm, TensorTerm, Mapping), _unify_term)
_reify.add((TensorTerm, Mapping), _reify_term)

"""Flexible dims (``n?``) desugared by rewriting the AST into variants.

A *variant* of an alternative is that alternative with every flexible dim either made a
plain dim ``n`` (present) or dropped (absent): an ordinary alternative, built and checked
like any other, that the compiler then compiles. Which variant applies follows NumPy's
rule: an input's flexible dims are present iff it has at least its full number of core
dims, so the inputs' ranks select it.

Variants are made on demand, one per presence tuple asked for, and cached: a call with
known ranks builds only the variant they select, so the cost is polynomial in the number
of ``?`` dims; only a query with unknown ranks enumerates them.
"""

from __future__ import annotations

from functools import lru_cache

from ..syntax.alternative import Alternative
from ..syntax.ast import AnonGroup, AnyGroup, DimVar, FlexDim, NamedGroup, TensorPattern

__all__ = ["Flexible", "flexible"]


class Flexible:
    """The flexible dims of an alternative and its variants (see the module doc)."""

    def __init__(self, alt: Alternative) -> None:
        self.alt = alt
        #: the flexible dim names, sorted: position j of a presence tuple is names[j]
        self.names = tuple(sorted({d.name for op in alt.operands for d in op.dims
                                   if isinstance(d, FlexDim)}))
        #: input index -> (its flexible dim names, its core length with them present)
        self.inputs = {
            i: (tuple(d.name for d in op.dims if isinstance(d, FlexDim)),
                sum(d.k if isinstance(d, AnonGroup) else 1 for d in op.dims
                    if not isinstance(d, AnyGroup | NamedGroup)))
            for i, op in enumerate(alt.inputs) if any(isinstance(d, FlexDim) for d in op.dims)
        }
        self._variants: dict[tuple[bool, ...], Alternative | None] = {}

    def presence(self, ranks: dict[int, int]) -> tuple[bool, ...] | None:
        """The presence tuple NumPy's rule selects for the known input ``ranks``; None
        while a flexible dim is decided by no input of known rank."""
        on: dict[str, bool] = {}
        for i, (names, full) in self.inputs.items():
            if i in ranks:
                for n in names:
                    on.setdefault(n, ranks[i] >= full)
        if len(on) < len(self.names):
            return None
        return tuple([on[n] for n in self.names])

    def present(self, presence: tuple[bool, ...], i: int) -> bool | None:
        """Whether input ``i``'s flexible dims are present under ``presence`` (None: it
        has none)."""
        if i not in self.inputs:
            return None
        return presence[self.names.index(self.inputs[i][0][0])]

    def full(self, i: int) -> int:
        """Input ``i``'s core length with its flexible dims present."""
        return self.inputs[i][1]

    def variant(self, presence: tuple[bool, ...]) -> Alternative | None:
        """The alternative where flexible dim ``names[j]`` is present iff
        ``presence[j]``; None if that is inconsistent (one input holding a present and
        an absent flexible dim: NumPy's rule can never select it)."""
        if presence in self._variants:
            return self._variants[presence]
        on = dict(zip(self.names, presence, strict=True))
        alt = self.alt
        if any(len({on[n] for n in names}) != 1 for names, _ in self.inputs.values()):
            out = None
        else:
            out = Alternative(tuple(_rewrite(op, on) for op in alt.inputs),
                              tuple(_rewrite(op, on) for op in alt.outputs),
                              alt.where, alt.loop, alt.max_loop_dims)
        self._variants[presence] = out
        return out


def _rewrite(op: TensorPattern, on: dict[str, bool]) -> TensorPattern:
    """``op`` with each flexible dim ``n?`` made ``n`` if present, else dropped."""
    if not any(isinstance(d, FlexDim) for d in op.dims):
        return op
    dims = tuple(DimVar(d.name) if isinstance(d, FlexDim) else d
                 for d in op.dims if not isinstance(d, FlexDim) or on[d.name])
    return TensorPattern(dims, op.dtype)


@lru_cache(maxsize=4096)
def flexible(alt: Alternative) -> Flexible | None:
    """The flexible dims of ``alt`` (None if it has none); cached with its variants."""
    if not any(isinstance(d, FlexDim) for op in alt.operands for d in op.dims):
        return None
    return Flexible(alt)

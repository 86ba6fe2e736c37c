"""How many inputs an Op with its parameters bound takes: the tensors its call names
(an advanced index's ``*arrays`` counted by its index, einsum's ``*operands`` by its
subscripts), then the size inputs its symbolic size parameters add
(:mod:`kantensor.ops.sizes`). One home for that count: ``make_node`` of a bound Op
given another count says so (:func:`check_count`: ``sum{axis=0}: takes 1 input, got
2``, where the builder failed with 'too many values to unpack'), and ``query`` and
``relation`` check their inputs by it (:mod:`kantensor.query.hidden`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..signature.arity import check_arity
from ..syntax.errors import TypeInferenceError
from ..types.dim import Dim
from ..types.symbols import free_symbols
from ..types.type import TensorType
from .callspec import OWN_SIZE_KINDS, SIZE_KINDS, CallSpec
from .families.linalg import einsum_operands
from .paramvalues import ArrayRef
from .sizes import foreign_names, symbolic

__all__ = ["COUNTED_BY", "SEQUENCES", "call_inputs", "check_count", "least_inputs"]

#: A call's ``*tensors`` that a parameter counts: the parameter's name, and how many
#: tensors its value says the call takes.
COUNTED_BY: dict[str, Callable[[Any], int]] = {
    "index": lambda index: sum(isinstance(i, ArrayRef) for i in index),
    "subscripts": einsum_operands,
}


#: The kinds of a call's parameter that hold one or more tensors: NumPy's sequence of
#: arrays (``np.stack([])`` is an error). A ``*tensors`` holds any number (an ONNX
#: node's optional inputs), unless a parameter counts them (:data:`COUNTED_BY`).
SEQUENCES = frozenset({"tensors"})


def call_inputs(spec: CallSpec, params: dict[str, Any], inputs: Sequence[Any] | None = None
                ) -> tuple[int, list[Any]] | None:
    """``(inputs the call names, the size inputs' Dims)`` of an Op of the call ``spec``
    with its parameters ``params``: the tensors of its call (its ``*tensors`` counted as
    :data:`COUNTED_BY` says), then one size input per Dim of its size parameters. A
    shape parameter written over the input's own sizes (``reshape``'s) adds one for each
    size of another variable and each named size the first of ``inputs`` does not have
    (``float32[n,6]`` reshaped to ``(m, -1)`` takes a ``bool[m]``), as the call adds
    them (a size a logic variable stands for is not its own: the carrier's relation
    says the same of it). None where the parameters do not say the count: a call that
    takes any number of tensors (``concatenate``), a shape parameter with sizes and no
    inputs given."""
    count = 0
    for p in spec.params:
        if p.kind == "tensor":
            count += 1
        elif p.kind == "*tensors" and any(name in params for name in COUNTED_BY):
            count += sum(fn(params[name]) for name, fn in COUNTED_BY.items()
                         if name in params)
        elif p.is_tensor:
            return None
    names = [p.name for p in spec.params if p.kind in SIZE_KINDS and p.name in params]
    own = [params[p.name] for p in spec.params if p.kind in OWN_SIZE_KINDS]
    if not any(symbolic(own)):
        return count, symbolic([params[name] for name in names])
    if inputs is None:
        return None
    first = inputs[0] if inputs else None
    first = TensorType.parse(first) if isinstance(first, str) else first
    shape = getattr(first, "shape", None)  # (a logic variable's: none of its own)
    mine = [d.name for d in shape if isinstance(d, Dim) and d.name] \
        if isinstance(shape, tuple) else []
    axes = [d for d in symbolic(own) if not _named(d)]  # (CallSpec.bind's order)
    return count, [*axes, *map(Dim, foreign_names(tuple(own), mine))]


def check_count(op: Any, types: Sequence[Any]) -> None:
    """The arity error (TypeInferenceError) of a bound Op of a family (its ``spec`` set
    by the family) given ``types``, where its call and parameters take another count of
    inputs; nothing where they take as many, or do not say. Asked where a build failed,
    so a builder's failure on a count it never takes reads as the count (the builder's
    words count what it reads: an advanced index given no array said 'the index refers
    to arrays [0] but -1 were given')."""
    spec, params = getattr(op, "spec", None), getattr(op, "params", None)
    if spec is None or params is None:  # (a family: its parameters not bound)
        return
    try:
        found = call_inputs(spec, dict(params), types)
    except (TypeError, ValueError):  # (parameters that do not say a count)
        return
    if found is not None:
        check_arity(str(op), {(found[0] + len(found[1]), 0)}, len(types))
        return
    least = least_inputs(spec)
    if len(types) < least:
        raise TypeInferenceError(f"{op}: takes {least} or more inputs, got {len(types)}")


def least_inputs(spec: CallSpec) -> int:
    """The fewest inputs a call of ``spec`` takes: one per tensor, one at least per
    sequence of tensors (:data:`SEQUENCES`)."""
    return sum(p.kind == "tensor" or p.kind in SEQUENCES for p in spec.params)


def _named(d: Any) -> bool:
    return all(isinstance(s, str) for s in free_symbols(d))

"""The inputs an Op's symbolic size parameters add, for :func:`query` and :func:`relation`.

``kt.broadcast_to(x, shape=(n, 3))`` builds a node of two inputs: ``x`` and a
``bool[n]`` that carries ``n`` into the relation (:mod:`kantensor.ops.sizes`). The call
adds that input (:meth:`kantensor.ops.callspec.CallSpec.bind`); the Op
``broadcast_to{shape=(n, 3)}`` takes it as an input of its own. A query or a relation
given the Op and only the inputs the call names (``[X]``) ran the two-input signature
on one input and answered "no solutions", a false claim: every X that broadcasts to
``(n, 3)`` builds. Here the size inputs are worked out from the Op's parameters as the
call works them out (:func:`kantensor.ops.sizes.symbolic`, one per Dim) and added after
the inputs the call names, so the query runs make_node's relation on make_node's
inputs. The types are the ones the call makes: ``bool[d]`` for a Dim over named sizes
(:class:`~kantensor.ops.sizes.SizeOp`'s type), an open ``bool`` vector for the size of
another variable's axis (``shape_of(x, i)``, whose x a query does not know).

Inputs given with the size inputs (as the node has them) are taken as they are. The
count of inputs the call names is the parameters' to say too (an advanced index's
arrays, :func:`node_inputs`): a query given another count is the arity error, not "no
solutions". A shape written over the input's own sizes (``reshape``'s) adds a size
input for each named size the input does not have, as the call does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..logic.terms import TensorTerm
from ..ops.callspec import OWN_SIZE_KINDS
from ..ops.inputcount import call_inputs
from ..ops.sizes import symbolic
from ..types.symbols import free_symbols
from ..types.type import TensorType
from .answers import anonymous

__all__ = ["adds_inputs", "node_inputs", "sized", "with_hidden"]


def node_inputs(op: Any, inputs: Sequence[Any] | None = None
                ) -> tuple[int, list[Any]] | None:
    """``(inputs the call names, the size inputs' Dims)`` of an Op with its parameters
    bound, by its family's call (:func:`kantensor.ops.inputcount.call_inputs`: an advanced
    index's ``*arrays`` counted by its index, einsum's ``*operands`` by its subscripts, a
    reshape's size inputs by the first of ``inputs``). None where the parameters do not
    say the count: an Op of no family (``add``, a Signature), a call that takes any
    number of tensors (``concatenate``), a shape parameter with sizes and no inputs
    given."""
    spec, params = getattr(op, "spec", None), getattr(op, "params", None)
    if spec is None or params is None:  # (a family: its parameters not bound)
        return None
    return call_inputs(spec, dict(params), inputs)


def sized(op: Any, inputs: Sequence[Any] | None = None) -> tuple[int, list[Any]] | None:
    """:func:`node_inputs` of an Op whose parameters hold symbolic sizes carried by
    inputs of their own; None for any other Op."""
    found = node_inputs(op, inputs)
    return found if found is not None and found[1] else None


def adds_inputs(op: Any) -> bool:
    """Whether :func:`with_hidden` may add inputs for ``op`` (for some inputs)."""
    if sized(op) is not None:
        return True
    spec = getattr(op, "spec", None)
    values = dict(getattr(op, "params", None) or ())
    return spec is not None and any(p.kind in OWN_SIZE_KINDS and symbolic([values.get(p.name)])
                                    for p in spec.params)


def with_hidden(op: Any, inputs: Sequence[Any]) -> list[Any]:
    """``inputs`` followed by the size inputs of ``op``'s parameters where ``inputs`` are
    the ones its call names (see the module's doc); else ``inputs`` as they are. Fresh
    terms at each call (an axis's size is a fresh logic variable)."""
    found = sized(op, inputs)
    if found is None or len(inputs) != found[0]:
        return list(inputs)
    return [*inputs, *(_carrier(d) for d in found[1])]


def _carrier(d: Any) -> Any:
    """The type of the input that carries the size ``d``: ``bool[d]`` over named sizes;
    an open ``bool`` vector for an axis of another variable."""
    if all(isinstance(s, str) for s in free_symbols(d)):
        return TensorType("bool", (d,))
    return TensorTerm("bool", (anonymous(),), False)

"""Ops whose output types come from a signature, and the ``@op`` decorator."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..graph.basic import Apply
from ..graph.op import Op
from ..tensor.basic_ops import cast_array
from ..tensor.dtypes import Priority, result_type_of
from ..tensor.variable import as_tensor_variable
from .ast import Signature
from .solve import infer

#: How inputs are cast before the NumPy implementation runs:
#: "output": to the (first) output dtype, so integer arithmetic wraps in that dtype;
#: "promote": to the promoted input dtype (comparisons, where the output is bool);
#: "none": passed as they are.
COMPUTE_MODES = ("output", "promote", "none")


def priority_of(x: Any) -> Priority:
    """Promotion priority of a graph input (§3): wrapped numbers lowest."""
    if getattr(x, "wrapped", False):
        return Priority.WRAPPED
    return Priority.TENSOR if x.type.ndim else Priority.ZERO_DIM


@lru_cache(maxsize=4096)
def _promoted(operands: tuple) -> str:
    return result_type_of(operands)


class SignatureOp(Op):
    """An Op typed by a :class:`Signature` and computed by a NumPy function."""

    __props__ = ("name", "signature", "compute", "impl")

    def __init__(self, name: str, signature: Signature | str, impl: Callable[..., Any],
                 compute: str = "none", doc: str | None = None):
        if isinstance(signature, str):
            signature = Signature.parse(signature)
        if compute not in COMPUTE_MODES:
            raise ValueError(f"compute must be one of {COMPUTE_MODES}, got {compute!r}")
        self.name = name
        self.signature = signature
        self.impl = impl
        self.compute = compute
        self.__doc__ = doc or getattr(impl, "__doc__", None) or f"{name}: {signature}"

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_tensor_variable(x) for x in inputs]
        types = [x.type for x in inputs]
        outs = infer(self.signature, types, [priority_of(x) for x in inputs], name=self.name)
        return Apply(self, inputs, [t() for t in outs])

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        if self.compute == "output":
            dtype = node.outputs[0].type.dtype
            inputs = [cast_array(x, dtype) for x in inputs]
        elif self.compute == "promote":
            dtype = _promoted(tuple((v.type.dtype, priority_of(v)) for v in node.inputs))
            inputs = [cast_array(x, dtype) for x in inputs]
        result = self.impl(*inputs)
        if len(node.outputs) == 1:
            result = (result,)
        for cell, out, value in zip(output_storage, node.outputs, result, strict=True):
            cell[0] = cast_array(value, out.type.dtype)

    def __str__(self) -> str:
        return self.name


def op(signature: Signature | str, name: str | None = None, compute: str = "none"
       ) -> Callable[[Callable[..., Any]], SignatureOp]:
    """Decorator turning a NumPy function into a typed Op.

    >>> from kantensor import op
    >>> @op("+(m,n),(n,p)->(m,p)")
    ... def matmul2(a, b):
    ...     return a @ b
    """
    def wrap(fn: Callable[..., Any]) -> SignatureOp:
        return SignatureOp(name or fn.__name__, signature, fn, compute=compute,
                           doc=fn.__doc__)
    return wrap

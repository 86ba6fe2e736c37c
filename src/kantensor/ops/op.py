"""Ops whose output types come from a signature, and the ``@op`` decorator."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from string import Formatter
from typing import Any

import numpy as np

from ..graph.basic import Apply
from ..graph.op import Op
from ..signature.ast import Signature
from ..signature.errors import TypeInferenceError
from ..signature.solve import infer
from ..types.basic_ops import cast_array
from ..types.dtypes import Priority, result_type_of
from ..types.type import TensorType
from ..types.variable import as_tensor_variable
from .params import CallSpec, ParamError

#: How inputs are cast before the NumPy implementation runs:
#: "output": to the (first) output dtype, so integer arithmetic wraps in that dtype;
#: "promote": to the promoted input dtype (comparisons, where the output is bool);
#: "select": the first input (a condition) as it is, the others to the output dtype (where);
#: "none": passed as they are.
COMPUTE_MODES = ("output", "promote", "select", "none")


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
        self._describe(name, impl, compute, doc, signature)
        self.signature = signature

    def _describe(self, name: str, impl: Callable[..., Any], compute: str, doc: str | None,
                  signature: object) -> None:
        """Set what every SignatureOp has: name, impl, compute mode, docstring."""
        if compute not in COMPUTE_MODES:
            raise ValueError(f"compute must be one of {COMPUTE_MODES}, got {compute!r}")
        self.name = name
        self.impl = impl
        self.compute = compute
        self.__doc__ = doc or getattr(impl, "__doc__", None) or f"{name}: {signature}"

    #: Keyword arguments of ``impl`` (parameters of a :class:`TemplateOp`), as props
    #: (hashable) and as the dict perform passes (built once, not per call).
    params: tuple[tuple[str, Any], ...] = ()
    _kwargs: dict[str, Any] = {}  # never mutated

    def signature_for(self, types: tuple) -> tuple[Signature, Any]:
        """The signature that types inputs of ``types``, and the Op that computes them."""
        return self.signature, self

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_tensor_variable(x) for x in inputs]
        types = tuple(x.type for x in inputs)
        signature, op = self.signature_for(types)
        outs = infer(signature, types, [priority_of(x) for x in inputs], name=op)
        return Apply(op, inputs, [t() for t in outs])

    def check_inputs(self, node: Apply, inputs: list) -> None:
        """Re-infer with the exact shapes of the values, so that a where-clause or a
        dim equation left open by unknown sizes is decided before NumPy runs."""
        types = tuple(TensorType(v.type.dtype, np.shape(x))
                      for v, x in zip(node.inputs, inputs, strict=True))
        signature, _ = self.signature_for(types)
        try:
            infer(signature, types, [priority_of(v) for v in node.inputs], name=self)
        except TypeInferenceError as exc:
            raise TypeInferenceError(f"at run time: {exc}", signature=signature) from None

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        if self.compute == "output":
            dtype = node.outputs[0].type.dtype
            inputs = [cast_array(x, dtype) for x in inputs]
        elif self.compute == "promote":
            dtype = _promoted(tuple((v.type.dtype, priority_of(v)) for v in node.inputs))
            inputs = [cast_array(x, dtype) for x in inputs]
        elif self.compute == "select":  # where: the condition as given, the choices cast
            dtype = node.outputs[0].type.dtype
            inputs = [inputs[0], *(cast_array(x, dtype) for x in inputs[1:])]
        result = self.impl(*inputs, **self._kwargs)
        if len(node.outputs) == 1:
            result = (result,)
        for cell, out, value in zip(output_storage, node.outputs, result, strict=True):
            cell[0] = cast_array(value, out.type.dtype)

    def __str__(self) -> str:
        return self.name


#: A builder fills a template's placeholders: ``builder(input_types, **params)`` returns
#: ``{placeholder: text}``, and may resolve parameters under the key "params" (say,
#: negative axes made positive once the rank is known).
Builder = Callable[..., dict[str, Any]]


def placeholders(template: str) -> set[str]:
    """The ``{name}`` placeholders of a signature template."""
    return {name for _, name, _, _ in Formatter().parse(template) if name}


def _fill_text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


@lru_cache(maxsize=4096)
def _parse(text: str) -> Signature:
    return Signature.parse(text)


class TemplateOp(SignatureOp):
    """A SignatureOp whose signature is rendered from its parameters and input ranks.

    ``template`` is signature text with ``{placeholders}``: a parameter's value
    fills its own placeholder (``+():x->():{dtype}``); a :data:`Builder` fills
    the others from the input types. The impl is called with the parameters as
    keyword arguments.
    """

    __props__ = ("name", "template", "builder", "compute", "impl", "params")

    def __init__(self, name: str, template: str, impl: Callable[..., Any],
                 compute: str = "none", doc: str | None = None,
                 params: dict[str, Any] | None = None, builder: Builder | None = None):
        self._describe(name, impl, compute, doc, template)
        self.template = template
        self.builder = builder
        self.params = tuple((params or {}).items())
        self._kwargs = dict(self.params)

    @property
    def signature(self) -> str:  # type: ignore[override]
        """The template text (a TemplateOp has one signature per input ranks)."""
        return self.template

    def signature_for(self, types: tuple) -> tuple[Signature, SignatureOp]:
        return _render(self, types)

    def with_params(self, params: dict[str, Any]) -> TemplateOp:
        return TemplateOp(self.name, self.template, self.impl, self.compute, self.__doc__,
                          params, self.builder)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}{{{', '.join(f'{k}={v!r}' for k, v in self.params)}}}"


@lru_cache(maxsize=4096)
def _render(op: TemplateOp, types: tuple) -> tuple[Signature, SignatureOp]:
    params = dict(op.params)
    fills = {k: _fill_text(v) for k, v in params.items()}
    if op.builder is not None:
        try:
            made = dict(op.builder(types, **params))
        except ParamError as exc:
            raise type(exc)(f"{op.name}: {exc}") from None
        resolved = made.pop("params", None)
        fills.update(made)
        if resolved:
            params.update(resolved)
    missing = sorted(placeholders(op.template) - set(fills))
    if missing:
        raise ValueError(f"{op.name}: template placeholder{'s' * (len(missing) > 1)} "
                         f"{', '.join(missing)} filled by neither a parameter nor the builder")
    text = op.template.format_map(fills)
    resolved_op = op if params == dict(op.params) else op.with_params(params)
    return _parse(text), resolved_op


class OpFamily:
    """An Op with parameters, called like its NumPy function: ``kt.sum(x, axis=1)``.

    The call is split by ``spec`` into tensor inputs and parameters; the
    parameters pick (and cache) a :class:`TemplateOp`, which is applied to the
    tensors. ``family.bind(axis=1)`` gives that Op itself.
    """

    def __init__(self, name: str, template: str, impl: Callable[..., Any], spec: CallSpec,
                 compute: str = "none", doc: str | None = None,
                 builder: Builder | None = None):
        self.name = name
        self.template = template
        self.impl = impl
        self.spec = spec
        self.compute = compute
        self.builder = builder
        self.__doc__ = doc or f"{name}({spec.text}): {template}"
        self.__signature__ = spec.signature
        self._ops: dict[tuple, TemplateOp] = {}

    def _op(self, params: dict[str, Any]) -> TemplateOp:
        key = tuple(params.items())
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = TemplateOp(self.name, self.template, self.impl,
                                             self.compute, self.__doc__, params, self.builder)
        return op

    def bind(self, **params: Any) -> TemplateOp:
        """The Op for these parameters (the others take their defaults)."""
        return self._op(self.spec.normalise(params))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tensors, params, _ = self.spec.bind(args, kwargs)
        return self._op(params)(*tensors)

    def __repr__(self) -> str:
        return f"<kantensor op {self.name}({self.spec.text})>"


def op(signature: Signature | str, name: str | None = None, compute: str = "none",
       call: str | None = None, builder: Builder | None = None
       ) -> Callable[[Callable[..., Any]], SignatureOp | OpFamily]:
    """Decorator turning a NumPy function into a typed Op.

    >>> from kantensor import op
    >>> @op("+(m,n),(n,p)->(m,p)")
    ... def matmul2(a, b):
    ...     return a @ b

    With ``call`` (a parameter list such as ``"x, width: int"``) or a ``builder``,
    the signature is a template and the result an :class:`OpFamily`.
    """
    def wrap(fn: Callable[..., Any]) -> SignatureOp | OpFamily:
        op_name = name or fn.__name__
        if call is None and builder is None:
            return SignatureOp(op_name, signature, fn, compute=compute, doc=fn.__doc__)
        if not isinstance(signature, str):
            raise TypeError("a template signature is text with {placeholders}")
        return OpFamily(op_name, signature, fn, CallSpec(call or "x", op_name),
                        compute=compute, doc=fn.__doc__, builder=builder)
    return wrap

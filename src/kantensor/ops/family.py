"""Op families (an Op with parameters, called like its NumPy function) and the ``@op``
decorator that makes Ops from NumPy functions."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from operator import is_
from typing import Any

from ..graph import codegen
from ..graph.basic import Apply
from ..signature.signature import Signature
from ..types.numpyrules import rules_key
from .callspec import CallSpec
from .display import OpFacts, op_html
from .fastcall import FastCall, Miss, fast_call
from .op import MEMO_SIZE, SignatureOp
from .templateop import Builder, TemplateOp, parsed_template

#: How many call shapes of one Op family get a cached call (others bind every time): a
#: program uses a few shapes of each Op.
FAST_SHAPES = 16


class _CallSignature:
    """An Op family's ``__signature__``: its call's (:attr:`CallSpec.signature`, made
    when first asked); None on the class itself, which ``inspect`` then reads as any
    class."""

    def __get__(self, family: Any, owner: Any = None) -> inspect.Signature | None:
        return None if family is None else family.spec.signature


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
        self.__name__ = self.__qualname__ = name  # help() titles it by its name
        self._ops: dict[tuple, TemplateOp] = {}
        #: The cached call of each call shape seen, with its memo (see ops/fastcall.py):
        #: this family's own, also when another family shares its call convention.
        self.fast: dict[Any, FastCall] = {}
        self._recorded = 0  # calls in the memos, all shapes together

    #: How backends compute its Ops (see :attr:`SignatureOp.lowering`).
    lowering: dict[str, str] = {}
    #: Why its Ops' output sizes may be known only from their inputs' values (see
    #: :attr:`SignatureOp.data_sizes`).
    data_sizes: str = ""

    #: What ``inspect.signature(family)`` and ``help`` read: its call's.
    __signature__ = _CallSignature()

    def _op(self, params: dict[str, Any]) -> TemplateOp:
        key = tuple(params.items())
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = TemplateOp(self.name, self.template, self.impl,
                                             self.compute, self.__doc__, params, self.builder)
            op.user_params = tuple((k, v) for k, v in key if k not in self._defaults
                                   or not _same(self._defaults[k], v))
            op.lowering, op.data_sizes, op.spec = self.lowering, self.data_sizes, self.spec
        return op

    @property
    def _defaults(self) -> dict[str, Any]:
        """Each parameter's normalised default (what the user need not write)."""
        found = self.__dict__.get("_defaults_found")
        if found is None:
            found = self.__dict__["_defaults_found"] = {
                p.name: p.normalise(p.default, self.name) for p in self.spec.params
                if not p.is_tensor and p.default is not inspect.Parameter.empty}
        return found

    def bind(self, **params: Any) -> TemplateOp:
        """The Op for these parameters (the others take their defaults)."""
        return self._op(self.spec.normalise(params))

    def signature_for(self, types: tuple) -> tuple[Signature, SignatureOp]:
        """The signature (and Op) of the default parameters for inputs of ``types``."""
        return self.bind().signature_for(types)

    @property
    def n_outputs(self) -> int:
        """The outputs of its default Op; counted on the template when a parameter has
        no default (split's sections must be given)."""
        try:
            op = self.bind()
        except TypeError:
            return parsed_template(self.template).n_outputs
        return op.n_outputs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        shape = (len(args), tuple(kwargs)) if kwargs else len(args)  # see call_shape
        fast = self.fast.get(shape)
        if fast is None:
            return self._build(args, kwargs, shape, None)
        out = fast(args, kwargs)  # a hit: the outputs (see ops/fastcall.py)
        if out is None or type(out) is Miss:
            return self._build(args, kwargs, shape, out)
        return out

    def make_node(self, *args: Any, **kwargs: Any) -> Apply:
        """The node of the call ``family(*args, **kwargs)``, the call not remembered as a
        cached call of its shape (no code generated): for a caller that keeps its own
        memo of whole calls, such as the ONNX importer reading types."""
        tensors, params = self.spec.bind(args, kwargs)
        return self._op(params).make_node(*tensors)

    def bound(self, args: tuple, kwargs: dict) -> tuple[list[Any], TemplateOp]:
        """The tensors and the Op of the call ``family(*args, **kwargs)``: what
        :meth:`make_node` applies."""
        tensors, params = self.spec.bind(args, kwargs)
        return tensors, self._op(params)

    def forget_calls(self) -> None:
        """Forget the calls seen, so that the next ones bind and build afresh (the Ops
        found stay: ``bind`` gives the same Op for the same parameters)."""
        for fast in list(self.fast.values()):
            fast.args[0].clear()
        self._recorded = 0
        self.spec.forget_normalised()

    def _build(self, args: tuple, kwargs: dict, shape: Any, miss: Miss | None) -> Any:
        """The general path: bind the call, pick the Op, make the node; remembered in
        the memo of the call's shape when the call has an exact key, bind found the same
        tensors, and the default dtype did not change meanwhile (another thread)."""
        dtype = rules_key()
        tensors, params = self.spec.bind(args, kwargs)
        node = self._op(params).make_node(*tensors)  # TemplateOp.__call__, inlined
        if shape not in self.fast and len(self.fast) < FAST_SHAPES and codegen.enabled():
            layout = self.spec.layouts.get(shape)  # planned by bind just now
            if layout is not None:
                fast = self.fast[shape] = fast_call(*layout)
                miss = fast(args, kwargs)  # its memo is empty: a Miss, or None
        if type(miss) is Miss and miss.key[-1] == dtype == rules_key() and \
                not node.conditions and len(tensors) == len(miss.tensors) and \
                all(map(is_, tensors, miss.tensors)):  # a hit makes a node of no conditions
            if self._recorded >= MEMO_SIZE:
                self.forget_calls()
            self._recorded += 1
            miss.memo[miss.key] = (node.op, tuple([o.type for o in node.outputs]),
                                   [t.type for t in tensors])  # the types of the key
        outputs = node.outputs
        return outputs[0] if len(outputs) == 1 else outputs

    def __repr__(self) -> str:
        return f"<kantensor op {self.name}({self.spec.text})>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """Never bound; a descriptor so that ``help(kt.sum)`` shows its call signature
        (see :meth:`SignatureOp.__get__`)."""
        return self

    def facts(self) -> OpFacts:
        """What ``help`` and the rich display say about this Op: its parameters' kinds
        and defaults, its signature template."""
        params = tuple((p.name, p.kind, "" if p.default is inspect.Parameter.empty
                        else repr(p.default)) for p in self.spec.params if not p.is_tensor)
        return OpFacts(self.name, "Op with parameters", self.template,
                       inspect.cleandoc(self.__doc__), params, f"{self.name}({self.spec.text})")

    def _repr_html_(self) -> str:
        return op_html(self.facts())


def _same(a: Any, b: Any) -> bool:
    """``a == b`` as a plain bool (a value may be an array)."""
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return False


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
        if not callable(fn):
            raise TypeError(f"kt.op({str(signature)!r}) decorates the function that computes "
                            f"the Op; got {type(fn).__name__} {fn!r}")
        op_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if call is None and builder is None:
            made = SignatureOp(op_name, signature, fn, compute=compute, doc=fn.__doc__)
            _check_arity(fn, op_name, len(made.signature.alternatives[0].inputs), ())
            return made
        if not isinstance(signature, str):
            raise TypeError("a template signature is text with {placeholders}")
        spec = CallSpec(call or "x", op_name)
        tensors = sum(p.kind == "tensor" for p in spec.params)
        _check_arity(fn, op_name, tensors, spec.param_names)
        return OpFamily(op_name, signature, fn, spec, compute=compute, doc=fn.__doc__,
                        builder=builder)
    return wrap


def _check_arity(fn: Callable[..., Any], name: str, tensors: int,
                 params: tuple[str, ...]) -> None:
    """The implementation must accept the tensors positionally and the parameters by
    keyword, as perform calls it; said when decorating, not when the graph runs."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check
        return
    try:
        sig.bind(*range(tensors), **dict.fromkeys(params))
    except TypeError as exc:
        takes = f" and the parameters {', '.join(params)} by keyword" if params else ""
        raise TypeError(f"{name}{sig} cannot implement its Op: it is called with "
                        f"{tensors} input array{'s' * (tensors != 1)}{takes} "
                        f"({exc})") from None

"""Ops whose signature is a template rendered from their parameters and input types
(TemplateOp, a :class:`~kantensor.ops.op.SignatureOp`): the template parsed once per
text, rendered once per input ranks (or types), the builder's clause messages kept."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from string import Formatter
from typing import Any

from ..signature.signature import Signature
from ..syntax.parser import parse_template
from ..syntax.template import Template
from ..types.type import TensorType
from ..types.variable import TensorVariable
from .callspec import call_signature
from .op import SignatureOp
from .params import ParamError
from .templates import RankType

#: A builder fills a template's placeholders: ``builder(input_types, **params)`` returns
#: ``{placeholder: object}`` (dims, operands, clauses, alternatives: see
#: :mod:`kantensor.syntax.template`); it may resolve parameters under the key "params".
Builder = Callable[..., dict[str, Any]]


def placeholders(template: str) -> set[str]:
    """The ``{name}`` placeholders of a signature template."""
    return {name for _, name, _, _ in Formatter().parse(template) if name}


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
        self.signature = None  # one signature per input ranks: see signature_for
        self.template = template
        self.__signature__ = call_signature(
            {self.parsed.n_inputs} if "->" in template else set())
        self.builder = builder
        self.output_class = getattr(builder, "output_class", TensorVariable)
        self.params = tuple((params or {}).items())
        self._kwargs = dict(self.params)
        # rendered once per input ranks and dtypes when the builder reads nothing else
        self._by_rank = builder is None or getattr(builder, "reads_ranks", False)
        self._messages: dict[str, Callable[..., str]] = {}  # see clause_messages
        self._unsaid: list[tuple[Any, Callable[..., str]]] = []  # (clause, message)
        self._hash = hash((type(self), self._props()))  # a render cache key: hashed once

    def __hash__(self) -> int:
        return self._hash

    @property
    def parsed(self) -> Template:
        """The template, parsed once per text (see :mod:`kantensor.syntax.template`)."""
        return parsed_template(self.template)

    def __getstate__(self) -> dict:
        """Pickled without the builder's messages (functions made per render): an
        unpickled Op gets them again when its signature is rendered."""
        return {**super().__getstate__(), "_messages": {}, "_unsaid": []}

    @property
    def clause_messages(self) -> dict[str, Callable[..., str]]:
        """What a where-clause's failure means in the user's words, from the builder:
        clause text -> ``message(values, input_types)`` (see ops/templates.py). The
        texts are written when first asked (a failure's message), not at each render."""
        self._write_messages()
        return self._messages

    def _write_messages(self) -> None:
        """Key the messages of the clauses rendered since by their texts."""
        if self._unsaid:
            unsaid, self._unsaid = self._unsaid, []
            for clause, message in unsaid:
                self._messages[str(clause)] = message

    @property
    def n_outputs(self) -> int:
        """How many outputs its signatures have (see :func:`_count_outputs`)."""
        return _count_outputs(self)

    def signature_for(self, types: tuple) -> tuple[Signature, SignatureOp]:
        if self._by_rank:
            return _render_ranks(self, tuple([(t.dtype, t.ndim) for t in types]))
        return _render(self, types)

    #: The parameters as the user wrote them (the builder's resolved values, such as
    #: reshape's ``axes_of``, are not); None: all of :attr:`params`.
    user_params: tuple[tuple[str, Any], ...] | None = None
    spec: Any = None  # its family's call, which counts its inputs (ops/inputcount.py)

    def with_params(self, params: dict[str, Any]) -> TemplateOp:
        made = TemplateOp(self.name, self.template, self.impl, self.compute, self.__doc__,
                          params, self.builder)
        made.user_params = self.written()[1]
        made.lowering, made.data_sizes, made.spec = self.lowering, self.data_sizes, self.spec
        return made

    def written(self) -> tuple[str, tuple[tuple[str, Any], ...]]:
        return self.name, self.params if self.user_params is None else self.user_params

    def __str__(self) -> str:
        """Its name and parameters, as the other Ops print (``sum{axis=(1,), ...}``); a
        ``flag`` parameter (a mode a front end sets) only where it is set, so ``kt.inv``
        prints ``inv`` and ``np.linalg.inv``'s Op ``inv{as_numpy=True}``."""
        flags = getattr(self.spec, "flags", ())
        shown = [(k, v) for k, v in self.params if v is not False or k not in flags]
        if not shown:
            return self.name
        return f"{self.name}{{{', '.join(f'{k}={v!r}' for k, v in shown)}}}"


#: How many clauses with messages a TemplateOp keeps unwritten (see clause_messages).
_UNSAID = 256


@lru_cache(maxsize=1024)
def parsed_template(text: str) -> Template:
    """A template's text parsed (once per text)."""
    return parse_template(text)


@lru_cache(maxsize=1024)
def _count_outputs(op: TemplateOp) -> int:
    """The outputs of ``op``'s signatures: counted on a signature rendered for inputs of
    some rank (a placeholder such as split's ``{parts}`` may be several outputs), else
    on the template (a placeholder counted as one operand). A count, never a type: the
    dtypes and sizes of the proxy inputs decide nothing."""
    n_in = op.parsed.n_inputs
    for rank in (1, 2, 0, 3):
        try:
            sig, _ = op.signature_for((TensorType("float64", (None,) * rank),) * n_in)
        except (TypeError, ValueError, IndexError):
            continue
        return len(sig.alternatives[0].outputs)
    return op.parsed.n_outputs


@lru_cache(maxsize=4096)
def _render(op: TemplateOp, types: tuple) -> tuple[Signature, SignatureOp]:
    """``op``'s signature (and the Op with its parameters resolved) for ``types``."""
    return _rendered(op, types)


@lru_cache(maxsize=4096)
def _render_ranks(op: TemplateOp, ranks: tuple) -> tuple[Signature, SignatureOp]:
    """The same for a builder that reads ranks and dtypes only (or no builder), once per
    ``((dtype, ndim), ...)``: the builder sees :class:`RankType` inputs."""
    return _rendered(op, tuple([RankType(dtype, ndim) for dtype, ndim in ranks]))


def _rendered(op: TemplateOp, types: tuple) -> tuple[Signature, SignatureOp]:
    params = dict(op.params)
    made: dict[str, Any] = {}
    if op.builder is not None:
        try:
            made = dict(op.builder(types, **params))
        except ParamError as exc:
            raise type(exc)(f"{op.name}: {exc}") from None
        resolved = made.pop("params", None)
        if resolved:
            params.update(resolved)
    values = {**dict(op.params), **made}
    missing = [n for n in op.parsed.holes if n not in values]
    if missing:
        raise ValueError(f"{op.name}: template placeholder{'s' * (len(missing) > 1)} "
                         f"{', '.join(missing)} filled by neither a parameter nor the "
                         "builder")
    alternatives = op.parsed.fill(values)
    resolved_op = op if params == dict(op.params) else op.with_params(params)
    for alt in alternatives:
        for clause in alt.where:
            if clause.message is not None:
                resolved_op._unsaid.append((clause, clause.message))
    if len(resolved_op._unsaid) > _UNSAID:
        resolved_op._write_messages()  # (renders of many ranks keep no more unwritten)
    return Signature(alternatives=alternatives), resolved_op

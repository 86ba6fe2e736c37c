"""Ops whose output types come from one signature (SignatureOp); one whose signature is
rendered from its parameters is :mod:`kantensor.ops.templateop`'s. Their families and
``@op`` are :mod:`kantensor.ops.family`'s."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..graph.basic import REBUILD, Apply, Variable
from ..graph.op import Kernel, Op
from ..signature.forward import build, infer
from ..signature.signature import Signature
from ..syntax.errors import TypeInferenceError
from ..types.basic_ops import cast_array
from ..types.conditions import conjunction
from ..types.dtypes import (
    COMPUTED_AS,
    DEFAULT_CHOICES,
    INITIAL_DEFAULT,
    REAL_OF,
    get_default_dtype,
    is_inexact,
    is_integer,
    pin_default,
    priority,
    unpin_default,
)
from ..types.facts import EMPTY, Facts
from ..types.numpyrules import pin_rules, promoted, rules_key, unpin_rules
from ..types.type import TensorType
from ..types.variable import (
    PYTHON_NUMBERS,
    PythonNumber,
    TensorVariable,
    as_tensor_variable,
    wrapped_number,
)
from .callspec import call_signature
from .display import OpFacts, op_html
from .inputcount import check_count
from .located import Unplaced, located
from .pyints import check_python_ints, exact_operands, number_key, size_conditions, wrapped_key

#: How inputs are cast before the NumPy implementation runs:
#: "output": to the (first) output dtype, so integer arithmetic wraps in that dtype;
#: "promote": to the promoted input dtype (comparisons, where the output is bool);
#: "select": the first input (a condition) as it is, the others to the output dtype (where);
#: "none": passed as they are;
#: "wider": passed as they are, and NumPy may compute in a wider dtype of the output's
#: category, whose result is rounded to the output dtype (linear algebra in float64 for a
#: float32 result). In every other mode NumPy's own result has the output dtype, which
#: ``function(..., check=True)`` verifies before the cast.
COMPUTE_MODES = ("output", "promote", "select", "none", "wider")


#: How many input-type keys a SignatureOp remembers the outputs of, and how many calls
#: an OpFamily remembers over all its call shapes (then it starts over).
MEMO_SIZE = 1024


def built_rules(node: Apply) -> str | None:
    """The rules ``node`` was built under, as :func:`~kantensor.types.numpyrules.rules_key`
    gives them (for :func:`~kantensor.types.numpyrules.pin_rules`): its ``rules``, which
    every build under other rules than :data:`INITIAL_DEFAULT`'s sets (``"numpy"``, or
    the default dtype); :data:`INITIAL_DEFAULT` for a SignatureOp's node without them;
    for another Op's node the default dtype its wrapped numbers say (None: none says).
    Re-inferring a node (at run time, in a lowering, in a clone) reads them."""
    rules = node.rules
    if rules is not None:
        return rules
    return INITIAL_DEFAULT if isinstance(node.op, SignatureOp) else _built_default(node)


@contextmanager
def under_built_rules(node: Apply) -> Iterator[None]:
    """Inside the block, the rules ``node`` was built under (:func:`built_rules`) are this
    thread's: whatever re-reads the node's typing (run-time re-inference, the compute
    dtype of a comparison, a lowering's axes) reads it as make_node did, not under the
    caller's rules (None: the caller's stand)."""
    built = built_rules(node)
    token = pin_rules(built) if built is not None else None
    try:
        yield
    finally:
        if token is not None:
            unpin_rules(token)


def rebuild(node: Apply, inputs: Sequence[Variable]) -> Apply:
    """``node``'s Op applied to ``inputs`` under the rules ``node`` was built under
    (:data:`~kantensor.graph.basic.REBUILD`: a clone that re-infers types), each output
    that was a Python number of the code (``n * 1.5``: wrapped, weak in NumPy's rules,
    :func:`~kantensor.types.operators.python_result`) one again."""
    with under_built_rules(node):
        new = node.op.make_node(*inputs)
    for old, out in zip(node.outputs, new.outputs, strict=True):
        if type(out) is TensorVariable and isinstance(old, PythonNumber):
            out.__class__ = type(old)
    return new


def _built_default(node: Apply) -> str | None:
    """The default float dtype ``node``'s wrapped Python numbers were made under: a
    wrapped float's dtype, else a wrapped complex's float (None: no wrapped number
    says)."""
    found = None
    for v in node.inputs:
        if v.wrapped:
            dtype = v.type.dtype
            if dtype in DEFAULT_CHOICES:
                return dtype
            real = REAL_OF.get(dtype)  # (the wider of two complexes' reals)
            if real in DEFAULT_CHOICES and (found is None or DEFAULT_CHOICES.index(real) >
                                            DEFAULT_CHOICES.index(found)):
                found = real
    return found


def check_compute(compute: object) -> str:
    """``compute`` if it is one of :data:`COMPUTE_MODES`, else ValueError (the one check,
    for Ops made in Python and for catalogue entries)."""
    if compute not in COMPUTE_MODES:
        raise ValueError(f"compute must be one of {', '.join(COMPUTE_MODES)}, got "
                         f"{compute!r}")
    return compute


def exact_casts(node: Apply, casts: tuple[str | None, ...]) -> tuple[str | None, ...]:
    """``casts`` (None: an input as it is) with a low-precision integer operand computed in
    the NumPy integer that holds it (:data:`~kantensor.types.dtypes.COMPUTED_AS`): NumPy
    runs ml_dtypes' int4 in int4, so a sum or a mean would wrap. The result is cast back
    to the output's dtype, which wraps as int4's own arithmetic does."""
    out = []
    for v, cast in zip(node.inputs, casts, strict=True):
        dtype = v.type.dtype
        wide = COMPUTED_AS.get(dtype, dtype)
        out.append(wide if wide != dtype and cast in (None, dtype) else cast)
    return tuple(out)


class SignatureOp(Op):
    """An Op typed by a :class:`Signature` and computed by a NumPy function."""

    __props__ = ("name", "signature", "compute", "impl")

    def __init__(self, name: str, signature: Signature | str, impl: Callable[..., Any],
                 compute: str = "none", doc: str | None = None):
        if isinstance(signature, str):
            signature = Signature.parse(signature)
        self._describe(name, impl, compute, doc, signature)
        self.signature = signature
        self.__signature__ = call_signature({len(a.inputs) for a in signature.alternatives})

    def _describe(self, name: str, impl: Callable[..., Any], compute: str, doc: str | None,
                  signature: object) -> None:
        """Set what every SignatureOp has: name, impl, compute mode, docstring."""
        check_compute(compute)
        self.name = name
        self.impl = impl
        self.compute = compute
        self.__doc__ = doc or getattr(impl, "__doc__", None) or f"{name}: {signature}"
        self.__name__ = self.__qualname__ = name  # help() titles it by its name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """Never bound: an Op stays itself as a class attribute. Being a descriptor makes
        ``help(kt.add)`` document it as a function: ``add(x1, x2, /)``, then its doc."""
        return self

    #: Keyword arguments of ``impl`` (parameters of a :class:`TemplateOp`), as props
    #: (hashable) and as the dict perform passes (built once, not per call).
    params: tuple[tuple[str, Any], ...] = ()
    _kwargs: dict[str, Any] = {}  # never mutated
    _memo: dict[tuple, tuple] = {}  # never mutated: each Op gets its own in _infer

    def __getstate__(self) -> dict:
        """Pickled without its build memo: the memo holds other graphs' types and facts (what
        was built with this Op before), which a pickle of one graph must not carry."""
        return {k: v for k, v in self.__dict__.items() if k != "_memo"}
    #: How backends compute it, declared by its catalogue entry: backend -> kind of
    #: algorithm (``{"dask": "reduction"}``); an Op with none is computed by its
    #: signature alone. Never chosen by name. Never mutated (replaced whole).
    lowering: dict[str, str] = {}
    #: Why its output sizes may be known only from its inputs' values, declared by its
    #: catalogue entry (``data_sizes``: a boolean mask's count); "" where they never are.
    data_sizes: str = ""
    #: The class of its outputs (a builder may say another: ``size_number``'s).
    output_class: type = TensorVariable

    def __eq__(self, other: object) -> bool:
        # two Ops alike but computed differently (a catalogue file's entry of a shipped
        # Op's name, another dask kind) are two Ops: caches keyed by Ops keep them apart
        return super().__eq__(other) and self.lowering == other.lowering  # type: ignore

    __hash__ = Op.__hash__

    def written(self) -> tuple[str, tuple[tuple[str, Any], ...]]:
        return self.name, ()  # the signature and the impl are not the user's parameters

    def signature_for(self, types: tuple) -> tuple[Signature, Any]:
        """The signature that types inputs of ``types``, and the Op that computes them."""
        return self.signature, self

    def __call__(self, *inputs: Any) -> Variable | list[Variable]:
        outputs = self.make_node(*inputs).outputs
        return outputs[0] if len(outputs) == 1 else outputs

    def make_node(self, *inputs: Any) -> Apply:
        variables = []
        key = []
        facts = None
        dtype = get_default_dtype()  # read once per build (other threads may change it)
        rules = rules_key(dtype)  # the default, or "numpy" (NumPy's promotion, float64)
        for x in inputs:  # a loop, not comprehensions: this is the hot path of a build
            if isinstance(x, Variable):
                wrapped = x.wrapped and wrapped_key(x)
                if x.facts is not None:  # what the nodes it comes from need of its sizes
                    facts = x.facts if facts is None else facts.union(x.facts)
            elif type(x) in PYTHON_NUMBERS:  # z + 1.0: wrapped with the default read
                wrapped = number_key(x)  # what wrapped_key gives for the constant
                x = wrapped_number(x, dtype)
            else:
                token = pin_default(dtype)
                try:
                    x = as_tensor_variable(x)
                finally:
                    unpin_default(token)
                wrapped = x.wrapped and wrapped_key(x)
            variables.append(x)
            key.append(x.type)  # interned: hashed and compared by identity
            key.append(wrapped)
        key.append(rules)
        if facts is not None:
            key.append(facts)
        key = tuple(key)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._infer(variables, key, facts)
        outs = hit[0]
        if len(outs) == 1:
            node = Apply.one_output(hit[1], variables, hit[1].output_class, outs[0]).owner
        else:
            node = Apply.of_new_outputs(hit[1], variables, hit[1].output_class, outs)
        if rules != INITIAL_DEFAULT:  # (re-inferred under them: built_rules)
            node.rules = rules
        conditions = hit[3]
        if conditions:
            if conjunction(conditions):  # facts of the outputs: named on the inputs now
                node.conditions = located(conditions, node)
                facts = (EMPTY if facts is None else facts).with_(*node.conditions)
            else:  # no fact (a disjunction: NumPy broadcasting's): named when first read
                node.conditions = Unplaced(conditions, node)
                facts = EMPTY if facts is None else facts
        if facts is not None:
            for out in node.outputs:
                out.facts = facts
        return node

    def _infer(self, inputs: list[Variable], key: tuple, facts: Facts | None = None) -> tuple:
        """``(output types, computing Op, input types, conditions)`` for ``inputs``,
        solved by the signature under ``facts`` (what the inputs' own nodes need of their
        sizes) and remembered on this Op under ``key``: for each input its type
        (interned, so hashed and compared by identity) and, for a wrapped number, its
        :func:`~kantensor.ops.pyints.wrapped_key` (whether a Python int fits a dtype
        depends on its value), then the default dtype and the facts. A hit is one dict
        lookup."""
        types = tuple([x.type for x in inputs])
        token = pin_rules(key[-1] if facts is None else key[-2])  # for every step
        try:
            signature, op = self.signature_for(types)
            found = build(signature, types, tuple([x.wrapped for x in inputs]), name=op,
                          facts=EMPTY if facts is None else facts)
        except (TypeError, ValueError, IndexError):
            check_count(self, types)  # a count its call never takes: the arity error
            raise
        finally:
            unpin_rules(token)
        outs = found.types
        conditions = found.conditions
        if self.compute == "output" and outs:
            check_python_ints(op, inputs, outs[0].dtype)
            conditions = (*conditions, *size_conditions(inputs, outs[0].dtype))
        hit = (outs, op, types, conditions)
        if (key[-1] if facts is None else key[-2]) != rules_key():
            return hit  # the default changed meanwhile (another thread)
        memo = self.__dict__.setdefault("_memo", {})
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[key] = hit
        return hit

    def check_inputs(self, node: Apply, inputs: list) -> None:
        """Re-infer with the exact shapes of the values, so that a where-clause or a
        dim equation left open by unknown sizes is decided before NumPy runs."""
        types = tuple(TensorType(v.type.dtype, np.shape(x))
                      for v, x in zip(node.inputs, inputs, strict=True))
        signature, _ = self.signature_for(types)
        # under the rules the node was built with (NumPy's, its wrapped floats' default),
        # not the caller's: a graph built in default_dtype("float64") was refused outside
        try:
            with under_built_rules(node):
                outs = infer(signature, types, tuple(v.wrapped for v in node.inputs),
                             name=self)
        except TypeInferenceError as exc:
            raise TypeInferenceError(f"at run time: {exc}", signature=signature) from None
        for i, (out, var) in enumerate(zip(outs, node.outputs, strict=True)):
            typed = var.type.shape
            if len(out.shape) != len(typed) or any(
                    isinstance(t, int) and t != n for t, n in zip(typed, out.shape, strict=True)):
                # another alternative of the relation fits the values: the branch the
                # node was built on (an unknown size kept under "!= 1") does not hold
                raise TypeInferenceError(
                    f"at run time: {self} gives output {i} as {out} for these inputs, but "
                    f"the graph was built with {var.type}", signature=signature)

    def kernel(self, node: Apply) -> Kernel | None:
        """``impl`` with the casts of the compute mode (None if a subclass has its own
        perform)."""
        if (type(self).perform is not SignatureOp.perform or len(node.outputs) > 1
                or self.compute in ("promote", "select")):
            # perform: exact comparisons with Python ints, where's casts, and the check
            # that an implementation returns as many values as its signature says
            return None
        dtype = self._compute_dtype(node)
        return Kernel(self.impl, self._kwargs, exact_casts(node, (dtype,) * len(node.inputs)))

    def _compute_dtype(self, node: Apply) -> str | None:
        """The dtype inputs are cast to before ``impl`` runs (see COMPUTE_MODES)."""
        if self.compute == "output":
            return node.outputs[0].type.dtype
        if self.compute == "promote":  # (as make_node promoted them: the node's rules)
            with under_built_rules(node):
                dtype = promoted(tuple((v.type.dtype, priority(v.type.ndim, v.wrapped))
                                       for v in node.inputs))
            if is_inexact(dtype) and built_rules(node) == "numpy" and all(
                    is_integer(v.type.dtype) for v in node.inputs):
                return None  # int64 with uint64: NumPy's comparison loops (qQ, Qq) are exact
            return dtype
        return None

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        for cell, out, value in zip(output_storage, node.outputs, self.results(node, inputs),
                                    strict=True):
            cell[0] = cast_array(value, out.type.dtype)

    def results(self, node: Apply, inputs: list) -> tuple:
        """The implementation's own results for ``node`` on ``inputs``, before
        :meth:`perform` casts them to the output dtypes (``check=True`` compares their
        dtypes with the inferred ones, so a wrong dtype rule cannot hide behind the
        cast)."""
        dtype = self._compute_dtype(node)
        if dtype is not None and self.compute == "promote":  # exact comparisons
            inputs = exact_operands(node.inputs, inputs, dtype)
        elif self.compute == "select":  # where: the condition as given, the choices cast
            dtype = node.outputs[0].type.dtype
            inputs = [inputs[0], *(cast_array(x, dtype) for x in inputs[1:])]
        else:
            inputs = [x if c is None else cast_array(x, c) for x, c in
                      zip(inputs, exact_casts(node, (dtype,) * len(inputs)), strict=True)]
        result = self.impl(*inputs, **self._kwargs)
        n = len(node.outputs)
        if n == 1:
            result = (result,)
        elif not isinstance(result, tuple | list) or len(result) != n:
            got = len(result) if isinstance(result, tuple | list) else 1
            raise TypeError(f"{self.name} returned {got} value{'s' * (got != 1)} but its "
                            f"signature has {n} outputs (return a tuple of {n} arrays)")
        return tuple(result)

    def __str__(self) -> str:
        return self.name

    def facts(self) -> OpFacts:
        """What ``help`` and the rich display say about this Op."""
        return OpFacts(str(self), "Op", str(self.signature), inspect.cleandoc(self.__doc__),
                       tuple((k, "bound", repr(v)) for k, v in self.params),
                       parsed=self.signature if isinstance(self.signature, Signature) else None)

    def _repr_html_(self) -> str:
        return op_html(self.facts())


REBUILD.set(rebuild)

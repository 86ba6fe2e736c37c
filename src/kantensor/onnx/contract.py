"""The contract of an ONNX model: which input sizes it accepts, and TensorRT profiles.

:func:`contract` reads a model for its types (as ``infer_shapes`` does) and makes the
:class:`~kantensor.types.contracts.Contract` of the conditions its nodes need, each
naming its node, over the sizes its inputs name (``dim_param``; an input axis of no
given size is ``x.shape[k]``). ``inputs`` renames a model's input dims first (a model
exported at one size, made symbolic: ``{"data_0": ("N", 3, "H", "W")}``) and ``opset``
converts an old model with onnx's version converter. :func:`profiles` turns a box of
valid sizes into per-input ``(min, opt, max)`` shapes, as TensorRT's optimisation
profiles (and ``trtexec``'s ``--minShapes/--optShapes/--maxShapes``) take them.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import onnx
from onnx import version_converter

from ..graph.basic import Variable
from ..ops.contracts import contract_of
from ..ops.located import VariableAxis
from ..types.conditions import Condition
from ..types.contracts import Contract
from ..types.contracts.box import Box
from ..types.contracts.evaluate import evaluator
from ..types.contracts.univariate import trend as _trend
from ..types.dim import Dim
from ..types.symbols import free_symbols
from .importer import _Reader
from .loading import OnnxImportError, Tensors, overridable
from .modelfile import open_model
from .reaches import node_reaches
from .registry import UnsupportedOp, lookup
from .rereading import read_refuting
from .subgraph import size_conditions
from .unread import unread

__all__ = ["InputProfile", "contract", "data_inputs", "prepare", "profiles", "report",
           "with_input_dims"]


def with_input_dims(model: onnx.ModelProto, dims: Mapping[str, Sequence[Any]]
                    ) -> onnx.ModelProto:
    """A copy of ``model`` whose inputs have the given dims (an int, a name, or None for
    an unknown size), and whose outputs and intermediate values no longer state sizes
    (they were inferred at the old ones). A tensor input of unknown rank (no shape,
    which ONNX allows and kantensor cannot type) takes as many axes as dims given."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    inputs = {i.name: i for i in out.graph.input}
    for name, shape in dims.items():
        info = inputs.get(name)
        if info is None:
            raise ValueError(f"the model has no input {name!r} (its inputs: "
                             f"{', '.join(data_inputs(model))})")
        if info.type.WhichOneof("value") == "tensor_type" and \
                not info.type.tensor_type.HasField("shape"):  # (of unknown rank)
            info.type.tensor_type.shape.SetInParent()  # (no dims given: rank 0)
            for _ in shape:
                info.type.tensor_type.shape.dim.add()
        given = info.type.tensor_type.shape.dim
        if len(shape) != len(given):
            raise ValueError(f"input {name!r} has {len(given)} axes, {len(shape)} dims given")
        for d, value in zip(given, shape, strict=True):
            d.Clear()
            if isinstance(value, str):
                if not value.isidentifier():
                    raise ValueError(f"input {name!r}: {value!r} is not a size's name")
                d.dim_param = value
            elif isinstance(value, int) and not isinstance(value, bool):
                d.dim_value = value
            elif value is not None:
                raise ValueError(f"input {name!r}: a dim is an int, a name or None, got "
                                 f"{value!r}")
    for info in out.graph.output:
        if info.type.HasField("tensor_type"):
            info.type.tensor_type.ClearField("shape")
    del out.graph.value_info[:]
    return out


def data_inputs(model: onnx.ModelProto) -> list[str]:
    """The model's inputs that are no initializers, or whose initializer is a default the
    caller may override (:func:`~.loading.overridable`)."""
    inits = {t.name for t in model.graph.initializer} - overridable(model, model.graph)
    return [i.name for i in model.graph.input if i.name not in inits]


def contract(model: onnx.ModelProto | str | os.PathLike | bytes, *,
             inputs: Mapping[str, Sequence[Any]] | None = None,
             opset: int | None = None, base_dir: str | os.PathLike | None = None
             ) -> Contract:
    """The input sizes ``model`` accepts: the :class:`~kantensor.types.contracts.Contract`
    of its nodes' conditions (each naming its node) over its inputs' sizes. ``inputs``
    gives some inputs new dims first (see :func:`with_input_dims`); ``opset`` converts
    the model to that opset first (onnx's version converter). A size the model makes
    (a Loop's iteration count) is no input: a condition over it leaves the contract
    inexact (its ``inner`` and ``outer`` approximations are labelled) and ``holds``
    undecided where it matters. External data (read only where a node's type depends
    on it) comes from ``base_dir``, else from the folder of the model's path."""
    return _contract(*_prepared(model, inputs, opset, base_dir))[0]


def _contract(proto: onnx.ModelProto, tensors: Tensors
              ) -> tuple[Contract, list[Variable]]:
    """The contract of a prepared model, and its input Variables. A model with a node
    that iterates (Loop, Scan: its handler's ``iterates``) is read as a graph: what its
    nodes state of the counts they make (``0 <= iters <= n``) bounds them where ``holds``
    asks about a condition over them."""
    opsets = {o.domain: o.version for o in proto.opset_import}
    loops = any(_iterates(n, opsets) for n in proto.graph.node)
    reader, (variables, outputs) = read_refuting(
        lambda given: _Reader(proto, tensors, graph=loops, given=given), lambda r: (r, r.read()))
    found = contract_of(reader.conditions, variables, untyped(reader) + unread(proto, reader),
                        inputs_only=True, reaches=node_reaches(proto.graph))
    if not loops or not found.hidden:
        return found, variables
    bounds = [Condition(c.left, {"<": "<", "<=": "<=", "==": "=="}[c.op], c.right)
              for c in size_conditions(outputs)]
    return Contract(found.atoms, found.sizes, notes=found.notes, bounds=bounds,
                    reaches=found.reaches), variables


def _iterates(node: onnx.NodeProto, opsets: dict[str, int]) -> bool:
    """Whether ``node``'s entry is a handler that runs a body a number of times the
    model decides (no entry: False)."""
    domain = "" if node.domain == "ai.onnx" else node.domain
    try:
        entry = lookup(node.op_type, domain, opsets.get(domain), node.name)
    except UnsupportedOp:
        return False
    return entry.structured and entry.op.iterates


def untyped(reader: _Reader) -> list[str]:
    """What the contract lacks: each node left untyped (an unsupported op, an output
    rank the sizes decide, ...), whose conditions and those of the nodes it reaches are
    not known."""
    first = {id(exc): exc for exc in reader.untyped.values()}
    return [f"{exc}: what it and the nodes it reaches need of the sizes is not known"
            for exc in first.values()]


def prepare(model: onnx.ModelProto | str | os.PathLike | bytes,
            inputs: Mapping[str, Sequence[Any]] | None = None,
            opset: int | None = None) -> onnx.ModelProto:
    """``model`` read, converted to ``opset`` and with ``inputs``' dims (see
    :func:`contract`)."""
    return _prepared(model, inputs, opset)[0]


def _prepared(model: onnx.ModelProto | str | os.PathLike | bytes,
              inputs: Mapping[str, Sequence[Any]] | None = None,
              opset: int | None = None, base_dir: str | os.PathLike | None = None
              ) -> tuple[onnx.ModelProto, Tensors]:
    """:func:`prepare`'s model and its tensors (external data from ``base_dir``, else
    from the model's folder: see :mod:`.loading`)."""
    proto, tensors = open_model(model, base_dir)
    if opset is not None:
        try:
            proto = version_converter.convert_version(proto, opset)
        except Exception as exc:  # the converter's own errors: no common base class
            raise OnnxImportError(f"onnx cannot convert the model to opset {opset}: "
                                  f"{exc}") from None
    if inputs:
        proto = with_input_dims(proto, inputs)
    return proto, tensors


@dataclass(frozen=True)
class InputProfile:
    """One input's optimisation profile: its ``min``, ``opt`` and ``max`` shapes."""

    name: str
    min: tuple[int, ...]
    opt: tuple[int, ...]
    max: tuple[int, ...]


def profiles(inputs: Sequence[Variable], contract: Contract, box: Box
             ) -> list[InputProfile]:
    """Each input's ``(min, opt, max)`` shapes over ``box`` (a box of ``contract``'s
    sizes): an axis of fixed size keeps it, an axis that is a size takes its range, an
    axis that is an expression of one size (``2*seq``), monotone in it, its values at
    the ends of that size's range."""
    names = {s: n for n, s in contract.sizes}
    out = []
    for v in inputs:
        lows, opts, highs = [], [], []
        for axis, d in enumerate(v.type.shape):
            if isinstance(d, int):
                lo = opt = hi = d
            else:
                key: Hashable = VariableAxis(v, axis) if d is None else None
                if key is not None:
                    lo, opt, hi = box.ranges[names[key]]
                else:
                    lo, opt, hi = _expression_range(d, names, box)
            lows.append(lo)
            opts.append(opt)
            highs.append(hi)
        out.append(InputProfile(v.name or "?", tuple(lows), tuple(opts), tuple(highs)))
    return out


def _expression_range(d: Dim, names: Mapping, box: Box) -> tuple[int, int, int]:
    """The least, opt and greatest value of an input dim that is a Dim over the box: a
    size's own range, or a monotone expression of one size at the ends of its range."""
    symbols = sorted(free_symbols(d), key=str)
    if len(symbols) != 1 or (d.name is None and _trend(d)[0] not in (1, -1)):
        raise ValueError(f"an input dim {d} is not one size nor monotone in one: no range "
                         "of it is known to cover the box")
    lo, opt, hi = box.ranges[names[symbols[0]]]
    f = evaluator(d)
    ends = [f({symbols[0]: lo}), f({symbols[0]: hi})]
    return min(ends), f({symbols[0]: opt}), max(ends)


def report(model: onnx.ModelProto | str | os.PathLike | bytes, *,
           fix: Mapping[str, Any] | None = None, trt: bool = False,
           inputs: Mapping[str, Sequence[Any]] | None = None, opset: int | None = None,
           opt: Mapping[str, int] | None = None,
           base_dir: str | os.PathLike | None = None) -> str:
    """What ``kantensor contract`` prints: the contract of ``model`` (with the sizes
    ``fix`` gives) in words and in the DSL's syntax; with ``trt``, each input's (min,
    opt, max) shapes over a box of valid sizes around ``opt`` (by default the sizes the
    model was given at, where ``inputs`` renamed them, else a valid point), and beside
    it what the valid set holds that the box does not say."""
    full, variables = _contract(*_prepared(model, inputs, opset, base_dir))
    fixed = full.fix(fix) if fix else full
    out = [str(fixed)]
    if not trt:
        return "\n".join(out)
    if fixed.empty:
        raise ValueError("no sizes are valid: there is no profile")
    given = {k: v for k, v in (opt or {}).items() if k not in (fix or {})}
    if inputs and not opt:
        given = _given_sizes(_prepared(model, None, opset, base_dir)[0], inputs, fixed)
    box = fixed.box(given)
    ranges = dict(box.ranges)
    for name, value in fixed.fixed.items():
        if isinstance(value, int):
            ranges[name] = (value, value, value)
        else:  # another size: its range
            ranges[name] = ranges[str(value)]
    rows = profiles(variables, full, Box(ranges, box.outside))
    out.append("TensorRT profile (every point of the box is valid):")
    for p in rows:
        out.append(f"  {p.name}: min {_shape(p.min)}  opt {_shape(p.opt)}  max {_shape(p.max)}")
    out.append("  trtexec " + " ".join(
        f"--{kind}Shapes=" + ",".join(f"{p.name}:{_shape(getattr(p, kind))}" for p in rows)
        for kind in ("min", "opt", "max")))
    if box.outside:
        out.append("  beside it (the valid set holds more than a box says):")
        out += [f"    {x}" for x in box.outside]
    return "\n".join(out)


def _shape(dims: Sequence[int]) -> str:
    return "x".join(map(str, dims))


def _given_sizes(original: onnx.ModelProto, inputs: Mapping[str, Sequence[Any]],
                 contract: Contract) -> dict[str, int]:
    """The sizes the model was made at, for the names ``inputs`` gave its dims."""
    out: dict[str, int] = {}
    names = set(contract.names)
    for info in original.graph.input:
        shape = inputs.get(info.name)
        if shape is None:
            continue
        for d, new in zip(info.type.tensor_type.shape.dim, shape, strict=False):
            if isinstance(new, str) and new in names and d.HasField("dim_value"):
                out.setdefault(new, int(d.dim_value))
    return out

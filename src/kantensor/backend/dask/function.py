"""``kt.function(inputs, outputs, backend="dask")``: a graph as Dask arrays (DESIGN §12).

Calling the Function builds Dask arrays and computes nothing: every node is planned
(:func:`.lower.plan_node`, its chunks known before anything runs) and lowered
(:func:`.lower.lower_node`). ``f.chunks(*input_chunks)`` runs the plans alone, and
``f.plan()`` says in words how each node lowers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import dask.array as da
import numpy as np

from ...graph.basic import Constant, Variable
from ...graph.fgraph import FunctionGraph
from ...ops.sizes import SizeOp
from ..checks import size_value
from ..compiled import FunctionSignature
from ..display import function_html
from ..linker import dims_checker
from .lower import Chunks, NodePlan, concrete_type, lower_node, plan_node
from .plan import describe

__all__ = ["DaskFunction"]


class DaskFunction:
    """A graph compiled for Dask. Call it with Dask arrays (or NumPy arrays and
    ``chunks=``), positionally or by input name; it returns Dask arrays."""

    def __init__(self, inputs: Sequence[Variable], outputs: Variable | Sequence[Variable],
                 allow_input_downcast: bool | None = None):
        self.allow_input_downcast = allow_input_downcast
        self.unpack_single = isinstance(outputs, Variable)
        outputs = [outputs] if self.unpack_single else list(outputs)
        inputs = list(inputs)
        for i, v in enumerate(inputs):
            if not isinstance(v, Variable) or isinstance(v, Constant):
                raise TypeError(f"input {i} must be a Variable that is not a Constant, "
                                f"got {v!r}")
        for i, v in enumerate(outputs):
            if not isinstance(v, Variable):
                raise TypeError(f"output {i} is not a Variable but {type(v).__name__}")
        self.fgraph = FunctionGraph(inputs, outputs, clone=True)
        self.input_names = [v.name for v in inputs]
        self.signature = FunctionSignature(tuple(v.type for v in self.fgraph.inputs),
                                           tuple(v.type for v in self.fgraph.outputs))
        self._nodes = self.fgraph.toposort()
        self._dims = dims_checker(self.fgraph.inputs)

    # -- calling --------------------------------------------------------------------
    def __call__(self, *args: Any, chunks: Any = None, **named: Any) -> Any:
        values = self._arguments(args, named)
        if isinstance(chunks, list) and len(chunks) != len(values):
            raise TypeError(f"chunks= is a list of {len(chunks)} entries for "
                            f"{len(values)} inputs (give one per input, or one for all)")
        values = [self._as_dask(i, x, chunks) for i, x in enumerate(values)]
        outs = self._walk([(x.chunks, x) for x in values], values)
        return outs[0] if self.unpack_single else outs

    def chunks(self, *input_chunks: Chunks) -> Any:
        """The chunks of every output for inputs of ``input_chunks`` (Dask's
        normalised form, a tuple of tuples per input), from the graph alone."""
        if len(input_chunks) != len(self.fgraph.inputs):
            raise TypeError(f"chunks takes one chunks tuple per input "
                            f"({len(self.fgraph.inputs)}), got {len(input_chunks)}")
        given = [tuple(tuple(c) for c in cs) for cs in input_chunks]
        outs = self._walk([(c, None) for c in given], None)
        return outs[0] if self.unpack_single else outs

    def plan(self) -> str:
        """How every node lowers to Dask, one line per node."""
        return describe(self.fgraph, self._nodes)

    def _arguments(self, args: tuple, named: dict) -> list:
        n = len(self.fgraph.inputs)
        if len(args) > n:
            raise TypeError(f"function takes {n} inputs, got {len(args)}")
        values: list[Any] = list(args) + [_MISSING] * (n - len(args))
        for key, value in named.items():
            if key not in self.input_names:
                raise TypeError(f"unknown input name {key!r}")
            values[self.input_names.index(key)] = value
        missing = [str(v) for v, x in zip(self.fgraph.inputs, values, strict=True)
                   if x is _MISSING]
        if missing:
            raise TypeError(f"missing value for inputs: {', '.join(missing)}")
        return values

    def _as_dask(self, i: int, value: Any, chunks: Any) -> Any:
        """Input ``i`` as a Dask array of its type's dtype; TypeError if it cannot be."""
        var = self.fgraph.inputs[i]
        ttype = var.type
        if not isinstance(value, da.Array):
            value = var.type.filter(value, allow_downcast=self.allow_input_downcast)
            spec = chunks[i] if isinstance(chunks, list) else chunks
            value = da.from_array(value, chunks="auto" if spec is None else spec)
        if value.ndim != ttype.ndim:
            raise TypeError(f"bad value for input {i} ({var}): expected {ttype.ndim} "
                            f"dims, got {value.ndim}")
        for axis, (want, got) in enumerate(zip(ttype.shape, value.shape, strict=True)):
            if isinstance(want, int) and not math.isnan(got) and want != got:
                raise TypeError(f"bad value for input {i} ({var}): axis {axis} has size "
                                f"{got}, its type {ttype} says {want}")
        if value.dtype != ttype.numpy_dtype:
            rule = "same_kind" if self.allow_input_downcast else "safe"
            if not np.can_cast(value.dtype, ttype.numpy_dtype, rule):
                hint = "" if self.allow_input_downcast else \
                    " without loss (compile with allow_input_downcast=True to allow it)"
                raise TypeError(f"bad value for input {i} ({var}): dtype {value.dtype} "
                                f"cannot become {ttype.dtype}{hint}")
            value = value.astype(ttype.numpy_dtype)
        return value

    # -- the walk over the graph ----------------------------------------------------
    def _walk(self, given: list[tuple[Chunks, Any]], values: list[Any] | None) -> list:
        """Plan (and lower, when ``values`` are given) every node in order; the outputs'
        chunks, or their Dask arrays."""
        run = values is not None
        env: dict[Variable, tuple[Chunks, Any]] = dict(
            zip(self.fgraph.inputs, given, strict=True))
        bindings, origins = ({}, {})
        if self._dims is not None:
            shapes = [_Shape(c) for c, _ in given]
            bindings, origins = self._dims(shapes)
        for node in self._nodes:
            if isinstance(node.op, SizeOp):
                value = size_value(node.op.size, str(node.op), bindings, origins)
                env[node.outputs[0]] = (((value.shape[0],),), value)
                continue
            ins = [self._input(v, env) for v in node.inputs]
            types = tuple(concrete_type(v.type.dtype, c) for v, (c, _) in
                          zip(node.inputs, ins, strict=True))
            plan: NodePlan = plan_node(node, types, [c for c, _ in ins])
            if run:
                outs = lower_node(plan, [_as_array(x) for _, x in ins])
                for v, y in zip(node.outputs, outs, strict=True):
                    env[v] = (y.chunks, y)
            else:
                for v, c in zip(node.outputs, plan.out_chunks, strict=True):
                    env[v] = (c, None)
        result = [self._input(v, env) for v in self.fgraph.outputs]
        if run:
            return [_as_array(x) for _, x in result]
        return [c for c, _ in result]

    def _input(self, v: Variable, env: dict) -> tuple[Chunks, Any]:
        if v in env:
            return env[v]
        if isinstance(v, Constant):
            data = np.asarray(v.data)
            env[v] = (tuple((n,) for n in data.shape), data)
            return env[v]
        raise ValueError(f"{v} is neither an input nor computed by the graph")

    def __repr__(self) -> str:
        return f"<kantensor Function (Dask) {self.signature}>"

    def _repr_html_(self) -> str:
        return function_html(self, "Dask")


class _Shape:
    """Something with the shape of chunks, for binding named Dims."""

    def __init__(self, chunks: Chunks):
        self.shape = tuple(int(sum(c)) if not any(math.isnan(x) for x in c) else -1
                           for c in chunks)


def _as_array(x: Any) -> Any:
    """A Dask array for a value of the walk (a NumPy value with axes becomes one chunk;
    0-d stays NumPy, a literal of the tasks)."""
    if isinstance(x, np.ndarray) and x.ndim > 0:
        return da.from_array(np.array(x), chunks=-1)
    return x


_MISSING = object()

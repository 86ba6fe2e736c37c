"""Compile a graph into a callable: a precomputed list of thunks over storage cells."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.basic import Constant, Variable
from ..graph.fgraph import FunctionGraph
from ..types.type import TensorType
from .checks import bind_dims, check_dim_expressions, check_value, solve_dims


@dataclass(frozen=True)
class FunctionSignature:
    """The types a compiled function takes and returns."""

    inputs: tuple
    outputs: tuple

    def __str__(self) -> str:
        return f"({', '.join(map(str, self.inputs))}) -> " \
               f"({', '.join(map(str, self.outputs))})"


class Function:
    """A compiled graph. Call it with NumPy values, positionally or by input name."""

    def __init__(self, inputs: Sequence[Variable], outputs: Variable | Sequence[Variable],
                 allow_input_downcast: bool | None = None, trust_input: bool = False,
                 check: bool = False):
        self.unpack_single = isinstance(outputs, Variable)
        outputs = [outputs] if self.unpack_single else list(outputs)
        inputs = list(inputs)
        for i, v in enumerate(inputs):
            if not isinstance(v, Variable):
                raise TypeError(f"input {i} is not a Variable but {type(v).__name__}")
            if isinstance(v, Constant):
                raise TypeError(f"input {i} ({v}) is a Constant: constants have a fixed value "
                                "and cannot be function inputs")
        for i, v in enumerate(outputs):
            if not isinstance(v, Variable):
                raise TypeError(f"output {i} is not a Variable but {type(v).__name__}")
        self.fgraph = FunctionGraph(inputs, outputs, clone=True)
        self.allow_input_downcast = allow_input_downcast
        self.trust_input = trust_input
        self.check = check
        self.signature = FunctionSignature(tuple(v.type for v in self.fgraph.inputs),
                                           tuple(v.type for v in self.fgraph.outputs))
        self.input_names = [v.name for v in inputs]
        self._positions = {n: i for i, n in enumerate(self.input_names) if n is not None}
        self._build()

    def _build(self) -> None:
        storage: dict[Variable, list] = {}

        def cell(v: Variable) -> list:
            if v not in storage:
                storage[v] = [v.data if isinstance(v, Constant) else None]
            return storage[v]

        self._input_cells = [cell(v) for v in self.fgraph.inputs]
        self._symbolic_inputs = [
            i for i, v in enumerate(self.fgraph.inputs)
            if isinstance(v.type, TensorType) and any(not isinstance(s, int | None)
                                                      for s in v.type.shape)
        ]
        self._thunks = []
        for node in self.fgraph.toposort():
            in_cells = [cell(v) for v in node.inputs]
            out_cells = [cell(v) for v in node.outputs]
            self._thunks.append((node, node.op.perform, in_cells, out_cells))
        self._output_cells = [cell(v) for v in self.fgraph.outputs]

    def _arguments(self, args: tuple, kwargs: dict) -> list:
        n = len(self._input_cells)
        if len(args) > n:
            raise TypeError(f"function takes {n} input{'s' * (n != 1)} "
                            f"({', '.join(map(str, self.fgraph.inputs))}), got {len(args)}")
        values: list = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            if key not in self._positions:
                known = ", ".join(k for k in self.input_names if k) or "none"
                raise TypeError(f"unknown input name {key!r}; named inputs are: {known}")
            i = self._positions[key]
            if values[i] is not _MISSING:
                raise TypeError(f"input {key!r} given twice (by position and by name)")
            values[i] = value
        missing = [str(self.fgraph.inputs[i]) for i, v in enumerate(values) if v is _MISSING]
        if missing:
            raise TypeError(f"missing value for input{'s' * (len(missing) > 1)}: "
                            f"{', '.join(missing)}")
        return values

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = self._arguments(args, kwargs) if kwargs or len(args) != len(
            self._input_cells) else args
        inputs = self.fgraph.inputs
        bindings: dict[str, int] = {}
        origins: dict[str, str] = {}
        for i, (var, value, c) in enumerate(zip(inputs, values, self._input_cells,
                                                 strict=True)):
            if not self.trust_input:
                try:
                    value = var.type.filter(value, allow_downcast=self.allow_input_downcast)
                except (TypeError, ValueError) as exc:
                    text = str(exc).replace("pass allow_downcast=True",
                                            "compile with allow_input_downcast=True")
                    raise TypeError(f"bad value for input {i} ({var}): {text}") from None
            c[0] = value
        if self._symbolic_inputs:
            typed = [(inputs[i].type, np.shape(self._input_cells[i][0]),
                      f"input {i} ({inputs[i]})") for i in self._symbolic_inputs]
            for ttype, shape, where in typed:
                bind_dims(ttype, shape, bindings, origins, where)
            solve_dims(typed, bindings, origins)
            for ttype, shape, where in typed:
                check_dim_expressions(ttype, shape, bindings, where)
        if self.check:
            self._run_checked(bindings, origins)
        else:
            for node, perform, in_cells, out_cells in self._thunks:
                perform(node, [c[0] for c in in_cells], out_cells)
        outs = [c[0] for c in self._output_cells]
        return outs[0] if self.unpack_single else outs

    def _run_checked(self, bindings: dict[str, int], origins: dict[str, str]) -> None:
        for node, perform, in_cells, out_cells in self._thunks:
            values = [c[0] for c in in_cells]
            node.op.check_inputs(node, values)
            perform(node, values, out_cells)
            for i, (var, c) in enumerate(zip(node.outputs, out_cells, strict=True)):
                check_value(var.type, c[0], bindings, origins, f"output {i} of {node.op}")


_MISSING = object()


def function(inputs: Sequence[Variable], outputs: Variable | Sequence[Variable],
             allow_input_downcast: bool | None = None, trust_input: bool = False,
             check: bool = False) -> Function:
    """Compile ``outputs`` as a function of ``inputs`` for the NumPy backend.

    Every call checks each input against its type (dtype, rank, static sizes) and binds
    its symbolic sizes: a Dim named twice must have one size, and an axis typed by an
    expression (``2*n``) must have a length some size ``n >= 0`` gives.
    ``trust_input=True`` skips the per-input checks and conversions: values are used as
    given, and a value that does not fit its type gives NumPy's error or a wrong result,
    never a kantensor one, except that symbolic sizes are still bound (a wrong rank is
    then a TypeError). ``check=True`` also verifies every node's outputs against their
    inferred types (dtype, static sizes, named Dims and Dim expressions) and raises
    OutputTypeError at the first that does not match.
    """
    return Function(inputs, outputs, allow_input_downcast=allow_input_downcast,
                    trust_input=trust_input, check=check)

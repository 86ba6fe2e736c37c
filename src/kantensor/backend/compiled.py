"""Compile a graph into a callable (see linker.py for how it runs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.basic import Constant, Variable
from ..graph.fgraph import FunctionGraph
from .backends import backend_named, register_backend
from .display import function_html
from .linker import NOT_GIVEN, link
from .memory import MemoryReport, actions, peak_bytes
from .mode import current, execution


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

    def __reduce__(self) -> tuple:
        """Pickled as its graph and options; unpickling compiles it again (the generated
        code is not pickled). Unpickling runs what the pickle names, as ``pickle`` does:
        load only pickles you trust."""
        return _unpickle, (self.fgraph, self.input_names, self.unpack_single,
                           self.allow_input_downcast, self.trust_input, self.check)

    def _repr_html_(self) -> str:
        return function_html(self)

    def __repr__(self) -> str:
        """``Function(x: float32[n,3], W: float32[3,4] -> float32[n,4])``."""
        ins = ", ".join(f"{n}: {t}" if n else str(t) for n, t in
                        zip(self.input_names, self.signature.inputs, strict=True))
        return f"Function({ins} -> {', '.join(map(str, self.signature.outputs))})"

    def _build(self) -> None:
        self._n_inputs = len(self.fgraph.inputs)
        self.execution = current()
        run, is_method = link(self.fgraph, trust_input=self.trust_input,
                              allow_input_downcast=self.allow_input_downcast,
                              check=self.check, unpack_single=self.unpack_single)
        if is_method:
            # Python finds __call__ on the class: a class of its own for this Function
            # lets f(a, b) enter the generated code with no frame in between.
            self.__class__ = type("Function", (Function,), {
                "__call__": run, "__module__": __name__, "__qualname__": "Function",
                "__doc__": Function.__doc__})
        else:
            self._run = run
        #: The memory plan of the generated code or the interpreter (see
        #: kantensor.backend.plan), or None.
        self.plan = getattr(run, "plan", None)

    def memory(self, *shapes: Sequence[int]) -> MemoryReport:
        """The memory plan at work on inputs of ``shapes`` (one per input, in order):
        one call on zero-filled arrays of those shapes, and one of the plain
        interpreter, their peaks measured (see :class:`~.memory.MemoryReport`)."""
        if len(shapes) != self._n_inputs:
            raise TypeError(f"memory() takes one shape per input ({self._n_inputs}), "
                            f"got {len(shapes)}")
        shapes = tuple(_shape(i, v, s) for i, (v, s) in enumerate(zip(
            self.fgraph.inputs, shapes, strict=True)))
        values = [np.zeros(s, getattr(v.type, "numpy_dtype", None))
                  for s, v in zip(shapes, self.fgraph.inputs, strict=True)]
        with execution(generate=False, plan=False):
            plain = Function(self.fgraph.inputs, self.fgraph.outputs,
                             allow_input_downcast=self.allow_input_downcast,
                             trust_input=self.trust_input)
        planned = self.plan is not None and any(
            v.size >= self.plan.min_size for v in values if v.ndim)
        return MemoryReport(shapes, peak_bytes(self, values), peak_bytes(plain, values),
                            planned, actions(self.plan, self.fgraph.toposort()))

    def _arguments(self, args: tuple, kwargs: dict) -> list:
        n = self._n_inputs
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
        if kwargs or len(args) != self._n_inputs:
            args = self._arguments(args, kwargs)
        return self._run(*args)

    def _call_slow(self, given: tuple, more: tuple, named: dict) -> Any:
        """A call by name or with a wrong number of arguments (generated __call__):
        ``given`` holds the first parameters, up to the first one not given."""
        args = tuple(v for v in given if v is not NOT_GIVEN) + more
        return self(*self._arguments(args, named))


_MISSING = object()


def _unpickle(fgraph: FunctionGraph, input_names: list, unpack_single: bool,
              allow_input_downcast: bool | None, trust_input: bool, check: bool) -> Function:
    """A Function of an unpickled graph, compiled again."""
    f = Function.__new__(Function)
    f.fgraph, f.input_names, f.unpack_single = fgraph, input_names, unpack_single
    f.allow_input_downcast, f.trust_input, f.check = allow_input_downcast, trust_input, check
    f.signature = FunctionSignature(tuple(v.type for v in fgraph.inputs),
                                    tuple(v.type for v in fgraph.outputs))
    f._positions = {n: i for i, n in enumerate(input_names) if n is not None}
    f._build()
    return f


register_backend("numpy", Function, options=("trust_input", "check"))
register_backend("dask", "kantensor.backend.dask:DaskFunction",
                 options=("allow_rechunk", "max_task_bytes", "compute_chunk_sizes"),
                 extra="dask")


def function(inputs: Sequence[Variable], outputs: Variable | Sequence[Variable],
             allow_input_downcast: bool | None = None, *, backend: str = "numpy",
             **options: Any) -> Any:
    """Compile ``outputs`` as a function of ``inputs`` for ``backend`` (NumPy by default).

    Every call checks each input against its type (dtype, rank, static sizes) and binds
    its symbolic sizes: a Dim named twice must have one size, and an axis typed by an
    expression (``2*n``) must have a length some size ``n >= 0`` gives.

    The NumPy backend's options: ``trust_input=True`` skips the per-input checks and
    conversions: values are used as given, and a value that does not fit its type gives
    NumPy's error or a wrong result, never a kantensor one, except that symbolic sizes
    are still bound (a wrong rank is then a TypeError). ``check=True`` also verifies
    every node's outputs against their inferred types (dtype, static sizes, named Dims
    and Dim expressions) and raises OutputTypeError at the first that does not match.

    ``backend="dask"`` (the ``dask`` extra) returns a Function that takes Dask arrays
    (or NumPy arrays and ``chunks=``) and returns Dask arrays without computing them;
    its options are ``allow_rechunk``, ``max_task_bytes`` and ``compute_chunk_sizes``
    (``docs/dask.rst``). Other backends are those registered with
    :func:`register_backend`.
    """
    found = backend_named(backend, options)
    return found.compiler()(inputs, outputs, allow_input_downcast=allow_input_downcast,
                            **options)


def _shape(i: int, v: Any, given: Any) -> tuple[int, ...]:
    """Input ``i``'s shape for :meth:`Function.memory`: a sequence of ints >= 0; an array
    (NumPy's, Dask's) or anything else is a TypeError saying what was given and what is
    expected (a shape, such as ``a.shape``)."""
    ok = isinstance(given, tuple | list) and all(
        isinstance(n, int | np.integer) and not isinstance(n, bool) and n >= 0
        for n in given)
    if not ok:
        what = f"{type(given).__module__}.{type(given).__qualname__}" + (
            f" of shape {given.shape}" if hasattr(given, "shape") else f" {given!r}"[:60])
        raise TypeError(f"memory() takes one shape per input (a tuple of ints >= 0, such "
                        f"as a.shape); input {i} ({v}) got {what}")
    return tuple(int(n) for n in given)

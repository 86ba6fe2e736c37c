"""Turn a FunctionGraph into the Python function that runs it.

A graph of up to :data:`CODEGEN_LIMIT` nodes becomes one generated function of
straight-line code: each node's kernel is called directly on local variables,
inputs are cast only where their static dtype differs from the one the kernel
computes in, and an output is cast only where NumPy's own result dtype could differ
from the inferred one (both decided here, once). Larger graphs, and ``check=True``,
run on an interpreter over a list of slots made per call. Either way every call has
its own storage, so one Function may be called from many threads at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..graph.fgraph import FunctionGraph
from ..types.basic_ops import cast_array
from ..types.type import TensorType
from .checks import bind_dims, check_dim_expressions, check_value

#: Graphs with more nodes run on the interpreter: compiling generated code costs
#: tens of microseconds per node, and more for very long functions.
CODEGEN_LIMIT = 1000

Run = Callable[..., Any]


def link(fgraph: FunctionGraph, *, trust_input: bool, allow_input_downcast: bool | None,
         check: bool, unpack_single: bool) -> tuple[Run, bool]:
    """``(run, is_method)``: ``run`` filters the input values (unless ``trust_input``),
    binds named Dims, computes, and returns the output (or the list of outputs). The
    interpreter's ``run(*values)`` is a plain function; generated code is a method
    ``run(self, *values)`` to become the Function's ``__call__``."""
    filters = [input_filter(i, v, allow_input_downcast) for i, v in enumerate(fgraph.inputs)]
    dims = dims_checker(fgraph.inputs)
    nodes = fgraph.toposort()
    if len(nodes) > CODEGEN_LIMIT:
        return interpreter(fgraph, nodes, None if trust_input else filters, dims, check,
                           unpack_single), False
    return generate(fgraph, nodes, None if trust_input else filters, dims, check,
                    unpack_single), True


def input_filter(i: int, var: Variable, allow_downcast: bool | None) -> Callable[[Any], Any]:
    """``var.type.filter`` with errors that say which input and how to compile."""
    def filter_input(value: Any) -> Any:
        try:
            return var.type.filter(value, allow_downcast=allow_downcast)
        except (TypeError, ValueError) as exc:
            text = str(exc).replace("pass allow_downcast=True",
                                    "compile with allow_input_downcast=True")
            raise TypeError(f"bad value for input {i} ({var}): {text}") from None
    return filter_input


Dims = Callable[[Sequence[Any]], tuple[dict[str, int], dict[str, str]]]


def dims_checker(inputs: Sequence[Variable]) -> Dims | None:
    """A function binding the named Dims of the inputs' types to the values' sizes and
    checking Dim expressions (``2*n``); None when no input type has a Dim."""
    symbolic = [(i, v.type, f"input {i} ({v})") for i, v in enumerate(inputs)
                if isinstance(v.type, TensorType)
                and any(not isinstance(s, int | None) for s in v.type.shape)]
    if not symbolic:
        return None

    def dims(values: Sequence[Any]) -> tuple[dict[str, int], dict[str, str]]:
        bindings: dict[str, int] = {}
        origins: dict[str, str] = {}
        for i, ttype, where in symbolic:
            bind_dims(ttype, values[i].shape, bindings, origins, where)
        for i, ttype, where in symbolic:
            check_dim_expressions(ttype, values[i].shape, bindings, where)
        return bindings, origins
    return dims


def interpreter(fgraph: FunctionGraph, nodes: list[Apply], filters: list | None,
                dims: Dims | None, check: bool, unpack_single: bool) -> Run:
    """Run each node's ``perform`` over a list of slots made per call; with ``check``,
    ``check_inputs`` first and every output checked against its type."""
    slots: dict[Variable, int] = {}
    template: list[Any] = []

    def slot(v: Variable) -> int:
        if v not in slots:
            slots[v] = len(template)
            template.append(v.data if isinstance(v, Constant) else None)
        return slots[v]

    in_slots = [slot(v) for v in fgraph.inputs]
    steps = [(node, node.op.perform, [slot(v) for v in node.inputs],
              [(slot(v), v.type, j) for j, v in enumerate(node.outputs)]) for node in nodes]
    out_slots = [slot(v) for v in fgraph.outputs]

    def run(*values: Any) -> Any:
        if filters is not None:
            values = [f(x) for f, x in zip(filters, values, strict=True)]
        bindings, origins = dims(values) if dims is not None else ({}, {})
        s = list(template)
        for i, x in zip(in_slots, values, strict=True):
            s[i] = x
        for node, perform, ins, outs in steps:
            args = [s[i] for i in ins]
            cells: list[list] = [[None] for _ in outs]
            if check:
                node.op.check_inputs(node, args)
            perform(node, args, cells)
            for (o, ttype, j), cell in zip(outs, cells, strict=True):
                s[o] = cell[0]
                if check:
                    check_value(ttype, cell[0], bindings, origins, f"output {j} of {node.op}")
        return s[out_slots[0]] if unpack_single else [s[i] for i in out_slots]
    return run


class _Source:
    """The text and the namespace of a generated function."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {"ND": np.ndarray, "cast": cast_array}
        self.names: dict[Variable, str] = {}
        #: Variables whose values surely have their type's dtype (filtered inputs,
        #: constants, cast kernel outputs): a cast to that dtype is left out.
        self.exact: set[Variable] = set()

    def glob(self, prefix: str, value: Any) -> str:
        name = f"{prefix}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def ref(self, v: Variable) -> str:
        if v not in self.names:
            if not isinstance(v, Constant):
                raise ValueError(f"{v} is used before it is computed")
            self.names[v] = self.glob("c", v.data)
            self.exact.add(v)
        return self.names[v]

    def local(self, v: Variable) -> str:
        name = self.names[v] = f"v{len(self.names)}"
        return name


def generate(fgraph: FunctionGraph, nodes: list[Apply], filters: list | None,
             dims: Dims | None, check: bool, unpack_single: bool) -> Run:
    """One Python method of straight-line code for the whole graph:
    ``__call__(self, v0, v1, ...)``, the values of the inputs in order. With
    ``check``, each node's ``check_inputs`` runs first and its outputs are checked
    against their types (which also checks every cast this module leaves out)."""
    src = _Source()
    params = [src.local(v) for v in fgraph.inputs]
    body = src.lines
    for i, v in enumerate(fgraph.inputs):
        if filters is None:  # trust_input: the caller promises values of the types
            src.exact.add(v)
            continue
        fast = _fast_input_test(src, params[i], v.type)
        f = src.glob("f", filters[i])
        body.append(f"if {fast}: {params[i]} = {f}({params[i]})" if fast
                    else f"{params[i]} = {f}({params[i]})")
        if fast:
            src.exact.add(v)
    bound = "bindings, origins = " if check else ""
    if dims is not None:
        body.append(f"{bound}{src.glob('dims', dims)}(({', '.join(params)},))")
    elif check:
        body.append(f"{bound}{{}}, {{}}")
    for node in nodes:
        if check:
            body.append(f"{src.glob('ci', node.op.check_inputs)}({src.glob('n', node)}, "
                        f"[{', '.join(src.ref(v) for v in node.inputs)}])")
        kernel = node.op.kernel(node)
        if kernel is None:
            _emit_perform(src, node)
        else:
            _emit_kernel(src, node, kernel)
        if check:
            for j, v in enumerate(node.outputs):
                body.append(f"{src.glob('check', check_value)}({src.glob('T', v.type)}, "
                            f"{src.ref(v)}, bindings, origins, "
                            f"{f'output {j} of {node.op}'!r})")
    outs = [src.ref(v) for v in fgraph.outputs]
    body.append(f"return {outs[0]}" if unpack_single else f"return [{', '.join(outs)}]")
    # A method: ``f(a, b)`` enters this code directly (Function.specialise); a call by
    # name or with the wrong number of arguments goes through self._call_slow.
    src.namespace["M"] = NOT_GIVEN
    # Positional-only, so that a keyword (even "v0") lands in ``named``; when the last
    # input is given, all are.
    head = ["if more or named" + (f" or {params[-1]} is M" if params else "") + ":",
            f"    return self._call_slow(({''.join(f'{p}, ' for p in params)}), more, named)"]
    signature = "".join(f"{p}=M, " for p in params) + "/, "
    text = f"def __call__(self, {signature}*more, **named):\n" + "".join(
        f"    {line}\n" for line in head + body)
    exec(compile(text, "<kantensor function>", "exec"), src.namespace)  # noqa: S102
    call = src.namespace["__call__"]
    call.source = text
    return call


#: The default of the generated ``__call__``'s parameters: the input was not given.
NOT_GIVEN = object()


def _fast_input_test(src: _Source, name: str, ttype: Any) -> str | None:
    """A condition true unless ``name`` needs the full filter: not an ndarray of exactly
    the type's dtype, rank and static sizes. None for types other than TensorType."""
    if not isinstance(ttype, TensorType):
        return None
    dtype = src.glob("D", ttype.numpy_dtype)
    tests = [f"{name}.__class__ is not ND", f"{name}.dtype is not {dtype}",
             f"{name}.ndim != {ttype.ndim}"]
    tests += [f"{name}.shape[{axis}] != {size}" for axis, size in ttype._static]
    return " or ".join(tests)


def _emit_perform(src: _Source, node: Apply) -> None:
    """Call ``perform`` with cells of its own (an Op without a kernel)."""
    args = ", ".join(src.ref(v) for v in node.inputs)
    cells = f"cells{len(src.names)}"  # a local: each call has its own
    src.lines.append(f"{cells} = [{', '.join(['[None]'] * len(node.outputs))}]")
    src.lines.append(f"{src.glob('p', node.op.perform)}({src.glob('n', node)}, [{args}], "
                     f"{cells})")
    for j, v in enumerate(node.outputs):
        src.lines.append(f"{src.local(v)} = {cells}[{j}][0]")


def _emit_kernel(src: _Source, node: Apply, kernel: Any) -> None:
    args = []
    runtime_dtypes: list[np.dtype | None] = []  # what each argument surely is
    for v, dtype in zip(node.inputs, kernel.casts, strict=True):
        known = v in src.exact or isinstance(v, Constant)
        if dtype is None or (known and v.type.dtype == dtype):
            args.append(src.ref(v))
            runtime_dtypes.append(v.type.numpy_dtype if known else None)
        elif isinstance(v, Constant):  # cast once, now
            args.append(src.glob("c", _read_only(cast_array(v.data, dtype))))
            runtime_dtypes.append(np.dtype(dtype))
        else:
            args.append(f"cast({src.ref(v)}, {dtype!r})")
            runtime_dtypes.append(np.dtype(dtype))
    fn = src.glob("k", kernel.fn)
    if kernel.kwargs:
        args.append(f"**{src.glob('kw', dict(kernel.kwargs))}")
    call = f"{fn}({', '.join(args)})"
    outs = [src.local(v) for v in node.outputs]
    src.lines.append(f"{outs[0]} = {call}" if len(outs) == 1
                     else f"{', '.join(outs)}, = {call}")
    exact = len(outs) == 1 and not kernel.kwargs and _ufunc_gives(
        kernel.fn, runtime_dtypes, node.outputs[0].type)
    for name, v in zip(outs, node.outputs, strict=True):
        src.exact.add(v)
        if not exact:
            dtype = src.glob("D", v.type.numpy_dtype)
            src.lines.append(f"if {name}.__class__ is not ND or {name}.dtype is not {dtype}: "
                             f"{name} = cast({name}, {v.type.dtype!r})")


def _ufunc_gives(fn: Any, dtypes: list[np.dtype | None], out: Any) -> bool:
    """Whether NumPy's ufunc ``fn`` surely returns an ndarray of ``out``'s dtype for
    arguments of ``dtypes`` (its type resolution says so, and the result has axes)."""
    # (not ``None in dtypes``: a dtype compares equal to None, NumPy's default float64)
    if not isinstance(fn, np.ufunc) or fn.nout != 1 or out.ndim == 0 \
            or len(dtypes) != fn.nin or any(d is None for d in dtypes):
        return False
    try:
        resolved = fn.resolve_dtypes((*dtypes, None))
    except (TypeError, ValueError):
        return False
    return resolved[-1] == out.numpy_dtype


def _read_only(value: np.ndarray) -> np.ndarray:
    value.setflags(write=False)
    return value

"""Turn a FunctionGraph into the Python function that runs it.

A graph of up to :data:`CODEGEN_LIMIT` nodes becomes one generated function of
straight-line code: each node's kernel is called directly on local variables,
inputs are cast only where their static dtype differs from the one the kernel
computes in, and an output is cast only where NumPy's own result dtype could differ
from the inferred one (both decided here, once); ``check=True`` adds each node's
checks around it; unless ``check``, a second body follows the memory plan
(:mod:`.plan`) for calls on large arrays. Larger graphs, and every graph under
``execution(generate=False)`` (:mod:`.mode`: the one switch of the generated code), run
on the interpreter over a list of slots made per call, following the same plan (without
block runs) unless ``check`` or ``plan=False``; with no plan it is the plain interpreter,
the reference the tests compare the other ways with. Either way every call has its own
storage, so one Function may be called from many threads at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..graph import codegen
from ..graph.basic import Apply, Constant, Variable
from ..graph.fgraph import FunctionGraph
from ..graph.progress import Progress
from ..ops.sizes import SizeOp
from ..types.basic_ops import cast_array
from ..types.dim import Dim
from ..types.symbols import free_symbols
from ..types.type import TensorType
from .calls import CAST, CONST, Call, plan_call
from .checks import (
    bind_dims,
    check_dim_expressions,
    checked_perform,
    node_error,
    size_value,
    solve_dims,
)
from .mode import Execution, current
from .plan import REDUCTIONS, make_plan, reduced_axes
from .planned import emit_planned
from .source import Source, emit_node, fast_input_test

#: Graphs with more nodes run on the interpreter: compiling generated code costs
#: tens of microseconds per node, and more for very long functions.
CODEGEN_LIMIT = 1000

Run = Callable[..., Any]


def link(fgraph: FunctionGraph, *, trust_input: bool, allow_input_downcast: bool | None,
         check: bool, unpack_single: bool) -> tuple[Run, bool]:
    """``(run, is_method)``: ``run`` filters the input values (unless ``trust_input``),
    binds named Dims, computes, and returns the output (or the list of outputs). The
    interpreter's ``run(*values)`` is a plain function; generated code is a method
    ``run(self, *values)`` to become the Function's ``__call__``; either has its memory
    plan as ``run.plan`` (None without one). The switches of
    :func:`~kantensor.backend.mode.current` decide (``generate=False``: the interpreter;
    ``plan=False``: no plan; ``check=True`` has none)."""
    filters = [input_filter(i, v, allow_input_downcast) for i, v in enumerate(fgraph.inputs)]
    dims = dims_checker(fgraph.inputs)
    nodes = fgraph.toposort()
    check_sizes(fgraph, nodes)
    sizes = {node: partial(size_value, node.op.size, _users(fgraph, node)) for node in nodes
             if isinstance(node.op, SizeOp)}
    settings = current()
    if len(nodes) > CODEGEN_LIMIT or not settings.generate or not codegen.enabled():
        return interpreter(fgraph, nodes, None if trust_input else filters, dims, sizes,
                           check, unpack_single, planned=settings.plan and not check), False
    return generate(fgraph, nodes, None if trust_input else filters, dims, sizes, check,
                    unpack_single, None if check or not settings.plan else settings), True


def compiling(nodes: list[Apply]) -> Iterator[Apply]:
    """The nodes, with a progress line on a terminal while a big graph compiles."""
    with Progress("compiling: nodes", total=len(nodes)) as progress:
        for node in nodes:
            yield node
            progress.step()


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


def check_sizes(fgraph: FunctionGraph, nodes: list[Apply]) -> None:
    """Every size a parameter takes (a SizeOp, see :mod:`kantensor.ops.sizes`) must be
    made of sizes the inputs' types name, for its value is bound from their shapes
    when the function is called: else a ValueError naming the size and the node."""
    known: set[str] = set()
    for v in fgraph.inputs:
        if isinstance(v.type, TensorType):
            for entry in v.type.shape:
                if isinstance(entry, Dim):
                    known |= free_symbols(entry)
    for node in nodes:
        if not isinstance(node.op, SizeOp):
            continue
        missing = sorted(free_symbols(node.op.size) - known)
        if missing:
            users = _users(fgraph, node)
            inputs = ", ".join(f"{v}: {v.type}" for v in fgraph.inputs) or "none"
            raise ValueError(f"{users} takes the size {', '.join(missing)} as a parameter, "
                             f"but no input of the function has a size "
                             f"{', '.join(missing)} to bind it when called (inputs: "
                             f"{inputs}); add an input whose type has it, or pass an int")


def dims_checker(inputs: Sequence[Variable]) -> Dims | None:
    """A function binding the named Dims of the inputs' types to the values' sizes and
    checking Dim expressions (``2*n``); None when no input type has a Dim."""
    symbolic = [(i, v.type, f"input {i} ({v})") for i, v in enumerate(inputs)
                if isinstance(v.type, TensorType)
                and any(not isinstance(s, int | None) for s in v.type.shape)]
    return DimsChecker(tuple(symbolic)) if symbolic else None


class DimsChecker:
    """Binds the named Dims of some inputs' types to the sizes of values: called with
    every input's value (or anything with a ``shape``), returns ``(bindings, origins)``.
    A class, not a closure, so that a Function holding one pickles."""

    __slots__ = ("symbolic",)

    def __init__(self, symbolic: tuple[tuple[int, TensorType, str], ...]):
        #: ``(input position, its type, "input i (name)")`` of each input with a Dim
        self.symbolic = symbolic

    def __getstate__(self) -> tuple:
        return self.symbolic

    def __setstate__(self, state: tuple) -> None:
        self.symbolic = state

    def __call__(self, values: Sequence[Any]) -> tuple[dict[str, int], dict[str, str]]:
        bindings: dict[str, int] = {}
        origins: dict[str, str] = {}
        typed = [(ttype, np.shape(values[i]), where) for i, ttype, where in self.symbolic]
        for ttype, shape, where in typed:
            bind_dims(ttype, shape, bindings, origins, where)
        solve_dims(typed, bindings, origins)  # Dims seen only inside expressions (2*n)
        for ttype, shape, where in typed:
            check_dim_expressions(ttype, shape, bindings, where)
        return bindings, origins


def _users(fgraph: FunctionGraph, node: Apply) -> str:
    """The Ops that take the output of ``node`` (a SizeOp) as an input, for messages."""
    return ", ".join(sorted({str(c.op) for c, _ in fgraph.clients[node.outputs[0]]
                             if c != "output"})) or str(node.op)


def interpreter(fgraph: FunctionGraph, nodes: list[Apply], filters: list | None,
                dims: Dims | None, sizes: dict[Apply, Callable[..., Any]], check: bool,
                unpack_single: bool, planned: bool = False) -> Run:
    """Run the nodes over a list of slots made per call: kernels called as
    :func:`plan_call` decides, other Ops' ``perform``; with ``check``, every node's
    ``perform`` after its ``check_inputs``, and every output checked against its type.
    ``planned``: the memory plan (:mod:`.plan`, no block runs) at any size: each slot
    emptied after its value's last use, a result written into the plan's buffer when
    the operands' shapes show it fits."""
    slots: dict[Variable, int] = {}
    template: list[Any] = []

    def slot(v: Variable) -> int:
        if v not in slots:
            slots[v] = len(template)
            template.append(v.data if isinstance(v, Constant) else None)
        return slots[v]

    def fixed(value: Any) -> int:
        template.append(value)
        return len(template) - 1

    in_slots = [slot(v) for v in fgraph.inputs]
    # filtered, or promised by trust_input
    exact = {v for v in fgraph.inputs if isinstance(v.type, TensorType)}
    constants: dict[tuple, np.ndarray] = {}
    steps = []
    calls: dict[Apply, Call | None] = {}
    for node in compiling(nodes):
        outs = [(slot(v), v.type, j) for j, v in enumerate(node.outputs)]
        calls[node] = None
        if node in sizes:
            steps.append((SIZE, sizes[node], [], (), outs, node))
            continue
        kernel = None if check else node.op.kernel(node)
        if kernel is None:
            steps.append((None, node, [slot(v) for v in node.inputs], (), outs, node))
            continue
        call = calls[node] = plan_call(node, kernel, exact, constants)
        ins = [fixed(a[1]) if a[0] is CONST else slot(a[1]) for a in call.args]
        casts = tuple((j, a[2]) for j, a in enumerate(call.args) if a[0] is CAST)
        guards = [(o, t.numpy_dtype if call.guard else None, t.dtype) for o, t, _ in outs]
        steps.append((call.fn, call.kwargs, ins, casts, guards, node))
    out_slots = [slot(v) for v in fgraph.outputs]
    copies = [_copied(v, fgraph) for v in fgraph.outputs]  # never the caller's array
    # per step: the slot its result is written into (or None) and the slots emptied after
    memory: list[tuple[int | None, tuple[int, ...]]] = [(None, ())] * len(steps)
    plan = make_plan(fgraph.inputs, fgraph.outputs, nodes, calls, blocks=False) \
        if planned else None
    if plan is not None:
        memory = [(slots[plan.target[n]] if n in plan.target else None,
                   tuple(slots[v] for v in free)) for n, free in zip(nodes, plan.release,
                                                                   strict=True)]

    def run(*values: Any) -> Any:
        if filters is not None:
            values = [f(x) for f, x in zip(filters, values, strict=True)]
        bindings, origins = dims(values) if dims is not None else ({}, {})
        s = list(template)
        for i, x in zip(in_slots, values, strict=True):
            s[i] = x
        for (fn, how, ins, casts, outs, node), (into, free) in zip(steps, memory,
                                                                   strict=True):
            args = [s[i] for i in ins]
            try:
                if into is not None and _fits(fn, args, s[into], how):
                    s[outs[0][0]] = fn(*args, s[into]) if isinstance(fn, np.ufunc) \
                        else fn(*args, **how, out=s[into])
                else:
                    _step(fn, how, args, casts, outs, check, s, bindings, origins)
            except Exception as exc:
                raise node_error(node, args, exc, bindings, origins) from exc
            for i in free:
                s[i] = None
        outs = [np.array(s[i]) if copy else s[i] for i, copy in zip(out_slots, copies,
                                                                    strict=True)]
        return outs[0] if unpack_single else outs
    run.plan = None if plan is None or plan.empty else plan  # type: ignore[attr-defined]
    return run


def _fits(fn: Any, args: list, buffer: np.ndarray, how: dict) -> bool:
    """Whether the result of ``fn`` on ``args`` may go into ``buffer`` (as in the
    generated code, see planned.py): every operand with axes other than the buffer has
    its shape, or a tail of it (broadcast); a matrix product's rows and columns, into a
    C-contiguous buffer; a reduction's shape, from a C-contiguous operand into a
    C-contiguous buffer of its dtype."""
    if fn in REDUCTIONS:
        a = args[0]
        return a.flags.c_contiguous and buffer.flags.c_contiguous \
            and a.dtype is buffer.dtype and buffer.shape == tuple(
                1 if k is None else a.shape[k] for k in reduced_axes(a.ndim, how))
    if fn is np.matmul:
        return (args[0].shape[0], args[1].shape[1]) == buffer.shape \
            and buffer.flags.c_contiguous
    n = buffer.ndim
    return all(a is buffer or not a.ndim or a.shape == buffer.shape[n - a.ndim:]
               for a in args)


def _step(fn: Any, how: Any, args: list, casts: tuple, outs: list, check: bool, s: list,
          bindings: dict, origins: dict) -> None:
    """One node of the interpreter: ``perform`` (``how`` is the node), a size parameter's
    value (``fn`` is SIZE, ``how`` makes it) or a kernel call (``how`` holds its keyword
    arguments); its outputs go to their slots of ``s``."""
    if fn is SIZE:
        s[outs[0][0]] = how(bindings, origins)
        return
    if fn is None:
        if check:
            for (o, _, _), value in zip(outs, checked_perform(how, args, bindings, origins),
                                        strict=True):
                s[o] = value
            return
        cells: list[list] = [[None] for _ in outs]
        how.op.perform(how, args, cells)
        for (o, _, _), cell in zip(outs, cells, strict=True):
            s[o] = cell[0]
        return
    for j, dtype in casts:
        args[j] = cast_array(args[j], dtype)
    result = fn(*args, **how)
    for (o, np_dtype, dtype), value in zip(outs, (result,) if len(outs) == 1 else result,
                                           strict=True):
        if np_dtype is not None and (value.__class__ is not np.ndarray
                                     or value.dtype is not np_dtype):
            value = cast_array(value, dtype)
        s[o] = value


def generate(fgraph: FunctionGraph, nodes: list[Apply], filters: list | None,
             dims: Dims | None, sizes: dict[Apply, Callable[..., Any]], check: bool,
             unpack_single: bool, settings: Execution | None = None) -> Run:
    """One Python method of straight-line code for the whole graph:
    ``__call__(self, v0, v1, ...)``, the values of the inputs in order. With
    ``check``, each node's ``check_inputs`` runs first and its outputs are checked
    against their types (which also checks every cast this module leaves out). With
    ``settings``, a second body follows the memory plan (:mod:`~kantensor.backend.plan`),
    taken when an input has at least ``settings.plan_min_size`` elements."""
    src = Source()
    params = [src.local(v) for v in fgraph.inputs]
    body = src.lines
    for i, v in enumerate(fgraph.inputs):
        if filters is None:  # trust_input: the caller promises values of the types
            src.exact.add(v)
            continue
        fast = fast_input_test(src, params[i], v.type)
        f = src.glob("f", filters[i])
        body.append(f"if {fast}: {params[i]} = {f}({params[i]})" if fast
                    else f"{params[i]} = {f}({params[i]})")
        if fast:
            src.exact.add(v)
    bound = "bindings, origins = " if check or sizes else ""
    if dims is not None:
        body.append(f"{bound}{src.glob('dims', dims)}(({', '.join(params)},))")
    elif check:
        body.append(f"{bound}{{}}, {{}}")
    first_node_line = len(body)
    calls: dict[Apply, Call | None] = {}
    for node in compiling(nodes):  # in order: a call's casts depend on the calls before
        kernel = None if node in sizes else node.op.kernel(node)
        calls[node] = None if kernel is None else plan_call(node, kernel, src.exact,
                                                            src.constants)
    for node in nodes:
        if check and node not in sizes:
            outs = [src.local(v) for v in node.outputs]
            body.append(f"{', '.join(outs)}, = {src.glob('checked', checked_perform)}("
                        f"{src.glob('n', node)}, [{', '.join(src.ref(v) for v in node.inputs)}]"
                        ", bindings, origins)")
        else:
            emit_node(src, node, calls[node], sizes)
    plan = None
    big = _big_test(fgraph.inputs, params, settings, filters is not None) \
        if settings is not None else None
    if big is not None:
        plan = make_plan(fgraph.inputs, fgraph.outputs, nodes, calls, blocks=True)
        plan.min_size = settings.plan_min_size
        if plan.empty:
            plan = None
    planned = None if plan is None else emit_planned(src, plan, calls, sizes, settings)
    planned_text = ""
    outs = [f"{src.glob('copy', np.array)}({src.ref(v)})" if _copied(v, fgraph)
            else src.ref(v) for v in fgraph.outputs]
    returned = f"return {outs[0]}" if unpack_single else f"return [{', '.join(outs)}]"
    if planned is not None:
        # The planned body is a function of its own, called when an input is big: its
        # closures' cells are then made only there, not on every small call.
        known = [*params, *(["bindings", "origins"] if bound else [])]
        planned_text = f"def planned({', '.join(known)}):\n" + "".join(
            f"    {line}\n" for line in [*planned, returned])
        run_planned = src.glob("planned", codegen.define(planned_text, "planned",
                                                         src.namespace))
        body.insert(first_node_line, f"if {big}:")
        body.insert(first_node_line + 1, f"    return {run_planned}({', '.join(known)})")
    body.append(returned)
    # An error in a node is restated naming the node (found by re-running the graph
    # node by node): a try block costs nothing until something raises.
    locate = src.glob("locate", _locator(fgraph, nodes, dims, sizes, unpack_single))
    body[first_node_line:] = ["try:", *(f"    {line}" for line in body[first_node_line:]),
                              "except Exception as exc:",
                              f"    raise {locate}(exc, ({''.join(f'{p}, ' for p in params)}))"
                              " from exc"]
    # A method: ``f(a, b)`` enters this code directly (see Function._build); a call by
    # name or with the wrong number of arguments goes through self._call_slow.
    src.namespace["M"] = NOT_GIVEN
    # Positional-only, so that a keyword (even "v0") lands in ``named``; when the last
    # input is given, all are.
    head = ["if more or named" + (f" or {params[-1]} is M" if params else "") + ":",
            f"    return self._call_slow(({''.join(f'{p}, ' for p in params)}), more, named)"]
    signature = "".join(f"{p}=M, " for p in params) + "/, "
    text = f"def __call__(self, {signature}*more, **named):\n" + "".join(
        f"    {line}\n" for line in head + body)
    call = codegen.define(text, "__call__", src.namespace)
    call.source = text + (f"\n{planned_text}" if planned_text else "")
    call.plan = plan
    return call


def _copied(v: Variable, fgraph: FunctionGraph) -> bool:
    """Whether output ``v`` is returned as a copy: an input array (never the caller's)."""
    return any(v is x for x in fgraph.inputs) and isinstance(v.type, TensorType)


def _big_test(inputs: list[Variable], params: list[str], settings: Execution,
              filtered: bool) -> str | None:
    """The condition under which the planned body runs: some input array has at least
    ``plan_min_size`` elements (None: no input has axes). A filtered input of axes is
    a plain ndarray by then; a trusted one is tested for it (a subclass runs plain)."""
    n = settings.plan_min_size
    tests = [f"{p}.size >= {n}" if filtered else f"({p}.__class__ is ND and {p}.size >= {n})"
             for v, p in zip(inputs, params, strict=True)
             if isinstance(v.type, TensorType) and v.type.ndim >= 1]
    return " or ".join(tests) or None


def _locator(fgraph: FunctionGraph, nodes: list[Apply], dims: Dims | None,
             sizes: dict[Apply, Callable[..., Any]], unpack_single: bool
             ) -> Callable[[Exception, tuple], Exception]:
    """``locate(exc, values)``: the error of the first node that fails on ``values``
    (see :func:`~kantensor.backend.checks.node_error`), or ``exc`` if none does."""
    runner: list[Run] = []

    def locate(exc: Exception, values: tuple) -> Exception:
        if node_error(nodes[0], [], exc) is exc if nodes else True:
            return exc  # already names its node: a check's own error
        if not runner:
            runner.append(interpreter(fgraph, nodes, None, dims, sizes, False,
                                      unpack_single))
        try:
            runner[0](*values)
        except Exception as located:  # the node's own error, restated
            return located
        return exc
    return locate


#: The interpreter's mark of a step that makes a size parameter's value.
SIZE = object()

#: The default of the generated ``__call__``'s parameters: the input was not given.
NOT_GIVEN = object()

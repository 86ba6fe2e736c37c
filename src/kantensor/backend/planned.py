"""The code of a Function's memory plan (see plan.py): the nodes with their ``out=``
buffers and releases, and block runs as loops over blocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Apply, Variable
from .calls import CONST, Call
from .mode import Execution
from .plan import REDUCTIONS, Plan, reduced_axes
from .plan import Run as PlanRun
from .source import Source, emit_node, kernel_args
from .workers import run_blocks


def emit_planned(src: Source, plan: Plan, calls: dict[Apply, Call | None],
                 sizes: dict[Apply, Callable[..., Any]], settings: Execution) -> list[str]:
    """The lines of the planned body (the names of the plain body's values)."""
    saved, src.lines = src.lines, []
    lines = src.lines
    runs = {run.start: run for run in plan.runs}
    i = 0
    while i < len(plan.nodes):
        run = runs.get(i)
        if run is None:
            _emit_planned_node(src, plan, i, calls, sizes)
            i += 1
            continue
        src.lines = []  # the same nodes one by one: when the blocks do not apply
        for j in range(run.start, run.stop):
            _emit_planned_node(src, plan, j, calls, sizes)
        fallback, src.lines = src.lines, lines
        _emit_run(src, plan, run, calls, settings, fallback)
        i = run.stop
    src.lines = saved
    return lines


def _emit_planned_node(src: Source, plan: Plan, i: int, calls: dict[Apply, Call | None],
                       sizes: dict[Apply, Callable[..., Any]]) -> None:
    node = plan.nodes[i]
    target = plan.target.get(node)
    if target is None:
        emit_node(src, node, calls[node], sizes)
    else:
        call = calls[node]
        text = f"{src.glob('k', call.fn)}({', '.join(kernel_args(src, call))}"
        out, buffer = src.local(node.outputs[0]), src.ref(target)
        fits = _fits_test(src, call, target, node.outputs[0].type.ndim)
        # the buffer as a ufunc's positional ``out``: no keyword to parse per call
        into = f"{text}, {buffer})" if isinstance(call.fn, np.ufunc) \
            else f"{text}, out={buffer})"
        src.lines.append(f"{out} = {into} if {fits} else {text})" if fits
                         else f"{out} = {into}")
        if call.guard:  # (a reduction's new array has its dtype: the test never holds)
            dtype = src.glob("D", node.outputs[0].type.numpy_dtype)
            src.lines.append(f"if {out}.dtype is not {dtype}: "
                             f"{out} = cast({out}, {node.outputs[0].type.dtype!r})")
    if plan.release[i]:
        src.lines.append(f"del {', '.join(src.ref(v) for v in plan.release[i])}")


def _fits_test(src: Source, call: Call, target: Variable, ndim: int) -> str:
    """A condition true when the result of ``call`` has the shape of ``target``'s value:
    every other operand with axes has that shape, or a tail of it (broadcast); for a
    matrix product, the rows of the first and the columns of the second, and the buffer
    C-contiguous."""
    buffer = src.ref(target)
    if call.fn in REDUCTIONS:
        operand = src.ref(call.args[0][1])
        shape = "".join("1, " if k is None else f"{operand}.shape[{k}], "
                        for k in reduced_axes(call.args[0][1].type.ndim, call.kwargs))
        shape = f"({shape})"
        return (f"{operand}.flags.c_contiguous and {buffer}.flags.c_contiguous and "
                f"{buffer}.shape == {shape} and {operand}.dtype is {buffer}.dtype")
    if call.fn is np.matmul:
        a, b = (repr(arg[1].shape) if arg[0] is CONST else f"{src.ref(arg[1])}.shape"
                for arg in call.args)
        return (f"{a}[0] == {buffer}.shape[0] and {b}[1] == {buffer}.shape[1] and "
                f"{buffer}.flags.c_contiguous")
    tests = []
    for arg in call.args:
        if arg[0] is CONST:
            name, d = repr(arg[1].shape), arg[1].ndim
        elif arg[1] is target:
            continue
        else:
            name, d = f"{src.ref(arg[1])}.shape", arg[1].type.ndim
        if d:
            tests.append(f"{name} == {buffer}.shape" if d == ndim
                         else f"{name} == {buffer}.shape[{ndim - d}:]")
    return " and ".join(tests)


def _emit_run(src: Source, plan: Plan, run: PlanRun, calls: dict[Apply, Call | None],
              settings: Execution, fallback: list[str]) -> None:
    """A block run: block by block (by up to ``settings.threads`` threads) when its
    outer operands are C-contiguous arrays of one shape holding more than one block,
    else ``fallback``."""
    nodes = plan.nodes[run.start:run.stop]
    widest = max(np.dtype(v.type.numpy_dtype).itemsize
                 for v in [*run.outer, *(n.outputs[0] for n in nodes)])
    size = max(1, settings.block_bytes // widest)
    tag = len(src.namespace)
    first = src.ref(run.outer[0])
    tests = [f"{first}.__class__ is ND", f"{first}.flags.c_contiguous", f"{first}.size > {size}"]
    for v in run.outer[1:]:
        name = src.ref(v)
        tests += [f"{name}.__class__ is ND", f"{name}.flags.c_contiguous",
                  f"{name}.shape == {first}.shape"]
    empty = src.glob("E", np.empty)
    n, i, j = f"n{tag}", f"i{tag}", f"j{tag}"
    body = [f"{n} = {first}.size"]
    names: dict[Variable, str] = {}
    loop = [f"if {i} >= {n}:", "    break", f"{j} = {i} + {size}", f"if {j} > {n}:",
            f"    {j} = {n}"]
    temporaries = []
    for v in run.outer:
        name = src.ref(v)
        body.append(f"{name}_f = {name}.reshape(-1)")
        loop.append(f"{name}_b = {name}_f[{i}:{j}]")
        names[v] = f"{name}_b"
        temporaries.append(f"{name}_f")
    for v in run.escaping:
        name = src.ref(v)
        body += [f"{name} = {empty}({first}.shape, {src.glob('D', v.type.numpy_dtype)})",
                 f"{name}_f = {name}.reshape(-1)"]
        loop.append(f"{name}_b = {name}_f[{i}:{j}]")
        names[v] = f"{name}_b"
        temporaries.append(f"{name}_f")
    # the blocks, taken one by one from ``starts`` (shared by the threads of the run,
    # see workers.py), each thread with block buffers of its own
    buffers = [f"t{tag}_{s}" for s in range(len(run.buffers))]
    part = [f"def part{tag}(starts):"]
    for buffer, dtype in zip(buffers, run.buffers, strict=True):
        part.append(f"    {buffer} = {empty}({size}, {src.glob('D', dtype)})")
        loop.insert(5, f"    {buffer} = {buffer}[:{n} - {i}]")
    names.update((v, buffers[s]) for v, s in run.slots.items())
    for node in nodes:
        call = calls[node]
        loop.append(f"{src.glob('k', call.fn)}({', '.join(kernel_args(src, call, names))}, "
                    f"{names[node.outputs[0]]})")
    part += [f"    for {i} in starts:", *(f"        {line}" for line in loop)]
    body += part + [f"{src.glob('blocks', run_blocks)}(part{tag}, {n}, {size}, "
                    f"{settings.threads})"]
    dead = [src.ref(v) for k in range(run.start, run.stop) for v in plan.release[k]
            if v not in run.slots]
    body.append(f"del {', '.join([*temporaries, f'part{tag}', *dead])}")
    src.lines += [f"if {' and '.join(tests)}:", *(f"    {line}" for line in body),
                  "else:", *(f"    {line}" for line in fallback)]

"""The memory plan of a compiled graph, made once when it is compiled.

* Every intermediate is released after its last use (a graph output never is).
* A matrix product (NumPy's ``matmul`` of two matrices) writes its result into a
  buffer that died at the node just before it, on the same terms (never in place).
* So does a reduction (sum, prod, max, min over some axes of a float array: see
  :func:`reduction`), whose result is a new array of its operand's dtype.
* A node that is a NumPy ufunc computing elementwise (one output, no keyword
  arguments, no cast when called, a result dtype NumPy's type resolution proves)
  writes its result into a buffer that died: an input that dies at this node (in
  place) or one that died at the node just before it, of the same dtype and rank
  (the sizes are compared when called). A buffer that may be written is one a ufunc
  made in this call: never the caller's arrays, a constant, a graph output, nor a
  buffer while any value that may view it (the result of any Op other than a ufunc or
  such a reduction is taken to view all its inputs) is still to be used.
* Consecutive elementwise nodes of one rank whose other operands have that rank or
  none form a *block run*: when called on C-contiguous operands of one shape, the run
  is evaluated block by block (the operands read per block, its values that are used
  only inside it kept in a few block-sized buffers), so each array is read or written
  once; otherwise the same nodes run as above.

Values never depend on the plan: each node calls the same NumPy function on the same
values (a ufunc's result does not depend on where it is written, NumPy handles
operands that overlap the output; complex results, for which it does, are left out:
see :func:`elementwise`). The tests compare the planned code with the plain
interpreter byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..types.dtypes import dtype_info
from ..types.type import TensorType
from .calls import CAST, CONST, REF, Call

#: The index of a graph output's last use: never released.
NEVER = 1 << 62


@dataclass
class Run:
    """A block run: ``nodes[start:stop]`` of the graph's order, of rank ``ndim``."""

    start: int
    stop: int
    ndim: int
    #: External operands of rank ``ndim`` (read per block; the first gives the shape).
    outer: list[Variable] = field(default_factory=list)
    #: Values made in the run and used after it or returned: written per block into
    #: arrays of the full size.
    escaping: list[Variable] = field(default_factory=list)
    #: Values used only inside the run: their block buffer (an index of ``buffers``).
    slots: dict[Variable, int] = field(default_factory=dict)
    buffers: list[np.dtype] = field(default_factory=list)


@dataclass
class Plan:
    """What a Function's planned code does (see the module's text)."""

    nodes: list[Apply]
    #: The node's result goes into this Variable's buffer (``out=``).
    target: dict[Apply, Variable] = field(default_factory=dict)
    #: After node ``i``: the Variables released.
    release: list[list[Variable]] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    #: The plan is followed by calls where an input has at least this many elements.
    min_size: int = 0

    @property
    def empty(self) -> bool:
        return not (self.target or self.runs or any(self.release))

    def action(self, i: int) -> str:
        """What the plan does at node ``i``, in words."""
        node = self.nodes[i]
        for r, run in enumerate(self.runs):
            if run.start <= i < run.stop:
                out = node.outputs[0]
                where = "into a block buffer" if out in run.slots else "into its array"
                return f"block run {r} ({where})"
        if node in self.target:
            t = self.target[node]
            own = any(t is x for x in node.inputs)
            return f"in place of {t}" if own else f"into the dead buffer of {t}"
        return ""


def owned(call: Call | None, node: Apply) -> bool:
    """Whether ``node``'s one output is a new array of its type's exact dtype made by a
    ufunc (a buffer this call owns)."""
    return (call is not None and isinstance(call.fn, np.ufunc) and call.fn.nout == 1
            and len(node.outputs) == 1 and not call.kwargs and not call.guard
            and node.outputs[0].type.ndim >= 1)


def elementwise(call: Call | None, node: Apply) -> bool:
    """Whether ``node`` is :func:`owned` and computes elementwise with no cast when
    called (so its result may be written into a buffer, or by blocks). Not for complex
    results: NumPy's complex ``multiply`` and ``square`` give another value at overflow
    (nan+infj for -inf+infj) when they write over an operand of one element."""
    return (owned(call, node) and call.fn.signature is None
            and node.outputs[0].type.numpy_dtype.kind != "c"
            and all(a[0] is not CAST for a in call.args))


def matrix_product(call: Call | None, node: Apply) -> bool:
    """Whether ``node`` is :func:`owned` and NumPy's ``matmul`` of two matrices: its
    result may be written into a dead buffer that is not one of its operands (C-contiguous,
    of the result's shape, checked when called), which NumPy computes as it computes a new
    array (the same BLAS call, or the same loop)."""
    return (owned(call, node) and call.fn is np.matmul
            and all((a[1].ndim if a[0] is CONST else a[1].type.ndim) == 2 for a in call.args))


#: NumPy's reductions whose ``out=`` gives what a new array would hold (see
#: :func:`reduction`).
REDUCTIONS = (np.sum, np.prod, np.max, np.min)


def reduction(call: Call | None, node: Apply) -> bool:
    """Whether ``node`` is one of :data:`REDUCTIONS` over some axes of one array whose
    dtype NumPy reduces into a given buffer as into a new one (the dtype table's
    ``reduces_into``: float32, float64), giving its dtype (no ``dtype`` or
    ``initial``), with axes left: its result is a new array, which may go into a dead
    buffer that is not its operand (its operand and the buffer C-contiguous and of one
    dtype, the buffer of the result's shape, checked when called: NumPy then reduces in
    the order it would for a new array)."""
    return (call is not None and call.fn in REDUCTIONS and len(call.args) == 1
            and call.args[0][0] is REF and len(node.outputs) == 1
            and call.kwargs.get("dtype") is None and call.kwargs.get("initial") is None
            and isinstance(call.kwargs.get("axis"), tuple)
            and node.outputs[0].type.ndim >= 1
            and node.inputs[0].type.dtype == node.outputs[0].type.dtype
            and dtype_info(node.outputs[0].type.dtype).reduces_into)


def reduced_axes(ndim: int, kwargs: dict) -> list[int | None]:
    """Per axis of a reduction's result, the operand's axis of that length (None: 1)."""
    axes, keep = kwargs["axis"], kwargs.get("keepdims", False)
    return [None if k in axes else k for k in range(ndim) if keep or k not in axes]


def make_plan(fgraph_inputs: list[Variable], outputs: list[Variable], nodes: list[Apply],
              calls: dict[Apply, Call | None], blocks: bool) -> Plan:
    """The plan for ``nodes`` (in the order they run); ``calls`` gives each node's kernel
    call (None: ``perform`` or a size parameter). ``blocks``: whether to form runs."""
    last: dict[Variable, int] = {}
    for i, node in enumerate(nodes):
        for v in node.inputs:
            last[v] = i
    for v in outputs:
        last[v] = NEVER
    # A buffer's death: the last use of any value that may share its memory. A ufunc's
    # (or reduction's) result shares only its own; anything else may view its inputs,
    # so a value's death is the latest of its own last use and its viewers' deaths
    # (one sweep from the last node back: linear, however long a chain of views).
    reductions = {node for node in nodes if reduction(calls[node], node)}
    death: dict[Variable, int] = {}
    for i, node in enumerate(nodes):
        for v in node.outputs:
            death[v] = last.get(v, i)
    for node in reversed(nodes):
        call = calls[node]
        if (call is not None and isinstance(call.fn, np.ufunc)) or node in reductions:
            continue
        end = max((death[v] for v in node.outputs), default=-1)
        for v in node.inputs:
            if v in death:
                death[v] = max(death[v], end)
    # A buffer that may be written: a result of an elementwise node, dead when its own
    # last use is its root's (no view of it outlives it).
    ok = {node for node in nodes if elementwise(calls[node], node)}
    products = {node for node in nodes if matrix_product(calls[node], node)}
    holders = {node.outputs[0] for node in nodes
               if owned(calls[node], node) or node in reductions}

    def dies_at(v: Variable, i: int) -> bool:
        return v in holders and last.get(v, -1) == i and death[v] == i

    plan = Plan(nodes, release=[[] for _ in nodes])
    if blocks:
        plan.runs = _runs(nodes, calls, ok, last)
    in_run = {i for run in plan.runs for i in range(run.start, run.stop)}
    previous: list[Variable] = []  # buffers that died at the node before, kept for this one
    for i, node in enumerate(nodes):
        pool, previous = previous, []
        target = None
        if node in ok:
            out = node.outputs[0].type
            fits = [v for v in node.inputs if dies_at(v, i) and _fits(v, out)]
            if not fits and i not in in_run:
                fits = [v for v in pool if _fits(v, out)]
            if fits:
                target = plan.target[node] = fits[0]
        elif node in products or node in reductions:  # never in place: into a buffer
            # that died just before
            fits = [v for v in pool if _fits(v, node.outputs[0].type)]
            if fits:
                target = plan.target[node] = fits[0]
        for v in pool:  # not taken: released before this node
            plan.release[i if v is target else i - 1].append(v)
        for v in dict.fromkeys(node.inputs):
            if last.get(v) != i or v.owner is None or isinstance(v, Constant):
                continue  # not dead here, or the caller's, or a constant
            if v is not target and dies_at(v, i) and i + 1 < len(nodes) \
                    and not ({i, i + 1} & in_run):
                previous.append(v)  # perhaps the next node's buffer
            else:
                plan.release[i].append(v)
        plan.release[i].extend(v for v in node.outputs if v not in last)  # never used
    return plan


def _fits(v: Variable, out: TensorType) -> bool:
    """Whether ``v``'s buffer may hold a value of type ``out``: same dtype and rank, and
    no static size that differs (the sizes are compared when called)."""
    t = v.type
    return isinstance(t, TensorType) and t.ndim == out.ndim and t.dtype == out.dtype \
        and not any(isinstance(a, int) and isinstance(b, int) and a != b
                    for a, b in zip(t.shape, out.shape, strict=True))


def _runs(nodes: list[Apply], calls: dict[Apply, Call | None], ok: set[Apply],
          last: dict[Variable, int]) -> list[Run]:
    runs: list[Run] = []
    run: Run | None = None
    made: set[Variable] = set()

    def close() -> None:
        if run is not None and run.stop - run.start >= 2:
            _finish(run, nodes, last)
            if run.slots:
                runs.append(run)

    for i, node in enumerate(nodes):
        k = node.outputs[0].type.ndim if node in ok else -1
        fits = node in ok and all(_operand_fits(a, k, made if run and run.ndim == k else ())
                                  for a in calls[node].args)
        if fits and run is not None and run.ndim == k and run.stop == i:
            run.stop = i + 1
        else:
            close()
            run, made = (Run(i, i + 1, k), set()) if fits else (None, set())
        if run is not None:
            made.add(node.outputs[0])
    close()
    return runs


def _operand_fits(arg: tuple, ndim: int, made: set | tuple) -> bool:
    if arg[0] is CONST:
        return arg[1].ndim == 0
    v = arg[1]
    return v in made or (isinstance(v.type, TensorType) and v.type.ndim in (0, ndim))


def _finish(run: Run, nodes: list[Apply], last: dict[Variable, int]) -> None:
    """The run's outer operands, escaping values and block buffers."""
    made: set[Variable] = set()
    free: list[int] = []
    for i in range(run.start, run.stop):
        node = nodes[i]
        for v in node.inputs:
            if v not in made and v.type.ndim == run.ndim and \
                    not any(v is o for o in run.outer):
                run.outer.append(v)
        for v in dict.fromkeys(node.inputs):  # buffers whose value dies here
            if v in run.slots and last[v] == i:
                free.append(run.slots[v])
        out = node.outputs[0]
        made.add(out)
        if last.get(out, -1) >= run.stop:
            run.escaping.append(out)
            continue
        dtype = out.type.numpy_dtype
        slot = next((s for s in reversed(free) if run.buffers[s] == dtype), None)
        if slot is None:
            run.buffers.append(dtype)
            slot = len(run.buffers) - 1
        else:
            free.remove(slot)
        run.slots[out] = slot

"""The state of one ``eval_shape`` call, per thread, and how writing into arrays works.

NumPy code writes into arrays (``x[i] = v``, ``x += y``, ``np.add.at(x, i, v)``,
``out=x``); a graph only computes new values. During a trace, such a write makes a
functional update node (``setitem``, ``index_add``, ...), and the Python object ``x``,
which the user's code holds and goes on using, is *rebound* to it: from then on ``x`` is
the output of the update, while every node built before the write, which read the old
value, is given a new Variable standing for that old value. To find those nodes, the
trace records the consumers of every value while it runs (through
:data:`kantensor.graph.basic.NEW_NODE`, set only while some thread traces).

Only values the trace made (or its inputs) can be rebound: the consumers of anything
else are not known.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from ..graph import basic
from ..graph.basic import Apply, Constant, Variable
from ..graph.hooks import Hook
from ..types import dimorder
from ..types.protocol import REBIND
from .located import Locator, Site

_LOCAL = threading.local()
_LOCK = threading.Lock()
_ACTIVE = [0]  # how many traces run, in all threads


class Trace:
    """What one ``eval_shape`` call knows: the consumers of each value, the values it
    made, its inputs, the Variables now standing for inputs that were written into, and
    the user's line that built each node (:class:`~.located.Site`)."""

    def __init__(self, inputs: tuple[Variable, ...], locator: Locator):
        self.clients: dict[Variable, list[Apply]] = {}
        self.made: set[Variable] = set(inputs)
        self.moved: dict[Variable, Variable] = {}
        self.written: set[Variable] = set()  # written into: arrays (see .scalars)
        self.locator = locator
        self.sites: dict[Apply, Site | None] = {}
        self.names: dict[Variable, str] = {x: x.name for x in inputs if x.name}
        self._last: tuple[Apply, Any] | None = None  # (node, the user's frame)
        self.notes: dict[Any, str] = {}  # node, variable or Dim -> why a size is unknown
        self.inputs = inputs
        self.path: Any = None  # the answers to comparisons of sizes (see .branches)
        #: The aranges made of ``range`` of sizes, by value: (start, stop, step), so that
        #: iterating one gives the range's ints (see .loops.rows).
        self.ranges: dict[Variable, tuple[Any, Any, int]] = {}
        #: Those of them that are NumPy's ``np.arange``: its rows are ``np.int64``.
        self.numpy_ranges: set[Variable] = set()

    def record(self, node: Apply) -> None:
        for v in node.inputs:
            self.clients.setdefault(v, []).append(node)
        self.made.update(node.outputs)
        facts = getattr(self.path, "facts", None)
        if not node.inputs and facts:  # made of nothing (a size parameter's input of
            # np.zeros(n - 2)): its sizes meet what the inputs' do (the given facts, the
            # case's answers), so the Ops built on it are built under them, as on an input
            for out in node.outputs:
                out.facts = facts if out.facts is None else out.facts.union(facts)
        self.name_operands()
        frame = self.locator.frame(sys._getframe(1))
        if frame is None:
            self.sites[node] = None
            return
        code = frame.f_code
        self.sites[node] = Site(code.co_filename, frame.f_lineno, code.co_name)
        self._last = (node, frame)

    def name_operands(self) -> None:
        """Name the operands of the node recorded last, if it has conditions (set once
        the node is made, so looked at here, at the next node or at the end), as the
        user's frame that built it calls them (``h`` in ``h @ w``): by identity, so a
        name rebound meanwhile names nothing."""
        last, self._last = self._last, None
        if last is None or not last[0].conditions:
            return
        operands = {id(v) for v in last[0].inputs}
        for name, value in last[1].f_locals.items():
            if id(value) in operands and isinstance(value, Variable):
                self.names.setdefault(value, name)

    def rebind(self, x: Variable, build: Callable[[], Any]) -> None:
        """Make ``x`` the value ``build()`` (see the module's doc)."""
        if isinstance(x, Constant) or x not in self.made:
            raise TypeError(f"cannot write into {x}: only arrays the traced function makes or "
                            "takes can be written into during eval_shape (the value's other "
                            "users are not known); use y = x.at[i].set(v)")
        new = build()
        if new is x:
            return
        if not isinstance(new, Variable) or new.owner is None:
            raise TypeError(f"writing into {x} gave {new!r}, not a computed tensor")
        _check_shape(x, new)
        old = type(x)(x.type, x.owner, x.index, x.name)
        if x.owner is not None:
            x.owner.outputs[x.index] = old
        else:
            self.moved[x] = old
        readers = self.clients.pop(x, [])
        for node in readers:  # they read the old value
            node.inputs = [old if v is x else v for v in node.inputs]
        self.clients[old] = readers
        self.made.add(old)
        node, index = new.owner, new.index
        node.outputs[index] = x
        x.owner, x.index, x.type = node, index, new.type
        self.clients[x] = self.clients.pop(new, [])
        self.made.discard(new)
        self.written.add(x)

    def input(self, x: Variable) -> Variable:
        """The Variable that is graph input ``x`` after the writes."""
        return self.moved.get(x, x)


def _check_shape(x: Variable, new: Variable) -> None:
    a, b = x.type.shape, new.type.shape
    if len(a) != len(b) or any(isinstance(p, int) and isinstance(q, int) and p != q
                               for p, q in zip(a, b, strict=True)):
        raise ValueError(f"cannot write a value of type {new.type} into {x.type} (NumPy: "
                         "non-broadcastable output operand)")


def current() -> Trace | None:
    """The trace this thread runs, if any."""
    return getattr(_LOCAL, "trace", None)


def _record(node: Apply) -> None:
    trace = getattr(_LOCAL, "trace", None)
    if trace is not None:
        trace.record(node)


def _rebind(x: Any, build: Callable[[], Any]) -> bool:
    trace = getattr(_LOCAL, "trace", None)
    if trace is None:
        return False
    trace.rebind(x, build)
    return True


ANSWER: Hook[Callable[..., Any]] = Hook(
    "size_answers", "kantensor.evalshape.branches",
    "answer(op, a, b): the answer to a traced program's comparisons of sizes, installed "
    "as the compare_sizes hook while some thread traces")

REBIND.set(_rebind)


class tracing:  # noqa: N801 - a context manager used as a statement
    """``with tracing(trace):`` this thread runs ``trace`` (nested traces restore the
    outer one); the node and comparison hooks are set while any thread traces."""

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self) -> Trace:
        self.outer = current()
        with _LOCK:
            _ACTIVE[0] += 1
            basic.NEW_NODE.set(_record)
            dimorder.COMPARE.set(ANSWER.fn)
        _LOCAL.trace = self.trace
        return self.trace

    def __exit__(self, *exc: object) -> None:
        _LOCAL.trace = self.outer
        with _LOCK:
            _ACTIVE[0] -= 1
            if not _ACTIVE[0]:
                basic.NEW_NODE.set(None)
                dimorder.COMPARE.set(None)

"""A Python loop over ``range`` of a size, ``for x in range(filter_w):``, turn by turn.

``range(n)`` of a size is ``kt.arange(n)`` during ``eval_shape`` (an index, an array),
and a tensor of symbolic length cannot be iterated. Where the traced code iterates the
range at once (a ``for`` loop or a comprehension: the call is followed by ``GET_ITER``),
it gets Python's ints instead, each turn asking whether there is one more (``n > k``) as
a branch on sizes does (:mod:`.branches`): one case per number of turns, each turn's
value a known int (or a size, from a size ``start``), as NumPy's loop has. Past
:data:`MAX_TURNS` turns the run stops: that case is not covered (the result assumes
``n <= 16``, marked as a choice, ``Source.otherwise``: past it NumPy may run, which
no case says), so that a loop of any length ends; each case is typed exactly.

The same holds wherever the traced code iterates a tensor whose first size is a size
(:func:`rows`: ``for i, row in enumerate(x)``, ``zip(x, y)``, ``list(x)``: row ``k`` is
``x[k]``) or a ``range`` of sizes that was not iterated at once (``list(range(n))``,
``zip(range(n), x)``, ``enumerate(range(n))``, ``reversed(range(n))``: the ``arange``
:func:`marked` as that range turns by turn, each value an int, as Python's range gives).

A loop over a second size inside a loop over a first, both undecided (``for i in
range(A): for j in range(B):``), would make a case of each pair of turn counts: more
than :data:`~.branches.MAX_CASES`, each traced again from the start. Where the inner
loop's first undecided turn opens such a size, the trace stops there with
:class:`BranchError`, the refusal the cases would end in. And the runs of one call
turn such loops at most :data:`MAX_LOOP_TURNS` times in all (:class:`Budget`): a deeper
nest over one size is that error too, at the turn past it, so that any nest ends soon.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Iterator
from types import CodeType
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.conditions import Condition, Source
from ..types.dim import Dim
from ..types.dimorder import asked
from ..types.symbols import free_symbols
from ..types.variable import ROWS
from .located import Site
from .trace import current

#: Most turns of a loop over ``range`` of a size that a case runs.
MAX_TURNS = 16
#: Most turns of loops over sizes that the runs of one :func:`~.branches.explore` take in
#: all (a nest of ``d`` loops over one size turns up to ``16**d`` times in a run, and
#: each case runs it again: three deep, 20,146 turns in all, typed; four deep, refused).
MAX_LOOP_TURNS = 32768


class BranchError(TypeError):
    """A program whose branches on sizes cannot be split into cases (too many, or a
    loop whose number of turns is a symbolic size)."""


class Budget:
    """The turns the runs of one :func:`~.branches.explore` took of loops over sizes:
    past :data:`MAX_LOOP_TURNS`, the trace stops (module docstring)."""

    def __init__(self) -> None:
        self.taken = 0


class _Loop:
    """A loop under way: the sizes its range names, and whether a turn of it asked a
    comparison its case's facts did not decide (then its number of turns is open)."""

    def __init__(self, sizes: frozenset[Any]):
        self.sizes = sizes
        self.open = False

#: By code object: the offsets of its calls whose result is iterated at once (each
#: call's own and its inline caches': a frame's ``f_lasti`` may be either).
_ITERATED: dict[CodeType, frozenset[int]] = {}


def _iterated_calls(code: CodeType) -> frozenset[int]:
    found = _ITERATED.get(code)
    if found is None:
        ins = list(dis.get_instructions(code))
        found = _ITERATED[code] = frozenset(
            k for a, b in zip(ins, ins[1:], strict=False)
            if a.opname.startswith("CALL") and b.opname == "GET_ITER"
            for k in range(a.offset, b.offset, 2))
    return found


def iterated() -> bool:
    """Whether the traced code's call being answered (its innermost line's) has its
    result iterated at once (``for x in range(n)``, ``[f(k) for k in range(n)]``)."""
    trace = current()
    if trace is None:
        return False
    frame = trace.locator.frame(sys._getframe(1))
    return frame is not None and frame.f_lasti in _iterated_calls(frame.f_code)


def turns(start: Any, stop: Any, step: int = 1) -> Iterator[Any]:
    """Python's ``range(start, stop, step)`` of sizes, turn by turn (module docstring);
    ``step`` a nonzero int."""
    path = getattr(current(), "path", None)
    loop = _Loop(frozenset().union(*(free_symbols(v) for v in (start, stop)
                                     if isinstance(v, Dim))))
    if path is not None:
        path.loops.append(loop)
    try:
        yield from _turns(start, stop, step, path, loop)
    finally:
        if path is not None and loop in path.loops:
            path.loops.remove(loop)


def _turns(start: Any, stop: Any, step: int, path: Any, loop: _Loop) -> Iterator[Any]:
    value, done = start, 0
    while True:
        asked_before = None if path is None else len(path.choices)
        if isinstance(stop, Dim):  # (asked as the user reads it: n > 2)
            more = asked(">" if step > 0 else "<", stop, value)
        elif isinstance(value, Dim):
            more = asked("<" if step > 0 else ">", value, stop)
        else:
            more = value < stop if step > 0 else value > stop
        if more is NotImplemented:
            raise TypeError(f"range({start}, {stop}, {step}): symbolic sizes compared "
                            "outside a traced program")
        if asked_before is not None and len(path.choices) > asked_before:
            _nested(path, loop, start, stop, step)
        if not more:
            return
        if done == MAX_TURNS:
            raise _limit(start, stop, step, value, TypeError(
                f"a loop over range({start}, {stop}, {step}) turns more than {MAX_TURNS} "
                f"times here: eval_shape types each number of turns up to {MAX_TURNS} as a "
                "case; give that size as an int"))
        if path is not None:
            _spend(path, start, stop, step)
        yield value
        value, done = value + step, done + 1


def _spend(path: Any, start: Any, stop: Any, step: int) -> None:
    """One more turn of the runs' loops over sizes: past :data:`MAX_LOOP_TURNS` in all,
    the trace stops with :class:`BranchError` naming this loop and its line."""
    path.budget.taken += 1
    if path.budget.taken > MAX_LOOP_TURNS:
        at = _at_line()
        raise path.stop(BranchError(
            f"more than {MAX_LOOP_TURNS} turns of loops over sizes in all the runs, the "
            f"last of range({start}, {stop}, {step}){at}: eval_shape types each number of "
            "turns as a case, and a nest of loops over a size turns its size to the power "
            "of its depth in each; give that size as an int"))


def marked(x: Variable, start: Any, stop: Any, step: int, numpy: bool = False) -> Variable:
    """``x``, the ``arange`` of ``range(start, stop, step)`` of sizes, noted on the trace
    so that iterating it later (:func:`rows`) gives the range's ints turn by turn (of
    ``np.arange`` if ``numpy``: ``np.int64`` where a value is an int, as NumPy's rows)."""
    trace = current()
    if trace is not None:
        trace.ranges[x] = (start, stop, step)
        if numpy:
            trace.numpy_ranges.add(x)
    return x


def _length(start: Any, stop: Any, step: int) -> Any:
    """``len(range(start, stop, step))`` where it is positive (else <= 0)."""
    if step in (1, -1):
        return (stop - start) * step
    return (stop - start + step - 1) // step if step > 0 else \
        (start - stop - step - 1) // -step


def reversed_range(x: Variable) -> Iterator[Any] | None:
    """``reversed(range(...))`` of a :func:`marked` range, turn by turn (its values from
    the last, sizes where the range's bounds are); None otherwise."""
    trace = current()
    found = None if trace is None else trace.ranges.get(x)
    if found is None or x in trace.numpy_ranges:
        return None
    start, stop, step = found
    if step in (1, -1):
        return turns(stop - step, start - step, -step)
    last = _length(start, stop, step) - 1
    return (start + step * (last - k) for k in turns(0, last + 1))


def rows(x: Variable) -> Iterator[Any] | None:
    """The :data:`~kantensor.types.variable.ROWS` hook: ``iter(x)`` where the traced
    code (not kantensor's) iterates it: a :func:`marked` range's ints (even where the
    case's facts make its length an int), else, where its first size is a size, ``x[0],
    x[1], ...``, turn by turn (module docstring); None elsewhere (then
    ``Variable.__iter__`` answers as outside a trace)."""
    trace = current()
    if getattr(trace, "path", None) is None:
        return None
    caller = sys._getframe(2)  # (rows <- Variable.__iter__ <- the iterating code)
    if caller is None or trace.locator.library(caller):
        return None
    found = range_turns(x)
    if found is None:
        found = _sliced(x, trace)
    if found is None and isinstance(x.type.shape[0], int):
        return None  # (rows of a known count: Variable.__iter__'s own)
    return _indexed(x, turns(0, x.shape[0])) if found is None else found


def range_turns(x: Any) -> Iterator[Any] | None:
    """The ints of the :func:`marked` range ``x`` is, turn by turn; None if it is none."""
    trace = current()
    found = None if trace is None or not isinstance(x, Variable) else trace.ranges.get(x)
    if found is None:
        return None
    if x not in trace.numpy_ranges:
        return turns(*found)
    return (np.int64(v) if isinstance(v, int) else x[k]
            for k, v in enumerate(turns(*found)))


def _sliced(x: Variable, trace: Any) -> Iterator[Any] | None:
    """The ints of ``r[a:b:c]`` of a :func:`marked` Python range ``r`` (``a``, ``b`` ints
    >= 0 or None, ``c`` an int > 0 or None: the slice of a range is a range), turn by
    turn; None for any other ``x``."""
    node = x.owner
    if node is None or getattr(node.op, "name", "") != "getitem" or len(node.inputs) != 1:
        return None
    base = node.inputs[0]
    found = trace.ranges.get(base)
    index = dict(getattr(node.op, "params", ())).get("index")
    if found is None or base in trace.numpy_ranges or not isinstance(index, tuple) or \
            len(index) != 1 or not isinstance(index[0], tuple) or index[0][:1] != ("slice",):
        return None
    _, a, b, c = index[0]
    if not all(v is None or type(v) is int and v >= 0 for v in (a, b, c)) or c == 0:
        return None
    start, _, step = found
    return _stepped(start, step, _length(*found), a or 0, b, c or 1)


def _stepped(start: Any, step: int, length: Any, a: int, b: int | None, c: int
             ) -> Iterator[Any]:
    """``start + step*i`` for ``i`` in ``range(a, min(length, b), c)``, turn by turn."""
    for i in turns(a, length, c):
        if b is not None and i >= b:
            return
        yield start + step * i


def _indexed(x: Variable, ks: Iterator[Any]) -> Iterator[Any]:
    for k in ks:
        yield x[k]


ROWS.set(rows)


def _site(trace: Any) -> Site | None:
    """The user's line the loop is at (the innermost user frame out of this module)."""
    frame = trace.locator.frame(sys._getframe(2))
    return None if frame is None else Site(frame.f_code.co_filename, frame.f_lineno,
                                           frame.f_code.co_name)


def _at_line() -> str:
    """`` at FILE:LINE: SOURCE`` of the user's line the trace is at (empty if none), for a
    refusal's message."""
    site = _site(current())
    return "" if site is None else f" at {site.filename}:{site.lineno}: {site.source}"


def _nested(path: Any, loop: _Loop, start: Any, stop: Any, step: int) -> None:
    """``loop``'s turn asked an undecided comparison: it is open; inside an open loop
    over other sizes the cases would multiply (module docstring), so the trace stops."""
    loop.open = True
    outer = [x for x in path.loops[:path.loops.index(loop)] if x.open]
    if outer and not loop.sizes <= frozenset().union(*(x.sizes for x in outer)):
        at = _at_line()
        raise path.stop(BranchError(
            f"a loop over range({start}, {stop}, {step}){at} inside a loop over range of "
            f"{', '.join(sorted(map(str, outer[-1].sizes)))} (or zipped with it): eval_shape "
            "types each number of turns as a case, and the two sizes' turns multiply the "
            "cases; give one of those sizes as an int"))


def _limit(start: Any, stop: Any, step: int, value: Any, error: Exception) -> Exception:
    """Note on the run's path that it stops typing at this loop's turn ``value`` (with
    ``error``, returned: the run is refused even where the code catches it): the
    condition that the loop ends by then, an overload's choice as it were
    (``Source.otherwise``): past it the sizes are not covered, which NumPy may run."""
    trace = current()
    path = getattr(trace, "path", None)
    if path is None:
        return error
    site = _site(trace)
    source = Source(op="loop", location="" if site is None else
                    f"{site.filename}:{site.lineno}",
                    code="" if site is None else site.source,
                    otherwise=f"more than {MAX_TURNS} turns of range({start}, {stop}, "
                              f"{step}), which eval_shape does not type")
    ends = Condition(stop, "<=", value, source) if isinstance(stop, Dim) \
        else Condition(value, ">=", stop, source)
    if step < 0:
        ends = Condition(stop, ">=", value, source) if isinstance(stop, Dim) \
            else Condition(value, "<=", stop, source)
    path.limits = (*path.limits, ends)
    return path.stop(error)

"""What a Function's memory plan does, and the peak memory of a call, measured."""

from __future__ import annotations

import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .plan import Plan


@dataclass(frozen=True)
class MemoryReport:
    """The memory of one call for given input shapes: ``peak`` and ``plain_peak`` are
    the bytes allocated at most at one time during a call of the Function and of the
    plain interpreter (``tracemalloc``; the outputs count, the inputs do not);
    ``planned`` whether the planned code ran (an input has at least
    ``plan_min_size`` elements); ``nodes`` what the plan does at each node, in the
    order they run: ``(node, action)``, the action empty for a node that runs as in
    the plain code."""

    shapes: tuple[tuple[int, ...], ...]
    peak: int
    plain_peak: int
    planned: bool
    nodes: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        width = max((len(n) for n, _ in self.nodes), default=4)
        shapes = ", ".join(map(str, self.shapes)) or "no inputs"
        lines = [f"memory of a call on inputs of shapes {shapes}:",
                 f"  peak {self.peak:,} bytes (plain interpreter: {self.plain_peak:,} bytes); "
                 f"planned code {'ran' if self.planned else 'did not run'}"]
        lines += [f"  {i:>4}  {n:<{width}}  {action}".rstrip()
                  for i, (n, action) in enumerate(self.nodes)]
        return "\n".join(lines)


def actions(plan: Plan | None, nodes: Sequence[Any]) -> tuple[tuple[str, str], ...]:
    """``(node, action)`` per node (see :class:`MemoryReport`)."""
    return tuple((str(node.op), plan.action(i) if plan is not None else "")
                 for i, node in enumerate(nodes))


def peak_bytes(run: Callable[..., Any], values: Sequence[Any]) -> int:
    """The most bytes ``run(*values)`` holds at one time beyond what was allocated
    before (``tracemalloc``, started and stopped here unless it is already on; what
    other threads allocate meanwhile counts too)."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            result = run(*values)
            peak = tracemalloc.get_traced_memory()[1] - before
        del result
    finally:
        if not tracing:
            tracemalloc.stop()
    return peak

"""The bytes of the tasks of a Dask plan, per node, in words (:class:`DaskMemory`), and
whether a task's exceed ``max_task_bytes``.

A task's bytes are exact where its chunks are known; where a mask's rows decide them
(``nan``) they are counted by sizes no block exceeds where the session knows them
(:meth:`.lower.Session.bounds`: a mask keeps at most every row of the block it masks),
and said to be "at most"; else they are unknown, never compared with a bound.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ...graph.basic import Apply
from .tasks import NodeTasks

__all__ = ["DaskMemory", "mb"]


class DaskMemory:
    """The bytes of the tasks of a Dask plan (see :meth:`.function.DaskFunction.memory`)."""

    def __init__(self, nodes: list[Apply], by_node: dict[Hashable, NodeTasks],
                 threads_per_worker: int, bound: float | None):
        self.nodes = [(node, by_node[node]) for node in nodes if node in by_node]
        self.threads_per_worker = threads_per_worker
        self.bound = bound

    @property
    def tasks(self) -> int:
        return sum(t.tasks for _, t in self.nodes)

    @property
    def unknown(self) -> int:
        """The tasks whose bytes chunks of unknown size decide (left out of the largest
        and the peak, which are of the others)."""
        return sum(t.unknown for _, t in self.nodes)

    @property
    def at_most(self) -> int:
        """The tasks counted by upper bounds of sizes the data decides (a mask's rows
        counted as the rows of the blocks it masks): their bytes are at most those."""
        return sum(t.at_most for _, t in self.nodes)

    @property
    def largest(self) -> tuple[Apply, Any] | None:
        """The node and task that hold the most bytes (inputs and output)."""
        found = [(node, t.largest) for node, t in self.nodes if t.largest is not None]
        return max(found, key=lambda p: p[1].held, default=None)

    @property
    def largest_input(self) -> float:
        largest = self.largest
        return largest[1].inputs if largest else 0.0

    @property
    def largest_scheduled(self) -> float:
        """The most a ``dask.distributed`` scheduler counts for one task: the results it
        reads and its own (``TaskState.nbytes``), without what a fused task makes
        inside (see :mod:`.tasks`)."""
        return max((t.scheduled for _, t in self.nodes), default=0.0)

    @property
    def largest_output(self) -> float:
        return max((t.largest_output.output for _, t in self.nodes
                    if t.largest_output is not None), default=0.0)

    @property
    def peak_per_worker(self) -> float:
        """What a worker needs to run its tasks: ``threads_per_worker`` times what the
        largest task holds at its peak, its inputs and its own work (a lower bound:
        results waiting for their readers come on top; where that task is counted at
        most, :attr:`TaskBytes.at_most`, no bound either way)."""
        largest = self.largest
        return self.threads_per_worker * (largest[1].held if largest else 0.0)

    def over_bound(self) -> list[str]:
        """One sentence per node whose largest task holds more than the bound, or whose
        tasks hold bytes that chunks of unknown size decide (no bound is known for them:
        reported, never taken as within it)."""
        if self.bound is None:
            return []
        unknown = [f"{node.op}: {t.unknown} of its {t.tasks} tasks (the first "
                   f"{t.first_unknown.key!r}) hold bytes that chunks of unknown size decide "
                   f"(nan, sizes the data decides, no block known to bound them), which "
                   f"max_task_bytes={mb(self.bound)} cannot bound. Where an input has "
                   "chunks of unknown size, call .compute_chunk_sizes() on it first; where "
                   "the graph makes them, compile without max_task_bytes"
                   for node, t in self.nodes if t.unknown]
        return unknown + [f"{node.op}: task {t.largest.key!r} (block {t.largest.block}) "
                f"{_holds(t.largest)} {mb(t.largest.held)} ({mb(t.largest.inputs)} in, "
                f"{mb(t.largest.output)} out{_inside(t.largest)}){_fused(t.largest)}"
                f"{_MASKED * t.largest.at_most}, above "
                f"max_task_bytes={mb(self.bound)}"
                for node, t in self.nodes if t.largest and t.largest.held > self.bound]

    def __str__(self) -> str:
        at_most = self.largest is not None and self.largest[1].at_most
        if self.largest is None:  # (no task of known bytes: no largest, no peak to say)
            lines = [f"{self.tasks} tasks{_unknown(self.unknown)}; no task's bytes known, "
                     "so no largest task or peak per worker"
                     if self.unknown else f"{self.tasks} tasks"]
        else:
            lines = [f"{self.tasks} tasks; largest task {'at most ' * at_most}"
                     f"{mb(self.largest_input)} in, {mb(self.largest[1].output)} out"
                     f"{_inside(self.largest[1])}; peak per "
                     f"worker ({self.threads_per_worker} thread"
                     f"{'s' * (self.threads_per_worker != 1)}) "
                     f"{'of its largest task at most' if at_most else 'at least'} "
                     f"{mb(self.peak_per_worker)}{_unknown(self.unknown)}"
                     f"{_bounded(self.at_most)}"]
        for node, t in self.nodes:
            if t.largest is not None:
                lines.append(f"  {node.op}: {t.tasks} tasks, largest "
                             f"{'at most ' * t.largest.at_most}{mb(t.largest.inputs)}"
                             f" in + {mb(t.largest.output)} out{_inside(t.largest)} "
                             f"(block {t.largest.block}){_unknown(t.unknown)}")
            elif t.unknown:
                lines.append(f"  {node.op}: {t.tasks} tasks{_unknown(t.unknown)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<DaskMemory {str(self).splitlines()[0]}>"


def _unknown(count: int) -> str:
    return f"; {count} task{'s' * (count != 1)} of bytes unknown (chunks of unknown " \
           "size)" if count else ""


def _bounded(count: int) -> str:
    return f"; {count} task{'s' * (count != 1)} counted at most (chunks of unknown size " \
           "as the blocks a mask keeps rows of)" if count else ""


_MASKED = " (sizes the data decides counted as the blocks a mask keeps rows of)"


def _holds(task: Any) -> str:
    return "may hold up to" if task.at_most else "holds"


def _inside(task: Any) -> str:
    """What a fused task holds inside beyond its result, where it does."""
    if task.inside is None or task.inside <= task.output:
        return ""
    return f", {mb(task.inside)} at once inside (the steps Dask fuses into it)"


def _fused(task: Any) -> str:
    """Where Dask fused steps into the task, which: its name lists them
    (``rechunk-merge-sort-mul-<token>``)."""
    steps = task.array.rsplit("-", 1)[0]
    return f" (Dask fuses {steps} into it)" if steps.count("-") >= 1 else ""


def mb(n: float) -> str:
    """``n`` bytes in words (B, KiB, MiB, GiB)."""
    if n >= 2**30:
        return f"{n / 2**30:.2f} GiB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB"
    if n >= 2**10:
        return f"{n / 2**10:.1f} KiB"
    return f"{int(n)} B"

"""The threads that share a block run's blocks (see :mod:`.planned`).

A block run's blocks are independent: each is computed by the same ufuncs on the same
values wherever it runs. A call hands out the blocks through one counter; the calling
thread takes blocks until none is left, and so do up to ``threads - 1`` helpers from a
pool of the process, each with block buffers of its own (NumPy releases the GIL in its
loops). Helpers run in a copy of the caller's context: NumPy's ``errstate`` is the
caller's.

On a machine whose CPUs are busy a helper is no help: the caller, done with the blocks,
waits for the one a preempted helper holds. So, much as OpenMP's dynamic threads do
(``OMP_DYNAMIC``), a call takes only as many helpers as there are CPUs idle when it
starts (:func:`idle_cpus`), and a helper that has not started when the blocks are done
is cancelled.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextvars import copy_context
from itertools import count
from threading import Lock

#: A helper thread joins a run only if there are at least this many blocks per thread.
MIN_BLOCKS = 4

#: The CPUs this process may use.
CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
    else os.cpu_count() or 1

_lock = Lock()
_pools: dict[int, ThreadPoolExecutor] = {}


def _pool(workers: int) -> ThreadPoolExecutor:
    with _lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = ThreadPoolExecutor(workers, "kantensor-blocks")
        return pool


def _forget_pools() -> None:  # a forked child has none of its parent's threads
    _pools.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def idle_cpus() -> int:
    """The CPUs idle now besides the caller's: the CPUs less the threads the kernel has
    running or ready to run, the caller one of them (Linux's ``/proc/loadavg``, about
    ten microseconds), else less the one-minute load average."""
    try:
        fd = os.open("/proc/loadavg", os.O_RDONLY)
        try:
            text = os.read(fd, 256)
        finally:
            os.close(fd)
        return CPUS - int(text.split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        try:
            return CPUS - int(os.getloadavg()[0])
        except (OSError, AttributeError):  # no load average on this platform
            return CPUS


def run_blocks(part: Callable[[Iterator[int]], None], n: int, size: int,
               threads: int) -> None:
    """Call ``part(starts)`` in this thread and in up to ``threads - 1`` helpers, at most
    one per :data:`MIN_BLOCKS` blocks of ``size`` elements in ``n`` nor more than
    :func:`idle_cpus` (when there is a helper to take); ``starts`` gives
    the first element of each block, each to one thread (``part`` stops at ``n``)."""
    starts = count(0, size)
    helpers = min(threads, n // (MIN_BLOCKS * size)) - 1
    if helpers > 0:
        helpers = min(helpers, idle_cpus())
    if helpers <= 0:
        part(starts)
        return
    pool = _pool(threads - 1)
    futures: list[Future] = [pool.submit(copy_context().run, part, starts)
                             for _ in range(helpers)]
    try:
        part(starts)
    finally:
        wait([f for f in futures if not f.cancel()])
    for f in futures:
        if not f.cancelled():
            f.result()  # a helper's error

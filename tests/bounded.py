"""Run hostile cases in a child process under a time and a memory limit.

:func:`run_cases` forks once per batch: the child lowers its address-space limit
(``RLIMIT_AS``: what it maps beyond what it had at the fork), runs each case under a
per-case deadline (``SIGALRM``) and sends one line per case (its outcome, seconds, the
length of its message) through a pipe; the parent reads them. A case that blows up
past the memory limit ends in ``MemoryError`` (or kills the child), one that hangs
past the deadline in ``Hang``: either way the batch reports which case it was, and the
test fails on it instead of the machine swapping or the run hanging. The child's peak
resident memory beyond the fork is measured too.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

#: Seconds one case may take (a generous bound: hostile inputs are refused in well
#: under a second; this only catches the unbounded).
DEADLINE = float(os.environ.get("KANTENSOR_FUZZ_DEADLINE", "20"))

#: Bytes a child may map beyond what the test process had mapped when it forked.
MEMORY = int(os.environ.get("KANTENSOR_FUZZ_MEMORY", str(1 << 30)))


class Hang(BaseException):
    """A case outlived :data:`DEADLINE` (a BaseException: no ``except Exception`` in the
    code under test swallows it)."""


def _expire(signum: int, frame: Any) -> None:
    raise Hang


def _mapped() -> int:
    """Bytes of address space this process maps now (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _rss_kb() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


def _child(cases: Sequence[Any], run: Callable[[Any], Any], out: int, memory: int,
           deadline: float, documented: tuple) -> None:
    start_kb = _rss_kb()
    mapped = _mapped()
    if mapped:  # (unknown without /proc: then no limit rather than a wrong one)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = mapped + memory
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY
                                                else min(limit, hard), hard))
    signal.signal(signal.SIGALRM, _expire)
    with os.fdopen(out, "w") as pipe:
        for i, case in enumerate(cases):
            signal.setitimer(signal.ITIMER_REAL, deadline)
            begin = time.perf_counter()
            message = ""
            known = True
            try:
                result = run(case)
                outcome = "ok" if result is None else str(result)
            except Hang:
                outcome = "Hang"
            except BaseException as exc:  # recorded: the parent judges it
                outcome = type(exc).__name__
                message = str(exc)
                known = isinstance(exc, documented)
                if not known:
                    message += "\n" + traceback.format_exc(limit=-8)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            seconds = time.perf_counter() - begin
            pipe.write(json.dumps({"case": i, "outcome": outcome, "seconds": seconds,
                                   "documented": known and outcome != "Hang",
                                   "length": len(message), "message": message[:2000]})
                       + "\n")
            pipe.flush()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        pipe.write(json.dumps({"peak_kb": peak, "start_kb": start_kb}) + "\n")


def run_cases(cases: Sequence[Any], run: Callable[[Any], Any], memory: int = MEMORY,
              deadline: float = DEADLINE, documented: tuple = (ValueError, TypeError)
              ) -> tuple[list[dict], dict]:
    """``run(case)`` for each case in one forked child under the limits: one record per
    case (``outcome``: "ok" or what ``run`` returned, the name of the exception raised,
    ``"Hang"``; ``documented``: False for a hang or an exception not in ``documented``;
    ``seconds``; ``length`` and ``message``) and the child's memory figures
    (``peak_kb``, the peak resident size, and ``start_kb``, the size at the fork). A child
    that dies records ``"died (signal N)"`` for the case it was running."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the test run
        status = 0
        try:
            os.close(read)
            _child(cases, run, write, memory, deadline, documented)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    records: list[dict] = []
    memory_figures: dict = {}
    with os.fdopen(read) as pipe:
        for line in pipe:
            record = json.loads(line)
            if "peak_kb" in record:
                memory_figures = record
            else:
                records.append(record)
    _, status = os.waitpid(pid, 0)
    if len(records) < len(cases):
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else \
            f"status {os.WEXITSTATUS(status)}"
        records.append({"case": len(records), "outcome": f"died ({how})", "seconds": 0.0,
                        "documented": False, "length": 0, "message": ""})
    return records, memory_figures

"""A one-line progress report on stderr for long work (queries, refine, compiles).

Off unless stderr is a terminal, and silent for work that ends within :data:`DELAY`
seconds: short calls, tests and pipes never see it. Updated at most ten times a second,
erased when the work ends. Set ``KANTENSOR_PROGRESS=0`` to turn it off.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

__all__ = ["DELAY", "Progress"]

#: Seconds of work before the line appears.
DELAY = 1.0
_EVERY = 0.1  # seconds between updates


class Progress:
    """``with Progress("refine", total=n) as p: ... p.step()``: ``refine: 120/5000``."""

    __slots__ = ("what", "total", "done", "stream", "start", "next", "shown", "on")

    def __init__(self, what: str, total: int | None = None, stream: TextIO | None = None,
                 delay: float = DELAY):
        self.what, self.total, self.done = what, total, 0
        self.stream = stream or sys.stderr
        self.on = os.environ.get("KANTENSOR_PROGRESS", "1") != "0" and \
            bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self.next = self.start + delay
        self.shown = False

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.on and (self.done & 63 == 0 or self.total is not None) and \
                time.monotonic() >= self.next:
            self.next = time.monotonic() + _EVERY
            of = f"/{self.total:,}" if self.total is not None else ""
            self.stream.write(f"\r{self.what}: {self.done:,}{of} "
                              f"({time.monotonic() - self.start:.0f} s)")
            self.stream.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")  # erase the line
            self.stream.flush()
            self.shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

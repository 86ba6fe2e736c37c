"""How compiled Functions run: the switches read when a Function is compiled."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from .workers import CPUS


@dataclass(frozen=True)
class Execution:
    """``generate``: one generated Python function per graph (``exec``), else the plain
    interpreter (with ``plan=False``, the reference every other way is compared with).
    ``plan``: the generated code follows the memory plan (see
    :mod:`kantensor.backend.plan`) when an input has at least ``plan_min_size``
    elements, the interpreter at any size, without block runs; a run of elementwise nodes is
    evaluated in blocks of ``block_bytes`` (of its widest dtype) when its arrays hold
    more than one block, by up to ``threads`` threads (default: the CPUs this process
    may use; fewer when fewer are idle: see
    :mod:`kantensor.backend.workers`)."""

    generate: bool = True
    plan: bool = True
    plan_min_size: int = 1 << 14
    block_bytes: int = 1 << 18
    threads: int = CPUS


_CURRENT: ContextVar[Execution] = ContextVar("kantensor_execution", default=Execution())  # noqa: B039 - frozen


def current() -> Execution:
    """The switches Functions compiled now use."""
    return _CURRENT.get()


@contextmanager
def execution(**changes: bool | int) -> Iterator[Execution]:
    """Compile Functions with some switches changed (``generate=False``: the
    interpreter; ``plan=False``: no memory plan), inside a
    ``with`` block of this thread or task only."""
    token = _CURRENT.set(replace(_CURRENT.get(), **changes))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)

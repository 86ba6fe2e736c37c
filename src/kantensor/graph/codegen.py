"""The one fence around code generated at run time.

Three speed paths write Python source and compile it: the cached calls of Ops with
parameters (:mod:`kantensor.ops.fastcall`), the straight-line code of a compiled
Function (:mod:`kantensor.backend.linker`) and the checks of a first-seen ONNX node
against its op type's last template (:mod:`kantensor.onnx.repeats`). All go through
:func:`define`, the only ``exec`` of the package, and all have a plain path that
interprets the same plan without generating code: the reference the tests compare the
generated code with.

The switch is :func:`enabled`: on by default, off in a process started with
``KANTENSOR_GENERATED_CODE=0``, and off inside :func:`plain` (tests). Code generated
while it was on keeps running; whoever generates code asks :func:`enabled` first.
(Functions also take ``kantensor.backend.mode.execution(generate=False)``, a per-thread
choice for one compile; either switch off gives the plain interpreter.)
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import CodeType
from typing import Any

__all__ = ["ENV", "define", "enabled", "plain"]

#: The environment variable that turns generated code off for a whole process.
ENV = "KANTENSOR_GENERATED_CODE"

_state = {"on": os.environ.get(ENV, "1").strip() not in ("0", "false", "no", "off")}
_switching = threading.Lock()


def enabled() -> bool:
    """May code be generated now?"""
    return _state["on"]


@contextmanager
def plain() -> Iterator[None]:
    """Within the block, nothing new is generated: the plain paths run (process-wide,
    for tests that compare both paths)."""
    with _switching:
        before, _state["on"] = _state["on"], False
    try:
        yield
    finally:
        with _switching:
            _state["on"] = before


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, name: str) -> CodeType:
    """Python's compile, remembered: generated texts name positions (``v3``, ``k6``), so
    graphs of the same structure share one code object; the namespace differs."""
    return compile(source, f"<kantensor {name}>", "exec")


def define(source: str, name: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """The function ``name`` that ``source`` defines in a copy of ``namespace``, its
    source kept on it as ``__source__`` (for whoever debugs it). RuntimeError when
    generated code is off: callers take their plain path instead."""
    if not enabled():
        raise RuntimeError(f"generated code is off ({ENV}=0 or kantensor.graph.codegen."
                           "plain()); the plain path should have run")
    namespace = dict(namespace)
    exec(_compiled(source, name), namespace)  # noqa: S102
    fn = namespace[name]
    fn.__source__ = source
    return fn

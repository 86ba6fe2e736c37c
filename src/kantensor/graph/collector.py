"""The cyclic garbage collector paused while a package imports (issue 36).

Importing kantensor makes some hundred thousand objects that all live on (modules,
classes, the catalogue's Ops, the parser's tables) and importing ``kantensor.onnx`` loads
protobuf's and onnx's; the collector would scan them in over a hundred passes, a full one
among them, for nothing to free: about a tenth of the import. ``kantensor`` and
``kantensor.onnx`` import under :func:`paused_collector`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_collector"]


@contextmanager
def paused_collector() -> Iterator[None]:
    """The collector off inside, and afterwards as it was (on, or off when the caller had
    turned it off), whatever happens inside."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()

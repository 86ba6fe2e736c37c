"""Whole-graph passes, and imports, without the cycle collector's sweeps.

A pass over a graph of a million nodes (``refine``) allocates millions of small objects
that live until it ends; each of the collector's full collections meanwhile sweeps the
whole heap, the graph included, and on a 1,000,000-node chain those sweeps were a third
of refine's time. Such a pass drops no reference cycles worth collecting early, so it
pauses the collector and restores it as it was. Importing ``kantensor`` (and
``kantensor.onnx``) does too: the objects an import makes (modules, classes, the
catalogue's Ops, the parser's tables; protobuf's and onnx's) all live on, and the
collector's passes over them, a full one among them, were a tenth of the import.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cycle collector disabled (re-enabled after it if it was
    enabled before; reference counting frees memory as usual meanwhile)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

"""Whole-graph passes, and imports, without the cycle collector's sweeps.

A pass over a graph of a million nodes (``refine``) allocates millions of small objects
that live until it ends; each of the collector's full collections meanwhile sweeps the
whole heap, the graph included, and on a 1,000,000-node chain those sweeps were a third
of refine's time. Such a pass drops no reference cycles worth collecting early, so it
pauses the collector and restores it as it was. Importing ``kantensor`` (and
``kantensor.onnx``) does too: the objects an import makes (modules, classes, the
catalogue's Ops, the parser's tables; protobuf's and onnx's) all live on, and the
collector's passes over them, a full one among them, were a tenth of the import.
``infer_shapes`` also moves what it leaves alive to the oldest generation unwalked
(``promote=True``, within a limit): the young pass that resuming the collector starts
would walk each of those objects once, to keep them all.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PROMOTED_LIMIT", "collector_paused"]

#: How many objects :func:`collector_paused` with ``promote=True`` may move to the oldest
#: generation unwalked between two of the collector's full collections (see
#: :func:`_promote`); past it, the young collection runs as it would have.
PROMOTED_LIMIT = 1 << 17

#: [objects promoted unwalked since the full collection counted, that count] (the count
#: of full collections, ``gc.get_stats()[2]["collections"]``, when it was last seen)
_promoted = [0, -1]


@contextmanager
def collector_paused(promote: bool = False) -> Iterator[None]:
    """Run the block with the cycle collector disabled (re-enabled after it if it was
    enabled before; reference counting frees memory as usual meanwhile). With
    ``promote``, what the block left in the young generations when it ends normally is
    moved to the oldest one without being walked, within :data:`PROMOTED_LIMIT`
    (:func:`_promote`)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
        if promote and was:
            _promote()
    finally:
        if was:
            gc.enable()


def _promote() -> None:
    """Move the young objects to the oldest generation unwalked (``gc.freeze()`` then
    ``gc.unfreeze()``: two list splices), where the pass that resuming the collector
    starts at the next allocation would walk each of them once (on
    ``onnx_distinct.py``'s 20,001 nodes, 61,000 objects: the new types, their weak
    references and shapes, which all live on; 5% of the call). Done only where no
    object is frozen (``gc.unfreeze()`` would thaw them), and only while the objects
    so promoted since the last full collection stay within :data:`PROMOTED_LIMIT`:
    CPython counts the objects a middle collection promotes towards its next full
    collection, and these go uncounted, so cyclic garbage among them waits for a full
    collection; the limit bounds how much may wait (past it, the young collection runs
    and counts them as before)."""
    if gc.get_freeze_count():
        return
    full = gc.get_stats()[2]["collections"]
    if full != _promoted[1]:
        _promoted[0], _promoted[1] = 0, full
    young = gc.get_count()[0]
    if _promoted[0] + young > PROMOTED_LIMIT:
        return
    _promoted[0] += young
    gc.freeze()
    gc.unfreeze()

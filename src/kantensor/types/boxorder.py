"""Min/max atoms that the facts over one symbol order, replaced by the argument that
wins, before the prover splits their cases.

An exporter's ``Div(size - k, s)`` of a length is folded truncated toward zero,
``max(0, a)//s - max(0, -a)//s`` (onnx/math/elementwise.py), nested once per layer
(wav2vec2's feature-extractor length, three Divs): each max is a case split of
Fourier–Motzkin (:func:`kantensor.types.prove.proves`), and a question over the chain
beside facts of two sizes (a reshape's) split 2^6 cases. Where the box of the facts
over one symbol, monotone in it (:func:`.monotone.box_of`, ``partial``: a superset of
the sizes all facts allow) shows one argument at least (max) or at most (min) each
other one, the atom is that argument wherever the facts hold: ``max(0, 3 - h//80)``
is ``0`` where ``h >= 240``. The question is then equal to the one asked wherever the
facts hold, with fewer atoms."""

from __future__ import annotations

import operator
from typing import Any

from . import monotone
from .poly import Opaque
from .symbols import APPLY, rebuild

__all__ = ["has_extremes", "ordered"]


def ordered(facts: tuple, x: Any) -> Any:
    """``x`` (a size or int) with each min/max atom the box of ``facts`` (triples)
    orders replaced by its winning argument (at any depth); ``x`` itself if none is."""
    if not has_extremes(x):
        return x
    box = monotone.box_of(facts, True)
    if not box:  # (None: no fact makes one; an empty box: the facts allow nothing)
        return x
    return _ordered(x, box)


def has_extremes(x: Any) -> bool:
    """Whether the size ``x`` (or int) has a min or max atom, at any depth: what
    :func:`ordered` may change."""
    return not isinstance(x, int) and _extremes_in(x)


def _extremes_in(x: Any) -> bool:
    return any(isinstance(a, Opaque) and (a.op in ("min", "max") or any(
        _extremes_in(g) for g in a.args if not isinstance(g, int)))
        for mono, _ in x._terms for a, _ in mono)


def _ordered(x: Any, box: dict) -> Any:
    if isinstance(x, int) or not _extremes_in(x):
        return x
    return rebuild(x, lambda a: _atom(a, box) if isinstance(a, Opaque) else None)


def _atom(a: Opaque, box: dict) -> Any:
    """The atom ``a`` ordered (None: kept as it is)."""
    args = tuple(_ordered(g, box) for g in a.args)
    keep = list(args)
    if a.op in ("min", "max"):
        want = "<=" if a.op == "min" else ">="
        i = 0
        while i < len(keep):
            if any(j != i and monotone.decided(box, (b, want, keep[i])) is True
                   for j, b in enumerate(keep)):
                del keep[i]  # another argument wins over it at every size in the box
            else:
                i += 1
    if len(keep) == len(a.args) and all(map(operator.is_, keep, a.args)):
        return None
    try:
        return APPLY[a.op](*keep)
    except ZeroDivisionError:  # a divisor 0 in the box: nowhere defined, kept as is
        return None

"""Shared pieces of the differential harnesses of issue 38 (tests/test_boundaries.py,
tests/test_refine_forward.py): their figures, and a call of a catalogue Op on types.
"""

from __future__ import annotations

from typing import Any

import kantensor as kt
from kantensor.ops.family import OpFamily

#: Figures for the summary (tests/conftest.py): counts by harness and outcome.
STATS: dict[str, int] = {}

#: How kantensor refuses a call while building it.
REFUSALS = (TypeError, ValueError, IndexError)


def count(key: str, n: int = 1) -> None:
    STATS[key] = STATS.get(key, 0) + n


def bound(op: Any, params: dict) -> Any:
    """The Op a call with ``params`` applies (a template's Op for those parameters)."""
    return op.bind(**params) if isinstance(op, OpFamily) else op


def build(op: Any, params: dict, types: list) -> list | Exception:
    """The output Variables of ``op(*inputs of types, **params)``, or the exception that
    refused it."""
    inputs = [t() for t in types]
    try:
        out = bound(op, params)(*inputs)
    except REFUSALS as exc:
        return exc
    return [inputs, out if isinstance(out, list) else [out]]


def tensor_types(shapes: list, dtypes: list) -> list:
    return [kt.TensorType(d, tuple(s)) for s, d in zip(shapes, dtypes, strict=True)]

"""How a comparison of symbolic sizes that their canonical form does not decide is
answered: ``n == 1`` is structural (False), ``n < 1`` raises, a Dim is true, unless a
traced program asks (:data:`COMPARE`, set by :mod:`kantensor.evalshape`, whose branches
on sizes split into cases)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..graph.hooks import Hook
from .intervals import interval

COMPARE: Hook[Callable[[str, Any, object], Any]] = Hook(
    "compare_sizes", "kantensor.evalshape.trace",
    "hook(op, a, b) -> bool (op one of == != < <= > >=) deciding a comparison of a Dim "
    "with an int or a Dim, or NotImplemented (then the answers above); while a program "
    "is traced")


def decided(op: str, a: Any, b: object) -> Any:
    """The hook's answer to ``a op b``, or NotImplemented."""
    hook = COMPARE.fn
    return NotImplemented if hook is None else hook(op, a, b)


def ordered(a: Any, b: object, op: str, comparable: bool) -> bool:
    """``a op b`` for an ordering ``op``: the hook's answer, else a TypeError. A size is
    an int, so against a finite float ``b`` it is compared with the int that says the
    same (``n > 2.5`` is ``n > 2``, ``n >= 2.5`` is ``n >= 3``)."""
    if not comparable and isinstance(b, float) and math.isfinite(b):
        b, comparable = math.ceil(b) if op in ("<", ">=") else math.floor(b), True
    answer = decided(op, a, b) if comparable else NotImplemented
    if answer is NotImplemented:
        raise TypeError(f"symbolic sizes are not ordered: cannot compare {a!r} with {b!r}")
    return answer



def divides(b: Any) -> None:
    """Python's ``a // b``, ``a % b`` and ``divmod`` raise ZeroDivisionError at ``b == 0``:
    while a program is traced, a size divisor asks the hook ``b >= 1`` (``b != 0`` where
    ``b`` may be negative: ``h - 2``, or ``n - m``, whose lower bound is not known); where
    that is not decided the trace splits, and the case where it fails raises (the program
    assumes it), so that a quotient whose divisor cancels (``h // h`` is 1, ``h % h`` 0)
    keeps what it needs of ``h``."""
    if COMPARE.fn is None:
        return
    low = interval(b)[0]
    if low is not None and low >= 0:  # (None: no lower bound, n - m may be negative)
        if decided(">=", b, 1) is False:
            raise ZeroDivisionError(f"integer division or modulo by zero: {b} is 0")
    elif decided("!=", b, 0) is False:
        raise ZeroDivisionError(f"integer division or modulo by zero: {b} is 0")

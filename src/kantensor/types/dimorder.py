"""How a comparison of symbolic sizes that their canonical form does not decide is
answered: ``n == 1`` is structural (False), ``n < 1`` raises, a Dim is true, unless a
traced program asks (:data:`COMPARE`, set by :mod:`kantensor.evalshape`, whose branches
on sizes split into cases)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..graph.basic import Variable
from ..graph.hooks import Hook
from .intervals import interval

COMPARE: Hook[Callable[[str, Any, object], Any]] = Hook(
    "compare_sizes", "kantensor.evalshape.trace",
    "hook(op, a, b, program=False) -> bool (op one of == != < <= > >=) deciding a "
    "comparison of a Dim with an int or a Dim (asked by the program's own code, or for it "
    "if program), or NotImplemented (then the answers above); while a program is traced")


def decided(op: str, a: Any, b: object) -> Any:
    """The hook's answer to ``a op b``, or NotImplemented."""
    hook = COMPARE.fn
    return NotImplemented if hook is None else hook(op, a, b)


def asked(op: str, a: Any, b: object) -> Any:
    """The hook's answer to ``a op b`` asked for the traced program by kantensor itself,
    at the program's innermost line (a slice bound's sign, which Python's slice reads:
    see :class:`kantensor.ops.paramvalues.SliceItem`), or NotImplemented."""
    hook = COMPARE.fn
    return NotImplemented if hook is None else hook(op, a, b, True)


def ordered(a: Any, b: object, op: str, comparable: bool) -> bool:
    """``a op b`` for an ordering ``op``: the hook's answer, else a TypeError. A size is
    an int, so against a finite float ``b`` it is compared with the int that says the
    same (``n > 2.5`` is ``n > 2``, ``n >= 2.5`` is ``n >= 3``). Against a tensor,
    NotImplemented: Python asks the tensor's reflected comparison, elementwise with the
    size as a number (``n - 3 <= x`` is ``x >= n - 3``, as NumPy compares an int with an
    array)."""
    if not comparable and isinstance(b, Variable):
        return NotImplemented
    if not comparable and isinstance(b, float) and not math.isfinite(b):  # (nan: none)
        return b == b and (b > 0) == (op in ("<", "<="))  # (inf: above every size)
    if not comparable and isinstance(b, float):
        b, comparable = math.ceil(b) if op in ("<", ">=") else math.floor(b), True
    answer = decided(op, a, b) if comparable else NotImplemented
    if answer is NotImplemented:
        raise TypeError(f"symbolic sizes are not ordered: cannot compare {a!r} with {b!r}")
    return answer



def equal(a: Any, b: object) -> Any:
    """``a == b`` for a size ``a`` and a ``b`` that is neither a size nor an int: Python
    compares an int and a float exactly, so a float is the int it equals (``n == 2.0``
    is ``n == 2``, asked as that is) or equal to no size (2.5, nan, inf); anything else
    NotImplemented (Python's fallback). (A float fell back to identity: ``n == 2.0`` was
    false at every n.)"""
    if not isinstance(b, float):
        return NotImplemented
    return b.is_integer() and a == int(b)


def divides(b: Any) -> bool | None:
    """Python's ``a // b``, ``a % b`` and ``divmod`` raise ZeroDivisionError at ``b == 0``:
    while a program is traced, a size divisor asks the hook ``b >= 1``, then, where ``b``
    may be negative (``h - 2``, or ``n - m``, whose lower bound is not known), ``b <= -1``
    (inequalities, which the facts of a case keep: a second division by ``b`` is
    decided); where that is not decided the trace splits, and the case where both fail
    raises (the program assumes it), so that a quotient whose divisor cancels (``h // h``
    is 1, ``h % h`` 0) keeps what it needs of ``h``. Whether ``b`` is positive: True
    where the trace answered ``b >= 1``, False only where it answered it negative (then
    see :func:`divided`), None where no trace answered (the algebra's reading)."""
    return asked_positive(b, "integer division or modulo by zero")


def asked_positive(b: Any, failure: str) -> bool | None:
    """Whether the size ``b`` is positive, asked as :func:`divides` says (None: not
    answered); where the trace answered it 0, ZeroDivisionError(``failure``)."""
    if COMPARE.fn is None:
        return None
    answer = decided(">=", b, 1)
    if answer is NotImplemented:
        return None  # (outside the user's code: the algebra's reading)
    if answer:
        return True
    low = interval(b)[0]  # (None: no lower bound, n - m may be negative)
    if low is not None and low >= 0 or decided("<=", b, -1) is False:
        raise ZeroDivisionError(f"{failure}: {b} is 0")
    return False


def powered(base: Any, exponent: Any, sized: bool) -> str:
    """The NUMBER_OP of Python's ``base ** exponent`` where one of them is a size:
    ``"pow"``, or ``"negative_pow"``, the float power, where ``sized`` (the exponent is
    a size, the base a Python number or a size) and a traced program's exponent is
    negative: an int to a size's power is an int where the size is >= 0, a float where it
    is negative (``2 ** (n - m)`` at ``n < m`` is 0.25), and 0 to it raises
    ZeroDivisionError. While a program is traced, such an exponent asks the hook
    ``exponent >= 0``; where answered False, a base ``0`` raises, and a size base is
    asked as a divisor is (:func:`divides`: ``n ** (n - m)`` raises at ``n == 0 < m``).
    Outside a trace, ``"pow"``: the algebra's reading (eval_shape keeps a condition
    ``exponent >= 0`` of an int power no trace asked of)."""
    if not sized or COMPARE.fn is None or decided(">=", exponent, 0) is not False:
        return "pow"
    failure = "0 cannot be raised to a negative power"
    if not isinstance(base, int | float | complex):
        asked_positive(base, f"{failure} ({exponent} < 0)")
    elif base == 0:
        raise ZeroDivisionError(f"{failure}: {exponent} < 0")
    return "negative_pow"


def divided(fn: Callable[[Any, Any], Any], a: Any, b: Any, remainder: bool) -> Any:
    """``fn(a, b, positive)``: the Dim algebra's ``a // b`` (or ``a % b`` if
    ``remainder``), which keeps a quotient by a size that may be 0 (``(n*m)//m`` is not
    ``n`` at ``m == 0``, where Python raises) unless ``positive``: where a traced
    program's case has ``b >= 1`` (:func:`divides`), the quotient it gives there
    (``(n*m)//m`` is ``n``; the case states ``m >= 1``); where its divisor is negative
    (``4 // (n - m)`` at ``n < m``), Python's quotient by a positive one, ``(-a) //
    (-b)`` (and ``-((-a) % (-b))``), which is Python's own at every sign."""
    found = divides(b)
    if found is not False:
        return fn(a, b, found is True)
    return -fn(-a, -b, True) if remainder else fn(-a, -b, True)

"""Python's powers of sizes in traced code: what a power needs of the sizes.

A size is a Python int in NumPy code, so ``b ** e`` of sizes and Python numbers is
Python's power, whose result type depends on the values: an int to a negative power is a
float (``2 ** -2``), a negative number to a power that is not an integer is a complex
number (``(-2) ** 0.5``), and 0 to a negative power raises ZeroDivisionError. The graph
computes one power of one dtype, so each such value dependence is a condition on the
sizes, said where the power is built (:func:`power_conditions`, read by
:func:`.located.divisors`):

* ``k ** E`` or ``D ** E`` (an int or a size to a size's power): ``E >= 0`` where it may
  be negative and no trace asked its sign (``np.power``; a traced program's ``**`` asks it
  and takes the float power where it is negative: :func:`kantensor.types.dimorder.powered`);
* ``x ** E`` of an integer (or bool) array ``x`` and a Python int ``E`` made of sizes
  (``x ** (len(x) - 3)``, ``np.power(x, K - N)``): NumPy raises ValueError ("Integers to
  negative integer powers are not allowed") where ``E < 0``, unless the result is empty
  (its loop never runs): ``E >= 0`` or a size of the result 0, one case each
  (:func:`_integer_power`; an unsigned ``x`` also needs ``E`` to fit it, which says
  ``E >= 0`` at every size); a given negative int (``x ** -1``, ``np.power(x,
  np.array([1, -1]))``) is refused;
* ``b ** e`` of Python numbers made of sizes or given (``N * 0.5``, ``N / 2``, ``(N - K)
  * 0.25 + 1``, ``-2``: their exact values ``p / q``, :func:`fraction`): where ``b`` may
  be negative and ``e`` is not an int, ``b >= 0`` or ``e`` an integer (``p % q == 0``);
  where ``b`` may be 0, ``b != 0`` or ``e >= 0`` (each decided where it can be: ``(-2) **
  (N * 0.5)`` needs ``N % 2 == 0``, ``(N - K) ** 0.5`` needs ``N - K >= 0``). An exponent
  made of sizes otherwise (``math.sqrt(N)``) of a base that may be negative or 0 is
  refused, naming it: where it is an integer is no condition on sizes kantensor writes.
  A base made of sizes otherwise is taken as a NumPy number's (whose power is NumPy's,
  ``nan`` where Python's is complex): the graph does not say which it was.

And a Python int of sizes an arithmetic Op computes in an integer dtype must fit it
(``x_int8 * len(x)`` needs ``len(x) <= 127``, ``x_int8 * (3 * N ** K // 3)`` needs ``N **
K <= 127``): :mod:`.pyintfits`.

Python floats are read exactly (every finite float is a fraction): ``p % q == 0`` is
where the exact value is an integer, which is where Python's float is one while its
values are exact (below ``2**53`` times their denominators), and an inner approximation
past that.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..ops.pyints import size_of_number as _size_of
from ..types.conditions import AnyOf, Clause, Condition, Source
from ..types.dim import DimLike
from ..types.dtypes import is_integer, is_unsigned
from ..types.intervals import interval
from ..types.limits import MAX_SIZE
from ..types.protocol import NUMPY_OPS
from ..types.variable import SizeNumber
from .pyintfits import fitting, int_power, least, may_be_negative, size_exponent, within

#: The largest denominator :func:`fraction` keeps (a float's is at most 2**1074).
MAX_DENOMINATOR = 1 << 128


def power_conditions(node: Apply, op: str) -> list[Clause]:
    """What the power ``node`` (if it is one) needs of the sizes (module docstring), and
    what any arithmetic node needs of a Python int of sizes it takes
    (:func:`.pyintfits.fitting`); ``op``: the Op's name its conditions give as their
    source."""
    fits = fitting(node, op)
    if len(node.inputs) != 2 or node.op is not NUMPY_OPS.get(np.power):
        return fits
    return fits + _power(node, op)


def _power(node: Apply, op: str) -> list[Clause]:
    """The conditions of the power ``node`` (module docstring)."""
    exponent = size_exponent(node)
    if exponent is None:
        return _integer_power(node, op) + _python_power(node, op)
    source = Source(op=op, detail=f"an int is raised to the power {exponent}")
    out: list[Clause] = within(int_power(node.outputs[0]), MAX_SIZE, source)
    if may_be_negative(exponent):
        out.append(Condition(exponent, ">=", 0, source))
    return out


def _integer_power(node: Apply, op: str) -> list[Clause]:
    """What NumPy's power of an integer (or bool) array to a Python int of sizes needs:
    ``E >= 0``, or a result with no element (NumPy checks the exponent in the loop, which
    an empty result never runs); an unsigned result needs no case (``E`` must fit it:
    :mod:`.pyintfits`, :func:`kantensor.ops.pyints.size_conditions`)."""
    base, exponent = node.inputs
    out_type = node.outputs[0].type
    dtype = out_type.dtype
    if is_integer(dtype) and python_number(base) is None and _negative_constant(exponent):
        raise TypeError(
            f"an integer array is raised to a negative integer power ({exponent.data}): "
            "NumPy raises ValueError (Integers to negative integer powers are not "
            "allowed); cast the array to a float dtype")
    if not is_integer(dtype) or is_unsigned(dtype) or python_number(base) is not None \
            or not of_sizes(exponent):
        return []
    exact = fraction(exponent)
    if exact is None:  # (an int of sizes with powers, // or %: its least value)
        low = least(exponent)
        if low is not None and low >= 0:
            return []
        raise TypeError(
            "an integer array is raised to a Python int of sizes kantensor does not "
            "read the sign of; NumPy raises ValueError where it is negative (Integers to "
            "negative integer powers are not allowed): write it with sizes and ints, or "
            "cast the array to a float dtype")
    e, q = exact
    if q != 1 or not may_be_negative(e):
        return []
    source = Source(op=op, detail=f"an integer array is raised to the power {e}")
    if isinstance(e, int):
        raise TypeError(f"{source.detail}: NumPy raises ValueError (Integers to negative "
                        "integer powers are not allowed)")
    empty = [(Condition(d, "==", 0),) for d in out_type.shape if _may_be_zero(d)]
    nonnegative = Condition(e, ">=", 0, source)
    return [AnyOf(((nonnegative,), *empty), source) if empty else nonnegative]


def _negative_constant(v: Variable) -> bool:
    """Whether ``v`` is a given integer number or array (``-1``, ``np.int64(-2)``,
    ``np.array([1, -1])``) with a negative value: NumPy's integer power raises at it."""
    if not isinstance(v, Constant):
        return False
    data = np.asarray(v.data)
    return data.dtype.kind in "iu" and data.size > 0 and bool((data < 0).any())


def _may_be_zero(d: DimLike) -> bool:
    low, high = interval(d)
    return (low is None or low <= 0) and (high is None or high >= 0)


#: What :func:`python_number` says of a value made of sizes it does not read.
UNREAD = "unread"


def python_number(v: Variable) -> tuple[DimLike, int] | str | None:
    """``v`` as a Python number of the traced code: its exact value ``(p, q)`` (a wrapped
    constant, or made of sizes and Python numbers: :func:`fraction`), :data:`UNREAD` if it
    is made of sizes otherwise (``math.sqrt(n)``), None if it is a tensor's value (whose
    power is NumPy's, of either sign)."""
    if _base_value(v) is None and not of_sizes(v):
        return None
    read = fraction(v)
    return UNREAD if read is None else read


def _python_power(node: Apply, op: str) -> list[Clause]:
    """The conditions of Python's ``b ** e`` of Python numbers made of sizes (module
    docstring): ``e`` an integer where ``b`` may be negative, ``e >= 0`` where it may be
    0; either may be a condition, or both (then one of them)."""
    base, exponent = python_number(node.inputs[0]), python_number(node.inputs[1])
    if base is None or exponent is None or base == UNREAD:
        return []  # a tensor's power (NumPy's), or a base it does not read (docs/numpy)
    bp = base[0]
    negative, zero = may_be_negative(bp), _may_be_zero(bp)
    if not (negative or zero):
        return []
    if exponent == UNREAD:
        raise TypeError(
            f"a Python number that may be {'negative' if negative else 'zero'} ({bp}) "
            "is raised to a float computed from sizes (not written with sizes, Python "
            "numbers and + - * /, such as math.sqrt(n)): Python's power is complex where "
            "that float is not an integer (or raises at 0 to a negative power), which is "
            "no condition on sizes kantensor writes; write the exponent with sizes and "
            "numbers (n / 2, n * 0.5), or the base as a NumPy number (np.float64(-2))")
    ep, eq = exponent
    source = Source(op=op, detail=f"{_text(base)} is raised to the power {_text(exponent)}")
    out: list[Clause] = []
    if negative and eq != 1:  # complex where e is not an integer and b is negative
        out += _either(_compared(bp, ">=", 0), _compared(ep % eq, "==", 0), source)
    if zero and may_be_negative(ep):  # 0 ** e raises at e < 0
        low = interval(bp)[0]
        nonzero = _compared(bp, ">=", 1) if low is not None and low >= 0 else \
            _compared(bp, "!=", 0)
        out += _either(nonzero, _compared(ep, ">=", 0), source)
    return out


def _text(value: tuple[DimLike, int]) -> str:
    p, q = value
    return str(p) if q == 1 else f"({p})/{q}"


def _compared(a: DimLike, op: str, b: int) -> Condition | bool:
    """``a op b`` as a Condition, or its truth where ``a`` is an int."""
    if isinstance(a, int):
        return {">=": a >= b, "==": a == b, "!=": a != b}[op]
    return Condition(a, op, b)


def _either(a: Condition | bool, b: Condition | bool, source: Source) -> list[Clause]:
    """What ``a or b`` needs: nothing where one is true, the other where one is false,
    else both as cases of an :class:`AnyOf`."""
    if a is True or b is True:
        return []
    if a is False or b is False:
        other = b if a is False else a
        if other is False:
            raise TypeError(f"{source.detail}: Python's power fails or is complex there")
        return [other.with_source(source)]
    return [AnyOf(((a,), (b,)), source)]


def _base_value(v: Variable) -> float | None:
    """The Python number a wrapped constant ``v`` is, else None."""
    if isinstance(v, Constant) and getattr(v, "wrapped", False):
        data = np.asarray(v.data)
        if data.ndim == 0 and data.dtype.kind in "biuf":
            return data.item()
    return None


#: The ufuncs of a Python number made of sizes (Python's + - * / on them), by arity.
_ARITHMETIC = {np.add: 2, np.subtract: 2, np.multiply: 2, np.true_divide: 2,
               np.negative: 1}


def of_sizes(v: Variable) -> bool:
    """Whether ``v`` is computed from sizes and Python numbers only (a Python number of
    the traced code, or a NumPy number of its sizes: which one, the graph does not say)."""
    seen, todo, sized = set(), [v], False
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, SizeNumber):
            sized = True
        elif isinstance(x, Constant):
            continue
        elif x.owner is None or getattr(x.type, "ndim", 1) != 0:
            return False
        else:
            todo.extend(x.owner.inputs)
    return sized


def fraction(v: Variable) -> tuple[DimLike, int] | None:
    """The exact value of ``v`` as ``(p, q)``, ``p / q`` with ``q >= 1``, where ``v`` is
    made of sizes and Python numbers by ``+ - * /`` and negation (``N * 0.5`` is ``(N,
    2)``, ``N / 2`` too, ``(N - K) * 0.25 + 1`` is ``(N - K + 4, 4)``), else None (of a
    ``v`` :func:`of_sizes`, whose graph is small: it recurses)."""
    if isinstance(v, SizeNumber):
        return _size_of(v), 1
    number = _base_value(v)
    if number is not None:
        exact = Fraction(number)
        return exact.numerator, exact.denominator
    node = v.owner
    ufunc = next((u for u in _ARITHMETIC if node is not None and
                  node.op is NUMPY_OPS.get(u)), None)
    if ufunc is None or len(node.inputs) != _ARITHMETIC[ufunc]:
        return None
    parts = [fraction(x) for x in node.inputs]
    if any(p is None for p in parts):
        return None
    if ufunc is np.negative:
        (p, q), = parts
        return -p, q
    (a, b), (c, d) = parts
    if ufunc is np.add:
        p, q = a * d + c * b, b * d
    elif ufunc is np.subtract:
        p, q = a * d - c * b, b * d
    elif ufunc is np.multiply:
        p, q = a * c, b * d
    elif isinstance(c, int) and c != 0:  # a division by a number (not by a size)
        p, q = a * d * (1 if c > 0 else -1), b * abs(c)
    else:
        return None
    return _reduced(p, q)


#: The tag (``Variable.tag``) of a Python float that ``math``'s function ``name`` made
#: (``math.sqrt(N)``, a Python float where ``np.sqrt(N)`` is a NumPy number whose 0
#: divides to ``inf``): the name.
MATH_TAG = "python_math"

#: ``math``'s functions that are 0 exactly where their argument is (a float's
#: ``sin``, ``tan``, ... of a nonzero double is never 0.0), and those 0 where it is 1.
ZERO_AT_ZERO = frozenset({"sqrt", "sin", "tan", "tanh", "expm1", "log1p"})
ZERO_AT_ONE = frozenset({"log", "log2", "log10"})


def zero_at(v: Variable) -> DimLike | None:
    """What is 0 exactly where the Python number ``v`` made of sizes is (:func:`of_sizes`):
    the numerator ``p`` of its exact value ``p / q`` (:func:`fraction`), or of the base of
    a power of it to a positive number (``N ** 0.5``, ``(N / 2) ** 1.5``: Python's power,
    as :func:`_python_power` reads it), or of the argument of ``math``'s function that is
    0 where it is (``math.sqrt(N)``; ``p - q`` for ``math.log(p / q)``), through products,
    negations and quotients (``2 * math.sqrt(N)``); else None: never 0 (``math.cos``), or
    not read (a sum of such floats; NumPy's ``np.sqrt(N)``, whose 0 divides to ``inf``)."""
    exact = fraction(v)
    if exact is not None:
        return exact[0]
    node = v.owner
    if node is None:
        return None
    made_by = v.tag.get(MATH_TAG) if v._tag else None
    if made_by in ZERO_AT_ZERO:
        return zero_at(node.inputs[0])
    if made_by in ZERO_AT_ONE:
        arg = fraction(node.inputs[0])
        return None if arg is None else arg[0] - arg[1]
    if made_by is not None:
        return None
    ufunc = next((u for u in _ARITHMETIC if node.op is NUMPY_OPS.get(u)), None)
    if ufunc is np.negative or ufunc is np.true_divide:
        return zero_at(node.inputs[0])
    if ufunc is np.multiply:
        a, b = (zero_at(x) for x in node.inputs)
        return None if a is None or b is None else a * b
    if len(node.inputs) != 2 or node.op is not NUMPY_OPS.get(np.power):
        return None
    exponent = _base_value(node.inputs[1])
    return zero_at(node.inputs[0]) if exponent is not None and exponent > 0 else None


def _reduced(p: DimLike, q: int) -> tuple[DimLike, int] | None:
    """``p / q`` with the common factor of ``q`` and ``p``'s coefficients taken out."""
    if q > MAX_DENOMINATOR:
        return None
    common = q
    for coefficient in [p] if isinstance(p, int) else [c for _, c in p._terms]:
        common = math.gcd(common, coefficient)
    return p // common, q // common  # (exact: common divides every coefficient)

"""Python ints made of sizes, and what they need to fit where the graph computes them.

A size is a Python int in NumPy code, and so is anything Python computes from sizes and
ints with ``+ - * // %`` and ``**``. Python's int never wraps; the graph computes it in
int64 (which wraps past ``2**63 - 1``: ``2 ** 64`` was 0), and NumPy 2 refuses such an
int beside an array of a narrower integer dtype (OverflowError, NEP 50: ``x_int8 * 3 **
len(y)`` past 127). So each such int needs a condition on the sizes, said where an Op
takes it (:func:`fitting`, read by :func:`.powers.power_conditions`):

* a size itself (``x_int8 * len(x)``, ``x + (n - 3)``): its own node states it
  (:func:`kantensor.ops.pyints.size_conditions`);
* an int power of sizes (``2 ** K``, ``N ** K``): :func:`within` (exact for an int base,
  an inner approximation for a size base);
* anything else made of those, sizes and ints (``3 * N ** K // 3``, ``2 ** K - N``, ``N
  ** K % 7``): its least and greatest values by interval arithmetic over its *atoms* (the
  powers and sizes in it), each assumed within ``[-t - 1, t]`` for the largest ``t`` at
  which the whole int and every step of it fits (:func:`_fits`, an inner approximation:
  it holds only where the int fits). Where it fits at no ``t`` (or is not read: ``abs``,
  ``//`` by a size that may be 0) it is refused, naming it, as a known int out of range is.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..ops.pyints import size_of_number as _size_of
from ..types.conditions import AnyOf, Clause, Condition, Source
from ..types.dim import DimLike
from ..types.dtypes import integer_range, is_integer
from ..types.intervals import interval
from ..types.limits import MAX_SIZE
from ..types.protocol import NUMPY_OPS
from ..types.variable import SizeNumber
from .scalartypes import numpy_number

#: int64's range, where the graph computes every Python int of sizes.
INT64 = (-MAX_SIZE - 1, MAX_SIZE)


def fitting(node: Apply, op: str) -> list[Clause]:
    """What an arithmetic ``node`` computing in an integer dtype needs of the Python ints
    of sizes it takes (module docstring); ``op``: the Op's name its conditions give as
    their source. A node that is itself a step of such an int (``3 * N ** K`` in ``3 * N
    ** K // 3``) says nothing: the node that takes the whole int does."""
    dtype = node.outputs[0].type.dtype if node.outputs and hasattr(
        node.outputs[0].type, "dtype") else None
    if getattr(node.op, "compute", None) != "output" or dtype is None or \
            not is_integer(dtype) or _is_int_of_sizes(node.outputs[0]):
        return []
    low, high = integer_range(dtype)
    source = Source(op=op, detail=f"a Python int of sizes is computed in {dtype}")
    out: list[Clause] = []
    for v in node.inputs:
        if _size_of(v) is not None or not _is_int_of_sizes(v):
            continue
        power = int_power(v)
        if power is not None:
            if high < MAX_SIZE or low == 0:
                out += within(power, high, Source(
                    op=op, detail=f"a power of sizes is a Python int computed in {dtype}"),
                    unsigned=low == 0)
            continue
        out += _fits(v, max(low, INT64[0]), min(high, INT64[1]), source)
    return out


def _is_int_of_sizes(v: Variable) -> bool:
    """Whether ``v`` is a Python int the graph computes from sizes (a 0-d int64 node, not
    a constant, whose leaves are sizes and constants)."""
    if isinstance(v, SizeNumber):
        return True
    if v.owner is None or getattr(v.type, "dtype", None) != "int64" or \
            getattr(v.type, "ndim", 1) != 0 or numpy_number(v):
        return False
    seen, todo = set(), list(v.owner.inputs)
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, SizeNumber | Constant):
            continue
        seen.add(id(x))
        if x.owner is None or getattr(x.type, "ndim", 1) != 0 or numpy_number(x):
            return False  # (a NumPy number: what is computed with it is one too)
        todo.extend(x.owner.inputs)
    return True


def least(v: Variable) -> int | float | None:
    """The least value of the Python int of sizes ``v`` (``-inf`` where not bounded below),
    or None where it is not read."""
    span = _span(v, None, {})
    return None if span is None else span[0]


def _fits(v: Variable, low: int, high: int, source: Source) -> list[Clause]:
    """What keeps the Python int ``v`` within ``[low, high]`` and each step of it within
    int64: each atom within ``[-t - 1, t]`` for the largest such ``t`` (module docstring)."""
    def ok(t: int | None) -> bool:
        span = _span(v, t, {})
        return span is not None and low <= span[0] and span[1] <= high
    if ok(None):
        return []
    if not ok(1):
        raise TypeError(
            f"{source.detail}, which must be within [{low}, {high}] (NumPy 2 raises "
            "OverflowError outside, and the graph's int64 wraps): kantensor does not read "
            "where it is (a sum, product, // or % by ints of its sizes and int powers of "
            "sizes, each at least -2 and at most 1, does not fit); cast the array to a "
            "wider dtype, or compute the int with sizes only")
    lo, hi = 1, MAX_SIZE
    while lo < hi:  # the largest t with ok(t): the span grows with t
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    atoms: dict[int, Any] = {}
    _span(v, lo, atoms)
    out: list[Clause] = []
    for atom in atoms.values():
        if isinstance(atom, tuple):
            out += within(atom, lo, source)
            continue
        dlo, dhi = interval(atom)
        if dhi is None or dhi > lo:
            out.append(Condition(atom, "<=", lo, source))
        if dlo is None or dlo < -lo - 1:
            out.append(Condition(atom, ">=", -lo - 1, source))
    return out


Span = tuple[int | float, int | float]

#: The ufuncs of a Python int of sizes :func:`_span` reads, by arity.
_READ = {np.add: 2, np.subtract: 2, np.multiply: 2, np.floor_divide: 2, np.remainder: 2,
         np.negative: 1}


def _span(v: Variable, t: int | None, atoms: dict[int, Any]) -> Span | None:
    """The least and greatest values of the Python int ``v`` where each atom (a size, an
    int power of sizes) is within ``[-t - 1, t]`` (unbounded at ``t`` None; the atoms
    met, in ``atoms``), or None where it is not read or a step may leave int64."""
    if isinstance(v, SizeNumber):
        size = _size_of(v)
        atoms[id(v)] = size
        dlo, dhi = interval(size)
        return _clip(-math.inf if dlo is None else dlo, math.inf if dhi is None else dhi, t)
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        return (int(data), int(data)) if data.ndim == 0 and data.dtype.kind in "iu" else None
    if getattr(v.type, "dtype", None) != "int64":
        return None
    power = int_power(v)
    if power is not None:
        atoms[id(v)] = power
        return _power_span(power, t)
    node = v.owner
    ufunc = next((u for u in _READ if node is not None and node.op is NUMPY_OPS.get(u)),
                 None)
    if ufunc is None or len(node.inputs) != _READ[ufunc]:
        return None
    parts = [_span(x, t, atoms) for x in node.inputs]
    if any(p is None for p in parts):
        return None
    span = _step(ufunc, parts)
    if span is None or span[0] < INT64[0] or span[1] > INT64[1]:
        return None
    return span


def _clip(lo: int | float, hi: int | float, t: int | None) -> Span:
    return (lo, hi) if t is None else (max(lo, -t - 1), min(hi, t))


def _power_span(power: tuple[DimLike, DimLike], t: int | None) -> Span:
    """The values of ``b ** E`` (``E >= 0``) where :func:`within` ``t`` holds."""
    base = power[0]
    if isinstance(base, int):
        if abs(base) <= 1:
            return {0: (0, 1), 1: (1, 1), -1: (-1, 1)}[base]
        return _clip(1 if base > 0 else -math.inf, math.inf, t)
    low = interval(base)[0]
    return _clip(0 if low is not None and low >= 0 else -math.inf, math.inf, t)


def _step(ufunc: Any, parts: list[Span]) -> Span | None:
    """The span of ``ufunc`` of spans (None where it is not read)."""
    if ufunc is np.negative:
        (a, b), = parts
        return -b, -a
    (a, b), (c, d) = parts
    if ufunc is np.add:
        return a + c, b + d
    if ufunc is np.subtract:
        return a - d, b - c
    if ufunc is np.multiply:
        ends = [_times(x, y) for x in (a, b) for y in (c, d)]
        return min(ends), max(ends)
    if ufunc is np.floor_divide:
        if c == d and c != 0:  # by an int
            ends = sorted(_floor(x, c) for x in (a, b))
            return ends[0], ends[1]
        if c >= 1:  # by a positive divisor: between the number and 0
            return min(a, 0), max(b, 0)
        return None
    if c >= 1:  # remainder by a positive divisor: below it, and the number if >= 0
        return 0, min(b, d - 1) if a >= 0 else d - 1
    if d <= -1:
        return max(a, c + 1) if b <= 0 else c + 1, 0
    return None


def _times(x: int | float, y: int | float) -> int | float:
    return 0 if x == 0 or y == 0 else x * y


def _floor(x: int | float, c: int) -> int | float:
    if math.isinf(x):
        return x if c > 0 else -x
    return x // c


def int_power(v: Variable) -> tuple[DimLike, DimLike] | None:
    """``(b, E)`` of a Python int ``b ** E`` of sizes (``2 ** K``, ``N ** K``: an int
    or a size to a size's power), else None."""
    node = v.owner
    if node is None or len(node.inputs) != 2 or node.op is not NUMPY_OPS.get(np.power):
        return None
    exponent = size_exponent(node)
    if exponent is None:
        return None
    base = node.inputs[0]
    return (_size_of(base) if isinstance(base, SizeNumber) else
            int(np.asarray(base.data))), exponent


def size_exponent(node: Apply) -> Any:
    """The size ``E`` of ``k ** E`` or ``D ** E`` for an int ``k`` or a size ``D``, or
    None: a Python int to a size's power is an int where ``E >= 0`` (the graph's int
    power), a float where it is negative (``2 ** (N - K)`` at ``N < K`` is 0.25)."""
    base, exponent = node.inputs
    if not isinstance(exponent, SizeNumber):
        return None
    if not (isinstance(base, SizeNumber) or isinstance(base, Constant) and base.wrapped
            and np.asarray(base.data).dtype.kind in "iu"):
        return None
    return _size_of(exponent)


#: The exponents at which :func:`within` bounds a size base (an inner approximation of
#: ``|N ** E| <= top`` by ``E <= e and |N| <= top ** (1/e)``, one case each).
_STEPS = (1, 2, 3, 4, 6, 8, 16, 32, 62)


def within(power: tuple[DimLike, DimLike] | None, top: int, source: Source,
           unsigned: bool = False) -> list[Clause]:
    """What keeps Python's int ``b ** E`` (``power``) within ``[-top - 1, top]`` (or
    ``[0, top]`` if ``unsigned``; ``top >= 1``): the graph computes it in int64, which
    wraps past ``2**63 - 1`` where Python's int does not (``2 ** 64`` is not 0), and NumPy
    refuses such an int beside an array of a narrower dtype. For an int ``b``, ``E <= e``
    for the largest ``e`` that fits (exact); for a size ``b``, one of ``|b| <= 1``, ``E <=
    0``, or ``E <= e and |b| <= top ** (1/e)`` for ``e`` in :data:`_STEPS` (an inner
    approximation: it holds only where the power fits)."""
    if power is None:
        return []
    base, exponent = power
    out: list[Clause] = []
    if isinstance(base, int):
        if abs(base) > 1:
            e = 0
            while abs(base) ** (e + 1) <= top:
                e += 1
            out.append(Condition(exponent, "<=", e, source))
        if unsigned and base < 0:
            out.append(Condition(exponent % 2, "==", 0, source))
        return out
    signed = may_be_negative(base)
    cases = [(Condition(base, "<=", 1), *([Condition(base, ">=", -1)] if signed else [])),
             (Condition(exponent, "<=", 0),)]
    for e in _STEPS:
        n = _root(top, e)
        if n < 2:
            break
        cases.append((Condition(exponent, "<=", e), Condition(base, "<=", n),
                      *([Condition(base, ">=", -n)] if signed else [])))
    out.append(AnyOf(tuple(cases), source))
    if unsigned and signed:
        out.append(AnyOf(((Condition(base, ">=", 0),), (Condition(exponent % 2, "==", 0),)),
                         source))
    return out


def _root(top: int, e: int) -> int:
    """The largest ``n`` with ``n ** e <= top``."""
    n = int(round(top ** (1 / e)))
    while n ** e > top:
        n -= 1
    while (n + 1) ** e <= top:
        n += 1
    return n


def may_be_negative(d: DimLike) -> bool:
    low = interval(d)[0]
    return low is None or low < 0

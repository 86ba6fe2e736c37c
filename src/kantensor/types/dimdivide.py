"""Floor division and remainder of sizes: the Dim algebra's ``a // b`` and ``a % b``.

The rules are :mod:`kantensor.types.dim`'s (its module docstring: by an int, split
coefficient by coefficient, common factors cancelled, nested floors collapsed, a value
staying in one block of the divisor a constant; by a size, divided out where the divisor
is ``>= 1`` at every size, else kept with the common int factor out). Apart from the Dim
class because its operators and this division call each other: ``Dim.__floordiv__`` and
``Dim.__mod__`` reach :func:`dim_floordiv` and :func:`dim_mod` through the hook
:data:`kantensor.types.dim.DIVIDE`, which this module fills when it is imported (by
:mod:`kantensor.types`, before anything divides a size). It builds its results with
the algebra's public operations of :mod:`kantensor.types.dim` (``dim_add``,
``dim_split``, ``opaque_dim``...), as the other modules building Dims do.
"""

from __future__ import annotations

import math

from .dim import (
    DIVIDE,
    Dim,
    DimLike,
    dim_add,
    dim_mul,
    dim_split,
    exact_quotient,
    from_poly,
    from_terms,
    opaque_dim,
)
from .intervals import interval
from .poly import Opaque, lone_atom, window
from .poly import divide as _poly_divide
from .poly import split as _poly_split


def _common(r: Dim, b: int) -> tuple[DimLike, int, int, int]:
    """``(y, c, b/g, g)`` with ``r == g*y + c``: ``g`` the gcd of ``b`` and every
    non-constant coefficient of ``r`` (whose coefficients and constant ``c`` lie in
    ``[0, b)``: :func:`kantensor.types.dim.dim_split`'s remainder)."""
    terms = r._terms
    c = 0 if terms[-1][0] else terms[-1][1]
    g = math.gcd(b, *(k for m, k in terms if m))
    if g == 1:
        return r, 0, b, 1
    return from_poly(_poly_split(dim_add(r, -c)._terms, g)[0]), c, b // g, g


def _positive(b: Dim) -> bool:
    """Whether the size divisor ``b`` is >= 1 at every size (its interval's)."""
    low = interval(b)[0]
    return low is not None and low >= 1


def _by_size(op: str, a: DimLike, b: Dim, positive: bool) -> DimLike:
    """``a // b`` (``op`` ``//``) or ``a % b`` (``%``) by a size ``b`` (module
    docstring): exact only where ``b >= 1`` is known (``positive``, or its interval),
    else kept with the common int factor out (``(8*n) % (4*m)`` is ``4*((2*n) % m)``)."""
    if isinstance(a, Dim) and (positive or _positive(b)):
        exact = _poly_divide(a._terms, b._terms)
        if exact is not None:
            return from_poly(exact) if op == "//" else 0
    g = math.gcd(*(c for _, c in b._terms), *(c for _, c in a._terms) if type(a) is Dim else (a,))
    if g > 1:
        a2, b2 = exact_quotient(a, g), exact_quotient(b, g)
        return opaque_dim(op, a2, b2) if op == "//" else dim_mul(opaque_dim(op, a2, b2), g)
    return opaque_dim(op, a, b)


def dim_floordiv(a: DimLike, b: DimLike, positive: bool = False) -> DimLike:
    """``a // b``; a size ``b`` is read as >= 1 where ``positive`` (a traced program's
    case that asked it: :func:`.dimorder.divided`)."""
    if isinstance(b, Dim):
        return _by_size("//", a, b, positive)
    if not b:
        raise ZeroDivisionError(f"size division by zero: ({a})//0")
    if isinstance(a, int) or b == 1:
        return a // b if isinstance(a, int) else a
    if b < 0:  # a//b == (-a)//(-b)
        return dim_floordiv(dim_mul(a, -1), -b)
    if (found := window(a._terms, b)) is not None:  # a window's: in one step
        inner, shift, divisor, q = found
        return dim_add(opaque_dim("//", dim_add(from_terms(inner), shift), divisor), q)
    q, r = dim_split(a, b)  # r's coefficients and constant in [0, b)
    if isinstance(r, int):
        return q
    y, c, b, g = _common(r, b)
    if g > 1:  # (g*y + c)//(g*b') == (y + c//g)//b'
        r = dim_add(y, c // g)
        if b == 1:
            return dim_add(q, r)
    inner = _inner_floor(r)
    if inner is not None:  # (u + x//e)//b == (e*u + x)//(e*b) for an integral u
        x, e, u = inner
        return dim_add(q, dim_floordiv(dim_add(dim_mul(u, e), x), e * b))
    lo, hi = interval(r)
    if lo is not None and hi is not None and lo // b == hi // b:
        return dim_add(q, lo // b)  # r stays within one block of b
    return dim_add(q, opaque_dim("//", r, b))


def _inner_floor(a: Dim) -> tuple[DimLike, int, DimLike] | None:
    """``(x, e, u)`` if ``a`` is ``u + x//e`` for an int ``e > 0`` (the first such floor
    of coefficient 1 in ``a``'s terms)."""
    for mono, c in a._terms:
        atom = mono[0][0] if c == 1 and len(mono) == 1 and mono[0][1] == 1 else None
        if isinstance(atom, Opaque) and atom.op == "//" and type(atom.args[1]) is int:
            rest = from_poly({m: k for m, k in a._terms if m is not mono})
            return atom.args[0], atom.args[1], rest
    return None


def dim_mod(a: DimLike, b: DimLike, positive: bool = False) -> DimLike:
    """``a % b``, ``positive`` as :func:`dim_floordiv`'s."""
    if isinstance(b, Dim):
        return _by_size("%", a, b, positive)
    if not b:
        raise ZeroDivisionError(f"size modulo by zero: ({a}) % 0")
    if isinstance(a, int):
        return a % b
    if b < 0:  # a % b == -((-a) % (-b))
        return dim_mul(dim_mod(dim_mul(a, -1), -b), -1)
    r = dim_split(a, b)[1]  # coefficients and constant in [0, b)
    if isinstance(r, int):
        return r
    y, c, b2, g = _common(r, b)
    if g > 1:  # (g*y + c) % (g*b') == g*((y + c//g) % b') + c % g
        return dim_add(dim_mul(dim_mod(dim_add(y, c // g), b2), g), c % g)
    atom = lone_atom(r._terms)
    if isinstance(atom, Opaque) and atom.op == "%" and type(atom.args[1]) is int \
            and atom.args[1] % b == 0:
        return dim_mod(atom.args[0], b)  # (x % e) % b == x % b where b divides e
    lo, hi = interval(r)
    if lo is not None and hi is not None and lo // b == hi // b:
        return dim_add(r, -b * (lo // b))  # r stays within one block of b
    return opaque_dim("%", r, b)


def _divide(a: DimLike, b: DimLike, remainder: bool, positive: bool) -> DimLike:
    """:data:`kantensor.types.dim.DIVIDE`: ``a % b`` if ``remainder``, else ``a // b``."""
    return dim_mod(a, b, positive) if remainder else dim_floordiv(a, b, positive)


DIVIDE.set(_divide)

"""Integer Fourier–Motzkin elimination over linear forms (:data:`Linear`): whether
inequalities ``form >= 0`` and equations ``form == 0`` over integer variables hold no
point, each derived inequality rounded to integers (``2*t <= 1`` is ``t <= 0``), within
:data:`MAX_INEQUALITIES`; or, with a variable kept, what they say of it. The linear
forms are :mod:`kantensor.types.prove`'s (sizes with their non-linear parts named)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Final

__all__ = ["MAX_INEQUALITIES", "Linear", "add", "infeasible", "scale"]

#: The most inequalities an elimination may hold at once before it gives up.
MAX_INEQUALITIES: Final = 400
#: ``({variable: coefficient}, constant)``: a linear form over variables.
Linear = tuple[dict, int]


def add(a: Linear, b: Linear, k: int = 1) -> Linear:
    """``a + k*b``."""
    coeffs = dict(a[0])
    for v, c in b[0].items():
        n = coeffs.get(v, 0) + k * c
        if n:
            coeffs[v] = n
        else:
            coeffs.pop(v, None)
    return coeffs, a[1] + k * b[1]


def scale(a: Linear, k: int) -> Linear:
    """``k*a``."""
    return {v: k * c for v, c in a[0].items()}, k * a[1]


def _normal(form: Linear) -> tuple | bool:
    """``form >= 0`` in integer normal form (coefficients divided by their gcd, the
    constant rounded down): a hashable ``(items, constant)``; True/False if constant."""
    coeffs, const = form
    items = [(v, c) for v, c in coeffs.items() if c]
    if not items:
        return const >= 0
    g = math.gcd(*(c for _, c in items))
    if g > 1:
        items = [(v, c // g) for v, c in items]
        const = const // g  # floor: sum(a*v) >= ceil(-c/g)
    items.sort(key=lambda vc: _key(vc[0]))
    return tuple(items), const


def _key(v: Any) -> str:
    return repr(v) if not isinstance(v, str) else v


def infeasible(ineqs: Iterable[Linear], eqs: Sequence[Linear], keep: Any = None
                ) -> bool | dict[tuple, int]:
    """Whether no integer point meets every ``form >= 0`` and ``form == 0``: True only
    when proven (elimination ran out of room: False). With ``keep``, every other
    variable is eliminated and the inequalities left over ``keep`` are returned (True
    if infeasible, False if out of room)."""
    ineqs = list(ineqs)
    eqs = list(eqs)
    while eqs:  # substitute an equation solved for a variable of coefficient +-1
        e = eqs.pop()
        coeffs, const = e
        if not coeffs:
            if const:
                return True
            continue
        g = math.gcd(*coeffs.values())
        if const % g:
            return True  # no integer solution (2*x == 1)
        unit = next((v for v, c in coeffs.items() if abs(c) == 1 and v != keep), None)
        if unit is None:
            ineqs += [e, scale(e, -1)]
            continue
        c = coeffs[unit]
        rest = ({v: -k * c for v, k in coeffs.items() if v != unit}, -const * c)  # unit =
        eqs = [_substitute(x, unit, rest) for x in eqs]
        ineqs = [_substitute(x, unit, rest) for x in ineqs]
    system: dict[tuple, int] = {}
    for form in ineqs:
        n = _normal(form)
        if n is False:
            return True
        if n is True:
            continue
        items, const = n
        if items not in system or const < system[items]:
            system[items] = const
    return _eliminate(system, keep)


def _substitute(form: Linear, v: Any, value: Linear) -> Linear:
    c = form[0].get(v)
    if not c:
        return form
    coeffs = dict(form[0])
    del coeffs[v]
    return add((coeffs, form[1]), value, c)


def _eliminate(system: dict[tuple, int], keep: Any = None) -> bool | dict[tuple, int]:
    while True:
        variables: dict[Any, list[int]] = {}  # [lower, upper, any lower > 1, upper < -1]
        for items in system:
            for v, c in items:
                signs = variables.setdefault(v, [0, 0, 0, 0])
                signs[c < 0] += 1
                signs[2 + (c < 0)] |= abs(c) > 1
        variables.pop(keep, None)
        if not variables:
            return system if keep is not None else False  # nothing left: feasible
        # a variable bounded on one side only: its inequalities can always be met
        free = {v for v, (pos, neg, _, _) in variables.items() if not pos or not neg}
        if free:
            system = {items: c for items, c in system.items()
                      if not any(v in free for v, _ in items)}
            continue
        # exact eliminations first (every lower bound's coefficient 1, or every upper
        # bound's -1: no integer point lost; 3*q <= m - n - 1 beside m - 2 <= 3*q, taken
        # first, would keep only n <= 1 and lose that q has no integer value there)
        v = min(variables, key=lambda x: (variables[x][2] and variables[x][3],
                                          variables[x][0] * variables[x][1], _key(x)))
        lower, upper, rest = [], [], {}
        for items, const in system.items():
            c = dict(items).get(v, 0)
            if c > 0:
                lower.append((dict(items), const))
            elif c < 0:
                upper.append((dict(items), const))
            else:
                rest[items] = const
        if len(rest) + len(lower) * len(upper) > MAX_INEQUALITIES:
            return False
        for lo in lower:
            for up in upper:
                a, b = lo[0][v], -up[0][v]
                n = _normal(add(scale(lo, b), scale(up, a)))
                if n is False:
                    return True
                if n is True:
                    continue
                items, const = n
                if items not in rest or const < rest[items]:
                    rest[items] = const
        system = rest

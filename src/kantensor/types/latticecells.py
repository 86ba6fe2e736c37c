"""The cells of a lattice part (:mod:`kantensor.types.lattice`): for each choice of one
argument per min and max, the affine form of the part on the open cell where the chosen
arguments are strictly least (greatest), found by Fourier–Motzkin elimination over the
rationals (:func:`.fourier.feasible`) within what is true of the variables
(:func:`domain`); and, over the cells, which pieces bound which (:func:`bounds`) and
the least sets of pieces above (below) the part (:func:`least`). Each search has a
budget (:data:`MAX_SELECTIONS`, :data:`MAX_SUBSETS`)."""

from __future__ import annotations

import itertools
from typing import Final

from .dim import DimLike
from .fourier import Affine, TooLarge, affine, feasible, minus
from .intervals import interval, nonnegative
from .poly import Opaque, lone_atom

__all__ = ["MAX_SELECTIONS", "MAX_SUBSETS", "bounds", "cells", "domain", "least", "needed"]

MAX_SELECTIONS: Final = 1024
"""Most choices of arguments (one per min and max, made one by one) a size's cells are
searched with (each an elimination)."""
MAX_SUBSETS: Final = 512
"""Most sets of pieces tested to find the least sets above a size (:func:`least`)."""


def cells(part: dict, atoms: list[Opaque], box: list[Affine], known: dict) -> list | None:
    """``(form, cell)`` for each selection whose open cell holds a point: the part's
    affine form there (``known``: atoms over the variables) and the cell's strict
    inequalities (Affines ``> 0``, within ``box``, the variables' :func:`domain`),
    chosen atom by atom (inner first), a cell with no
    point cut off at once; None past :data:`MAX_SELECTIONS` eliminations."""
    out: list = []
    budget = [MAX_SELECTIONS]

    def choose(at: int, value: dict, cell: list) -> bool:
        if at == len(atoms):
            total: dict = {}
            const = 0
            for mono, c in part.items():
                if not mono:
                    const += c
                    continue
                a = mono[0][0]
                const = _scaled_into(total, const, value[a] if a in value
                                     else affine({a: 1}, 0), c)
            out.append((affine(total, const), cell))
            return True
        atom = atoms[at]
        args = [_evaluate(g, value) for g in atom.args]
        sign = 1 if atom.op == "min" else -1
        for i in range(len(args)):
            if any(args[j] == args[i] for j in range(i)):
                continue  # a tie with an earlier equal argument: that one's cell
            new = [minus(args[j], args[i], sign) for j in range(len(args))
                   if args[j] != args[i]]
            if any(not terms and c <= 0 for terms, c in new):
                continue
            grown = cell + [t for t in new if t[0]]
            budget[0] -= 1
            if budget[0] < 0:
                return False
            if not feasible(grown):
                continue
            if not choose(at + 1, {**value, atom: args[i]}, grown):
                return False
        return True

    if not choose(0, known, [t for t in box if t[0]]):
        return None
    return out or None


def domain(variables: dict, known: dict) -> list[Affine]:
    """What is true of the variables, as strict inequalities whose closure holds every
    value they take: ``v > 0`` where ``v >= 0``; ``0 < x % k < k - 1`` and ``x % k < x``
    (``x >= 0``); ``k*(x//k) < x < k*(x//k) + k - 1`` (``x`` linear in the variables);
    else ``x//k < hi//k`` (``x <= hi``) and ``k*(x//k) < y`` where ``x`` is ``y % e``
    (``y >= 0`` linear in the variables: ``n//2`` is never alone the least of
    ``min((m % 4)//2, n - m, n//2)`` only by ``(m % 4)//2 <= m/2``)."""
    out = [affine({v: 1}, 0) for v, nonneg in variables.items() if nonneg]
    for v in variables:
        if not (isinstance(v, Opaque) and v.op in ("//", "%") and type(v.args[1]) is int
                and v.args[1] > 1):
            continue
        x, k = v.args
        inner = _linear_in(x, variables, known)
        if v.op == "%":
            out.append(affine({v: -1}, k - 1))
            if inner is not None and variables.get(v) and nonnegative(x):
                out.append(minus(inner, affine({v: 1}, 0), 1))
        elif inner is not None:
            out.append(minus(inner, affine({v: k}, 0), 1))
            out.append(minus(affine({v: k}, k - 1), inner, 1))
        elif (hi := interval(x)[1]) is not None and hi // k > 0 and variables.get(v):
            out.append(affine({v: -1}, hi // k))  # (x bounded: (m % 4)//2 <= 1)
            y = _remainder_of(x)
            inner = None if y is None or not nonnegative(y) else _linear_in(y, variables, known)
            if inner is not None:  # k*((y % e)//k) <= y % e <= y: (m % 4)//2 <= m/2
                out.append(minus(inner, affine({v: k}, 0), 1))
    return out


def _remainder_of(x: DimLike) -> DimLike | None:
    """``y`` where ``x`` is one remainder ``y % e`` by an int; else None."""
    atom = None if isinstance(x, int) else lone_atom(x._terms)
    return atom.args[0] if isinstance(atom, Opaque) and atom.op == "%" and \
        type(atom.args[1]) is int else None


def _linear_in(x: DimLike, variables: dict, known: dict) -> Affine | None:
    """``x`` as an affine form over ``variables`` (``known`` atoms written over them);
    None where it is not one."""
    if isinstance(x, int):
        return (), x
    if any(mono and (len(mono) != 1 or mono[0][1] != 1 or
                     mono[0][0] not in variables and mono[0][0] not in known)
           for mono, _ in x._terms):
        return None
    return _evaluate(x, known)


def _scaled_into(total: dict, const: int, form: Affine, c: int) -> int:
    for v, k in form[0]:
        total[v] = total.get(v, 0) + c * k
    return const + c * form[1]


def _evaluate(g: DimLike, value: dict) -> Affine:
    if isinstance(g, int):
        return (), g
    total: dict = {}
    const = 0
    for mono, c in g._terms:
        if not mono:
            const += c
            continue
        a = mono[0][0]
        const = _scaled_into(total, const, value[a] if a in value else affine({a: 1}, 0), c)
    return affine(total, const)


def bounds(p: Affine, form: Affine, cell: list, below: bool) -> bool:
    """Whether ``p >= form`` (``below``) or ``p <= form`` everywhere on the cell: the cell
    with ``form - p > 0`` (``p - form > 0``) holds no point."""
    gap = minus(form, p, 1 if below else -1)
    if not gap[0]:
        return gap[1] <= 0
    return not feasible([t for t in cell if t[0]] + [gap])


def least(pieces: list, sides: list, forms: list, above: bool
           ) -> list[list[Affine]] | None:
    """The least sets ``{p : p(x) >= f(x)}`` (``above``; else ``<=``) over the points
    ``x`` of the domain (each cell's set, less the pieces on the other side of ``f``
    somewhere in it that can be there together: the most such pieces, by elimination),
    as lists of pieces: ``f`` is the max of their mins (Ovchinnikov's), or dually."""
    found: set[frozenset] = set()
    budget = [MAX_SUBSETS]
    for (form, cell), u in zip(pieces, sides, strict=True):
        other = [p for p in forms if p not in u]
        sets = _together(form, cell, other, budget, above)
        if sets is None:
            return None
        found.update(frozenset(forms) - w for w in sets)
    least = [u for u in found if not any(v < u for v in found)]
    order = {f: i for i, f in enumerate(forms)}
    return sorted(([p for p in forms if p in u] for u in least),
                  key=lambda ps: [order[p] for p in ps])


def _together(form: Affine, cell: list, other: list, budget: list, above: bool
              ) -> list[frozenset] | None:
    """The largest sets of ``other`` that are all below ``form`` (``above``; else above
    it) at one point of the cell; None past the budget of eliminations."""
    base = [t for t in cell if t[0]]
    sign = 1 if above else -1
    out: list[frozenset] = []
    for size in range(len(other), -1, -1):
        for combo in itertools.combinations(other, size):
            w = frozenset(combo)
            if any(w <= v for v in out):
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if not w or feasible(base + [minus(form, p, sign) for p in w]):
                out.append(w)
    return out


def needed(forms: list[Affine], domain: list[Affine], op: str) -> list[Affine]:
    """``forms`` without the pieces never alone the least (``op`` "min"; else the
    greatest) at an integer point of ``domain``, dropped one by one: where ``q - p >=
    1`` for every other piece ``q`` kept (``p - q`` for a max) and the domain's ``t >=
    0`` hold at no rational point (relaxed by ``1/``:data:`_SLACK`, as strict
    inequalities), some other piece is at most ``p`` at every integer point (each
    variable is an integer, each form's coefficients are), so their min is the same
    without ``p``: ``min((m % 4)//2, n - m, n//2)`` is ``min((m % 4)//2, n - m)``, whose
    cell of ``n//2`` holds rational points only. Past the budget of an elimination, the
    piece is kept."""
    sign = 1 if op == "min" else -1
    base = [_scaled(t, k, 1) for t, k in domain if t]  # (t >= 0: t > -1/_SLACK)
    kept = list(forms)
    for p in forms:
        others = [q for q in kept if q != p]
        gaps = [minus(q, p, sign) for q in others]
        try:  # (q - p >= 1: q - p > 1 - 1/_SLACK)
            alone = not others or any(not t and k < 1 for t, k in gaps) or feasible(
                base + [_scaled(t, k, 1 - _SLACK) for t, k in gaps if t])
        except TooLarge:
            alone = True
        if not alone:
            kept = others
    return kept


_SLACK: Final = 1024


def _scaled(terms: tuple, const: int, shift: int) -> Affine:
    """``_SLACK*(terms + const) + shift`` (``> 0``)."""
    return tuple((v, _SLACK * c) for v, c in terms), _SLACK * const + shift

"""A size's floors and remainders by one divisor written over its *digits*.

For a size ``n`` and an int ``d >= 2``, ``n == d*q + r`` with ``q = n//d >= 0`` and ``r
= n % d`` in ``0 .. d - 1``; and ``(n + c)//d`` is ``q + c//d``, ``(n + c) % d`` is ``r``
where ``d`` divides ``c``; for ``d == 2`` and ``c`` odd, ``(n + c)//2`` is ``q + r +
(c - 1)//2`` and ``(n + c) % 2`` is ``1 - r``. Where the atoms by ``d > 2`` are shifted
by one residue ``s`` (``(n + 3)//4``, ``(n + 3) % 4``, ``(n + 7)//4``), the digits are
``q = (n + s)//d`` and ``r = (n + s) % d``, and ``n == d*q + r - s``. These are
identities at every size, and affine in ``q`` and ``r``: so
:mod:`kantensor.types.lattice`, which takes such atoms as variables free within their
bounds, sees how they depend on ``n`` (``max(k + min(k % 4, m), m + 4*(k//4) + min(k %
4, m)) - m - 4*(k//4)`` is ``k % 4``; ``n//2 + (n + 1)//2`` is ``n`` beside a min of
several sizes; ``min(4*((n + 3)//4), n + m//3) - n`` is ``min(3, (n + 3) % 4 + m//3) -
(n + 3) % 4``). Other atoms of ``n`` (``(n + 1)//3`` beside ``n//3``, a remainder by
another divisor) stay variables."""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from .dim import atom_dim
from .dimdivide import dim_floordiv, dim_mod
from .poly import Opaque, atom_key, lone_atom

__all__ = ["digits", "folds"]

Linear = tuple[dict, int]  # {variable: coefficient}, constant


def digits(variables: dict[Hashable, bool], beside: Iterable[Hashable] = ()
           ) -> tuple[dict[Hashable, Linear], dict]:
    """``(written, variables')``: for each size ``n`` with two atoms or more by one
    divisor ``d`` and shift ``s`` among ``variables`` (or one, and ``n`` itself among them
    or ``beside``), ``n`` and those atoms written over ``q = (n + s)//d`` and ``r = (n +
    s) % d`` (the divisor and shift of most atoms, then the least divisor, then the least
    shift); ``variables'`` the variables left and the digits (each ``>= 0``)."""
    beside = set(beside)
    groups: dict[tuple, list] = {}
    for v in variables:
        found = _of_one(v)
        if found is not None:
            n, d, c = found
            groups.setdefault((n, d, c % d if d > 2 else 0), []).append((v, c))
    chosen: dict[Hashable, tuple[int, int]] = {}
    for (n, d, s), atoms in sorted(groups.items(),
                                   key=lambda g: (atom_key(g[0][0]), g[0][1], g[0][2])):
        best = chosen.get(n)
        if best is None or (len(atoms), -d) > (len(groups[(n, *best)]), -best[0]):
            chosen[n] = d, s
    written: dict[Hashable, Linear] = {}
    for n, (d, s) in chosen.items():
        atoms = groups[n, d, s]
        if len(atoms) < 2 and n not in variables and n not in beside:
            continue  # one atom of n alone: nothing ties it to another
        q = lone_atom(dim_floordiv(atom_dim(n) + s, d)._terms)
        r = lone_atom(dim_mod(atom_dim(n) + s, d)._terms)
        written[n] = ({q: d, r: 1}, -s)
        for v, c in atoms:
            odd = (c - s) % d  # (only where d == 2: else d divides c - s)
            if v.op == "//":
                written[v] = ({q: 1, r: 1} if odd else {q: 1}, (c - s) // d)
            else:
                written[v] = ({r: -1}, 1) if odd else ({r: 1}, 0)
    if not written:
        return {}, variables
    out = {v: nonneg for v, nonneg in variables.items() if v not in written}
    for form, _ in written.values():
        out.update(dict.fromkeys(form, True))
    return {v: w for v, w in written.items() if w != ({v: 1}, 0)}, out


def _of_one(v: Hashable) -> tuple[Hashable, int, int] | None:
    """``(n, d, c)`` where ``v`` is ``(n + c)//d`` or ``(n + c) % d`` (``n`` a size, ``d >=
    2`` an int); None where it is not."""
    if not (isinstance(v, Opaque) and v.op in ("//", "%") and type(v.args[1]) is int):
        return None
    x, d = v.args
    if d < 2 or isinstance(x, int) or len(x._terms) > 2:
        return None
    n, c = None, 0
    for mono, k in x._terms:
        if not mono:
            c = k
        elif n is None and k == 1 and len(mono) == 1 and mono[0][1] == 1 and \
                not isinstance(mono[0][0], Opaque):
            n = mono[0][0]
        else:
            return None
    if n is None:
        return None
    return n, d, c


def folds(written: dict[Hashable, Linear]
          ) -> list[tuple[Hashable, int, Hashable, Hashable, int]]:
    """``(n, d, q, r, s)`` for each size ``n`` written ``d*q + r - s`` over its digits."""
    out = []
    for n, (form, c) in written.items():
        if not isinstance(n, Opaque):
            (q, d), (r, _) = sorted(form.items(), key=lambda t: -t[1])
            out.append((n, d, q, r, -c))
    return out

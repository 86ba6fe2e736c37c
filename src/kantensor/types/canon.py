"""Canonical forms of size expressions on the decidable fragment.

:func:`canonical_form` rewrites a size into one form per function of the sizes, where it
can decide that function: a size is split into a constant, one part per symbol that
mentions that symbol alone, and the rest (products, parts over several symbols). Each
one-symbol part built from ``+``, int multiples, floor division and remainder by ints,
min and max is a quasi-affine function of its symbol (:mod:`kantensor.types.quasi`);
where it is one from ``n = 0`` on, it is written from its table alone: among the
sparsest sums ``a*n + c1*((n + s1)//d1) + c2*((n + s2)//d2)`` that have that table (a
floor with coefficient ``-k*e`` beside ``e*n`` also read as ``e*((n + s) % k)``), the
one of fewest terms, then of shortest text (ties by text). So

* ``n % 3`` and ``n - 3*(n//3)`` are ``n % 3``; ``n//2 + (n + 1)//2`` (Hermite's
  identity) is ``n``; ``-(-n//3)`` (a ceil) is ``(n + 2)//3``;
* a min or max of one symbol that equals one quasi-affine function from 0 on
  (``min((h + 1)//2, h//2)``, ``max(n//2, n//3)``) is that function's form;
* a part quasi-affine only past a threshold is the min or max of two such forms, the
  one it is past the threshold and the one its values before it follow (``max(0, n -
  5) + 5`` is ``max(5, n)``), with the constant inside when it is the only such part;
  constant before the threshold, it is the late form at ``max(n, threshold)``
  (``max(7, n) % 3``).

Over several symbols, atoms that are functions of one linear form ``u`` with
coefficients > 0 over symbols and min and max of several, or of ``-u`` (``(m + n +
1)//2``, ``((m + n)//2 + m + n)//3``, ``min(5, m + n)``, ``(min(m, n) + 1)//2``,
``min(-3, -m - n)``) are a part of ``u``, with the terms of the sum that are a multiple
of ``u``, and get its form (``(m + n + 1)//2 + (m + n)//2`` is ``m + n``; ``t*u`` moves
between ``u``'s part and its sizes' parts, so of the ``t`` where ``u``'s part grows by
``-1 .. 1`` a step on average, the one whose whole form has fewest terms, then slopes in
``0 .. 1``, then shortest text: :func:`_shifts`); then remainders of several symbols are
taken apart (``a % k`` as ``a - k*(a//k)``) and read back where that leaves fewest terms
(:mod:`.readback`), so they are written one way only (``m + n - 2*((m + n)//2)`` is ``(m
+ n) % 2``), in passes (:data:`MAX_PASSES`). First, a remainder ``c*(a % e)`` of one
size inside a floor or remainder by ``d`` of several sizes is written ``c*a`` where
``d`` divides ``c*e`` and no other atom of its argument holds it (``(n + m % 2)//2 +
m//2`` is ``(m + n)//2``), unless a floor by a ``d`` that does not divide it holds it
(then floors over ``m + n`` go over ``n + m % 2``: :mod:`.canonunfold`), one of min
and max whose pieces agree modulo ``d`` has its multiple of ``d`` out
(:mod:`kantensor.types.congruent`), one of parts of one size each has each part with
a threshold written by its residues modulo ``d`` (:mod:`kantensor.types.canonresidue`),
and one over a size and its digits ``g*B + E`` (``E`` bounded below ``g``) is by
``d/g`` (:mod:`kantensor.types.canonfloor`).

Left as built (sound, not proven canonical): a part with a threshold that no such min
or max or clamp is (``max(7, n) % 3 - 3*n``), a part whose period or threshold is past the limits of
:mod:`~kantensor.types.quasi`, products, and atoms over several symbols that are no
function of one linear form (their arguments get their forms; sums of min and max are
:mod:`kantensor.types.lattice`'s, applied to the size as written and to its form). A
part that needs three floors or more gets one form, not always the shortest. The value
never changes: the form chosen is checked against the table it was made from.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from fractions import Fraction
from functools import lru_cache
from typing import Final

from .canonextreme import extremes_floored
from .canonfloor import digits_in
from .canonperiodic import periodic_out
from .canonresidue import residues_out
from .canonsplit import separated
from .canonunfold import unfolded
from .congruent import congruent_out
from .dim import Dim, DimLike, atom_dim
from .intervals import nonnegative_atom
from .lattice import lattice_form, lattice_kept
from .narrow import narrowed
from .poly import Opaque, lone_atom, poly_key
from .quasi import in_fragment, table
from .quasiform import one_symbol_form
from .readback import atom_symbols as _atom_symbols
from .readback import by_int as _by_int
from .readback import has_opaque as _has_opaque
from .readback import of_terms, one_floor
from .readback import remainders as _remainders
from .readback import several as _several
from .settle import settle
from .stated import split_constant
from .symbols import APPLY, rebuild, substitute

__all__ = ["canonical_form", "formed_as_is"]

MAX_PASSES: Final = 3
"""Most passes of :func:`canonical_form` (a pass can leave parts the next one forms:
``(m + 2*n) % 2`` is ``m % 2``)."""
MAX_ROUNDS: Final = 4
"""Most rounds of :func:`canonical_form`, each from the last one's result: it stops at
the first that leaves its input as it is, so the form is its own form (idempotent)
wherever that is reached within these rounds."""


def canonical_form(x: DimLike) -> DimLike:
    """``x`` in the one form of its function of the sizes, where the fragment decides
    it (module docstring); else ``x`` with the parts that are decided made canonical.
    Its sum of min and max over several sizes gets its form
    (:mod:`kantensor.types.lattice`) first (as written: a form of the function over
    the rationals, before the one-symbol parts get integer forms, ``2 - min(3, 2*n)``
    is ``max(-1, n//2 - 2*n + 2)``), then again after those, and what that leaves is
    formed again."""
    if formed_as_is(x):
        return x
    return settle(_round, x, MAX_ROUNDS)  # (a round can leave a constant inside a min
    # of several, or a sum of min and max, that the next takes out)


def _round(x: Dim) -> DimLike:
    kept = lattice_kept(x)  # (a min U of several beside its floor: formed with U whole,
    y = _passes(lattice_form(x) if kept is None else kept)  # its multiple placed by its
    # part over U, then opened below; opened first, 2*U - U//2 + min(m, n) - max(k, m)
    # took 2*U into the rest's min where 2*((U + 1)//2) + U//2 + ... had no U to open)
    z = lattice_form(y)
    return y if z is y else _passes(z)


def formed_as_is(x: DimLike) -> bool:
    """Whether ``x`` is its canonical form as it is, by its shape: an int, a
    polynomial over symbols, or one floor (:func:`canonical_form` gives it back)."""
    return isinstance(x, int) or not _has_opaque(x) or one_floor(x)


def _passes(x: DimLike) -> DimLike:
    for _ in range(MAX_PASSES):  # a form over a linear form may leave one-symbol parts
        if isinstance(x, int) or not _has_opaque(x):
            return x  # a polynomial over symbols is already canonical (types.poly)
        if one_floor(x):
            return x  # its own form (a pool's or a strided conv's size: the common case)
        x = separated(periodic_out(x, canonical_form))  # (sizes through bounded parts
        x = x if isinstance(x, int) else narrowed(x)  # only, atoms that are sums of one-
        # size ones: canonperiodic, canonsplit)
        if not isinstance(x, int) and (y := unfolded(x)) is not x:
            x = narrowed(y) if not isinstance(y, int) else y  # (what came out of a min in
            # a floor may leave a narrow argument: (2*k + 2*m + min(1, k) + 2)//4)
        x = x if isinstance(x, int) else residues_out(digits_in(
            congruent_out(x, canonical_form), canonical_form))
        if isinstance(x, int):
            return x
        y = _canonical(x._terms)
        y = y if isinstance(y, int) else extremes_floored(y)  # (after Hermite's identity
        # over a min of several: min(4*m + 1, 5*n)//4 is min(m, n//4 + n))
        if not isinstance(y, int) and y._terms == x._terms:
            return y
        x = y
    return x


@lru_cache(maxsize=1 << 14)
def _canonical(terms: tuple) -> DimLike:
    """Kept per terms, not per Dim: a Dim's ``==`` may consult a traced program's
    answers (types.dimorder), which must not make two sizes share a form."""
    parts: dict[Hashable, dict] = {}
    cores: dict[tuple, dict] = {}
    rest: dict = {}
    constant = 0
    for mono, c in terms:
        if not mono:
            constant += c
            continue
        atom = mono[0][0]
        symbols = _atom_symbols(atom)
        if len(mono) == 1 and mono[0][1] == 1 and len(symbols) == 1:
            parts.setdefault(next(iter(symbols)), {})[mono] = c
        elif len(mono) == 1 and mono[0][1] == 1 and (core := _core(atom)) is not None:
            cores.setdefault(core, {})[mono] = c
        else:
            rest[mono] = c
    over: dict[tuple, Dim] = {}  # each linear form u's part, over the placeholder
    for core, part in cores.items():
        p = sum((c * _over(atom_dim(atom), core) for ((atom, _),), c in part.items()), start=0)
        found = [] if isinstance(p, int) or not in_fragment(p, _U) else [
            (t, form, aside) for t, aside in _shifts(p)
            if (form := one_symbol_form(p + t * atom_dim(_U), _U)) is not None]
        if found:
            over[core] = found
        else:
            rest.update(part)  # (no form from its table: its atoms stay as written)
    chosen = {core: found[0] for core, found in over.items()}
    best = None
    for core in sorted(over, key=poly_key):  # each u's t in turn, the others' as chosen
        # so far (by structure: by str, atoms printed by address, so forms were not one)
        for shift in over[core][1 if best else 0:]:  # (linear in the number of u's)
            out = _assembled(parts, rest, {**chosen, core: shift}, constant)
            key = (0 if isinstance(out, int) else len(out._terms),
                   sum(a for _, _, a in {**chosen, core: shift}.values()), len(str(out)), str(out))
            if best is None or key < best[0]:
                best = key, out
                chosen[core] = shift
    return _assembled(parts, rest, chosen, constant) if best is None else best[1]


def _shifts(p: Dim) -> list[tuple[int, bool]]:
    """The ``t`` with ``p + t*u`` growing by ``-1 .. 1`` a step on average (past its
    threshold), each with whether that slope is outside ``0 .. 1``: ``t*u`` moves between
    ``u``'s part and its sizes' parts (``(k + m + 1)//2 - k`` is ``m - (k + m)//2``), so
    the forms made with these ``t`` are a set that depends on the size alone, of which
    :func:`_canonical` keeps the one of fewest terms, then of slopes in ``0 .. 1``
    (``min(3, u)``, not ``min(0, 3 - u) + u``), then of shortest text."""
    found = table(p)
    if found is None:
        return []
    threshold, period, _, increments = found
    slope = Fraction(sum(increments[threshold:threshold + period]), period)
    return [(t, not 0 <= slope + t <= 1)
            for t in range(math.ceil(-1 - slope), math.floor(1 - slope) + 1)]


def _assembled(parts: dict, rest: dict, shifts: dict, constant: int) -> DimLike:
    """The size with ``t*u`` moved into each linear form ``u``'s part out of its sizes'
    parts (``shifts``: ``{u: (t, the form of u's part then)}``), each part in its form."""
    parts = {s: dict(part) for s, part in parts.items()}
    rest = dict(rest)
    pieces: list[DimLike] = []  # the parts written as a min or max
    rest_forms: list[DimLike] = []
    for core, (t, form, _) in shifts.items():
        for mono, k in core:
            home = _home(mono, parts, rest)
            home[mono] = home.get(mono, 0) - t * k
            if not home[mono]:
                del home[mono]
        constant += form[1]  # a min or max is a piece (max(3, k + n), the constant in)
        u = canonical_form(of_terms(dict(core).items()))  # u in its form
        (pieces if _lone_minmax(form[0]) else rest_forms).append(substitute(form[0], {_U: u}))
    total: DimLike = 0
    for s, part in parts.items():
        p = of_terms(part.items())
        if not isinstance(p, int) and _has_opaque(p) and in_fragment(p, s):
            form = one_symbol_form(p, s)
            if form is not None:
                constant += form[1]
                if _lone_minmax(form[0]) is None:
                    total = total + form[0]
                else:
                    pieces.append(form[0])
                continue
            if (found := _over_own(p)) is not None:  # no form from its table, but one
                total = total + found  # over an atom of no form it is a function of
                continue
            if any(a.op in ("min", "max") for a in _opaque_atoms(p)):  # no form from its
                p = _inner(p)  # table: its sum of min and max's form over its atoms in
                total = total + lattice_form(p, one=True)  # their forms (what simplify
                continue  # forms first: min((n//3) % 4, 2*(n % 2)) is one form)
        total = total + _inner(p)
    for form in pieces + rest_forms:
        total = total + form
    if rest:
        total = total + _inner(of_terms(rest.items()))
    return _constant_in(_remainders(total) + constant)


def _over_own(p: Dim) -> DimLike | None:
    """A part of one size with no form from its table that is a function of one atom
    ``g >= 0`` of that size through floors and remainders of ``a*g + c`` (``g`` has no
    form either: ``min(3, n % 3 + n//4)``, ``max(n % 4 + 5, n + n % 4) % 3``), written
    over ``g`` as :func:`_canonical` writes a part over a linear form ``u`` (``(g + 1)//2 +
    g//2`` is ``g``, ``g % 2 + 2*(g//2)`` is ``g``: Hermite's identity over ``g``), ``g``
    in its form; None where it is none (or that part has no form over ``g``)."""
    inner = None
    for mono, _ in p._terms:
        if not mono:
            continue
        if len(mono) != 1 or mono[0][1] != 1 or not isinstance(mono[0][0], Opaque):
            return None
        atom = mono[0][0]
        if _by_int(atom, "//") or _by_int(atom, "%"):
            arg = atom.args[0]
            g = None if isinstance(arg, int) else lone_atom(
                tuple((m, 1) for m, _ in arg._terms if m))
            if not isinstance(g, Opaque) or inner not in (None, g):
                return None
            inner = g
        elif inner not in (None, atom):
            return None
    if inner is None or not nonnegative_atom(inner):
        return None
    q = _over(p, ((((inner, 1),), 1),))
    if q is None or isinstance(q, int) or not in_fragment(q, _U):
        return None
    form = one_symbol_form(q, _U)
    return None if form is None else \
        substitute(form[0], {_U: canonical_form(atom_dim(inner))}) + form[1]


def _home(mono: tuple, parts: dict, rest: dict) -> dict:
    """The part a term of a linear form ``u`` belongs to: its symbol's (an atom of one
    symbol too), else the rest (a min or max of several)."""
    atom = mono[0][0]
    symbols = _atom_symbols(atom)
    if len(symbols) == 1:
        return parts.setdefault(next(iter(symbols)), {})
    return rest


def _constant_in(x: DimLike) -> DimLike:
    """``x`` with its constant inside its one min or max of one size or of one linear
    form, where it has one such term (read off the sum as assembled, however its parts
    were grouped: ``m + n + min(5, k) + 1`` beside a floor over ``m + n + min(5, k)``
    too): ``max(5, n)``, not ``max(0, n - 5) + 5``; ``2*max(3, n) + 1``, not ``2*max(0,
    n - 3) + 7``; ``min(3, u) - (n + 3) % 4``, not ``min(0, u - 3) + 3 - (n + 3) % 4``."""
    if isinstance(x, int):
        return x
    found = [(c, mono[0][0]) for mono, c in x._terms if len(mono) == 1 and mono[0][1] == 1
             and isinstance(mono[0][0], Opaque) and mono[0][0].op in ("min", "max")
             and (len(_atom_symbols(mono[0][0])) == 1 or _core(mono[0][0]) is not None)]
    if len(found) != 1:
        return x
    c, atom = found[0]
    q = split_constant(x)[1] // c
    if not q:
        return x
    return x - c * atom_dim(atom) - c * q + c * APPLY[atom.op](*(g + q for g in atom.args))


class _Placeholder:
    """The symbol ``u`` standing for a linear form over several symbols."""

    def __str__(self) -> str:
        return "u"


_U: Final = _Placeholder()


def _core(atom: Hashable) -> tuple | None:
    """The linear form ``u`` (terms, coefficients > 0 of gcd 1, over two symbols or more,
    or over a min or max of several that is ``>= 0``) that an atom over several symbols
    is a function of, through ``u`` or ``-u`` (``(m + n + 1)//2``, ``(m + n + 2*((m +
    n)//2))//4``, ``min(5, m + n)``, ``(min(m, n) + 1)//2``, ``min(-3, -m - n)``:
    :func:`_over` writes it over ``u``); None where it is none."""
    if not isinstance(atom, Opaque):
        return None
    linear = _linear_part(atom)
    if linear is not None and all(c < 0 for _, c in linear):  # -u: a function of u too
        linear = tuple((mono, -c) for mono, c in linear)
    if linear is None or any(c <= 0 for _, c in linear) or (
            len(linear) < 2 and not isinstance(linear[0][0][0][0], Opaque)):
        return None
    g = math.gcd(*(c for _, c in linear))
    core = tuple((mono, c // g) for mono, c in linear)
    if len(core) == 1 and core[0][0][0][0] is not atom:  # a min or max of several that
        inner = _core(core[0][0][0][0])  # is a function of its own u: that u
        if inner is not None and _over(atom_dim(atom), inner) is not None:
            return inner  # (min(3*k + 3*n, k + n + 24) % 2 is (k + n) % 2)
    return core if _over(atom_dim(atom), core) is not None else None


def _linear_part(atom: Opaque) -> tuple | None:
    """The terms of symbols (and of min and max of several symbols, ``>= 0``) of the
    first argument (depth first) of ``atom`` that has some."""
    for g in atom.args:
        if isinstance(g, int):
            continue
        linear = tuple((m, c) for m, c in g._terms
                       if len(m) == 1 and m[0][1] == 1 and _variable(m[0][0]))
        if linear:
            return linear
        for mono, _ in g._terms:
            if mono and isinstance(mono[0][0], Opaque):
                found = _linear_part(mono[0][0])
                if found is not None:
                    return found
    return None


def _variable(atom: Hashable) -> bool:
    """A symbol, a min or max of several symbols that is ``>= 0``, or a floor,
    remainder, min or max of one symbol that is ``>= 0`` and its own form (``m % 2``,
    ``min(5, m)``; ``n//3`` where the Dim algebra leaves it beside the floor over it, as
    in ``(m + 2*(n//3))//4``): what a linear form ``u`` may be over."""
    if not isinstance(atom, Opaque):
        return True
    if atom.op in ("min", "max") and _several(atom):
        return nonnegative_atom(atom)
    if _by_int(atom, "%") and _several(atom):  # (a remainder of several sizes: bounded,
        return _remainder_of_extreme(atom)  # max(k, m) % 4 in Hermite's identity over u)
    return len(_atom_symbols(atom)) == 1 and nonnegative_atom(atom) and _formed(atom)


def _remainder_of_extreme(atom: Opaque) -> bool:
    """Whether ``atom`` is a remainder by an int of a min or max of several sizes
    (``max(k, m) % 4``): a variable of a linear form ``u`` as the min or max is."""
    arg = atom.args[0]
    inner = None if isinstance(arg, int) else lone_atom(arg._terms)
    return isinstance(inner, Opaque) and inner.op in ("min", "max") and \
        arg._terms == atom_dim(inner)._terms and _formed(atom)


def _formed(atom: Opaque) -> bool:
    """Whether an atom of one symbol is its own form (else the atoms over it are
    formed over their arguments' forms first: ``(m + min(8, 4*n)) % 4`` is ``m % 4``
    once ``min(8, 4*n)`` is ``4*min(2, n)``)."""
    form = canonical_form(atom_dim(atom))
    return not isinstance(form, int) and lone_atom(form._terms) == atom


def _over(x: DimLike, core: tuple) -> DimLike | None:
    """``x`` written over ``u`` (the placeholder :data:`_U`) for the linear form
    ``core``, where ``x`` is built from ``t*core``, ints, floors and remainders by ints,
    min and max; None where it is not."""
    if isinstance(x, int):
        return x
    total: DimLike = 0
    linear = {}
    for mono, c in x._terms:
        if not mono:
            total = total + c
            continue
        if len(mono) != 1 or mono[0][1] != 1:
            return None
        atom = mono[0][0]
        if not isinstance(atom, Opaque) or any(mono == k for k, _ in core):
            linear[mono] = c
            continue
        if atom.op in ("//", "%") and _by_int(atom, atom.op):
            inner = _over(atom.args[0], core)
            if inner is None:
                return None
            total = total + c * APPLY[atom.op](inner, atom.args[1])
        elif atom.op in ("min", "max"):
            args = [_over(g, core) for g in atom.args]
            if None in args:
                return None
            total = total + c * APPLY[atom.op](*args)
        else:
            return None
    if linear:
        t = linear.get(core[0][0], 0) // core[0][1]
        if len(linear) != len(core) or any(linear.get(m) != t * k for m, k in core):
            return None
        total = total + t * atom_dim(_U)
    return total


def _lone_minmax(x: DimLike) -> tuple[int, Opaque] | None:
    """``(c, atom)`` where ``x`` is ``c*atom`` for a min or max ``atom``."""
    if isinstance(x, int) or len(x._terms) != 1:
        return None
    mono, c = x._terms[0]
    atom = lone_atom(((mono, 1),))
    return (c, atom) if isinstance(atom, Opaque) and atom.op in ("min", "max") else None


def _opaque_atoms(x: Dim) -> list[Opaque]:
    return [a for mono, _ in x._terms for a, _ in mono if isinstance(a, Opaque)]


def _inner(x: DimLike) -> DimLike:
    """``x`` with the arguments of its opaque atoms made canonical."""
    if isinstance(x, int) or not _has_opaque(x):
        return x
    return rebuild(x, lambda a: _inner_atom(a) if isinstance(a, Opaque) else None)


def _inner_atom(a: Opaque) -> DimLike | None:
    """The atom over canonical arguments; None (kept) where they are its own."""
    args = tuple(canonical_form(g) for g in a.args)
    if all(g is f or _terms_of(g) == _terms_of(f) for g, f in zip(args, a.args, strict=True)):
        return None
    if a.op in ("//", "%") and isinstance(args[1], int) and args[1] == 0:
        return None  # a divisor 0 at every size (min((m%3)//2, (m%3)%2)): no value, kept
    return APPLY[a.op](*args)


def _terms_of(x: DimLike) -> tuple | int:
    return x if isinstance(x, int) else x._terms

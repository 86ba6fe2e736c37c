"""Integer polynomials over atoms, in canonical form: the representation under Dim.

A polynomial is a tuple of terms ``(monomial, coefficient)``, with no zero coefficient,
sorted graded-lexicographically (degree descending, then atoms); the constant term, if
any, comes last. A monomial is a tuple of ``(atom, power > 0)`` sorted by atom. An atom
is a symbol name (a ``str``), the key of an unknown (any other hashable object, ordered
by its text, ties by identity) or an :class:`Opaque` term such as ``a//b``; a
:class:`Private` name is a symbol no user can name. One
polynomial has one canonical form, so structural equality is algebraic equality.

This module knows nothing of :class:`~kantensor.types.dim.Dim`, which wraps these terms
and adds the operations on opaque atoms (``//``, ``%``, min, max).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, Final, TypeAlias

__all__ = ["MAX_COEFFICIENT_BITS", "MAX_PRODUCT_PAIRS", "MAX_TERMS", "Atom", "Monomial",
           "Opaque", "Private", "Terms", "add", "atom_key", "canonical",
           "check_power", "check_product", "divide", "lone_atom", "mul", "ordered_args",
           "poly_key", "power_bound", "product_bound", "render", "split", "terms_by_size",
           "window", "window_form"]

MAX_TERMS: Final = 1_000
"""Most terms of a polynomial a product or a power may expand to (checked before)."""
MAX_PRODUCT_PAIRS: Final = 100 * MAX_TERMS
"""Most pairs of terms one product multiplies (the work of :func:`mul`)."""

Atom: TypeAlias = "Hashable"  # a symbol name (str), an unknown's key, or an Opaque
Monomial: TypeAlias = tuple[tuple[Atom, int], ...]  # (atom, power > 0), sorted by atom
Terms: TypeAlias = tuple[tuple[Monomial, int], ...]  # (monomial, coefficient != 0), sorted


class Private(str):
    """The name of a symbol no user can name: a ``str`` (a named size wherever names are
    read) equal to itself only and hashed by identity, so that a user's size spelt the
    same, or another private name of the same text, is another symbol. Its text is for
    printing and need not be an identifier (:func:`kantensor.types.symbols.private`);
    :class:`~kantensor.types.symbols.DataSymbol` is one."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    __hash__ = object.__hash__


class Opaque:
    """An opaque atom: ``op`` (``//``, ``%``, ``min``, ``max``) over canonical arguments,
    with its text (made by the caller, which knows how its arguments print). ``by_size``:
    whether it or an argument, at any depth, is a quotient or remainder by a size (no
    int), set once here from the arguments' atoms' (the Dim operators ask it of every
    operand: :func:`terms_by_size`)."""

    __slots__ = ("op", "args", "text", "_hash", "_tie", "by_size")

    def __init__(self, op: str, args: tuple[Any, ...], text: str) -> None:
        self.op, self.args, self.text = op, args, text
        self._hash = hash((op, args))
        self._tie: tuple | None = None
        found = op in ("//", "%") and not isinstance(args[1], int)
        if not found:  # (a loop, not any() over a generator: made for every new atom)
            for x in args:
                if not isinstance(x, int) and terms_by_size(x._terms):
                    found = True
                    break
        self.by_size: bool = found

    @property
    def tie(self) -> tuple:
        """The order of atoms of one text (``n//2`` over a user's ``n`` and over a size
        the data decide spelt ``n``): their arguments' structure, equal for equal atoms."""
        tie = self._tie
        if tie is None:
            tie = self._tie = (self.op, tuple(map(poly_key, self.args)))
        return tie

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Opaque) and self._hash == other._hash
                                 and self.op == other.op and self.args == other.args)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Opaque, (self.op, self.args, self.text))

    def __repr__(self) -> str:  # (its text, not its address: keys made of reprs, the
        return f"Opaque<{self.text}>"  # prover's order of variables, are the same in
        # every process)


def terms_by_size(terms: Terms) -> bool:
    """Whether a polynomial has a quotient or remainder by a size (no int), at any depth:
    one flag read per opaque atom (:attr:`Opaque.by_size`), no walk into arguments."""
    for mono, _ in terms:
        for a, _ in mono:
            if type(a) is Opaque and a.by_size:
                return True
    return False


def atom_key(atom: Atom) -> tuple:
    """The order of atoms: symbols by name, then opaque terms by text, then unknowns."""
    if isinstance(atom, str):  # a size the data decide apart from a name spelled alike
        return (0, atom, 0) if type(atom) is str else (0, str.__str__(atom), 1, id(atom))
    if isinstance(atom, Opaque):  # by text, then (texts alike) by structure
        return (1, atom.text, atom.tie)
    return (2, str(atom), id(atom))  # an unknown: ordered by its text, ties by identity


def poly_key(x: Any) -> tuple:
    """A total order of ints and polynomials (a Dim's ``_terms``) that tells apart two
    of one text: equal keys only for equal values."""
    terms = getattr(x, "_terms", x)
    if isinstance(terms, int):
        return (0, terms)
    return (1, tuple((_mono_key(m), c) for m, c in terms))


def ordered_args(args: list[Any]) -> list[Any]:
    """A min's or max's arguments (ints or Dims) in their order: by value, then text,
    then (texts alike: a user's ``n`` and a size the data decide spelt ``n``) structure,
    only asked where texts tie (it costs)."""
    keys = [(0, x, "") if isinstance(x, int) else (1, 0, str(x)) for x in args]
    if len(set(keys)) < len(keys):
        keys = [k + (poly_key(x),) for k, x in zip(keys, args, strict=True)]
    return [x for _, x in sorted(zip(keys, args, strict=True), key=lambda kx: kx[0])]


@lru_cache(maxsize=1 << 16)
def _mono_key(mono: Monomial) -> tuple[Any, ...]:
    """Degree descending, then atoms by name (graded lexicographic)."""
    return (-sum(p for _, p in mono), tuple((atom_key(a), -p) for a, p in mono))


def _term_key(term: tuple[Monomial, int]) -> tuple[Any, ...]:
    return _mono_key(term[0])


@lru_cache(maxsize=1 << 16)
def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a or not b:
        return a or b
    powers = dict(a)
    for atom, p in b:
        powers[atom] = powers.get(atom, 0) + p
    return tuple(sorted(powers.items(), key=lambda ap: atom_key(ap[0])))


def canonical(poly: dict[Monomial, int]) -> Terms | int:
    """``{monomial: coefficient}`` in canonical form; a constant is a plain int."""
    items = [(m, c) for m, c in poly.items() if c]
    if not items:
        return 0
    if len(items) == 1 and not items[0][0]:
        return items[0][1]
    items.sort(key=_term_key)
    return tuple(items)


def lone_atom(terms: Terms) -> Atom | None:
    """The atom if ``terms`` is exactly one atom (coefficient 1, power 1)."""
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1 \
            and terms[0][0][0][1] == 1:
        return terms[0][0][0][0]
    return None


def operand(x: Any) -> str:
    """A size ``x`` (an int or a Dim) as an operand of ``//`` or ``%`` in an atom's text,
    parenthesised unless atomic (a symbol, an unknown, a ``min`` or ``max``)."""
    if isinstance(x, int):
        return str(x) if x >= 0 else f"({x})"
    atom = lone_atom(x._terms)
    if atom is not None and (not isinstance(atom, Opaque) or atom.op in ("min", "max")):
        return str(x)
    return f"({x})"


def add(a: Terms, b: Terms) -> dict[Monomial, int]:
    """The sum of two polynomials (to be made :func:`canonical`)."""
    poly = dict(a)
    for m, c in b:
        poly[m] = poly.get(m, 0) + c
    return poly


def mul(a: Terms, b: Terms) -> dict[Monomial, int]:
    """The product of two polynomials (to be made :func:`canonical`); ValueError, before
    anything is multiplied, when it may be too large (:func:`check_product`)."""
    check_product(a, b)
    poly: dict[Monomial, int] = {}
    if len(a) * len(b) <= 16:  # small: the cached products of monomials
        for ma, ca in a:
            for mb, cb in b:
                m = _mono_mul(ma, mb)
                poly[m] = poly.get(m, 0) + ca * cb
        return poly
    keys = {atom: atom_key(atom) for p in (a, b) for mono, _ in p for atom, _ in mono}
    order = keys.__getitem__
    for ma, ca in a:  # large: each atom's key computed once, not once per pair
        for mb, cb in b:
            if ma and mb:
                powers = dict(ma)
                for atom, k in mb:
                    powers[atom] = powers.get(atom, 0) + k
                m = tuple(sorted(powers.items(), key=lambda ap: order(ap[0])))
            else:
                m = ma or mb
            poly[m] = poly.get(m, 0) + ca * cb
    return poly


def _shape(polys: tuple[Terms, ...]) -> tuple[int, int, int]:
    """(number of distinct atoms, least and greatest degree of a term) of ``polys``."""
    atoms = {atom for poly in polys for mono, _ in poly for atom, _ in mono}
    degrees = [sum(p for _, p in mono) for poly in polys for mono, _ in poly]
    return len(atoms), min(degrees), max(degrees)


def _monomials(atoms: int, low: int, high: int) -> int:
    """How many monomials over ``atoms`` atoms have a degree in ``[low, high]``."""
    return math.comb(atoms + high, atoms) - (math.comb(atoms + low - 1, atoms) if low else 0)


def product_bound(a: Terms, b: Terms) -> int:
    """An upper bound on the terms of ``a*b``, computed without expanding it."""
    pairs = len(a) * len(b)
    if pairs <= MAX_TERMS:
        return pairs
    atoms = _shape((a, b))[0]
    _, low_a, high_a = _shape((a,))
    _, low_b, high_b = _shape((b,))
    return min(pairs, _monomials(atoms, low_a + low_b, high_a + high_b))


def power_bound(terms: Terms, k: int) -> int:
    """An upper bound on the terms of ``terms**k`` (``k >= 0``), computed without expanding
    it: the multisets of ``k`` terms, and the monomials of the degrees it can reach."""
    t = len(terms)
    if t <= 1 or k <= 1:
        return 1 if k == 0 else t
    if k > MAX_TERMS:  # already more multisets than allowed: k + 1 <= comb(t + k - 1, k)
        return k + 1
    multisets = math.comb(t + k - 1, k)
    if multisets <= MAX_TERMS:
        return multisets
    atoms, low, high = _shape((terms,))
    return min(multisets, _monomials(atoms, k * low, k * high))


#: The most bits the bound on a coefficient of a power may reach (twice a size's 64).
MAX_COEFFICIENT_BITS: Final = 128


def check_product(a: Terms, b: Terms) -> None:
    """ValueError, before anything is expanded, if ``a*b`` may have more than
    :data:`MAX_TERMS` terms or takes more than :data:`MAX_PRODUCT_PAIRS` pairs."""
    bound = product_bound(a, b)
    if bound > MAX_TERMS or len(a) * len(b) > MAX_PRODUCT_PAIRS:
        raise ValueError(f"a size expression is too large: a product of {len(a)} by "
                         f"{len(b)} terms (it may expand to {bound} terms; at most "
                         f"{MAX_TERMS})")


def check_power(terms: Terms, k: int) -> int:
    """ValueError, before anything is expanded, if ``terms**k`` may have more than
    :data:`MAX_TERMS` terms or coefficients past :data:`MAX_COEFFICIENT_BITS` bits (a
    coefficient of ``p**k`` is at most ``(sum of |coefficients|)**k``); else ``k``."""
    if k <= 1:
        return k
    bound = power_bound(terms, k)
    if bound > MAX_TERMS:
        raise ValueError(f"a size expression is too large: ({render(terms)})**{k} may "
                         f"expand to {bound} terms (at most {MAX_TERMS})")
    bits = (sum(abs(c) for _, c in terms).bit_length() - 1) * k
    if bits > MAX_COEFFICIENT_BITS:
        raise ValueError(f"a size expression is too large: ({render(terms)})**{k} may "
                         f"have coefficients of about 2**{bits} (sizes are at most "
                         "2**63 - 1)")
    return k


def split(terms: Terms, d: int) -> tuple[dict[Monomial, int], dict[Monomial, int]]:
    """``(q, r)`` with ``terms == d*q + r`` (``d > 0``): each coefficient, the constant's
    too, split by ``divmod``, so every coefficient of ``r`` lies in ``[0, d)``."""
    quot: dict[Monomial, int] = {}
    rem: dict[Monomial, int] = {}
    for m, c in terms:
        q, r = divmod(c, d)
        if q:
            quot[m] = q
        if r:
            rem[m] = r
    return quot, rem


def window(terms: Terms, b: int) -> tuple[Terms, int, int, int] | None:
    """For ``x//b`` (``b >= 2``) of ``x`` with ``terms`` ``n + c`` or ``(n + s)//d + c`` (a
    size ``n`` of coefficient 1, ints ``c`` and ``0 <= s < d``, ``d >= 2``: the size of a
    window over a window), ``(terms of n + s, shift, d*b, q)`` with ``x//b == (n + s +
    shift)//(d*b) + q``, ``0 <= s + shift < d*b`` (nested floors collapse: ``shift = (c
    % b)*d``, ``q = c//b``); else None. What the Dim algebra's rules make, in one step."""
    if len(terms) > 2 or len(terms) == 2 and terms[1][0]:
        return None
    (mono, k), c = terms[0], terms[1][1] if len(terms) == 2 else 0
    if k != 1 or len(mono) != 1 or mono[0][1] != 1:
        return None
    atom, d = mono[0][0], 1
    inner: Terms = ((mono, 1),)  # n + c is (n + 0)//1 + c
    if type(atom) is Opaque:
        if atom.op != "//":
            return None
        inner, d = atom.args
        if type(d) is not int or d < 2 or isinstance(inner, int):
            return None
        inner = inner._terms
        (m, one), s = inner[0], inner[1][1] if len(inner) == 2 else 0
        if len(inner) > 2 or len(inner) == 2 and inner[1][0] or one != 1 or \
                len(m) != 1 or m[0][1] != 1 or type(m[0][0]) is Opaque or not 0 <= s < d:
            return None
    q, u = divmod(c, b)
    return inner, u * d, d * b, q


def window_form(g: Terms | int) -> tuple | None:
    """``(s, k, d, t, c)`` where the terms ``g`` are ``k*((s + t)//d) + c`` (``0 <= t <
    d``; ``d`` 1 and ``t`` 0 for ``k*s + c``) over one symbol ``s``: a window's size as
    the Dim algebra writes it (what :func:`window` divides further), read once for the
    questions about it (:mod:`.monotone`, :mod:`.factbox`, :mod:`.factsform`); None for
    any other ``g``."""
    if isinstance(g, int) or len(g) > 2 or len(g) == 2 and g[1][0]:
        return None
    (mono, k), c = g[0], g[1][1] if len(g) == 2 else 0
    if len(mono) != 1 or mono[0][1] != 1:
        return None
    atom, d, t = mono[0][0], 1, 0
    if isinstance(atom, Opaque):
        if atom.op != "//":
            return None
        inner, d = atom.args
        if type(d) is not int or d < 1 or isinstance(inner, int) or len(inner._terms) > 2:
            return None
        (m, one), t = inner._terms[0], inner._terms[1][1] if len(inner._terms) == 2 else 0
        atom = m[0][0]
        if len(inner._terms) == 2 and inner._terms[1][0] or one != 1 or len(m) != 1 or \
                m[0][1] != 1 or not 0 <= t < d or isinstance(atom, Opaque):
            return None
    return atom, k, d, t, c


def divide(terms: Terms, divisor: Terms) -> dict[Monomial, int] | None:
    """``terms / divisor`` when the divisor is one term ``c*m`` (``c > 0``) that divides
    every term exactly (``(8*b*n)//(b*n)`` is ``8``), else None."""
    if len(divisor) != 1 or divisor[0][1] <= 0 or not divisor[0][0]:
        return None
    (mono, c), = divisor
    out: dict[Monomial, int] = {}
    for m, k in terms:
        powers = dict(m)
        for atom, p in mono:
            left = powers.get(atom, 0) - p
            if left < 0 or k % c:
                return None
            if left:
                powers[atom] = left
            else:
                del powers[atom]
        out[tuple(sorted(powers.items(), key=lambda ap: atom_key(ap[0])))] = k // c
    return out


def _factor(atom: Atom, p: int, lone: bool) -> str:
    if not isinstance(atom, Opaque):
        text = str(atom)
    else:
        text = atom.text if lone or atom.op in ("min", "max") else f"({atom.text})"
    return text if p == 1 else f"{text}**{p}"


def render(terms: Terms) -> str:
    """The text of a polynomial: valid Python such as ``2*n + 1``, ``(n + 1)//2``."""
    out = []
    if terms[0][1] < 0 and terms[0][0]:  # a minus sign printed last: n - k + 1, 3 - n
        if any(mono and c > 0 for mono, c in terms):
            terms = tuple(sorted(terms, key=lambda t: (not t[0], t[1] < 0)))
        else:
            terms = tuple(sorted(terms, key=lambda t: t[1] < 0))
    for i, (mono, c) in enumerate(terms):
        a = abs(c)
        if mono:
            lone = a == 1 and len(mono) == 1 and mono[0][1] == 1 and (i > 0 or c > 0)
            body = "*".join(_factor(atom, p, lone) for atom, p in mono)
            body = body if a == 1 else f"{a}*{body}"
        else:
            body = str(a)
        if i == 0:
            out.append(body if c > 0 else "-" + body)
        else:
            out.append((" + " if c > 0 else " - ") + body)
    return "".join(out)

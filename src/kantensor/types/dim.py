"""Symbolic tensor sizes in canonical form.

A :class:`Dim` is an integer-valued symbolic size: a named symbol (``Dim("n")``) or an
expression built from symbols and ints with ``+ - * // %``, ``**`` (int exponent >= 0),
:func:`dim_min` and :func:`dim_max`.

Every expression is kept canonical (:mod:`kantensor.types.poly`): a polynomial with
integer coefficients over *atoms*, where an atom is a symbol, an *unknown* or an opaque
term ``a//b``, ``a % b``, ``min(...)``, ``max(...)``, an exact quotient ``a/k``, over
canonical arguments. Algebraically identical polynomials compare equal (``n + n == 2*n``);
a constant is a plain ``int`` (``(n + 1) - n`` is ``1``).

A symbol is named and interned, weakly (``Dim("n") is Dim("n")`` while it is held). An
unknown (:func:`unknown`) is identified by an object, never by a name: the solver uses its
logic variables, so an unknown can never be confused with a user's symbol.

Only certain simplifications are made (symbols are integers of unknown sign):

* ``(q*d + r)//d == q + r//d`` and ``(q*d + r) % d == r % d`` for an int ``d`` (terms
  whose coefficient ``d`` divides are split off, the constant is reduced to ``[0, d)``),
  so ``x//1 == x``, ``(2*n)//2 == n``, ``(2*n) % 2 == 0``, ``(n + 3)//2 == (n + 1)//2 + 1``;
  then ``(g*r)//(g*d) == r//d`` and ``(g*r) % (g*d) == g*(r % d)`` (``(4*n)//8 == n//2``);
* ``(x//a)//b == x//(a*b)`` and ``(x % a) % b == x % b`` (``b`` divides ``a``) for ints
  ``a, b > 0``;
* ``min``/``max`` are flattened, and of two arguments whose difference is an int the
  irrelevant one is dropped (``dim_min(n, n + 1) == n``); the rest are kept sorted;
* an exact quotient ``r/k`` (printed ``r//k``, made only where ``k`` is known to divide
  ``r``: :func:`kantensor.types.dimfacts.assume_divisible`) is split like ``//``;
  ``c*(r/k) == (c/g)*(r/(k/g))`` for ``g = gcd(c, k)`` (``2*(h/2) == h``); beside it,
  ``r//j == r/j`` and ``r % j == 0`` for ``j`` dividing ``k``.

``str()`` is valid Python (``2*n + 1``, ``(n + 1)//2``, ``n % 2``, ``min(m, n)``,
``n**2``); ``repr()`` is ``Dim('n')`` for a symbol and ``Dim<2*n + 1>`` for an expression.
"""

from __future__ import annotations

import keyword
import math
import operator
from collections import Counter
from collections.abc import Hashable
from typing import Any, Final, TypeAlias

from ..graph.display import block, esc, symbolic
from ..syntax.vocabulary import MAX, MIN
from .interning import WeakInterner
from .poly import Atom, Monomial, Opaque, Terms, canonical, lone_atom, render
from .poly import add as _poly_add
from .poly import check_power as _check_power
from .poly import divide as _poly_divide
from .poly import mul as _poly_mul
from .poly import split as _poly_split

__all__ = ["Dim", "DimLike", "as_dim", "dim_max", "dim_min", "free_symbols", "substitute",
           "unknown"]

DimLike: TypeAlias = "int | Dim"

MAX_NAME_LENGTH: Final = 256  # the longest name of a symbolic size

def _operator(name: str, fn: Any) -> tuple[Any, Any]:
    """``__name__`` and ``__rname__`` of a Dim: ``fn`` on ints and Dims, else (and
    always without ``fn``) a number (see :data:`NUMBER_OP`)."""
    def method(self: Dim, other: object) -> Any:
        o = None if fn is None else _coerce(other)
        return _number(name, self, other) if o is None else fn(self, o)

    def reflected(self: Dim, other: object) -> Any:
        o = None if fn is None else _coerce(other)
        return _number(name, other, self) if o is None else fn(o, self)
    return method, reflected


class Dim:
    """A symbolic size; ``Dim("n")`` is the (interned) symbol named ``n``.

    Immutable and hashable. ``==`` is canonical structural equality (a ``Dim`` never
    equals an int); ``<``, ``<=``, ``>``, ``>=`` raise ``TypeError`` (undecidable).
    """

    __slots__ = ("_terms", "_hash", "_text", "_free", "__weakref__")
    _terms: Terms

    def __new__(cls, name: str) -> Dim:
        sym = _SYMBOLS.get(name) if isinstance(name, str) else None
        if sym is None:
            if not isinstance(name, str):
                raise TypeError(f"Dim name must be a str, got {type(name).__name__}")
            if len(name) > MAX_NAME_LENGTH:
                raise ValueError(f"Dim name too long: {len(name)} > {MAX_NAME_LENGTH} characters")
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ValueError(f"Dim name must be a Python identifier, got {name!r}")
            sym = _SYMBOLS.intern(name, _new(((((name, 1),), 1),)))
        return sym

    @property
    def name(self) -> str | None:
        """The symbol's name, or ``None`` for an expression."""
        atom = _lone_atom(self)
        return atom if isinstance(atom, str) else None

    def _immutable(self, *_: object) -> None:
        raise AttributeError("Dim is immutable")

    __setattr__ = __delattr__ = _immutable

    def __reduce__(self) -> tuple[Any, ...]:
        name = self.name
        return (Dim, (name,)) if name is not None else (_new, (self._terms,))

    def __copy__(self) -> Dim: return self
    def __deepcopy__(self, memo: object) -> Dim: return self

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Dim):
            return hash(self) == hash(other) and self._terms == other._terms
        return False if isinstance(other, int) else NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(self._terms)
            _set_hash(self, h)
        return h

    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = render(self._terms)
            _set_text(self, text)
        return text

    def __repr__(self) -> str:
        name = self.name
        return f"Dim({name!r})" if name is not None else f"Dim<{self}>"

    def _repr_html_(self) -> str:
        name = self.name
        kind = f"the symbolic size {name}" if name is not None else "a symbolic size expression"
        return block("Dim", f"<code>{symbolic(self)}</code>", esc(kind))

    def _unordered(self, other: object) -> bool:
        raise TypeError(f"symbolic sizes are not ordered: cannot compare {self!r} with "
                        f"{other!r}")

    __lt__ = __le__ = __gt__ = __ge__ = _unordered

    __add__, __radd__ = _operator("add", lambda a, b: _add(a, b))
    __sub__, __rsub__ = _operator("sub", lambda a, b: _add(a, _mul(b, -1)))
    __mul__, __rmul__ = _operator("mul", lambda a, b: _mul(a, b))
    __floordiv__, __rfloordiv__ = _operator("floordiv", lambda a, b: _floordiv(a, b))
    __mod__, __rmod__ = _operator("mod", lambda a, b: _mod(a, b))

    __truediv__, __rtruediv__ = _operator("truediv", None)

    def __pow__(self, exponent: object) -> Any:
        if type(exponent) is not int or exponent < 0:  # d ** 0.5, d ** -1: numbers
            return _number("pow", self, exponent)
        return _pow(self, _check_power(self._terms, exponent))  # bounded before expanding

    __rpow__ = _operator("pow", None)[1]

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.sqrt(d)``, ``np.float64(2) * d``: see :data:`NUMBER_OP`."""
        hook = NUMBER_OP[0]
        return NotImplemented if hook is None else hook("ufunc", ufunc, method, inputs,
                                                        kwargs)

    def __neg__(self) -> DimLike:
        return _mul(self, -1)

    def __pos__(self) -> Dim:
        return self


#: A size with a number it cannot stay a size with (``d / 2``, ``d ** -0.5``, ``np.sqrt(d)``):
#: ``hook(op, a, b)`` or ``hook("ufunc", ufunc, method, inputs, kwargs)``, set by
#: :mod:`kantensor.types.sizenum`; without it, left to the other operand (NotImplemented).
NUMBER_OP: list[Any] = [None]


def _number(op: str, a: object, b: object) -> Any:
    hook = NUMBER_OP[0]
    return NotImplemented if hook is None else hook(op, a, b)


_SYMBOLS = WeakInterner()  # a Dim nobody holds is freed (made anew when asked for again)
_set_terms = Dim.__dict__["_terms"].__set__
_set_hash = Dim.__dict__["_hash"].__set__
_set_text = Dim.__dict__["_text"].__set__
_set_free = Dim.__dict__["_free"].__set__


def _new(terms: Terms) -> Dim:
    """A Dim from already canonical terms (at least one non-constant monomial)."""
    d = object.__new__(Dim)
    _set_terms(d, terms)
    _set_hash(d, None)
    _set_text(d, None)
    _set_free(d, None)
    return d


def _coerce(x: object) -> DimLike | None:
    if type(x) is int or isinstance(x, Dim):
        return x  # type: ignore[return-value]
    if isinstance(x, bool):
        return None
    try:
        return operator.index(x)  # type: ignore[arg-type]
    except TypeError:
        return None


def as_dim(x: object) -> DimLike:
    """``x`` as a size: an int (or int-like, via ``__index__``) or a Dim; bools are rejected."""
    d = _coerce(x)
    if d is None:
        raise TypeError(f"expected an int or a Dim as a size, got {type(x).__name__} {x!r}")
    return d


# -- arithmetic over the canonical terms (kantensor.types.poly) ---------------------------

def unknown(key: Hashable) -> Dim:
    """The Dim standing for an unknown size identified by the object ``key`` (the solver
    passes its logic variables). Printed as ``str(key)``; never equal to a named Dim."""
    if isinstance(key, str | Opaque | Dim) or isinstance(key, int):
        raise TypeError(f"an unknown is keyed by an object, not {type(key).__name__}")
    return _new(((((key, 1),), 1),))


def _symbol(atom: Atom) -> Dim:
    """The Dim of one atom: a named Dim (interned), an unknown or an opaque term."""
    return Dim(atom) if isinstance(atom, str) else _new(((((atom, 1),), 1),))


def _make(poly: dict[Monomial, int]) -> DimLike:
    """Canonicalise a polynomial given as ``{monomial: coefficient}``."""
    terms = canonical(poly)
    return terms if isinstance(terms, int) else _settle(_new(terms))


def _settle(x: Dim) -> DimLike:
    """The rules of exact quotients ``r/k`` (module docstring), where ``x`` has some."""
    facts = {a.args for m, _ in x._terms for a, _ in m if type(a) is Opaque and a.op == "/"}
    if not facts or not any(_known(a, facts) is not None or _gcd(a, c) > 1
                            for m, c in x._terms for a, _ in m):
        return x
    total: DimLike = 0
    for mono, c in x._terms:
        term: DimLike = 1
        for atom, p in mono:
            value, g = _known(atom, facts), _gcd(atom, c)
            if value is None and g > 1:  # one power at a time: c*(r/k) == (c/g)*(r/(k/g))
                c, p, term = c // g, p - 1, _mul(term, _exact(atom.args[0], atom.args[1] // g))
            term = _mul(term, _pow(_symbol(atom) if value is None else value, p))
        total = _add(total, _mul(term, c))
    return total


def _gcd(atom: Atom, c: int) -> int:
    return math.gcd(c, atom.args[1]) if type(atom) is Opaque and atom.op == "/" else 1


def _known(atom: Atom, facts: set) -> DimLike | None:
    """``r//j`` and ``r % j`` where ``(r, k)`` in ``facts`` and ``j`` divides ``k``: r/j, 0."""
    if type(atom) is Opaque and atom.op in ("//", "%") and type(atom.args[1]) is int \
            and atom.args[1] > 1 and any(f == atom.args[0] and k % atom.args[1] == 0
                                         for f, k in facts):
        return _exact(*atom.args) if atom.op == "//" else 0
    return None


def _exact(a: DimLike, k: int) -> DimLike:
    """``a/k`` where ``k > 0`` divides ``a`` (else, of ints, ``a//k``)."""
    a, k, _ = (a, k, 1) if isinstance(a, int) else _common(a, k)
    if isinstance(a, int) or k == 1:
        return a // k
    q, r = _split(a, k)
    return q if isinstance(r, int) else _add(q, _atom("/", r, k))


def _rebuild(x: Dim, value: Any) -> DimLike:
    """``x`` with each atom ``a`` replaced by ``value(a)`` (kept where that is None)."""
    total: Counter = Counter()  # summed in one dict, made canonical once: linear
    for mono, c in x._terms:
        term: DimLike = c
        for atom, p in mono:
            v = value(atom)
            term = _mul(term, _pow(_symbol(atom) if v is None else v, p))
        total.update({(): term} if isinstance(term, int) else dict(term._terms))
    return _make(total)


def _atom(op: str, *args: DimLike) -> Dim:
    """The Dim of one opaque atom ``op`` over ``args``."""
    if op in ("min", "max"):
        text = f"{op}({', '.join(map(str, args))})"
    else:
        text = _operand(args[0]) + (" % " if op == "%" else "//") + _operand(args[1])
    return _new(((((Opaque(op, args, text), 1),), 1),))


def _operand(x: DimLike) -> str:
    """``x`` as an operand of ``//`` or ``%``, parenthesised unless atomic."""
    if isinstance(x, int):
        return str(x) if x >= 0 else f"({x})"
    atom = _lone_atom(x)
    if atom is not None and (not isinstance(atom, Opaque) or atom.op in ("min", "max")):
        return str(x)
    return f"({x})"


def _lone_atom(x: DimLike) -> Atom | None:
    """The atom if ``x`` is exactly one atom (coefficient 1, power 1)."""
    return lone_atom(x._terms) if isinstance(x, Dim) else None


def _add(a: DimLike, b: DimLike) -> DimLike:
    if isinstance(a, int):
        if isinstance(b, int):
            return a + b
        a, b = b, a
    if isinstance(b, int):  # fast path: only the constant term changes
        if not b:
            return a
        terms = a._terms
        if terms[-1][0]:
            return _new(terms + (((), b),))
        c = terms[-1][1] + b
        return _new(terms[:-1] + (((), c),)) if c else _new(terms[:-1])
    return _make(_poly_add(a._terms, b._terms))


def _mul(a: DimLike, b: DimLike) -> DimLike:
    if isinstance(a, int):
        if isinstance(b, int):
            return a * b
        a, b = b, a
    if isinstance(b, int):  # fast path: order is unchanged
        if b == 1 or not b:
            return a if b else 0
        return _settle(_new(tuple((m, c * b) for m, c in a._terms)))
    return _make(_poly_mul(a._terms, b._terms))


def _pow(a: DimLike, k: int) -> DimLike:
    if k < 0:
        raise ValueError(f"negative exponent for a size: ({a})**{k}")
    result: DimLike = 1
    while k:
        if k & 1:
            result = _mul(result, a)
        k >>= 1
        if k:
            a = _mul(a, a)
    return result


def _split(a: Dim, d: int) -> tuple[DimLike, DimLike]:
    """``a == d*q + r``: q takes the terms ``d`` divides and the constant's quotient."""
    quot, rem = _poly_split(a._terms, d)
    return _make(quot), _make(rem)


def _nested(a: DimLike, op: str, d: int) -> tuple[DimLike, int] | None:
    """``(x, e)`` if ``a`` is exactly ``x op e`` with int ``e > 0`` (and ``d > 0``)."""
    atom = _lone_atom(a)
    if isinstance(atom, Opaque) and atom.op == op and d > 0:
        x, e = atom.args
        if isinstance(e, int) and e > 0:
            return x, e
    return None


def _common(r: Dim, b: int) -> tuple[DimLike, int, int]:
    """``(r/g, b/g, g)`` for ``g`` the gcd of ``b`` and every coefficient of ``r``."""
    g = math.gcd(b, *(c for _, c in r._terms))
    return (r, b, 1) if g == 1 else (_make(_poly_split(r._terms, g)[0]), b // g, g)


def _floordiv(a: DimLike, b: DimLike) -> DimLike:
    if isinstance(b, Dim):  # exact when b is one term dividing each of a's
        exact = _poly_divide(a._terms, b._terms) if isinstance(a, Dim) else None
        return _atom("//", a, b) if exact is None else _make(exact)
    if not b:
        raise ZeroDivisionError(f"size division by zero: ({a})//0")
    if isinstance(a, int) or b == 1:
        return a // b if isinstance(a, int) else a
    q, r = _split(a, b)
    if isinstance(r, int):
        return _add(q, r // b)
    r, b, _ = _common(r, b)  # (g*r)//(g*b) == r//b
    inner = _nested(r, "//", b)
    return _add(q, _atom("//", r, b) if inner is None else _floordiv(inner[0], inner[1] * b))


def _mod(a: DimLike, b: DimLike) -> DimLike:
    if isinstance(b, Dim):
        return _atom("%", a, b)
    if not b:
        raise ZeroDivisionError(f"size modulo by zero: ({a}) % 0")
    if isinstance(a, int):
        return a % b
    r = _split(a, b)[1]
    if isinstance(r, int):
        return r % b
    r, b, g = _common(r, b)  # (g*r) % (g*b) == g*(r % b)
    inner = _nested(r, "%", b)
    return _mul(_mod(inner[0], b) if inner is not None and inner[1] % b == 0
                else _atom("%", r, b), g)


def _arg_key(x: DimLike) -> tuple[int, int, str]:
    return (0, x, "") if isinstance(x, int) else (1, 0, str(x))


def _minmax(op: str, args: tuple[object, ...]) -> DimLike:
    if not args:
        raise TypeError(f"dim_{op} expected at least 1 argument, got 0")
    flat: list[DimLike] = []
    for x in map(as_dim, args):
        atom = _lone_atom(x)
        flat.extend(atom.args if isinstance(atom, Opaque) and atom.op == op else (x,))
    kept: list[DimLike] = []
    for x in flat:
        for i, k in enumerate(kept):
            diff = _add(x, _mul(k, -1))
            if isinstance(diff, int):  # comparable: keep the winner
                if (diff < 0) if op == "min" else (diff > 0):
                    kept[i] = x
                break
        else:
            kept.append(x)
    if len(kept) == 1:
        return kept[0]
    return _atom(op, *sorted(kept, key=_arg_key))


def dim_min(*args: DimLike) -> DimLike:
    """The minimum of ints and Dims (an int when decidable, else a canonical ``min``)."""
    return _minmax("min", args)


def dim_max(*args: DimLike) -> DimLike:
    """The maximum of ints and Dims (an int when decidable, else a canonical ``max``)."""
    return _minmax("max", args)


#: The DSL's size functions on ints and Dims, for :func:`kantensor.syntax.ast.evaluate`.
DIM_CALLS = {MIN.text: dim_min, MAX.text: dim_max}


# -- queries and transformations ---------------------------------------------------------

def free_symbols(x: DimLike) -> frozenset[Hashable]:
    """The symbols occurring in ``x`` (also inside ``//``, ``%``, min, max): the names
    of named Dims and the keys of unknowns."""
    x = as_dim(x)
    if isinstance(x, int):
        return frozenset()
    free = x._free
    if free is None:
        names: set[Hashable] = set()
        for mono, _ in x._terms:
            for atom, _p in mono:
                if isinstance(atom, Opaque):
                    names.update(*map(free_symbols, atom.args))
                else:
                    names.add(atom)
        free = frozenset(names)
        _set_free(x, free)
    return free


_APPLY = {"//": _floordiv, "%": _mod, "/": lambda a, k: _exact(a, k),
          "min": lambda *a: _minmax("min", a), "max": lambda *a: _minmax("max", a)}


def _subst(x: DimLike, values: dict[Hashable, DimLike]) -> DimLike:
    if isinstance(x, int) or values.keys().isdisjoint(free_symbols(x)):
        return x
    return _rebuild(x, lambda a: _APPLY[a.op](*(_subst(g, values) for g in a.args))
                    if isinstance(a, Opaque) else values.get(a))


def substitute(x: DimLike, mapping: dict[Hashable, DimLike]) -> DimLike:
    """Replace symbols (names or unknowns' keys) by ints or Dims and re-canonicalise
    (all ints give an ``int``).

    ``//`` and ``%`` are computed like Python's; division by a zero int raises
    ``ZeroDivisionError``.
    """
    return _subst(as_dim(x), {name: as_dim(v) for name, v in mapping.items()})


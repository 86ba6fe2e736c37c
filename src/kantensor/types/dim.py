"""Symbolic tensor sizes in canonical form.

A :class:`Dim` is an integer-valued symbolic size: a named symbol (``Dim("n")``) or an
expression built from symbols and ints with ``+ - * // %`` (``divmod(a, b)`` is ``(a //
b, a % b)``, as Python's), ``**`` (int exponent >= 0), ``min`` and ``max``
(:func:`kantensor.types.dimminmax.dim_min`, :func:`~kantensor.types.dimminmax.dim_max`).

Every expression is kept canonical (:mod:`kantensor.types.poly`): a polynomial with
integer coefficients over *atoms*, where an atom is a symbol, an *unknown* or an opaque
term ``a//b``, ``a % b``, ``min(...)``, ``max(...)``, an exact quotient ``a/k``, over
canonical arguments. Algebraically identical polynomials compare equal (``n + n == 2*n``);
a constant is a plain ``int`` (``(n + 1) - n`` is ``1``).

A symbol is named and interned, weakly (``Dim("n") is Dim("n")`` while it is held). An
unknown (:func:`unknown`) is identified by an object, never by a name: the solver uses its
logic variables, so an unknown can never be confused with a user's symbol.

Every symbol and unknown is a size: an integer ``>= 0``. The rules:

* floor division and remainder by an int ``d > 0``: each coefficient and the constant
  are split by ``d`` (``(n + 3)//2 == (n + 1)//2 + 1``, ``(3*n)//2 == n + n//2``,
  ``(3*n) % 2 == n % 2``), a common factor of ``d`` and the coefficients cancels
  (``(4*n + 2)//8 == (2*n + 1)//4``), nested floors collapse (``(u + x//a)//b ==
  (a*u + x)//(a*b)``), a remainder of a remainder by a multiple is one remainder, and an
  argument that stays in one block of ``d`` gives a constant (``(n % 3)//3 == 0``);
  a negative divisor is made positive (``//`` and ``%`` are
  :mod:`kantensor.types.dimdivide`'s, reached through :data:`DIVIDE`);
* ``min``/``max`` are flattened, and an argument another one bounds at every size is
  dropped (``max(0, n) == n``, ``min((h + 1)//2, h//2) == h//2``, by
  :func:`kantensor.types.prove.order`); the rest are kept sorted
  (:mod:`kantensor.types.dimminmax`);
* floor division and remainder by a size: divided out where the divisor is one term
  dividing every term of the numerator and is ``>= 1`` at every size (``(8*n*m)//m``
  is ``8*n`` for ``m = max(1, k)``), else kept with the common int factor of both sides
  out (``(64*b*w)//(16*b*w)`` is ``(4*b*w)//(b*w)``: at ``b*w == 0`` Python raises, so
  it is not 4; facts that the divisor is ``>= 1`` make it so,
  :mod:`kantensor.types.factsatoms`, as does a traced program's case,
  :func:`kantensor.types.dimorder.divided`);
* a result keeps where its operands have no value: ``0//v`` is added for each size
  ``v`` they divide by and it does not (``max(b, b % b)`` is ``b + 0//b``), and a
  ``0//v`` beside a term that divides by ``v`` is dropped (``0//i + j % i`` is ``j % i``);
* an exact quotient ``r/k`` (printed ``r//k``, made only where ``k`` is known to divide
  ``r``: :func:`kantensor.types.dimfacts.assume_divisible`) is split like ``//``;
  ``c*(r/k) == (c/g)*(r/(k/g))`` for ``g = gcd(c, k)`` (``2*(h/2) == h``); beside it,
  ``r//j == r/j`` and ``r % j == 0`` for ``j`` dividing ``k``.

What holds only under facts (``min(64, n) == n`` where ``n <= 64``) is
:mod:`kantensor.types.facts`'s.

``str()`` is valid Python (``2*n + 1``, ``(n + 1)//2``, ``n % 2``, ``min(m, n)``,
``n**2``); ``repr()`` is ``Dim('n')`` for a symbol and ``Dim<2*n + 1>`` for an expression.

Beside the class, the algebra's operations on canonical terms are public to the modules
of ``types/`` that build Dims (:mod:`~kantensor.types.dimdivide`, ``dimminmax``,
``symbols``, the ``canon*`` and ``quasi*`` modules): :func:`dim_add`, :func:`dim_mul`,
:func:`dim_pow`, :func:`dim_split`, :func:`exact_quotient`, :func:`opaque_dim`,
:func:`atom_dim`, :func:`from_poly`, :func:`from_terms`, :func:`kept_divisors`; none
imports another module's private names (``tests/test_imports.py``).
"""

from __future__ import annotations

import keyword
import math
import operator
from collections.abc import Callable, Hashable
from typing import Any, Final, TypeAlias

from ..graph.display import block, esc, symbolic
from ..graph.hooks import Hook
from .dimorder import COMPARE, decided, divided, equal, ordered, powered
from .divisors import dropped, spare
from .interning import WeakInterner
from .poly import Atom, Monomial, Opaque, Private, Terms, canonical, lone_atom, render
from .poly import add as _poly_add
from .poly import check_power as _check_power
from .poly import mul as _poly_mul
from .poly import operand as _operand
from .poly import split as _poly_split

__all__ = ["Dim", "DimLike", "as_dim", "unknown"]

DimLike: TypeAlias = "int | Dim"

MAX_NAME_LENGTH: Final = 256  # the longest name of a symbolic size

def _operator(name: str, fn: Any) -> tuple[Any, Any]:
    """``__name__`` and ``__rname__`` of a Dim: ``fn`` on ints and Dims, else (and
    always without ``fn``) a number (see :data:`NUMBER_OP`)."""
    divide = name in ("floordiv", "mod")  # (the divisor is asked: dimorder.divided)

    def method(self: Dim, other: object) -> Any:
        o = None if fn is None else _coerce(other)
        if o is not None and divide and type(o) is not int:
            return kept_divisors(divided(fn, self, o, name == "mod"), self, o)
        return with_number(name, self, other) if o is None else kept_divisors(
            fn(self, o), self, o, not divide)

    def reflected(self: Dim, other: object) -> Any:
        o = None if fn is None else _coerce(other)
        if o is not None and divide:
            return kept_divisors(divided(fn, o, self, name == "mod"), o, self)
        return with_number(name, other, self) if o is None else kept_divisors(
            fn(o, self), o, self, not divide)
    return method, reflected


def kept_divisors(x: Any, a: DimLike, b: DimLike = 0, ring: bool = False) -> Any:
    """``x`` of ``a`` and ``b`` plus ``0//v`` for each size ``v`` they divide by and it does
    not (module docstring); not in a trace (dimorder.divides), nor ``ring`` by an int != 0."""
    if COMPARE.fn is None and not (ring and (type(a) is int and a or type(b) is int and b)):
        found = dropped(x, a, b)
        if found is None:
            return x
        for v in found:
            x = dim_add(x, opaque_dim("//", 0, v))
        if type(x) is Dim and (terms := spare(x._terms)) is not x._terms:
            x = from_poly(dict(terms))  # (a kept 0//v beside a term that divides by v: out)
    return x


class Dim:
    """A symbolic size; ``Dim("n")`` is the (interned) symbol named ``n``.

    Immutable and hashable. ``==`` is canonical structural equality (a ``Dim`` never
    equals an int); ``<``, ``<=``, ``>``, ``>=`` raise ``TypeError`` (see ``dimorder``).
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
            if (not name.isidentifier() or keyword.iskeyword(name)) and type(name) is not Private:
                raise ValueError(f"Dim name must be a Python identifier, got {name!r}")
            sym = _SYMBOLS.intern(name, _raw(((((name, 1),), 1),)))
        return sym

    @property
    def name(self) -> str | None:
        """The symbol's name, or ``None`` for an expression."""
        atom = lone_atom(self._terms)
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
        if isinstance(other, Dim) and hash(self) == hash(other) and self._terms == other._terms:
            return True  # else unequal, unless a traced program's answer (types.dimorder)
        return COMPARE.fn is not None and decided("==", self, other) is True \
            if type(other) is Dim or isinstance(other, int) else equal(self, other)

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

    def __repr__(self) -> str:  # (a sort of a Facts' triples asks it of each: no calls)
        name = lone_atom(self._terms)
        return f"Dim({name!r})" if isinstance(name, str) else f"Dim<{self}>"

    def _repr_html_(self) -> str:
        name = self.name
        kind = f"the symbolic size {name}" if name is not None else "a symbolic size expression"
        return block("Dim", f"<code>{symbolic(self)}</code>", esc(kind))

    __lt__, __le__, __gt__, __ge__ = (lambda a, b, op=op: ordered(
        a, b, op, _coerce(b) is not None) for op in ("<", "<=", ">", ">="))

    def __bool__(self) -> bool: return COMPARE.fn is None or decided("!=", self, 0) is not False

    __add__, __radd__ = _operator("add", lambda a, b: dim_add(a, b))
    __sub__, __rsub__ = _operator("sub", lambda a, b: dim_add(a, dim_mul(b, -1)))
    __mul__, __rmul__ = _operator("mul", lambda a, b: dim_mul(a, b))
    __floordiv__, __rfloordiv__ = _operator(
        "floordiv", lambda a, b, positive=False: DIVIDE.fn(a, b, False, positive))
    __mod__, __rmod__ = _operator(
        "mod", lambda a, b, positive=False: DIVIDE.fn(a, b, True, positive))

    __truediv__, __rtruediv__ = _operator("truediv", None)

    def __divmod__(self, other: object) -> Any: return self // other, self % other
    def __rdivmod__(self, other: object) -> Any: return other // self, other % self  # type: ignore

    def __pow__(self, exponent: object) -> Any:  # d ** 0.5, d ** -1, d ** n: numbers
        if type(exponent) is not int or exponent < 0:
            return with_number(powered(self, exponent, isinstance(exponent, Dim)), self, exponent)
        # (the exponent bounded first)
        return kept_divisors(dim_pow(self, _check_power(self._terms, exponent)), self)

    def __rpow__(self, base: object) -> Any:  # 2 ** d (see dimorder.powered)
        return with_number(powered(base, self, isinstance(base, int | float | complex)), base, self)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.sqrt(d)``, ``np.float64(2) * d``: see :data:`NUMBER_OP`."""
        hook = NUMBER_OP.fn
        return NotImplemented if hook is None else hook("ufunc", ufunc, method, inputs,
                                                        kwargs)

    def __neg__(self) -> DimLike:
        return dim_mul(self, -1)

    def __pos__(self) -> Dim:
        return self
    def __abs__(self) -> Any: return with_number("abs", self, 0)  # (sizenum.size_abs)

    @property
    def real(self) -> Dim:
        """The int's real part, itself (``np.real(n)`` gives the Python int back)."""
        return self

    @property
    def imag(self) -> int:
        """The int's imaginary part, 0 (``np.imag(n)`` is the Python int 0)."""
        return 0


NUMBER_OP: Hook[Callable[..., Any]] = Hook("number_op", "kantensor.types.sizenum", (
    "a size with a number it cannot stay a size with (d / 2, np.sqrt(d)): hook(op, a, b) "
    "or hook('ufunc', ufunc, method, inputs, kwargs); else NotImplemented"))


DIVIDE: Hook[Callable[[DimLike, DimLike, bool, bool], DimLike]] = Hook(
    "divide_sizes", "kantensor.types.dimdivide",
    "hook(a, b, remainder, positive): the algebra's a // b (a % b if remainder) of an int "
    "or Dim a by an int or Dim b, b read as >= 1 where positive (module docstring); apart "
    "from the Dim class, whose operators and whose division call each other")


def with_number(op: str, a: object, b: object) -> Any:
    """``op`` of a size with a number it cannot stay a size with, by :data:`NUMBER_OP`
    (NotImplemented until filled); public: the trace looks past its frame
    (:mod:`kantensor.evalshape.branches`)."""
    hook = NUMBER_OP.fn
    return NotImplemented if hook is None else hook(op, a, b)


_SYMBOLS = WeakInterner()  # a Dim nobody holds is freed (made anew when asked for again)
_set_terms = Dim.__dict__["_terms"].__set__
_set_hash = Dim.__dict__["_hash"].__set__
_set_text = Dim.__dict__["_text"].__set__
#: ``cache_free(d, names)``: store ``d``'s free symbols (:func:`.symbols.free_symbols`).
cache_free = Dim.__dict__["_free"].__set__


def from_terms(terms: Terms) -> Dim:
    """A Dim from already canonical terms (at least one non-constant monomial); a lone
    named symbol is its interned Dim (``(n + 1) - 1 is Dim("n")``: identity by object,
    which a type table keyed by equal shapes would otherwise hand out unequal objects
    of)."""
    if len(terms) == 1 and terms[0][1] == 1:
        mono = terms[0][0]
        if len(mono) == 1 and mono[0][1] == 1 and isinstance(mono[0][0], str):
            return Dim(mono[0][0])
    return _raw(terms)


def _new(terms: Terms) -> Dim:
    """:func:`from_terms` under the name a pickle of an expression holds
    (``Dim.__reduce__``: pickles of earlier versions name it)."""
    return from_terms(terms)


def _raw(terms: Terms) -> Dim:
    """A new Dim object of ``terms`` (only :class:`Dim` itself makes a named symbol's)."""
    d = object.__new__(Dim)
    _set_terms(d, terms)
    _set_hash(d, None)
    _set_text(d, None)
    cache_free(d, None)
    return d


def _coerce(x: object) -> DimLike | None:
    """``x`` as an int or a size, or None: not a bool, and while a program is traced not a
    NumPy integer or 0-d array either (``n + np.int16(3)`` is NumPy's int16, strong: a
    number of the graph, see :data:`NUMBER_OP`, not a size)."""
    if type(x) is int or isinstance(x, Dim):
        return x  # type: ignore[return-value]
    if isinstance(x, bool) or COMPARE.fn is not None and not isinstance(x, int):
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
    return from_terms(((((key, 1),), 1),))


def atom_dim(atom: Atom) -> Dim:
    """The Dim of one atom: a named Dim (interned), an unknown or an opaque term."""
    return Dim(atom) if isinstance(atom, str) else from_terms(((((atom, 1),), 1),))


def from_poly(poly: dict[Monomial, int]) -> DimLike:
    """Canonicalise a polynomial given as ``{monomial: coefficient}``."""
    terms = canonical(poly)
    return terms if isinstance(terms, int) else _settle(from_terms(terms))


def _settle(x: Dim) -> DimLike:
    """The rules of exact quotients ``r/k`` (module docstring), where ``x`` has some."""
    facts = {a.args for m, _ in x._terms for a, _ in m if type(a) is Opaque and a.op == "/"}
    if not facts or not any(known_quotient(a, facts) is not None or _gcd(a, c) > 1
                            for m, c in x._terms for a, _ in m):
        return x
    total: DimLike = 0
    for mono, c in x._terms:
        term: DimLike = 1
        for atom, p in mono:
            value, g = known_quotient(atom, facts), _gcd(atom, c)
            if value is None and g > 1:  # one power at a time: c*(r/k) == (c/g)*(r/(k/g))
                c, p = c // g, p - 1
                term = dim_mul(term, exact_quotient(atom.args[0], atom.args[1] // g))
            term = dim_mul(term, dim_pow(atom_dim(atom) if value is None else value, p))
        total = dim_add(total, dim_mul(term, c))
    return total


def _gcd(atom: Atom, c: int) -> int:
    return math.gcd(c, atom.args[1]) if type(atom) is Opaque and atom.op == "/" else 1


def known_quotient(atom: Atom, facts: set) -> DimLike | None:
    """``r//j`` and ``r % j`` where ``(r, k)`` in ``facts`` and ``j`` divides ``k``: r/j, 0."""
    if type(atom) is Opaque and atom.op in ("//", "%") and type(atom.args[1]) is int \
            and atom.args[1] > 1 and any(f == atom.args[0] and k % atom.args[1] == 0
                                         for f, k in facts):
        return exact_quotient(*atom.args) if atom.op == "//" else 0
    return None


def exact_quotient(a: DimLike, k: int) -> DimLike:
    """``a/k`` where ``k > 0`` divides ``a`` (else, of ints, ``a//k``)."""
    if not isinstance(a, int):  # (g*r)/(g*k) == r/k
        g = math.gcd(k, *(c for _, c in a._terms))
        if g > 1:
            a, k = from_poly(_poly_split(a._terms, g)[0]), k // g
    if isinstance(a, int) or k == 1:
        return a // k
    q, r = dim_split(a, k)
    return q if isinstance(r, int) else dim_add(q, opaque_dim("/", r, k))


def opaque_dim(op: str, *args: DimLike) -> Dim:
    """The Dim of one opaque atom ``op`` over ``args``."""
    if op in ("min", "max"):
        text = f"{op}({', '.join(map(str, args))})"
    else:
        text = _operand(args[0]) + (" % " if op == "%" else "//") + _operand(args[1])
    return from_terms(((((Opaque(op, args, text), 1),), 1),))


def lone_atom_of(x: DimLike) -> Atom | None:
    """The atom if ``x`` is exactly one atom (coefficient 1, power 1)."""
    return lone_atom(x._terms) if isinstance(x, Dim) else None


def dim_add(a: DimLike, b: DimLike) -> DimLike:
    """``a + b``, canonical."""
    if isinstance(a, int):
        if isinstance(b, int):
            return a + b
        a, b = b, a
    if isinstance(b, int):  # fast path: only the constant term changes
        if not b:
            return a
        terms = a._terms
        if terms[-1][0]:
            return from_terms(terms + (((), b),))
        c = terms[-1][1] + b
        return from_terms(terms[:-1] + (((), c),)) if c else from_terms(terms[:-1])
    return from_poly(_poly_add(a._terms, b._terms))


def dim_mul(a: DimLike, b: DimLike) -> DimLike:
    """``a * b``, canonical."""
    if isinstance(a, int):
        if isinstance(b, int):
            return a * b
        a, b = b, a
    if isinstance(b, int):  # fast path: order is unchanged
        if b == 1 or not b:
            return a if b else 0
        return _settle(from_terms(tuple((m, c * b) for m, c in a._terms)))
    return from_poly(_poly_mul(a._terms, b._terms))


def dim_pow(a: DimLike, k: int) -> DimLike:
    """``a ** k`` for an int ``k >= 0``, by squaring."""
    if k < 0:
        raise ValueError(f"negative exponent for a size: ({a})**{k}")
    result: DimLike = 1
    while k:
        if k & 1:
            result = dim_mul(result, a)
        k >>= 1
        if k:
            a = dim_mul(a, a)
    return result


def dim_split(a: Dim, d: int) -> tuple[DimLike, DimLike]:
    """``a == d*q + r`` (``d > 0``) with every coefficient of ``r``, and its constant,
    in ``[0, d)``."""
    quot, rem = _poly_split(a._terms, d)
    return from_poly(quot), from_poly(rem)

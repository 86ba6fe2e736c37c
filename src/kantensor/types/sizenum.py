"""Sizes used as numbers: ``x / np.sqrt(x.shape[-1])``, ``d ** -0.5``, ``(H - k) / s + 1``.

NumPy code computes with sizes as Python ints. A :class:`~kantensor.types.dim.Dim` stays a
size under ``+ - * // %`` with ints; where the result is no longer an int-valued size, it
becomes a number of the graph:

* ``d / k`` for an int ``k`` is a :class:`Ratio`, an exact fraction of a size, and a
  Python float as ``d / k`` is in NumPy code (``d / 2 * 2`` too: no shape takes it). It
  stays one under ``+ - * // %`` with ints and sizes and under ``/`` by ints, and gives a
  size back with ``math.floor``, ``math.ceil``, ``round`` and (during ``eval_shape``)
  ``int``: so ``int((H + 2*pad - fh) / stride + 1)`` is the size ``(H + 2*pad - fh)//stride
  + 1`` (``int`` truncates toward zero, as ``math.floor`` where the numerator is a
  size; where a traced program's may be negative, its sign is asked as a branch).
* anything else (with a float, a tensor, a NumPy array, ``d ** -0.5``, ``np.sqrt(d)``,
  ``k / d``, and a Ratio in those) computes on the 0-d ``int64`` tensor of the size,
  made by the ``size_number`` Op of the catalogue (its relation reads the size from an
  input, as every size parameter does; see :mod:`kantensor.ops.sizes`). That tensor is
  a *wrapped* number, like the Python int NumPy code had there, so ``x / d`` keeps x's
  dtype.

The layer that makes Ops sets :data:`AS_TENSOR`; this one imports none.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..graph.hooks import Hook
from .dim import NUMBER_OP, Dim, DimLike
from .dimorder import COMPARE, decided, divides
from .intervals import interval
from .stated import same_term

AS_TENSOR: Hook[Callable[[Any], Any]] = Hook(
    "as_tensor", "kantensor.ops",
    "size -> 0-d int64 tensor (the size_number Op)")

NUMBER_VALUE: Hook[Callable[[Any], Any]] = Hook(
    "number_value", "kantensor.ops",
    "number_value(v) -> the Python int a size used as a number (size_number's output, a "
    "SizeNumber) is, over the graph's sizes: its size parameter with each placeholder of "
    "an axis size read from its node's inputs (kantensor.ops.pyints.number_value)",
    lambda v: None)

_INT_UFUNCS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
               "floor_divide": operator.floordiv, "remainder": operator.mod}


def _int_like(x: Any) -> bool:
    """Whether ``x`` is an int or a size: while a program is traced, a Python one only (a
    NumPy integer or 0-d array has a dtype of its own, strong in NumPy's promotion)."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int | Dim):
        return True
    if COMPARE.fn is not None:
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def size_tensor(size: DimLike | Ratio) -> Any:
    """The graph's number for a size (a Dim, an int or a Ratio): a 0-d tensor."""
    if isinstance(size, Ratio):
        return size.tensor()
    make = AS_TENSOR.fn
    if make is None:
        raise TypeError(f"the size {size} is symbolic, not a number a graph can compute "
                        "with (no Op makes its tensor yet)")
    return make(size)


class Ratio:
    """An exact fraction ``num / den`` of a size (``num`` a Dim, ``den >= 1``): a Python
    float of the traced code, even where ``den`` is 1 (``n / 2 * 2``), as no shape, index
    or ``range`` takes a float (NumPy raises TypeError); ``//``, ``%`` and ``divmod`` of
    it are floats too, as Python's are. ``math.floor``, ``math.ceil``, ``round`` and
    ``int`` give a size back.

    Python rounds each float step; one division of a size (``n / 49``) is correctly
    rounded, so its integer part and its order with an int are the exact fraction's
    (for sizes below 2**53), and so are an int's sum with it. A product, a quotient or a
    sum of two floats that were not exact (a denominator no power of 2: ``n / 49 * 49``
    is 0.999... at n == 1) rounds again: such a Ratio is ``rounded``, and its integer
    part and comparisons are refused, not guessed."""

    __slots__ = ("num", "den", "rounded")

    def __init__(self, num: DimLike, den: int, rounded: bool = False):
        self.num, self.den, self.rounded = num, den, rounded

    @property
    def inexact(self) -> bool:
        """Whether Python's float of it may not be ``num / den`` exactly: rounded twice,
        or a denominator no power of 2."""
        return self.rounded or self.den & (self.den - 1) != 0

    def _refuse_rounded(self, what: str) -> None:
        if self.rounded:
            raise TypeError(
                f"{what} of {self}: Python computed this float in more than one rounded "
                "step from a division that was not exact, so its value is not the "
                "fraction of sizes (n / 49 * 49 is 0.9999999999999999 at n == 1); "
                "kantensor does not model floating-point rounding: use // on the sizes")

    def _rounds_again(self, other: Any, op: str) -> bool:
        """Whether Python's ``self op other`` may have an integer part or an order with an
        int that is not the exact fraction's: a product or quotient of an inexact float
        (``n / 49 * 49``), or a sum of two; a sum of one inexact float and an exact one
        keeps them (it is an integer only where both are exact)."""
        theirs = isinstance(other, Ratio)
        if self.rounded or theirs and other.rounded:
            return True
        inexact = [self.inexact, theirs and other.inexact]
        return any(inexact) if op not in ("add", "sub") else all(inexact)

    @staticmethod
    def of(num: DimLike, den: int, rounded: bool = False) -> Ratio | float:
        """``num / den``, the float Python computes: a Ratio of a size, reduced to ``den ==
        1`` where ``den`` divides it (``n / 2 * 2`` is ``Ratio(n, 1)``, not the size
        ``n``), or of an int, a float."""
        if den < 0:
            num, den = -num, -den
        if den == 0:
            raise ZeroDivisionError(f"size division by zero: ({num})/0")
        left = num % den
        if den != 1 and type(left) is int and left == 0:  # (structurally: no branch)
            num, den = num // den, 1
        return Ratio(num, den, rounded) if isinstance(num, Dim) else num / den

    def __repr__(self) -> str:
        return f"Ratio<({self.num})/{self.den}>"

    __str__ = __repr__

    def tensor(self) -> Any:
        """``num / den`` as a number of the graph (a 0-d float tensor)."""
        return size_tensor(self.num) / self.den

    def _parts(self, other: Any) -> tuple[DimLike, int] | None:
        if isinstance(other, Ratio):
            return other.num, other.den
        if _int_like(other):
            return (other if isinstance(other, Dim) else operator.index(other)), 1
        return None

    def _arith(self, other: Any, op: str, reflected: bool = False) -> Any:
        parts = self._parts(other)
        if parts is None:
            if isinstance(other, float | complex) or hasattr(other, "__array_ufunc__"):
                t = self.tensor()
                return _BINARY[op](other, t) if reflected else _BINARY[op](t, other)
            return NotImplemented
        (a, b), (c, d) = (self.num, self.den), parts
        twice = self._rounds_again(other, op)
        if reflected:
            (a, b), (c, d) = (c, d), (a, b)
        if op == "add":
            return Ratio.of(a * d + c * b, b * d, twice)
        if op == "sub":
            return Ratio.of(a * d - c * b, b * d, twice)
        if op == "mul":
            return Ratio.of(a * c, b * d, twice)
        if op == "truediv" and isinstance(c, int):
            return Ratio.of(a * d, b * c, twice)
        if op == "floordiv":  # a float, as Python's (the divisor asked: dimorder.divided)
            return Ratio.of((a * d) // (b * c), 1, twice)
        if op == "mod" and isinstance(c, int) and isinstance(b * d, int):
            return Ratio.of((a * d) % (b * c), b * d, twice)  # a/b - (c/d)*floor((a*d)/(b*c))
        mine = self.tensor()  # (a float: the other side is a float only if a Ratio)
        theirs = other.tensor() if isinstance(other, Ratio) else _as_tensor(*parts)
        return _BINARY[op](theirs, mine) if reflected else _BINARY[op](mine, theirs)

    def _compare(self, other: Any, op: Callable[[Any, Any], bool]) -> Any:
        """``num/den op other`` as ``num*d op c*den`` (denominators are positive), a
        comparison of sizes (decided, or by the trace's answer: see Dim). A float
        ``other`` is its exact ``c/d`` (``N / 2 == 1.5`` holds at ``N == 3``; without it
        Python's fallback said unequal at every N); nan and the infinities compare as
        they do with 0."""
        if isinstance(other, float) and not math.isfinite(other):
            return op(0, other)
        self._refuse_rounded("a comparison")
        if isinstance(other, Ratio):
            other._refuse_rounded("a comparison")
        parts = self._parts(other)
        if parts is None and isinstance(other, float):
            parts = other.as_integer_ratio()
            if parts[1] != 1 and self.inexact:  # (fl(n / 3) == 1 / 3 at n == 1)
                raise TypeError(
                    f"a comparison of {self} with the float {other!r}: Python compares "
                    "the rounded float of the fraction, which kantensor does not model")
        if parts is None:
            return NotImplemented
        c, d = parts
        return op(self.num * d, c * self.den)

    def __add__(self, o: Any) -> Any: return self._arith(o, "add")
    def __radd__(self, o: Any) -> Any: return self._arith(o, "add", True)
    def __sub__(self, o: Any) -> Any: return self._arith(o, "sub")
    def __rsub__(self, o: Any) -> Any: return self._arith(o, "sub", True)
    def __mul__(self, o: Any) -> Any: return self._arith(o, "mul")
    def __rmul__(self, o: Any) -> Any: return self._arith(o, "mul", True)
    def __truediv__(self, o: Any) -> Any: return self._arith(o, "truediv")
    def __rtruediv__(self, o: Any) -> Any: return self._arith(o, "truediv", True)
    def __floordiv__(self, o: Any) -> Any: return self._arith(o, "floordiv")
    def __rfloordiv__(self, o: Any) -> Any: return self._arith(o, "floordiv", True)
    def __mod__(self, o: Any) -> Any: return self._arith(o, "mod")
    def __rmod__(self, o: Any) -> Any: return self._arith(o, "mod", True)
    def __divmod__(self, o: Any) -> Any: return self // o, self % o
    def __rdivmod__(self, o: Any) -> Any: return o // self, o % self
    def __eq__(self, o: object) -> Any: return self._compare(o, operator.eq)
    def __ne__(self, o: object) -> Any: return self._compare(o, operator.ne)
    def __lt__(self, o: Any) -> Any: return self._compare(o, operator.lt)
    def __le__(self, o: Any) -> Any: return self._compare(o, operator.le)
    def __gt__(self, o: Any) -> Any: return self._compare(o, operator.gt)
    def __ge__(self, o: Any) -> Any: return self._compare(o, operator.ge)
    __hash__ = None  # type: ignore[assignment]
    def __pow__(self, o: Any) -> Any: return self.tensor() ** o
    def __rpow__(self, o: Any) -> Any: return o ** self.tensor()

    def __bool__(self) -> bool:
        """Python's float is false at 0: ``if N / 2:`` asks ``N != 0`` as a branch (a
        Ratio was true at every N)."""
        return bool(self.num)

    def __neg__(self) -> Ratio:
        return Ratio(-self.num, self.den, self.rounded)

    def __abs__(self) -> Ratio:
        """Python's ``abs`` of the float: of the numerator (``abs(n - 3) / 2``), whose
        sign is compared as ``<`` compares (a branch of a trace)."""
        return Ratio(abs(self.num), self.den, self.rounded)

    def __floor__(self) -> DimLike:
        self._refuse_rounded("math.floor")
        return self.num // self.den

    def __ceil__(self) -> DimLike:
        self._refuse_rounded("math.ceil")
        return -((-self.num) // self.den) if self.den != 1 else self.num

    def __trunc__(self) -> DimLike:
        """Toward zero, as Python's ``int()``: :meth:`__floor__` where the numerator is not
        negative (a size's), :meth:`__ceil__` where a traced program's is (``int((n - 3) /
        3)`` is 0 at ``n < 3``, not -1); its sign is asked as a branch is."""
        self._refuse_rounded("int()")
        num, den = self.num, self.den
        if den == 1:
            return num
        negative = num < 0 if isinstance(num, int) else decided("<=", num, -1) is True
        return -((-num) // den) if negative else num // den

    def __round__(self, ndigits: int | None = None) -> Any:
        """Python's ``round``: to the nearest int, a tie to the even one (``round(5 / 2)``
        is 2); where a traced program's fraction may be a tie, that is asked as a branch
        (``n % 2 == 1``, then whether rounding up gives an odd int)."""
        if ndigits is not None:
            return round(self.tensor(), ndigits)
        self._refuse_rounded("round()")
        num, den = self.num, self.den
        if den == 1:
            return num
        if isinstance(num, int):
            return round(Fraction(num, den))
        up = (2 * num + den) // (2 * den)  # (half up)
        if den % 2 == 0 and decided("==", num % den, den // 2) is True and \
                decided("==", up % 2, 1) is True:
            return up - 1
        return up

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return _ufunc(ufunc, method, inputs, kwargs)


def _as_tensor(num: DimLike, den: int) -> Any:
    value = num if isinstance(num, Dim) else None
    t = size_tensor(value) if value is not None else num
    return t / den if den != 1 else t


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow}


def _tensors(values: tuple) -> list[Any]:
    return [size_tensor(v) if isinstance(v, Dim | Ratio) else v for v in values]


def _ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """A NumPy ufunc given sizes: of ints and sizes only, ``+ - * // %`` keep a size;
    otherwise the sizes become the graph's numbers."""
    if method == "__call__" and not kwargs and ufunc.__name__ in _INT_UFUNCS \
            and all(_int_like(x) for x in inputs):
        return _INT_UFUNCS[ufunc.__name__](*(x if isinstance(x, Dim) else operator.index(x)
                                             for x in inputs))
    if AS_TENSOR.fn is None:
        return NotImplemented
    return getattr(ufunc, method)(*_tensors(inputs), **kwargs)


def size_abs(d: Dim) -> DimLike:
    """Python's ``abs`` of the int a size is (``abs(d)``): itself where it is not
    negative (a size), its negation where a traced program's is (``abs(n - 3)``): the
    sign is compared as ``<`` compares, so a trace asks it as a branch."""
    low, high = interval(d)
    if low is not None and low >= 0:
        return d
    if high is not None and high <= 0:
        return -d
    return -d if d < 0 else d


def number_op(op: str, *args: Any) -> Any:
    """:data:`~kantensor.types.dim.NUMBER_OP`: a Dim met something that is not an int
    (or ``abs``)."""
    if op == "ufunc":
        return _ufunc(*args)
    if op == "abs":
        return size_abs(args[0])
    a, b = args
    if AS_TENSOR.fn is None:
        return NotImplemented
    if op == "truediv" and isinstance(a, Dim) and _int_like(b) and not isinstance(b, Dim):
        return Ratio.of(a, operator.index(b))
    if op == "truediv" and isinstance(a, Dim) and isinstance(b, Dim):
        if same_term(a, b):  # 1, where Python does not raise ZeroDivisionError: the
            divides(b)  # divisor is asked as // asks it (a traced program assumes b != 0)
            return 1.0  # (a float, as Python's: no shape takes it)
        return size_tensor(a) / size_tensor(b)
    dim_left = isinstance(a, Dim)
    other = b if dim_left else a
    if isinstance(other, Ratio):  # the Ratio's own operators
        return _BINARY[op](Ratio(a, 1) if dim_left else a, b if dim_left else Ratio(b, 1))
    if _int_like(other) or isinstance(other, float | complex):
        floated = op == "negative_pow" or op == "pow" and dim_left and (
            isinstance(b, float | complex) or type(b) is int and b < 0)
        a, b = _tensors((a, b))
        if floated:  # as in Python, an int to a negative or float power is a float (to
            a, op = a * 1.0, "pow"  # a size's power, as its sign was answered: dimorder.powered)
        return _BINARY[op](a, b)
    return NotImplemented  # a tensor or an array: its operator takes the size


NUMBER_OP.set(number_op)

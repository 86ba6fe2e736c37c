"""``math``'s functions of sizes during ``eval_shape``: Python floats of the graph.

``math.sqrt(d)`` of a size is the graph's number (the 0-d tensor of ``np.sqrt`` of the
size's), tagged as a Python float (:data:`.powers.MATH_TAG`), so a Python number divided
by it assumes it is not 0 (:func:`.powers.zero_at`), where NumPy's ``np.sqrt(d)`` divides
to ``inf``; where ``math`` raises for a size (``math.sqrt(n - 3)`` at ``n < 3``,
``math.exp(n)`` past 709) that is asked as a branch, so the program assumes it.
:mod:`.patches` installs them (:data:`MATH`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops
from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.dimorder import decided
from ..types.dtypes import COMPLEX, category
from ..types.intervals import interval
from ..types.operators import python_result
from ..types.sizenum import Ratio, size_tensor
from ..types.stated import split_constant
from .powers import MATH_TAG
from .scalars import numpy_scalar


def _symbolic(x: Any) -> bool:
    return isinstance(x, Dim | Ratio | Variable)


#: Where ``math``'s function of a real number raises "math domain error" (``math.sqrt(n -
#: 3)`` at ``n < 3``, ``math.log(n)`` at ``n == 0``): the least numerator ``a + b*den``
#: its argument ``num/den`` may have (a size is ``num/1``). The numerator is an integer,
#: so ``log``'s ``x > 0`` is ``num >= 1``. It is asked as a branch is, so the program
#: assumes it.
DOMAINS: dict[str, tuple[int, int]] = {
    "sqrt": (0, 0), "log": (1, 0), "log2": (1, 0), "log10": (1, 0), "log1p": (1, -1)}


def _math(name: str) -> Callable[..., Any]:
    ufunc = getattr(np, name)
    domain = DOMAINS.get(name)

    def traced(x: Any, *rest: Any) -> Any:
        if rest or not isinstance(x, Dim | Ratio | Variable):
            return NotImplemented
        if domain is not None and not isinstance(x, Variable):
            num, den = (x.num, x.den) if isinstance(x, Ratio) else (x, 1)
            least = domain[0] + domain[1] * den
            c = split_constant(num)[1] if isinstance(num, Dim) else 0
            if decided(">=", num - c, least - c) is False:  # (n >= 3, not n - 3 >= 0)
                raise ValueError(f"math domain error: math.{name} of the size {x}, which "
                                 "is outside its domain here")
        if name in RANGES and not isinstance(x, Variable):
            num, den = (x.num, x.den) if isinstance(x, Ratio) else (x, 1)
            c = split_constant(num)[1] if isinstance(num, Dim) else 0
            if decided("<=", num - c, RANGES[name] * den - c) is False:
                raise OverflowError(f"math range error: math.{name} of the size {x}, "
                                    "which is too large for a float here")
        out = ufunc(size_tensor(x) if isinstance(x, Dim | Ratio) else x)
        if out.type.ndim == 0:  # a Python float (weak in NEP 50), np.sqrt's is not
            out = python_result(out if out.type.dtype == "float64" else out.astype("float64"))
        out.tag[MATH_TAG] = name  # a Python float: divided by, its 0 raises (.powers)
        return out
    return traced


#: Where ``math``'s function raises OverflowError ("math range error": ``math.exp(n)`` at
#: ``n >= 710``): the greatest numerator ``b*den`` its argument ``num/den`` may have
#: (an inner bound: ``math.exp(709.78)`` is finite). Asked as a branch, as DOMAINS.
RANGES: dict[str, int] = {"exp": 709, "expm1": 709}


def _hypot(*xs: Any) -> Any:
    """``math.hypot`` of sizes: ``math.sqrt`` of the sum of squares (the same float for
    ints: both are correctly rounded), so its 0 and domain are read as sqrt's."""
    if not any(isinstance(x, Dim | Ratio | Variable) for x in xs):
        return NotImplemented
    return MATH["sqrt"](sum(x * x for x in xs))


def python_int(x: Variable, rounding: str) -> Variable:
    """The Python int ``math.floor`` (``rounding``: ``"floor"``), ``math.ceil``,
    ``math.trunc`` or ``round`` gives NumPy code of the traced 0-d ``x``: the graph's int64,
    wrapped (weak under NEP 50, as a Python int is), which raises when the graph runs where
    Python raises or the int does not fit int64 (:func:`kantensor.ops.python_int`). Refused
    where NumPy's value defines no such method: an array of axes (NumPy: only 0-d arrays
    convert to Python scalars), ``math.trunc`` of anything but a float64 scalar (the one
    NumPy scalar that is a Python float), ``round`` of a 0-d array, a bool or a complex
    scalar, ``math.floor`` of a complex 0-d array."""
    dtype, scalar = x.type.dtype, numpy_scalar(x)
    kind = f"numpy.{dtype}" if scalar else f"a 0-d {dtype} array"
    if x.type.ndim:
        raise TypeError(f"only 0-dimensional arrays can be converted to Python scalars "
                        f"({rounding} of {x.type})")
    if rounding == "trunc" and not (scalar and dtype == "float64"):
        raise TypeError(f"type {kind} doesn't define __trunc__ method")
    if rounding == "round" and (not scalar or dtype == "bool" or category(dtype) is COMPLEX):
        raise TypeError(f"type {kind} doesn't define __round__ method (round of it)")
    if category(dtype) is COMPLEX and not scalar:
        raise TypeError(f"math.{rounding} of {kind}: NumPy converts no complex array to a "
                        "Python float")
    return python_result(ops.python_int(x, rounding=rounding))


def _rounded(rounding: str) -> Callable[[Any], Any]:
    """``math.floor``, ``math.ceil``, ``math.trunc`` of a size (the size) or a tensor."""
    def traced(x: Any) -> Any:
        if isinstance(x, Dim):
            return x
        return python_int(x, rounding) if isinstance(x, Variable) else NotImplemented
    return traced


def _fmod(x: Any, y: Any) -> Any:
    """``math.fmod`` of sizes (ints, at least one a Dim): C's remainder, with the sign of
    ``x``, as a Python float; for sizes that are never negative that is ``float(x %
    y)`` (``y`` is asked not to be 0, as ``%`` asks it: Python raises there), whose 0 a
    Python number divided by it assumes away (:func:`.powers.zero_at` reads the float).
    Of a size that may be negative (``n - 3``) it is refused, naming it."""
    if not any(isinstance(v, Dim) for v in (x, y)) or \
            not all(isinstance(v, Dim | int) and not isinstance(v, bool) for v in (x, y)):
        return NotImplemented
    for v in (x, y):
        low = interval(v)[0] if isinstance(v, Dim) else v
        if low is None or low < 0:
            raise TypeError(f"math.fmod of the size {v}, which may be negative: its sign "
                            "decides the result's (C's remainder); give the sizes as "
                            "ints, or use % of sizes that are never negative")
    if isinstance(y, Dim) and decided(">=", y, 1) is False:  # (asked at the user's line:
        raise ValueError(f"math domain error: math.fmod by the size {y}, which is 0 here")
    rest = x % y  # n % n is 0 without asking its divisor; patches.FORWARDERS has this code)
    return float(rest) if isinstance(rest, int) else size_tensor(rest) * 1.0


def _pow(x: Any, y: Any) -> Any:
    return x ** (y * 1.0) if _symbolic(x) or _symbolic(y) else NotImplemented


#: ``math`` functions traced during eval_shape: of a size or a tensor, the graph's number.
MATH: dict[str, Callable[..., Any]] = {
    **{name: _math(name) for name in ("sqrt", "exp", "log", "log2", "log10", "sin", "cos",
                                      "tan", "tanh", "expm1", "log1p")},
    "floor": _rounded("floor"), "ceil": _rounded("ceil"), "trunc": _rounded("trunc"),
    "pow": _pow, "hypot": _hypot, "fmod": _fmod}

"""``x ** k`` as NumPy types it during ``eval_shape``.

NumPy's ``ndarray.__pow__`` computes ``x ** 2`` (the Python int 2) as ``np.square(x)``,
and any other power by ``np.power``: the dtypes differ for a bool array only (``square``
of bool is int8, a bool to a Python int's power int64). So under NumPy's rules
(:func:`~kantensor.types.numpyrules.numpy_rules`) a bool array to the power of the literal 2
is ``square``; to the power of a number made of sizes (``n // 2 + 1``, ``len(x)``), whose
value decides between the two, it is refused: never guessed, unless the sizes decide it
(``n * 200`` is never 2: ``np.power``). A NumPy scalar (``x[0]``)
is not an array: NumPy's scalar power is ``np.power`` at every exponent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Constant, Variable
from ..types.dim import Dim
from ..types.dtypes import is_integer
from ..types.facts import EMPTY
from ..types.numpyrules import rules_key
from ..types.protocol import NUMPY_SCALAR
from ..types.type import TensorType
from ..types.variable import SizeNumber
from .pyints import number_value

__all__ = ["power_operator"]


def power_operator(power: Callable[..., Any], square: Callable[..., Any]
                   ) -> Callable[[Any, Any], Any]:
    """The ``**`` operator: ``power(a, b)``, but ``square(a)`` where NumPy squares (see
    the module)."""
    def pow_operator(a: Any, b: Any) -> Any:
        if rules_key() == "numpy" and _bool_array(a):
            if _literal_two(b):
                return square(a)
            if isinstance(b, Dim) or isinstance(b, Variable) and not isinstance(
                    b, Constant) and b.wrapped and is_integer(b.type.dtype):
                two = _is_two(b)
                if two is not None:  # (the sizes decide it: n * 200 is never 2)
                    return square(a) if two else power(a, b)
                raise TypeError(
                    "a bool array to the power of a number made of sizes: NumPy computes "
                    "x ** 2 as np.square(x) (int8) and any other int power as np.power "
                    "(int64), so the size's value decides the dtype; cast x (x.astype("
                    "np.int64)) or give the exponent as an int")
        return power(a, b)

    return pow_operator


def _bool_array(x: Any) -> bool:
    return isinstance(x, Variable) and isinstance(x.type, TensorType) and \
        x.type.dtype == "bool" and not x.wrapped and not NUMPY_SCALAR.fn(x)


def _is_two(b: Any) -> bool | None:
    """Whether the number made of sizes ``b`` (a Dim, or a size used as a number) is 2
    at every size (True), at none (False: ``n * 200``, ``2 * n + 1``), or at some only
    (None), as the sizes alone decide it (no assumption is made)."""
    size = b if isinstance(b, Dim) else number_value(b) if isinstance(b, SizeNumber) else None
    if isinstance(size, int):
        return size == 2
    return EMPTY.decide((size, "==", 2)) if isinstance(size, Dim) else None


def _literal_two(b: Any) -> bool:
    """Whether ``b`` is the Python int 2 (not a bool, not a NumPy integer), or a wrapped
    constant of it (a size known to be 2)."""
    if type(b) is int:
        return b == 2
    if isinstance(b, Constant) and b.wrapped and is_integer(b.type.dtype):
        data = np.asarray(b.data)
        return data.ndim == 0 and int(data) == 2
    return False

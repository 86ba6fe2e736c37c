"""Python ints that do not fit the dtype an Op computes in (NumPy 2, NEP 50).

A Python int used in an op call becomes a *wrapped* int64 constant whose value keeps
its meaning only if it fits the dtype the Op computes in.  NumPy 2 never changes it
silently, and neither does kantensor:

* arithmetic (``compute = "output"``) on a number out of range of the result dtype is
  refused when the graph is built, as NumPy 2 refuses it when it runs:
  ``uint8 tensor + 1000`` is a :class:`PythonIntError` naming the value and dtype;
* comparisons (``compute = "promote"``) compare the exact number, as NumPy 2 does:
  ``uint8 tensor > -1`` is true everywhere, ``int8 tensor < 200`` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..logic.pyints import fit_range, fits
from ..types.basic_ops import cast_array
from ..types.conditions import Condition
from ..types.dim import Dim, unknown
from ..types.intervals import interval
from ..types.sizenum import NUMBER_VALUE
from ..types.symbols import substitute
from ..types.variable import SizeNumber
from .located import VariableAxis
from .sizes import lone_symbol, symbolic


class PythonIntError(OverflowError, TypeError):
    """A Python int operand out of range of the integer dtype the Op computes in."""


def _python_int(v: Any) -> int | None:
    """The value of a wrapped Python int constant, else None."""
    if getattr(v, "wrapped", False) and v.type.dtype == "int64" and hasattr(v, "data"):
        return int(v.data)  # (a size used as a number has no value yet: no data)
    return None


#: The Op whose output is a Python int of the data (``math.floor`` of a traced value).
DATA_INT_OP = "python_int"


def data_int(v: Any) -> bool:
    """Whether ``v`` is a Python int whose value the data decide (``math.floor(x.sum())``,
    and Python's arithmetic on it: a wrapped int64 made from a ``python_int`` node, no
    constant and no size): the graph holds it in int64, as its own node raises where it
    would not fit, but beside a narrower integer dtype only its value says whether NumPy
    raises (OverflowError, NEP 50)."""
    if not getattr(v, "wrapped", False) or v.type.dtype != "int64" or \
            hasattr(v, "data") or isinstance(v, SizeNumber):
        return False
    stack, seen = [v], set()
    while stack:
        node = stack.pop().owner
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if getattr(node.op, "name", None) == DATA_INT_OP:
            return True
        stack.extend(x for x in node.inputs if getattr(x, "wrapped", False))
    return False


def size_of_number(v: Any) -> Any:
    """The size ``D`` whose number ``v`` is (a size used as a number: ``size_number``'s
    output, ``x + (n - 3)``), else None."""
    return dict(v.owner.op.params).get("size") if isinstance(v, SizeNumber) else None


def number_value(v: SizeNumber) -> Any:
    """The value of the size number ``v`` over the graph's sizes (an int, or a Dim over
    named sizes and unknowns), read from its node's inputs as its relation reads it: its
    size parameter (``n - 3``, or ``?0 - 3`` where the call put a placeholder for an
    axis size, :func:`~.sizes.untie`) with each size it is made of, or the whole size
    where one input carries it, the length of that input, an unknown one named by the
    input's axis as a node's conditions name it (:class:`~.located.VariableAxis`). What
    the relation's terms and :func:`size_conditions` say of a size number, so both name
    the same size (never the placeholder, which is the same Dim in every call)."""
    size, node = size_of_number(v), v.owner
    if not isinstance(size, Dim) or node is None:
        return size
    mapping, whole = {}, None
    for d, x in zip(symbolic([size]), node.inputs, strict=False):
        n = x.type.shape[0] if x.type.ndim == 1 else None
        n = unknown(VariableAxis(x, 0)) if n is None else n
        if d == size:
            whole = n
        elif (key := lone_symbol(d)) is not None:
            mapping[key] = n
    if whole is not None:
        return whole
    return substitute(size, mapping) if mapping else size


def wrapped_key(v: Any) -> Any:
    """What a memo of builds keys a wrapped operand on besides its type: for a Python
    int, its sign and bit length (two ints of the same key fit the same dtypes, so a
    refusal by :func:`check_python_ints` is the same for both); for a size used as a
    number, its :func:`number_value` (what :func:`size_conditions` says of it: an axis
    of one graph's variable is not another's); else True."""
    if v.type.dtype != "int64":  # (no Python int: a wrapped float, the usual one)
        return True
    value = _python_int(v)
    if value is None and data_int(v):
        return "data"  # (refused beside a narrow integer dtype: check_python_ints)
    if value is None:
        size = number_value(v) if isinstance(v, SizeNumber) else None
        return True if size is None else size
    return number_key(value)


def number_key(value: Any) -> Any:
    """:func:`wrapped_key` of the constant that a Python bool, int or float becomes,
    from the number itself."""
    if type(value) is not int:
        return True
    return (value < 0, (~value if value < 0 else value).bit_length())


def check_python_ints(op: Any, inputs: Sequence[Any], dtype: str) -> None:
    """Refuse a wrapped Python int that ``dtype`` (where the Op computes) cannot hold: a
    constant, or a size used as a number whose inputs' sizes are ints (its value one)."""
    for i, v in enumerate(inputs):
        if fit_range(dtype) is not None and data_int(v):
            raise PythonIntError(
                f"{op}: operand {i} is a Python int of the data (math.floor, math.ceil, "
                f"math.trunc or round of a traced value) and {op} computes in {dtype}: NumPy "
                f"2 raises OverflowError where it does not fit {dtype}, which only the data "
                f"decide; cast the other operand to int64 first, e.g. x.astype('int64')")
        value = _python_int(v)
        if value is None and isinstance(v, SizeNumber):
            value = number_value(v)
        if type(value) is int and not fits(value, dtype):
            raise PythonIntError(
                f"{op}: Python integer {value} (operand {i}) is out of bounds for {dtype}, the "
                f"dtype {op} computes in (NumPy 2 refuses it too); cast the other operand "
                f"to a wider dtype first, e.g. x.astype('int64')")


def size_conditions(inputs: Sequence[Any], dtype: str) -> tuple[Condition, ...]:
    """What a size used as a number (a Python int in NumPy code: ``uint8 tensor + (n -
    3)``) needs to fit the integer ``dtype`` the Op computes in, where its sign or its
    bound does not say so: NumPy 2 raises OverflowError outside (``n - 3 >= 0`` and ``n -
    3 <= 255`` for uint8), as :func:`check_python_ints` refuses a constant."""
    found = fit_range(dtype)  # (the relation's PyIntFits states the same bounds)
    if found is None:
        return ()
    low, high = found
    out = []
    for v in inputs:
        size = number_value(v) if isinstance(v, SizeNumber) else None
        if not isinstance(size, Dim):
            continue
        least, most = interval(size)
        if least is None or least < low:
            out.append(Condition(size, ">=", low))
        if high is not None and (most is None or most > high):
            out.append(Condition(size, "<=", high))
    return tuple(out)


def exact_operands(inputs: Sequence[Any], values: list, dtype: str) -> list:
    """``values`` cast to ``dtype``, except wrapped Python ints out of its range, which
    stay Python ints so that NumPy compares the exact number."""
    out = []
    for v, x in zip(inputs, values, strict=True):
        value = _python_int(v)
        if value is None and data_int(v):  # (its value, now the graph runs)
            value = int(np.asarray(x))
        out.append(value if value is not None and not fits(value, dtype)
                   else cast_array(x, dtype))
    return out


NUMBER_VALUE.set(number_value)

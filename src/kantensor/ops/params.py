"""Parameter values of Ops: the kinds a ``call`` may annotate a parameter with.

Each kind (:data:`kantensor.ops.callspec.KINDS`) checks a user's value and normalises
it to a hashable value, because parameters become props of the Op (``sum{axis=(1,),
keepdims=False}``). Here: the errors, axis normalisation and the kinds of plain values
(:data:`VALUE_KINDS`); the kinds whose values may hold sizes are
:mod:`kantensor.ops.sizeparams`. How a call is split into tensors and parameters is
:mod:`kantensor.ops.callspec`; the objects some kinds normalise to (slices, index arrays,
arrays, subgraphs, ``UNSET``) are :mod:`kantensor.ops.paramvalues`, imported from there.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..types.dtypes import STRING, category, normalize_dtype
from .paramvalues import UNSET, ArrayParam, GraphParam


class ParamError(ValueError):
    """A parameter value (or a call) does not fit the Op's call convention."""


class AxisError(ParamError, IndexError):
    """An axis out of range for the input's rank (like NumPy's AxisError)."""


def normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` in ``range(ndim)``, counting negative axes from the end."""
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for a tensor of dimension {ndim}")
    return axis % ndim


def normalize_axes(axes: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Sorted distinct axes in ``range(ndim)``; ``None`` means all of them."""
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, int):
        axes = (axes,)
    out = [normalize_axis(a, ndim) for a in axes]
    if len(set(out)) != len(out):
        raise AxisError(f"repeated axis in {tuple(axes)}")
    return tuple(sorted(out))


def as_int(value: Any, what: str = "an int") -> int:
    """``value`` as an int (``operator.index``): not a bool, float or tensor."""
    if isinstance(value, bool | float) or hasattr(value, "owner"):
        raise ParamError(f"expected {what}, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ParamError(f"expected {what}, got {value!r}") from None


def _ints(value: Any, what: str = "an int or a sequence of ints") -> tuple[int, ...]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(as_int(v, what) for v in value)
    return (as_int(value, what),)


def _axes(value: Any, what: str = "None, an int or a sequence of ints"
          ) -> int | tuple[int, ...] | None:
    """None, an int, or a sequence of ints, made a tuple (an int stays an int: for 0-d
    inputs NumPy's reductions accept ``axis=0`` but not ``axis=(0,)``); a NumPy array of
    one or more dimensions is iterated, as ``normalize_axis_tuple`` does: its entries
    must be ints (not floats, bools or rows; ``np.array([])`` is no axis)."""
    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.ndim:
        return tuple(as_int(v, what) for v in value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return _ints(value, what)
    return as_int(value, what)


def _not_array(value: Any, what: str) -> None:
    """Refuse a NumPy array of 1 or more dimensions where NumPy takes an int or a tuple."""
    if isinstance(value, np.ndarray) and value.ndim:
        raise ParamError(f"expected {what}, got {value!r} (only integer scalar arrays "
                         "can be converted to a scalar index)")


def _axis_tuple(value: Any) -> int | tuple[int, ...] | None:
    """None, an int, or a tuple of ints, as NumPy's reductions (and ``squeeze``,
    ``linalg.norm``) take them: they refuse a list, which ``flip`` or ``transpose``
    take."""
    what = "None, an int or a tuple of ints"
    _not_array(value, what)
    if isinstance(value, Sequence) and not isinstance(value, tuple | str):
        raise ParamError(f"expected {what}, got {value!r} (NumPy takes a tuple here, "
                         f"not a {type(value).__name__})")
    return _axes(value, what)


def _listed_axes(value: Any) -> int | tuple[int, ...] | None:
    """An int, or a tuple or list of ints, as ``np.expand_dims`` takes them: it makes
    anything else one axis (``range(1)`` is no int: NumPy raises)."""
    what = "an int, or a tuple or list of ints"
    _not_array(value, what)
    if isinstance(value, Sequence) and not isinstance(value, tuple | list):
        raise ParamError(f"expected {what}, got {value!r}")
    return _axes(value, what)


def _maybe_accumulated_axis(value: Any) -> int | tuple[int] | None:
    """None, an int, or a tuple of one int (kept one: NumPy refuses it with
    ``include_initial``), as ``np.cumulative_sum`` takes it; not of other lengths."""
    if isinstance(value, tuple):
        if len(value) != 1:
            raise ParamError("accumulate does not allow multiple axes")
        return None if value[0] is None else (as_int(value[0], "None or an int"),)
    return _maybe_int(value)


def _maybe_int(value: Any) -> int | None:
    return None if value is None else as_int(value, "None or an int")


def _maybe_number(value: Any) -> bool | int | float | complex | None:
    return None if value is None else as_number(value)


def _cutoff(value: Any) -> bool | int | float | complex | None:
    """None, a number, or :data:`UNSET` (the parameter not given)."""
    return value if value is UNSET else _maybe_number(value)


def _maybe_dtype(value: Any) -> str | None:
    return None if value is None else _dtype(value)


def _norm_order(value: Any) -> float | str | None:
    """linalg.norm's ``ord``: None, a real number (inf included) or 'fro'/'nuc'."""
    if value is None or value in ("fro", "nuc"):
        return value
    return _real(value, "a norm order (a real number, 'fro' or 'nuc')")


def _bool(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ParamError(f"expected True or False, got {value!r}")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ParamError(f"expected a string, got {value!r}")
    return value


def _strings(value: Any) -> tuple[str, ...]:
    """A string or a sequence of them, as a tuple."""
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, Sequence) or not all(isinstance(v, str) for v in items):
        raise ParamError(f"expected a string or a sequence of strings, got {value!r}")
    return tuple(items)


def _dtype(value: Any) -> str:
    """A dtype to compute in: any but string (strings are typed, never computed into)."""
    try:
        name = normalize_dtype(value)
    except TypeError as exc:
        raise ParamError(str(exc)) from None
    if category(name) is STRING:
        raise ParamError(f"{name} is not a dtype to compute in (strings have no arithmetic "
                         "and no casts)")
    return name


def as_number(value: Any) -> bool | int | float | complex:
    """``value`` as a Python number (a 0-d array's ``item()``)."""
    if isinstance(value, bool | int | float | complex):
        return value
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    raise ParamError(f"expected a Python number, got {value!r}")


def _numbers(value: Any) -> float | tuple[float, ...]:
    """A real number or a sequence of them (quantile's q), as floats."""
    what = "a real number or a sequence of them"
    if isinstance(value, Sequence | np.ndarray) and not isinstance(value, str):
        return tuple(_real(v, what) for v in np.asarray(value).ravel().tolist()) \
            if np.ndim(value) == 1 else _bad(value, what)
    return _real(value, what)


def _quantiles(value: Any) -> tuple[str, Any]:
    """A real number or an array of them, nested sequences of any rank (quantile's q), as
    NumPy reads it: ``(kind, value)``. A Python int or float is kind ``"int"`` or
    ``"float"`` (NumPy casts it to a float x's dtype); anything else (``np.float64``
    too) is an array, kind its dtype (``int64``, ``float64``, ``float32``...), whose dtype NumPy
    promotes with x's (integers pick elements for ``linear``). The kind keeps ``0`` and
    ``0.0`` apart, which are equal as values; the value is a number or nested tuples.
    :func:`quantiles_value` gives it back."""
    what = "a real number or an array of them"
    if type(value) in (int, float):
        return (type(value).__name__, value)
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray | np.number):
        raise ParamError(f"expected {what}, got {value!r}")
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise ParamError(f"expected {what}, got {value!r}")
    return (str(array.dtype), _nested(array.tolist()))


def quantiles_value(q: tuple[str, Any]) -> Any:
    """The value of a ``quantiles`` parameter as NumPy is given it: a Python number, or
    an array of its dtype."""
    kind, value = q
    return value if kind in ("int", "float") else np.array(value, dtype=kind)


def _nested(value: Any) -> Any:
    return tuple(_nested(v) for v in value) if isinstance(value, list) else value


def _real(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ParamError(f"expected {what}, got {value!r}")
    return float(value)


def _bad(value: Any, what: str) -> Any:
    raise ParamError(f"expected {what}, got {value!r}")


def _index_values(value: Any) -> tuple[int, ...] | None:
    """Integers all known (an ONNX input's constant indices, read for the conditions
    they make), or None: unknown, or an entry that is no int (a size, unknown)."""
    if value is None:
        return None
    if not isinstance(value, Sequence) or isinstance(value, str):
        value = (value,)
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value):
        return None
    return tuple(int(v) for v in value)


def _dtyped_number(value: Any) -> tuple[str, bool | int | float | complex]:
    """A number with its dtype, ``(dtype, value)``: a one-element array (ONNX's tensor
    attributes such as ConstantOfShape's ``value``) or such a pair."""
    if isinstance(value, np.ndarray) and value.size == 1:
        return _dtype(value.dtype), value.reshape(()).item()
    if isinstance(value, tuple | list) and len(value) == 2:
        return _dtype(value[0]), as_number(value[1])
    raise ParamError(f"expected a one-element array or a (dtype, number) pair, got {value!r}")


def _pad_width(value: Any) -> tuple[tuple[int, int], ...]:
    """NumPy's pad widths: ``n``, ``(before, after)`` or one pair per axis; the
    broadcasting against the axes happens when the rank is known."""
    what = "an int, a (before, after) pair or one pair per axis"
    if isinstance(value, Sequence) and value and all(
            isinstance(v, Sequence) for v in value):
        pairs = tuple(_ints(v, what) for v in value)
    else:
        pairs = (_ints(value, what),)
    for pair in pairs:
        if len(pair) not in (1, 2) or min(pair) < 0:
            raise ParamError(f"pad widths must be non-negative (before, after) pairs, "
                             f"got {value!r}")
    return tuple(p * 2 if len(p) == 1 else p for p in pairs)


def _axis_pairs(value: Any) -> int | tuple[tuple[int, ...], tuple[int, ...]]:
    """tensordot's ``axes``: an int, or a pair of axis lists (each an int or a
    sequence of ints; an int becomes a 1-tuple)."""
    what = "an int or a pair of axis sequences"
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != 2:
            raise ParamError(f"expected {what}, got {value!r}")
        first, second = (_ints(v, what) for v in value)
        return first, second
    return as_int(value, what)


def _array_param(value: Any) -> ArrayParam | None:
    """None, or an array (or a nested list of numbers or strings) as an ArrayParam."""
    if value is None or isinstance(value, ArrayParam):
        return value
    array = np.asarray(value)
    if array.dtype.kind in "OUT":
        items = array.ravel().tolist()
        if not all(isinstance(v, str) for v in items):
            raise ParamError(f"expected an array of numbers or of strings, got {value!r}")
        return ArrayParam("string", array.shape, tuple(items))
    if array.dtype.kind not in "biuf":
        raise ParamError(f"expected an array of numbers or of strings, got {value!r}")
    return ArrayParam(str(array.dtype), array.shape, tuple(array.ravel().tolist()))


def _graph_param(value: Any) -> GraphParam | None:
    if value is None or isinstance(value, GraphParam):
        return value
    raise ParamError(f"expected a subgraph, got {type(value).__name__}")


#: The parameters (Op, name) whose axes NumPy reads with ``operator.index``, so that a
#: Python bool is the int it is (``np.flip(x, axis=True)`` flips axis 1), and whether
#: it reads the bools in a sequence of axes so too (``np.flip(x, axis=(True,))``; not
#: ``np.linalg.norm(x, axis=(True,))``, which a reduction reads): found by calling
#: NumPy with ``axis=True`` and ``(True,)`` on every catalogue function taking an axis
#: (tests/test_eval_shape_bool_axes.py). The others refuse a bool, as NumPy does ("an
#: integer is required for the axis"): reductions, cumulative ones, ``argsort``,
#: ``argpartition``, ``take``, ``repeat``, ``squeeze``, ``concatenate``, ``transpose``.
BOOL_AXES: dict[tuple[str, str], bool] = {
    ("flip", "axis"): True, ("roll", "axis"): True, ("expand_dims", "axis"): True,
    ("moveaxis", "source"): True, ("moveaxis", "destination"): True,
    ("median", "axis"): True, ("quantile", "axis"): True, ("percentile", "axis"): True,
    ("sort", "axis"): False, ("partition", "axis"): False, ("swapaxes", "axis1"): False,
    ("swapaxes", "axis2"): False, ("stack", "axis"): False, ("split", "axis"): False,
    ("take_along_axis", "axis"): False, ("trace", "axis1"): False,
    ("trace", "axis2"): False, ("diagonal", "axis1"): False,
    ("diagonal", "axis2"): False, ("norm", "axis"): False}


def unbooled(value: Any, in_sequences: bool) -> Any:
    """``value`` with a Python bool made the int it is (and, ``in_sequences``, each in a
    sequence of it); None if it holds none (``np.True_`` is no int to
    ``operator.index``: NumPy refuses it)."""
    if isinstance(value, bool):
        return int(value)
    if in_sequences and isinstance(value, tuple | list) and \
            any(isinstance(v, bool) for v in value):
        return type(value)(int(v) if isinstance(v, bool) else v for v in value)
    return None


#: The kinds of plain values (numbers, strings, dtypes, axes, arrays, subgraphs):
#: normaliser from a user's value to a hashable prop value; the kinds holding sizes
#: are :data:`kantensor.ops.sizeparams.SIZED_KINDS`.
VALUE_KINDS: dict[str, Callable[[Any], Any]] = {
    "array": _array_param,
    "graph": _graph_param,
    "int": as_int,
    "ints": _ints,
    "index_values": _index_values,
    "dtyped_number": _dtyped_number,
    "axis": as_int,
    "maybe_axis": _maybe_int,
    "maybe_accumulated_axis": _maybe_accumulated_axis,
    "maybe_int": _maybe_int,
    "axes": _axes,
    "listed_axes": _listed_axes,
    "axis_tuple": _axis_tuple,
    "bool": _bool,
    "flag": _bool,  # a bool a front end sets, shown in the Op's name only where True
    "str": _str,
    "strings": _strings,
    "dtype": _dtype,
    "maybe_dtype": _maybe_dtype,
    "number": as_number,
    "numbers": _numbers,
    "quantiles": _quantiles,
    "maybe_number": _maybe_number,
    "cutoff": _cutoff,
    "norm_order": _norm_order,
    "pad_width": _pad_width,
    "axis_pairs": _axis_pairs,
}

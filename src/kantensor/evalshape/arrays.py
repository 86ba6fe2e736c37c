"""``np.array``, ``np.asarray``, ``np.asanyarray`` and ``np.ascontiguousarray`` of
tensors and sizes during ``eval_shape`` (entries of :data:`.patches.CREATION`).

Each takes NumPy's own signature, so that a keyword NumPy does not take is refused as
NumPy refuses it, and each keyword that changes the result is typed as NumPy gives it
(``ndmin``'s leading axes of 1, ``ascontiguousarray``'s at least one axis) or refused:
never ignored. ``copy=False`` is refused where NumPy must copy (a list, a new dtype),
and where whether it must depends on what a type does not say (a 0-d value, which NumPy
may hold as a scalar; order 'C' or 'F', which depend on the memory layout).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import ops
from ..graph.basic import Variable
from ..ops.arraylike import sized_array
from ..types.dim import Dim
from ..types.dtypes import is_integer
from ..types.sizenum import Ratio, size_tensor
from ..types.variable import SIZED_LIST, as_tensor_variable
from .powers import fraction
from .scalartypes import tag_python_ints
from .trace import current


def symbolic(x: Any) -> bool:
    """Whether ``x`` (or an item of a list or tuple ``x``) is a size or a tensor."""
    if isinstance(x, Dim | Ratio | Variable):
        return True
    return isinstance(x, list | tuple) and any(symbolic(v) for v in x)


def _stacked(obj: Any) -> Any:
    """A nested list of tensors, sizes and numbers as one tensor (``np.array([a, b])``)."""
    if isinstance(obj, list | tuple):
        return ops.stack([_stacked(v) for v in obj])
    if isinstance(obj, Dim | Ratio):
        return size_tensor(obj)
    return as_tensor_variable(obj)


def _python_leaf(v: Any) -> Any:
    """``v``, or where ``v`` is a 0-d number of the graph made of sizes and Python
    numbers by ``+ - * /`` (``n * 1.5``: :func:`~.powers.fraction`), the Python number it
    is in NumPy code: a float as the exact :class:`Ratio` (an int as its size), so that
    a list holding it has NumPy's dtype (``[n * 1.5, 1]``: float64)."""
    if isinstance(v, list | tuple):
        return type(v)(_python_leaf(x) for x in v)
    if not isinstance(v, Variable) or v.type.ndim != 0:
        return v
    exact = fraction(v)
    if exact is None:
        return v
    p, q = exact
    if is_integer(v.type.dtype):
        return p if q == 1 else v
    return Ratio(p, q) if isinstance(p, Dim) else float(p) / q


def listed(obj: Any) -> Any:
    """The tensor NumPy's array of the list ``obj`` holding sizes (and numbers the graph
    makes of them, :func:`_python_leaf`) is, of NumPy's dtype
    (:func:`~kantensor.ops.arraylike.sized_array`); None for anything else."""
    return sized_array(_python_leaf(obj)) if isinstance(obj, list | tuple) else None


def _sized_list(obj: Any) -> Any:
    """The :data:`~kantensor.types.variable.SIZED_LIST` hook: :func:`listed` while
    this thread traces (``x + [n, 1.5]``), else None."""
    return None if current() is None else listed(obj)


SIZED_LIST.set(_sized_list)


def array(obj: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K",
          subok: bool = False, ndmin: Any = 0, ndmax: Any = 0, like: Any = None) -> Any:
    """``np.array`` of a tensor (or of lists holding tensors or sizes; of numbers and
    sizes, NumPy's dtype for them: :func:`~kantensor.ops.arraylike.sized_array`,
    ``[n, 1.5]`` float64 as ``[3, 1.5]`` is), with ``ndmin``'s leading axes of 1;
    NumPy's own signature, so a keyword it does not take is refused as NumPy does."""
    if not symbolic(obj):
        return NotImplemented
    if ndmax or like is not None:
        raise TypeError("numpy.array's ndmax= and like= are not supported during "
                        "eval_shape")
    return _at_least(_converted(obj, dtype, copy, order), ndmin)


def asarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
            copy: Any = None, like: Any = None) -> Any:
    """``np.asarray``/``np.asanyarray``: :func:`array` without ``ndmin``."""
    if not symbolic(a):
        return NotImplemented
    if device not in (None, "cpu") or like is not None:
        raise TypeError("numpy.asarray's device= (other than 'cpu') and like= are not "
                        "supported during eval_shape")
    return _converted(a, dtype, copy, order)


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> Any:
    """``np.ascontiguousarray``: at least one axis, as NumPy gives (a scalar as [1])."""
    if not symbolic(a):
        return NotImplemented
    if like is not None:
        raise TypeError("numpy.ascontiguousarray's like= is not supported during eval_shape")
    return _at_least(_converted(a, dtype, None, "C"), 1)


def _converted(obj: Any, dtype: Any, copy: Any, order: Any) -> Any:
    """``obj`` (symbolic) as one tensor of ``dtype``, refusing what NumPy refuses:
    an unknown ``order``, ``copy=False`` where a copy is needed (a list, a new dtype);
    ``copy=False`` of a 0-d tensor, or with order 'C' or 'F', is refused (whether NumPy
    copies depends on its value being a scalar, or on its memory layout)."""
    if order is not None and str(order).upper() not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    out = listed(obj)
    if out is None and (isinstance(obj, Dim | Ratio) or isinstance(obj, Variable) and
                        _python_leaf(obj) is not obj):
        # np.array(n * 1.5), np.asarray(n): NumPy's 0-d array of a Python number, no
        # longer one (strong in promotion, NEP 50), of its dtype (float64, int64)
        out = listed([obj])[0]
    out = _stacked(obj) if out is None else out
    name = None if dtype is None else np.dtype(dtype).name
    if copy is False and isinstance(obj, Variable) and (
            obj.ndim == 0 or str(order).upper() not in ("NONE", "K", "A")):
        raise TypeError("numpy.array(x, copy=False) of a 0-d x, or with order 'C' or "
                        "'F', is not supported during eval_shape (whether NumPy must copy "
                        "depends on x's memory layout, or whether it is a scalar)")
    if copy is False and (not isinstance(obj, Variable) or name not in (None, out.dtype)):
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if name is None:
        return out
    return tag_python_ints(out.astype(name), obj, name)  # (sizes as Python ints must fit)


def _at_least(x: Any, ndmin: Any) -> Any:
    """``x`` with leading axes of 1 up to ``ndmin`` axes (NumPy's ``ndmin``)."""
    ndmin = operator.index(ndmin)
    if ndmin > 64:
        raise ValueError("ndmin must be <= ndmax (64)")
    more = ndmin - x.type.ndim
    return x[(None,) * more] if more > 0 else x

"""The built-in Ops, made from the catalogue in ``signatures/`` at import.

Every entry becomes an Op reachable as ``kantensor.ops.NAME`` (and ``kantensor.NAME``)
and, where it declares one, the implementation of a TensorVariable operator or method.
The submodules hold the Op classes, parameters, the catalogue loader, and what the
catalogue refers to that NumPy does not have: implementations with NumPy's exact
semantics under another calling convention, and the *builders* that render template
signatures.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from typing import Any

from ..types.dim import Dim
from ..types.numpyargs import numpy_method
from ..types.protocol import KANTENSOR_NAMES, WRITE_BACK, register_numpy, view
from ..types.sizenum import AS_TENSOR
from ..types.variable import constant, register_method, register_operator
from .catalogue import load_all
from .compositions import register as register_compositions
from .counted import register as register_counted
from .diffs import register as register_diffs
from .families.advanced import subscript_operator
from .families.updates import update_operator
from .filled import register as register_filled
from .linalgnumpy import register as register_linalg_numpy
from .numpypower import power_operator
from .sizes import AXIS_INPUT
from .templates import builder as builder  # the decorator registering a builder
from .uniques import register as register_uniques
from .vecdots import register as register_vecdots

#: The built-in Ops by name, in catalogue order.
CATALOGUE: dict[str, Any] = {}

#: The Op names of each catalogue file ("elementwise", "linalg", ...), in file order.
FAMILIES: dict[str, list[str]] = {}


_SIZES = (int, Dim)


def _variadic(op: Any) -> Callable[..., Any]:
    """A method that, like NumPy's, also takes its tuple as separate ints:
    ``x.reshape(2, -1)`` is ``x.reshape((2, -1))``, then NumPy's other parameters
    (``order='C'``: :func:`~kantensor.types.numpyargs.numpy_method`)."""
    fn = numpy_method(op.name, op, variadic=True)
    def method(x: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) > 1:  # a loop, not all(...): this is on the path of x.reshape(3, -1)
            for a in args:
                if type(a) is not int and (a is not None and not isinstance(a, _SIZES)
                                           or isinstance(a, bool)):
                    break
            else:
                args = (args,)
        return fn(x, *args, **kwargs) if kwargs else fn(x, *args)
    method.__doc__ = op.__doc__
    method.__name__ = method.__qualname__ = op.name
    method.__signature__ = _variadic_signature(inspect.signature(op))  # type: ignore
    return method


def _variadic_signature(sig: inspect.Signature) -> inspect.Signature:
    """``(x, *shape, order=...)`` for an Op ``(x, shape, order=...)``: what ``x.reshape?``
    shows (the tuple's items given one by one, as NumPy's ``ndarray.reshape`` shows)."""
    x, items, *rest = sig.parameters.values()
    return sig.replace(parameters=[
        x, items.replace(kind=inspect.Parameter.VAR_POSITIONAL, default=inspect.Parameter.empty),
        *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in rest)])


for _entry in load_all():
    _op = _entry.make_op()
    CATALOGUE[_entry.name] = _op
    FAMILIES.setdefault(_entry.file.removesuffix(".toml"), []).append(_entry.name)
    if _entry.operator:
        register_operator(_entry.operator, _op)
    for _method in _entry.method:
        register_method(_method, _variadic(_op) if _entry.variadic
                        else numpy_method(_method, _op))
    for _fn in _entry.numpy:
        register_numpy(_fn, _op)
    KANTENSOR_NAMES.add(_entry.name)

# An unknown axis of a whole x.shape given as a size parameter is shape_of(x, axis).
AXIS_INPUT.set(lambda x, axis: CATALOGUE["shape_of"](x, axis=axis))



def _size_number(size: int | Dim) -> Any:
    """A size as the graph's number: a wrapped int, or ``size_number``'s output."""
    if isinstance(size, int):
        return constant(size)
    return CATALOGUE["size_number"](size)  # a SizeNumber: wrapped, as a Python int is


AS_TENSOR.set(_size_number)

# x[index] on a tensor: basic indices build getitem, indices holding arrays build index.
register_operator("getitem", subscript_operator(CATALOGUE["getitem"], CATALOGUE["index"]))
# x == y during eval_shape compares elements (see TensorVariable.__eq__).
register_operator("eq", CATALOGUE["eq"])
# x ** 2 during eval_shape is NumPy's np.square (a bool array's int8; see .numpypower).
register_operator("pow", power_operator(CATALOGUE["pow"], CATALOGUE["square"]))
register_operator("ne", CATALOGUE["ne"])


def _write_back(value: Any, x: Any) -> Any:
    """``x op= y`` during eval_shape: NumPy writes the result into x, so it broadcasts
    onto x's shape (``v -= dw`` of ``v[N,D]``, ``dw[D,N]`` needs ``D == N``, not only a
    broadcast of the two). Shapes compared by structure: no traced program is asked."""
    a, b = value.type.shape, x.type.shape
    if len(a) == len(b) and all(p is q or (type(p) is type(q) and (
            p._terms == q._terms if isinstance(p, Dim) else p == q))
            for p, q in zip(a, b, strict=True)):
        return value
    return CATALOGUE["broadcast_to"](value, x.shape)


WRITE_BACK.set(_write_back)
# x.at[index].set(v) / .add(v): the same split into basic and advanced indices.
register_operator("set_at", update_operator(CATALOGUE["setitem"], CATALOGUE["index_set"]))
register_operator("add_at", update_operator(CATALOGUE["additem"], CATALOGUE["index_add"]))
# NumPy functions that are compositions of these Ops (np.atleast_2d, np.insert, ...).
register_compositions(CATALOGUE)
register_counted(CATALOGUE)
register_uniques(CATALOGUE)
register_linalg_numpy()
register_filled(CATALOGUE)
register_diffs(CATALOGUE, constant)
register_vecdots(CATALOGUE, constant)
# x.view() and x.view(np.ndarray) are x (wrapper libraries call them).
register_method("view", view)


def op_named(text: str) -> Any:
    """The rule for text that may name an Op (``kt.query``, the CLI, the REPL, the
    magics): a string that names a catalogue Op is that Op; a bare name that names none
    is a ValueError suggesting the nearest (a signature has ``->``); other text is
    signature text (None)."""
    if text in CATALOGUE:
        return CATALOGUE[text]
    if text.isidentifier():
        near = nearest_op(text)
        hint = f" (did you mean {near}?)" if near else \
            " (`ops` lists the Ops; a signature needs ->)"
        raise ValueError(f"unknown Op {text!r}{hint}")
    return None


def nearest_op(name: str) -> str | None:
    """The catalogue Op whose name is most like ``name`` (for "did you mean"), or None."""
    near = sorted(difflib.get_close_matches(name, list(CATALOGUE), n=5),
                  key=lambda n: not n.startswith(name[:2]))  # stable: by likeness
    return near[0] if near else None


def __getattr__(name: str) -> Any:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted({*globals(), *CATALOGUE})


__all__ = sorted(CATALOGUE)

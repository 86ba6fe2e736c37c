"""``eval_shape``: run an unmodified NumPy function on symbolic tensors.

The function's parameters become graph inputs of the given types (``TensorType`` or the
compact text ``"float32[n,3]"``); NumPy's functions and operators on them build a
kantensor graph through ``__array_ufunc__``/``__array_function__`` (see
:mod:`kantensor.types.protocol`). The result gives the output types (symbolic sizes
included) and the graph. When the function cannot be typed, the error says which line
of the user's function failed, and why, in kantensor's words.

While the function runs, NumPy's entries that cannot dispatch (creation functions,
samplers, ``math``, ``len``/``int``/``range``) reach kantensor (:mod:`.patches`), and
writing into arrays rebinds them to functional updates (:mod:`.trace`).
"""

from __future__ import annotations

import functools
import inspect
import linecache
import os
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..graph.fgraph import FunctionGraph
from ..ops.contracts import contract
from ..types.contracts import Contract
from ..types.type import TensorType
from .display import shape_result_html
from .patches import patched
from .trace import Trace, tracing

#: Frames in these folders are not the user's code.
_LIBRARIES = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
              os.path.dirname(os.path.abspath(np.__file__)) + os.sep)


@dataclass(frozen=True)
class ShapeResult:
    """What :func:`eval_shape` found: ``type`` (one TensorType, or a tuple of them when
    the function returns several values), the symbolic ``inputs`` and ``outputs``, and
    ``graph``, a FunctionGraph from the inputs to the outputs."""

    type: TensorType | tuple[TensorType, ...]
    inputs: tuple[Variable, ...]
    outputs: tuple[Variable, ...]
    graph: FunctionGraph

    def __repr__(self) -> str:
        shown = self.type if isinstance(self.type, tuple) else (self.type,)
        return f"ShapeResult({', '.join(map(str, shown))})"

    def _repr_html_(self) -> str:
        return shape_result_html(self)

    @property
    def contract(self) -> Contract:
        """The input sizes under which the code's every operation holds (its nodes'
        conditions, over the named sizes of the input types): see :func:`kantensor.contract`.
        """
        return contract(list(self.outputs), list(self.inputs))


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> TensorType:
    """``TensorType.parse``, remembered: the same few texts come back at every call."""
    return TensorType.parse(text)


def _as_type(t: Any, i: int) -> TensorType:
    if isinstance(t, TensorType):
        return t
    if isinstance(t, str):
        return _parsed(t)
    raise TypeError(f"eval_shape: type {i} must be a TensorType or text such as "
                    f"'float32[n,3]', got {t!r}")


def _user_line(exc: BaseException) -> str:
    """``file:line in fn: source`` of the innermost frame outside kantensor and NumPy,
    the line of the user's code that failed."""
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename).startswith(_LIBRARIES):
            continue
        source = (frame.line or linecache.getline(frame.filename, frame.lineno)).strip()
        found = f"{frame.filename}, line {frame.lineno}, in {frame.name}: {source}"
    return found


def _rethrow(fn: Callable[..., Any], exc: Exception) -> Exception:
    where = _user_line(exc)
    name = getattr(fn, "__qualname__", repr(fn))
    message = f"eval_shape({name}) failed at {where}\n{type(exc).__name__}: {exc}" if where \
        else f"eval_shape({name}) failed: {type(exc).__name__}: {exc}"
    try:
        return type(exc)(message)
    except Exception:  # an exception class that does not take a message
        return TypeError(message)


def _flatten(result: Any, fn: Any) -> tuple[Variable, ...]:
    values = result if isinstance(result, tuple | list) else (result,)
    for i, v in enumerate(values):
        if not isinstance(v, Variable):
            raise TypeError(f"eval_shape: {getattr(fn, '__qualname__', fn)} returned "
                            f"{type(v).__name__} (value {i}), not a symbolic tensor: it does "
                            "not depend on the inputs")
    return tuple(values)


def _namespaces(fn: Any) -> list[dict[str, Any]]:
    """The module globals the traced code looks ``len``, ``int``, ... up in: those of
    the function (of a bound method's function, a partial's function, a callable
    object's ``__call__``)."""
    seen: list[dict[str, Any]] = []
    for _ in range(8):
        fn = getattr(fn, "__func__", None) or getattr(fn, "func", None) or fn
        ns = getattr(fn, "__globals__", None)
        if ns is not None:
            seen.append(ns)
            break
        if not callable(fn) or type(fn).__call__ is fn:
            break
        fn = type(fn).__call__
    return seen


def eval_shape(fn: Callable[..., Any], *types: TensorType | str,
               names: Sequence[str] | None = None, **kwargs: Any) -> ShapeResult:
    """Call ``fn`` on symbolic tensors of ``types`` (and the keyword arguments
    ``kwargs``, passed as they are) and return the output types and the graph it built
    (see :class:`ShapeResult`).

    >>> import numpy as np, kantensor as kt
    >>> kt.eval_shape(lambda x, w: np.tanh(x @ w), "float32[n,3]", "float32[3,4]").type
    TensorType(float32, (n, 4))
    """
    in_types = [_as_type(t, i) for i, t in enumerate(types)]
    if names is None:
        try:
            params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            params = []
        names = params[:len(in_types)] if len(params) >= len(in_types) else \
            [f"x{i}" for i in range(len(in_types))]
    inputs = tuple(t(name) for t, name in zip(in_types, names, strict=True))
    trace = Trace(inputs)
    try:
        with patched(_namespaces(fn)), tracing(trace):
            result = fn(*inputs, **kwargs)
    except Exception as exc:
        raise _rethrow(fn, exc) from exc
    outputs = _flatten(result, fn)
    inputs = tuple(trace.input(x) for x in inputs)
    graph = FunctionGraph(list(inputs), list(outputs), clone=False)
    out_types = tuple(v.type for v in outputs)
    single = not isinstance(result, tuple | list)
    return ShapeResult(out_types[0] if single else out_types, inputs, outputs, graph)

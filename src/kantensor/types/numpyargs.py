"""NumPy's calling convention mapped onto an Op's: ``np.sum(x, 0, np.int8)`` passes its
third argument as NumPy's ``dtype``, where the kantensor Op's third parameter is
``keepdims``.

NumPy code passes arguments in NumPy's order (``np.sum(a, axis, dtype, out, keepdims)``,
``x.std(axis, dtype, out, ddof)``, ``np.sort(a, axis, kind)``); an Op's own parameters
come in another (``sum(x, axis, keepdims, *, dtype)``). Handing the arguments over as
they come gives a parameter a value meant for another (``keepdims=np.int8``: a
misleading message) or refuses a valid call (too many positional arguments). A
:class:`Plan` binds the call to NumPy's signature and passes each argument by NumPy's
name: positionally while the two signatures agree place by place (the same name, or a
renamed tensor such as NumPy's ``a`` for the Op's ``x``), by keyword after. A NumPy
parameter the Op does not have is left out where it has NumPy's default (``order='C'``,
``kind=None``, ``out=None``: what the Op computes anyway); at another value the call is
refused, naming it (``np.sort(x, 0, 'stable')``: ``kind='stable'``), except those the
caller judges itself (:mod:`kantensor.types.protocol`: ``out=``, ``where=``).

A call NumPy's signature does not bind is handed over unchanged (the Op's message
says what is wrong), as are calls to Ops that take ``*args`` (compositions that read
NumPy's order themselves).
"""

from __future__ import annotations

import importlib
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

_P = inspect.Parameter
_SIMPLE = (str, bool, int, float, type(None))


@dataclass(frozen=True)
class Plan:
    """How a call in NumPy's convention becomes a call of one Op."""

    numpy: inspect.Signature
    #: NumPy's parameters that the Op takes in the same place, in order.
    same_places: int
    #: The Op's parameter names that a keyword may give.
    by_name: frozenset[str]
    #: The Op takes any keyword (``**kwargs``).
    any_keyword: bool
    #: What the call is, for messages: ``numpy.sort`` (``ndarray.sort``) and the Op's name.
    label: str = "numpy"
    op: str = "op"
    #: NumPy's keywords passed on by name whatever their value, for the caller to judge.
    passed_on: frozenset[str] = frozenset()
    #: NumPy's parameters that change no value of the result (:data:`INERT`).
    inert: frozenset[str] = frozenset()

    def arguments(self, args: tuple, kwargs: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
        """``args, kwargs`` of the call in NumPy's convention, for the Op."""
        if len(args) <= self.same_places and all(k in self.by_name for k in kwargs):
            return args, kwargs  # the common case: nothing is out of place
        try:
            bound = self.numpy.bind(*args, **kwargs)
        except TypeError:
            return args, kwargs
        given = bound.arguments
        params = self.numpy.parameters
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        in_place = True
        for i, (name, param) in enumerate(params.items()):
            if name not in given:
                in_place = False
                continue
            value = given[name]
            if param.kind is _P.VAR_KEYWORD:
                keywords.update(value)
            elif param.kind is _P.VAR_POSITIONAL:
                positional.extend(value)
            elif in_place and i < self.same_places:
                positional.append(value)
            else:
                in_place = False
                if name in self.by_name or self.any_keyword or name in self.passed_on:
                    keywords[name] = value
                elif name not in self.inert and not _is_default(value, param):
                    raise TypeError(self._unknown(name, value, param))
        return tuple(positional), keywords

    def _unknown(self, name: str, value: Any, param: inspect.Parameter) -> str:
        default = "leave it out" if param.default is np._NoValue or param.default is \
            _P.empty else f"leave it at NumPy's default {param.default!r}"
        return (f"{self.label}: {name}={value!r} is not supported on symbolic tensors: "
                f"kt.{self.op} has no parameter {name}; {default}")


_LAYOUT = frozenset({"order", "subok"})

#: NumPy's parameters that change no value of the result, only its memory layout or how
#: it is computed: left out at any value (``np.empty_like(x, order='C')``, a stable
#: ``np.sort``; not ``argsort``'s, whose positions of ties depend on it).
INERT: dict[str, frozenset[str]] = {
    **dict.fromkeys(("zeros_like", "ones_like", "empty_like", "full_like", "copy"), _LAYOUT),
    "astype": _LAYOUT | {"copy"},
    **dict.fromkeys(("median", "quantile", "percentile"), frozenset({"overwrite_input"})),
    "sort": frozenset({"kind", "stable"})}


def _is_default(value: Any, param: inspect.Parameter) -> bool:
    default = param.default
    if value is default:
        return True
    if default is np._NoValue:  # NumPy's "not given"; a value given is not that
        return False
    return type(value) is type(default) and isinstance(value, _SIMPLE) and value == default


def _own_signature(op: Callable[..., Any]) -> inspect.Signature:
    """The parameters ``op`` takes: a Python function's own, from its code (a wrapper made
    with ``functools.wraps`` shows the wrapped Op's, which it may not take as they are:
    ``np.clip``'s takes NumPy's ``*args, **kwargs``)."""
    if not inspect.isfunction(op):
        return inspect.signature(op)
    own = types.FunctionType(op.__code__, op.__globals__, op.__name__, op.__defaults__,
                             op.__closure__)
    own.__kwdefaults__ = op.__kwdefaults__
    return inspect.signature(own)


def plan(numpy_signature: inspect.Signature | None, op: Callable[..., Any],
         label: str = "numpy", passed_on: frozenset[str] = frozenset()) -> Plan | None:
    """The plan for calling ``op`` with arguments in ``numpy_signature``'s convention
    (``label`` names the NumPy function in messages; ``passed_on``: NumPy's keywords given
    to ``op`` by name whatever their value); None where the call is handed over as it is
    (no signature, or an Op taking ``*args``)."""
    if numpy_signature is None:
        return None
    try:
        own = list(_own_signature(op).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is _P.VAR_POSITIONAL for p in own):
        return None
    theirs = list(numpy_signature.parameters.values())
    if any(p.kind is _P.VAR_POSITIONAL for p in theirs):
        return None
    own_positional = [p for p in own if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
    own_names = {p.name for p in own}
    their_names = {p.name for p in theirs}
    same = 0
    for mine, their in zip(own_positional, theirs, strict=False):
        if their.kind not in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
            break
        renamed = their.name not in own_names and mine.name not in their_names
        if mine.name != their.name and not renamed:
            break
        same += 1
    by_name = frozenset(p.name for p in own if p.kind in (_P.POSITIONAL_OR_KEYWORD,
                                                           _P.KEYWORD_ONLY))
    return Plan(numpy_signature, same, by_name, any(p.kind is _P.VAR_KEYWORD for p in own),
                label, getattr(op, "name", None) or getattr(op, "__name__", "op"), passed_on,
                INERT.get(label.rsplit(".", 1)[-1], frozenset()))


def signature(fn: Any) -> inspect.Signature | None:
    """NumPy's signature of ``fn`` (a function or an ``ndarray`` method), or None."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _forwarded() -> Any:
    for path in ("numpy._core._methods", "numpy.core._methods"):
        try:
            return importlib.import_module(path)
        except ImportError:
            continue
    return None


#: The module of the Python functions that ``ndarray.sum``, ``.mean``, ``.all``, ``.max``
#: ... hand all their arguments to: their real parameters, which the methods' shown
#: signatures do not always say (``ndarray.all`` shows ``axis, out, keepdims`` and
#: takes ``axis, dtype, out, keepdims``).
_METHODS = _forwarded()
_FORWARDED_AS = {"max": "_amax", "min": "_amin"}


def method_signature(name: str) -> inspect.Signature | None:
    """NumPy's signature of ``ndarray.<name>`` without ``self``: that of the function
    the method hands its arguments to, where it does (:data:`_METHODS`); else the
    method's own where it shows every parameter, else ``numpy.<name>``'s without its
    array where the method's shown parameters begin it; None otherwise."""
    method = signature(getattr(np.ndarray, name, None))
    if method is None:
        return None
    target = getattr(_METHODS, _FORWARDED_AS.get(name, "_" + name), None)
    forwarded = signature(target) if callable(target) else None
    if forwarded is not None:
        return forwarded.replace(parameters=list(forwarded.parameters.values())[1:])
    shown = list(method.parameters.values())[1:]
    if not any(p.kind is _P.VAR_KEYWORD for p in shown):
        return method.replace(parameters=shown)
    function = signature(getattr(np, name, None))
    if function is None:
        return None
    rest = list(function.parameters.values())[1:]
    named = [p.name for p in shown if p.kind is not _P.VAR_KEYWORD]
    if [p.name for p in rest[:len(named)]] != named:
        return None
    return function.replace(parameters=rest)


def numpy_method(name: str, op: Callable[..., Any], variadic: bool = False
                 ) -> Callable[..., Any]:
    """``x.<name>(...)`` in NumPy's convention calling ``op(x, ...)``: ``op`` itself where
    the two agree on every argument NumPy's method takes, else a function that maps the
    arguments by :class:`Plan`. A ``variadic`` method (``x.reshape(2, -1, order='C')``,
    its items gathered into one tuple before) takes ``numpy.<name>``'s parameters."""
    theirs = signature(getattr(np, name, None)) if variadic else method_signature(name)
    if theirs is None:
        return op
    if not variadic:
        this = _P("self", _P.POSITIONAL_ONLY)
        theirs = theirs.replace(parameters=[this, *theirs.parameters.values()])
    steps = plan(theirs, op, f"ndarray.{name}")
    if steps is None or steps.same_places >= len(steps.numpy.parameters):
        return op

    def method(x: Any, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = steps.arguments((x, *args), kwargs)
        return op(*args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(op, "__doc__", None)
    # x.sum? shows NumPy's parameters, which it takes (a Plan reads a function's own
    # parameters from its code, so a wrapper of this one is not misread by this)
    method.__signature__ = steps.numpy  # type: ignore[attr-defined]
    return method

"""What the traced code finds in its namespaces during ``eval_shape``.

NumPy's entries that cannot dispatch, ``math``'s functions and Python's ``len``, ``int``,
``range``, ... (:mod:`.patches`) must answer symbolic sizes. They are replaced where the
traced code looks them up, never in the ``numpy`` module itself: NumPy's own code,
compiled or not, keeps NumPy's functions (a Cython sampler that called a replaced
``np.empty`` would get a tensor where it writes memory).

Before the call, the code reachable from the traced function is found (:func:`reach`):
the function, what its code names in its module, the functions, classes and objects
those refer to (methods, closures, default values, bound objects and their attributes,
``functools.partial``), and the modules they live in, except libraries (:mod:`.code`).
In each such module's globals (and in closure cells and attributes of the objects
reached):

* ``numpy``, ``numpy.random`` and ``math`` (as ``np``, ``numpy``, ``math``, any name)
  become modules that answer with the traced entries and forward everything else;
* an entry imported by name (``from numpy import zeros``) becomes its traced entry;
* a random generator made before the trace (``np.random.default_rng(0)``, a
  ``RandomState``) becomes one whose samplers are typed sources;
* the builtins (:data:`.patches.BUILTINS`) are added, unless the module defines them.

Everything is put back when the last trace that made a change ends (a count per place,
under a lock), on error as on return; a value the traced code rebound meanwhile is
left as it is. The replacements call the originals in threads that do not trace.
"""

from __future__ import annotations

import functools
import math
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .code import function_is_library, is_library
from .patches import (
    BUILTIN_ENTRIES,
    CREATION,
    GENERATOR,
    INDEX_TRICKS,
    MATH,
    RANDOM,
    SCIPY_SPECIAL,
    UNSUPPORTED,
    UNSUPPORTED_RANDOM,
    entry,
    refusal,
    wrap_class,
)
from .scalartypes import SCALAR_TYPES


class TracedModule(types.ModuleType):
    """A module as the traced code sees it: the traced entries in front, everything else
    (and every assignment) the real module's."""

    def __init__(self, module: types.ModuleType, entries: dict[str, Any]):
        super().__init__(module.__name__, module.__doc__)
        vars(self)["__kantensor_traced__"] = module
        vars(self)["__kantensor_entries__"] = entries
        vars(self).update(entries)

    def __getattr__(self, name: str) -> Any:
        return getattr(vars(self)["__kantensor_traced__"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(vars(self)["__kantensor_traced__"], name, value)

    def __dir__(self) -> list[str]:
        return dir(vars(self)["__kantensor_traced__"])

    def __repr__(self) -> str:
        return repr(vars(self)["__kantensor_traced__"])


class TracedSampler:
    """A random generator made before the trace, as the traced code sees it: the
    samplers of ``table`` are typed sources in a thread that traces; everything else is
    the generator's own. ``isinstance(g, np.random.Generator)`` keeps its answer."""

    __slots__ = ("_rng", "_table")

    def __init__(self, rng: Any, table: dict[str, Callable[..., Any]]):
        object.__setattr__(self, "_rng", rng)
        object.__setattr__(self, "_table", table)

    @property
    def __class__(self) -> type:  # type: ignore[override]
        return type(self._rng)

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._rng, name)
        traced = self._table.get(name)
        return real if traced is None else entry(real, traced)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._rng, name, value)

    def __repr__(self) -> str:
        return repr(self._rng)


def _refusals(module: Any, table: dict[str, str], prefix: str) -> dict[str, Any]:
    return {name: entry(getattr(module, name), refusal(f"{prefix}.{name}", use))
            for name, use in table.items() if hasattr(module, name)}


def _entries(module: Any, table: dict[str, Callable[..., Any]]) -> dict[str, Any]:
    return {name: entry(getattr(module, name), fn) for name, fn in table.items()
            if hasattr(module, name)}


def _sampler_table(kind: str) -> dict[str, Callable[..., Any]]:
    table = GENERATOR if kind == "generator" else RANDOM
    return {**table, **{name: refusal(f"numpy.random.{name}", use)
                        for name, use in UNSUPPORTED_RANDOM.items()}}


_GENERATOR_METHODS = _sampler_table("generator")
_LEGACY_METHODS = _sampler_table("legacy")


def _sampling(make: Callable[..., Any], table: dict[str, Callable[..., Any]]) \
        -> Callable[..., Any]:
    """A generator constructor whose generators, made during a trace, are traced."""
    return lambda *args, **kwargs: TracedSampler(make(*args, **kwargs), table)


#: id(original) -> (original, what the traced code finds instead): see :func:`_replaced`.
_REPLACED: dict[int, tuple[Any, Any]] = {}
_REPLACED_LOCK = threading.Lock()


def _replaced() -> dict[int, tuple[Any, Any]]:
    """id(original) -> (original, what the traced code finds instead), for NumPy,
    ``numpy.random`` and ``math`` (SciPy's are added by :func:`_scipy`). Made on the first
    trace: importing ``numpy.random`` costs about 20 ms that ``import kantensor`` need
    not pay (NumPy imports it on first use)."""
    if not _REPLACED:
        with _REPLACED_LOCK:
            if not _REPLACED:
                _REPLACED.update(_replacements())  # one step: never seen half made
    return _REPLACED


def _replacements() -> dict[int, tuple[Any, Any]]:
    rng = np.random
    random_module = TracedModule(rng, {
        **_entries(rng, RANDOM), **_refusals(rng, UNSUPPORTED_RANDOM, "numpy.random"),
        "default_rng": entry(rng.default_rng, _sampling(rng.default_rng, _GENERATOR_METHODS)),
        "RandomState": wrap_class(rng.RandomState,
                                  _sampling(rng.RandomState, _LEGACY_METHODS))})
    numpy_module = TracedModule(np, {**_entries(np, CREATION), **{
                                         name: wrap_class(getattr(np, name), traced)
                                         for name, traced in SCALAR_TYPES.items()},
                                     **_refusals(np, UNSUPPORTED, "numpy"), **INDEX_TRICKS,
                                     "random": random_module})
    math_module = TracedModule(math, _entries(math, MATH))
    table: dict[int, tuple[Any, Any]] = {}
    for module, traced in ((np, numpy_module), (rng, random_module), (math, math_module)):
        table[id(module)] = (module, traced)
        for value in vars(traced)["__kantensor_entries__"].values():
            original = getattr(value, "__kantensor_traced__", None)
            if original is not None and not isinstance(value, types.ModuleType):
                table[id(original)] = (original, value)
    return table


def _scipy() -> None:
    """SciPy's entries (:data:`.patches.SCIPY_SPECIAL`), once SciPy has been imported."""
    special = sys.modules.get("scipy.special")
    if special is None or id(special) in _SCIPY_SEEN:
        return
    _SCIPY_SEEN.add(id(special))
    entries = _entries(special, SCIPY_SPECIAL)
    table = _replaced()
    table[id(special)] = (special, TracedModule(special, entries))
    for value in entries.values():
        table[id(value.__kantensor_traced__)] = (value.__kantensor_traced__, value)


_SCIPY_SEEN: set[int] = set()


def replacement(value: Any) -> Any:
    """What the traced code finds instead of ``value`` (None: ``value`` itself)."""
    hit = _replaced().get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    kind = type(value)
    if kind is np.random.Generator:
        return TracedSampler(value, _GENERATOR_METHODS)
    if kind is np.random.RandomState:
        return TracedSampler(value, _LEGACY_METHODS)
    return None


# -- finding the traced code -----------------------------------------------------------

#: How many objects :func:`reach` looks at, at most (a bound on hostile object graphs).
MAX_REACH = 20_000
_ITEMS = 256  # items of one container looked at
_MISSING = object()


class Reach:
    """The places of the traced code where a value is replaced: ``(holder, key)`` pairs,
    where the holder is a namespace or an object's ``__dict__`` (key: a name), a closure
    cell (key None) or a function (key ``"__defaults__"``)."""

    def __init__(self, own: str):
        self.own = own
        self.places: dict[tuple[int, Any], tuple[Any, Any, Any]] = {}
        self.namespaces: dict[int, dict[str, Any]] = {}
        self._seen: set[int] = set()
        self._todo: list[Any] = []

    def user(self, fn: Any) -> bool:
        return not function_is_library(fn, self.own)

    def add(self, holder: Any, key: Any, value: Any) -> None:
        new = replacement(value)
        if new is not None:
            self.places[(id(holder), key)] = (holder, key, new)

    def namespace(self, ns: dict[str, Any]) -> None:
        if id(ns) in self.namespaces:
            return
        self.namespaces[id(ns)] = ns
        for name, value in list(ns.items()):
            self.add(ns, name, value)
        for name, wrapped in BUILTIN_ENTRIES.items():
            if name not in ns:
                self.places[(id(ns), name)] = (ns, name, wrapped)

    def walk(self, *roots: Any) -> Reach:
        self._todo.extend(roots)
        steps = 0
        while self._todo and steps < MAX_REACH:
            obj = self._todo.pop()
            if id(obj) in self._seen:
                continue
            self._seen.add(id(obj))
            steps += 1
            self._visit(obj)
        return self

    def _visit(self, obj: Any) -> None:
        kind = type(obj)
        if kind is types.FunctionType:
            self._function(obj)
        elif kind is types.MethodType:
            self._todo.extend((obj.__func__, obj.__self__))
        elif kind is functools.partial:
            self._todo.extend((obj.func, *obj.args[:_ITEMS],
                               *list(obj.keywords.values())[:_ITEMS]))
        elif kind in (list, tuple, set, frozenset):
            self._todo.extend(list(obj)[:_ITEMS])
        elif kind is dict:
            self._todo.extend(list(obj.values())[:_ITEMS])
        elif isinstance(obj, type):
            self._class(obj)
        elif kind in (staticmethod, classmethod):
            self._todo.append(obj.__func__)
        elif kind is property:
            self._todo.extend(f for f in (obj.fget, obj.fset) if f is not None)
        elif not isinstance(obj, types.ModuleType) and self._user_class(kind):
            self._todo.append(kind)
            attrs = getattr(obj, "__dict__", None)
            if type(attrs) is dict:
                for name, value in list(attrs.items())[:_ITEMS]:
                    self.add(attrs, name, value)
                    self._todo.append(value)

    def _user_class(self, cls: type) -> bool:
        return not is_library(getattr(cls, "__module__", None), _class_file(cls), self.own)

    def _class(self, cls: type) -> None:
        for klass in cls.__mro__:
            if klass is object or not self._user_class(klass):
                continue
            self._todo.extend(list(vars(klass).values())[:_ITEMS])

    def _function(self, fn: types.FunctionType) -> None:
        if not self.user(fn):  # a library's: only a NumPy entry it holds (a wrapper's)
            for cell in fn.__closure__ or ():
                try:
                    self.add(cell, None, cell.cell_contents)
                except ValueError:  # an empty cell
                    continue
            return
        self.namespace(fn.__globals__)
        scope = dict(fn.__globals__)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            self.add(cell, None, value)
            scope[name] = value
        if fn.__defaults__:
            if any(replacement(v) is not None for v in fn.__defaults__):
                self.places[(id(fn), "__defaults__")] = (
                    fn, "__defaults__", tuple(replacement(v) or v for v in fn.__defaults__))
            self._todo.extend(fn.__defaults__)
        if fn.__kwdefaults__:
            self._todo.extend(fn.__kwdefaults__.values())
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is not None:
            self._todo.append(wrapped)
        self._code(fn.__code__, scope)

    def _code(self, code: types.CodeType, scope: dict[str, Any]) -> None:
        """What the names of ``code`` (globals and closure variables, and the attributes
        of modules it names) refer to."""
        for name in code.co_names + code.co_freevars:
            value = scope.get(name, _MISSING)
            if value is _MISSING:
                continue
            if isinstance(value, types.ModuleType):  # module.attr: the attributes named
                attrs = vars(value)
                self._todo.extend(attrs[a] for a in code.co_names if a in attrs)
            else:
                self._todo.append(value)
        for const in code.co_consts:
            if type(const) is types.CodeType:
                self._code(const, scope)


def _class_file(cls: type) -> str | None:
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    return getattr(module, "__file__", None)


def reach(fn: Any, own: str, extra: tuple[Any, ...] = ()) -> Reach:
    """The traced code reachable from ``fn`` (and from ``extra``, the keyword arguments
    passed to it)."""
    _scipy()
    return Reach(own).walk(fn, *extra)


# -- putting the replacements in and back ----------------------------------------------

_LOCK = threading.Lock()
#: (id(holder), key) -> [count, holder, key, original (or _MISSING), replacement]
_INSTALLED: dict[tuple[int, Any], list[Any]] = {}


def _get(holder: Any, key: Any) -> Any:
    if key is None:
        return holder.cell_contents
    if isinstance(holder, dict):
        return holder.get(key, _MISSING)
    return getattr(holder, key)


def _set(holder: Any, key: Any, value: Any) -> None:
    if key is None:
        holder.cell_contents = value
    elif isinstance(holder, dict):
        if value is _MISSING:
            holder.pop(key, None)
        else:
            holder[key] = value
    else:
        setattr(holder, key, value)


class installed:  # noqa: N801 - a context manager used as a statement
    """``with installed(reach):`` the replacements of ``reach`` are in place."""

    def __init__(self, found: Reach):
        self.keys = list(found.places)
        self.found = found

    def __enter__(self) -> None:
        with _LOCK:
            for key in self.keys:
                user = _INSTALLED.get(key)
                if user is None:
                    holder, name, new = self.found.places[key]
                    user = _INSTALLED[key] = [0, holder, name, _get(holder, name), new]
                    _set(holder, name, new)
                user[0] += 1

    def __exit__(self, *exc: object) -> None:
        with _LOCK:
            for key in self.keys:
                user = _INSTALLED[key]
                user[0] -= 1
                if not user[0]:
                    del _INSTALLED[key]
                    _, holder, name, original, new = user
                    if _get(holder, name) is new:
                        _set(holder, name, original)


def traced_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the traced function, generators made traced."""
    return {k: replacement(v) if type(v) in (np.random.Generator, np.random.RandomState)
            else v for k, v in kwargs.items()}


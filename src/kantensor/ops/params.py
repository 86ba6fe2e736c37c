"""Parameters of Ops: how a call splits into tensors and parameters.

A catalogue entry's ``call`` is a Python parameter list::

    call = "x, axis: axes = None, keepdims: bool = False"

An unannotated name is a tensor input; ``*name`` takes any number of tensors;
``name: tensors`` takes one sequence of tensors (``concatenate([a, b])``).
Every other annotation is a parameter *kind* from :data:`KINDS`, or a string
of choices (``mode: "full|same|valid" = "full"``). Parameter values are
checked and normalised to hashable values by their kind, because they become
props of the Op (``sum{axis=(1,), keepdims=False}``).
"""

from __future__ import annotations

import ast
import inspect
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.dtypes import normalize_dtype


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


def _int(value: Any, what: str = "an int") -> int:
    if isinstance(value, bool | float) or hasattr(value, "owner"):
        raise ParamError(f"expected {what}, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ParamError(f"expected {what}, got {value!r}") from None


def _ints(value: Any, what: str = "an int or a sequence of ints") -> tuple[int, ...]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(_int(v, what) for v in value)
    return (_int(value, what),)


def _axes(value: Any) -> int | tuple[int, ...] | None:
    """None, an int, or a tuple of ints (an int stays an int: for 0-d inputs NumPy's
    reductions accept ``axis=0`` but not ``axis=(0,)``)."""
    what = "None, an int or a tuple of ints"
    if value is None:
        return None
    if isinstance(value, Sequence) and not isinstance(value, str):
        return _ints(value, what)
    return _int(value, what)


def _maybe_axis(value: Any) -> int | None:
    return None if value is None else _int(value, "None or an int")


def _maybe_int(value: Any) -> int | None:
    return None if value is None else _int(value, "None or an int")


def _maybe_number(value: Any) -> bool | int | float | complex | None:
    return None if value is None else _number(value)


def _maybe_dtype(value: Any) -> str | None:
    return None if value is None else _dtype(value)


def _bool(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ParamError(f"expected True or False, got {value!r}")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ParamError(f"expected a string, got {value!r}")
    return value


def _dtype(value: Any) -> str:
    try:
        return normalize_dtype(value)
    except TypeError as exc:
        raise ParamError(str(exc)) from None


def _number(value: Any) -> bool | int | float | complex:
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


def _real(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ParamError(f"expected {what}, got {value!r}")
    return float(value)


def _bad(value: Any, what: str) -> Any:
    raise ParamError(f"expected {what}, got {value!r}")


def _size(value: Any) -> int | Dim:
    """One entry of a shape: an int or a symbolic size (a Dim or Dim expression, such as
    an entry of ``x.shape``)."""
    if isinstance(value, Dim):
        return value
    if value is None:
        raise ParamError("a size None (unknown) cannot be a shape entry: give that axis a "
                         "name (kt.Dim) in the input's type, or use -1 for one entry")
    return _int(value, "an int or a Dim")


def _shape(value: Any) -> tuple[int | Dim, ...]:
    """A shape: one size or a sequence of them (ints, Dims, ``x.shape`` entries)."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(_size(v) for v in value)
    return (_size(value),)


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
    return _int(value, what)


class SliceItem(tuple):
    """A normalised slice, the tuple ``("slice", start, stop, step)`` (hashable, unlike
    a slice), shown as Python writes it: ``getitem{index=(1:, None, ::2)}``."""

    def __new__(cls, start: int | None, stop: int | None, step: int | None) -> SliceItem:
        return super().__new__(cls, ("slice", start, stop, step))

    def __repr__(self) -> str:
        def text(v: int | None) -> str:
            return "" if v is None else str(v)
        _, start, stop, step = self
        return f"{text(start)}:{text(stop)}" + ("" if step is None else f":{step}")


@dataclass(frozen=True)
class ArrayRef:
    """An index array in an advanced index (``x[i, :, mask]``): the tensor input number
    ``position`` + 1 of the ``index`` Op (input 0 is the indexed tensor)."""

    position: int

    def __repr__(self) -> str:
        return f"<array {self.position}>"


def _index(value: Any) -> tuple:
    """A basic index (ints, slices, None, ``...``) as a hashable tuple; a slice
    becomes ``("slice", start, stop, step)``."""
    items = value if isinstance(value, tuple) else (value,)
    out: list[Any] = []
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, ArrayRef):
            out.append(item)
        elif isinstance(item, tuple) and len(item) == 4 and item[0] == "slice":
            out.append(_index(slice(*item[1:]))[0])  # already normalised
        elif isinstance(item, slice):
            parts = [None if p is None else _int(p, "slice bounds that are ints or None")
                     for p in (item.start, item.stop, item.step)]
            if parts[2] == 0:
                raise ParamError("slice step cannot be zero")
            out.append(SliceItem(*parts))
        else:
            try:
                out.append(_int(item))
            except ParamError:
                raise ParamError(f"only basic indexing is supported (ints, slices, None, "
                                 f"...); got {item!r}") from None
    if sum(i is Ellipsis for i in out) > 1:
        raise ParamError("an index can only have a single ellipsis ('...')")
    return tuple(out)


#: Parameter kinds: normaliser from a user's value to a hashable prop value.
KINDS: dict[str, Callable[[Any], Any]] = {
    "int": _int,
    "ints": _ints,
    "shape": _shape,
    "axis": _int,
    "maybe_axis": _maybe_axis,
    "maybe_int": _maybe_int,
    "axes": _axes,
    "bool": _bool,
    "str": _str,
    "dtype": _dtype,
    "maybe_dtype": _maybe_dtype,
    "number": _number,
    "numbers": _numbers,
    "maybe_number": _maybe_number,
    "pad_width": _pad_width,
    "axis_pairs": _axis_pairs,
    "index": _index,
}

#: Annotations that mark tensor inputs rather than parameters.
TENSOR_KINDS = ("tensor", "tensors")


@dataclass(frozen=True)
class Param:
    """One name of a call: a tensor input, a sequence of them, or a parameter."""

    name: str
    kind: str  # "tensor", "tensors", "*tensors", a KINDS key, or "choice"
    default: Any = inspect.Parameter.empty
    choices: tuple[str, ...] = ()
    keyword_only: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.kind in TENSOR_KINDS or self.kind == "*tensors"

    def normalise(self, value: Any, op: str) -> Any:
        try:
            if self.kind == "choice":
                if value not in self.choices:
                    raise ParamError(f"expected one of {', '.join(map(repr, self.choices))},"
                                     f" got {value!r}")
                return value
            return KINDS[self.kind](value)
        except ParamError as exc:
            raise ParamError(f"{op}: parameter {self.name}: {exc}") from None


class CallSpec:
    """A parsed ``call`` text: binds ``f(*args, **kwargs)`` into tensors and params."""

    def __init__(self, text: str, op: str = "op"):
        self.text = text
        self.op = op
        self.params = _parse_call(text)
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ParamError(f"call {text!r}: a name is used twice")
        parameters = []
        for p in self.params:
            if p.kind == "*tensors":
                kind = inspect.Parameter.VAR_POSITIONAL
            elif p.keyword_only:
                kind = inspect.Parameter.KEYWORD_ONLY
            else:
                kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            parameters.append(inspect.Parameter(p.name, kind, default=p.default))
        try:
            self.signature = inspect.Signature(parameters)
        except ValueError as exc:
            raise ParamError(f"call {text!r}: {exc}") from None
        for p in self.params:  # defaults must be valid values of their kind
            if p.default is not inspect.Parameter.empty and not p.is_tensor:
                p.normalise(p.default, op)
        # For bind's fast path: the parameters a positional argument can fill, by name,
        # and normalised values already seen (see _memo_key).
        self._positional = [p for p in self.params
                            if not p.keyword_only and p.kind != "*tensors"]
        self._by_name = {p.name: p for p in self.params}
        self._simple = all(p.kind != "*tensors" for p in self.params)
        self._plans: dict[Any, tuple | None] = {}
        self._given: dict[Any, tuple] = {}
        self._normalised: dict[tuple, Any] = {}

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if not p.is_tensor)

    def bind(self, args: tuple, kwargs: dict) -> tuple[list[Any], dict[str, Any], tuple]:
        """(tensor inputs in order, normalised params, how many tensors each tensor
        argument took: 1 for a tensor, n for a sequence)."""
        shape = (len(args), tuple(kwargs)) if kwargs else len(args)
        try:
            plan = self._plans[shape]
        except KeyError:
            plan = self._plan(len(args), tuple(kwargs))
            if len(self._plans) < 256:
                self._plans[shape] = plan
                if plan is not None:  # what call_key reads: the arguments given
                    self._given[shape] = tuple((kind, where, source)
                                               for _, kind, where, source in plan
                                               if where is not _DEFAULT)
        if plan is None:  # the general case, and every error message
            try:
                bound = self.signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{self.op}({self.text}): {exc}") from None
            bound.apply_defaults()
            arguments = bound.arguments
            plan = tuple((p, p.kind, _KEYWORD, p.name) for p in self.params)
            kwargs = arguments
        tensors: list[Any] = []
        params: dict[str, Any] = {}
        layout: list[int] = []
        for p, kind, where, source in plan:
            value = args[source] if where is _POSITION else \
                kwargs[source] if where is _KEYWORD else source
            if kind == "tensor":
                tensors.append(value)
                layout.append(1)
            elif kind == "tensors" or kind == "*tensors":
                if not isinstance(value, Sequence) or isinstance(value, str):
                    raise TypeError(f"{self.op}: {p.name} must be a sequence of tensors, "
                                    f"got {type(value).__name__}")
                tensors.extend(value)
                layout.append(len(value))
            elif where is _DEFAULT:  # normalised when the plan was made
                params[p.name] = value
            else:
                params[p.name] = self._normalise(p, value)
        return tensors, params, tuple(layout)

    def call_key(self, args: tuple, kwargs: dict) -> tuple[list, list[Variable]] | None:
        """``(key, tensors)`` for a call bind has planned before, whose tensors are
        Variables and whose parameter values have exact memo keys: the key (a list, to
        be completed and made a tuple by the caller) is equal for calls that bind to
        equal parameters and tensors of the same type objects (by identity: whoever
        remembers a key keeps those types alive) and wrapping (``2 * id(type) +
        wrapped``, one int per tensor). None for any other call (then bind it)."""
        shape = (len(args), tuple(kwargs)) if kwargs else len(args)
        given = self._given.get(shape)
        if given is None:
            return None
        key: list[Any] = [shape]
        tensors: list[Variable] = []
        for kind, where, source in given:
            value = args[source] if where is _POSITION else kwargs[source]
            if kind == "tensor":
                if not isinstance(value, Variable):
                    return None
                tensors.append(value)
                key.append(2 * id(value.type) + value.wrapped)
            elif kind == "tensors":
                if type(value) not in (list, tuple):
                    return None
                key.append(len(value))
                for v in value:
                    if not isinstance(v, Variable):
                        return None
                    tensors.append(v)
                    key.append(2 * id(v.type) + v.wrapped)
            elif type(value) is int:  # the common case, no other key is an int
                key.append(value)
            else:
                memo_key = _memo_key(value)
                if memo_key is None:
                    return None
                key.append(memo_key)
        return key, tensors

    def _plan(self, n_args: int, names: tuple[str, ...]) -> tuple | None:
        """Where each parameter's value comes from in a call with ``n_args`` positional
        arguments and keyword arguments ``names``: ``(param, kind, _POSITION, i)``,
        ``(param, kind, _KEYWORD, name)`` or ``(param, kind, _DEFAULT, normalised default)``; None
        unless such a call binds plainly (no ``*tensors``, nothing missing, unknown or
        given twice), for then bind asks ``inspect``, which also words the error."""
        positional = self._positional
        if not self._simple or n_args > len(positional):
            return None
        given = {p.name: (_POSITION, i) for i, p in enumerate(positional[:n_args])}
        for name in names:
            if name in given or name not in self._by_name:
                return None
            given[name] = (_KEYWORD, name)
        plan = []
        for p in self.params:
            source = given.get(p.name)
            if source is None:
                if p.default is inspect.Parameter.empty:
                    return None
                source = (_DEFAULT, p.default if p.is_tensor else p.normalise(p.default,
                                                                              self.op))
            plan.append((p, p.kind, *source))
        return tuple(plan)

    def _normalise(self, p: Param, value: Any) -> Any:
        """``p.normalise(value)``, remembered for values whose key says exactly what
        they are (so ``axis=-1`` in a loop is normalised once)."""
        key = _memo_key(value)
        if key is None:
            return p.normalise(value, self.op)
        key = (p.name, key)
        try:
            return self._normalised[key]
        except KeyError:
            out = p.normalise(value, self.op)
            if len(self._normalised) >= 1024:
                self._normalised.clear()
            self._normalised[key] = out
            return out

    def normalise(self, params: dict[str, Any]) -> dict[str, Any]:
        """Check and complete keyword parameters (``op.bind(axis=1)``)."""
        known = {p.name: p for p in self.params if not p.is_tensor}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise TypeError(f"{self.op}: unknown parameter{'s' * (len(unknown) > 1)} "
                            f"{', '.join(unknown)}; expected {', '.join(known) or 'none'}")
        out = {}
        for name, p in known.items():
            if name in params:
                out[name] = p.normalise(params[name], self.op)
            elif p.default is not inspect.Parameter.empty:
                out[name] = p.normalise(p.default, self.op)
            else:
                raise TypeError(f"{self.op}: missing parameter {name}")
        return out


# Where a bind plan takes a value from (compared by identity).
_POSITION, _KEYWORD, _DEFAULT = object(), object(), object()


#: The types of the bounds of a slice with an exact key.
_BOUND_TYPES = frozenset({int, type(None)})


def _memo_key(value: Any) -> tuple | None:
    """A key equal only for values every normaliser treats alike: exact ints, bools,
    strings, None, and tuples or lists of ints, slices of ints, None and ``...``;
    None for anything else (floats among them: 0.0 == -0.0)."""
    kind = type(value)
    if kind is int or kind is bool or kind is str or value is None:
        return (kind, value)
    if kind is tuple or kind is list or kind is slice:
        keys = []
        for item in ((value,) if kind is slice else value):
            if type(item) is int or item is None or item is Ellipsis:
                keys.append(item)
            elif type(item) is slice:  # x[1:, ::2]: attribute by attribute, no map()
                start, stop, step = item.start, item.stop, item.step
                if not (type(start) in _BOUND_TYPES and type(stop) in _BOUND_TYPES
                        and type(step) in _BOUND_TYPES):
                    return None
                keys.append((slice, start, stop, step))
            else:
                return None
        return (kind, tuple(keys))
    return None


def _parse_call(text: str) -> list[Param]:
    try:
        fn = ast.parse(f"def _({text}): pass").body[0]
    except SyntaxError as exc:
        raise ParamError(f"call {text!r} is not a Python parameter list: {exc.msg}") from None
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    if a.posonlyargs or a.kwarg:
        raise ParamError(f"call {text!r}: '/' and '**' are not supported")
    out: list[Param] = []
    defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults)
    for arg, default in zip(a.args, defaults, strict=True):
        out.append(_param(arg, default, text, keyword_only=False))
    if a.vararg is not None:
        if a.vararg.annotation is not None:
            raise ParamError(f"call {text!r}: *{a.vararg.arg} takes tensors; "
                             "it cannot be annotated")
        out.append(Param(a.vararg.arg, "*tensors"))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(_param(arg, default, text, keyword_only=True))
    return out


def _param(arg: ast.arg, default: ast.expr | None, text: str, keyword_only: bool) -> Param:
    note = arg.annotation
    choices: tuple[str, ...] = ()
    if note is None:
        kind = "tensor"
    elif isinstance(note, ast.Name) and (note.id in KINDS or note.id in TENSOR_KINDS):
        kind = note.id
    elif isinstance(note, ast.Constant) and isinstance(note.value, str):
        kind, choices = "choice", tuple(note.value.split("|"))
    else:
        raise ParamError(f"call {text!r}: parameter {arg.arg} has an unknown kind "
                         f"{ast.unparse(note)!r}; expected one of "
                         f"{', '.join([*TENSOR_KINDS, *KINDS])} or a string of choices "
                         f"like \"full|same\"")
    if default is None:
        value = inspect.Parameter.empty
    else:
        if kind in TENSOR_KINDS:
            raise ParamError(f"call {text!r}: tensor {arg.arg} cannot have a default")
        try:
            value = ast.literal_eval(default)
        except ValueError:
            raise ParamError(f"call {text!r}: the default of {arg.arg} must be a literal, "
                             f"got {ast.unparse(default)}") from None
    return Param(arg.arg, kind, value, choices, keyword_only)

"""How a call splits into tensors and parameters: :class:`CallSpec`.

A catalogue entry's ``call`` is a Python parameter list::

    call = "x, axis: axes = None, keepdims: bool = False"

An unannotated name is a tensor input; ``*name`` takes any number of tensors;
``name: tensors`` takes one sequence of tensors (``concatenate([a, b])``).
Every other annotation is a parameter *kind* from :data:`KINDS`,
or a string of choices (``mode: "full|same|valid" = "full"``). The Dims of size
parameters (kinds ``size``, ``maybe_size``, ``sizes``) become extra tensor inputs, after
the others (see :mod:`kantensor.ops.sizes`).
"""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from keyword import iskeyword
from typing import Any

from ..graph.once import once
from ..types.dim import Dim
from .fastcall import exact_key
from .params import BOOL_AXES, VALUE_KINDS, ParamError, unbooled
from .paramvalues import MARKERS
from .sizeparams import SIZED_KINDS
from .sizes import axis_inputs, foreign_names, named_inputs, own_axes, size_inputs, untie

#: Parameter kinds: normaliser from a user's value to a hashable prop value, of plain
#: values (:mod:`kantensor.ops.params`) and of values that may hold sizes
#: (:mod:`kantensor.ops.sizeparams`).
KINDS = {**VALUE_KINDS, **SIZED_KINDS}

#: The kinds of parameters whose Dims the builder writes over the axes of the call's
#: tensor inputs (reshape's shape); axis sizes of other variables become ``shape_of``
#: inputs (see :func:`kantensor.ops.sizes.given_operands`).
OWN_SIZE_KINDS = frozenset({"shape"})

#: The kinds of parameters whose Dims are carried by inputs of their own (SizeOp,
#: shape_of): the other kinds that may hold sizes.
SIZE_KINDS = frozenset(SIZED_KINDS) - OWN_SIZE_KINDS


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
            sequences = BOOL_AXES.get((op, self.name))
            ints = None if sequences is None else unbooled(value, sequences)
            if ints is not None:  # (NumPy reads these axes with operator.index)
                return self.normalise(ints, op)
            raise ParamError(f"{op}: parameter {self.name}: {exc}") from None


class CallSpec:
    """A parsed ``call`` text: binds ``f(*args, **kwargs)`` into tensors and params."""

    def __init__(self, text: str, op: str = "op"):
        self.text = text
        self.op = op
        self.params = list(_shipped_params(text) or _parse_call(text))
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ParamError(f"call {text!r}: a name is used twice")
        if not _in_order(self.params):  # (inspect's words where it has them)
            self.signature  # noqa: B018 - raises, but for two *tensors
            raise ParamError(f"call {text!r}: more than one *name")
        for p in self.params:  # defaults must be valid values of their kind
            if p.default is not inspect.Parameter.empty and not p.is_tensor:
                p.normalise(p.default, op)
        # For bind's plans: the parameters a positional argument can fill, by name, and
        # normalised values already seen (see _normalise).
        self._positional = [p for p in self.params
                            if not p.keyword_only and p.kind != "*tensors"]
        self._by_name = {p.name: p for p in self.params}
        self._rest = next((p for p in self.params if p.kind == "*tensors"), None)
        self._sized = tuple(p.name for p in self.params if p.kind in SIZE_KINDS)
        self._own = tuple(p.name for p in self.params if p.kind in OWN_SIZE_KINDS)
        #: The parameters of kind ``flag``: a mode a front end sets (the LAPACK Ops'
        #: ``as_numpy``), shown in an Op's name only where true (see TemplateOp.__str__).
        self.flags = frozenset(p.name for p in self.params if p.kind == "flag")
        if self._sized and self._own:
            raise ParamError(f"call {text!r}: size parameters ({', '.join(self._sized)}) "
                             f"and shape parameters ({', '.join(self._own)}) cannot mix")
        self._plans: dict[Any, tuple | None] = {}
        self._normalised: dict[tuple, Any] = {}
        #: What each call shape bind has planned gives, for its cached call (see
        #: :mod:`kantensor.ops.fastcall`): ``(given, len(args))``, by call shape
        #: (:func:`call_shape`). Each Op family makes its own cached calls from it.
        self.layouts: dict[Any, tuple] = {}

    @once
    def signature(self) -> inspect.Signature:
        """The call as ``inspect`` says it (what ``help`` shows; bind's general case and
        its errors), made when first asked: it cost every entry's first use about a
        fifth of its call's reading. :func:`_in_order` stands for its checks meanwhile."""
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
            return inspect.Signature(parameters)
        except ValueError as exc:
            raise ParamError(f"call {self.text!r}: {exc}") from None

    @property
    def reads_tensors(self) -> bool:
        """Whether :meth:`bind` may add inputs or read the tensors' types (size or shape
        parameters): else its parameters are its keyword arguments' alone."""
        return bool(self._sized or self._own)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if not p.is_tensor)

    def bind(self, args: tuple, kwargs: dict) -> tuple[list[Any], dict[str, Any]]:
        """(tensor inputs in order, normalised params). The Dims of size parameters add
        one SizeOp input each, after the tensors the call names."""
        shape = call_shape(args, kwargs)
        try:
            plan = self._plans[shape]
        except KeyError:
            plan = self._plan(len(args), tuple(kwargs))
            if len(self._plans) < 256:
                self._plans[shape] = plan
                if plan is not None and all(step[2] is not _REST for step in plan):
                    self.layouts[shape] = (  # (a cached call takes no *tensors)
                        tuple((kind, where is _POSITION, source)
                              for _, kind, where, source in plan if where is not _DEFAULT),
                        len(args))
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
        for p, kind, where, source in plan:
            value = args[source] if where is _POSITION else \
                kwargs[source] if where is _KEYWORD else \
                args[source:] if where is _REST else source
            if kind == "tensor":
                tensors.append(value)
            elif kind == "tensors" or kind == "*tensors":
                if not isinstance(value, Sequence) or isinstance(value, str):
                    raise TypeError(f"{self.op}: {p.name} must be a sequence of tensors, "
                                    f"got {type(value).__name__}")
                tensors.extend(value)
            elif where is _DEFAULT:  # normalised when the plan was made
                params[p.name] = value
            else:
                params[p.name] = self._normalise(p, value)
                if p.name in self._own:  # reshape(x.shape[0], -1): axes of the inputs
                    params[p.name] = own_axes(params[p.name], tensors)
        if self._sized:
            values, axes = untie([params[name] for name in self._sized])
            if axes:
                params.update(zip(self._sized, values, strict=True))
            tensors.extend(size_inputs(values, axes))
        elif self._own:  # other variables' axes: shape_of inputs the builder writes over
            values, axes = untie([params[name] for name in self._own])
            if axes:
                params.update(zip(self._own, values, strict=True))
                tensors.extend(axis_inputs(axes))
            if tensors and hasattr(tensors[0], "type"):  # other inputs' named sizes
                own = [d.name for d in tensors[0].type.shape if isinstance(d, Dim) and d.name]
                tensors.extend(named_inputs(foreign_names(tuple(values), own)))
        return tensors, params

    def _plan(self, n_args: int, names: tuple[str, ...]) -> tuple | None:
        """Where each parameter's value comes from in a call with ``n_args`` positional
        arguments and keyword arguments ``names``: ``(param, kind, _POSITION, i)``,
        ``(param, kind, _KEYWORD, name)``, ``(param, kind, _REST, i)`` (``*tensors``: the
        positional arguments from the i-th on, maybe none) or ``(param, kind, _DEFAULT,
        normalised default)``; None unless such a call binds plainly (nothing missing,
        unknown or given twice), for then bind asks ``inspect``, which also words the
        error. The same binding as ``inspect.Signature.bind`` (tests/test_params.py)."""
        positional = self._positional
        rest = self._rest
        if n_args > len(positional) and rest is None:
            return None
        given = {p.name: (_POSITION, i) for i, p in enumerate(positional[:n_args])}
        if rest is not None:
            given[rest.name] = (_REST, len(positional))
        for name in names:
            if name in given or name not in self._by_name:
                return None  # (inspect refuses a keyword naming *tensors too)
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
        key = exact_key(value)
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

    def forget_normalised(self) -> None:
        """Forget the normalised values seen."""
        self._normalised.clear()

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


def _in_order(params: list[Param]) -> bool:
    """Whether ``params`` (names told apart already) are a Python parameter list:
    names that are identifiers and no keyword, the positional ones first, no
    default-less one after one with a default, then at most one ``*tensors``, then the
    keyword-only ones (what ``inspect.Signature`` checks, and one ``*name``). A parsed
    call always is (Python's grammar says so); a shipped form is checked here."""
    stage, defaulted = 0, False  # 0: positional, 1: after *tensors, 2: keyword-only
    for p in params:
        if not p.name.isidentifier() or iskeyword(p.name):
            return False
        if p.kind == "*tensors":
            if stage or p.default is not inspect.Parameter.empty:
                return False
            stage = 1
        elif p.keyword_only:
            stage = 2
        elif stage:
            return False
        elif p.default is not inspect.Parameter.empty:
            defaulted = True
        elif defaulted:
            return False
    return True


def call_shape(args: tuple, kwargs: dict) -> Any:
    """What a call's plan depends on: ``len(args)``, and the keyword names if any."""
    return (len(args), tuple(kwargs)) if kwargs else len(args)


# Where a bind plan takes a value from (compared by identity).
_POSITION, _KEYWORD, _REST, _DEFAULT = object(), object(), object(), object()


def default_call(n_inputs: int) -> str:
    """The call of an entry that writes none: NumPy's ufunc argument names, ``x`` for
    one input, else ``x1, x2, ...``."""
    return "x" if n_inputs == 1 else ", ".join(f"x{i}" for i in range(1, n_inputs + 1))


#: The version of :func:`call_form`'s encoding (shipped forms of another are not used).
FORMAT = 1

#: The shipped forms of call texts (see :func:`register_calls`), by text.
_SHIPPED: dict[str, Any] = {}


def call_form(text: str) -> str | None:
    """The parameters of the call ``text`` as JSON text, a list of ``[name, kind,
    choices, keyword-only]`` and the default if any (a tuple written ``{"tuple":
    [...]}``, a marker of :data:`~.paramvalues.MARKERS` ``{"marker": name}``), shipped with
    the catalogue so that the first use of an entry does not parse its call; None where
    a default is not one JSON gives back as it is."""
    out: list[list[Any]] = []
    for p in _parse_call(text):
        form = [p.name, p.kind, list(p.choices), p.keyword_only]
        if p.default is not inspect.Parameter.empty:
            written = _literal_form(p.default)
            if _literal(written) != (p.default,) or not _same_types(_literal(written)[0],
                                                                    p.default):
                return None
            form.append(written)
        out.append(form)
    return json.dumps(out, separators=(",", ":"))


def _literal_form(value: Any) -> Any:
    marker = next((name for name, v in MARKERS.items() if v is value), None)
    if marker is not None:
        return {"marker": marker}
    if type(value) is tuple:
        return {"tuple": [_literal_form(v) for v in value]}
    if type(value) is list:
        return [_literal_form(v) for v in value]
    return value


def _literal(form: Any) -> tuple[Any] | None:
    """``(value,)`` of a default's form; None when it is not one."""
    if form is None or type(form) in (bool, int, float, str):
        return (form,) if form == form else None  # (not NaN)
    if type(form) is dict and list(form) == ["marker"] and type(form["marker"]) is str:
        return (MARKERS[form["marker"]],) if form["marker"] in MARKERS else None
    if type(form) is dict and list(form) == ["tuple"] and type(form["tuple"]) is list:
        items = [_literal(v) for v in form["tuple"]]
        return None if None in items else (tuple(v for (v,) in items),)
    if type(form) is list:
        items = [_literal(v) for v in form]
        return None if None in items else ([v for (v,) in items],)
    return None


def _same_types(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    return not isinstance(a, tuple | list) or all(map(_same_types, a, b))


def register_calls(forms: dict[str, Any]) -> None:
    """Make ``forms`` (call text -> :func:`call_form`) the parameters of their texts."""
    _SHIPPED.update((text, form) for text, form in forms.items()
                    if isinstance(text, str) and isinstance(form, str))


def _shipped_params(text: str) -> list[Param] | None:
    """The parameters of ``text`` from its shipped form; None when there is none or it
    is not one :func:`call_form` writes (the text is then parsed)."""
    form = _SHIPPED.get(text)
    try:
        items = json.loads(form) if form is not None else None
    except ValueError:
        return None
    if type(items) is not list:
        return None
    out = []
    for item in items:
        if type(item) is not list or len(item) not in (4, 5):
            return None
        name, kind, choices, keyword_only = item[:4]
        default = _literal(item[4]) if len(item) == 5 else (inspect.Parameter.empty,)
        if default is None or not (
                isinstance(name, str) and (kind in KINDS or kind in _OTHER_KINDS)
                and type(choices) is list and all(isinstance(c, str) for c in choices)
                and (kind == "choice") == bool(choices) and type(keyword_only) is bool
                and (len(item) == 4 or kind not in _TENSORS)):
            return None
        out.append(Param(name, kind, default[0], tuple(choices), keyword_only))
    return out


#: The kinds of a call's tensors (which take no default), and of its other names that
#: are not parameter kinds of :data:`KINDS`.
_TENSORS = (*TENSOR_KINDS, "*tensors")
_OTHER_KINDS = (*_TENSORS, "choice")


def _parse_call(text: str) -> list[Param]:
    try:
        fn = ast.parse(f"def _({text}): pass").body[0]
    except (SyntaxError, MemoryError, RecursionError) as exc:  # (the last two: nesting)
        raise ParamError(f"call {text!r} is not a Python parameter list: "
                         f"{getattr(exc, 'msg', 'too deeply nested')}") from None
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
    else:  # (the annotation's own text: unparsing a deeply nested one recurses)
        raise ParamError(f"call {text!r}: parameter {arg.arg} has an unknown kind "
                         f"{ast.get_source_segment(f'def _({text}): pass', note)!r}; "
                         "expected one of "
                         f"{', '.join([*TENSOR_KINDS, *KINDS])} or a string of choices "
                         f"like \"full|same\"")
    if default is None:
        value = inspect.Parameter.empty
    else:
        if kind in TENSOR_KINDS:
            raise ParamError(f"call {text!r}: tensor {arg.arg} cannot have a default")
        try:
            value = MARKERS[default.id] if isinstance(default, ast.Name) and \
                default.id in MARKERS else ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ParamError(f"call {text!r}: the default of {arg.arg} must be a literal "
                             f"or one of {', '.join(MARKERS)}, got "
                             f"{ast.get_source_segment(f'def _({text}): pass', default)}"
                             ) from None
    return Param(arg.arg, kind, value, choices, keyword_only)


def call_signature(counts: set[int]) -> inspect.Signature:
    """How an Op is called, for ``inspect.signature``, ``kt.add?`` and ``help``: one
    positional-only tensor per input (``x`` alone, else ``x1, x2, ...``, as NumPy names
    them), or ``*inputs`` when the count varies (made once per count: a Signature is
    immutable, and every Op of a family with parameters asks for it)."""
    return _call_signature(next(iter(counts)) if len(counts) == 1 else None)


@lru_cache(maxsize=64)
def _call_signature(n: int | None) -> inspect.Signature:
    if n is None:
        return inspect.Signature([inspect.Parameter("inputs", inspect.Parameter.VAR_POSITIONAL)])
    names = ["x"] if n == 1 else [f"x{i}" for i in range(1, n + 1)]
    return inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
                              for name in names])

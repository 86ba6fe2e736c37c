"""Load the catalogue of built-in Ops from ``signatures/*.toml``.

Each file holds ``[[op]]`` tables::

    [[op]]
    name = "add"                    # the Op's name, also kantensor.add
    signature = "+(),()->()"        # the DSL text
    impl = "numpy.add"              # dotted path of the NumPy implementation
    compute = "output"              # output | promote | select | none (see SignatureOp)
    operator = "add"                # optional: the TensorVariable operator it backs
    doc = "Elementwise sum."

Ops with parameters add a call convention (see :mod:`kantensor.ops.params`),
and their signature becomes a template whose ``{placeholders}`` are filled by
parameter values or by a *builder* function that sees the input types::

    [[op]]
    name = "sum"
    call = "x, axis: axes = None, keepdims: bool = False"
    signature = "{x}:t->{y}:t"      # placeholders x and y come from the builder
    builder = "kantensor.ops.families.reductions.reduce"
    method = "sum"                  # optional: also x.sum(...)
    examples = [{ in = ["float64[2,3]"], axis = 1, out = "float64[2]" }]

An example lists the tensor arguments' types (``in``; a nested list for a
sequence argument), the parameters, and either the output type(s) (``out``)
or a part of the expected error message (``error``). ``kantensor check``
runs them, so the catalogue documents and tests itself.

Validation errors name the file, the entry and (for signatures) the
position, so ``kantensor check FILE`` can point at them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..signature.signature import Signature
from ..syntax.errors import SignatureSyntaxError, TypeInferenceError
from ..types.type import TensorType
from .callspec import CallSpec, default_call
from .family import OpFamily
from .op import SignatureOp, check_compute
from .params import ParamError
from .shipped import catalogue_files, precompiled, tables_of
from .shipped import catalogue_root as catalogue_root  # where the files are, for others
from .templateop import placeholders
from .trust import TrustError, read_text, resolve, resolve_builder

REQUIRED = ("name", "signature", "impl")
#: Keys that say how a backend computes the Op: the value is a kind of algorithm that
#: backend defines (``dask = "reduction"``), the Op's ``lowering[key]``.
BACKEND_KEYS = ("dask",)
OPTIONAL = ("compute", "operator", "method", "variadic", "numpy", "doc", "call", "builder",
            "examples", "data_sizes", *BACKEND_KEYS)
#: The keys whose value is one string.
TEXT_KEYS = (*REQUIRED, "compute", "operator", "doc", "call", "builder", "data_sizes",
             *BACKEND_KEYS)


class CatalogueError(ValueError):
    """A catalogue file or entry is invalid; ``errors`` lists each problem's message and
    ``entries`` the file's entries that are valid (their examples can still run)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.errors = [message]
        self.entries: list[Entry] = []


@dataclass(frozen=True)
class Entry:
    """One validated catalogue entry."""

    file: str
    index: int
    name: str
    signature: Signature | str  # a str when it is a template
    impl: Any
    compute: str
    operator: str | None
    method: tuple[str, ...]  # the TensorVariable methods it implements
    variadic: bool  # those methods also take a tuple as separate ints
    doc: str
    spec: CallSpec
    builder: Any = None
    examples: tuple[dict, ...] = ()
    numpy: tuple[Any, ...] = ()  # the NumPy functions it implements (NEP 13/18 dispatch)
    #: the keys a layer above allowed in its own files (``load_file(..., extra=...)``),
    #: as given: ONNX entries name their op type and opsets this way
    extra: tuple[tuple[str, Any], ...] = ()
    #: the kinds of algorithm backends compute it with (:data:`BACKEND_KEYS`)
    lowering: tuple[tuple[str, str], ...] = ()
    #: why its output sizes may be known only from its inputs' values ("": never)
    data_sizes: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}: op #{self.index + 1} ({self.name})"

    @property
    def is_template(self) -> bool:
        return isinstance(self.signature, str)

    def make_op(self, name: str | None = None) -> SignatureOp | OpFamily:
        """The entry's Op, named ``name`` (its name in messages; default the entry's)."""
        name = name or self.name
        if self.is_template:
            op: SignatureOp | OpFamily = OpFamily(
                name, self.signature, self.impl, self.spec, compute=self.compute,
                doc=self.doc, builder=self.builder)
        else:
            op = SignatureOp(name, self.signature, self.impl, compute=self.compute,
                             doc=self.doc)
        if self.lowering:
            op.lowering = dict(self.lowering)
        if self.data_sizes:
            op.data_sizes = self.data_sizes
        return op

    def run_examples(self, op: SignatureOp | OpFamily | None = None) -> int:
        """Check every example against inference; CatalogueError on the first that
        disagrees. Returns how many ran."""
        op = op or self.make_op()
        for number, example in enumerate(self.examples, 1):
            _run_example(op, example, f"{self.where}: example {number}")
        return len(self.examples)

    def example_errors(self, op: SignatureOp | OpFamily | None = None) -> list[str]:
        """Every example that disagrees with inference, one message each (all run)."""
        op = op or self.make_op()
        errors = []
        for number, example in enumerate(self.examples, 1):
            try:
                _run_example(op, example, f"{self.where}: example {number}")
            except CatalogueError as exc:
                errors.append(str(exc))
        return errors


def _example_args(value: Any, where: str) -> Any:
    if isinstance(value, list):
        return [_example_args(v, where) for v in value]
    try:
        return TensorType.parse(value)()
    except (TypeError, ValueError) as exc:
        raise CatalogueError(f"{where}: in: {exc}") from None


def _flat(args: list) -> list:
    """The tensors of a call, with a sequence argument (``in = [["f4[2]", ...]]``)
    spread out as the bound Op takes them."""
    return [t for a in args for t in (_flat(a) if isinstance(a, list) else [a])]


def _as_given(op: Any, example: dict) -> dict:
    """An example's parameters as a caller gives them: a TOML array is a list, except
    for a parameter of kind ``axis_tuple``, which takes only a tuple (TOML has none).
    ``op`` is the Op, or its CallSpec."""
    spec = op if isinstance(op, CallSpec) else getattr(op, "spec", None)
    kinds = {p.name: p.kind for p in spec.params} if spec is not None else {}
    return {name: tuple(value) if kinds.get(name) == "axis_tuple" and
            isinstance(value, list) else value for name, value in example.items()}


def _run_example(op: Any, example: dict, where: str) -> None:
    example = dict(example)
    inputs = example.pop("in", None)
    expected = example.pop("out", None)
    error = example.pop("error", None)
    if not isinstance(inputs, list) or (expected is None) == (error is None):
        raise CatalogueError(f"{where}: an example needs 'in' (a list of types) and "
                             "either 'out' or 'error'")
    args = [_example_args(v, where) for v in inputs]
    example = _as_given(op, example)
    try:
        if isinstance(op, OpFamily):  # bind by name: einsum's subscripts come first
            result = op.bind(**example)(*_flat(args))
        else:
            result = op(*args, **example)
    except CatalogueError:
        raise
    except Exception as exc:  # any failure of an example is the entry's error
        expected_kind = isinstance(exc, TypeInferenceError | ParamError | TypeError)
        if error is not None and expected_kind and error in str(exc):
            return
        raise CatalogueError(f"{where}: {type(exc).__name__}: {exc}") from None
    if error is not None:
        raise CatalogueError(f"{where}: expected an error containing {error!r}, "
                             f"got {result}")
    got = [str(v.type) for v in (result if isinstance(result, list) else [result])]
    want = [expected] if isinstance(expected, str) else list(expected)
    if got != want:
        raise CatalogueError(f"{where}: expected {', '.join(want)}, got {', '.join(got)}")


# --------------------------------------------------------------------------- one entry


def _keys(raw: Any, file: str, index: int, extra: tuple[str, ...] = ()
          ) -> tuple[str, dict[str, Any]]:
    """Check the keys of an entry: a table, every required key, no unknown key, and the
    text keys strings. Returns the entry's name for messages and the keys of ``extra``
    (a layer above's own keys, taken out of ``raw`` unchecked)."""
    if not isinstance(raw, dict):
        raise CatalogueError(f"{file}: op #{index + 1}: expected a table, got "
                             f"{type(raw).__name__}")
    where = f"{file}: op #{index + 1}" + (f" ({raw['name']})" if "name" in raw else "")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise CatalogueError(f"{where}: missing {', '.join(missing)}")
    own = {k: raw.pop(k) for k in extra if k in raw}
    unknown = sorted(set(raw) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise CatalogueError(f"{where}: unknown key{'s' * (len(unknown) > 1)} "
                             f"{', '.join(unknown)}; expected "
                             f"{', '.join(REQUIRED + OPTIONAL + tuple(extra))}")
    for key in TEXT_KEYS:
        if key in raw and not isinstance(raw[key], str):
            raise CatalogueError(f"{where}: {key} must be a string, got "
                                 f"{type(raw[key]).__name__}")
    return where, own


def _call(raw: dict, where: str) -> CallSpec:
    try:
        return CallSpec(raw.get("call") or _default_call(raw["signature"]), raw["name"])
    except ParamError as exc:
        raise CatalogueError(f"{where}: {exc}") from None


def _signature(raw: dict, where: str, spec: CallSpec, builder: Any) -> Signature | str:
    """The entry's Signature, or its text when it is a template (placeholders, a builder
    or parameters)."""
    sig: Signature | str = raw["signature"]
    holes = placeholders(sig)
    if holes and "call" not in raw:
        raise CatalogueError(f"{where}: a template signature needs a call (which names "
                             "are tensors and which are parameters)")
    unfilled = sorted(holes - set(spec.param_names))
    if unfilled and builder is None:
        raise CatalogueError(f"{where}: signature placeholder{'s' * (len(unfilled) > 1)} "
                             f"{', '.join(unfilled)} name no parameter and there is no "
                             "builder to fill them")
    if holes or builder or any(p.kind != "tensor" for p in spec.params):
        return sig
    try:
        return _parsed(sig)
    except SignatureSyntaxError as exc:
        raise CatalogueError(f"{where}: signature: {exc}") from None


def _code(raw: dict, where: str, allow: Sequence[str]) -> tuple[Any, Any, str]:
    """(impl, builder or None, compute): what the entry runs, each resolved within the
    trusted packages and ``allow``."""
    builder = None
    if "builder" in raw:
        try:
            builder = resolve_builder(raw["builder"], allow)
        except TrustError as exc:
            raise CatalogueError(f"{where}: builder: {exc}") from None
    try:
        compute = check_compute(raw.get("compute", "none"))
    except ValueError as exc:
        raise CatalogueError(f"{where}: {exc}") from None
    try:
        impl = resolve(raw["impl"], allow)
    except TrustError as exc:
        raise CatalogueError(f"{where}: impl: {exc}") from None
    if not callable(impl):
        raise CatalogueError(f"{where}: impl {raw['impl']!r} is not callable")
    return impl, builder, compute


def _methods(raw: dict, where: str) -> tuple[tuple[str, ...], bool]:
    methods = raw.get("method", [])
    methods = [methods] if isinstance(methods, str) else methods
    if not isinstance(methods, list) or not all(isinstance(m, str) for m in methods):
        raise CatalogueError(f"{where}: method must be a name or a list of names, "
                             f"got {raw['method']!r}")
    variadic = raw.get("variadic", False)
    if not isinstance(variadic, bool) or (variadic and not methods):
        raise CatalogueError(f"{where}: variadic must be true or false, and only a method "
                             f"can be variadic, got {variadic!r}")
    return tuple(methods), variadic


def _argument_types(value: Any) -> bool:
    """An argument of ``in``: a type text, or a list of them (a sequence argument)."""
    return isinstance(value, str) or isinstance(value, list) and all(
        isinstance(v, str) for v in value)


def _examples(raw: dict, where: str, spec: CallSpec, template: bool) -> tuple[dict, ...]:
    """The examples, checked as data before anything is called: ``in`` type texts,
    ``out`` or ``error`` text, and every other key a parameter of the call whose value
    its kind accepts (or refuses with the example's expected error)."""
    examples = raw.get("examples", [])
    if not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples):
        raise CatalogueError(f"{where}: examples must be a list of tables")
    if template and not examples:
        raise CatalogueError(f"{where}: an Op with parameters or a template signature "
                             "needs at least one example (it is how the template is checked)")
    params = {p.name: p for p in spec.params if not p.is_tensor}
    for number, example in enumerate(examples, 1):
        at = f"{where}: example {number}"
        inputs = example.get("in")
        if not isinstance(inputs, list) or not all(map(_argument_types, inputs)) or \
                ("out" in example) == ("error" in example):
            raise CatalogueError(f"{at}: an example needs 'in' (a list of types) and "
                                 "either 'out' or 'error'")
        out = example.get("out", example.get("error"))
        if not (isinstance(out, str) or "out" in example and isinstance(out, list)
                and all(isinstance(o, str) for o in out)):
            raise CatalogueError(f"{at}: 'out' must be a type or a list of types, "
                                 "'error' a string")
        for name, value in _as_given(spec, example).items():
            if name in ("in", "out", "error"):
                continue
            if name not in params:
                raise CatalogueError(f"{at}: {name!r} is no parameter of the call "
                                     f"({spec.text})")
            try:
                params[name].normalise(value, raw["name"])
            except ParamError as exc:  # refused before any call: right if it is expected
                if not isinstance(out, str) or "error" not in example or out not in str(exc):
                    raise CatalogueError(f"{at}: {exc}") from None
    return tuple(examples)


def load_entry(file: str, index: int, raw: Any, allow: Sequence[str] = (),
               extra: tuple[str, ...] = ()) -> Entry:
    """The validated entry of the table ``raw``, the ``index``-th of ``file`` (one entry
    of :func:`load_file`, without the checks across a file's entries)."""
    raw = dict(raw) if isinstance(raw, dict) else raw  # the extras are taken out of a copy
    where, own = _keys(raw, file, index, extra)
    spec = _call(raw, where)
    impl, builder, compute = _code(raw, where, allow)
    sig = _signature(raw, where, spec, builder)
    examples = _examples(raw, where, spec, isinstance(sig, str))
    methods, variadic = _methods(raw, where)
    return Entry(file, index, raw["name"], sig, impl, compute, raw.get("operator"),
                 methods, variadic, raw.get("doc", ""), spec, builder, examples,
                 _numpy_functions(where, raw.get("numpy", [])), tuple(own.items()),
                 tuple((k, raw[k]) for k in BACKEND_KEYS if k in raw),
                 raw.get("data_sizes", ""))


def _numpy_functions(where: str, value: Any) -> tuple[Any, ...]:
    """The ``numpy`` key: the dotted name(s) of the NumPy function(s) the Op implements,
    imported (so a misspelt or vanished name is caught when the catalogue loads)."""
    paths = [value] if isinstance(value, str) else value
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise CatalogueError(f"{where}: numpy must be a dotted name or a list of them, "
                             f"got {value!r}")
    out = []
    for path in paths:
        if path.split(".")[0] != "numpy":
            raise CatalogueError(f"{where}: numpy: {path!r} is not a name in numpy")
        try:
            fn = resolve(path)
        except TrustError as exc:
            raise CatalogueError(f"{where}: numpy: {exc}") from None
        if not callable(fn):
            raise CatalogueError(f"{where}: numpy: {path!r} is not callable")
        out.append(fn)
    return tuple(out)


@lru_cache(maxsize=64)
def _parsed(text: str) -> Signature:
    """A signature text parsed (an entry without a call needs it twice: for the names of
    its inputs and as its signature)."""
    return Signature.parse(text)


def _default_call(signature: str) -> str:
    """NumPy's ufunc argument names (:func:`~.callspec.default_call`) for the inputs of
    the signature's first alternative."""
    try:
        n = len(_parsed(signature).alternatives[0].inputs)
    except (SignatureSyntaxError, ValueError):
        return default_call(1)  # a template: its entry must give a call
    return default_call(n)


def read_tables(path: str | Path, text: str | None = None) -> list[Any]:
    """The ``[[op]]`` tables of a catalogue file as TOML gives them, unchecked (each is
    checked by :func:`load_entry`); CatalogueError if the file is no such TOML file."""
    name = str(path)
    try:
        data = tomllib.loads(text if text is not None else read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{name}: {exc}") from None
    except TrustError as exc:  # not a regular file, too large, not UTF-8
        raise CatalogueError(str(exc)) from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise CatalogueError(f"{name}: arrays or tables nested too deeply") from None
    ops = data.get("op")
    if not isinstance(ops, list) or set(data) - {"op"}:
        raise CatalogueError(f"{name}: expected only [[op]] tables")
    return ops


def load_file(path: str | Path, text: str | None = None, allow: Sequence[str] = (),
              extra: tuple[str, ...] = ()) -> list[Entry]:
    """Parse and validate one catalogue file; CatalogueError listing every problem, one
    line each (file, entry and, for a signature, the position). ``extra`` names keys a
    layer above gives its entries (kept, unchecked, in ``Entry.extra``).

    The file may import only ``numpy.*``, ``kantensor.*`` and the packages named in
    ``allow`` (never from the current directory), and its builders must be registered
    ones (:func:`kantensor.ops.templates.builder`)."""
    return load_tables(str(path), read_tables(path, text), allow, extra)


def load_tables(name: str, tables: list[Any], allow: Sequence[str] = (),
                extra: tuple[str, ...] = ()) -> list[Entry]:
    """:func:`load_file` of the file ``name`` whose TOML tables are ``tables``."""
    if isinstance(allow, str):
        allow = (allow,)
    entries, errors = [], []
    for i, raw in enumerate(tables):  # every entry is checked: all the errors reported
        try:
            entries.append(load_entry(name, i, raw, allow, extra))
        except CatalogueError as exc:
            errors.append(str(exc))
    seen: dict[str, int] = {}
    for e in entries:
        if e.name in seen:
            errors.append(f"{name}: op #{e.index + 1} ({e.name}): duplicate name "
                          f"(first defined as op #{seen[e.name] + 1})")
        seen[e.name] = e.index
    if errors:
        exc = CatalogueError("\n".join(errors))
        exc.errors = errors
        exc.entries = entries
        raise exc
    return entries


def load_all() -> list[Entry]:
    """Every shipped entry; CatalogueError if two entries claim one NumPy function. The
    files' tables are read from their precompiled JSON where it was made from their
    text (:mod:`.shipped`)."""
    entries: list[Entry] = []
    shipped = precompiled()
    for name, text in catalogue_files():
        tables = tables_of(name, text, shipped)
        entries.extend(load_file(name, text) if tables is None else load_tables(name, tables))
    check_numpy_names(entries)
    return entries


def check_numpy_names(entries: list[Entry]) -> None:
    """One Op per NumPy function: a second claim is an error naming both entries."""
    claimed: dict[int, Entry] = {}
    for e in entries:
        for fn in e.numpy:
            first = claimed.setdefault(id(fn), e)
            if first is not e:
                raise CatalogueError(f"{e.where}: numpy: {fn.__name__} is already the NumPy "
                                     f"function of {first.where}")

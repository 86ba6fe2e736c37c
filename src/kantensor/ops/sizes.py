"""Symbolic sizes as parameters: ``kt.zeros((n, 3))``, ``kt.broadcast_to(v, x.shape)``.

A size parameter (kinds ``size``, ``maybe_size`` and ``sizes`` of
:mod:`kantensor.ops.sizeparams`) holds ints and Dims (``Dim("n")``, ``n + 1``, an entry of
``x.shape``). The relation only sees sizes through the types of its inputs, so each
distinct Dim of a call becomes one more tensor input: a ``bool[n]`` whose only meaning
is its length. The template renders those inputs as operands ``(s0)``, ``(s1)``, ... and
writes the output over ``s0``, ``s1``, so the signature (never Python) decides that
``zeros((n, 3))`` is ``float64[n,3]``.

Two kinds of size make those inputs:

* a Dim over named sizes that is never negative (``n``, ``n + 1``) is one
  :class:`SizeOp` input; one that may be (``n - 5``, ``-n``) is one per name it is made
  of, and the template writes it over them, so its sign is the relation's to state
  (``x[:n - 5]`` reads both signs, ``zeros((n - 2,))`` needs ``n >= 2``) and its value
  at run time may be negative. When the graph runs, the backend makes each value from
  the sizes it binds from the function's inputs (a zero-stride view, no memory); a Dim
  no input of the function has is an error when the function is compiled.
* the size of an axis of a variable (``x.shape[0]`` when it is unknown, see
  :class:`~kantensor.types.variable.AxisSize`) is ``shape_of(x, axis)``, whose relation
  ties its length to x's axis. The call holds it as a placeholder, :func:`given_axis`
  ``(k)`` for the k-th such size, so that calls on different variables are equal
  Ops (see :func:`untie`). An expression over such sizes (``x.shape[0] * 2``) takes
  one input per size it is made of (its *atoms*) and is written over their names.

The implementation reads the sizes back with :func:`concrete`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from ..graph.basic import Apply, Variable
from ..graph.hooks import Hook
from ..graph.op import Op
from ..syntax.ast import DimExpr, DimVar, TensorPattern
from ..syntax.parser import parse_tensor_type
from ..syntax.template import Operands
from ..types.dim import Dim, unknown
from ..types.intervals import nonnegative
from ..types.symbols import free_symbols, sign_when_large, substitute
from ..types.type import TensorType
from ..types.variable import AxisSize, SizeNumber, TensorVariable
from .dimast import dim_ast
from .params import ParamError
from .paramvalues import ArrayRef, SliceItem
from .templates import dims, reads_ranks


class SizeOp(Op):
    """``size{n}``: no inputs; its output, of type ``bool[n]``, carries the size ``n``
    into the relation of the Op that takes ``n`` as a parameter. That type is the
    parameter as the user gave it, declared like a graph input's type (nothing is
    inferred here). Its value is made by the backend from the sizes bound to the
    function's inputs."""

    __props__ = ("size",)

    def __init__(self, size: Dim):
        self.size = size

    def make_node(self) -> Apply:
        return Apply(self, [], [TensorVariable(TensorType("bool", (self.size,)))])

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        raise TypeError(f"{self} has no value of its own: the function that runs it binds "
                        f"{self.size} from its inputs (see kantensor.function)")

    def __str__(self) -> str:
        return f"size{{{self.size}}}"


class _GivenAxis:
    """The key of :func:`given_axis`: "the k-th axis size a call's size parameters hold"."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __repr__(self) -> str:
        return f"?{self.k}"

    def __reduce__(self) -> tuple:  # unpickled as the placeholder's own key
        return _given_key, (self.k,)


_GIVEN: list[Dim] = []
_GIVEN_LOCK = threading.Lock()


def given_axis(k: int) -> Dim:
    """The placeholder of the k-th axis size (``x.shape[i]``) in a call's size
    parameters: the same Dim in every call, so that calls stay comparable (memo keys
    hold no variable); its input is ``shape_of`` of that axis (see :func:`untie`)."""
    if k >= len(_GIVEN):
        with _GIVEN_LOCK:  # two threads growing the list must not both add a k
            while len(_GIVEN) <= k:
                _GIVEN.append(unknown(_GivenAxis(len(_GIVEN))))
    return _GIVEN[k]


def entries(value: Any) -> list[Any]:
    """The leaves of a parameter value: a size, the sizes of a shape, or the items of an
    index with the bounds of its slices (nested tuples) and the size an index array's
    values need (:attr:`ArrayRef.reach`, where it is one), in order."""
    if isinstance(value, ArrayRef):  # the size its values need an axis to have
        return [] if value.reach is None else [value.reach]
    if not isinstance(value, tuple):
        return [value]
    return [leaf for item in value for leaf in entries(item)]


def map_entries(value: Any, fn: Callable[[Any], Any]) -> Any:
    """``value`` with each leaf (see :func:`entries`) replaced by ``fn(leaf)``."""
    if isinstance(value, ArrayRef):
        return value if value.reach is None else replace(value, reach=fn(value.reach))
    if isinstance(value, SliceItem):
        return SliceItem(*(map_entries(v, fn) for v in value[1:]))
    if isinstance(value, tuple):
        return tuple(map_entries(v, fn) for v in value)
    return fn(value)


def _axis_sizes(value: Any) -> list[AxisSize]:
    """The AxisSize keys of the Dims in ``value`` (a size or a tuple of sizes), in a
    fixed order."""
    out: list[AxisSize] = []
    for entry in entries(value):
        if isinstance(entry, Dim):
            out.extend(sorted((s for s in free_symbols(entry) if isinstance(s, AxisSize)),
                              key=lambda s: (str(s), id(s.variable))))
    return out


def untie(values: list[Any]) -> tuple[list[Any], list[tuple[Variable, int]]]:
    """``values`` (normalised size parameters) with each distinct axis size
    (``x.shape[i]``) replaced by :func:`given_axis` of its rank, and the ``(x, i)`` of
    each: what :func:`size_inputs` makes their inputs from."""
    found: dict[AxisSize, Dim] = {}
    for value in values:
        for key in _axis_sizes(value):
            if key not in found:
                found[key] = given_axis(len(found))
    if not found:
        return values, []

    def one(entry: Any) -> Any:
        return substitute(entry, found) if isinstance(entry, Dim) else entry

    values = [map_entries(v, one) for v in values]
    return values, [(key.variable, key.axis) for key in found]


def own_axes(value: Any, tensors: list[Any]) -> Any:
    """``value`` (a shape parameter of an Op that reads sizes of its own inputs, such as
    reshape) with each axis size of input ``j`` replaced by :func:`input_axis`; axis
    sizes of other variables are left for :func:`untie`."""
    keys = _axis_sizes(value)
    mapping: dict[AxisSize, Dim] = {}
    for key in keys:
        j = next((j for j, t in enumerate(tensors) if t is key.variable), None)
        if j is not None:
            mapping[key] = input_axis(j, key.axis)
    if not mapping:
        return value
    return tuple(substitute(e, mapping) if isinstance(e, Dim) else e for e in value)


def foreign_names(value: Any, own: Iterable[str]) -> list[str]:
    """The named sizes of a shape parameter that are not among ``own`` (the input's
    named sizes), sorted: sizes of other graph inputs, each carried by a SizeOp input
    (``x.reshape(B, T, -1)`` of a tensor whose type has ``B*T``, not ``B``)."""
    own = set(own)
    return sorted({s for e in entries(value) if isinstance(e, Dim) for s in free_symbols(e)
                   if isinstance(s, str) and s not in own})


def named_inputs(names: list[str]) -> list[Variable]:
    """A SizeOp input for each of :func:`foreign_names`."""
    return [SizeOp(Dim(name))() for name in names]


def axis_inputs(axes: list[tuple[Variable, int]]) -> list[Variable]:
    """``shape_of(x, i)`` for each ``(x, i)`` of :func:`untie`, in the placeholders'
    order: the inputs of an Op that writes :func:`given_axis` sizes itself (see
    :func:`given_operands`)."""
    return [AXIS_INPUT.fn(*axis) for axis in axes]


def given_operands(values: Iterable[Any], after: bool = False) -> tuple[dict[Any, Dim], str]:
    """For builders of such Ops: ``{placeholder key: Dim("s{k}")}`` to write the
    :func:`given_axis` sizes of ``values`` over, and the operands ``(s0):bool,...`` of
    their inputs (with ``after``, preceded by a comma; empty when there are none)."""
    found = sorted({s.k for value in values
                    for entry in entries(value)
                    if isinstance(entry, Dim) for s in free_symbols(entry)
                    if isinstance(s, _GivenAxis)})  # 0, 1, ...: untie numbers them so
    names = {_given_key(k): Dim(f"s{k}") for k in found}
    text = ",".join(f"(s{k}):bool" for k in found)
    return names, (f",{text}" if after and text else text)


class _InputAxis:
    """The key of :func:`input_axis`: "the size of axis ``axis`` of input ``j``"."""

    __slots__ = ("j", "axis")

    def __init__(self, j: int, axis: int):
        self.j, self.axis = j, axis

    def __repr__(self) -> str:
        return f"input{self.j}.shape[{self.axis}]"

    def __reduce__(self) -> tuple:
        return _input_key, (self.j, self.axis)


def symbol_of(d: Dim) -> Any:
    """The one symbol of a lone-symbol Dim: its name, or an unknown's key (as
    :func:`~kantensor.types.dim.substitute` takes it)."""
    (key,) = free_symbols(d)
    return key


def _given_key(k: int) -> _GivenAxis:  # how the placeholders' keys unpickle as themselves
    return symbol_of(given_axis(k))


def _input_key(j: int, axis: int) -> _InputAxis:
    return symbol_of(input_axis(j, axis))


_INPUT_AXES: dict[tuple[int, int], Dim] = {}


def input_axis(j: int, axis: int) -> Dim:
    """The Dim "axis ``axis`` of input ``j``" of an Op's shape parameter (interned;
    ``setdefault`` keeps one when two threads make it at once)."""
    d = _INPUT_AXES.get((j, axis))
    if d is None:
        d = _INPUT_AXES.setdefault((j, axis), unknown(_InputAxis(j, axis)))
    return d


def input_axes(j: int, ndim: int) -> dict[Any, int]:
    """``{symbol: axis}`` for the :func:`input_axis` Dims of input ``j`` (of rank
    ``ndim``), keyed as :func:`~kantensor.types.dim.substitute` takes them."""
    return {symbol_of(input_axis(j, axis)): axis for axis in range(ndim)}


def symbolic(values: Iterable[Any]) -> list[Dim]:
    """What the SizeOp and ``shape_of`` inputs of a call's size parameters ``values``
    (ints, Dims, None, or tuples of them) carry, one each, in order of first
    appearance: each distinct Dim over named sizes, and each size a Dim over axis
    sizes is made of (see the module's doc)."""
    out: list[Dim] = []
    for value in values:
        for entry in entries(value):
            if not isinstance(entry, Dim):
                continue
            # a size that may be negative (a position from the end, x[-n:], or of
            # either sign, x[:n - 5]; a shape n - 2 that NumPy refuses below 2) cannot
            # be an input's length: its inputs are the sizes it is made of, and the
            # relation states what it needs of its sign (a slice reads both signs)
            parts = _atoms(entry) if _has_given(entry) or not nonnegative(entry) else (entry,)
            out.extend(p for p in parts if p not in out)
    return out


def negative(d: Dim) -> bool:
    """Whether a size expression used as a position counts from the end: it is negative
    when its sizes are large (``-n``, ``1 - n``, ``(-n)//2``). Sizes are taken to be
    large enough for that sign to be the value's; templates state it in a where-clause."""
    return sign_when_large(d) == -1  # (None: divided by a difference, no sign to read)


def lone_symbol(d: Dim) -> Any:
    """The symbol (a name, or a :func:`given_axis` placeholder's key) that ``d``, one of
    :func:`symbolic`'s Dims, is, if it is a lone one; else None."""
    return _lone_symbol(d)


def _has_given(entry: Dim) -> bool:
    return any(isinstance(s, _GivenAxis) for s in free_symbols(entry))


def _lone_symbol(d: Dim) -> Any:
    """The symbol (a name or an unknown's key) ``d`` is, if it is a lone symbol."""
    symbols = free_symbols(d)
    if len(symbols) == 1:
        (symbol,) = symbols
        if d == _symbol_dim(symbol):
            return symbol
    return None


def _symbol_dim(symbol: Any) -> Dim:
    return Dim(symbol) if isinstance(symbol, str) else given_axis(symbol.k)


def _atom_symbols(dims: list[Dim]) -> dict[Any, int]:
    """``{symbol: i}`` for the ``dims`` (of :func:`symbolic`) that are lone symbols."""
    return {symbol: i for i, d in enumerate(dims)
            if (symbol := _lone_symbol(d)) is not None}


def _atoms(entry: Dim) -> list[Dim]:
    """The sizes ``entry`` is made of, as Dims: named ones by name, then
    placeholders by rank."""
    symbols = free_symbols(entry)
    named = sorted(s for s in symbols if isinstance(s, str))
    given = sorted((s for s in symbols if isinstance(s, _GivenAxis)), key=lambda s: s.k)
    return [_symbol_dim(s) for s in (*named, *given)]


def size_inputs(values: Iterable[Any], axes: list[tuple[Variable, int]] = ()) -> list[Variable]:
    """One input per Dim of :func:`symbolic` ``(values)``: ``shape_of(x, i)`` for the
    placeholder :func:`given_axis` ``(k)`` whose ``(x, i)`` is ``axes[k]``, else a
    SizeOp output."""
    out = []
    for d in symbolic(values):
        symbol = _lone_symbol(d) if _has_given(d) else None
        out.append(AXIS_INPUT.fn(*axes[symbol.k]) if symbol is not None else SizeOp(d)())
    return out


AXIS_INPUT: Hook[Callable[[Variable, int], Variable]] = Hook(
    "axis_input", "kantensor.ops",
    "axis_input(x, axis) -> the input of an axis size: shape_of(x, axis), a catalogue "
    "Op (this module is below the catalogue; see size_inputs)", lambda x, axis: (
        _ for _ in ()).throw(RuntimeError("shape_of is not registered")))


@reads_ranks
def axis_of(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Builder of ``shape_of``: its output is as long as the axis."""
    ndim = types[0].ndim
    if not -ndim <= axis < ndim:
        raise ParamError(f"axis {axis} is out of bounds for a tensor of dimension {ndim}")
    return {"x": dims("a", ndim), "y": DimVar(f"a{axis % ndim}")}


def axis_length(x: Any, axis: int) -> np.ndarray:
    """``shape_of``'s value: a read-only bool vector as long as the axis (no memory)."""
    return np.broadcast_to(np.False_, (np.shape(x)[axis],))


@reads_ranks
def number_of(types: tuple, size: int | Dim, **_: Any) -> dict[str, Any]:
    """Builder of ``size_number``: its inputs carry the size (see :class:`SizeNames`).
    Its output is a wrapped Python int: its ``output_class`` is
    :class:`~kantensor.types.variable.SizeNumber`, which make_node makes and the
    relation states (:class:`~kantensor.signature.solve.Relation`), so that one term of
    it serves its node's relation and the relations of the nodes that take it."""
    return {"sizes": SizeNames(size).patterns()}


number_of.output_class = SizeNumber  # (see number_of)


def size_value(*sizes: np.ndarray, size: int | Dim) -> np.ndarray:
    """``size_number``'s value: the size, read from the lengths of its inputs."""
    return np.asarray(concrete([size], sizes)[0], dtype=np.int64)


@lru_cache(maxsize=4096)
def dim_expr(d: Dim) -> DimExpr:
    """A symbolic size (a user's value, over named sizes) as a dim expression of the DSL:
    the tree its text parses into, built from its terms (:func:`.dimast.dim_ast`), else
    its text read (the one place a builder's size is read from text)."""
    tree = dim_ast(d)
    return parse_tensor_type(f"int8[{d}]")[1][0] if tree is None else tree


class SizeNames:
    """For builders: the dim variable (``s0``, ``s1``, ...) of each input that carries a
    size of a call's size parameters (see :func:`symbolic`), and those inputs'
    operands."""

    def __init__(self, *values: Any):
        self.dims = symbolic(values)

    def __bool__(self) -> bool:
        return bool(self.dims)

    def expr(self, entry: int | Dim) -> int | DimExpr:
        """An entry of a size parameter as a dim expression: an int, its input's
        variable, or an expression over the variables of the inputs it is made of."""
        if not isinstance(entry, Dim):
            return entry
        if entry in self.dims:
            return DimVar(f"s{self.dims.index(entry)}")
        names = {symbol: Dim(f"s{i}") for symbol, i in _atom_symbols(self.dims).items()}
        return dim_expr(substitute(entry, names))

    def patterns(self) -> Operands:
        """``(s0):bool, (s1):bool, ...``: the size inputs' operands, which come last."""
        return Operands(TensorPattern((DimVar(f"s{i}"),), "bool") for i in range(len(self.dims)))


def concrete(values: Sequence[Any], sizes: Sequence[np.ndarray]) -> list[Any]:
    """For implementations: ``values`` (the size parameters, in the call's order) with
    each Dim replaced by its value, read from the lengths of the size inputs
    ``sizes``."""
    lengths = [len(s) for s in sizes]
    return [tuple(e if isinstance(e, int) else e.value(lengths) for e in v) if type(v) is tuple
            else v if v is None or isinstance(v, int) else v.value(lengths)
            for v in _positions(tuple(values))]


class _Index:
    """How to read a Dim of a size parameter from the lengths of the size inputs: the
    length of input ``i``, or an expression over the inputs it is made of."""

    __slots__ = ("i", "expr", "symbols")

    def __init__(self, i: int | None, expr: Dim | None = None,
                 symbols: tuple[tuple[Any, int], ...] = ()):
        self.i, self.expr, self.symbols = i, expr, symbols

    def value(self, lengths: list[int]) -> int:
        if self.i is not None:
            return lengths[self.i]
        return substitute(self.expr, {key: lengths[i] for key, i in self.symbols})


@lru_cache(maxsize=1024)
def _positions(values: tuple) -> tuple:
    """``values`` with each Dim replaced by an ``_Index`` (decided once per parameter
    values: the implementations call this at every run)."""
    dims = symbolic(values)
    symbols = tuple(_atom_symbols(dims).items())

    def one(entry: Any) -> Any:
        if not isinstance(entry, Dim):
            return entry
        return _Index(dims.index(entry)) if entry in dims else _Index(None, entry, symbols)

    return tuple(tuple(map(one, v)) if isinstance(v, tuple) else one(v) for v in values)

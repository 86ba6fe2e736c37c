"""Symbolic sizes as parameters: ``kt.zeros((n, 3))``, ``kt.broadcast_to(v, x.shape)``.

A size parameter (kinds ``size``, ``maybe_size`` and ``sizes`` of
:mod:`kantensor.ops.params`) holds ints and Dims (``Dim("n")``, ``n + 1``, an entry of
``x.shape``). The relation only sees sizes through the types of its inputs, so each
distinct Dim of a call becomes one more tensor input, made by :class:`SizeOp`: a
``bool[n]`` whose only meaning is its length. The template renders those inputs as
operands ``(s0)``, ``(s1)``, ... and writes the output over ``s0``, ``s1``, so the
signature (never Python) decides that ``zeros((n, 3))`` is ``float64[n,3]``.

When the graph runs, the backend makes each SizeOp's value from the sizes it binds
from the function's inputs (a zero-stride view, no memory); a Dim that no input of the
function has is an error when the function is compiled. The implementation reads the
sizes back with :func:`concrete`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..graph.basic import Apply, Variable
from ..graph.op import Op
from ..types.dim import Dim
from ..types.type import TensorType
from ..types.variable import Shape, TensorVariable
from .params import ParamError, axis_dim
from .templates import names, operand


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


def symbolic(values: Iterable[Any]) -> list[Dim]:
    """The distinct Dims among ``values`` (ints, Dims, None, or tuples of them), in order
    of first appearance: the sizes a call's SizeOp inputs carry, one each."""
    out: list[Dim] = []
    for value in values:
        for entry in value if isinstance(value, tuple) else (value,):
            if isinstance(entry, Dim) and entry not in out:
                out.append(entry)
    return out


def size_inputs(values: Iterable[Any], given: Iterable[Any] = ()) -> list[Variable]:
    """One input per distinct Dim of ``values`` (see :func:`symbolic`): a SizeOp output,
    or for an unknown axis of a whole ``x.shape`` in ``given`` (the values as the call
    gave them), the ``shape_of`` of x along that axis."""
    axes: dict[Dim, tuple[Variable, int]] = {}
    for raw in given:
        if isinstance(raw, Shape):
            for axis, entry in enumerate(raw):
                if entry is None:
                    axes[axis_dim(axis)] = (raw.variable, axis)
    return [_AXIS_INPUT[0](*axes[d]) if d in axes else SizeOp(d)() for d in symbolic(values)]


#: How an unknown axis becomes an input: ``shape_of(x, axis)``, a catalogue Op that
#: the catalogue's loader registers here (this module is below the catalogue).
_AXIS_INPUT: list[Callable[[Variable, int], Variable]] = [
    lambda x, axis: (_ for _ in ()).throw(RuntimeError("shape_of is not registered"))]


def register_axis_input(fn: Callable[[Variable, int], Variable]) -> None:
    """Set what makes the input of an unknown axis (see :func:`size_inputs`)."""
    _AXIS_INPUT[0] = fn


def axis_of(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Builder of ``shape_of``: its output is as long as the axis."""
    ndim = types[0].ndim
    if not -ndim <= axis < ndim:
        raise ParamError(f"axis {axis} is out of bounds for a tensor of dimension {ndim}")
    return {"x": operand(names("a", ndim)), "y": f"a{axis % ndim}"}


def axis_length(x: Any, axis: int) -> np.ndarray:
    """``shape_of``'s value: a read-only bool vector as long as the axis (no memory)."""
    return np.broadcast_to(np.False_, (np.shape(x)[axis],))


class SizeNames:
    """For builders: the dim variable (``s0``, ``s1``, ...) of each symbolic size of a
    call's size parameters (in the order of the call), and the operands of the SizeOp
    inputs that bind them."""

    def __init__(self, *values: Any):
        self.dims = symbolic(values)

    def __bool__(self) -> bool:
        return bool(self.dims)

    def text(self, entry: int | Dim) -> str:
        """An entry of a size parameter in signature text: an int, or its variable."""
        return f"s{self.dims.index(entry)}" if isinstance(entry, Dim) else str(entry)

    def operands(self, after: bool = False) -> str:
        """``(s0):bool,(s1):bool``: the SizeOp inputs, which come last; with ``after``, preceded by
        a comma (they follow other operands), and empty when there are none."""
        text = ",".join(f"(s{i}):bool" for i in range(len(self.dims)))
        return f",{text}" if after and text else text


def concrete(values: Sequence[Any], sizes: Sequence[np.ndarray]) -> list[Any]:
    """For implementations: ``values`` (the size parameters, in the call's order) with
    each Dim replaced by the length of its SizeOp input in ``sizes``."""
    lengths = [len(s) for s in sizes]
    return [tuple(e if isinstance(e, int) else lengths[e.i] for e in v) if type(v) is tuple
            else v if v is None or isinstance(v, int) else lengths[v.i]
            for v in _positions(tuple(values))]


class _Index:
    """The position of a Dim's SizeOp input among the implementation's ``sizes``."""

    __slots__ = ("i",)

    def __init__(self, i: int):
        self.i = i


@lru_cache(maxsize=1024)
def _positions(values: tuple) -> tuple:
    """``values`` with each Dim replaced by an ``_Index`` of its SizeOp input (decided
    once per parameter values: the implementations call this at every run)."""
    dims = symbolic(values)

    def one(entry: Any) -> Any:
        return _Index(dims.index(entry)) if isinstance(entry, Dim) else entry

    return tuple(tuple(map(one, v)) if isinstance(v, tuple) else one(v) for v in values)

"""Values known when an ONNX model is read (a constant, or folded from known values and
``Shape``): ints, Dims and None held in NumPy arrays, and as the parameters builders
read; :func:`fold`, how the reader computes them."""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from ..types.conditions import COMPARE
from ..types.dim import Dim
from ..types.facts import EMPTY
from ..types.type import TensorType
from .bounds import MAX_VALUE_ENTRIES, oversized
from .floatsizes import entrywise, is_float_sizes, number
from .shared import FOLD_DTYPE, FOLD_FACTS, FOLD_NEEDS, FOLD_REFUSED, FloatSize, value_symbols

__all__ = ["DECLINED", "MAX_FOLD", "TypeStandIn", "as_param", "computed", "fold", "integral",
           "plain", "read_shapes", "settle", "sizes_value", "static_size"]

#: The most elements a value computed while reading the model may have (larger ones are
#: left to the graph: they are data, not sizes).
MAX_FOLD = 1 << 16


def static_size(t: TensorType) -> int | None:
    if any(not isinstance(d, int) for d in t.shape):
        return None
    return math.prod(t.shape)


@cache
def integral(dtype: str) -> bool:
    """Whether ``dtype`` holds integers (bool among them): asked of each value folded
    from sizes (found once per dtype: ``np.issubdtype`` costs a few microseconds)."""
    return dtype == "bool" or np.issubdtype(np.dtype(dtype), np.integer)


def settle(value: np.ndarray) -> np.ndarray:
    """An object array of sizes as int64 when every entry is an int."""
    flat = [plain(v) for v in value.ravel().tolist()]
    if all(isinstance(v, int) for v in flat):
        return np.array(flat, dtype="int64").reshape(value.shape)
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(value.shape)


def sizes_value(sizes: Any) -> np.ndarray:
    """Sizes (one, or a sequence) as a value: int64 when they are ints (an array's
    shape when the graph runs), else an object array of ints, Dims and None (a shape
    read off a type, :class:`TypeStandIn`)."""
    if isinstance(sizes, tuple | list):
        if all(type(s) is int for s in sizes):
            return np.array(sizes, dtype="int64")
        out = np.empty(len(sizes), dtype=object)
        out[:] = list(sizes)
        return out
    if isinstance(sizes, int | np.integer):
        return np.array(sizes, dtype="int64")
    out = np.empty((), dtype=object)
    out[()] = sizes
    return out


class TypeStandIn:
    """A tensor's type standing for its value, for a kernel that reads only its inputs'
    shapes (an entry with ``reads_only = "shapes"``): ``shape`` holds the type's sizes (ints,
    Dims, None for unknown), ``size`` their product (None when one is unknown)."""

    __slots__ = ("dtype", "shape")

    def __init__(self, t: TensorType):
        self.shape = tuple(t.shape)
        self.dtype = t.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> Any:
        if any(d is None for d in self.shape):
            return None
        return math.prod(self.shape, start=1)


def plain(v: Any) -> Any:
    if isinstance(v, np.integer | bool):
        return int(v)
    return v


def as_param(value: np.ndarray | None, dtype: str = "int64") -> Any:
    """A known value (of an input of ``dtype``) as a parameter: a tuple of its entries
    (ints, floats, Dims, None), or None when unknown, or a float value of sizes (a builder
    reads a float parameter, Resize's scales, as numbers: :mod:`.floatsizes`)."""
    if value is None or value.dtype == object and dtype and not integral(dtype):
        return None
    flat = value.ravel().tolist()
    return tuple(plain(v) for v in flat)


def computed(apply: Any, values: list[np.ndarray]) -> list[np.ndarray] | None:
    """The values of ``apply``'s outputs, its kernel run on its inputs' known ``values``
    (sizes as Dims in object arrays), or None: an output too large to be a size, a
    float computed from Dims, a truth computed from Dims that not every size decides
    (a comparison :func:`decided` leaves open, a size cast to bool), or a kernel that
    fails now (it runs with the graph)."""
    for out in apply.outputs:
        size = static_size(out.type)
        if size is None or size > MAX_FOLD:
            return None
    symbolic = any(v.dtype == object for v in values)
    op = apply.op
    if symbolic and any(static_size(o.type) > MAX_VALUE_ENTRIES or not integral(
            o.type.dtype) and not is_float_sizes(op.impl) for o in apply.outputs):
        return None  # (sizes are short lists; each of a long one costs Python work;
        # a float of sizes only as .floatsizes makes it exactly)
    compare = _COMPARISONS.get(op.impl) if symbolic else None
    token = FOLD_DTYPE.set(apply.outputs[0].type.dtype) if symbolic else None
    try:
        with np.errstate(all="ignore"):
            result = op.impl(*values, **op._kwargs) if compare is None else \
                decided(compare, *values)
    except DECLINED:  # a value that cannot be computed now is computed at run time
        return None
    finally:
        if token is not None:
            FOLD_DTYPE.reset(token)
    if symbolic and compare is None and any(
            np.asarray(r).dtype == bool for r in (
                result if isinstance(result, tuple | list) else (result,))):
        return None  # a truth computed from a size by its spelling or as a Python
        # object's (a Dim is true, and unequal to 1): the sizes decide it at run time
    results = result if isinstance(result, tuple | list) and len(apply.outputs) > 1 \
        else (result,)
    out = []
    for r, o in zip(results, apply.outputs, strict=True):
        r = np.asarray(r)
        if r.dtype == object:
            if o.type.dtype == "bool":
                return None  # a size cast to a truth: true unless it is 0
            if not integral(o.type.dtype):
                try:
                    r = float_entries(r, o.type.dtype)
                except ValueError:  # a fraction, or an int the float rounds
                    return None
            elif not all(v is None or isinstance(v, int | np.integer | Dim)
                         for v in r.ravel().tolist()):
                return None  # no size: a fraction (a mean of sizes), a tensor (N ** N)
            r = settle(r)
            if any(oversized(v) for v in r.ravel().tolist()):
                return None  # (a size no type may state: the value is not known)
        if r.dtype != object:
            r = r.astype(o.type.dtype)
        if r.shape != tuple(o.type.shape):
            return None
        out.append(r)
    return out


def float_entries(r: np.ndarray, dtype: str) -> np.ndarray:
    """A float value of sizes a kernel made (:mod:`.floatsizes`), each entry an int held
    exactly in ``dtype``, a FloatSize or None; ValueError (not folded) for any other (a
    fraction a constant brought in)."""
    return entrywise(lambda v: number(v, dtype), r)


#: NumPy's comparisons, as the kernels of ONNX's Equal, Less, ... name them
_COMPARISONS = {np.equal: "==", np.less: "<", np.less_equal: "<=", np.greater: ">",
                np.greater_equal: ">="}


class Undecided(Exception):
    """A comparison of sizes that holds at some sizes and fails at others."""


#: What a kernel raises where a value cannot be computed when the model is read (it is
#: then computed when the graph runs): a comparison the sizes do not decide
#: (:class:`Undecided`); a size in a dtype that does not hold it at every size (Cast's
#: ValueError), NumPy refusing a Dim or an input the run refuses too (TypeError,
#: ValueError, IndexError: a constant index out of range), a division by zero or an
#: overflow (ArithmeticError), a kernel that only types (NotImplementedError). Anything
#: else (a NameError, AttributeError, KeyError, AssertionError) is a bug in the kernel and
#: propagates: a bug must not turn into a value silently left unknown.
DECLINED = (Undecided, ArithmeticError, ValueError, TypeError, IndexError,
            NotImplementedError)


def decided(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a op b`` elementwise on values holding sizes (Dims), each entry decided for
    every size (a size is an int >= 0: ``n == -1`` is False, ``n + 1 > n`` True); raises
    :class:`Undecided` where the sizes decide one (``n == 1``)."""
    left, right = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    out = np.empty(left.shape, dtype=bool)
    for index, x in np.ndenumerate(left):
        y = right[index]
        if isinstance(x, FloatSize | float | np.floating) or \
                isinstance(y, FloatSize | float | np.floating):
            raise Undecided(f"{x} {op} {y}")  # (a float of sizes compared: not folded)
        if not isinstance(x, Dim) and not isinstance(y, Dim):
            out[index] = COMPARE[op](x, y)
            continue
        answer = EMPTY.decide((plain(x), op, plain(y)))
        if answer is None:
            raise Undecided(f"{x} {op} {y}")
        out[index] = answer
    return out


def read_shapes(apply: Any) -> list[np.ndarray | None]:
    """The values of the outputs of a node whose kernel reads its inputs' shapes only
    (``reads_only = "shapes"``): the kernel run on the inputs' types (ints, Dims and None
    for the sizes); a scalar with no size known is no known value."""
    op = apply.op
    result = op.impl(*[TypeStandIn(v.type) for v in apply.inputs], **op._kwargs)
    results = result if len(apply.outputs) > 1 else (result,)
    return [None if r.ndim == 0 and r.item() is None else settle(r) for r in results]


def fold(reader: Any, reads_shapes: bool, apply: Any) -> tuple[list | None, tuple]:
    """The values of ``apply``'s outputs (a node ``reader`` built) when they can be known
    now: from its inputs' types when its kernel reads only their shapes
    (``reads_shapes``), else from their known values, each of at most MAX_FOLD elements
    (a weight's data is not read to fold a reduction of it); and what those values need
    of the sizes (conditions: a size held exactly in a float, :mod:`.floatsizes`) with
    what the node needs whether or not they fold (an integer divisor not 0:
    :data:`.shared.FOLD_REFUSED`)."""
    if reads_shapes:  # its value is its inputs' sizes, known from their types
        return read_shapes(apply), ()
    for v in apply.inputs:  # a size input (Dims of a parameter) is no known value
        if not reader.known(v.name) or reader.vars.get(v.name) is not v:
            return None, ()
        size = static_size(v.type)
        if size is None or size > MAX_FOLD:  # data (a weight), not sizes: not read
            return None, ()
    values = [reader.value(v.name) for v in apply.inputs]
    facts = reader.facts.about(value_symbols(values)) if reader.facts else EMPTY
    needs: list = []
    refused: list = []
    tokens = FOLD_FACTS.set(facts), FOLD_NEEDS.set(needs), FOLD_REFUSED.set(refused)
    try:  # (facts: what the node memo's key holds, node_key)
        found = computed(apply, values)
    finally:
        FOLD_REFUSED.reset(tokens[2])
        FOLD_NEEDS.reset(tokens[1])
        FOLD_FACTS.reset(tokens[0])
    kept = [c for c in refused if found is None or c not in needs]
    return found, (*(needs if found is not None else ()), *kept)

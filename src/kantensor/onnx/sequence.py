"""ONNX's sequence family (``onnx/defs/sequence``): SequenceEmpty, SequenceConstruct,
SequenceAt, SequenceInsert, SequenceErase, SequenceLength, SplitToSequence and
ConcatFromSequence (``signatures/onnx/sequence.toml``), and Identity of a sequence or an
optional; each handler beside its kernel.

A sequence's type is a :class:`~kantensor.types.containers.SequenceType`: its elements'
dtype, the shape they share, its length and, where each is known, every element's type
(SequenceConstruct of known tensors, SplitToSequence by a known split, an insertion or
an erasure at a known position of such a sequence). SequenceLength's value is the
length when it is known, a Dim when it is symbolic. ConcatFromSequence needs a length
``>= 1``: onnxruntime refuses an empty sequence (the spec gives it no shape).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx

from ..graph.basic import Variable
from ..graph.type import Type
from ..ops.params import normalize_axis
from ..types.conditions import Condition, Source
from ..types.containers import OptionalType, SequenceType, join_shapes
from ..types.dim import Dim
from ..types.dtypes import CATEGORIES, DEFAULT_RANGE, integer_range, is_low_precision
from ..types.type import TensorType
from .dtypes import dtype_of
from .registry import UnsupportedOp
from .structured import Structured, StructuredOp, needed

#: The most elements a sequence's type lists one by one (a longer one states the shape
#: they share and its length).
MAX_ELEMENTS = 1 << 10

#: The element types of ONNX's sequences (the schemas' ``S``, ``seq(tensor(...))``, of
#: every sequence op at every opset: no bfloat16, no float8 or sub-byte type) and of the
#: tensors the sequence ops take and give (``T``). SplitToSequence's input may be
#: bfloat16 too from opset 24 (:class:`SplitToSequence24`; a sequence no other op takes).
ELEMENTS = frozenset(d for d in DEFAULT_RANGE if not is_low_precision(d)) | \
    CATEGORIES["string"]

#: The dtypes of a position or a split (the schemas' ``I``): the signed integers of 32
#: bits and more (int32, int64).
POSITIONS = frozenset(d for d in CATEGORIES["signed"] if integer_range(d)[1] >= 2**31 - 1)


def apply(name: str, impl: Any, types: tuple[Type, ...], inputs: list[Variable],
          **params: Any) -> list[Variable]:
    """The outputs of a StructuredOp applied to ``inputs``."""
    return StructuredOp(name, impl, types, **params).make_node(*inputs).outputs


def tensors(scope: Any, node: onnx.NodeProto, label: str) -> list[Variable]:
    """The node's given inputs (absent optional ones left out)."""
    return [scope.var(n, node) for n in node.input if n]


def sequence_of(v: Variable, what: str) -> SequenceType:
    """``v``'s sequence type, its elements of a dtype a sequence op takes (TypeError
    else, as onnxruntime refuses it)."""
    if not isinstance(v.type, SequenceType):
        raise TypeError(f"{what} must be a sequence, got {v.type}")
    taken(v.type.dtype, what)
    return v.type


def tensor_of(v: Variable, what: str, allowed: frozenset[str] = ELEMENTS) -> TensorType:
    """``v``'s tensor type, of a dtype in ``allowed`` (TypeError else)."""
    if not isinstance(v.type, TensorType):
        raise TypeError(f"{what} must be a tensor, got {v.type}")
    taken(v.type.dtype, what, allowed)
    return v.type


def taken(dtype: str | None, what: str, allowed: frozenset[str] = ELEMENTS) -> None:
    """TypeError unless ``dtype`` is one of ``allowed`` (the schema's set; an unknown
    dtype, None, is not judged)."""
    if dtype is not None and dtype not in allowed:
        raise TypeError(f"{what} is of {dtype}; it takes {', '.join(sorted(allowed))}")


def scalar_value(scope: Any, name: str) -> int | Dim | None:
    """The one entry of a known integer input (a position, a split), or None."""
    if not name:
        return None
    value = scope.value(name)
    if value is None or np.size(value) != 1:
        return None
    entry = np.asarray(value).reshape(-1)[0]
    if isinstance(entry, Dim):
        return entry
    return int(entry) if isinstance(entry, int | np.integer) else None


def length_value(length: int | Dim | None) -> np.ndarray | None:
    """A length as SequenceLength's known value."""
    if length is None:
        return None
    if isinstance(length, int):
        return np.array(length, dtype=np.int64)
    out = np.empty((), dtype=object)
    out[()] = length
    return out


def _position(position: int | Dim | None, n: int, what: str, end: bool) -> int | None:
    """A known position in a sequence of ``n`` elements, from 0 (None if unknown);
    ``end`` admits ``n`` (an insertion's)."""
    if not isinstance(position, int):
        return None
    if not -n <= position < n + end:
        raise IndexError(f"{what} {position} is out of range for a sequence of {n} "
                         "elements")
    return position % (n + end) if position < 0 else position


def _at(seq: SequenceType, position: int | Dim | None) -> TensorType:
    if seq.elements is not None:
        k = _position(position, len(seq.elements), "position", False)
        if k is not None:
            return seq.elements[k]
    element = seq.element
    if element is None:
        raise UnsupportedOp(f"the rank of the elements of {seq} is not known")
    return element


def _grown(seq: SequenceType, add: int, shape: tuple | None = None) -> SequenceType:
    """``seq`` with ``add`` elements more (or fewer), of the shape ``shape`` joined in."""
    length = None if seq.length is None else seq.length + add
    joined = seq.shape if shape is None else join_shapes([seq.shape, shape]) \
        if seq.length != 0 else shape
    return SequenceType(seq.dtype, joined, length)


# -- the handlers ---------------------------------------------------------------------
class SequenceEmpty(Structured):
    attributes = {"dtype": "int"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        dtype = dtype_of(attrs.get("dtype", onnx.TensorProto.FLOAT), f"node {label!r}",
                         text=True)
        taken(dtype, "the dtype attribute")
        return [(apply("SequenceEmpty", empty, (SequenceType(dtype, elements=()),), [])[0],
                 None)]


def empty() -> list:
    return []


class SequenceConstruct(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        xs = tensors(scope, node, label)
        if not xs:
            raise TypeError("SequenceConstruct takes at least one tensor")
        types = [tensor_of(x, f"input {i}") for i, x in enumerate(xs)]
        dtypes = {t.dtype for t in types}
        if len(dtypes) > 1:
            raise TypeError(f"the tensors of a sequence have one dtype, got "
                            f"{', '.join(sorted(dtypes))}")
        t = SequenceType(types[0].dtype, elements=types) if len(types) <= MAX_ELEMENTS \
            else SequenceType(types[0].dtype, join_shapes(u.shape for u in types), len(types))
        return [(apply("SequenceConstruct", construct, (t,), xs)[0], None)]


def construct(*xs: np.ndarray) -> list:
    return list(xs)


class SequenceAt(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        s, p = tensors(scope, node, label)
        seq = sequence_of(s, "input_sequence")
        tensor_of(p, "position", POSITIONS)
        t = _at(seq, scalar_value(scope, node.input[1]))
        return [(apply("SequenceAt", at, (t,), [s, p])[0], None)]


def _int(position: np.ndarray) -> int:
    """A position given as a scalar (or, as some models give it, a one-element array)."""
    return int(np.asarray(position).reshape(-1)[0])


def at(seq: list, position: np.ndarray) -> np.ndarray:
    return seq[_int(position)]


class SequenceInsert(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        seq = sequence_of(ins[0], "input_sequence")
        t = tensor_of(ins[1], "tensor")
        if len(ins) > 2:
            tensor_of(ins[2], "position", POSITIONS)
        if t.dtype != seq.dtype:
            raise TypeError(f"cannot insert a {t.dtype} tensor into {seq}")
        position = scalar_value(scope, node.input[2]) if len(node.input) > 2 else None
        given = len(node.input) > 2 and bool(node.input[2])
        out = None
        if seq.elements is not None and len(seq.elements) < MAX_ELEMENTS:
            n = len(seq.elements)
            k = n if not given else _position(position, n, "position", True)
            if k is not None:
                out = SequenceType(seq.dtype, elements=(*seq.elements[:k], t,
                                                        *seq.elements[k:]))
        if out is None:
            out = _grown(seq, 1, t.shape)
        return [(apply("SequenceInsert", insert, (out,), ins)[0], None)]


def insert(seq: list, x: np.ndarray, position: np.ndarray | None = None) -> list:
    k = len(seq) if position is None else _int(position)
    k = k + len(seq) + 1 if k < 0 else k
    return [*seq[:k], x, *seq[k:]]


class SequenceErase(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        seq = sequence_of(ins[0], "input_sequence")
        if len(ins) > 1:
            tensor_of(ins[1], "position", POSITIONS)
        given = len(node.input) > 1 and bool(node.input[1])
        position = scalar_value(scope, node.input[1]) if given else -1
        out = None
        if seq.length == 0:
            raise IndexError("cannot erase an element of an empty sequence")
        if seq.elements is not None:
            k = _position(position, len(seq.elements), "position", False)
            if k is not None:
                out = SequenceType(seq.dtype, elements=(*seq.elements[:k],
                                                        *seq.elements[k + 1:]))
        if out is None:
            out = _grown(seq, -1)
        return [(apply("SequenceErase", erase, (out,), ins)[0], None)]


def erase(seq: list, position: np.ndarray | None = None) -> list:
    k = len(seq) - 1 if position is None else _int(position)
    k = k + len(seq) if k < 0 else k
    return [*seq[:k], *seq[k + 1:]]


class SequenceLength(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        (s,) = tensors(scope, node, label)
        seq = sequence_of(s, "input_sequence")
        out = apply("SequenceLength", length, (TensorType("int64", ()),), [s])[0]
        return [(out, length_value(seq.length))]


def length(seq: list) -> np.ndarray:
    return np.array(len(seq), dtype=np.int64)


class SplitToSequence(Structured):
    """SplitToSequence of opsets 11 to 23 (its input of :data:`ELEMENTS`)."""

    attributes = {"axis": "int", "keepdims": "int"}
    #: The input's dtypes (the schema's ``T``).
    inputs: frozenset[str] = ELEMENTS

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        x = tensor_of(ins[0], "input", self.inputs)
        if len(ins) > 1:
            tensor_of(ins[1], "split", POSITIONS)
        axis = normalize_axis(attrs.get("axis", 0), x.ndim)
        keepdims = attrs.get("keepdims", 1)
        split = ins[1] if len(ins) > 1 else None
        value = scope.value(node.input[1]) if split is not None else None
        out = _split_type(x, axis, keepdims, split, value)
        return [(apply("SplitToSequence", split_to_sequence, (out,), ins, axis=axis,
                       keepdims=keepdims)[0], None)]


class SplitToSequence24(SplitToSequence):
    """SplitToSequence from opset 24: its input may be bfloat16 too."""

    inputs = ELEMENTS | {"bfloat16"}


def _with(shape: tuple, axis: int, size: Any) -> tuple:
    """``shape`` with axis ``axis`` of size ``size`` (removed when ``size`` is ...)."""
    return (*shape[:axis], *(() if size is ... else (size,)), *shape[axis + 1:])


def _split_type(x: TensorType, axis: int, keepdims: int, split: Variable | None,
                value: np.ndarray | None) -> SequenceType:
    n = x.shape[axis]
    if split is None:  # one element per index, the axis kept as 1 or removed
        shape = _with(x.shape, axis, 1 if keepdims else ...)
        if isinstance(n, int) and n <= MAX_ELEMENTS:
            return SequenceType(x.dtype, elements=[TensorType(x.dtype, shape)] * n)
        return SequenceType(x.dtype, shape, n)
    split_type = tensor_of(split, "split", POSITIONS)
    if value is None:
        count = split_type.shape[0] if split_type.ndim == 1 else None
        return SequenceType(x.dtype, _with(x.shape, axis, None), count)
    sizes = [v if isinstance(v, Dim) else int(v) for v in np.asarray(value).reshape(-1)]
    if np.ndim(value) == 0:  # chunks of size k, the last one maybe smaller
        k = sizes[0]
        if not isinstance(k, int) or k <= 0:
            raise ValueError(f"split must be a positive size, got {k}")
        if isinstance(n, int):
            sizes = [k] * (n // k) + ([n % k] if n % k else [])
        else:
            if n is None:
                return SequenceType(x.dtype, _with(x.shape, axis, None))
            return SequenceType(x.dtype, _with(x.shape, axis, 1 if k == 1 else None),
                                (n + k - 1) // k)
    total = sum(sizes)
    if isinstance(n, int) and isinstance(total, int) and total != n:
        raise ValueError(f"split sizes {sizes} add up to {total}, not to the axis' size {n}")
    if len(sizes) > MAX_ELEMENTS:
        return SequenceType(x.dtype, _with(x.shape, axis, None), len(sizes))
    return SequenceType(x.dtype, elements=[TensorType(x.dtype, _with(x.shape, axis, s))
                                           for s in sizes])


def split_to_sequence(x: np.ndarray, split: np.ndarray | None = None, *, axis: int,
                      keepdims: int) -> list:
    n = x.shape[axis]
    if split is None:
        parts = np.split(x, n, axis=axis) if n else []
        return parts if keepdims else [np.squeeze(p, axis=axis) for p in parts]
    split = np.asarray(split)
    if split.ndim == 0:
        k = int(split)
        bounds = list(range(k, n, k))
    else:
        bounds = np.cumsum(split)[:-1].tolist()
    return np.split(x, bounds, axis=axis)


class ConcatFromSequence(Structured):
    attributes = {"axis": "int", "new_axis": "int"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        (s,) = tensors(scope, node, label)
        seq = sequence_of(s, "input_sequence")
        if "axis" not in attrs:
            raise TypeError("ConcatFromSequence needs its axis attribute")
        new_axis = attrs.get("new_axis", 0)
        t, axis = _concat_type(seq, attrs["axis"], new_axis)
        outs = apply("ConcatFromSequence", concat_from_sequence, (t,), [s], axis=axis,
                     new_axis=new_axis)
        if isinstance(seq.length, Dim):  # onnxruntime refuses an empty sequence
            needed(scope, outs, (Condition(seq.length, ">=", 1, Source(
                op="ConcatFromSequence", node=label)),))
        return [(outs[0], None)]


def _concat_type(seq: SequenceType, axis: int, new_axis: int) -> tuple[TensorType, int]:
    """The type of the concatenation (or the stack, with ``new_axis``) of the elements,
    and the axis, from 0."""
    if seq.length == 0:
        raise ValueError("cannot concatenate an empty sequence")
    shape = seq.shape
    if shape is None:
        raise UnsupportedOp(f"the rank of the elements of {seq} is not known")
    if new_axis:
        a = normalize_axis(axis, len(shape) + 1)
        return TensorType(seq.dtype, (*shape[:a], seq.length, *shape[a:])), a
    a = normalize_axis(axis, len(shape))
    if seq.elements is not None:
        total = sum(e.shape[a] for e in seq.elements) if all(
            e.shape[a] is not None for e in seq.elements) else None
    else:
        size = shape[a]
        total = None if size is None or seq.length is None else size * seq.length
    return TensorType(seq.dtype, _with(shape, a, total)), a


def concat_from_sequence(seq: list, *, axis: int, new_axis: int) -> np.ndarray:
    if new_axis:
        return np.stack(seq, axis=axis)
    return np.concatenate(seq, axis=axis)


class Identity(Structured):
    """Identity of a sequence (from opset 14) or an optional (from 16), of
    :data:`ELEMENTS` (a tensor's is the catalogue's)."""

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        (x,) = tensors(scope, node, label)
        inner = x.type.element if isinstance(x.type, OptionalType) else x.type
        if isinstance(x.type, SequenceType | OptionalType):
            first = 16 if isinstance(x.type, OptionalType) else 14
            if scope.opset is not None and scope.opset < first:
                raise TypeError(f"Identity takes {x.type} from opset {first}, the model's "
                                f"is {scope.opset}")
            taken(inner.dtype, "the input's elements" if isinstance(inner, SequenceType)
                  else "the input's element")
        return [(apply("Identity", identity, (x.type,), [x])[0], scope.value(node.input[0])
                 if isinstance(x.type, TensorType) else None)]


def identity(x: Any) -> Any:
    return x

"""The model memo of ``infer_shapes``: a model typed again in the same process (the
same graph given again, or a copy of it) takes the value infos and output types written
the first time, without reading its nodes.

Its key holds everything the typing reads: the dtype rules (the default dtype, or
NumPy's), the reader's limits (:func:`limits`), the operator sets the model imports,
which initializers are inputs a caller may override (:func:`~.loading.overridable`), the
types of its initializers and graph inputs as read from their headers (each call still
checks every initializer's data against its header), the names of the inputs left
untyped, the whole data of every initializer small enough for a node to read (at most
:data:`SMALL` elements), every node serialized (its subgraphs, attributes and names with
it) and the names of the graph's outputs. The data of a larger initializer that the
typing read (a bias folded with a known value) is kept with the typing, which is taken
again only for a model whose same initializers hold the same data (the typing reads the
same data again, so it goes as it went; more than :data:`MAX_READ` bytes of them: not
remembered). A model whose tensors name external data (read from a folder, which the key
does not hold) is not remembered. Nothing else is read: the catalogue's entries are
fixed for the process, and the node memo and the node records give the same answers
whatever they hold.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import onnx

from ..graph.type import Type
from . import intervals, scope, sequence, values

__all__ = ["MODELS", "ModelKey", "Remembered", "found", "model_key", "remember", "restore"]


class ModelKey(NamedTuple):
    """What the typing of a model reads (the module's doc), as the memo's key."""

    rules: str  # the dtype rules (rules_key: the default dtype, or "numpy")
    limits: tuple[int, ...]
    opsets: tuple
    overridable: tuple[str, ...]  # initializers a caller may override: inputs
    names: tuple[str, ...]  # every initializer and graph input typed, in order
    types: tuple  # their types (two tuples: no pair made per name)
    untyped: tuple[str, ...]
    small: tuple[bytes, ...]  # every initializer of at most SMALL elements, serialized
    nodes: tuple[bytes, ...]  # every node, serialized
    outputs: tuple[str, ...]


class Remembered(NamedTuple):
    """A model's typing as the memo holds it."""

    outputs: tuple[tuple[int, Type], ...]  # each typed graph output: its index, its type
    infos: bytes  # the value infos written, serialized as a GraphProto's
    read: tuple[tuple[str, bytes], ...]  # the large initializers read: name, serialized
    size: int  # the bytes the key, the infos and the initializers read hold


#: key -> the typing; emptied when it would hold more than MODELS_SIZE models or
#: MODELS_BYTES bytes of keys and infos
MODELS: dict[ModelKey, Remembered] = {}
MODELS_SIZE = 32
MODELS_BYTES = 1 << 25
_held = [0]  # the bytes MODELS holds

#: An initializer of at most this many elements has its data in the key (a node may read
#: it); a larger one's data is kept with the typing when the typing read it.
SMALL = 64

#: A model whose typing read more bytes of large initializers than this is not remembered.
MAX_READ = 1 << 20


def limits() -> tuple[int, ...]:
    """The reader's limits that decide what is typed (how many readings the subgraphs
    take, how deep they lie, the largest value folded, the largest value whose interval
    is read, the most elements a sequence's type lists): module constants a caller may
    set, so a model typed again after one changed is typed anew, not taken from the
    memo."""
    return (scope.READS_PER_NODE, scope.MIN_READS, scope.MAX_DEPTH, values.MAX_FOLD,
            intervals.MAX_ELEMENTS, sequence.MAX_ELEMENTS)


def model_key(reader: Any, nodes: list[bytes]) -> tuple[ModelKey | None, tuple[str, ...]]:
    """The key of a model whose initializers and graph inputs ``reader`` has read (its
    sources, not yet its nodes), and whose nodes serialize as ``nodes`` (None when its
    tensors name external data), and the names of its initializers too large to be in
    the key."""
    if reader.tensors.files:
        return None, ()
    types, tokens = reader.types, reader.tokens
    small, large = [], []
    for name, proto in reader.unread.items():  # every initializer: none is read yet
        token = tokens.get(name)  # (its node slot token may hold it serialized)
        if token is not None and len(token) == 3:
            small.append(token[2])
        elif math.prod(types[name].shape) <= SMALL:  # (an initializer's type is a
            small.append(proto.SerializeToString())  # TensorType's)
        else:
            large.append(name)
    free = tuple(sorted(reader.free))  # (inputs, not constants)
    return ModelKey(reader.rules, limits(), tuple(sorted(reader.opsets.items())),
                    free, tuple(types), tuple(types.values()), tuple(reader.untyped),
                    tuple(small), tuple(nodes), tuple([o.name for o in reader.proto.output])
                    ), tuple(large)


def remember(key: ModelKey | None, large: tuple[str, ...], reader: Any, infos: bytes
             ) -> None:
    """Keep the typing ``reader`` made of a model, whose value infos were written as
    ``infos`` (serialized as a GraphProto's), under ``key`` (unless None, or the typing
    read external data, or too much of the ``large`` initializers' data: those read are
    kept with it)."""
    if key is None or reader.tensors.files:
        return
    unread, initializers = reader.unread, None
    read = []
    for name in large:
        if name not in unread:
            if initializers is None:
                initializers = {t.name: t for t in reader.proto.initializer}
            read.append((name, initializers[name].SerializeToString()))
    if sum(len(data) for _, data in read) > MAX_READ:
        return
    types = reader.types
    outputs = tuple((k, types[o.name]) for k, o in enumerate(reader.proto.output)
                    if o.name in types)
    size = len(infos) + sum(map(len, key.nodes)) + sum(map(len, key.small)) + \
        sum(len(data) for _, data in read)
    if size > MODELS_BYTES // 4:
        return
    if len(MODELS) >= MODELS_SIZE or _held[0] + size > MODELS_BYTES:
        MODELS.clear()
        _held[0] = 0
    MODELS[key] = Remembered(outputs, infos, tuple(read), size)
    _held[0] += size


def found(key: ModelKey | None, reader: Any) -> Remembered | None:
    """The typing remembered under ``key`` (None: none) whose large initializers read
    hold the same data in the model ``reader`` read the sources of."""
    typed = MODELS.get(key) if key is not None else None
    if typed is None or not typed.read:
        return typed
    unread = reader.unread
    for name, data in typed.read:
        if unread[name].SerializeToString() != data:
            return None
    return typed


def restore(found: Remembered, out: onnx.ModelProto, type_bytes: Any) -> None:
    """Write a remembered typing into ``out`` (a copy of the model): its outputs' types
    (``type_bytes(t)``: the TypeProto of a type, serialized) and its value infos."""
    graph = out.graph
    for k, t in found.outputs:
        graph.output[k].type.ParseFromString(type_bytes(t))
    graph.ClearField("value_info")
    graph.MergeFromString(found.infos)

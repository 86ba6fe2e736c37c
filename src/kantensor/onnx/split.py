"""A model's nodes and graph inputs serialized, cut from one serialization of the whole
model by protobuf's own parser (issue 37).

``infer_shapes`` keys each node by its bytes (:mod:`.nodecache`, :mod:`.modelmemo`) and
reads each graph input's type from its bytes (:func:`.protos.tensor_types`); serializing
each one by itself costs a method call and an encoder's set-up per value (1,650
instructions a node), and copying the model for the result (``CopyFrom``) costs more
than parsing its bytes again. So a model whose initializers hold little data (see
:func:`small_data`) is serialized once, and those bytes parsed as a message of the
model's ``graph`` field whose ``node`` and ``input`` fields are declared ``bytes``
(:data:`_CUT`, a message of this module's own descriptor): protobuf's parser cuts each
node's and each input's bytes out in C, and the same bytes, parsed as a ModelProto, are
the result's copy (:func:`copied`).

A message's bytes inside its parent are the bytes it serializes to alone (protobuf
writes a submessage by the same encoder, its length before it), so each node's bytes
are the ones ``SerializeToString`` gives it (``tests/test_onnx_split.py`` compares them
for every node and input of the models it reads).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import Any

import onnx
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["CUT_ELEMENTS", "Names", "copied", "cut", "names", "small_data"]

#: The most elements a model's initializers may hold together for the model to be
#: serialized whole (its initializers' data is copied once more than ``CopyFrom`` copies
#: it: an extra pass worth it only while the data is small beside the nodes).
CUT_ELEMENTS = 1 << 16

_STRING = onnx.TensorProto.STRING  # (an element of any length: not counted by elements)


def _number(message: Any, name: str) -> int:
    return message.DESCRIPTOR.fields_by_name[name].number


def _message() -> type:
    """The class of a ModelProto read as its ``graph`` field alone, that graph's
    ``node`` and ``input`` fields as repeated ``bytes`` (every other field unknown)."""
    made = descriptor_pb2.FileDescriptorProto(name="kantensor_onnx_split.proto",
                                              package="kantensor_onnx_split", syntax="proto2")
    graph = made.message_type.add(name="Graph")
    for name in ("node", "input"):
        graph.field.add(name=name, number=_number(onnx.GraphProto, name),
                        type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
                        label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    model = made.message_type.add(name="Model")
    model.field.add(name="graph", number=_number(onnx.ModelProto, "graph"),
                    type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                    type_name=".kantensor_onnx_split.Graph",
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()  # (its own pool: no name of onnx's or a user's)
    pool.Add(made)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "kantensor_onnx_split.Model"))


_CUT = _message()


def _flat() -> type:
    """The class of a ModelProto read as its graph's nodes merged into one message (its
    ``node`` field declared singular: protobuf merges each occurrence into the one
    before, appending their repeated fields), of fields ``input``, ``output`` and
    ``op_type`` (declared repeated: one entry per node that states one), every other
    field unknown."""
    made = descriptor_pb2.FileDescriptorProto(name="kantensor_onnx_names.proto",
                                              package="kantensor_onnx_names", syntax="proto2")
    node = made.message_type.add(name="Node")
    for name in ("input", "output", "op_type"):
        node.field.add(name=name, number=_number(onnx.NodeProto, name),
                       type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                       label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    for message, name, kind in (("Graph", "node", "Node"), ("Model", "graph", "Graph")):
        made.message_type.add(name=message).field.add(
            name=name, number=_number(onnx.GraphProto if message == "Graph" else
                                      onnx.ModelProto, name),
            type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
            type_name=f".kantensor_onnx_names.{kind}",
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(made)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "kantensor_onnx_names.Model"))


_FLAT = _flat()
_INPUT = _number(onnx.NodeProto, "input") << 3 | 2  # (their keys: one byte each)
_OUTPUT = _number(onnx.NodeProto, "output") << 3 | 2


class Names:
    """The op type, inputs and outputs of every node of a graph, read at once
    (:func:`names`): node ``k``'s op type ``op_types[k]``, its inputs
    ``inputs[starts[k]:starts[k + 1]]``, its outputs ``outputs[ends[k]:ends[k + 1]]``."""

    __slots__ = ("ends", "inputs", "op_types", "outputs", "starts")

    def __init__(self, op_types: list[str], inputs: list[str], outputs: list[str],
                 starts: list[int], ends: list[int]):
        self.op_types, self.inputs, self.outputs = op_types, inputs, outputs
        self.starts, self.ends = starts, ends


def names(whole: bytes, nodes: list[bytes]) -> Names | None:
    """The op types, inputs and outputs of the nodes of the model serialized as
    ``whole`` (its nodes serialized as ``nodes``, by :func:`cut`), read by one parse
    (:data:`_FLAT`: all nodes' inputs in one list, in order, their outputs in another);
    None where they are not read so.

    Which of them are node k's is found from its bytes: its leading fields keyed as
    inputs (each key and length one byte), then those keyed as outputs, counted by
    walking the fields (so each count is at most the node's own); where the counts add
    up to the lists' lengths, each is the node's own (a node's fields in any other order
    would leave some uncounted, and nothing is read so). A node states its op type once
    at most, so as many op types as nodes are one each."""
    flat = _FLAT.FromString(whole).graph.node
    if len(flat.op_type) != len(nodes):
        return None
    starts, ends = [0], [0]
    k = o = 0
    for data in nodes:
        i, end = 0, len(data) - 1  # (a key and a length: two bytes at least)
        while i < end and data[i] == _INPUT and data[i + 1] < 0x80:
            i += data[i + 1] + 2
            k += 1
        while i < end and data[i] == _OUTPUT and data[i + 1] < 0x80:
            i += data[i + 1] + 2
            o += 1
        starts.append(k)
        ends.append(o)
    inputs, outputs, op_types = flat.input[:], flat.output[:], flat.op_type[:]
    if k != len(inputs) or o != len(outputs) or not _TEXT.issuperset(map(type, chain(
            inputs, outputs, op_types))):  # (protobuf gives a name not UTF-8 as bytes)
        return None
    return Names(op_types, inputs, outputs, starts, ends)


_TEXT = frozenset((str,))


def small_data(model: onnx.ModelProto, headers: Sequence[tuple[int, Sequence[int]]]) -> bool:
    """Whether ``model``, whose graph's initializers have the headers ``headers``
    ((element type, dims) each), holds little enough data to be serialized whole: at
    most :data:`CUT_ELEMENTS` elements in its initializers, none of strings, no sparse
    initializer and no training information (which holds initializers of its own)."""
    total = 0
    for dtype, dims in headers:
        if dtype == _STRING:
            return False
        total += math.prod(dims)
    return total <= CUT_ELEMENTS and not model.graph.sparse_initializer and \
        not model.training_info


def cut(model: onnx.ModelProto, nodes: int, inputs: int
        ) -> tuple[bytes, list[bytes], list[bytes]] | None:
    """``model`` serialized, and its graph's ``nodes`` nodes and ``inputs`` inputs each
    serialized, cut from those bytes; None where it is not serialized so (protobuf
    refuses it, or the counts are not the graph's)."""
    try:
        whole = model.SerializeToString()
    except Exception:  # (protobuf's EncodeError and the like: each one serialized alone)
        return None
    graph = _CUT.FromString(whole).graph
    found, given = list(graph.node), list(graph.input)
    if len(found) != nodes or len(given) != inputs:
        return None
    return whole, found, given


def copied(whole: bytes) -> onnx.ModelProto:
    """The model serialized as ``whole`` (by :func:`cut`), parsed: a copy of it (a parse
    costs less than ``CopyFrom``)."""
    out = onnx.ModelProto()
    out.ParseFromString(whole)
    return out

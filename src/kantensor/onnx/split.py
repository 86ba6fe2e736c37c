"""A model's nodes serialized and its graph inputs' names and types, cut from one
serialization of the whole model by protobuf's own parser (issue 37).

``infer_shapes`` keys each node by its bytes (:mod:`.nodecache`, :mod:`.modelmemo`) and
reads each graph input's type from its bytes (:func:`.typebytes.held_types`); serializing
each one by itself costs a method call and an encoder's set-up per value (1,650
instructions a node), and copying the model for the result (``CopyFrom``) costs more
than parsing its bytes again. So a model whose initializers hold little data (see
:func:`small_data`) is serialized once, and those bytes parsed as a message of the
model's ``graph`` field whose ``node`` field is declared ``bytes`` and whose ``input``
field is declared one message of repeated names and types (:data:`_CUT`, a message of
this module's own descriptor): protobuf's parser cuts each node's bytes out and lists
the inputs' names and their types' bytes, in C (an input's object and its name cost
about 2,000 instructions read through protobuf), and the same bytes, parsed as a
ModelProto, are the result's copy (:func:`copied`).

A message's bytes inside its parent are the bytes it serializes to alone (protobuf
writes a submessage by the same encoder, its length before it), so each node's bytes
are the ones ``SerializeToString`` gives it, and each input's type's bytes those its
``type`` serializes to (``tests/test_onnx_split.py`` compares them for every node and
input of the models it reads).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import onnx
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .wire import field_number

__all__ = ["CUT_ELEMENTS", "copied", "cut", "small_data"]

#: The most elements a model's initializers may hold together for the model to be
#: serialized whole (its initializers' data is copied once more than ``CopyFrom`` copies
#: it: an extra pass worth it only while the data is small beside the nodes).
CUT_ELEMENTS = 1 << 16

_STRING = onnx.TensorProto.STRING  # (an element of any length: not counted by elements)


def _message() -> type:
    """The class of a ModelProto read as its ``graph`` field alone, that graph's ``node``
    field as repeated ``bytes`` and its ``input`` field as one message (:data:`_INPUTS`)
    whose ``name`` and ``type`` fields are repeated (``bytes`` for the type): protobuf
    merges the occurrences of a singular message field, so every input's name is
    appended to one list and every input's type to another, in the inputs' order (every
    other field unknown)."""
    made = descriptor_pb2.FileDescriptorProto(name="kantensor_onnx_split.proto",
                                              package="kantensor_onnx_split", syntax="proto2")
    field = descriptor_pb2.FieldDescriptorProto
    inputs = made.message_type.add(name="Inputs")
    inputs.field.add(name="name", number=field_number(onnx.ValueInfoProto, "name"),
                     type=field.TYPE_STRING, label=field.LABEL_REPEATED)
    inputs.field.add(name="type", number=field_number(onnx.ValueInfoProto, "type"),
                     type=field.TYPE_BYTES, label=field.LABEL_REPEATED)
    graph = made.message_type.add(name="Graph")
    graph.field.add(name="node", number=field_number(onnx.GraphProto, "node"),
                    type=field.TYPE_BYTES, label=field.LABEL_REPEATED)
    graph.field.add(name="input", number=field_number(onnx.GraphProto, "input"),
                    type=field.TYPE_MESSAGE, type_name=".kantensor_onnx_split.Inputs",
                    label=field.LABEL_OPTIONAL)
    model = made.message_type.add(name="Model")
    model.field.add(name="graph", number=field_number(onnx.ModelProto, "graph"),
                    type=field.TYPE_MESSAGE, type_name=".kantensor_onnx_split.Graph",
                    label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()  # (its own pool: no name of onnx's or a user's)
    pool.Add(made)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "kantensor_onnx_split.Model"))


_CUT = _message()
#: the class of the graph's inputs read together, made now (else a first call's first
#: read of a graph's inputs makes it: 78,000 instructions; the Graph's class, as before
#: these were read so, is made by the first read of a graph), and kept
_INPUTS = message_factory.GetMessageClass(
    _CUT.DESCRIPTOR.fields_by_name["graph"].message_type.fields_by_name["input"].message_type)


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
        ) -> tuple[bytes, list[bytes], tuple[list[str], list[bytes]] | None] | None:
    """``model`` serialized, its graph's ``nodes`` nodes each serialized, cut from those
    bytes, and the names and the types (each a TypeProto serialized) of its ``inputs``
    graph inputs read from them (None where an input states no name or no type: as
    many names and types as inputs are one each, a serialized message stating each
    field once at most); None where it is not serialized so (protobuf refuses it, or the
    count of nodes is not the graph's). A name that is not UTF-8 is its bytes, as
    protobuf reads an input's ``name``."""
    try:
        whole = model.SerializeToString()
    except Exception:  # (protobuf's EncodeError and the like: each one serialized alone)
        return None
    graph = _CUT.FromString(whole).graph
    found = list(graph.node)
    if len(found) != nodes:
        return None
    given = graph.input
    names, types = given.name[:], given.type[:]
    return whole, found, (names, types) if len(names) == len(types) == inputs else None


def copied(whole: bytes) -> onnx.ModelProto:
    """The model serialized as ``whole`` (by :func:`cut`), parsed: a copy of it (a parse
    costs less than ``CopyFrom``)."""
    out = onnx.ModelProto()
    out.ParseFromString(whole)
    return out

"""The input and output names of many nodes read at once from their bytes (issue 37): a
first-seen node typed by its op type's last template (:func:`.repeats.first_typed`)
reads its names, and protobuf makes a container per field per node (``input[:]`` and
``output``: about a tenth of a first call of a model of blocks that all differ).

The nodes' bytes joined are one NodeProto's bytes (protobuf merges the messages it
parses one after the other: repeated fields append), parsed as a message of this
module's own descriptor holding only the ``input`` and ``output`` fields: protobuf's
parser lists every node's names, in order, in C. Which names are whose is counted by
NumPy: where every byte of a node is ASCII (as of the nodes first_typed reads: a node
of attributes is not, each attribute's type a key of two bytes), each field's key and
length is one byte, so the fields of every such node are walked together, one field of
each per step, its key read (its field number and wire type). The names are then
exactly the ones protobuf's reading of each node gives (a name is text: ASCII); other
nodes are not read so, and a node of another wire type at its top level, more than
:data:`FIELDS` fields, or counts not protobuf's leaves the whole list unread (None:
each node read by protobuf as before). ``tests/test_onnx_nodenames.py`` compares
them with protobuf's reading of nodes of every field layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, pairwise

import numpy as np
import onnx
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["FIELDS", "NAMES_AT", "names_of"]

#: The most top-level fields a node may have for the nodes to be read so (inputs,
#: outputs, name, op type, domain, attributes ...).
FIELDS = 256

#: The fewest nodes read so (below, a model's set-up costs more than it saves).
NAMES_AT = 256

_INPUT = onnx.NodeProto.DESCRIPTOR.fields_by_name["input"].number
_OUTPUT = onnx.NodeProto.DESCRIPTOR.fields_by_name["output"].number
_LENGTH_DELIMITED = 2  # (the wire type of a string or message field)


def _message() -> type:
    """The class of a NodeProto read as its ``input`` and ``output`` fields, its other
    fields repeated ``bytes`` (length-delimited all: every occurrence kept, none read)."""
    made = descriptor_pb2.FileDescriptorProto(name="kantensor_onnx_nodenames.proto",
                                              package="kantensor_onnx_nodenames",
                                              syntax="proto2")
    field = descriptor_pb2.FieldDescriptorProto
    names = made.message_type.add(name="Names")
    names.field.add(name="input", number=_INPUT, type=field.TYPE_STRING,
                    label=field.LABEL_REPEATED)
    names.field.add(name="output", number=_OUTPUT, type=field.TYPE_STRING,
                    label=field.LABEL_REPEATED)
    for other in onnx.NodeProto.DESCRIPTOR.fields:  # (known: parsed faster than unknown)
        if other.number not in (_INPUT, _OUTPUT):
            names.field.add(name=other.name, number=other.number, type=field.TYPE_BYTES,
                            label=field.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()  # (its own pool: no name of onnx's or a user's)
    pool.Add(made)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "kantensor_onnx_nodenames.Names"))


_NAMES = _message()
_INPUT_KEY = _INPUT << 3 | _LENGTH_DELIMITED
_OUTPUT_KEY = _OUTPUT << 3 | _LENGTH_DELIMITED


def _counts(joined: bytes, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The count of input and of output fields of each node of ``lengths`` bytes in
    ``joined`` (all ASCII), or None where a node's fields are not all length-delimited,
    more than :data:`FIELDS`, or not ending at its end. (Each step moves every node not
    ended yet past one field; the checks are made once, over every field.)"""
    data = np.frombuffer(joined + b"\0\0", np.uint8)  # (a key at a node's last byte
    # reads the next byte as its length: counted past the node's end, and refused)
    ends = np.cumsum(lengths)
    at, nodes, until = ends - lengths, np.arange(len(lengths)), ends
    places, owners = [], []
    for _ in range(FIELDS):
        going = at < until
        at, nodes, until = at[going], nodes[going], until[going]
        if not len(at):
            break
        places.append(at)
        owners.append(nodes)
        at = at + 2 + data[at + 1]
    else:
        return None
    count = len(lengths)
    if not places:  # (nodes of no field)
        return np.zeros(count, np.int64), np.zeros(count, np.int64)
    place, owner = np.concatenate(places), np.concatenate(owners)
    key = data[place]
    if ((key & 7) != _LENGTH_DELIMITED).any() or not np.array_equal(np.bincount(
            owner, weights=data[place + 1] + 2, minlength=count), lengths):
        return None
    return np.bincount(owner[key == _INPUT_KEY], minlength=count), \
        np.bincount(owner[key == _OUTPUT_KEY], minlength=count)


def names_of(serialized: Sequence[bytes]
             ) -> tuple[list[list[str] | None], list[str | None]] | None:
    """Per node of the nodes serialized as ``serialized``: its input names (a list, as
    ``input[:]`` gives them; None for a node not all ASCII, not read so) and its one
    output's name (None where it has not one, or is not read so); None where none is
    read so (see the module's doc)."""
    ascii = list(map(bytes.isascii, serialized))
    chosen = serialized if all(ascii) else list(compress(serialized, ascii))
    if not chosen:
        return None
    found = _names(chosen)
    if found is None or chosen is serialized:
        return found
    names, ones = iter(found[0]), iter(found[1])  # (the others' None, in their places)
    return [next(names) if a else None for a in ascii], \
        [next(ones) if a else None for a in ascii]


def _names(serialized: Sequence[bytes]) -> tuple[list, list] | None:
    """:func:`names_of` of nodes all ASCII."""
    joined = b"".join(serialized)
    lengths = np.fromiter(map(len, serialized), np.int64, len(serialized))
    counts = _counts(joined, lengths)
    if counts is None:
        return None
    inputs, outputs = counts
    try:
        merged = _NAMES.FromString(joined)
    except Exception:  # (protobuf's DecodeError: bytes it does not read as a node)
        return None
    given, wanted = merged.input[:], merged.output[:]
    if len(given) != int(inputs.sum()) or len(wanted) != int(outputs.sum()):
        return None
    at = np.concatenate(((0,), np.cumsum(inputs))).tolist()
    names = [given[a:b] for a, b in pairwise(at)]
    if (outputs == 1).all():
        return names, wanted
    at = np.concatenate(((0,), np.cumsum(outputs))).tolist()
    return names, [wanted[a] if b == a + 1 else None for a, b in pairwise(at)]

"""Many nodes' op types and names read at once from their bytes (issue 37): a first-seen
node typed by its op type's last template (:func:`.repeats.first_typed`) reads its op
type, inputs and output, and protobuf makes a Python object per node, a container per
field read and a string per name, each filed in and dropped from protobuf's object cache
(a tenth of a first call of a model of blocks that all differ, by CPU time: the cache's
lookups miss).

The nodes' bytes joined are one NodeProto's bytes (protobuf merges the messages it
parses one after the other: repeated fields append), parsed as a message of this
module's own descriptor holding the ``input``, ``output`` and ``op_type`` fields as
repeated strings: protobuf's parser lists every node's names and op types, in order, in
C. Which are whose is counted by NumPy: where every byte of a node is ASCII, each
field's key and length is one byte, so the fields of every such node are walked
together, one field of each per step, its key read (its field number and wire type).
The names are then exactly the ones protobuf's reading of each node gives (a name is
text: ASCII); other nodes are not read so, and a node of another wire type at its top
level, more than :data:`FIELDS` fields (or :data:`WALKED` on average: the walk's steps
bounded by the nodes' count), not one op type, or counts that do not add up to the
lists' leaves the whole list unread (None: each node read by protobuf as before).
``tests/test_onnx_nodenames.py`` compares them with protobuf's reading of nodes of
every field layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, pairwise

import numpy as np
import onnx
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .wire import LENGTH, key_byte

__all__ = ["FIELDS", "NAMES_AT", "WALKED", "Names", "names_of"]

#: The most top-level fields a node may have for the nodes to be read so (inputs,
#: outputs, name, op type, domain, attributes ...).
FIELDS = 256

#: The fewest nodes read so (below, its set-up costs more than it saves).
NAMES_AT = 256

#: The most fields the nodes read so may have each on average (a node of ASCII bytes
#: has no attribute onnx writes, whose type field's key is not ASCII: a handful): past
#: it, as past :data:`FIELDS`, protobuf reads them (the walk's steps kept a few times
#: the nodes' count, not :data:`FIELDS` times).
WALKED = 16

_READ = ("input", "output", "op_type")
_INPUT_KEY, _OUTPUT_KEY, _OP_TYPE_KEY = (key_byte(onnx.NodeProto, name) for name in _READ)


def _message() -> type:
    """The class of a NodeProto read as its ``input``, ``output`` and ``op_type`` fields
    (repeated strings: each occurrence appended), its other fields repeated ``bytes``
    (length-delimited all: every occurrence kept, none read)."""
    made = descriptor_pb2.FileDescriptorProto(name="kantensor_onnx_nodenames.proto",
                                              package="kantensor_onnx_nodenames",
                                              syntax="proto2")
    field = descriptor_pb2.FieldDescriptorProto
    names = made.message_type.add(name="Names")
    for other in onnx.NodeProto.DESCRIPTOR.fields:  # (known: parsed faster than unknown)
        names.field.add(name=other.name, number=other.number, type=field.TYPE_STRING if
                        other.name in _READ else field.TYPE_BYTES, label=field.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()  # (its own pool: no name of onnx's or a user's)
    pool.Add(made)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "kantensor_onnx_nodenames.Names"))


_NAMES = _message()


def _counts(joined: bytes, lengths: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """The count of input, output and op type fields of each node of ``lengths`` bytes in
    ``joined`` (all ASCII), or None where a node's fields are not all length-delimited,
    more than :data:`FIELDS`, or not ending at its end, or where the nodes have more than
    :data:`WALKED` fields each on average (the walk bounded: left to protobuf)."""
    data = np.frombuffer(joined, np.uint8)
    count = len(lengths)
    inputs = np.zeros(count, np.int64)
    outputs = np.zeros(count, np.int64)
    ops = np.zeros(count, np.int64)
    ends = np.cumsum(lengths)
    at = ends - lengths
    nodes = np.arange(count)
    budget = WALKED * count + FIELDS
    for _ in range(FIELDS):  # (only the nodes not yet walked to their end: compacted)
        left = at < ends
        if not left.all():
            at, ends, nodes = at[left], ends[left], nodes[left]
        if not len(nodes):
            return inputs, outputs, ops
        budget -= len(nodes)
        if budget < 0 or (at + 1 >= ends).any():
            return None  # (too many fields, or a key without its length)
        key = data[at]
        if ((key & 7) != LENGTH).any():
            return None
        inputs[nodes[key == _INPUT_KEY]] += 1
        outputs[nodes[key == _OUTPUT_KEY]] += 1
        ops[nodes[key == _OP_TYPE_KEY]] += 1
        at = at + 2 + data[at + 1]
        if (at > ends).any():
            return None
    return None


#: What :func:`names_of` reads of many nodes: per node its op type (None: not read so),
#: the input names of every node in one list, where each node's begin (``starts[k]`` to
#: ``starts[k + 1]``), and per node its one output's name (None where it has not one)
Names = tuple[list[str | None], list[str], list[int], list[str | None]]


def names_of(serialized: Sequence[bytes]) -> Names | None:
    """The op types and names of the nodes serialized as ``serialized``, as protobuf reads
    them (see :data:`Names`; a node's inputs, ``names[starts[k]:starts[k + 1]]``, are its
    ``input[:]``); a node not all ASCII is not read so (its op type None, no input, no
    output); None where none is read so (see the module's doc). ``serialized`` must be
    nodes protobuf has parsed already (a graph's): their nested messages (attributes...)
    are not read here, so some bytes protobuf refuses as a node (an attribute field
    holding no AttributeProto) are read so all the same."""
    if not serialized:
        return None
    joined = b"".join(serialized)
    if joined.isascii():  # (most often every node: checked once, in C)
        return _names(serialized, joined)
    ascii = list(map(bytes.isascii, serialized))
    chosen = list(compress(serialized, ascii))
    if not chosen:
        return None
    found = _names(chosen, b"".join(chosen))
    if found is None:
        return found
    op_types, given, starts, wanted = found  # (the others' None, in their places)
    ops, ones, begins = iter(op_types), iter(wanted), iter(starts)
    at = next(begins)
    every_start = [at]
    for a in ascii:
        if a:
            at = next(begins)
        every_start.append(at)
    return [next(ops) if a else None for a in ascii], given, every_start, \
        [next(ones) if a else None for a in ascii]


def _names(serialized: Sequence[bytes], joined: bytes) -> Names | None:
    """:func:`names_of` of nodes all ASCII (``joined``: their bytes joined)."""
    lengths = np.fromiter(map(len, serialized), np.int64, len(serialized))
    counts = _counts(joined, lengths)
    if counts is None:
        return None
    inputs, outputs, ops = counts
    if not (ops == 1).all():  # (a node of no op type, or of two: protobuf's last)
        return None
    try:
        merged = _NAMES.FromString(joined)
    except Exception:  # (protobuf's DecodeError: bytes it does not read as a node)
        return None
    given, wanted, op_types = merged.input[:], merged.output[:], merged.op_type[:]
    if len(given) != int(inputs.sum()) or len(wanted) != int(outputs.sum()) or \
            len(op_types) != len(serialized):
        return None
    starts = np.concatenate(((0,), np.cumsum(inputs))).tolist()
    if not (outputs == 1).all():
        at = np.concatenate(((0,), np.cumsum(outputs))).tolist()
        wanted = [wanted[a] if b == a + 1 else None for a, b in pairwise(at)]
    return op_types, given, starts, wanted

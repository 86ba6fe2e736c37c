"""A node's proto read once per content: its op type, domain, input and output names and
the memo key of its attributes, decoded from the node's serialized bytes the first time
they are met and found by those bytes afterwards (serializing a node costs a third of
reading its fields one by one through protobuf, and the repeated layers of a model, or a
model typed again, hold the same nodes). The bytes are the whole node, so a record is
exact for every node that finds it; nodes larger than :data:`MAX_NODE` bytes are read
field by field each time.

A Constant node's record also keeps its type and value once read (by the importer, when
it reads types only): the value is made read-only, as every model holding that node
shares it. :data:`CONSTANTS` keeps them by the bytes of the Constant's fields past its
output and name too: an exported model repeats a few values in hundreds of Constant
nodes, each naming its output anew (GPT-2 exported by TorchScript: 205 Constants, 24
values), so each value is read once, and a Constant met after the first of its value is
written from it without a record (:func:`shared_constant`).
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import onnx

from .loading import texts
from .wire import field_number, key_byte, read_varint

__all__ = ["CONSTANTS", "MAX_NODE", "NODES", "NO_INPUT", "ONCE", "SEEN", "SHARED", "NodeRecord",
           "ATTRIBUTE", "DOMAIN", "again", "attributes_of", "constant_key", "keep_constant",
           "new_record", "record", "seen_all", "shared_constant"]

_UNREAD: Any = object()  # a record's attributes not serialized yet

#: serialized NodeProto -> its record (or :data:`SEEN`); emptied when it holds NODES_SIZE
#: records or keys of NODES_BYTES bytes in all
NODES: dict[bytes, Any] = {}
NODES_SIZE = 1 << 15
NODES_BYTES = 1 << 24
_held = [0]  # the bytes of NODES' keys

#: The slot of a record typed once (by its memo key): its slot is made when it is typed
#: so again. Most records of a model typed once are never met again (a model of blocks
#: that all differ), and making their slots cost a fifth of such a first call. (The
#: importer marks a record's first typing itself, without calling :func:`.nodeslot.keep`, and
#: calls :func:`.nodeslot.slotted` only for a record that has a slot: a first call meets every
#: record once.)
ONCE: tuple = (None,) * 7

#: In :data:`NODES` in place of the record of a node typed once by the template of its op
#: type's last node (:func:`.repeats.first_typed`), whose record was not made: that record
#: would only be read when the node is met again, where it is made (:func:`again`) with
#: the slot it would have then (:data:`ONCE`). A first call of a model of blocks that all
#: differ so makes no record object per node (and the cycle collector's pass after it
#: walks none, nor its two tuples of names).
SEEN: Any = object()

#: A node whose proto takes more bytes than this is not kept (a Constant holding a weight).
MAX_NODE = 1 << 12

#: A node whose attributes take more bytes than this is not remembered by the node memo.
MAX_ATTRIBUTES = 1 << 12

#: A Constant's (type, value, value key, node slot token: None when its value is too
#: large for a key) by the bytes of its fields past its output and name
#: (:func:`constant_key`); emptied when it holds CONSTANTS_SIZE (each key at most
#: MAX_ATTRIBUTES bytes).
CONSTANTS: dict[bytes, tuple[Any, Any, Any, Any]] = {}
CONSTANTS_SIZE = 1 << 9

#: A Constant node written by :func:`shared_constant` (it has no record), by its bytes:
#: its output's name and its key in :data:`CONSTANTS`, so that a model read again finds
#: it by one lookup, as a node with a record is found, instead of decoding its bytes
#: again (GPT-2's TorchScript export: 181 such Constants in every node-by-node reading).
#: Its value is read from CONSTANTS each time (the one home of a key's value). Emptied
#: when it holds CONSTANTS_SIZE * 8 (each node at most MAX_NODE bytes).
SHARED: dict[bytes, tuple[str, bytes]] = {}

_TENSOR = onnx.AttributeProto.TENSOR
_EXTERNAL = onnx.TensorProto.EXTERNAL


#: the key of a node's attribute and domain fields: a node whose bytes hold no such byte
#: has no such field (not read through protobuf)
ATTRIBUTE = key_byte(onnx.NodeProto, "attribute")
DOMAIN = key_byte(onnx.NodeProto, "domain")
# the fields a Constant's key leaves out (:func:`constant_key`)
_INPUT = key_byte(onnx.NodeProto, "input")
_OUTPUT = key_byte(onnx.NodeProto, "output")
_NAME = key_byte(onnx.NodeProto, "name")
#: the first byte of a node with no input and an output (a Constant's)
NO_INPUT = _OUTPUT

#: a TensorProto's ``data_location`` set to EXTERNAL, as protobuf writes it (a key of one
#: byte, a varint of one): bytes holding it nowhere hold no tensor of external data
_EXTERNAL_BYTES = bytes([field_number(onnx.TensorProto, "data_location") << 3,
                         onnx.TensorProto.EXTERNAL])


class NodeRecord:
    """What typing reads of a node's proto, read once: ``op_type``, ``domain``, ``names``
    (its inputs, ``""`` for an absent one), ``wanted`` (its outputs), ``attributes``
    (:meth:`attribute_key`), ``kept`` (found by its bytes: shared across models),
    ``constant`` (a Constant's (type, value, value key, node slot token), set by its
    first reader), ``literal`` (whether it is a Constant of the default domain: ONNX's
    own way to give a value inside a graph, as an initializer does outside it, which no
    catalogue entry types: a fact of the format, read here with the proto), ``slot``
    (its last typing: :mod:`.nodeslot`) and ``plan`` (what the reader does with that
    typing when it only writes it: :class:`.nodeslot.Plan`), made from ``later`` (a
    :class:`.nodeslot.Later`) when the record is met again; ``call``, its entry's call
    as its last build bound it (:meth:`.building.Building.build`)."""

    __slots__ = ("attributes", "call", "constant", "domain", "kept", "literal", "names",
                 "op_type", "later", "plan", "slot", "wanted")

    def __init__(self, node: onnx.NodeProto, kept: bool, data: bytes | None = None,
                 parts: tuple | None = None):
        """The record of ``node``, serialized as ``data`` when given (a field whose key's
        byte is nowhere in the bytes is absent: most nodes have no domain, many no
        attribute, and asking protobuf costs more than looking; a node whose bytes are
        all ASCII has only text for names, which protobuf gives as str). Its names are
        protobuf's: reading them from the bytes in Python (a loop over the fields) cost
        3,000 instructions a record more than protobuf's containers and slices
        (callgrind, onnx_distinct.py's 3,000 nodes: 14,200 against 11,000 a record).
        ``parts``: what :func:`.repeats.first_typed` read of the node (its bytes all ASCII) when
        read so already."""
        self.attributes: tuple[bytes, ...] | None
        if parts is not None:
            self.op_type, self.domain, self.names, self.wanted, self.attributes = parts
        else:
            self.op_type = node.op_type
            self.domain = "" if data is not None and DOMAIN not in data else node.domain
            self.names = tuple(node.input[:])  # (a slice reads faster than list())
            self.wanted = tuple(node.output[:])
            if data is None or not data.isascii():  # (every name in ASCII bytes is text)
                texts((self.op_type, self.domain, node.name, *self.names, *self.wanted),
                      lambda: f"a {self.op_type} node" if type(self.op_type) is str else
                      "a node")
            self.attributes = () if data is not None and ATTRIBUTE not in data else \
                _UNREAD if node.attribute else ()
        self.kept = kept
        self.literal = self.op_type == "Constant" and self.domain in ("", "ai.onnx")
        self.constant: tuple[Any, Any, Any, Any] | None = None
        self.slot: tuple | None = None
        self.plan: Any = None
        self.later: Any = None
        self.call: tuple | None = None

    def attribute_key(self, node: onnx.NodeProto) -> tuple[bytes, ...] | None:
        """The node memo's key of the attributes of ``node`` (this record's node): each
        serialized (made at the first call); None when the node is not to be remembered:
        large attributes, or a tensor attribute whose data is external, and so depends on
        the model's folder."""
        if self.attributes is _UNREAD:
            self.attributes = attributes_of(node)
        return self.attributes


def attributes_of(node: onnx.NodeProto) -> tuple[bytes, ...] | None:
    attributes = []
    size = 0
    for a in node.attribute:
        if a.type == _TENSOR and a.t.data_location == _EXTERNAL:
            return None  # (external data is checked against each model's folder)
        data = a.SerializeToString()
        size += len(data)
        attributes.append(data)
    return None if size > MAX_ATTRIBUTES else tuple(attributes)


def record(node: onnx.NodeProto, data: bytes | None = None) -> NodeRecord:
    """The record of ``node`` (serialized as ``data`` when given): found by its bytes
    when met before, else read (and kept when the node is small)."""
    if data is None:
        data = node.SerializeToString()
    found = NODES.get(data) if len(data) <= MAX_NODE else None  # (a large one: not hashed)
    return new_record(node, data) if found is None else again(node, data) \
        if found is SEEN else found


def new_record(node: onnx.NodeProto, data: bytes, parts: tuple | None = None
               ) -> NodeRecord:
    """The record of ``node``, serialized as ``data``, which :data:`NODES` does not hold:
    read (``parts``: as :func:`.repeats.first_typed` read it, when it did), and kept when the node
    is small."""
    if len(data) > MAX_NODE:
        return NodeRecord(node, False, data, parts)
    made = NodeRecord(node, True, data, parts)
    _keep(data, made)
    return made


def _keep(data: bytes, made: Any) -> None:
    if len(NODES) >= NODES_SIZE or _held[0] + len(data) > NODES_BYTES:
        NODES.clear()
        _held[0] = 0
    NODES[data] = made
    _held[0] += len(data)


def seen_all(datas: list[bytes]) -> None:
    """Note that the nodes serialized as ``datas`` (all ASCII, none held by :data:`NODES`
    nor twice in ``datas``: each met once, in a reading of a model) were typed once
    without their records (:data:`SEEN`), but for the large ones, at once: filed by one
    ``update`` when they fit beside what :data:`NODES` holds, else after emptying it,
    as many of the last as fit (as filing them one by one, emptied when full, would
    keep). (Once per reading, not per node: a first call of a model of blocks that all
    differ met most of its nodes so.)"""
    sizes = list(map(len, datas))  # (most often none is large: counted in C)
    if max(sizes, default=0) <= MAX_NODE:
        small, n = datas, sum(sizes)
    else:
        small = [d for d in datas if len(d) <= MAX_NODE]
        n = sum(map(len, small))
    if len(NODES) + len(small) > NODES_SIZE or _held[0] + n > NODES_BYTES:
        NODES.clear()
        _held[0] = 0
        k, n = len(small), 0  # the last ones that fit, alone
        while k and len(small) - k < NODES_SIZE and n + len(small[k - 1]) <= NODES_BYTES:
            k -= 1
            n += len(small[k])
        small = small[k:]
    NODES.update(zip(small, repeat(SEEN)))  # (pairs: no dict made between)
    _held[0] += n


def again(node: onnx.NodeProto, data: bytes) -> NodeRecord:
    """The record of ``node`` (serialized as ``data``), which :data:`NODES` holds as
    :data:`SEEN`: made now, with the slot of a record typed once (:data:`ONCE`), in its
    place."""
    made = NODES[data] = NodeRecord(node, True, data)
    made.slot = ONCE
    return made


def _constant_parts(data: bytes) -> tuple[bytes, int] | None:
    """The one output name of a node serialized as ``data``, and where the fields past
    its outputs and name begin, when its first fields are that one output (no input) and
    its name, as protobuf writes a parsed node (fields in the order of their numbers);
    else None."""
    output = None
    i, end = 0, len(data)
    try:
        while i < end:
            key = data[i]
            if key != _OUTPUT and key != _NAME:  # (an input, or a field past them)
                if key == _INPUT:
                    return None
                break
            n = data[i + 1]
            if n < 0x80:
                i += 2
            else:
                n, i = read_varint(data, i + 1)
            if key == _OUTPUT:
                if output is not None:
                    return None
                output = data[i:i + n]
            i += n
    except (IndexError, ValueError):
        return None
    return (output, i) if output is not None and i < end else None


def _key_of(data: bytes, start: int, node: onnx.NodeProto | None) -> bytes | None:
    """The bytes of ``data`` from ``start`` (:func:`_constant_parts`) as a Constant's key in
    :data:`CONSTANTS`, or None when they are too many or may hold a tensor of external data
    (which depends on the model's folder: protobuf says whether ``node``'s attributes do;
    without ``node``, None)."""
    if len(data) - start > MAX_ATTRIBUTES:
        return None
    key = data[start:]
    if _EXTERNAL_BYTES in key and (node is None or attributes_of(node) is None):
        return None
    return key


def constant_key(rec: NodeRecord, node: onnx.NodeProto) -> bytes | None:
    """The key of a Constant node's value in :data:`CONSTANTS`: the bytes of its fields
    past its output and name (its op type, domain and attributes: its value is read from
    its attributes alone, and these bytes hold every one of them), None when the node is
    not a well-formed Constant (no input, one output: its reader says what is wrong), its
    fields are not laid out as protobuf writes them, or its attributes are not to be
    remembered (:func:`_key_of`)."""
    if rec.names or len(rec.wanted) != 1:
        return None
    data = node.SerializeToString()
    parts = _constant_parts(data)
    return _key_of(data, parts[1], node) if parts is not None else None


def shared_constant(data: bytes, node: onnx.NodeProto
                    ) -> tuple[str, tuple[Any, Any, Any, Any]] | None:
    """For a node serialized as ``data`` (``node``): its output's name and the (type,
    value, value key, token) :data:`CONSTANTS` holds for it, when it is a Constant whose
    value was read before (its key found: the node read then had no input and one
    output, so this one has none past its first fields either), without reading its
    record: an exported model names hundreds of Constants of a few values. Else None.
    A node written so is found by its bytes in :data:`SHARED` when met again. (Written
    for speed: it runs for every node not met before in a model read node by node.)"""
    if not CONSTANTS:
        return None
    seen = SHARED.get(data)
    if seen is not None:
        found = CONSTANTS.get(seen[1])
        return (seen[0], found) if found is not None else None
    parts = _constant_parts(data)
    if parts is None:
        return None
    output, start = parts
    key = _key_of(data, start, node)
    found = CONSTANTS.get(key) if key is not None else None
    if found is None or not output or not output.isascii():
        return None
    name = output.decode()
    if len(data) <= MAX_NODE:
        if len(SHARED) >= CONSTANTS_SIZE * 8:
            SHARED.clear()
        SHARED[data] = name, key
    return name, found


def keep_constant(key: bytes, found: tuple[Any, Any, Any, Any]) -> None:
    """Keep a Constant's (type, value, value key, token), its value read-only, under
    ``key`` (:func:`constant_key`)."""
    if len(CONSTANTS) >= CONSTANTS_SIZE:
        CONSTANTS.clear()
    CONSTANTS[key] = found

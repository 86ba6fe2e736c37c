"""The protobuf wire format, for the few places where the importer reads or writes a
message's bytes itself rather than through protobuf's objects: bulk writes (every value
info of a model as one blob that protobuf parses at once) and reads of messages whose
fields, read one by one through protobuf, cost more than their bytes do. Readers here
are for hostile bytes: every length is checked against the end of the message."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["BYTE", "LENGTH", "field", "field_number", "fields", "key_byte", "read_varint",
           "tag", "varint"]

#: The wire type of a length-delimited field (a string, bytes, a message).
LENGTH = 2

#: The varint of each value below 128: one byte, the value itself (a length below 128,
#: for writers that put a field's parts together themselves).
BYTE = _BYTE = tuple(bytes([n]) for n in range(128))


def varint(value: int) -> bytes:
    """``value`` (>= 0) as a protobuf varint."""
    if value < 0x80:
        return _BYTE[value]
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_number(message: Any, name: str) -> int:
    """The number of the field ``name`` of the protobuf message class ``message`` (onnx's
    ``GraphProto``...), read from its descriptor: never written here by hand."""
    return message.DESCRIPTOR.fields_by_name[name].number


def key_byte(message: Any, name: str) -> int:
    """The key of the length-delimited field ``name`` of ``message``, one byte (an int:
    ``in`` bytes finds an int's byte several times faster than a bytes object's)."""
    number = field_number(message, name)
    assert number < 16  # (a key of one byte)
    return number << 3 | LENGTH


def tag(number: int, kind: int = LENGTH) -> bytes:
    """The key of field ``number`` of wire type ``kind``."""
    return varint(number << 3 | kind)


def field(key: bytes, body: bytes) -> bytes:
    """A length-delimited field of key ``key`` (:func:`tag`) holding ``body``."""
    n = len(body)
    return key + (_BYTE[n] if n < 0x80 else varint(n)) + body


def read_varint(data: bytes, i: int) -> tuple[int, int]:
    """The varint at ``data[i]`` and the index after it (IndexError past the end,
    ValueError for more than 10 bytes)."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise ValueError("a varint of more than 10 bytes")


def fields(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, start, end) of each field of the message in
    ``data[start:end]`` (ValueError for a group or a field past the end)."""
    i = start
    while i < end:
        key, i = read_varint(data, i)
        kind = key & 7
        if kind == 0:
            j = read_varint(data, i)[1]
        elif kind == LENGTH:
            n, i = read_varint(data, i)
            j = i + n
        elif kind in (1, 5):
            j = i + (8 if kind == 1 else 4)
        else:
            raise ValueError("a group")
        if j > end:
            raise ValueError("a field past the end")
        yield key >> 3, kind, i, j
        i = j

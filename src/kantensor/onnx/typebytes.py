"""ONNX value types read from their serialized bytes (a ValueInfoProto's, or a TypeProto's
alone) by the layouts protobuf writes, without making their protobuf objects: a tensor
type of a known element type and at most MAX_RANK dims, each a size, a name or unknown;
anything else None (:func:`.protos.proto_type` then reads the fields, and says what is
wrong). Written for speed: a graph's inputs are most of a first call's types."""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import compress, repeat
from operator import add, eq, getitem, itemgetter, mul, sub
from typing import Any

import numpy as np
import onnx

from ..types.dim import Dim
from ..types.type import TensorType, sized, sized_all
from .dtypes import DTYPES
from .loading import MAX_RANK
from .wire import LENGTH, fields, read_varint

__all__ = ["held_types", "tensor_types"]


@lru_cache(maxsize=1024)
def _dim_param(text: str) -> Dim | int | None:
    """A ``dim_param`` as a size: a name is the Dim of that name, an expression such as
    ``2*seq`` (as infer_shapes writes them) its Dim expression; a text kantensor cannot
    read as one size (blank, too long, not an expression) an unknown size."""
    try:
        if text.isidentifier():
            return Dim(text)
        shape = TensorType.parse(f"float32[{text}]").shape
    except (TypeError, ValueError):
        return None
    return shape[0] if len(shape) == 1 else None


_SERIALIZE = onnx.ValueInfoProto.SerializeToString


def tensor_types(infos: list[onnx.ValueInfoProto], datas: list[bytes] | None = None
                 ) -> list[TensorType | None]:
    """The type each of ``infos`` states where it is a tensor's read from its bytes (as
    :func:`.protos.value_type` reads it first: its common layout), else None
    (:func:`.protos.value_type` reads it, and says what is wrong): every info serialized
    by one map (or given serialized, ``datas``), those of one layout read together
    (:func:`_all_laid_out`), the others one by one (a graph's inputs, most of a model of
    layers of other widths)."""
    if datas is None:
        datas = list(map(_SERIALIZE, infos))
    try:
        return _all_laid_out(datas)
    except IndexError:  # (an info of fewer than two bytes: no name)
        return list(map(_tensor_type, datas))


def _key(message: Any, name: str) -> int:
    """The one-byte key of the length-delimited field ``name`` of ``message``."""
    number = message.DESCRIPTOR.fields_by_name[name].number
    assert number < 16  # (a key of one byte)
    return number << 3 | LENGTH


_INFO_TYPE = _key(onnx.ValueInfoProto, "type")
_INFO_NAME = _key(onnx.ValueInfoProto, "name")
_TENSOR = _key(onnx.TypeProto, "tensor_type")
_ELEM_TYPE = _key(onnx.TypeProto.Tensor, "elem_type") & ~7  # (a varint)
_SHAPE = _key(onnx.TypeProto.Tensor, "shape")
_DIM = _key(onnx.TensorShapeProto, "dim")
_DIM_VALUE = _key(onnx.TensorShapeProto.Dimension, "dim_value") & ~7  # (a varint)
_DIM_PARAM = _key(onnx.TensorShapeProto.Dimension, "dim_param")


#: a tensor type's field in a ValueInfoProto's bytes -> its type (the same bytes are the
#: same type: a model typed again, or whose inputs share types, reads each once);
#: emptied when it holds _READ_SIZE types
_READ: dict[bytes, TensorType] = {}
_READ_SIZE = 1 << 14


def _layouts(width: int) -> tuple[tuple[int, int], ...]:
    """Per rank r up to MAX_RANK, (mask, pattern): the last ``8 + (2 + width) r`` bytes of
    a ValueInfoProto, read as one big-endian int and masked, equal the pattern exactly
    when they are its ``type`` field holding a tensor type of an element type and r
    sizes, each written in ``width`` bytes (1: below 128; 2: below 2**14, its first byte
    saying one more follows), laid out as protobuf writes them: the field's key and
    length, the tensor's, the element type's key and value, the shape's key and length,
    then per dim its key, its length, the size's key and the size (the element type and
    the sizes masked to their bytes' high bits, which say where each varint ends)."""
    made = []
    dim = bytes([_DIM, 1 + width, _DIM_VALUE] + [0x80] * (width - 1) + [0])
    held = bytes([0xFF, 0xFF, 0xFF] + [0x80] * width)
    for r in range(MAX_RANK + 1):
        n = len(dim) * r
        if n + 6 >= 0x80:  # (a length of two bytes: no such layout)
            made.append((0, 1))
            continue
        head = bytes([_INFO_TYPE, n + 6, _TENSOR, n + 4, _ELEM_TYPE, 0, _SHAPE, n])
        mask = bytes([0xFF] * 5 + [0x80] + [0xFF] * 2) + held * r
        made.append((int.from_bytes(mask, "big"), int.from_bytes(head + dim * r, "big")))
    return tuple(made)


#: per rank, the layouts of a type of sizes of one byte each (:func:`_layouts`)
_LAYOUTS = _layouts(1)
#: per rank, the layouts of a type of sizes of two bytes each
_LAYOUTS_TWO = _layouts(2)
#: each byte without its high bit
_LOW = bytes(b & 0x7F for b in range(256))
#: the layouts by the bytes a size takes, in the order they are tried
_WIDTHS = ((1, _LAYOUTS), (2, _LAYOUTS_TWO))


def _laid_out(data: bytes) -> TensorType | None:
    """The type of a serialized ValueInfoProto ``data`` (a name below 128 bytes, first)
    whose type is laid out as one of :data:`_LAYOUTS` or :data:`_LAYOUTS_TWO` says; else
    None. (A type of sizes below 128, or of sizes from 128 to 2**14 alone: most graph
    inputs.)"""
    n = data[1]
    for width, layouts in _WIDTHS:
        r, odd = divmod(len(data) - n - 10, 3 + width)  # (a dim: 3 bytes and its size's)
        if odd or not 0 <= r <= MAX_RANK:
            continue
        mask, pattern = layouts[r]
        if int.from_bytes(data, "big") & mask != pattern:
            continue
        held = data[n + 4:]
        found = _READ.get(held)
        if found is None:
            dtype = DTYPES.get(data[n + 7])
            if dtype is None:
                return None
            found = _keep(held, sized(dtype, _sizes(data[n + 13:], width)))
        return found
    return None


def _tails() -> dict[int, tuple[int, int, int, bytes, bytes, int]]:
    """The length of a ValueInfoProto past its name (its ``type`` field's) -> (width,
    rank, that length, mask, pattern, 5) of the one layout of :data:`_WIDTHS` of that
    length (a length two layouts share, such as rank 5 of one-byte sizes and rank 4 of
    two, is read one by one), the mask and pattern as bytes, 5 where the element type is
    (after the keys and lengths of the field, the tensor type and the element type)."""
    found: dict[int, list] = {}
    for width, layouts in _WIDTHS:
        for r, (mask, pattern) in enumerate(layouts):
            if mask:
                size = 8 + (3 + width) * r
                found.setdefault(size, []).append((width, r, size, mask.to_bytes(size, "big"),
                                                   pattern.to_bytes(size, "big"), 5))
    return {size: made[0] for size, made in found.items()
            if all(m[3:] == made[0][3:] for m in made)}


#: :func:`_tails`' table
_TAILS = _tails()
#: the same layouts of a TypeProto alone (a ``type`` field's bytes past its key and
#: length, :func:`held_types`), by its length: each layout's mask and pattern past
#: those two bytes, its element type at 3
_HELD = {size - 2: (width, r, size - 2, mask[2:], pattern[2:], 3)
         for size, (width, r, _, mask, pattern, _) in _TAILS.items()}
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
#: each byte below 254 plus 2 (a name's length byte -> its key, length and name's bytes)
_PLUS_TWO = bytes([min(b + 2, 255) for b in range(256)])


def _all_laid_out(datas: list[bytes]) -> list[TensorType | None]:
    """:func:`_tensor_type` of each of ``datas`` (serialized ValueInfoProtos): those of a
    name below 128 bytes and a type laid out as one of :data:`_TAILS` says read together,
    by layout: each layout's types checked against it at once (their bytes joined, read
    as one int, masked, compared with its pattern repeated), their sizes sliced from
    their dims joined, their types made at once (:func:`~.types.type.sized_all`);
    every other one by itself. (Written for speed: a graph's inputs of distinct types,
    each read by a call, cost 25,000 instructions each.)"""
    n = len(datas)
    found: list[TensorType | None] = [None] * n
    if not n or bytes(map(_FIRST, datas)).count(_INFO_NAME) != n:
        return list(map(_tensor_type, datas))
    names = bytes(map(_SECOND, datas))  # (each name's length, where it is one byte)
    if not names.isascii():  # (every length one byte; max() read each one as an int)
        return list(map(_tensor_type, datas))
    tails = list(map(sub, map(len, datas), names.translate(_PLUS_TWO)))  # (the type
    # field's: past the name's key, its length and the name)
    for k in _by_layout(datas, tails, _TAILS, found):
        found[k] = _tensor_type(datas[k])
    return found


def held_types(helds: list[bytes]) -> list[TensorType | None]:
    """The type each of ``helds`` (TypeProtos serialized: the graph inputs' types, as
    :func:`.split.cut` lists them) states where it is a tensor's read from its bytes, else
    None: as :func:`tensor_types` reads a ValueInfoProto's ``type`` field (by layout
    where they are of one, :data:`_HELD`, as arrays where there are :data:`ARRAY_AT` or
    more, :func:`_held_arrays`; else one by one)."""
    found: list[TensorType | None] = [None] * len(helds)
    alone = _held_arrays(helds, found) if len(helds) >= ARRAY_AT else \
        _by_layout(helds, list(map(len, helds)), _HELD, found)
    for k in alone:
        held = helds[k]
        t = _READ.get(held)
        if t is None and held and held[0] == _TENSOR:  # (a tensor type, alone)
            t = _read_tensor(held, 0, len(held))
            if t is not None:
                _keep(held, t)
        found[k] = t
    return found


#: from how many types :func:`held_types` reads them as arrays (:func:`_held_arrays`: a
#: dozen NumPy calls per layout, about 30,000 instructions, against some 6,000 a type
#: read by :func:`_by_layout`'s maps and joins)
ARRAY_AT = 64
#: :data:`_HELD` as arrays, by length: (width, rank, the element type's column, the mask
#: and the pattern as byte arrays, the columns of each size's first byte and of its
#: second, the columns of a row)
_HELD_ARRAYS = {size: (width, r, code, np.frombuffer(mask, np.uint8),
                       np.frombuffer(pattern, np.uint8),
                       np.arange(size - (3 + width) * r + 3, size, 3 + width),
                       np.arange(size - (3 + width) * r + 4, size, 3 + width),
                       np.arange(size))
                for size, (width, r, _, mask, pattern, code) in _HELD.items()}
#: the element types' codes known, as a table of every byte
_KNOWN = np.array([b in DTYPES for b in range(256)])


def _held_arrays(helds: list[bytes], found: list) -> list[int]:
    """:func:`_by_layout` of ``helds`` (each's tail its whole bytes, the layouts
    :data:`_HELD`) by NumPy: the bytes joined once, each length's rows gathered into
    one array, each row checked against its layout (masked, compared), its element type
    looked up and its sizes read as columns; rows of no layout, or that fail theirs, are
    left to be read one by one (their places returned), the others' types made by
    :func:`~.types.type.sized_all` per element type. (Written for speed: a model's
    thousands of graph inputs of distinct types, whose checks by maps, joins and big
    ints cost more than their types' making.)"""
    try:
        sizes = bytes(map(len, helds))  # (every length below 256, as every layout's)
    except ValueError:
        return _by_layout(helds, list(map(len, helds)), _HELD, found)
    lengths = np.frombuffer(sizes, np.uint8).astype(np.intp)
    starts = np.cumsum(lengths) - lengths
    data = np.frombuffer(b"".join(helds), np.uint8)
    alone: list[int] = []
    for size in set(sizes):  # (not np.unique: its first call imports numpy.ma)
        at = np.flatnonzero(lengths == size)
        layout = _HELD_ARRAYS.get(size)
        if layout is None:
            alone += at.tolist()
            continue
        for k in range(0, len(at), _ROWS):  # (so many rows at a time: an index array
            _read_rows(data, starts, at[k:k + _ROWS], layout, found, alone)  # of 4 MB)
    return alone


#: the most rows :func:`_held_arrays` gathers at once (their index array 8 bytes a byte)
_ROWS = 1 << 12


def _read_rows(data: np.ndarray, starts: np.ndarray, at: np.ndarray, layout: tuple,
               found: list, alone: list[int]) -> None:
    """Read into ``found`` the types at ``at`` (bytes of ``data`` from ``starts``, each of
    ``layout``'s length) where each is laid out so, of a known element type; add the
    places of the others to ``alone``."""
    width, r, code, mask, pattern, first, second, row = layout
    rows = data[starts[at, None] + row]
    codes = rows[:, code]
    ok = ((rows & mask) == pattern).all(axis=1) & _KNOWN[codes]
    if not ok.all():
        alone += at[~ok].tolist()
        at, rows, codes = at[ok], rows[ok], codes[ok]
        if not len(at):
            return
    if not r:
        shapes: list[tuple] = [()] * len(at)
    else:  # (each axis's sizes listed, zipped: a list per row costs more)
        if width == 2:
            rows = (rows[:, first] & 0x7F).astype(np.intp) | \
                rows[:, second].astype(np.intp) << 7
        else:
            rows = rows[:, first]
        shapes = list(zip(*rows.T.tolist(), strict=True))
    kinds = set(codes.tolist())
    for kind in kinds:
        if len(kinds) == 1:
            places, of = at.tolist(), shapes
        else:
            chosen = codes == kind
            places, of = at[chosen].tolist(), list(compress(shapes, chosen.tolist()))
        list(map(found.__setitem__, places, sized_all(DTYPES[kind], of, r)))


def _by_layout(datas: list[bytes], tails: list[int], layouts: dict, found: list) -> list[int]:
    """Read into ``found`` the types of ``datas`` whose layout the length of their tail
    (``tails``: the part a layout covers) finds in ``layouts``, those of one length read
    together (:func:`_read_layout`); the places of the others."""
    n = len(datas)
    order = sorted(range(n), key=tails.__getitem__)  # (each length's types in a run)
    ordered = list(map(tails.__getitem__, order))
    alone: list[int] = []
    start = 0
    while start < n:
        tail = ordered[start]
        end = bisect_right(ordered, tail, start)
        at = order[start:end]
        layout = layouts.get(tail)
        if layout is None or not _read_layout(datas, at, layout, found):
            alone += at
        start = end
    return alone


def _read_layout(datas: list[bytes], at: list[int], layout: tuple, found: list) -> bool:
    """Read the types of ``datas`` at ``at`` (each of the length ``layout`` fits, see
    :func:`_all_laid_out`) into ``found`` if every one is laid out so, of a known
    element type: True; else False (none read)."""
    width, r, size, mask, pattern, code = layout
    members = list(map(datas.__getitem__, at))
    m = len(members)
    whole = b"".join(map(getitem, members, repeat(slice(-size, None), m)))
    if int.from_bytes(whole, "big") & int.from_bytes(mask * m, "big") != \
            int.from_bytes(pattern * m, "big"):
        return False
    codes = whole[code::size]  # (each type's element type, a byte)
    if r:
        dims = b"".join(map(getitem, members, repeat(slice(-(3 + width) * r, None), m)))
        sizes = dims[3::4] if width == 1 else list(map(add, dims[3::5].translate(_LOW), map(
            mul, dims[4::5], repeat(0x80))))
        shapes = list(zip(sizes, strict=True)) if r == 1 else \
            list(zip(*[iter(sizes)] * r, strict=True))
    else:
        shapes = [()] * m
    kinds = set(codes)
    if not all(map(DTYPES.__contains__, kinds)):
        return False
    for code in kinds:
        if len(kinds) == 1:
            found_at, of = at, shapes
        else:
            chosen = list(map(eq, codes, repeat(code)))
            found_at, of = list(compress(at, chosen)), list(compress(shapes, chosen))
        list(map(found.__setitem__, found_at, sized_all(DTYPES[code], of, r)))
    return True


def _sizes(dims: bytes, width: int) -> tuple[int, ...]:
    """The sizes of a layout's dims ``dims`` (from its first size's first byte), each
    written in ``width`` bytes of a dim of ``3 + width``: a byte's low seven bits, then
    the next byte's times 128."""
    if width == 1:
        return tuple(dims[::4])
    return tuple(map(add, dims[::5].translate(_LOW), map(mul, dims[1::5], repeat(0x80))))


def _keep(held: bytes, t: TensorType) -> TensorType:
    """``t``, kept in :data:`_READ` by the bytes of its TypeProto ``held``."""
    if len(_READ) >= _READ_SIZE:
        _READ.clear()
    _READ[held] = t
    return t


def _tensor_type(data: bytes) -> TensorType | None:
    """The type a serialized ValueInfoProto ``data`` states, read from its bytes, when it
    is a tensor's of a known element type and a shape of at most MAX_RANK dims, each a
    size, a name or unknown, laid out as protobuf writes a parsed message (each field once,
    in the order of their numbers, nothing else in the type); else None, and
    :func:`.protos.proto_type` reads it (and says what is wrong). A tensor type read so costs a
    fifth of reading its fields through protobuf one by one (a varint of one byte, most
    lengths and sizes, is read in place). Most types (a name of fewer than 128 bytes and
    sizes below 128) are checked at once against their layout (:data:`_LAYOUTS`), their
    sizes every fourth byte (or every fifth's two, :func:`_laid_out`); the others byte
    by byte (:func:`_read_tensor`)."""
    try:
        if data[0] == _INFO_NAME and data[1] < 0x80:  # (the name, first, then the type)
            found = _laid_out(data)
            if found is not None:
                return found
        i = 0
        if data[0] == _INFO_NAME:  # (the name, first)
            n = data[1]
            if n < 0x80:
                i = 2 + n
            else:
                n, i = read_varint(data, 1)
                i += n
        if data[i] != _INFO_TYPE or data[i + 2] != _TENSOR:
            if data[i] != _INFO_TYPE or data[i + 1] < 0x80:
                return None
            # (a type of 128 bytes or more: its length takes more bytes)
            n, i = read_varint(data, i + 1)
            end = i + n
            if data[i] != _TENSOR:
                return None
        else:
            end = i + 2 + data[i + 1]
            i += 2
        if end != len(data) and any(number == _INFO_TYPE >> 3 for number, _, _, _ in
                                    fields(data, end, len(data))):
            return None  # (a type given twice: protobuf merges the two)
        held = data[i:end]
        found = _READ.get(held)
        if found is None:
            found = _read_tensor(data, i, end)
            if found is not None:
                _keep(held, found)
        return found
    except (IndexError, ValueError):
        return None


def _read_tensor(data: bytes, i: int, end: int) -> TensorType | None:
    """The TensorType of the TypeProto.Tensor field ``data[i:end]`` (see
    :func:`_tensor_type`), or None."""
    try:
        n = data[i + 1]
        n, i = (n, i + 2) if n < 0x80 else read_varint(data, i + 1)
        if i + n != end or data[i] != _ELEM_TYPE:
            return None
        code = data[i + 1]
        code, i = (code, i + 2) if code < 0x80 else read_varint(data, i + 1)
        dtype = DTYPES.get(code)
        if dtype is None or data[i] != _SHAPE:
            return None
        n = data[i + 1]
        n, i = (n, i + 2) if n < 0x80 else read_varint(data, i + 1)
        if i + n != end:
            return None
        shape: list = []
        while i < end:
            if data[i] != _DIM or len(shape) == MAX_RANK:
                return None
            n = data[i + 1]
            if n == 0:  # neither a size nor a name
                shape.append(None)
                i += 2
                continue
            n, i = (n, i + 2) if n < 0x80 else read_varint(data, i + 1)
            stop = i + n
            if data[i] == _DIM_VALUE:
                size = data[i + 1]
                if n == 2 and size < 0x80:  # (a size of one byte, most sizes
                    shape.append(size)  # are read in place)
                elif n == 3 and size >= 0x80 > data[i + 2]:  # (two bytes)
                    shape.append(size & 0x7F | data[i + 2] << 7)
                elif n == 4 and size >= 0x80 and data[i + 2] >= 0x80 > data[i + 3]:
                    shape.append(size & 0x7F | (data[i + 2] & 0x7F) << 7 |
                                 data[i + 3] << 14)  # (three bytes)
                else:
                    size, i = read_varint(data, i + 1)
                    if i != stop:
                        return None
                    shape.append(size)
            elif data[i] == _DIM_PARAM:
                n = data[i + 1]
                n, i = (n, i + 2) if n < 0x80 else read_varint(data, i + 1)
                if i + n != stop:
                    return None
                shape.append(_dim_param(data[i:stop].decode()))
            else:
                return None
            i = stop
        if i != end:
            return None
        return TensorType(dtype, shape)
    except (IndexError, ValueError, TypeError):  # (UnicodeDecodeError is a ValueError)
        return None

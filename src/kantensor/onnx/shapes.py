"""``infer_shapes``: a copy of an ONNX model whose every value carries its type.

A drop-in for ``onnx.shape_inference.infer_shapes``: each value_info and graph output
gets the element type and dims kantensor's relation inferred, a size as ``dim_value``,
a symbolic one as ``dim_param`` holding the Dim's text in the DSL's syntax (``2*seq``),
an unknown one as a dim with neither (never a guess). A sequence is written as the type
its elements share, an optional as its element's. Values that a node kantensor does not
support reaches get no value_info (a graph output keeps the type the model gave it).
"""

from __future__ import annotations

import os
from itertools import islice
from typing import Any

import onnx

from ..graph.heap import collector_paused
from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.type import TensorType
from .dtypes import ELEM_TYPES
from .importer import _Reader, read_types
from .modelfile import open_model
from .modelmemo import found as remembered
from .modelmemo import model_key, remember, restore
from .rereading import read_refuting
from .split import copied
from .wire import BYTE, field, field_number, read_varint, tag, varint

# the keys of the fields written (their numbers read from onnx's own descriptors)
_VALUE_INFO = tag(field_number(onnx.GraphProto, "value_info"))
_NAME = tag(field_number(onnx.ValueInfoProto, "name"))
_NAME_LEN = len(_NAME) + 1  # (the name's key and a length of one byte)
_TYPE = tag(field_number(onnx.ValueInfoProto, "type"))
_TENSOR = tag(field_number(onnx.TypeProto, "tensor_type"))
_SEQUENCE = tag(field_number(onnx.TypeProto, "sequence_type"))
_OPTIONAL = tag(field_number(onnx.TypeProto, "optional_type"))
_SEQUENCE_ELEMENT = tag(field_number(onnx.TypeProto.Sequence, "elem_type"))
_OPTIONAL_ELEMENT = tag(field_number(onnx.TypeProto.Optional, "elem_type"))
_ELEM_TYPE = tag(field_number(onnx.TypeProto.Tensor, "elem_type"), 0)
_SHAPE = tag(field_number(onnx.TypeProto.Tensor, "shape"))
_DIM = tag(field_number(onnx.TensorShapeProto, "dim"))
_DIM_VALUE = tag(field_number(onnx.TensorShapeProto.Dimension, "dim_value"), 0)
_DIM_PARAM = tag(field_number(onnx.TensorShapeProto.Dimension, "dim_param"))
_UNKNOWN = field(_DIM, b"")  # a dim with neither a value nor a name
_SMALL = tuple(field(_DIM, _DIM_VALUE + varint(n)) for n in range(128))
# a dim's bytes of a size of two bytes (128 <= size < 2**14: most sizes past 127) but its
# last byte, by the size's low seven bits (its last byte is the size >> 7)
_TWO = tuple(_DIM + BYTE[len(_DIM_VALUE) + 2] + _DIM_VALUE + bytes((n | 0x80,))
             for n in range(128))
# the shape's key and the length of its dims below 128, by that length
_SHAPES = tuple(_SHAPE + BYTE[n] for n in range(128))
# a ValueInfoProto's type field's key, its length and the tensor type's key and length, by
# the length of the TypeProto.Tensor (below 0x7E: both lengths one byte)
_FIELDS = tuple(_TYPE + BYTE[n + 2] + _TENSOR + BYTE[n] for n in range(0x7E))
_ELEM = {dtype: _ELEM_TYPE + varint(code) for dtype, code in ELEM_TYPES.items()}

#: Type -> the ``type`` field of a ValueInfoProto holding it: its key, its length and
#: the TypeProto, serialized (tensor types are interned: the key is the object); emptied
#: when it holds _TYPES_SIZE types
_TYPES: dict[Type, bytes] = {}
_TYPES_SIZE = 1 << 13

#: a named size's terms -> its dim, serialized (``dim_param``: its text; keyed by the
#: terms, which are the text's, as a Dim's == may consult a traced program's answers);
#: emptied when it holds _PARAMS_SIZE sizes
_PARAMS: dict[Any, bytes] = {}
_PARAMS_SIZE = 1 << 12


def _param(d: Any) -> bytes:
    terms = d._terms
    found = _PARAMS.get(terms)
    if found is None:
        found = field(_DIM, field(_DIM_PARAM, str(d).encode()))
        if len(_PARAMS) >= _PARAMS_SIZE:
            _PARAMS.clear()
        _PARAMS[terms] = found
    return found

#: name -> the value info naming it, serialized as a GraphProto's field, and name -> the
#: type it states (a model typed again writes the same names with the same types): an
#: info is found by its name where the type is the one it was written with. (Two tables
#: of the names, no (name, type) pair kept per info: each would be an object more for
#: the cycle collector's every pass to walk.) Emptied together when they hold
#: _INFOS_SIZE infos. A name longer than _INFO_NAME bytes is written each time.
_INFOS: dict[str, bytes] = {}
_INFO_TYPES: dict[str, Type] = {}
_INFOS_SIZE = 1 << 15
_INFO_NAME = 256


#: the terms of the named size :func:`_dims` wrote last and its dim, as one tuple (read and
#: replaced at once: two threads never pair one's terms with the other's dim): a model's
#: types name one size, such as a batch, again and again, found here by ``is`` without
#: hashing its terms again (the terms are held, not the Dim: no Dim is kept alive)
_LAST: tuple[Any, bytes] = (None, b"")


def _dims(shape: tuple) -> bytes:
    """A shape's dims, serialized as a TensorShapeProto's fields."""
    global _LAST
    dims = b""  # (a few dims: bytes added up take fewer steps than a list joined)
    for d in shape:
        if type(d) is int:
            dims += _SMALL[d] if d < 0x80 else _TWO[d & 0x7F] + BYTE[d >> 7] \
                if d < 0x4000 else field(_DIM, _DIM_VALUE + varint(d))
        elif d is None:
            dims += _UNKNOWN
        else:
            last = _LAST
            if d._terms is not last[0]:  # (else a named size met before: no call)
                last = _LAST = (d._terms, _PARAMS.get(d._terms) or _param(d))
            dims += last[1]
    return dims


def _tensor(dtype: str, shape: tuple | None) -> bytes:
    """A TypeProto.Tensor's bytes: the element type, the dims (none: a sequence's
    elements of any rank have no shape)."""
    body = _ELEM[dtype]
    if shape is None:
        return body
    dims = _dims(shape)
    n = len(dims)
    return body + _SHAPES[n] + dims if n < 0x80 else body + field(_SHAPE, dims)


def _encoded(t: Type) -> bytes:
    """``t`` as a serialized TypeProto: a tensor, a sequence (ONNX states its elements'
    type, not its length), an optional."""
    if isinstance(t, TensorType):
        return field(_TENSOR, _tensor(t.dtype, t.shape))
    if isinstance(t, SequenceType):
        return field(_SEQUENCE, field(_SEQUENCE_ELEMENT, field(
            _TENSOR, _tensor(t.dtype, t.shape))))
    if isinstance(t, OptionalType):
        return field(_OPTIONAL, field(_OPTIONAL_ELEMENT, _encoded(t.element)))
    raise TypeError(f"cannot write {t} as an ONNX type")


#: dtype -> a tensor type's ``type`` field up to its dims, by the dims' length ``n``
#: (while the field's lengths are one byte each, as most are: ``n`` below ``0x7E - 2``
#: less the element type's length): the field's key and length, the tensor's key and
#: length, the element type, the shape's key and length; each made at its first use (a
#: dtype's 124 made at once cost 24 us: the pool stack's first call 0.45% more)
_HEADS: dict[str, list[bytes | None]] = {}


def _heads(dtype: str) -> list[bytes | None]:
    found = _HEADS[dtype] = [None] * (0x7E - 2 - len(_ELEM[dtype]))
    return found


def _head(heads: list[bytes | None], dtype: str, n: int) -> bytes:
    elem = _ELEM[dtype]
    found = heads[n] = _FIELDS[len(elem) + 2 + n] + elem + _SHAPES[n]
    return found


def _type_field(t: Type) -> bytes:
    """The ``type`` field of a ValueInfoProto of type ``t`` (made once per type)."""
    return _TYPES.get(t) or _new_field(t)


def _new_field(t: Type) -> bytes:
    """:func:`_type_field` of a type not in :data:`_TYPES`, made and kept there (a
    tensor's head found by its dtype and its dims' length, :data:`_HEADS`: one bytes
    added, where its four parts joined cost about 50 ns more a new type)."""
    if type(t) is TensorType:
        dims = _dims(t.shape)
        heads = _HEADS.get(t.dtype) or _heads(t.dtype)
        n = len(dims)
        found = (heads[n] or _head(heads, t.dtype, n)) + dims if n < len(heads) else \
            field(_TYPE, field(_TENSOR, _tensor(t.dtype, t.shape)))
    else:
        found = field(_TYPE, _encoded(t))
    if len(_TYPES) >= _TYPES_SIZE:
        _TYPES.clear()
    _TYPES[t] = found
    return found


def type_bytes(t: Type) -> bytes:
    """The TypeProto of ``t``, serialized (made once per type)."""
    found = _type_field(t)
    return found[read_varint(found, len(_TYPE))[1]:]  # (past its key and length)


_SERIALIZED = onnx.NodeProto.SerializeToString  # (mapped over a graph's nodes)


def infer_shapes(model: onnx.ModelProto | str | os.PathLike | bytes,
                 base_dir: str | os.PathLike | None = None) -> onnx.ModelProto:
    """A copy of ``model`` with every value_info and output typed by kantensor. External
    data (read only where a node's type depends on it) comes from ``base_dir``, else
    from the folder of the model's path (see :mod:`.loading`). A model typed before in
    this process is written as it was then (:mod:`.modelmemo`)."""
    with collector_paused(promote=True):  # (see read_types; what the call leaves, its
        # types above all, is promoted unwalked: see kantensor.graph.heap)
        source, tensors = open_model(model, base_dir)
        reader = _Reader(source, tensors, graph=False)
        reader.read_sources(variables=False, cut=True)  # (every initializer checked:
        # the key holds their types; a Variable is made for a graph input a node reads;
        # a model of little data serialized once, its nodes' bytes cut from it: .split)
        cut, reader.cut = reader.cut, None
        protos = list(reader.proto.node) if cut is None else None  # (each node's object
        # made once, for both; the cut's nodes: made by the reading, see .nodeslot.replay)
        nodes = cut[1] if protos is None else list(map(_SERIALIZED, protos))
        key, large = model_key(reader, nodes)
        typed = remembered(key, reader)
        if typed is not None:
            out = _copy(model, source, cut)
            restore(typed, out, type_bytes)
            return out
        reader = read_refuting(lambda given: reader if not given else _sourced(
            source, tensors, given), lambda r: (r.read_nodes(nodes, protos), r)[1])
        protos = None  # (their objects freed before the cycle collector's pass)
        out, infos = _written(model, source, reader, cut)
        remember(key, large, reader, infos)
        return out


def _sourced(source: onnx.ModelProto, tensors: Any, given: tuple) -> _Reader:
    """A reader of ``source`` with ``given`` (:mod:`.rereading`), its sources read."""
    reader = _Reader(source, tensors, graph=False, given=given)
    reader.read_sources(variables=False)
    return reader


def typed_model(model: onnx.ModelProto | str | os.PathLike | bytes,
                base_dir: str | os.PathLike | None = None
                ) -> tuple[onnx.ModelProto, _Reader]:
    """:func:`infer_shapes`'s copy of ``model``, and the reader that typed it (its
    ``types``, and for each value left untyped why, in ``untyped``)."""
    with collector_paused():  # (see read_types: the copy too keeps what it makes)
        return _typed_model(model, base_dir)


def _typed_model(model: onnx.ModelProto | str | os.PathLike | bytes,
                 base_dir: str | os.PathLike | None) -> tuple[onnx.ModelProto, _Reader]:
    source, tensors = open_model(model, base_dir)
    reader = read_types(source, tensors)
    return _written(model, source, reader)[0], reader


def _joined(names: list[str], infos: list[bytes], skip: set) -> bytes:
    """The value infos ``infos`` of ``names`` joined, those of names in ``skip`` (graph
    outputs) left out unless they are no name of ``names`` (an initializer, a graph
    input)."""
    if skip:
        infos = infos[:]
        for k in _places(names, skip):
            infos[k] = b""
    return b"".join(infos)


def _places(names: list[str], skip: set) -> list[int]:
    """The place in ``names`` (distinct) of each name of ``skip`` that is one of them,
    each found from the end (graph outputs are most often the last nodes' outputs: a
    search from the start compared every name before them)."""
    backwards = names[::-1]
    last = len(names) - 1
    found = []
    for name in skip:
        try:
            found.append(last - backwards.index(name))
        except ValueError:
            pass
    return found


def _infos(names: list[str], types: list[Type], skip: set) -> bytes:
    """The value infos of ``names`` of the types ``types`` (names in ``skip`` left out),
    as a GraphProto's fields: each found in :data:`_INFOS` where it was written with its
    type (a model typed again), else written and kept there unless its name is long (a
    skipped one too: a graph output, whose info :func:`_written` finds with the others'
    and leaves out). (Written for speed: the loop, a first call's writing inline, runs
    once per value of every model typed. Writing them at once by maps over every name
    and type, each info's head found by its two lengths, cost more: callgrind counts
    27.4 against 26.9 million instructions for the 3,000 infos of onnx_distinct.py's
    1,000-block chain, 82.9 million at 3,000 blocks.)"""
    kept, found, written = _INFO_TYPES.get, _INFOS.get, _TYPES.get
    infos: list[bytes] = []
    add = infos.append
    for name, t in zip(names, types, strict=True):
        was = kept(name)
        info = found(name) if was is t or was is not None and was == t else None
        if info is None:
            typed = written(t) or _new_field(t)
            text = name.encode()
            n = len(text)
            size = _NAME_LEN + n + len(typed)
            info = b"".join((_VALUE_INFO, BYTE[size], _NAME, BYTE[n], text, typed)) \
                if n < 0x80 and size < 0x80 else field(_VALUE_INFO, field(_NAME, text) + typed)
            if n <= _INFO_NAME:
                if len(_INFOS) >= _INFOS_SIZE:
                    _INFOS.clear()
                    _INFO_TYPES.clear()
                _INFOS[name] = info
                _INFO_TYPES[name] = t
        if name not in skip:
            add(info)
    return b"".join(infos)


def _new_infos(names: list[str], types: list[Type]) -> list[bytes]:
    """The value info of each of ``names`` of the types ``types``, written and not kept
    in :data:`_INFOS`: the infos of a model whose nodes were mostly typed at first sight
    (a model of blocks that all differ: :func:`.repeats.first_typed`), which a model
    read again finds in the model memo, and whose nodes a reading of an edited copy
    meets as records of nodes typed once (that reading keeps its infos). (Written for
    speed: a loop without the tables' lookups and updates takes less than half of
    :func:`_infos`'s steps an info.)"""
    written = _TYPES.get
    infos: list[bytes] = []
    add = infos.append
    for name, t in zip(names, types, strict=True):
        typed = written(t) or _new_field(t)
        text = name.encode()
        n = len(text)
        size = _NAME_LEN + n + len(typed)
        add(b"".join((_VALUE_INFO, BYTE[size], _NAME, BYTE[n], text, typed))
            if n < 0x80 and size < 0x80 else field(_VALUE_INFO, field(_NAME, text) + typed))
    return infos


def _copy(model: Any, source: onnx.ModelProto, cut: tuple | None = None
          ) -> onnx.ModelProto:
    """A copy of ``model`` (read as ``source``; ``cut``: its bytes cut by .split, or
    None)."""
    if cut is not None:  # (its bytes parsed: a parse costs less than a copy)
        return copied(cut[0])
    out = onnx.ModelProto()
    if isinstance(model, bytes):
        out.ParseFromString(model)  # a second parse costs less than a copy
    else:
        out.CopyFrom(source)
    return out


def _written(model: Any, source: onnx.ModelProto, reader: _Reader, cut: tuple | None = None
             ) -> tuple[onnx.ModelProto, bytes]:
    """A copy of ``model`` (read as ``source``; ``cut``, its bytes cut by .split, or None)
    with the types ``reader`` read written, and its value infos as written: serialized
    as a GraphProto's, parsed at once."""
    types = reader.types  # the initializers and inputs, then the nodes' outputs
    out = _copy(model, source, cut)
    graph = out.graph
    outputs = set()  # the graph outputs typed
    for o in graph.output:
        t = types.get(o.name)
        if t is not None:  # else an unsupported node reaches it: left as it was
            o.type.ParseFromString(type_bytes(t))
            outputs.add(o.name)
    graph.ClearField("value_info")
    names = list(islice(types, reader.sources, None))
    typed = list(islice(types.values(), reader.sources, None))
    if reader.fresh * 2 > len(names):  # (most nodes typed at first sight: see _new_infos)
        blob = _joined(names, _new_infos(names, typed), outputs)
    else:  # (a model typed again: all kept with their types, found at once)
        infos = list(map(_INFOS.get, names)) if list(map(_INFO_TYPES.get, names)) == \
            typed else [None]
        if None in infos:  # (else a first call: each written in _infos's loop)
            blob = _infos(names, typed, outputs)
        else:  # (a graph output has no value info: its info, kept with the others', is
            blob = _joined(names, infos, outputs)  # left out)
    graph.MergeFromString(blob)
    return out, blob

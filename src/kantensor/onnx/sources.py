"""The sources of a graph: its initializers and its inputs, typed before its nodes (a mixin
of :class:`kantensor.onnx.importer._Reader`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter, itemgetter, methodcaller
from typing import Any

import numpy as np
import onnx

from ..graph.basic import Variable
from ..graph.type import Type
from ..types.type import TensorType
from ..types.variable import constant
from . import split
from .dtypes import UnsupportedType
from .loading import MAX_RANK, OnnxImportError, fits_inline, inline_bytes, overridable, shown, texts
from .nodememo import SMALL
from .nodeslot import initializer_token
from .protos import value_type
from .typebytes import held_types, tensor_types

__all__ = ["Sources"]

#: (element type, dims) -> the type of an initializer of that header, checked once in
#: the process (a model typed again has the same headers), the bytes of raw data it
#: holds inline (:func:`~.loading.inline_bytes`), whether its data is small enough for
#: its node slot token (:func:`~.nodeslot.initializer_token`) and its token when its
#: data is not (one tuple for every initializer of the header): as an equal header met
#: before in the same model, it leaves its tensor's data size to check
_HEADERS: dict[tuple, tuple[TensorType, int, bool, tuple]] = {}
_HEADERS_SIZE = 1 << 12
_EXTERNAL = onnx.TensorProto.EXTERNAL

_NAME = attrgetter("name")
_DATA_TYPE = attrgetter("data_type")
_RAW_DATA = attrgetter("raw_data")
_LOCATION = attrgetter("data_location")
_SEGMENT = methodcaller("HasField", "segment")
_TYPE = itemgetter(0)
_NBYTES = itemgetter(1)


def _known(protos: list[onnx.TensorProto], headers: list[tuple],
           raw: list[int | None] | None) -> list | None:
    """The :data:`_HEADERS` entries of the initializers ``protos`` (their headers
    ``headers``) when each one's header was checked before in the process and its data
    is inline raw data of the size the header needs (``raw``: their raw data's sizes,
    when read from the bytes), as :meth:`~.loading.Tensors.check`'s first case says (so
    the check of each is this); else None. (Each step maps over them all at once: a
    model typed again meets every header again.)"""
    found = list(map(_HEADERS.get, headers))
    if None in found:
        return None
    wanted = list(map(_NBYTES, found))
    if 0 in wanted or _EXTERNAL in map(_LOCATION, protos) or any(map(_SEGMENT, protos)):
        return None  # (no data inline, data elsewhere: each checked by the loop)
    held = raw if raw else list(map(len, map(_RAW_DATA, protos)))
    return found if held == wanted else None



class Sources:
    """What the reader does with a graph's initializers and inputs: ``proto`` is the
    graph, ``model`` the model holding it, ``graph`` whether values and Variables are
    made (else types only), ``parent`` the reader of the graph around a subgraph;
    ``types``, ``vars``, ``values``, ``unread`` and ``untyped`` its own."""

    #: the names of the initializers a caller may override (:func:`~.loading.overridable`)
    free: frozenset[str] = frozenset()
    #: the model serialized, its nodes' bytes cut from it and its graph inputs' names and
    #: types' bytes (:func:`.split.cut`), where :meth:`read_sources` was asked to cut
    #: them and did
    cut: tuple[bytes, list[bytes], tuple[list[str], list[bytes]] | None] | None = None

    def read_sources(self, formal: list[Type] | None = None,
                     values: Sequence[np.ndarray | None] = (), variables: bool = True,
                     cut: bool = False) -> list[Variable]:
        """The initializers and the graph inputs (of the types ``formal`` and with the
        known ``values`` when given: a subgraph's inputs as its node passes them), and
        the graph inputs' Variables (with ``variables=False``, none: each is made when a
        node asks for it, and the list is empty). With ``cut``, the main graph of a
        model of little data (:func:`.split.small_data`) is serialized once, first, and
        its bytes, its nodes' and its inputs' names and types' bytes kept in ``self.cut``
        (:func:`.split.cut`): its inputs' objects are made only where those are not
        listed, and where every input is a new name every type is read at once from its
        bytes (:func:`.typebytes.held_types`), as ``infer_shapes`` reads them."""
        graph, types, tensors = self.proto, self.types, self.tensors
        seen: dict[tuple, tuple] = {}  # (elem type, dims) -> as in _HEADERS
        raw = tensors.raw if self.parent is None else None  # (the main graph's only)
        protos = list(graph.initializer)
        names = list(map(_NAME, protos))  # (each name read once, in C)
        headers = list(zip(map(_DATA_TYPE, protos), [tuple(t.dims[:]) for t in protos],
                           strict=True))  # (element type, dims): a slice reads faster
        main = cut and self.parent is None and not variables and formal is None and \
            not values  # (infer_shapes' main graph: cut where its data is small)
        self.cut = split.cut(self.model, len(graph.node), len(graph.input)) if main and \
            split.small_data(self.model, headers) else None
        declared = None  # (the inputs' objects, made once where needed: protobuf makes
        # one anew each time the list is read where none is alive)
        listed = self.cut[2] if self.cut is not None else None  # (names, types' bytes)
        if listed is not None:
            named = listed[0]
        else:
            declared = list(graph.input)
            named = list(map(_NAME, declared))
        texts((*names, *named, *map(_NAME, graph.output)),
              f"graph {shown(graph.name)}" if type(graph.name) is str else "a graph")
        unique = frozenset(named)  # (each name hashed once, for the checks below)
        free = self.free = overridable(self.model, graph) if not \
            unique.isdisjoint(names) else frozenset()  # (none is an input)
        tokens = {} if not self.graph and self.parent is None else None  # (.nodeslot)
        known = _known(protos, headers, raw) if tokens is not None and not types and \
            not free and len(set(names)) == len(names) else None  # (a model typed again)
        if known is not None:
            types.update(zip(names, map(_TYPE, known), strict=True))
            self.unread.update(zip(names, protos, strict=True))
            tokens.update(zip(names, [initializer_token(f[0], t, True) if f[2] else f[3]
                                      for f, t in zip(known, protos, strict=True)], strict=True))
            protos = []  # (the loop below checks each one, and says why one fails)
        for i, t in enumerate(protos):
            name = names[i]
            if name in types:
                raise OnnxImportError(f"initializer {shown(name)}: the name is given to two "
                                      "initializers")
            header = headers[i]
            found = _HEADERS.get(header) or seen.get(header)
            held = raw[i] if raw else None
            if found is not None and found[1] and fits_inline(t, found[1], held):
                checked = found[0]  # (as Tensors.check: its raw data inline, of its size)
            else:
                checked = tensors.check(t, lambda name=name: f"initializer {shown(name)}",
                                        found[0] if found is not None else None, held)
                if found is None:
                    found = seen[header] = checked, inline_bytes(checked), \
                        math.prod(checked.shape) <= SMALL, initializer_token(checked, t, False)
                    if len(_HEADERS) >= _HEADERS_SIZE:
                        _HEADERS.clear()
                    _HEADERS[header] = found
            if name in free:  # a default the caller may override: typed as an input below
                types[name] = checked  # (for now: so that a second of the name is seen)
                continue
            if self.graph:
                data = tensors.array(t, f"initializer {shown(name)}")
                var = self.vars[name] = constant(data, name=name)
                types[name] = var.type
                self.values[name] = data
                continue
            types[name] = checked
            self.unread[name] = t
            if tokens is not None:
                tokens[name] = initializer_token(checked, t, True) if found[2] and \
                    t.data_location != _EXTERNAL else found[3]
        if graph.sparse_initializer:
            self.read_sparse(graph.sparse_initializer, unique, tokens)
        if len(unique) != len(named):
            _twice(named)
        read = None  # the inputs' types, read at once where every input is given
        if not variables and formal is None and not values and not free and \
                types.keys().isdisjoint(named):  # (infer_shapes' main graph, most often)
            read = held_types(listed[1]) if listed is not None else tensor_types(declared)
            if None not in read:  # every one a tensor's type of the common layout
                types.update(zip(named, read, strict=True))
                if tokens is not None:
                    tokens.update(zip(named, read, strict=True))
                    self.tokens = tokens  # (for the node slots)
                self.sources = len(types)
                return []
        if declared is None:
            declared = list(graph.input)
        # (name, info) of the inputs that are no initializers
        given = [(name, info) for name, info in zip(named, declared, strict=True)
                 if name not in types or name in free]
        if formal is not None and len(formal) != len(given):
            raise OnnxImportError(f"a subgraph with {len(given)} inputs is given "
                                  f"{len(formal)}")
        inputs = []
        if read is None:
            read = formal if formal is not None else tensor_types([info for _, info in given])
        for k, (name, info) in enumerate(given):
            if k < len(values) and values[k] is not None:
                self.values[name] = values[k]
            t = read[k]
            if t is None:  # (not a tensor's type of the common layout)
                try:
                    t = value_type(info)
                except UnsupportedType as exc:
                    self.untyped[name] = exc
                    types.pop(name, None)  # (an overridable initializer's)
                    continue
            types[name] = t
            if tokens is not None:
                tokens[name] = t
            if variables:
                var = self.vars[name] = t(name)
                inputs.append(var)
        self.sources = len(types)  # the first names of types: initializers and inputs
        if tokens is not None:
            self.tokens = tokens  # (for the node slots)
        return inputs


    def read_sparse(self, sparse: Sequence[onnx.SparseTensorProto], inputs: frozenset[str],
                    tokens: dict | None) -> None:
        """The sparse initializers, each typed as the dense tensor it stands for
        (onnxruntime densifies it), its value left unknown (its Variable a constant of
        it densified where the graph runs). One whose name a graph input declares is that
        input's default; a name given to a dense initializer too is refused, as onnx's
        checker refuses it (onnxruntime takes one of them, warning)."""
        types = self.types
        for sp in sparse:
            name = sp.values.name
            where = f"sparse initializer {shown(name)}"
            if name in inputs:  # (the input's declaration types it: a default)
                continue
            if name in types:
                dense = any(t.name == name for t in self.proto.initializer)
                raise OnnxImportError(
                    f"{where}: the name is given to a dense initializer too (onnx's checker "
                    "refuses a name given to both; onnxruntime takes one of them)" if dense
                    else f"{where}: the name is given to two sparse initializers")
            t = _sparse_type(sp, self.tensors, where)
            if self.graph:
                self.vars[name] = constant(_dense(sp, t, self.tensors, where), name=name)
            types[name] = t
            if tokens is not None:
                tokens[name] = t  # (a value not known, as a graph input's)


#: The most bytes a sparse initializer is densified to (where the graph runs): its data
#: may be a few bytes standing for a dense tensor of any size.
MAX_SPARSE_BYTES = 1 << 27


def _sparse_type(sp: onnx.SparseTensorProto, tensors: Any, where: str) -> TensorType:
    """The type of the dense tensor ``sp`` stands for, its values' and indices' headers
    checked against their data and against each other."""
    values = tensors.check(sp.values, f"{where}: values")
    dims = sp.dims[:]
    if len(dims) > MAX_RANK:
        raise OnnxImportError(f"{where}: {len(dims)} dims, at most {MAX_RANK} (NumPy's limit)")
    try:
        t = TensorType(values.dtype, dims)
    except (TypeError, ValueError) as exc:
        raise OnnxImportError(f"{where}: {exc}") from None
    if values.ndim != 1:
        raise OnnxImportError(f"{where}: its values have shape {values.shape}, one axis "
                              "(the number of entries) expected")
    count = values.shape[0]
    if count == 0 and not sp.HasField("indices"):
        return t
    indices = tensors.check(sp.indices, f"{where}: indices")
    if indices.dtype != "int64" or indices.shape not in ((count,), (count, len(dims))):
        raise OnnxImportError(f"{where}: its indices are {indices}, int64[{count}] or "
                              f"int64[{count},{len(dims)}] expected")
    if indices.ndim == 2 and not dims:
        raise OnnxImportError(f"{where}: its indices are coordinates of no axes (a scalar's), "
                              f"which onnxruntime refuses; int64[{count}] (linear) expected")
    if count > math.prod(dims):
        raise OnnxImportError(f"{where}: {count} entries of a tensor of {math.prod(dims)}")
    return t


def _dense(sp: onnx.SparseTensorProto, t: TensorType, tensors: Any, where: str
           ) -> np.ndarray:
    """The dense tensor of type ``t`` that ``sp`` stands for (its indices in range)."""
    values = tensors.array(sp.values, f"{where}: values")
    size = math.prod(t.shape)
    if size * values.itemsize > MAX_SPARSE_BYTES:
        raise OnnxImportError(f"{where}: {t} densified takes {size * values.itemsize} bytes, "
                              f"at most {MAX_SPARSE_BYTES}")
    out = np.full(size, "" if values.dtype == object else 0, dtype=values.dtype)
    if len(values):
        indices = tensors.array(sp.indices, f"{where}: indices")
        high = np.array(t.shape if indices.ndim == 2 else (size,))
        if (indices < 0).any() or (indices >= high).any():
            raise OnnxImportError(f"{where}: an index is out of the dims {list(t.shape)}")
        if indices.ndim == 2:  # (coordinates, of at least one axis)
            indices = np.ravel_multi_index(tuple(indices.T), t.shape)
        out[indices] = values
    return out.reshape(t.shape)


def _twice(names: list[str]) -> None:
    """Raise for the first name given to two graph inputs."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise OnnxImportError(f"graph input {shown(name)}: the name is given to two "
                                  "graph inputs")
        seen.add(name)

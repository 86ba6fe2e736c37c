"""Reading ONNX models' tensors, and the errors and message texts of reading a model:
hostile input, bounded before it is used (the model's own bytes are read by
:mod:`kantensor.onnx.modelfile`).

Every tensor's header is checked before anything is made from it (:meth:`Tensors.check`):
a known element type, at most :data:`MAX_RANK` axes, and exactly as many values as its
dims say, whether they are held in the model or in an external file.

External data is resolved with onnx's rules against the model's own folder, or the
``base_dir`` the caller gives; never against the working directory. Its ``location`` is
a relative path without ``..``; no part of it may be a symbolic link; it must name a
regular file holding the tensor's byte range (``offset``, ``length``). The data one
model reads from external files is at most the total size of the distinct files it
names, so overlapping ranges cannot multiply it (a range named again, by a copy of a
subgraph or a body read once more, is read once). A model given as bytes or as a
ModelProto names no folder: its external data needs ``base_dir``.
"""

from __future__ import annotations

import errno
import math
import os
import stat
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..types.dtypes import COMPLEX, DTYPE_TABLE, STRING, category
from ..types.limits import MAX_NDIM
from ..types.numpy_dtypes import numpy_dtype
from ..types.type import TensorType
from .dtypes import DTYPES, dtype_of

__all__ = ["MAX_MESSAGE", "MAX_RANK", "OnnxImportError", "Tensors", "clipped", "fits_inline",
           "inline_bytes", "opsets_of", "overridable", "shown", "texts"]

#: The first IR version whose initializers listed as graph inputs are defaults a caller
#: may override (ONNX IR spec; onnxruntime refuses such a feed below it: docs/onnx.rst).
OVERRIDABLE_IR = 4


def overridable(model: onnx.ModelProto, graph: onnx.GraphProto) -> frozenset[str]:
    """The names of ``graph``'s initializers that are also its inputs and that a caller may
    override at run time: in the model's main graph from IR version 4 on (a subgraph's
    inputs are what its node passes; below IR 4 every initializer is listed as an input
    and is a constant). Such a name is a graph input typed by its declaration, its
    value unknown: a size read from it holds for any value the caller feeds."""
    if graph is not model.graph or model.ir_version < OVERRIDABLE_IR or not graph.initializer:
        return frozenset()
    inputs = {info.name: info for info in graph.input}
    free = frozenset(t.name for t in graph.initializer if t.name in inputs)
    for t in graph.initializer:
        if t.name in free:
            _fits(t, inputs[t.name].type)
    return free


def _fits(default: onnx.TensorProto, declared: onnx.TypeProto) -> None:
    """Refuse (as onnxruntime does) an overridable initializer that its input's
    declaration does not fit: another element type, rank or size."""
    tensor = declared.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
    if declared.WhichOneof("value") != "tensor_type" or tensor.elem_type != default.data_type \
            or tensor.HasField("shape") and (len(dims) != len(default.dims) or any(
                d is not None and d != n for d, n in zip(dims, default.dims, strict=True))):
        raise OnnxImportError(
            f"initializer {shown(default.name)} (element type {default.data_type}, dims "
            f"{list(default.dims)}) is the default of a graph input declared otherwise "
            f"(element type {tensor.elem_type}, dims {dims if tensor.HasField('shape') else '?'})")


#: The most axes a tensor of a model may have (NumPy's own limit).
MAX_RANK = MAX_NDIM

#: The most characters of a name (a node's, a value's) that a message shows.
MAX_NAME = 100

#: The most characters of an error message about a model.
MAX_MESSAGE = 4096

#: Bits per value of each dtype (from the one table of dtypes): ONNX packs the sub-byte
#: ones (int4, int2, float4) into bytes.
_BITS = {d.name: d.bits for d in DTYPE_TABLE}
#: the dtypes whose values are held as raw bytes, never as strings
_RAW_DTYPES = frozenset(d.name for d in DTYPE_TABLE if category(d.name) is not STRING)
_EXTERNAL = onnx.TensorProto.EXTERNAL

def _plain(code: int, name: str) -> np.dtype | None:
    d = DTYPE_TABLE[[t.name for t in DTYPE_TABLE].index(name)]
    if name not in _RAW_DTYPES or d.bits < 8 or d.package != "numpy":
        return None  # (a string, a dtype of less than a byte, one of ml_dtypes)
    dtype = np.dtype(name)
    return dtype if helper.tensor_dtype_to_np_dtype(code) == numpy_dtype(name) == dtype \
        else None


#: ONNX element type -> the NumPy dtype its raw data is an array of, as onnx's reader
#: takes it (on a little-endian machine): read by one ``np.frombuffer`` (Tensors._value)
_PLAIN = {code: plain for code, name in DTYPES.items()
          if (plain := _plain(code, name)) is not None} if sys.byteorder == "little" else {}


class OnnxImportError(ValueError):
    """A model kantensor cannot read: a malformed graph or tensor, an input without a
    rank, a file that is no model, external data outside the model's folder."""


def shown(name: str) -> str:
    """``name`` quoted for a message, at most :data:`MAX_NAME` characters of it."""
    if len(name) <= MAX_NAME:
        return repr(name)
    return f"{name[:MAX_NAME]!r}... ({len(name)} characters)"


def texts(names: Any, what: str | Callable[[], str]) -> None:
    """Check that ``names`` (a model's names: of values, nodes, ops) are text: protobuf
    gives the bytes of one that is not UTF-8, which no name of a value can be
    (OnnxImportError, saying ``what`` holds it)."""
    names = names if type(names) is tuple else tuple(names)
    if _TEXT.issuperset(map(type, names)):  # (a model's every name checked in C)
        return
    for name in names:
        if type(name) is not str:
            raise OnnxImportError(f"{_text(what)}: the name {_bytes(name)} is not UTF-8 text")


_TEXT = frozenset((str,))


def _bytes(name: Any) -> str:
    return repr(name) if len(name) <= MAX_NAME else \
        f"{bytes(name[:MAX_NAME])!r}... ({len(name)} bytes)"


def opsets_of(model: onnx.ModelProto) -> dict[str, int]:
    """The version of each operator set domain the model imports (the default domain
    as ``""``)."""
    texts((e.domain for e in model.opset_import), "the model's opset imports")
    return {"" if e.domain == "ai.onnx" else e.domain: int(e.version)
            for e in model.opset_import}


def clipped(message: str) -> str:
    """``message`` cut to :data:`MAX_MESSAGE` characters (saying how long it was)."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE - 40]}... ({len(message)} characters)"


def inline_bytes(t: TensorType) -> int:
    """How many bytes of raw data a tensor of type ``t`` holds inline (0: it holds none,
    having no element or strings), as :meth:`Tensors.check` counts them."""
    return (math.prod(t.shape) * _BITS[t.dtype] + 7) // 8 if t.dtype in _RAW_DTYPES else 0


def fits_inline(proto: onnx.TensorProto, nbytes: int, raw: int | None) -> bool:
    """Whether ``proto``'s data is inline raw data of ``nbytes`` bytes (``raw``: the size
    of its raw data when known without reading it): a tensor whose raw data has the size
    its header needs needs no other check (:meth:`Tensors.check`'s first case)."""
    return proto.data_location != _EXTERNAL and not proto.HasField("segment") and \
        (raw if raw is not None else len(proto.raw_data)) == nbytes


def _digits(value: str, key: str, where: str) -> int:
    if not (value.isascii() and value.isdecimal() and len(value) <= 20):
        raise OnnxImportError(f"{where}: external data {key} {shown(value)} is not a "
                              "byte count")
    return int(value)


class Tensors:
    """The tensors of one model: their headers checked (:meth:`check`), their data read
    on demand (:meth:`array`), external data from ``folder`` only.

    ``given`` says how the model was given (for the message refusing external data
    without a folder); ``raw`` the sizes of the initializers' raw data, in order, when
    :func:`~.modelfile.raw_sizes` read them."""

    def __init__(self, folder: str | None, given: str = "a path",
                 raw: list[int | None] | None = None):
        self.folder = folder
        self.given = given
        self.raw = raw  # the sizes of the initializers' raw data, if read from the bytes
        self.files: dict[str, tuple[int, tuple[int, int]]] = {}  # location -> size, id
        self.sizes: dict[tuple[int, int], int] = {}  # a file (device, inode) -> its size
        self.claimed = 0  # bytes of external data the checked tensors claim
        self.ranges: set[tuple] = set()  # (file id, offset, length) claimed
        self.arrays: dict[tuple, np.ndarray] = {}  # a range read, as a dtype and dims

    def check(self, proto: onnx.TensorProto, where: str | Callable[[], str],
              known: TensorType | None = None, raw: int | None = None) -> TensorType:
        """The type of a tensor, from its header (``known``: the type of an equal header
        checked before), once its data is known to fit it (``raw``: the size of its raw
        data if known without reading it, see :func:`~.modelfile.raw_sizes`): OnnxImportError (or
        UnsupportedType for its element type) otherwise, naming the tensor ``where`` (a
        callable: the name made only for a message)."""
        dims = proto.dims[:]
        if known is None:
            dtype = DTYPES.get(proto.data_type)  # (its name made only for a message)
            if dtype is None:
                dtype = dtype_of(proto.data_type, _text(where), text=True)
            if len(dims) > MAX_RANK:
                raise OnnxImportError(f"{_text(where)}: {len(dims)} dims, at most {MAX_RANK} "
                                      "(NumPy's limit)")
            try:
                t = TensorType(dtype, dims)
            except (TypeError, ValueError) as exc:
                raise OnnxImportError(f"{_text(where)}: {exc}") from None
        else:
            t, dtype = known, known.dtype
        if dtype in _RAW_DTYPES and proto.HasField("raw_data") and \
                fits_inline(proto, (math.prod(dims) * _BITS[dtype] + 7) // 8, raw):
            return t  # (most initializers)
        if proto.HasField("segment"):
            raise OnnxImportError(f"{_text(where)}: segments of tensors are not supported")
        count = math.prod(dims)
        if proto.data_location == onnx.TensorProto.EXTERNAL:
            if category(dtype) is STRING:
                raise OnnxImportError(f"{_text(where)}: STRING data cannot be external")
            self._external(proto, _text(where), self._bytes(dtype, count))
            return t
        held, wanted, unit = self._held(proto, dtype, count, raw)
        if held != wanted:
            raise OnnxImportError(f"{_text(where)}: holds {held} {unit}, its dims {tuple(dims)} "
                                  f"need {wanted}")
        if category(dtype) is STRING:
            for s in proto.string_data:
                try:
                    s.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise OnnxImportError(f"{_text(where)}: a string is not UTF-8 ({exc.reason} "
                                          f"at byte {exc.start})") from None
        return t

    def array(self, proto: onnx.TensorProto, where: str) -> np.ndarray:
        """A checked tensor's values, in the NumPy dtype kantensor computes in (a range of
        an external file is read once: tensors naming it again share its array)."""
        dtype = dtype_of(proto.data_type, where, text=True)
        if proto.data_location == onnx.TensorProto.EXTERNAL:
            location, offset, length = self._external(proto, where, None)
            key = (self.files[location][1], offset, length, proto.data_type,
                   tuple(proto.dims))
            found = self.arrays.get(key)
            if found is None:
                inline = onnx.TensorProto(data_type=proto.data_type, dims=proto.dims)
                inline.raw_data = self._read(location, offset, length, where)
                found = self.arrays[key] = self._value(inline, dtype, where)
            return found
        return self._value(proto, dtype, where)

    @staticmethod
    def _value(proto: onnx.TensorProto, dtype: str, where: str) -> np.ndarray:
        plain = _PLAIN.get(proto.data_type)
        try:
            if plain is not None and proto.HasField("raw_data"):  # (as to_array reads it)
                return np.frombuffer(proto.raw_data, plain).reshape(proto.dims)
            value = numpy_helper.to_array(proto)
        except (TypeError, ValueError) as exc:  # checked: not expected, said if it comes
            raise OnnxImportError(clipped(f"{where}: {exc}")) from None
        return np.asarray(value).astype(numpy_dtype(dtype), copy=False)

    @staticmethod
    def _bytes(dtype: str, count: int) -> int:
        return (count * _BITS[dtype] + 7) // 8

    def _held(self, proto: onnx.TensorProto, dtype: str, count: int, raw: int | None
              ) -> tuple[int, int, str]:
        """How many bytes or values the tensor holds, how many its dims need, and the
        unit."""
        if category(dtype) is STRING:  # ONNX keeps strings in string_data only
            return len(proto.string_data), count, "strings"
        if proto.HasField("raw_data"):
            return raw if raw is not None else len(proto.raw_data), \
                self._bytes(dtype, count), "bytes"
        field = helper.tensor_dtype_to_field(proto.data_type)
        held = len(getattr(proto, field))
        if _BITS[dtype] < 8:  # packed, one byte per entry
            return held, self._bytes(dtype, count), f"{field} entries"
        return held, count * (2 if category(dtype) is COMPLEX else 1), f"{field} entries"

    def _external(self, proto: onnx.TensorProto, where: str, need: int | None
                  ) -> tuple[str, int, int]:
        """The file, offset and length of a tensor's external data, checked: its
        location by onnx's rules, its range within the file (and ``need`` bytes long);
        counted against the model's budget when ``need`` is given (the first check)."""
        keys = {e.key: e.value for e in proto.external_data}
        location = keys.get("location", "")
        offset = _digits(keys["offset"], "offset", where) if "offset" in keys else 0
        if self.folder is None:
            raise OnnxImportError(
                f"{where}: its data is in the external file {shown(location)}, but the "
                f"model was given as {self.given}, which names no folder: pass base_dir "
                "(the folder holding its external data), or the model's path")
        size, ident = self._file(location, where)
        if offset > size:
            raise OnnxImportError(f"{where}: external data offset {offset} is past the end "
                                  f"of {shown(location)} ({size} bytes)")
        length = _digits(keys["length"], "length", where) if "length" in keys else \
            size - offset
        if offset + length > size:
            raise OnnxImportError(f"{where}: external data of {length} bytes at offset "
                                  f"{offset} runs past the end of {shown(location)} "
                                  f"({size} bytes)")
        if need is not None:
            if length != need:
                raise OnnxImportError(f"{where}: external data of {length} bytes, its dims "
                                      f"{tuple(proto.dims)} need {need}")
            self.sizes[ident] = size
            if (ident, offset, length) in self.ranges:  # (one range again: a subgraph
                return location, offset, length  # read once more, or a sibling's copy)
            self.ranges.add((ident, offset, length))
            self.claimed += length
            total = sum(self.sizes.values())
            if self.claimed > total:
                raise OnnxImportError(
                    f"{where}: the model's tensors claim {self.claimed} bytes of external "
                    f"data, more than the {total} bytes of the files they name "
                    "(overlapping ranges)")
        return location, offset, length

    def _file(self, location: str, where: str) -> tuple[int, tuple[int, int]]:
        found = self.files.get(location)
        if found is None:
            fd = self._open(location, where)
            try:
                st = os.fstat(fd)
            finally:
                os.close(fd)
            found = self.files[location] = st.st_size, (st.st_dev, st.st_ino)
        return found

    def _open(self, location: str, where: str) -> int:
        """A descriptor of the regular file ``location`` names under the folder, opened
        one component at a time, none of them followed if it is a symbolic link."""
        bad = None
        if not location:
            bad = "no location"
        elif "\0" in location or "\\" in location:
            bad = "a location with a NUL or a backslash"
        elif os.path.isabs(location) or location[1:2] == ":":
            bad = "an absolute location"
        parts = [p for p in location.split("/") if p not in ("", ".")]
        if bad is None and ".." in parts:
            bad = "a location with '..'"
        if bad is None and not parts:
            bad = "a location naming no file"
        if bad is not None:
            raise OnnxImportError(f"{where}: external data at {bad} ({shown(location)}); "
                                  "it must be a relative path inside the model's folder")
        try:
            fd = os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as exc:
            raise OnnxImportError(f"{where}: cannot open the folder of its external data "
                                  f"{shown(str(self.folder))}: {exc.strerror}") from None
        try:
            for k, part in enumerate(parts):
                found = self._step(fd, part, k == len(parts) - 1, location, where)
                os.close(fd)
                fd = found
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OnnxImportError(f"{where}: its external data {shown(location)} is "
                                      "not a regular file")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _step(self, folder: int, part: str, last: bool, location: str, where: str) -> int:
        """``part`` opened in the open folder ``folder``: a folder, or the file when
        ``last`` (without waiting for a FIFO's writer); never through a link."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | \
            getattr(os, "O_NONBLOCK" if last else "O_DIRECTORY", 0)
        try:
            if stat.S_ISLNK(os.stat(part, dir_fd=folder, follow_symlinks=False).st_mode):
                raise OSError(errno.ELOOP, "a symbolic link")
            return os.open(part, flags, dir_fd=folder)
        except OSError as exc:
            what = "is a symbolic link" if exc.errno == errno.ELOOP else \
                f"cannot be opened: {exc.strerror}"
            whose = "" if last else f" ({shown(part)} of it)"
            raise OnnxImportError(f"{where}: its external data {shown(location)}{whose} "
                                  f"{what} (in {shown(str(self.folder))})") from None

    def _read(self, location: str, offset: int, length: int, where: str) -> bytes:
        fd = self._open(location, where)
        with os.fdopen(fd, "rb") as f:
            f.seek(offset)
            data = f.read(length)
        if len(data) != length:
            raise OnnxImportError(f"{where}: external data {shown(location)} ended after "
                                  f"{len(data)} of {length} bytes")
        return data


def _text(where: str | Callable[[], str]) -> str:
    """A tensor's name in messages (made now if given as a callable)."""
    return where if isinstance(where, str) else where()

"""Reading an ONNX model given as a path, bytes or a ModelProto: hostile input, bounded
before it is used (its tensors are :mod:`kantensor.onnx.loading`'s).

A model named by a path is read only if it is a regular file of at most
:data:`MAX_MODEL_BYTES` (``/dev/zero``, a FIFO or a folder is refused without reading it).
A large model (from a path or bytes) has the sizes of its initializers' raw data read from the
wire format (:func:`raw_sizes`), so checking them copies no data.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import onnx

from .loading import OnnxImportError, Tensors, clipped, shown
from .wire import field_number, fields

__all__ = ["MAX_MODEL_BYTES", "SCAN_BYTES", "open_model", "raw_sizes", "read_model"]

#: The largest model file read, in bytes (protobuf's own limit is 2 GiB).
MAX_MODEL_BYTES = 2 << 30


def _read_file(path: Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_MODEL_BYTES`."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens at once
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_MODEL_BYTES:
        os.close(fd)
        raise OnnxImportError(f"{shown(str(path))}: " + (
            "not a regular file" if not stat.S_ISREG(st.st_mode) else
            f"larger than {MAX_MODEL_BYTES} bytes (the most a model file may have)"))
    with os.fdopen(fd, "rb") as f:  # its size, and a byte more to see it did not grow
        data = f.read(st.st_size + 1)  # (read(n) takes n bytes of memory first)
    if len(data) != st.st_size:
        raise OnnxImportError(f"{shown(str(path))}: it changed while it was read")
    return data


#: Models of at least this many bytes have the sizes of their initializers' raw data read
#: from the bytes (:func:`raw_sizes`) instead of from the parsed tensors, which copy it.
SCAN_BYTES = 1 << 20

_GRAPH = field_number(onnx.ModelProto, "graph")
_INITIALIZER = field_number(onnx.GraphProto, "initializer")
_RAW_DATA = field_number(onnx.TensorProto, "raw_data")


def raw_sizes(data: bytes) -> list[int | None] | None:
    """The size of the raw data of each initializer of the serialized model ``data``, in
    order (None where it has none), read from the wire format without copying any data
    (a parsed TensorProto copies its ``raw_data`` each time it is read); None if the
    bytes are not read so."""
    try:
        out: list[int | None] = []
        for field, kind, start, end in fields(data, 0, len(data)):
            if field != _GRAPH or kind != 2:
                continue  # (a message field given twice is merged: each is scanned)
            for field2, kind2, start2, end2 in fields(data, start, end):
                if field2 == _INITIALIZER and kind2 == 2:
                    size = None
                    for field3, kind3, start3, end3 in fields(data, start2, end2):
                        if field3 == _RAW_DATA and kind3 == 2:
                            size = end3 - start3  # the last one counts, as when parsed
                    out.append(size)
        return out
    except (ValueError, IndexError):
        return None


def read_model(model: onnx.ModelProto | str | os.PathLike | bytes,
               base_dir: str | os.PathLike | None = None
               ) -> tuple[onnx.ModelProto, str | None, list[int | None] | None]:
    """``model`` as a ModelProto (a path or serialized bytes are parsed; external data is
    not read), the folder of its external data (``base_dir`` if given, else the folder
    of the model's path, else None: bytes and ModelProtos name none), and for a large
    model read from bytes the sizes of its initializers' raw data (:func:`raw_sizes`)."""
    folder = None if base_dir is None else os.fspath(base_dir)
    if isinstance(model, onnx.ModelProto):
        return model, folder, None
    if isinstance(model, bytes | bytearray | memoryview):
        data = bytes(model)
        if len(data) > MAX_MODEL_BYTES:
            raise OnnxImportError(f"the model is larger than {MAX_MODEL_BYTES} bytes")
    elif isinstance(model, str | os.PathLike):
        path = Path(model)
        data = _read_file(path)
        if folder is None:
            folder = os.fspath(path.parent)
    else:
        raise TypeError(f"expected a ModelProto, a path or bytes, got "
                        f"{type(model).__name__}")
    proto = onnx.ModelProto()
    try:
        proto.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError and the like: not a model
        raise OnnxImportError(clipped(f"not an ONNX model: {exc}")) from None
    sizes = raw_sizes(data) if len(data) >= SCAN_BYTES else None
    if sizes is not None and len(sizes) != len(proto.graph.initializer):
        sizes = None  # (not expected: then the tensors say)
    return proto, folder, sizes


def open_model(model: onnx.ModelProto | str | os.PathLike | bytes,
               base_dir: str | os.PathLike | None = None
               ) -> tuple[onnx.ModelProto, Tensors]:
    """``model`` as a ModelProto, and its :class:`~.loading.Tensors` (external data read
    from ``base_dir``, else from the model's own folder)."""
    proto, folder, raw = read_model(model, base_dir)
    given = "a ModelProto" if isinstance(model, onnx.ModelProto) else \
        "bytes" if not isinstance(model, str | os.PathLike) else "a path"
    return proto, Tensors(folder, given, raw)

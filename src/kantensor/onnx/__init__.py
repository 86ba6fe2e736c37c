"""ONNX models in and out (the ``onnx`` extra): :func:`from_onnx` reads a model as a
typed graph, :func:`infer_shapes` writes the inferred types into a copy of it, and
:func:`contract` says which input sizes it accepts.

The ONNX Ops are catalogue data in ``signatures/onnx/<family>.toml`` (see
:mod:`.registry`), one file per operator family as ONNX names it; each op's builder and
implementation lie side by side in the module (or package) of its family
(:mod:`.math`, :mod:`.nn`, :mod:`.tensor`, :mod:`.reduction`, :mod:`.logical`,
:mod:`.generator`, :mod:`.quantization`, :mod:`.rnn`, :mod:`.object_detection`,
:mod:`.image`, :mod:`.text`, :mod:`.traditionalml`, :mod:`.training`, :mod:`.preview`),
what several families share in :mod:`.shared`. The ops no signature over tensors types
have handlers (:mod:`.structured`): :mod:`.controlflow` (If, Loop, Scan; SequenceMap:
:mod:`.sequencemap`; loop sizes in closed form: :mod:`.recurrence`; subgraphs:
:mod:`.subgraph`, :mod:`.scope`), :mod:`.sequence` and :mod:`.optional`.
"""

from __future__ import annotations

from ..graph.heap import collector_paused

with collector_paused():  # onnx's and protobuf's objects too (see it)
    try:
        import onnx  # noqa: F401
    except ImportError as exc:  # pragma: no cover - the extra is not installed
        raise ImportError("kantensor.onnx needs the onnx package: pip install "
                          "'kantensor[onnx]'") from exc

    # The three family packages (a docstring each) whose modules nearly every model's
    # entries name: imported here, each found and read once at start (about 0.1 ms),
    # rather than inside a first infer_shapes. Their modules are still imported when an
    # entry first names one (issue 32, docs/performance.rst).
    from . import math, nn, tensor  # noqa: F401
    from .contract import contract
    from .dtypes import UnsupportedType
    from .importer import OnnxImportError, from_onnx
    from .registry import UnsupportedOp, supported
    from .shapes import infer_shapes
    from .subgraph import SizeCondition, SizeNote, size_conditions, size_notes

__all__ = ["OnnxImportError", "SizeCondition", "SizeNote", "UnsupportedOp", "UnsupportedType",
           "contract", "from_onnx", "infer_shapes", "size_conditions", "size_notes",
           "supported"]

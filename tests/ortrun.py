"""onnxruntime as an oracle that may crash: models run in a worker process.

onnxruntime dies with SIGFPE on some models with empty maps (a pool over nothing), so
each model runs in a child process that serves one request after another (keeping the
session of the last model, so a model run at many sizes is loaded once); a child that
dies is reported as a crash and replaced. :func:`run` returns the outputs' shapes, or a
:class:`Refusal` saying how onnxruntime refused (its error, or the signal that killed
it).

A run can also be judged with its windows watched (:class:`Watched`, :func:`judge`):
every convolution and pool node's input and output become outputs of the model, and a
run in which one of them has nothing to cover is an :class:`EmptyMap`: onnxruntime's own
output map is empty, or it computed a position from a window that overhangs its input
(its pools divide with C++'s truncation where ONNX's output-size formula floors, so
where the formula gives 0 positions onnxruntime gives 1), which ONNX's reference
implementation (``onnx.reference``), run on that one node at the input shape
onnxruntime fed it, shows as an empty map.
"""

from __future__ import annotations

import atexit
import pickle
import struct
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

#: The worker: reads (model, inputs) requests, the model as bytes or a file's path,
#: answers (shapes) or ("error", text). One thread per session: runs stay small and
#: several workers share the machine's cores.
WORKER = r"""
import pickle, struct, sys
import onnxruntime as ort
ort.set_default_logger_severity(4)
options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.inter_op_num_threads = 1
read, write = sys.stdin.buffer, sys.stdout.buffer
last = (None, None)  # the last model and its session: a model run at many sizes
while True:
    head = read.read(8)
    if len(head) < 8:
        break
    model, inputs = pickle.loads(read.read(struct.unpack("<Q", head)[0]))
    try:
        if last[0] != model:
            last = (None, None)
            last = (model, ort.InferenceSession(model, options,
                                                providers=["CPUExecutionProvider"]))
        answer = [tuple(o.shape) for o in last[1].run(None, inputs)]
    except Exception as exc:
        answer = ("error", str(exc).splitlines()[0][:300])
    data = pickle.dumps(answer)
    write.write(struct.pack("<Q", len(data)) + data)
    write.flush()
"""


@dataclass(frozen=True)
class Refusal:
    """onnxruntime did not run the model: ``why`` is its error or the signal."""

    why: str
    crashed: bool = False


_worker: list[subprocess.Popen] = []


def _start() -> subprocess.Popen:
    if not _worker or _worker[0].poll() is not None:
        _worker[:] = [subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)]
    return _worker[0]


def _stop() -> None:
    for proc in _worker:
        if proc.poll() is None:
            proc.stdin.close()
            proc.wait(timeout=10)


atexit.register(_stop)


def run(model: Any, inputs: dict[str, np.ndarray]) -> list[tuple[int, ...]] | Refusal:
    """The shapes of ``model``'s outputs computed by onnxruntime on ``inputs``, or a
    Refusal (its error, or the crash of the process that ran it)."""
    return _ask(model.SerializeToString(), inputs)


def _ask(model: bytes, inputs: dict[str, np.ndarray]) -> list[tuple[int, ...]] | Refusal:
    proc = _start()
    data = pickle.dumps((model, inputs))
    try:
        proc.stdin.write(struct.pack("<Q", len(data)) + data)
        proc.stdin.flush()
        head = proc.stdout.read(8)
    except BrokenPipeError:
        head = b""
    if len(head) < 8:  # the worker died on this model
        code = proc.wait(timeout=10)
        return Refusal(f"onnxruntime's process died (signal {-code})" if code < 0
                       else f"onnxruntime's process exited ({code})", crashed=True)
    answer = pickle.loads(proc.stdout.read(struct.unpack("<Q", head)[0]))
    if isinstance(answer, tuple) and answer and answer[0] == "error":
        return Refusal(answer[1])
    return answer


#: The ONNX ops whose output sizes count the positions of a window.
WINDOW_OPS = frozenset({"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"})


@dataclass(frozen=True)
class EmptyMap:
    """onnxruntime ran the model, but window ``node`` (an ``op``) had nothing to cover:
    its map is empty (``shape``) by ``by``: "onnxruntime" (its own output), or
    "onnx.reference" (ONNX's reference implementation on that node, at the input shape
    onnxruntime fed it, where onnxruntime computed a position from a partial window)."""

    node: str
    op: str
    shape: tuple[int, ...]
    by: str


class Watched:
    """``model`` with every window node's data input and output added as outputs (the
    model's own outputs first; ``data`` serialized once); :meth:`empty_map` reads a run of
    it."""

    def __init__(self, model: onnx.ModelProto):
        self.original = model
        watched = onnx.ModelProto()
        watched.CopyFrom(model)
        outputs = [o.name for o in model.graph.output]
        self.own = len(outputs)
        self.windows: list[tuple[onnx.NodeProto, int, int]] = []
        for node in model.graph.node:
            if node.op_type not in WINDOW_OPS or node.domain not in ("", "ai.onnx"):
                continue
            places = []
            for name in (node.input[0], node.output[0]):
                if name not in outputs:
                    outputs.append(name)
                    watched.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
                places.append(outputs.index(name))
            self.windows.append((node, *places))
        self.model = watched
        self.inits = {t.name: t for t in model.graph.initializer}
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          17)

    @cached_property
    def data(self) -> bytes:
        return self.model.SerializeToString()

    def empty_map(self, shapes: list[tuple[int, ...]]) -> EmptyMap | None:
        """The first window of a run of this model (the shapes of every output) with
        nothing to cover, or None."""
        for node, x, y in self.windows:
            out = shapes[y]
            name = node.name or node.output[0]
            if 0 in out[2:]:
                return EmptyMap(name, node.op_type, out, "onnxruntime")
            if 1 in out[2:] and 0 not in shapes[x]:  # where floor and truncation differ
                ref = self._reference(node, shapes[x])
                if ref is not None and 0 in ref[2:]:
                    return EmptyMap(name, node.op_type, ref, "onnx.reference")
        return None

    def _reference(self, node: onnx.NodeProto, shape: tuple[int, ...]
                   ) -> tuple[int, ...] | None:
        """The shape ONNX's reference implementation gives ``node``'s output on zeros of
        ``shape`` (None if a weight is not a constant of the model, or the reference
        raises)."""
        rest = [n for n in node.input[1:] if n]
        if any(n not in self.inits for n in rest):
            return None
        one = onnx.NodeProto()
        one.CopyFrom(node)
        del one.output[1:]
        graph = onnx.helper.make_graph(
            [one], "window", [onnx.helper.make_tensor_value_info(node.input[0],
                                                                onnx.TensorProto.FLOAT, shape)],
            [onnx.helper.make_empty_tensor_value_info(node.output[0])],
            [self.inits[n] for n in rest])
        model = onnx.helper.make_model(graph, opset_imports=[
            onnx.helper.make_opsetid("", self.opset)])
        try:
            (out,) = ReferenceEvaluator(model).run(None, {node.input[0]: np.zeros(shape,
                                                                                  np.float32)})
        except Exception:  # noqa: BLE001 - the reference says nothing here
            return None
        return tuple(np.shape(out))


def judge(watched: Watched, inputs: dict[str, np.ndarray]
          ) -> list[tuple[int, ...]] | Refusal | EmptyMap:
    """A run of a :class:`Watched` model by onnxruntime on ``inputs``: its outputs'
    shapes, or how it refused (a :class:`Refusal`), or the window it ran with nothing to
    cover (an :class:`EmptyMap`)."""
    found = _ask(watched.data, inputs)
    if isinstance(found, Refusal):
        return found
    return watched.empty_map(found) or found[:watched.own]

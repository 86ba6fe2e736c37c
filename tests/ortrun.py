"""onnxruntime as an oracle that may crash: models run in a worker process.

onnxruntime dies with SIGFPE on some models with empty maps (a pool over nothing), so
each model runs in a child process that serves one request after another (keeping the
session of the last model, so a model run at many sizes is loaded once); a child that
dies is reported as a crash and replaced. :func:`run` returns the outputs' shapes, or a
:class:`Refusal` saying how onnxruntime refused (its error, or the signal that killed
it).

tests/ortwindows.py judges a run with its convolution and pool windows watched.
"""

from __future__ import annotations

import atexit
import pickle
import struct
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The worker: reads (model, inputs, typed) requests, the model as bytes or a file's
#: path, answers (shapes, or (shape, dtype) pairs if typed) or ("error", text). One
#: thread per session: runs stay small and several workers share the machine's cores.
#: Graph optimisations are off: the oracle is the model as written (onnxruntime's
#: Reshape fusion rewrites ``[Shape(y)[0], Shape(x)[1]]`` into ``[-1, 0]`` and then
#: refuses empty inputs the model accepts).
WORKER = r"""
import pickle, struct, sys
import onnxruntime as ort
ort.set_default_logger_severity(4)
options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.inter_op_num_threads = 1
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
read, write = sys.stdin.buffer, sys.stdout.buffer
last = (None, None)  # the last model and its session: a model run at many sizes
while True:
    head = read.read(8)
    if len(head) < 8:
        break
    model, inputs, typed = pickle.loads(read.read(struct.unpack("<Q", head)[0]))
    try:
        if last[0] != model:
            last = (None, None)
            last = (model, ort.InferenceSession(model, options,
                                                providers=["CPUExecutionProvider"]))
        answer = [(tuple(o.shape), str(o.dtype)) if typed else tuple(o.shape)
                  for o in last[1].run(None, inputs)]
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
    return ask(model.SerializeToString(), inputs)


def ask(model: bytes | str, inputs: dict[str, np.ndarray], typed: bool = False) -> list | Refusal:
    """:func:`run` with the model serialized (bytes) or as a file's path; ``typed``: each
    output's (shape, dtype name)."""
    proc = _start()
    data = pickle.dumps((model, inputs, typed))
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

"""Contracts and refine on models exported from PyTorch, judged by onnxruntime (issues 33
and 35): for every ``*.onnx`` in a folder (the exports helper's dynamo and TorchScript
exports, with a ``<model>.sizes.json`` of size assignments they were checked at), this

* computes ``kantensor.onnx.contract`` (timed) and says whether it is exact;
* reads the model and runs ``kt.refine`` on its outputs given nothing, and given the
  first assignment of its ``sizes.json`` (timed together: the "refine" column);
* samples points of a window of affordable sizes: the +-1 neighbours of every boundary
  of the contract's boxes, then alternately points inside and outside the claimed set
  (tests/contract_points.py), and runs each with onnxruntime in a worker process whose
  memory (``RLIMIT_AS``) and time per run are bounded (a crash, a refusal, running out of
  memory or time all count as "fails"), with its convolution and pool windows watched
  (tests/ortwindows.py: a run through a window whose output differs from ONNX's
  output-size formula at the input onnxruntime fed it, or is empty, is invalid).

Per model it prints the contract's time and exactness, claimed-valid points that run of
those sampled, claimed-invalid points that fail outright of those sampled and, apart,
those that run only through such a window (one that overhangs its input by less than a
stride: ONNX's floor formula gives 0 positions and kantensor calls the point invalid,
onnxruntime's truncating division computes one; see tests/test_contracts_light.py) and,
with ``--zero``, the points where a Reshape's -1 sits beside a size that is 0 with
allowzero 1 (ONNX calls that shape invalid; onnxruntime divides the sizes that are not
0), undecided points, and every exception raised by the contract or refine (each one a
bug; tracebacks at the end).

Run: python benchmarks/export_contracts.py [--dir DIR] [--points 12] [--only NAME ...]
     [--memory-mb 3000] [--timeout 120] [--zero]
``KANTENSOR_EXPORTS`` and ``KANTENSOR_EXPORT_POINTS`` set the folder and the points.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import select
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import kantensor as kt  # noqa: E402
import kantensor.onnx as ko  # noqa: E402
from contract_points import points  # noqa: E402  (the light tests' sampler)
from ortrun import WORKER  # noqa: E402  (the tests' onnxruntime worker)
from ortwindows import Watched  # noqa: E402  (its windows watched)

#: The window of sizes sampled, by size name (from 1; from 0 with ``--zero``), and what
#: a run may cost.
WINDOW = {"batch": (1, 4), "height": (1, 400), "width": (1, 400), "seq": (1, 300),
          "samples": (1, 20000)}
DEFAULT_WINDOW = (1, 64)
BUDGET = 2 * 300 * 300  # the product of a point's sizes (batch*H*W, batch*seq*...)


class Runner:
    """onnxruntime in a worker process, bounded in memory and in time per run."""

    def __init__(self, memory_mb: int, timeout: float):
        self.memory, self.timeout = memory_mb * 2**20, timeout
        self.proc: subprocess.Popen | None = None

    def _limit(self) -> None:
        resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         preexec_fn=self._limit)
        return self.proc

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def run(self, path: str, inputs: dict[str, np.ndarray]) -> list | str:
        """The shapes of the model's outputs run by onnxruntime on ``inputs``, or how it
        failed."""
        proc = self._start()
        data = pickle.dumps((path, inputs, False))  # ortrun.WORKER: (model, inputs, typed)
        try:
            proc.stdin.write(struct.pack("<Q", len(data)) + data)
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
        if not ready:
            self.stop()
            return f"timeout ({self.timeout:.0f} s)"
        head = proc.stdout.read(8)
        if len(head) < 8:
            code = proc.wait()
            self.proc = None
            return f"crash (code {code})"
        answer = pickle.loads(proc.stdout.read(struct.unpack("<Q", head)[0]))
        if isinstance(answer, tuple) and answer and answer[0] == "error":
            return answer[1]
        return answer


@dataclass
class Row:
    name: str
    contract_ms: float = 0.0
    refine_ms: float = 0.0
    kind: str = "-"
    atoms: int = 0
    valid: list[int] = field(default_factory=lambda: [0, 0])      # run, sampled
    invalid: list[int] = field(default_factory=lambda: [0, 0])    # fail, sampled
    window: list[int] = field(default_factory=lambda: [0, 0])     # through a window, -
    zero: list[int] = field(default_factory=lambda: [0, 0])       # run, sampled
    undecided: list[int] = field(default_factory=lambda: [0, 0])  # run, sampled
    wrong: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)   # (where, traceback)


def _inputs(model: onnx.ModelProto, point: dict[str, int]) -> dict[str, np.ndarray]:
    """Arrays for the model's data inputs at ``point``: zeros (ones for a mask)."""
    inits = {t.name for t in model.graph.initializer}
    out = {}
    for info in model.graph.input:
        if info.name in inits:
            continue
        t = info.type.tensor_type
        shape = [point[d.dim_param] if d.dim_param else d.dim_value for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        fill = 1 if "mask" in info.name else 0
        out[info.name] = np.full(shape, fill, dtype)
    return out


def _affordable(p: dict[str, int]) -> bool:
    return int(np.prod(list(p.values()))) <= BUDGET


def _failed(row: Row, where: str) -> None:
    row.errors.append((where, traceback.format_exc()))


def measure(path: Path, total: int, runner: Runner, zero: bool = False) -> Row:
    name = path.name.removesuffix(".onnx")
    row = Row(name)
    model = onnx.load(str(path))
    sizes_file = path.with_name(name.split(".")[0] + ".sizes.json")
    given = json.loads(sizes_file.read_text())[0] if sizes_file.exists() else {}
    contract = None
    try:
        start = time.perf_counter()
        contract = ko.contract(model)
        row.contract_ms = 1000 * (time.perf_counter() - start)
        row.kind = "exact" if contract.exact else contract.label
        row.atoms = len(contract.atoms)
    except Exception:
        _failed(row, "contract")
    try:
        start = time.perf_counter()
        _, outputs = ko.from_onnx(model)
        kt.refine(outputs)
        kt.refine(outputs, given=given)
        row.refine_ms = 1000 * (time.perf_counter() - start)
    except Exception:
        _failed(row, "refine")
    if contract is None:
        return row
    try:
        window = {n: WINDOW.get(n, DEFAULT_WINDOW) for n in contract.names}
        if zero:
            window = {n: (0, hi) for n, (_, hi) in window.items()}
        chosen = points(contract, window, total, seed=33, affordable=_affordable)
        chosen += _more(window, total - len(chosen), chosen)
    except Exception:
        _failed(row, "sampling the contract")
        return row
    watched = Watched(model)
    with tempfile.TemporaryDirectory() as tmp:
        watched_path = str(Path(tmp) / path.name)
        onnx.save(watched.model, watched_path)
        for p in chosen:
            _judge(row, contract, model, p, runner.run(watched_path, _inputs(model, p)),
                   watched)
    return row


def _judge(row: Row, contract, model: onnx.ModelProto, p: dict[str, int], answer: list | str,
           watched: Watched) -> None:
    """Count point ``p`` claimed as ``contract`` says, run as ``answer`` (the shapes of the
    watched model's outputs, or how onnxruntime failed)."""
    claim = contract.holds(p).value
    ran = isinstance(answer, list)
    window = watched.window(answer) if ran else None
    clean = ran and window is None
    if claim is None:
        row.undecided[1] += 1
        row.undecided[0] += clean
    elif claim:
        row.valid[1] += 1
        row.valid[0] += clean
        if not clean:
            row.wrong.append(f"{p}: claimed valid, onnxruntime: {window or answer}")
    elif _zero_beside_minus_one(contract, model, p):
        row.zero[1] += 1
        row.zero[0] += clean
    else:
        row.invalid[1] += 1
        row.invalid[0] += not ran
        row.window[0] += window is not None
        if clean:
            row.wrong.append(f"{p}: claimed invalid ({contract.holds(p)}), "
                             "onnxruntime runs it")


def _more(window: dict, count: int, chosen: list[dict]) -> list[dict]:
    """Up to ``count`` more points of the window, where the sampler found too few (a
    contract that holds on the whole window has no invalid points to alternate with)."""
    rng = np.random.default_rng(33)
    out: list[dict] = []
    for _ in range(50 * max(count, 0)):
        if len(out) >= count:
            break
        p = {n: int(rng.integers(lo, hi + 1)) for n, (lo, hi) in window.items()}
        if _affordable(p) and p not in chosen and p not in out:
            out.append(p)
    return out


def _zero_beside_minus_one(contract, model: onnx.ModelProto, p: dict[str, int]) -> bool:
    """Whether the first atom ``p`` violates is a Reshape with allowzero 1 where a size
    beside its -1 is 0 (ONNX calls the shape invalid; onnxruntime divides the sizes
    that are not 0)."""
    if 0 not in p.values():
        return False
    nodes = {n.name: n for n in model.graph.node}
    found = [nodes.get(s.node) for s in contract.holds(p).atom.sources]
    return bool(found) and all(
        n is not None and n.op_type == "Reshape" and
        any(a.name == "allowzero" and a.i == 1 for a in n.attribute) for n in found)


def _ratio(pair: list[int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.environ.get(
        "KANTENSOR_EXPORTS", "/work/helpers/exports/models"))
    parser.add_argument("--points", type=int,
                        default=int(os.environ.get("KANTENSOR_EXPORT_POINTS", "12")))
    parser.add_argument("--only", nargs="*", default=None,
                        help="model names (such as resnet18.dynamo) to measure")
    parser.add_argument("--memory-mb", type=int, default=3000)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--zero", action="store_true", help="sample sizes from 0")
    args = parser.parse_args(argv)
    paths = sorted(Path(args.dir).glob("*.onnx"))
    if args.only:
        paths = [p for p in paths if p.name.removesuffix(".onnx") in args.only]
    runner = Runner(args.memory_mb, args.timeout)
    print(f"{'model':28s} {'contract':>9s} {'kind':11s} {'atoms':>5s} {'refine':>8s} "
          f"{'valid run':>9s} {'invalid fail':>12s} {'window':>6s} {'0 by -1 run':>11s} "
          f"{'undecided':>9s} exceptions", flush=True)
    rows = []
    try:
        for path in paths:
            row = measure(path, args.points, runner, args.zero)
            rows.append(row)
            where = ", ".join(w for w, _ in row.errors) or "-"
            print(f"{row.name:28s} {row.contract_ms:7.0f}ms {row.kind:11s} {row.atoms:5d} "
                  f"{row.refine_ms:6.0f}ms {_ratio(row.valid):>9s} {_ratio(row.invalid):>12s} "
                  f"{row.window[0]:>6d} {_ratio(row.zero):>11s} {_ratio(row.undecided):>9s} "
                  f"{where}", flush=True)
    finally:
        runner.stop()
    valid = [sum(r.valid[i] for r in rows) for i in (0, 1)]
    invalid = [sum(r.invalid[i] for r in rows) for i in (0, 1)]
    window = sum(r.window[0] for r in rows)
    undecided = [sum(r.undecided[i] for r in rows) for i in (0, 1)]
    zero = [sum(r.zero[i] for r in rows) for i in (0, 1)]
    print(f"\n{len(rows)} models: claimed-valid points run {_ratio(valid)}; of {invalid[1]} "
          f"claimed-invalid points {invalid[0]} fail outright and {window} run only through "
          f"a window outside ONNX's rule (apart: a 0 beside a -1 {_ratio(zero)} run), undecided "
          f"points run {_ratio(undecided)}, "
          f"{sum(len(r.errors) for r in rows)} exceptions, "
          f"{sum(r.kind not in ('exact', '-') for r in rows)} inexact contracts")
    for row in rows:
        for line in row.wrong:
            print(f"  {row.name}: {line}")
        for where, text in row.errors:
            print(f"\n{row.name}: exception in {where}:\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

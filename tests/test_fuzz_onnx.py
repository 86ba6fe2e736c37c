"""Fuzzing the ONNX entry points with structure-aware mutations of valid models.

Seeds are ONNX's own node test cases of the default domain (as ``tests/onnx_cases.py``
prepares them, with concrete and with symbolic sizes; If, Loop and Scan among them) and a
few whole models; each mutant is one to three edits of a seed's protobuf structure, of
its graph or of a subgraph (``tests/onnx_mutations.py``). Every mutant is read
by ``from_onnx`` and ``infer_shapes`` (and every fourth one by ``kantensor onnx``), in a
forked child under a memory limit with a per-case deadline (``tests/bounded.py``). The
only outcomes allowed are a typed model or a documented error (a ``ValueError`` or a
``TypeError``, of at most ``MAX_MESSAGE`` characters; the command's error one
``error: ...`` report without a traceback), and ``from_onnx`` and ``infer_shapes`` agree
on whether a model is typed (in whole, in part: an output an unsupported node reaches is
left untyped by ``infer_shapes`` and refused by ``from_onnx``, or not at all).

``KANTENSOR_FUZZ_ONNX_CASES`` sets the number of mutants (default 300); the long run is
``KANTENSOR_FUZZ_ONNX_CASES=80000 .venv/bin/python -m pytest tests/test_fuzz_onnx.py``.
The figures (cases, outcomes, slowest case per entry point, the children's peak memory)
are printed in the test summary.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections import Counter
from functools import cache

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_cases
import sizing
from bounded import run_cases
from fuzzing import STATS
from kantensor import cli
from kantensor.onnx import from_onnx
from kantensor.onnx.loading import MAX_MESSAGE
from kantensor.onnx.shapes import typed_model
from onnx_mutations import mutants

CASES = sizing.size("FUZZ_ONNX_CASES", 300, 80000)

#: Mutants per forked child (one child's limits hold for a batch).
BATCH = 250

#: Per entry point, the outcomes (``ok`` or the error's class name); ``peak_kb``: the
#: largest peak resident size of a child beyond what it had at the fork.
SUMMARY: dict = {"outcomes": {}, "peak_kb": 0, "start_kb": 0}

F = TensorProto.FLOAT

#: Outcomes of a model typed in part: infer_shapes leaves what an unsupported node (or
#: one whose sizes depend on a value the model does not fix) reaches untyped, and
#: from_onnx refuses an output it reaches with the node's error.
PARTIAL = {"partial", "UnsupportedOp", "UnsupportedType", "NotKnown"}


def _whole_models() -> list[onnx.ModelProto]:
    """A few models as exporters make them: a conv net, an attention block's shapes."""
    w = numpy_helper.from_array(np.ones((8, 3, 3, 3), np.float32), "w")
    fc = numpy_helper.from_array(np.ones((10, 8 * 4 * 4), np.float32), "fc")
    flat = numpy_helper.from_array(np.array([0, -1], np.int64), "flat")
    conv = helper.make_graph([
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p", "flat"], ["f"]),
        helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)], "conv",
        [helper.make_tensor_value_info("x", F, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", F, None)], [w, fc, flat])
    idx = [numpy_helper.from_array(np.array(i, np.int64), f"i{i}") for i in (0, 1)]
    heads = numpy_helper.from_array(np.array([4, 16], np.int64), "heads")
    zero = numpy_helper.from_array(np.array([0], np.int64), "zero")
    attention = helper.make_graph([
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["b"]),
        helper.make_node("Gather", ["s", "i1"], ["t"]),
        helper.make_node("Unsqueeze", ["b", "zero"], ["b1"]),
        helper.make_node("Unsqueeze", ["t", "zero"], ["t1"]),
        helper.make_node("Concat", ["b1", "t1", "heads"], ["shape4"], axis=0),
        helper.make_node("Reshape", ["x", "shape4"], ["r"]),
        helper.make_node("Transpose", ["r"], ["p"], perm=[0, 2, 1, 3]),
        helper.make_node("Expand", ["p", "shape4"], ["e"]),
        helper.make_node("Softmax", ["p"], ["y"], axis=-1)], "attention",
        [helper.make_tensor_value_info("x", F, ["batch", "seq", 64])],
        [helper.make_tensor_value_info("y", F, None)], [*idx, heads, zero])
    return [helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
            for g in (conv, attention)]


@cache
def seeds() -> list[onnx.ModelProto]:
    """The seed models: the node cases of the default domain (control flow, sequences
    and optionals too, their subgraphs mutated as well), concrete and symbolic, and
    whole models."""
    out = _whole_models()
    for case in onnx_cases.cases():
        if any("." in op for op in onnx_cases.op_types(case)):
            continue
        for symbolic in (False, True):
            with contextlib.suppress(Exception):  # a case onnx_cases cannot prepare
                out.append(onnx_cases.prepared(case, symbolic)[0])
    return out


def _quiet_cli(path: str) -> str:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = cli.main(["onnx", path])
    text = err.getvalue()
    if status == 0:
        return "ok"
    assert text.startswith("error: ") and "Traceback" not in text, text[:500]
    return "error"


def _runner(folder: str):
    """``run(case)`` for the child: a case is (entry point, serialized model)."""
    def run(case):
        entry, data, _ = case
        if entry == "from_onnx":
            from_onnx(data)
        elif entry == "infer_shapes":
            _, reader = typed_model(data)
            if any(o.name in reader.untyped for o in reader.proto.output):
                return "partial"  # (an output an unsupported node reaches: untyped)
        else:
            path = os.path.join(folder, "mutant.onnx")
            with open(path, "wb") as f:
                f.write(data)
            return _quiet_cli(path)
        return None
    return run


def _check(models: list[bytes], label: str) -> None:
    cases = [(entry, data, i) for i, data in enumerate(models)
             for entry in ("from_onnx", "infer_shapes", "kantensor onnx")[:3 if i % 4 == 0
                                                                           else 2]]
    records = []
    with tempfile.TemporaryDirectory() as folder:
        for start in range(0, len(cases), BATCH * 2):
            batch = cases[start:start + BATCH * 2]
            found, memory = run_cases(batch, _runner(folder))
            records += [{**r, "case": start + r["case"]} for r in found]
            SUMMARY["peak_kb"] = max(SUMMARY["peak_kb"],
                                     memory.get("peak_kb", 0) - memory.get("start_kb", 0))
            if len(found) < len(batch):
                break
    failures = []
    typed: dict[bytes, dict[str, bool]] = {}
    for r in records:
        entry, data, index = cases[r["case"]]
        outcome = r["outcome"]
        name = f"{entry} ({label})"
        SUMMARY["outcomes"].setdefault(name, Counter())[outcome] += 1
        stats = STATS.setdefault(name, [0, 0.0, ""])
        stats[0] += 1
        if r["seconds"] > stats[1]:
            stats[1], stats[2] = r["seconds"], f"{label} #{index}: {outcome}"
        documented = outcome in ("ok", "error", "partial") or r["documented"]
        if not documented:
            failures.append(f"{entry}: {outcome} on {label} #{index}: {r['message']}")
        elif r["length"] > MAX_MESSAGE:
            failures.append(f"{entry}: a message of {r['length']} characters: "
                            f"{r['message'][:300]}")
        if entry != "kantensor onnx":
            typed.setdefault(data, {})[entry] = "partial" if outcome in PARTIAL else outcome \
                if outcome == "ok" else "refused"
    for data, both in typed.items():
        if len(set(both.values())) > 1:
            failures.append(f"from_onnx and infer_shapes disagree on a mutant: {both}; "
                            f"{_first_lines(data)}")
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} failures)"


def _first_lines(data: bytes) -> str:
    model = onnx.ModelProto()
    model.ParseFromString(data)
    return str(model.graph)[:600]


@pytest.mark.parametrize("part", range(2))
def test_mutated_models_are_typed_or_refused_with_a_documented_error(part):
    models = mutants(seeds(), CASES // 2, seed=100 + part)
    _check(models, "mutants")


def test_the_reproducers_of_the_issue_are_bounded():
    """The hostile files the issue names, through the same harness."""
    hostile = []
    for k in (10**7, 2**31, 2**62):
        for as_input in (True, False):
            x = helper.make_tensor_value_info("x", F, ["n"])
            shape = TensorProto(name="s", data_type=TensorProto.INT64, dims=[k])
            inputs = [x, helper.make_tensor_value_info("s", TensorProto.INT64, [k])] \
                if as_input else [x]
            for op in ("Reshape", "Expand"):
                g = helper.make_graph([helper.make_node(op, ["x", "s"], ["y"])], "g",
                                      inputs, [helper.make_tensor_value_info("y", F, None)],
                                      [] if as_input else [shape])
                hostile.append(helper.make_model(g).SerializeToString())
    _check(hostile, "reproducers")
    assert SUMMARY["outcomes"]["from_onnx (reproducers)"] == Counter(
        {"OnnxImportError": len(hostile)})

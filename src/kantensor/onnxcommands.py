"""The ONNX commands of the ``kantensor`` command line: ``kantensor onnx MODEL`` (the
types of a model's inputs and outputs) and ``kantensor contract MODEL`` (the input sizes
it accepts). Both need the onnx extra and say how to install it when it is missing."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:  # the onnx extra: ``kantensor onnx MODEL``, ``kantensor check`` of ONNX entries
    from . import onnx as onnx_models
    from .onnx import registry as onnx_registry
    from .onnx.contract import data_inputs
    from .onnx.contract import report as contract_report
except ImportError:  # pragma: no cover - the command says how to install it
    onnx_models = onnx_registry = contract_report = data_inputs = None

__all__ = ["onnx_models", "onnx_registry", "run_contract", "run_onnx"]


def run_onnx(model: str, output: str | None = None, out: Any = None) -> int:
    """``kantensor onnx``: print the type of every graph input and output of an ONNX
    model (and with ``output``, write the model typed by
    :func:`kantensor.onnx.infer_shapes`). External data is read from the model's folder
    only."""
    if onnx_models is None:
        raise ValueError("kantensor onnx needs the onnx package: pip install "
                         "'kantensor[onnx]'")
    out = out or sys.stdout
    try:
        typed, reader = onnx_models.shapes.typed_model(model)
    except OSError as exc:
        raise ValueError(f"cannot read {model}: {exc.strerror or exc}") from None
    graph = typed.graph
    for name in data_inputs(typed):  # (an overridable initializer is an input)
        print(f"input  {name}: {_typed(reader, name)}", file=out)
    for info in graph.output:  # an output an unsupported node reaches says why
        print(f"output {info.name}: {_typed(reader, info.name)}", file=out)
    if output is not None:
        try:
            Path(output).write_bytes(typed.SerializeToString())
        except OSError as exc:
            raise ValueError(f"cannot write {output}: {exc.strerror or exc}") from None
    return 0


def run_contract(model: str, fix: Sequence[str] = (), trt: bool = False,
                 inputs: Sequence[str] = (), opset: int | None = None,
                 opt: Sequence[str] = (), out: Any = None) -> int:
    """``kantensor contract``: print which input sizes an ONNX model accepts (see
    :func:`kantensor.onnx.contract.report`): ``fix`` gives sizes (``N=1``, ``W=H``),
    ``inputs`` names an input's dims (``data_0=N,3,H,W``), ``trt`` adds TensorRT
    profiles around the sizes ``opt`` gives."""
    if onnx_models is None:
        raise ValueError("kantensor contract needs the onnx package: pip install "
                         "'kantensor[onnx]'")
    fixed = {k: int(v) if v.isdigit() else v for k, v in _pairs(fix, "--fix").items()}
    dims = {k: tuple(int(d) if d.isdigit() else None if d == "?" else d
                     for d in v.split(",")) for k, v in _pairs(inputs, "--input").items()}
    wanted = {}
    for k, v in _pairs(opt, "--opt").items():
        if not v.isdigit():
            raise ValueError(f"--opt {k}={v}: a size is an int")
        wanted[k] = int(v)
    try:
        text = contract_report(model, fix=fixed, trt=trt, inputs=dims or None,
                               opset=opset, opt=wanted or None)
    except OSError as exc:
        raise ValueError(f"cannot read {model}: {exc.strerror or exc}") from None
    print(text, file=out or sys.stdout)
    return 0


def _pairs(words: Sequence[str], flag: str) -> dict[str, str]:
    """``NAME=VALUE`` words as a dict (a clear error for any other word)."""
    out = {}
    for w in words:
        name, eq, value = w.partition("=")
        if not eq or not name or not value:
            raise ValueError(f"{flag} takes NAME=VALUE, got {w!r}")
        out[name.strip()] = value.strip()
    return out


def _typed(reader: Any, name: str) -> str:
    """A value's type as the reader of a model found it, or why it has none."""
    t = reader.types.get(name)
    return str(t) if t is not None else f"not typed ({reader.untyped.get(name)})"

"""The Python bytecodes each function runs in a first ``infer_shapes`` of a model and in a
second call on it with other size names, and the difference: where the first use goes,
by Python function, counted (not timed) so that it is the same on a loaded machine.

Callgrind (cold_instructions.py, cold_parts.py) counts instructions by C function: the
evaluation loop, dictionary lookups, marshal; a Python function is found there only by
wrapping it (cold_parts.py). Here ``sys.settrace`` with opcode events counts, for every
Python function, the bytecodes it runs itself (``self``) and with its callees
(``inclusive``: a recursive function counted at its outermost call), and how many times
it is called, in each call; the rows are sorted by the first call's excess over the
second. Bytecodes are not instructions either: a bytecode that calls into C (a JSON
decode, a CRC, an import's unmarshalling) counts one, so read the C side with callgrind.
Both calls run in one fresh process after ``import kantensor.onnx``, on the model with
``_1`` and then ``_2`` added to its size names (as cold_instructions.py's SECOND renames
them: the two calls share no size name), each under the tracer.

Run: PYTHONHASHSEED=0 python benchmarks/cold_bytecodes.py [--inclusive] [--rows N] MODEL
"""

from __future__ import annotations

import argparse
import collections
import sys
import warnings
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import onnx

import kantensor.onnx as ko

#: A function's row: where its code starts and its qualified name.
Key = str


def renamed(data: bytes, suffix: str) -> onnx.ModelProto:
    """The model of ``data`` with ``suffix`` added to each size name of its inputs."""
    out = onnx.load_from_string(data)
    for value in out.graph.input:
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param:
                dim.dim_param += suffix
    return out


def _key(code: CodeType) -> Key:
    name = code.co_filename
    for root in (str(Path(ko.__file__).parent.parent) + "/", str(Path(warnings.__file__)
                                                                   .parent) + "/"):
        name = name.replace(root, "")
    return f"{name}:{code.co_firstlineno}:{code.co_qualname}"


def counted(model: onnx.ModelProto) -> tuple[collections.Counter, collections.Counter,
                                             collections.Counter]:
    """The bytecodes run by each function in ``infer_shapes(model)``, its own and with
    its callees, and its calls."""
    own: collections.Counter = collections.Counter()
    inclusive: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    stack: list[list[Any]] = []

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            key = _key(frame.f_code)
            calls[key] += 1
            stack.append([key, 0])
        elif event == "opcode":
            own[stack[-1][0]] += 1
            stack[-1][1] += 1
        elif event == "return" and stack:
            key, n = stack.pop()
            if stack:
                stack[-1][1] += n
            if all(k != key for k, _ in stack):
                inclusive[key] += n
        return tracer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.settrace(tracer)
        try:
            ko.infer_shapes(model)
        finally:
            sys.settrace(None)
    return own, inclusive, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model", type=Path)
    parser.add_argument("--inclusive", action="store_true", help="sort and show the "
                        "bytecodes with callees, not a function's own")
    parser.add_argument("--rows", type=int, default=40)
    args = parser.parse_args()
    data = args.model.read_bytes()
    first, second = counted(renamed(data, "_1")), counted(renamed(data, "_2"))
    column = 1 if args.inclusive else 0
    print(f"bytecodes: first call {sum(first[0].values()):,}, second "
          f"{sum(second[0].values()):,}")
    print(f"{'first - second':>14} {'calls':>6}  function")
    excess = collections.Counter({key: first[column][key] - second[column][key]
                                  for key in first[column]})
    for key, n in excess.most_common(args.rows):
        print(f"{n:>14,} {first[2][key] - second[2][key]:>6}  {key}")


if __name__ == "__main__":
    main()

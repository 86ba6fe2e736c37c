"""One tool typing the transformer of onnx_model.py (or the model file ``--model`` names,
its value_info and output shapes removed) in this process, for onnx_compare.py and
onnx_exports.py: prints the first call's seconds and the best of the calls after it.
The process imports onnx, the model builder and the one tool timed, nothing of the other
tools or of the node-case harness: importing onnx.reference (as the harness does) fills
onnx's schema registry, which onnx's first inference call otherwise fills itself (about
9 ms).

Run: python benchmarks/onnx_time.py TOOL [--layers 34] [--width 64] [--repeat 20]
     [--clock cpu] [--node-by-node] (``cpu``: this process's CPU time, steadier on a
     shared machine; ``--node-by-node``: kantensor's model memo emptied before each call,
     so that each reads every node, as for a model edited slightly).
     python benchmarks/onnx_time.py TOOL --model PATH [--repeat 20] [--clock cpu]
"""

from __future__ import annotations

import argparse
import importlib
import time
import warnings
from collections.abc import Callable

import onnx
from onnx_model import WIDTH, transformer

#: Per tool: the module to import and the call that types a model.
TOOLS = {
    "kantensor": ("kantensor.onnx", lambda mod, m: mod.infer_shapes(m)),
    "onnx": ("onnx.shape_inference", lambda mod, m: mod.infer_shapes(m, data_prop=True)),
    "onnxruntime": ("onnxruntime.tools.symbolic_shape_infer",
                    lambda mod, m: mod.SymbolicShapeInference.infer_shapes(m, auto_merge=True)),
}

Tool = Callable[[onnx.ModelProto], onnx.ModelProto]


def tool(name: str) -> Tool:
    """The shape inference ``name`` of :data:`TOOLS`, its module imported now (only this
    one); ImportError when it is not installed."""
    module_name, call = TOOLS[name]
    module = importlib.import_module(module_name)
    return lambda model: call(module, model)


def stripped(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` without the types its exporter wrote for its values and outputs."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.value_info[:]
    for o in out.graph.output:
        o.type.tensor_type.ClearField("shape")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tool", choices=sorted(TOOLS))
    parser.add_argument("--layers", type=int, default=34)
    parser.add_argument("--width", type=int, default=WIDTH)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--model", help="an .onnx file to time instead of the transformer")
    parser.add_argument("--node-by-node", action="store_true",
                        help="kantensor: empty the model memo before each call, so that "
                        "every call reads the nodes (as for a model edited slightly)")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    infer = tool(args.tool)  # the one tool timed (see the docstring)
    model = stripped(onnx.load(args.model)) if args.model else transformer(args.layers,
                                                                           args.width)
    data = model.SerializeToString()
    times = []
    forget = importlib.import_module("kantensor.onnx.modelmemo").MODELS.clear \
        if args.node_by_node and args.tool == "kantensor" else lambda: None
    for _ in range(args.repeat + 1):
        forget()
        start = clock()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            infer(onnx.load_from_string(data))
        times.append(clock() - start)
    print(times[0], min(times[1:]))


if __name__ == "__main__":
    main()

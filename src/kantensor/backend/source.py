"""The text of a generated function, and the code of one node in it (see linker.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..types.basic_ops import cast_array
from ..types.type import TensorType
from .calls import CONST, REF, Call


class Source:
    """The text and the namespace of a generated function."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {"ND": np.ndarray, "cast": cast_array}
        self.names: dict[Variable, str] = {}
        #: Variables whose values surely have their type's dtype (filtered inputs,
        #: constants, cast kernel outputs): a cast to that dtype is left out.
        self.exact: set[Variable] = set()
        self.constants: dict[tuple, np.ndarray] = {}  # cast constants, for plan_call

    def glob(self, prefix: str, value: Any) -> str:
        name = f"{prefix}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def ref(self, v: Variable) -> str:
        if v not in self.names:
            if not isinstance(v, Constant):
                raise ValueError(f"{v} is used before it is computed")
            self.names[v] = self.glob("c", v.data)
            self.exact.add(v)
        return self.names[v]

    def local(self, v: Variable) -> str:
        if v not in self.names:
            self.names[v] = f"v{len(self.names)}"
        return self.names[v]


def emit_node(src: Source, node: Apply, call: Call | None,
               sizes: dict[Apply, Callable[..., Any]]) -> None:
    """The plain code of one node."""
    if node in sizes:
        src.lines.append(f"{src.local(node.outputs[0])} = "
                         f"{src.glob('size', sizes[node])}(bindings, origins)")
    elif call is None:
        emit_perform(src, node)
    else:
        emit_kernel(src, node, call)


def fast_input_test(src: Source, name: str, ttype: Any) -> str | None:
    """A condition true unless ``name`` needs the full filter: not an ndarray of exactly
    the type's dtype, rank and static sizes. None for types other than TensorType."""
    if not isinstance(ttype, TensorType):
        return None
    dtype = src.glob("D", ttype.numpy_dtype)
    tests = [f"{name}.__class__ is not ND", f"{name}.dtype is not {dtype}",
             f"{name}.ndim != {ttype.ndim}"]
    tests += [f"{name}.shape[{axis}] != {ttype.shape[axis]}" for axis in ttype._static]
    return " or ".join(tests)


def emit_perform(src: Source, node: Apply) -> None:
    """Call ``perform`` with cells of its own (an Op without a kernel)."""
    args = ", ".join(src.ref(v) for v in node.inputs)
    cells = f"cells{len(src.names)}"  # a local: each call has its own
    src.lines.append(f"{cells} = [{', '.join(['[None]'] * len(node.outputs))}]")
    src.lines.append(f"{src.glob('p', node.op.perform)}({src.glob('n', node)}, [{args}], "
                     f"{cells})")
    for j, v in enumerate(node.outputs):
        src.lines.append(f"{src.local(v)} = {cells}[{j}][0]")


def emit_kernel(src: Source, node: Apply, call: Call) -> None:
    text = f"{src.glob('k', call.fn)}({', '.join(kernel_args(src, call))})"
    outs = [src.local(v) for v in node.outputs]
    src.lines.append(f"{outs[0]} = {text}" if len(outs) == 1
                     else f"{', '.join(outs)}, = {text}")
    if call.guard:
        for name, v in zip(outs, node.outputs, strict=True):
            dtype = src.glob("D", v.type.numpy_dtype)
            src.lines.append(f"if {name}.__class__ is not ND or {name}.dtype is not {dtype}: "
                             f"{name} = cast({name}, {v.type.dtype!r})")


def kernel_args(src: Source, call: Call, names: dict | None = None) -> list[str]:
    """The arguments of a kernel call, as text (``names``: other names for some
    Variables, as in a block run)."""
    args = []
    for arg in call.args:
        if arg[0] is REF:
            args.append(names[arg[1]] if names and arg[1] in names else src.ref(arg[1]))
        elif arg[0] is CONST:
            args.append(src.glob("c", arg[1]))
        else:
            args.append(f"cast({src.ref(arg[1])}, {arg[2]!r})")
    if call.kwargs:
        args.append(f"**{src.glob('kw', call.kwargs)}")
    return args

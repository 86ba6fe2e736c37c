"""ONNX's SequenceMap (``onnx/defs/sequence``; ``signatures/onnx/controlflow.toml``, beside
the other ops holding subgraphs): its handler beside its kernel.

SequenceMap types its body on each element (each element's own type when the sequence
states them) and gives sequences as long as its input. Its element types are its
schema's (:data:`~.sequence.ELEMENTS`, at every opset): the input sequence's (``S``),
the additional inputs', tensors or sequences (``V``), and the body's outputs', which
become the output sequences' elements (``S``).

Its body runs as a compiled kantensor function (:class:`~.runner.Runner`) when the graph
runs.
"""

from __future__ import annotations

from typing import Any

import onnx

from ..graph.type import Type
from ..types.containers import SequenceType
from ..types.type import TensorType
from .controlflow import check_declared
from .needs import body_conditions
from .registry import UnsupportedOp
from .runner import Runner, runner
from .sequence import apply, sequence_of, taken
from .structured import Structured, needed
from .subgraph import output_types


class SequenceMap(Structured):
    attributes = {"body": "graph"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        if "body" not in attrs:
            raise TypeError("SequenceMap needs its body")
        ins = [scope.var(n, node) for n in node.input if n]
        if not ins or not isinstance(ins[0].type, SequenceType):
            raise TypeError("SequenceMap's first input must be a sequence")
        sequence_of(ins[0], "input_sequence")
        for k, v in enumerate(ins[1:], 1):
            if not isinstance(v.type, TensorType | SequenceType):
                raise TypeError(f"additional input {k} must be a tensor or a sequence, "
                                f"got {v.type}")
            taken(v.type.dtype, f"additional input {k}")
        check_declared(attrs["body"], [v.type for v in ins], label)
        seqs = [v.type for v in ins if isinstance(v.type, SequenceType)]
        lengths = {s.length for s in seqs if s.length is not None}
        ints = {n for n in lengths if isinstance(n, int)}
        if len(ints) > 1:
            raise ValueError(f"the sequences have different lengths {sorted(ints)}")
        length = seqs[0].length if seqs[0].length is not None else \
            next(iter(lengths), None)

        def element(t: Type, i: int | None) -> Type:
            if not isinstance(t, SequenceType):
                return t
            e = t.at(i) if i is not None else t.element
            if e is None:
                raise UnsupportedOp(f"the rank of the elements of {t} is not known")
            return e

        per: list[list[Type]] | None = None
        if isinstance(length, int) and any(s.elements is not None for s in seqs) and \
                length <= 64:
            per = [output_types(scope.child(attrs["body"], [element(v.type, i) for v in ins],
                                        graph=False), label) for i in range(length)]
        typed = scope.child(attrs["body"], [element(v.type, None) for v in ins], graph=False)
        shared = output_types(typed, label)
        types: list[Type] = []
        for k, t in enumerate(shared):
            if not isinstance(t, TensorType):
                raise TypeError(f"the body's output {k} is {t}; SequenceMap makes "
                                "sequences of tensors")
            taken(t.dtype, f"the body's output {k}")
            if per is not None:
                types.append(SequenceType(t.dtype, elements=[p[k] for p in per]))
            else:
                types.append(SequenceType(t.dtype, t.shape, length))
        body = None
        outer_names: list[str] = []
        if scope.graph:
            body = runner(scope.child(attrs["body"], [element(v.type, None) for v in ins],
                                      graph=True), f"{label}: body")
            outer_names = list(body.captured)
        outer = [scope.var(n, node) for n in outer_names]
        kinds = tuple(isinstance(v.type, SequenceType) for v in ins)
        outs = apply("SequenceMap", sequence_map, tuple(types), [*ins, *outer], body=body,
                     kinds=kinds)
        needed(scope, outs, body_conditions(scope, node, label, typed, length))
        return [(o, None) for o in outs]


def sequence_map(*args: Any, body: Runner, kinds: tuple[bool, ...]) -> Any:
    ins, outer = args[:len(kinds)], args[len(kinds):]
    n = len(ins[0])
    collected: list[list] = []
    for i in range(n):
        out = body(*(x[i] if seq else x for x, seq in zip(ins, kinds, strict=True)), *outer)
        if not collected:
            collected = [[] for _ in out]
        for k, value in enumerate(out):
            collected[k].append(value)
    result = collected or [[] for _ in range(len(body.outputs))]
    return result[0] if len(result) == 1 else tuple(result)


__all__ = ["SequenceMap"]

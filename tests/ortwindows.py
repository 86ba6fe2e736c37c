"""onnxruntime's runs judged with their convolution and pool windows watched, against
ONNX's output-size formula.

A window that does not fit its padded input makes a point invalid (issue 33, point 5):
ONNX's formula gives such a window ``floor((in + pads - dilation*(k - 1) - 1)/stride) + 1
<= 0`` positions. onnxruntime refuses it for Conv, but its pools divide with C++'s
truncation, so where a window overhangs its input by less than a stride the formula's 0
is 1 there: a position computed from a partial window, and the model runs on. So the
windows are watched (:class:`Watched`: every Conv and pool node's data input and output
become outputs of the model), and :func:`judge` says a run went outside ONNX's rule
(a :class:`Window`) where a window's output differs from the formula applied to the
input shape onnxruntime fed it ("truncated"), or is empty ("empty"). The first such node
of a run is cross-checked with ONNX's reference implementation (``onnx.reference``, run
on that node alone at that input shape): ``Window.reference`` is its output's shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

import ortrun

#: The ONNX ops whose output sizes count the positions of a window (ConvTranspose's do
#: not: its output grows with its input).
WINDOW_OPS = frozenset({"Conv", "MaxPool", "AveragePool", "LpPool"})


@dataclass(frozen=True)
class Window:
    """onnxruntime ran the model, but window node ``node`` (an ``op``) went outside ONNX's
    rule: its output ``shape`` differs from ``spec``, the formula's on the input shape
    onnxruntime fed it (``why`` "truncated"), or is empty ("empty"). ``reference``: the
    shape onnx.reference gives that node there (None where it could not run it)."""

    node: str
    op: str
    shape: tuple[int, ...]
    spec: tuple[int, ...] | None
    why: str
    reference: tuple[int, ...] | None = None
    inferred: tuple[int, ...] | None = None

    @property
    def agreed(self) -> bool | None:
        """Whether onnx.reference's spatial sizes are the formula's on every axis where
        onnxruntime's are not (None: not run). (A SAME_LOWER MaxPool dilated on one axis,
        kernel 1 stride 2 on the other: onnxruntime departs on the first, onnx.reference
        on the second, gives 0 over 1, so both axes compared never agree.)"""
        if self.reference is None or self.spec is None:
            return None
        return all(r == f for r, f, o in zip(self.reference[2:], self.spec, self.shape[2:],
                                             strict=True) if o != f)

    @property
    def inference_agrees(self) -> bool:
        """Whether onnxruntime's spatial sizes are the ones onnx's shape inference gives
        that node alone at that input shape, where the formula (the operator's doc) says
        otherwise: a VALID pool in ceil mode, kernel 2, stride 2 over 3 positions has 2
        for both (a last window that starts inside the input), 1 by the doc's formula;
        onnx.reference refuses it (an assertion)."""
        return self.inferred is not None and tuple(self.shape[2:]) == self.inferred


def spec_sizes(node: onnx.NodeProto, shape: tuple[int, ...],
               weights: dict[str, onnx.TensorProto]) -> tuple[int, ...] | None:
    """The spatial output sizes ONNX's formula gives window ``node`` on an input of
    ``shape`` (None: a Conv whose kernel is neither an attribute nor a constant)."""
    at = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    n = len(shape) - 2
    kernel = at.get("kernel_shape")
    if kernel is None:
        w = weights.get(node.input[1]) if len(node.input) > 1 else None
        if w is None:
            return None
        kernel = list(w.dims[2:])
    strides = at.get("strides") or [1] * n
    dilations = at.get("dilations") or [1] * n
    pads = at.get("pads") or [0] * (2 * n)
    auto = at.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    ceil = bool(at.get("ceil_mode", 0))
    out = []
    for i in range(n):
        size, s, span = shape[2 + i], strides[i], dilations[i] * (kernel[i] - 1) + 1
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-size // s)
        elif auto == "VALID":
            o = -(-(size - span + 1) // s)
        else:
            room = size + pads[i] + pads[i + n] - span
            o = (-(-room // s) if ceil else room // s) + 1
            if ceil and (o - 1) * s >= size + pads[i]:
                o -= 1  # a last window that starts in the end padding is dropped
        out.append(o)
    return tuple(out)


class Watched:
    """``model`` with every window node's data input and output added as outputs (the
    model's own outputs first; ``data`` serialized once); :meth:`window` reads a run."""

    def __init__(self, model: onnx.ModelProto):
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
        self.weights = {t.name: t for t in model.graph.initializer}
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          17)

    @cached_property
    def data(self) -> bytes:
        return self.model.SerializeToString()

    def window(self, shapes: list[tuple[int, ...]]) -> Window | None:
        """The first window of a run of this model (the shapes of every output) that went
        outside ONNX's rule, cross-checked with onnx.reference; or None."""
        for node, x, y in self.windows:
            out, name = shapes[y], node.name or node.output[0]
            spec = spec_sizes(node, shapes[x], self.weights)
            if spec is not None and tuple(out[2:]) != spec:
                return Window(name, node.op_type, out, spec, "truncated",
                              self._reference(node, shapes[x]), self._inferred(node, shapes[x]))
            if 0 in out[2:]:
                return Window(name, node.op_type, out, spec, "empty",
                              self._reference(node, shapes[x]))
        return None

    def _alone(self, node: onnx.NodeProto, shape: tuple[int, ...]) -> onnx.ModelProto | None:
        """A model of ``node`` alone on an input of ``shape`` (None if a weight is not a
        constant of the model)."""
        rest = [n for n in node.input[1:] if n]
        if any(n not in self.weights for n in rest):
            return None
        one = onnx.NodeProto()
        one.CopyFrom(node)
        del one.output[1:]
        graph = onnx.helper.make_graph(
            [one], "window", [onnx.helper.make_tensor_value_info(node.input[0],
                                                                onnx.TensorProto.FLOAT, shape)],
            [onnx.helper.make_empty_tensor_value_info(node.output[0])],
            [self.weights[n] for n in rest])
        return onnx.helper.make_model(graph, opset_imports=[
            onnx.helper.make_opsetid("", self.opset)])

    def _reference(self, node: onnx.NodeProto, shape: tuple[int, ...]
                   ) -> tuple[int, ...] | None:
        """The shape onnx.reference gives ``node``'s output on zeros of ``shape`` (None if
        a weight is not a constant of the model, or the reference raises)."""
        model = self._alone(node, shape)
        if model is None:
            return None
        try:
            (out,) = ReferenceEvaluator(model).run(None, {node.input[0]: np.zeros(shape,
                                                                                  np.float32)})
        except Exception:  # noqa: BLE001 - the reference says nothing here
            return None
        return tuple(np.shape(out))

    def _inferred(self, node: onnx.NodeProto, shape: tuple[int, ...]
                  ) -> tuple[int, ...] | None:
        """The spatial sizes onnx's shape inference gives ``node``'s output at ``shape``
        (None where it gives none, or raises)."""
        model = self._alone(node, shape)
        if model is None:
            return None
        try:
            out = onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output[0]
        except Exception:  # noqa: BLE001 - onnx's inference says nothing here
            return None
        dims = out.type.tensor_type.shape.dim
        if len(dims) != len(shape) or not all(d.HasField("dim_value") for d in dims):
            return None
        return tuple(d.dim_value for d in dims[2:])


def judge(watched: Watched, inputs: dict[str, np.ndarray]
          ) -> list[tuple[int, ...]] | ortrun.Refusal | Window:
    """A run of a :class:`Watched` model by onnxruntime on ``inputs``: its outputs'
    shapes, or how it refused (an :class:`ortrun.Refusal`), or the first window that went
    outside ONNX's rule (a :class:`Window`)."""
    found = ortrun.ask(watched.data, inputs)
    if isinstance(found, ortrun.Refusal):
        return found
    return watched.window(found) or found[:watched.own]

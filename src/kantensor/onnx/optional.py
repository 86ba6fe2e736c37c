"""ONNX's optional family (``onnx/defs/optional``): Optional, OptionalHasElement and
OptionalGetElement (``signatures/onnx/optional.toml``), each handler beside its kernel.

An optional's type is an :class:`~kantensor.types.containers.OptionalType` of a tensor
or a sequence; its value is None or a value of that type. OptionalHasElement's value is
known when the model says whether there is an element: no input, or an input that is not
an optional (opset 18 takes tensors and sequences too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx

from ..types.containers import OptionalType
from ..types.type import TensorType
from .sequence import apply, tensors
from .structured import Structured


class Optional(Structured):
    attributes = {"type": "type"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        if ins:
            element = ins[0].type
            if isinstance(element, OptionalType):
                raise TypeError(f"an optional holds a tensor or a sequence, got {element}")
            if "type" in attrs and attrs["type"] != element:
                stated = attrs["type"]
                if not stated.is_super(element):
                    raise TypeError(f"the type attribute {stated} does not hold the "
                                    f"input's type {element}")
        elif "type" in attrs:
            element = attrs["type"]
        else:
            raise TypeError("an empty Optional needs its type attribute")
        t = OptionalType(element)
        return [(apply("Optional", optional, (t,), ins)[0], None)]


def optional(x: Any = None) -> Any:
    return x


class OptionalHasElement(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        known = None
        if not ins:
            known = np.array(False)
        elif not isinstance(ins[0].type, OptionalType):
            known = np.array(True)
        out = apply("OptionalHasElement", has_element, (TensorType("bool", ()),), ins)[0]
        return [(out, known)]


def has_element(x: Any = None) -> np.ndarray:
    return np.array(x is not None)


class OptionalGetElement(Structured):
    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        (x,) = tensors(scope, node, label)
        t = x.type.element if isinstance(x.type, OptionalType) else x.type
        value = scope.value(node.input[0]) if isinstance(x.type, TensorType) else None
        return [(apply("OptionalGetElement", get_element, (t,), [x])[0], value)]


def get_element(x: Any) -> Any:
    if x is None:
        raise ValueError("OptionalGetElement of an optional that holds no element")
    return x

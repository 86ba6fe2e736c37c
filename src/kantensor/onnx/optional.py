"""ONNX's optional family (``onnx/defs/optional``): Optional, OptionalHasElement and
OptionalGetElement (``signatures/onnx/optional.toml``), each handler beside its kernel.

An optional's type is an :class:`~kantensor.types.containers.OptionalType` of a tensor
or a sequence; its value is None or a value of that type. OptionalHasElement's value is
known when the model says whether there is an element: no input, or an input that is not
an optional (opset 18 takes tensors and sequences too).

The schemas' element types (``V``, ``O``) are checked on the input, on the type
attribute of an empty Optional and on the element of an optional input: a tensor or a
sequence of :data:`~.sequence.ELEMENTS` until opset 27, of every element type from 28
(:data:`EVERY`); an optional holds no optional. OptionalHasElement and
OptionalGetElement take an optional only until opset 17 (``plain``: a tensor or a
sequence too from 18). Each run of opsets is an entry of its own, its handler a subclass
stating ``elements`` and ``plain``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import onnx

from ..graph.basic import Variable
from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dtypes import CATEGORIES, DEFAULT_RANGE
from ..types.type import TensorType
from .sequence import ELEMENTS, apply, taken, tensors
from .structured import Structured

#: The element types of the optional ops from opset 28: every one (the float8, float4
#: and sub-byte types, bfloat16 and strings too).
EVERY = frozenset(DEFAULT_RANGE) | CATEGORIES["string"]


class _Typed(Structured):
    """A handler of the optional family: the element types it takes and whether its
    input may be a tensor or a sequence (not only an optional)."""

    #: The element types of the schema at the entry's opsets.
    elements: ClassVar[frozenset[str]] = ELEMENTS
    #: Whether the input may be a tensor or a sequence (OptionalHasElement and
    #: OptionalGetElement from opset 18).
    plain: ClassVar[bool] = False

    def element_of(self, t: Type, what: str) -> None:
        """TypeError unless ``t`` is a tensor or a sequence of :attr:`elements` (an
        optional holds no optional)."""
        if not isinstance(t, TensorType | SequenceType):
            raise TypeError(f"{what} must be a tensor or a sequence, got {t}")
        taken(t.dtype, what, self.elements)

    def optional_of(self, v: Variable, what: str) -> Type:
        """The element type of ``v``, an optional (or, where :attr:`plain`, a tensor or a
        sequence, its own element), of :attr:`elements` (TypeError else)."""
        if isinstance(v.type, OptionalType):
            self.element_of(v.type.element, f"the element of {what}")
            return v.type.element
        if not self.plain:
            raise TypeError(f"{what} must be an optional until opset 18, got {v.type}")
        self.element_of(v.type, what)
        return v.type


class Optional(_Typed):
    """Optional until opset 27."""

    attributes = {"type": "type"}

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        attrs = scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        if ins:
            element = ins[0].type
            self.element_of(element, "the input")
            if "type" in attrs and attrs["type"] != element:
                stated = attrs["type"]
                if not stated.is_super(element):
                    raise TypeError(f"the type attribute {stated} does not hold the "
                                    f"input's type {element}")
        elif "type" in attrs:
            element = attrs["type"]
            self.element_of(element, "the type attribute")
        else:
            raise TypeError("an empty Optional needs its type attribute")
        t = OptionalType(element)
        return [(apply("Optional", optional, (t,), ins)[0], None)]


def optional(x: Any = None) -> Any:
    return x


class Optional28(Optional):
    """Optional from opset 28: of every element type."""

    elements = EVERY


class OptionalHasElement(_Typed):
    """OptionalHasElement until opset 17: its input an optional."""

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        ins = tensors(scope, node, label)
        known = None
        if not ins:
            known = np.array(False)
        else:
            self.optional_of(ins[0], "the input")
            if not isinstance(ins[0].type, OptionalType):
                known = np.array(True)
        out = apply("OptionalHasElement", has_element, (TensorType("bool", ()),), ins)[0]
        return [(out, known)]


def has_element(x: Any = None) -> np.ndarray:
    return np.array(x is not None)


class OptionalHasElement18(OptionalHasElement):
    """OptionalHasElement from opset 18 to 27: its input (optional) an optional, a
    tensor or a sequence."""

    plain = True


class OptionalHasElement28(OptionalHasElement18):
    """OptionalHasElement from opset 28: of every element type."""

    elements = EVERY


class OptionalGetElement(_Typed):
    """OptionalGetElement until opset 17: its input an optional."""

    def read(self, scope: Any, node: onnx.NodeProto, label: str) -> list:
        scope.attributes(node, self, label)
        (x,) = tensors(scope, node, label)
        t = self.optional_of(x, "the input")
        value = scope.value(node.input[0]) if isinstance(x.type, TensorType) else None
        return [(apply("OptionalGetElement", get_element, (t,), [x])[0], value)]


class OptionalGetElement18(OptionalGetElement):
    """OptionalGetElement from opset 18 to 27: its input an optional, a tensor or a
    sequence."""

    plain = True


class OptionalGetElement28(OptionalGetElement18):
    """OptionalGetElement from opset 28: of every element type."""

    elements = EVERY


def get_element(x: Any) -> Any:
    if x is None:
        raise ValueError("OptionalGetElement of an optional that holds no element")
    return x

"""The types of values that are not one tensor: sequences of tensors and optionals.

ONNX has them (``seq(tensor(float))``, ``optional(tensor(int64))``); kantensor types them
so that a model using them is typed, run and written back like any other:

* :class:`SequenceType` is a list of tensors of one dtype. It states what is known of
  the list: the shape every element has (``shape``, a size that differs between
  elements is ``None``; ``shape`` itself ``None`` when the elements' ranks are not
  known or differ), the number of elements (``length``: an int, a Dim or ``None``) and,
  when the length is an int and each element's type is known, the type of each element
  (``elements``, so that ``SequenceAt(s, 1)`` of ``[float32[1,6], float32[2,6]]`` is
  ``float32[2,6]`` exactly). A Dim in the shape is one size for every element.
* :class:`OptionalType` is a value of its element type (a TensorType or a SequenceType)
  or ``None``.

Their values are a Python list of NumPy arrays and ``None`` or a value of the element
type. Both follow the Type contract of :mod:`kantensor.graph.type`; their Variables are
plain :class:`~kantensor.graph.basic.Variable` objects (tensor methods make no sense on
them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..graph.display import entry_text
from ..graph.type import Type
from .dim import Dim
from .dtypes import normalize_dtype
from .limits import MAX_NDIM
from .type import ShapeEntry, TensorType

__all__ = ["OptionalType", "SequenceType", "join_shapes"]


def join_shapes(shapes: Iterable[tuple | None]) -> tuple | None:
    """The shape every one of ``shapes`` has: a size equal in all of them is kept, one
    that differs is ``None``; ``None`` when a shape is ``None`` or the ranks differ."""
    out: list | None = None
    for shape in shapes:
        if shape is None:
            return None
        if out is None:
            out = list(shape)
            continue
        if len(shape) != len(out):
            return None
        out = [a if a is not None and a == b else None for a, b in zip(out, shape, strict=True)]
    return None if out is None else tuple(out)


def _length_ok(length: Any) -> int | Dim | None:
    if length is None or isinstance(length, Dim):
        return length
    if isinstance(length, int | np.integer) and not isinstance(length, bool) and length >= 0:
        return int(length)
    raise ValueError(f"a sequence's length must be an int >= 0, a Dim or None, got {length!r}")


class SequenceType(Type):
    """A list of tensors of one dtype (see the module's doc).

    ``SequenceType("float32", (None, 3))`` is a list of float32 matrices with 3 columns;
    ``SequenceType("float32", elements=[t1, t2])`` a list of two tensors of those types.
    """

    __slots__ = ("dtype", "shape", "length", "elements")

    def __init__(self, dtype: Any, shape: Iterable[ShapeEntry] | None = None,
                 length: int | Dim | None = None,
                 elements: Sequence[TensorType] | None = None):
        dtype = normalize_dtype(dtype)
        if elements is not None:
            elements = tuple(elements)
            for e in elements:
                if not isinstance(e, TensorType) or e.dtype != dtype:
                    raise TypeError(f"an element of a sequence of {dtype} must be a "
                                    f"TensorType of that dtype, got {e!r}")
            if length is not None and length != len(elements):
                raise ValueError(f"a sequence of {len(elements)} elements has length "
                                 f"{len(elements)}, not {length}")
            length = len(elements)
            shape = join_shapes(e.shape for e in elements) if elements else shape
        if shape is not None:
            shape = TensorType(dtype, tuple(shape)).shape  # each entry checked as a tensor's
            if len(shape) > MAX_NDIM:
                raise ValueError(f"more than {MAX_NDIM} axes")
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "length", _length_ok(length))
        object.__setattr__(self, "elements", elements)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("SequenceType is immutable")

    def __reduce__(self) -> tuple:
        return (type(self), (self.dtype, self.shape, self.length, self.elements))

    @property
    def element(self) -> TensorType | None:
        """The type every element has, or None when their rank is not known."""
        return None if self.shape is None else TensorType(self.dtype, self.shape)

    def at(self, position: Any) -> TensorType | None:
        """The type of the element at ``position`` (an int, negative from the end, or
        None when not known): its own type when known, else :attr:`element`."""
        if self.elements is not None and isinstance(position, int) and \
                -len(self.elements) <= position < len(self.elements):
            return self.elements[position]
        return self.element

    # -- equality and display --------------------------------------------------
    def _key(self) -> tuple:
        return (self.dtype, self.shape, self.length, self.elements)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((SequenceType, self._key()))

    def __str__(self) -> str:
        if self.elements is not None:
            return f"seq({', '.join(map(str, self.elements))})" if self.elements else \
                f"seq({self.dtype}[...], length=0)"
        inner = f"{self.dtype}[...]" if self.shape is None else \
            f"{self.dtype}[{','.join(map(entry_text, self.shape))}]"
        if self.length is None:
            return f"seq({inner})"
        return f"seq({inner}, length={entry_text(self.length)})"

    def __repr__(self) -> str:
        return f"SequenceType({self})"

    # -- values ----------------------------------------------------------------------
    def filter(self, value: Any, strict: bool = False,
               allow_downcast: bool | None = None) -> list:
        """``value`` (a list or tuple of arrays) as a list of arrays of this type."""
        if not isinstance(value, list | tuple):
            raise TypeError(f"expected a list of arrays for {self}, got "
                            f"{type(value).__name__}")
        if isinstance(self.length, int) and len(value) != self.length:
            raise TypeError(f"expected {self.length} elements for {self}, got {len(value)}")
        out = []
        for i, item in enumerate(value):
            t = self.at(i) or TensorType(self.dtype, (None,) * np.ndim(item))
            try:
                out.append(t.filter(item, strict=strict, allow_downcast=allow_downcast))
            except TypeError as exc:
                raise TypeError(f"element {i} of {self}: {exc}") from None
        return out

    def values_eq(self, a: Any, b: Any) -> bool:
        return len(a) == len(b) and all(
            np.shape(x) == np.shape(y) and bool(np.array_equal(x, y)) for x, y in
            zip(a, b, strict=True))

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        t = TensorType(self.dtype, ())
        return len(a) == len(b) and all(
            np.shape(x) == np.shape(y) and t.values_eq_approx(x, y) for x, y in
            zip(a, b, strict=True))

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return a is b or any(np.may_share_memory(x, y) for x in a for y in b)

    def get_shape_info(self, value: Any) -> tuple:
        return tuple(np.shape(x) for x in value)

    def get_size(self, shape_info: tuple) -> int:
        t = TensorType(self.dtype, ())
        return sum(t.get_size(s) for s in shape_info)

    # -- relations between types ---------------------------------------------------
    def is_super(self, other: Type) -> bool:
        """Every list of ``other`` is one of ours: same dtype, our element shape, length
        and elements unknown or equal to theirs."""
        if not isinstance(other, SequenceType) or other.dtype != self.dtype:
            return False
        if self.length is not None and self.length != other.length:
            return False
        if self.shape is not None and not (
                other.shape is not None and TensorType(self.dtype, self.shape).is_super(
                    TensorType(other.dtype, other.shape))):
            return False
        if self.elements is not None:
            return other.elements is not None and all(
                a.is_super(b) for a, b in zip(self.elements, other.elements, strict=True))
        return True

    def in_same_class(self, other: Type) -> bool:
        return isinstance(other, SequenceType) and other.dtype == self.dtype


class OptionalType(Type):
    """A value of ``element`` (a TensorType or a SequenceType) or None."""

    __slots__ = ("element",)

    def __init__(self, element: TensorType | SequenceType):
        if not isinstance(element, TensorType | SequenceType):
            raise TypeError(f"an optional holds a tensor or a sequence, got {element!r}")
        object.__setattr__(self, "element", element)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("OptionalType is immutable")

    def __reduce__(self) -> tuple:
        return (type(self), (self.element,))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.element == other.element

    def __hash__(self) -> int:
        return hash((OptionalType, self.element))

    def __str__(self) -> str:
        return f"optional({self.element})"

    def __repr__(self) -> str:
        return f"OptionalType({self.element})"

    def filter(self, value: Any, strict: bool = False,
               allow_downcast: bool | None = None) -> Any:
        if value is None:
            return None
        return self.element.filter(value, strict=strict, allow_downcast=allow_downcast)

    def values_eq(self, a: Any, b: Any) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return self.element.values_eq(a, b)

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return self.element.values_eq_approx(a, b)

    def get_shape_info(self, value: Any) -> Any:
        return None if value is None else self.element.get_shape_info(value)

    def get_size(self, shape_info: Any) -> int:
        return 0 if shape_info is None else self.element.get_size(shape_info)

    def is_super(self, other: Type) -> bool:
        return isinstance(other, OptionalType) and self.element.is_super(other.element)

    def in_same_class(self, other: Type) -> bool:
        return isinstance(other, OptionalType) and self.element.in_same_class(other.element)

"""TensorType: dtype plus a static shape of known, unknown or symbolic sizes."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from typing import Any

import numpy as np

from ..graph.display import entry_text
from ..graph.type import Type
from ..syntax.ast import evaluate, near_dtype
from ..syntax.errors import SignatureSyntaxError
from ..syntax.parser import parse_tensor_type
from .converting import from_python, refuse_masked, text_array
from .dim import Dim
from .dimminmax import DIM_CALLS
from .display import tensor_type_html
from .dtypes import DTYPES, NUMPY_STRING, category, normalize_dtype
from .interning import WeakInterner
from .limits import MAX_NDIM, MAX_SIZE, MAX_TYPE_TEXT, check_terms, check_text
from .numpy_dtypes import NUMPY_DTYPES, default_tolerance, numpy_dtype
from .symbols import substitute

ShapeEntry = int | Dim | None


def _bounded(value: int | Dim) -> None:
    check_terms(value, "a size")


def _check_entry(entry: Any, axis: int) -> ShapeEntry:
    if entry is None or isinstance(entry, Dim):
        return entry
    if isinstance(entry, bool | np.bool_):
        raise TypeError(f"shape entry {axis} is a bool ({entry}); use broadcastable= for flags")
    if isinstance(entry, int | np.integer) and 0 <= entry <= MAX_SIZE:
        return int(entry)
    if isinstance(entry, int | np.integer) and entry > MAX_SIZE:
        raise ValueError(f"shape entry {axis} is too large: about 2**{int(entry).bit_length() - 1}"
                         " (sizes are at most 2**63 - 1)")
    raise ValueError(
        f"shape entry {axis} must be an int >= 0, None or a Dim, got {entry!r}"
    )


def _bind_plain_dims(left: tuple, right: tuple) -> dict[str, int]:
    """Sizes of the plain Dims (``Dim("n")``) that face an int on the other side;
    TypeError if one Dim faces two different ints."""
    bound: dict[str, int] = {}
    for axis, pair in enumerate(zip(left, right, strict=True)):
        for sym, size in (pair, pair[::-1]):
            if isinstance(sym, Dim) and isinstance(size, int) and sym.name is not None:
                name = sym.name
                if bound.setdefault(name, size) != size:
                    raise TypeError(f"dimension {name} would be both {bound[name]} and "
                                    f"{size} (axis {axis})")
    return bound


def _substituted(shape: tuple, bound: dict[str, int]) -> tuple:
    return tuple(substitute(d, bound) if isinstance(d, Dim) else d for d in shape)


#: What a shape is not (a size alone); a tuple: ``int | Dim`` made a union object per call
_SIZES = (int, Dim)

#: Every TensorType alive: a table per dtype, by shape (no key of its own made per
#: type), and one by ``(class, dtype, shape)`` for subclasses: equal types are one object.
_TABLES = {dtype: WeakInterner() for dtype in DTYPES}
_LOOKUPS = {dtype: table.lookup for dtype, table in _TABLES.items()}
_SUBCLASSES = WeakInterner()

#: ``tuple(range(n))`` for each rank n up to MAX_NDIM: the static axes of a shape of ints
#: alone, shared (a type of ints makes no tuple of its own for them)
_ALL_AXES = tuple([tuple(range(n)) for n in range(MAX_NDIM + 1)])
#: the static axes of a shape of at most _FEW axes: one tuple per set of axes met (at
#: most 2**(_FEW + 1) of them)
_FEW = 8
_SOME_AXES = {axes: axes for axes in _ALL_AXES[:_FEW + 1]}


class TensorType(Type):
    """The type of n-dimensional arrays of one dtype.

    ``shape`` entries are ``int >= 0`` (static size), ``None`` (unknown) or a
    :class:`Dim` (symbolic size, equal wherever it appears). Passing
    ``broadcastable=(True, False)`` instead of a shape gives ``(1, None)``.

    Types are immutable and interned: equal types are the same object (a type nobody
    holds is freed), so equality and hashing are identity's, and memos key on the type
    itself.
    """

    #: ``_static``: the axes whose size is an int, in order (shared between types)
    __slots__ = ("dtype", "shape", "_np_dtype", "_static")

    def __new__(cls, dtype: Any, shape: Iterable[ShapeEntry] | None = None,
                broadcastable: Iterable[bool] | None = None) -> TensorType:
        if shape is not None and broadcastable is not None:
            raise TypeError("give either shape or broadcastable, not both")
        if broadcastable is not None:
            shape = tuple(1 if b else None for b in broadcastable)
        kind = type(shape)
        if kind is not tuple:
            if kind is list:  # (most often: the readers' and the instances' shapes)
                shape = tuple(shape)
            elif shape is None:
                shape = ()
            elif isinstance(shape, _SIZES):
                raise TypeError(f"shape must be a sequence, got {shape!r}")
            else:
                shape = tuple(shape)
        table = _TABLES.get(dtype) if type(dtype) is str else None  # (a name: as is)
        if table is None:
            dtype = normalize_dtype(dtype)
            table = _TABLES[dtype]
        ints = True  # every size an int (the common case: each checked by one test)
        for s in shape:
            if type(s) is not int or s < 0 or s > MAX_SIZE:
                ints = False
                if s is not None and not isinstance(s, Dim):  # (checked, or an error)
                    shape = tuple([_check_entry(e, i) for i, e in enumerate(shape)])
                    break
        # a subclass's types are its own; the shape alone in its dtype's table for the
        # class itself
        if cls is TensorType:
            key, ref = shape, table.lookup(shape)
        else:
            key, table = (cls, dtype, shape), _SUBCLASSES
            ref = table.lookup(key)
        if ref is not None:
            self = ref()
            if self is not None:
                return self
        n = len(shape)
        return _filed(cls, dtype, shape, (_ALL_AXES[n] if n <= MAX_NDIM else tuple(range(n)))
                      if ints else static_axes(shape), table, key)

    def __setattr__(self, name: str, value: Any) -> None:
        """Refused: a type is shared by every holder (interned) and remembered by the
        memos, so changing one would change every answer that holds it."""
        raise AttributeError(f"a TensorType is immutable: cannot set {name!r} "
                             f"(make another: TensorType(dtype, shape))")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a TensorType is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple:
        return (type(self), (self.dtype, self.shape))  # unpickled types intern too

    def __copy__(self) -> TensorType:
        return self

    def __deepcopy__(self, memo: dict) -> TensorType:
        return self

    # -- basic attributes --------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        """Which axes are statically of length 1."""
        return tuple(s == 1 for s in self.shape)

    @property
    def numpy_dtype(self) -> np.dtype:
        """The NumPy dtype of the values (DTypeUnavailable for a low-precision dtype
        without ml_dtypes: such types type, but hold no values)."""
        return self._np_dtype if self._np_dtype is not None else numpy_dtype(self.dtype)

    # Interned, so equality and hashing are object identity's (object's own methods).
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"TensorType({self.dtype}, ({', '.join(map(entry_text, self.shape))}"\
               f"{',' if self.ndim == 1 else ''}))"

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(map(entry_text, self.shape))}]"

    def _repr_html_(self) -> str:
        return tensor_type_html(self)

    def clone(self, dtype: Any = None, shape: Iterable[ShapeEntry] | None = None,
              **kwargs: Any) -> TensorType:
        """A copy with ``dtype`` and/or ``shape`` replaced."""
        if "broadcastable" in kwargs:
            return TensorType(dtype or self.dtype, broadcastable=kwargs["broadcastable"])
        return TensorType(dtype or self.dtype, self.shape if shape is None else shape)

    @classmethod
    def parse(cls, text: str) -> TensorType:
        """Parse the compact notation: ``float32[3,?]``, ``int64[]``, ``float64[n,2*n]``.

        Sizes are the dim expressions of the signature DSL (one grammar, one evaluator);
        a name is a :class:`Dim`. ValueError (a SignatureSyntaxError, with the position)
        when the text is not a tensor type. The text is never evaluated by Python, and
        its length, nesting and sizes are bounded (:mod:`kantensor.types.limits`)."""
        if not isinstance(text, str):
            raise TypeError(f"a tensor type text must be a str, got {type(text).__name__}")
        check_text(text, MAX_TYPE_TEXT, "tensor type text")
        dtype, sizes = parse_tensor_type(text)
        if sizes is not None and len(sizes) > MAX_NDIM:
            raise ValueError(f"tensor type text has more than {MAX_NDIM} axes "
                             f"({len(sizes)})")
        if sizes is None:
            raise SignatureSyntaxError(f"expected '[' after the dtype at position "
                                       f"{len(text.rstrip())}", text, len(text.rstrip()),
                                       "'['")
        if dtype not in DTYPES:
            pos = len(text) - len(text.lstrip())
            near = near_dtype(dtype)
            hint = f"did you mean {near}?" if near else f"expected one of {', '.join(DTYPES)}"
            raise SignatureSyntaxError(f"unknown dtype {dtype!r} at position {pos}; {hint}",
                                       text, pos, "a dtype")
        try:
            shape = [None if e is None else evaluate(e, Dim, _bounded, DIM_CALLS) for e in sizes]
            return cls(dtype, shape)
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"bad shape in {text!r}: {exc}") from None

    # -- values ------------------------------------------------------------
    def filter(self, value: Any, strict: bool = False,
               allow_downcast: bool | None = None) -> np.ndarray:
        """Return ``value`` as an ndarray of this type, or raise TypeError.

        ``strict``: only an ndarray of exactly this dtype is accepted.
        Otherwise casts that lose nothing are done; lossy ones need
        ``allow_downcast=True``, except that with ``None`` Python numbers
        and lists are accepted when their values survive the cast exactly.
        """
        target = self.numpy_dtype
        if type(value) is np.ndarray and value.dtype == target:  # the common case
            self._check_shape(value)
            return value
        refuse_masked(value, str(self))
        if target == NUMPY_STRING and not strict:
            value = text_array(value, self)
        elif strict:
            if not isinstance(value, np.ndarray):
                raise TypeError(f"expected an ndarray of type {self}, got {type(value).__name__}"
                                " (strict mode does not convert)")
            if value.dtype != target:
                raise TypeError(f"expected dtype {self.dtype} for {self}, got {value.dtype}"
                                " (strict mode does not convert)")
        elif isinstance(value, np.ndarray | np.generic):
            value = np.asarray(value)
            if value.dtype != target:
                if value.dtype.kind in "OUSVMm":
                    raise TypeError(f"cannot convert an array of dtype {value.dtype} to {self}")
                if not (np.can_cast(value.dtype, target, "safe") or allow_downcast):
                    raise TypeError(
                        f"converting an array of dtype {value.dtype} to {self} may lose "
                        "information; cast it first or pass allow_downcast=True"
                    )
                value = value.astype(target)
        else:
            value = from_python(value, target, allow_downcast, self)
        self._check_shape(value)
        return value

    def _check_shape(self, value: np.ndarray) -> None:
        shape, mine, static = value.shape, self.shape, self._static
        if len(shape) == len(mine) and (shape == mine if len(static) == len(mine) else
                                        all(shape[a] == mine[a] for a in static)):
            return  # (ints against ints alone: a Dim's == is never asked)
        if value.ndim != self.ndim:
            raise TypeError(
                f"expected {self.ndim} dimension{'s' * (self.ndim != 1)} for {self}, "
                f"got an array of shape {value.shape}"
            )
        for axis, (want, got) in enumerate(zip(self.shape, value.shape, strict=True)):
            if isinstance(want, int) and want != got:
                raise TypeError(
                    f"axis {axis} has length {got} but {self} requires {want} "
                    f"(array of shape {value.shape})"
                )

    def values_eq(self, a: Any, b: Any) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))

    def values_eq_approx(self, a: Any, b: Any, rtol: float | None = None,
                         atol: float | None = None) -> bool:
        """Close enough for this dtype; NaNs in the same places count as equal."""
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if category(self.dtype) < 2:
            return bool(np.array_equal(a, b))
        default_rtol, default_atol = default_tolerance(self.dtype)
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))

    def may_share_memory(self, a: Any, b: Any) -> bool:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return False

    def get_shape_info(self, value: np.ndarray) -> tuple[int, ...]:
        return tuple(np.shape(value))

    def get_size(self, shape_info: tuple[int, ...]) -> int:
        """Bytes taken by an array of this dtype and shape ``shape_info``."""
        return int(np.prod(shape_info, dtype=np.int64)) * self.numpy_dtype.itemsize

    # -- relations between types ------------------------------------------
    def in_same_class(self, other: Type) -> bool:
        """Same dtype, same ndim and the same statically-1 axes."""
        return (isinstance(other, TensorType) and other.dtype == self.dtype
                and other.broadcastable == self.broadcastable)

    def is_super(self, other: Type) -> bool:
        """Every value of ``other`` is one of ours: same dtype and ndim, our sizes are
        unknown or equal to theirs."""
        return (isinstance(other, TensorType) and other.dtype == self.dtype
                and other.ndim == self.ndim
                and all(s is None or s == o for s, o in zip(self.shape, other.shape,
                                                             strict=True)))

    def most_specific(self, other: TensorType) -> TensorType:
        """The type whose values are of both types; TypeError on a contradiction."""
        if other.dtype != self.dtype:
            raise TypeError(f"dtype mismatch: {self} vs {other}")
        if other.ndim != self.ndim:
            raise TypeError(f"ndim mismatch: {self} has {self.ndim} dimensions, "
                            f"{other} has {other.ndim}")
        bound = _bind_plain_dims(self.shape, other.shape)
        if bound:  # a Dim used on several axes has one size: put it in everywhere
            return TensorType(self.dtype, _substituted(self.shape, bound)).most_specific(
                TensorType(other.dtype, _substituted(other.shape, bound)))
        shape = []
        for axis, (a, b) in enumerate(zip(self.shape, other.shape, strict=True)):
            if a is None or a == b:
                shape.append(b)
            elif b is None:
                shape.append(a)
            elif isinstance(a, int) and isinstance(b, int):
                raise TypeError(f"shape mismatch at axis {axis}: {self} vs {other} "
                                f"({a} != {b})")
            else:  # a symbolic size against another size: keep the static int if any
                shape.append(a if isinstance(a, int) else b)
        return TensorType(self.dtype, shape)



class _Unsealed(Type):
    """A TensorType while it is made: its slots, no ``__setattr__`` of its own (so they
    are set by plain assignments, then its ``__class__`` to TensorType: 2,585 against
    4,080 instructions a type with TensorType's slot descriptors, callgrind)."""

    __slots__ = TensorType.__slots__


def static_axes(shape: tuple) -> tuple[int, ...]:
    """The axes of ``shape`` whose size is an int (a type's ``_static``), as the one tuple
    of them that types share."""
    static = tuple([a for a, s in enumerate(shape) if type(s) is int])
    if len(shape) <= _FEW:
        return _SOME_AXES.setdefault(static, static)
    return _ALL_AXES[len(static)] if len(static) == len(shape) <= MAX_NDIM else static


def _filed(cls: type, dtype: str, shape: tuple, static: tuple, table: WeakInterner,
           key: Any) -> TensorType:
    """A new type of ``cls`` (its dtype's name, its shape checked, its static axes),
    filed by the interner ``table`` under ``key``: one object per key."""
    if cls is TensorType:  # (most often: made as _Unsealed, inline)
        self = object.__new__(_Unsealed)
        self.dtype = dtype
        self.shape = shape
        self._np_dtype = NUMPY_DTYPES.get(dtype)  # None: bfloat16 without ml_dtypes
        self._static = static
        self.__class__ = TensorType
        return table.intern(key, self)
    self = object.__new__(cls)  # (a subclass's: its layout may differ)
    for name, value in zip(TensorType.__slots__, (dtype, shape, NUMPY_DTYPES.get(dtype),
                                                  static), strict=True):
        object.__setattr__(self, name, value)  # (TensorType's refuses)
    return table.intern(key, self)


def checked_type(dtype: str, shape: tuple, static: tuple[int, ...]) -> TensorType:
    """``TensorType(dtype, shape)`` for a reader that has checked what the constructor
    checks: ``dtype`` a dtype's name (as :data:`~.dtypes.DTYPES` spells it), ``shape`` a
    tuple of at most MAX_NDIM entries, an int in ``[0, MAX_SIZE]`` at each axis of
    ``static`` (:func:`static_axes` of it, or ``_ALL_AXES``'s) and a Dim or None at every
    other. The same interned object, without the constructor's conversions and checks
    (a model's graph inputs and its nodes' new types are made here)."""
    ref = _LOOKUPS[dtype](shape)
    if ref is not None:
        self = ref()
        if self is not None:
            return self
    self = object.__new__(_Unsealed)  # (as _filed makes one, inline: a call less)
    self.dtype = dtype
    self.shape = shape
    self._np_dtype = NUMPY_DTYPES.get(dtype)
    self._static = static
    self.__class__ = TensorType
    return _TABLES[dtype].intern(shape, self)


def sized(dtype: str, shape: tuple[int, ...]) -> TensorType:
    """:func:`checked_type` of a shape of ints alone (each in ``[0, MAX_SIZE]``)."""
    ref = _LOOKUPS[dtype](shape)
    if ref is not None:
        self = ref()
        if self is not None:
            return self
    self = object.__new__(_Unsealed)  # (as checked_type)
    self.dtype = dtype
    self.shape = shape
    self._np_dtype = NUMPY_DTYPES.get(dtype)
    self._static = _ALL_AXES[len(shape)]
    self.__class__ = TensorType
    return _TABLES[dtype].intern(shape, self)


def sized_all(dtype: str, shapes: list[tuple[int, ...]], rank: int) -> list[TensorType]:
    """:func:`sized` of each of ``shapes`` (each of ``rank`` ints), made at once (their
    objects made and filed by maps: a model's graph inputs of distinct types) unless the
    first is live (a model read again: each found by :func:`sized`); one live among the
    others is found by the filing (:meth:`~.interning.WeakInterner.intern_all`), the
    object made for it dropped unseen. (The first alone looked up: looking up every
    shape hashed each once more, 360 instructions a type, where none is live.)"""
    if shapes and _LOOKUPS[dtype](shapes[0]) is not None:
        return list(map(sized, repeat(dtype), shapes))
    static, np_dtype = _ALL_AXES[rank], NUMPY_DTYPES.get(dtype)
    made = []
    add = made.append
    for shape in shapes:  # (as _filed makes one)
        self = object.__new__(_Unsealed)
        self.dtype = dtype
        self.shape = shape
        self._np_dtype = np_dtype
        self._static = static
        self.__class__ = TensorType
        add(self)
    return _TABLES[dtype].intern_all(shapes, made)

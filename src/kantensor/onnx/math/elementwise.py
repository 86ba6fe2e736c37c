"""ONNX's elementwise math: arithmetic, the variadic Max/Min/Sum/Mean, Clip, SwiGLU
and Expand (NumPy's broadcast of one input to a shape).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.sizes import SizeNames
from ...ops.templates import checked, dims, reads_known_sizes, reads_ranks, typed
from ...syntax.ast import Broadcasts, DimVar
from ...types.conditions import COMPARE, Condition, Source
from ...types.dim import Dim
from ...types.dimminmax import dim_max, dim_min
from ...types.factsatoms import nonzero as _nonzero  # (its locals say ``nonzero``)
from ..floatsizes import entrywise, float_sizes, number, precision, quotient, rounded, whole, wrap
from ..shared import (
    FOLD_DTYPE,
    FOLD_FACTS,
    FOLD_NEEDS,
    FOLD_REFUSED,
    SIZE_MAX,
    SIZE_MIN,
    NotKnown,
    size_entry,
    value_entries,
)


@float_sizes
def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Div: integers truncate toward zero (C's division)."""
    if a.dtype == object or b.dtype == object:
        dtype = FOLD_DTYPE.get()
        if precision(dtype) is not None:  # a float quotient of sizes (.floatsizes)
            return entrywise(lambda x, y: quotient(x, y, dtype), a, b)
        _divisors(b, _QUOTIENT)
        return _size_quotients(a, b)
    if np.issubdtype(a.dtype, np.integer):
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return q + fix.astype(q.dtype)
    return np.divide(a, b)


def _size_quotients(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` truncated toward zero, entry by entry, over values holding sizes (Dims):
    :func:`_truncated`."""
    return entrywise(_truncated, a, b)


def _truncated(x: Any, y: Any, source: Source | None = None) -> Any:
    """``x / y`` truncated toward zero (sizes, ints): a floor where every size the facts
    allow (:data:`.shared.FOLD_FACTS`) gives the quotient's sign (``(1 - n) / 2`` is not
    ``(1 - n)//2`` at n = 2); by an int or a size >= 1 of either sign ``max(0, x)//y -
    max(0, -x)//y`` (an exporter's ``Div(size - k, s)`` where ``size < k`` is not ruled
    out; ``(N - D) / D``, -1 at N = 0); ValueError otherwise (not folded). An integer
    Div raises where its divisor is 0 (onnxruntime: 'Integer division by zero'): a size
    divisor the facts do not show nonzero is stated so where the quotient folds
    (:func:`_nonzero`, as Mod's; ``source``: Mod's with ``fmod``, which raises so too),
    and the quotient is simplified under it (``(N*D) / D`` is N); whether or not it
    folds, the kernel states it first (:func:`_divisors`)."""
    x = int(x) if isinstance(x, np.integer) else x
    y = int(y) if isinstance(y, np.integer) else y
    if type(y) is int and y < 0:
        x, y = -x, -y  # (truncation: x / y is -x / -y)
    if type(y) is int and y == 0:
        raise ZeroDivisionError("a size divided by 0")
    facts, nonzero = FOLD_FACTS.get(), None
    if isinstance(y, Dim):
        nonzero = _nonzero(y, source or _QUOTIENT)
        if facts.decide(nonzero) is True:
            nonzero = None
        elif FOLD_NEEDS.get(None) is None:
            raise ValueError(f"{y} may be 0 and no condition can be stated")
        else:
            facts = facts.with_(nonzero)
    if _decided(x, ">=", facts) and _decided(y, ">", facts):
        q = x // y
    elif _decided(x, "<=", facts) and _decided(y, ">", facts):
        q = -((-x) // y)
    elif type(y) is int:  # (y > 0: truncation toward zero of either sign)
        return dim_max(x, 0) // y - dim_max(-x, 0) // y
    elif _decided(y, ">", facts):  # a size >= 1 (its nonzero condition): likewise
        q = dim_max(x, 0) // y - dim_max(-x, 0) // y
    else:
        raise ValueError(f"the sign of {x} / {y} is not known for every size")
    if nonzero is not None:
        needs = FOLD_NEEDS.get()
        if nonzero not in needs:
            needs.append(nonzero)
    return facts.simplify(q) if isinstance(q, Dim) else q


def _decided(x: Any, op: str, facts: Any = None) -> bool:
    """Whether ``x op 0`` holds at every size (the facts': ``facts``, else the fold's)."""
    if type(x) is int:
        return COMPARE[op](x, 0)
    return (facts if facts is not None else FOLD_FACTS.get()).decide((x, op, 0)) is True


def _rounding(how: str, fn: Any, name: str) -> Any:
    """Floor, Ceil or Round (``how``, NumPy's ``fn``): of a float value of sizes, each
    entry rounded exactly (:func:`.floatsizes.rounded`)."""
    def kernel(x: np.ndarray) -> np.ndarray:
        return entrywise(lambda v: rounded(v, how), x) if x.dtype == object else fn(x)
    kernel.__name__ = kernel.__qualname__ = name
    return float_sizes(kernel)


floor = _rounding("floor", np.floor, "floor")
ceil = _rounding("ceil", np.ceil, "ceil")
round_even = _rounding("round", np.round, "round_even")


def _integers(f: Any, fn: Any, name: str) -> Any:
    """A kernel ``fn`` whose value of an integer ``v`` of sizes (in an int value, or a
    float one: :mod:`..floatsizes`) is ``f(v)``."""
    def one(v: Any) -> Any:
        if v is None:
            return None
        value, needs = whole(v)
        return wrap(f(value), needs)

    def kernel(x: np.ndarray) -> np.ndarray:
        return entrywise(one, x) if x.dtype == object else fn(x)
    kernel.__name__ = kernel.__qualname__ = name
    return float_sizes(kernel)


absolute = _integers(lambda v: dim_max(v, -v), np.abs, "absolute")
sign = _integers(lambda v: dim_min(dim_max(v, -1), 1), np.sign, "sign")


def power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pow: in the base's dtype."""
    if np.issubdtype(a.dtype, np.integer):
        return np.power(a, b.astype(a.dtype))
    return np.power(a, b.astype(a.dtype) if not np.issubdtype(b.dtype, np.integer) else b)


@float_sizes
def mod(a: np.ndarray, b: np.ndarray, *, fmod: int = 0) -> np.ndarray:
    """Mod: the sign of the divisor (Python's %) unless ``fmod`` (C's fmod: the
    dividend's sign, ``a - b*trunc(a/b)``, of sizes by the truncated quotient, exact in a
    float too: :mod:`..floatsizes`)."""
    if a.dtype == object or b.dtype == object:
        dtype = FOLD_DTYPE.get()
        if precision(dtype) is not None:  # (ONNX's float Mod is fmod's only)
            if not fmod:
                raise ValueError("a float Mod needs fmod=1")
            return entrywise(lambda x, y: _float_fmod(x, y, dtype), a, b)
        _divisors(b, _DIVISOR)
        if fmod:
            return a - b * entrywise(lambda x, y: _truncated(x, y, _DIVISOR), a, b)
        if any(isinstance(v, Dim) for v in b.ravel().tolist()):
            return entrywise(_remainder, a, b)
    return np.fmod(a, b) if fmod else np.mod(a, b)


_DIVISOR = Source(op="Mod", detail="an integer Mod's divisor is not 0")
_QUOTIENT = Source(op="Div", detail="an integer Div's divisor is not 0")


def _divisors(b: np.ndarray, source: Source) -> None:
    """State what an integer Div or Mod of sizes needs of its divisors ``b`` whether or
    not its value folds (:data:`.shared.FOLD_REFUSED`; onnxruntime refuses a 0 divisor):
    a size the facts do not show nonzero, not 0 (:func:`_nonzero`); a literal 0, a
    condition that never holds (the node fails at every size)."""
    refused = FOLD_REFUSED.get(None)
    if refused is None:
        return
    facts = FOLD_FACTS.get()
    for y in np.asarray(b, dtype=object).ravel().tolist():
        if isinstance(y, Dim):
            c = _nonzero(y, source)
            if facts.decide(c) is True:
                continue
        elif isinstance(y, int | np.integer) and y == 0:
            c = Condition(0, "!=", 0, source)
        else:
            continue
        if c not in refused:
            refused.append(c)


def _remainder(x: Any, y: Any) -> Any:
    """``x % y`` of sizes. An integer Mod raises where its divisor is 0 (onnxruntime:
    'Integer modulo by zero'), and the Dim algebra's remainder by a size keeps that
    divisor (``(K*N) % K``): a size divisor the facts do not show nonzero is stated so
    (:func:`_nonzero`), a condition of the node's, and the remainder is simplified
    under it (0 here)."""
    if not isinstance(y, Dim):
        return x % y
    facts, needs = FOLD_FACTS.get(), FOLD_NEEDS.get(None)
    nonzero = _nonzero(y, _DIVISOR)
    if facts.decide(nonzero) is not True:
        if needs is None:
            return x % y
        if nonzero not in needs:
            needs.append(nonzero)
        facts = facts.with_(nonzero)
    r = x % y
    return facts.simplify(r) if isinstance(r, Dim) else r


def _float_fmod(x: Any, y: Any, dtype: str) -> Any:
    """fmod of two integer entries of float values of sizes (exact: its magnitude is at
    most the dividend's)."""
    x, y = number(x, dtype), number(y, dtype)
    if x is None or y is None:
        return None
    (a, m), (b, n) = whole(x), whole(y)
    return wrap(a - b * _truncated(a, b), m | n)


@reads_ranks
def build_variadic(types: tuple, **_: Any) -> dict[str, Any]:
    """``+():T,():T,...->():T`` for as many inputs as the node has (Max, Sum, Mean)."""
    return {"inputs": [typed([], "T")] * len(types)}


@reads_ranks
def build_variadic_same(types: tuple, **_: Any) -> dict[str, Any]:
    """Max, Min, Sum and Mean at opsets 6 and 7: inputs of one shape, not broadcast
    (onnxruntime refuses others: "All inputs must have the same shape")."""
    a = dims("a", types[0].ndim)
    return {"inputs": [typed(a, "T")] * len(types), "y": a}


def _fold(fn: Any, arrays: tuple) -> np.ndarray:
    out = arrays[0]
    for a in arrays[1:]:
        out = fn(out, a)
    return out


@float_sizes
def maximum(*arrays: np.ndarray) -> np.ndarray:
    return _fold(SIZE_MAX if _sizes(arrays) else np.maximum, arrays)


@float_sizes
def minimum(*arrays: np.ndarray) -> np.ndarray:
    return _fold(SIZE_MIN if _sizes(arrays) else np.minimum, arrays)


def _sizes(arrays: tuple) -> bool:
    """Whether ``arrays`` are values of sizes (an object array among them: while the
    model is read)."""
    return any(a.dtype == object for a in arrays)


def total(*arrays: np.ndarray) -> np.ndarray:
    return _fold(np.add, arrays)


def mean(*arrays: np.ndarray) -> np.ndarray:
    return (_fold(np.add, arrays) / len(arrays)).astype(arrays[0].dtype)


@reads_ranks
def build_bounds(types: tuple, **_: Any) -> dict[str, Any]:
    """Clip's optional min and max (the operands present), of the input's dtype, each a
    scalar as onnxruntime's kernel takes it ("min should be a scalar": no axis, or one
    axis of 1; the spec's is of no axis), Y of X's shape. They were broadcast with X,
    which onnxruntime refuses."""
    for k, t in enumerate(types[1:], 1):
        if t.ndim > 1:
            raise ParamError(f"input {k} (a bound) has {t.ndim} axes; onnxruntime takes a "
                             "scalar: no axis, or one axis of 1")
    return {"x": dims("a", types[0].ndim),
            "bounds": [typed([1] * t.ndim, "T") for t in types[1:]]}


#: Clip-6's bounds where its attributes are absent: float32's range.
_FLOAT32_MAX = float(np.finfo(np.float32).max)


@reads_ranks
def build_clip_attribute(types: tuple, **bounds: Any) -> dict[str, Any]:
    """Clip from opset 6 to 10: ``min`` and ``max`` attributes (floats), of which
    onnxruntime refuses a min above the max ("min_ <= max_ was false")."""
    low, high = bounds.get("min", -_FLOAT32_MAX), bounds.get("max", _FLOAT32_MAX)
    if low > high:
        raise ParamError(f"min {low} is above max {high} (onnxruntime refuses the node)")
    return {"x": dims("a", types[0].ndim)}


def clip_attribute(x: np.ndarray, **bounds: float) -> np.ndarray:
    low, high = bounds.get("min", -_FLOAT32_MAX), bounds.get("max", _FLOAT32_MAX)
    return np.clip(x, low, high).astype(x.dtype)


def clip(x: np.ndarray, *bounds: np.ndarray, given: tuple) -> np.ndarray:
    lo = bounds[given.index(1) - 1] if 1 in given else None
    hi = bounds[given.index(2) - 1] if 2 in given else None
    out = x
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out.astype(x.dtype)


def swiglu(a: np.ndarray, b: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    return (a / (1 + np.exp(-alpha * a)) * b).astype(a.dtype)


@reads_known_sizes
def build_expand(types: tuple, shape_value: Any, **_: Any) -> dict[str, Any]:
    """Expand: NumPy's broadcast of the input with the shape, one axis at a time: an
    axis where one side is 1 or both are the same size is the other; two sizes are
    ``broadcast(a, b)``, which the facts decide or the build keeps as a condition; an
    unknown entry of the shape is an unknown size."""
    x, shape = types[0], types[1]
    a = dims("a", x.ndim)
    if shape.ndim != 1:
        raise ParamError(f"shape must be a 1-D tensor, got one of {shape.ndim} axes")
    k = shape.shape[0]
    if not isinstance(k, int):
        raise NotKnown("shape has an unknown length")
    target = value_entries(shape_value, k, "shape")
    sizes = SizeNames(tuple(target))
    n = max(k, x.ndim)
    out: list[Any] = []
    clauses = []
    for i in range(n):
        j, t = i - (n - x.ndim), (target[i - (n - k)] if i >= n - k else 1)
        own = x.shape[j] if j >= 0 else 1
        d = a[j] if j >= 0 else 1
        if t == 1 or (t is not None and (t is own or t == own)):
            out.append(d)
        elif own == 1 and t is not None:
            out.append(size_entry(sizes, t, clauses, "shape"))
        elif isinstance(t, int):  # the input's axis is 1 or t, and the output's is t
            out.append(size_entry(sizes, t, clauses, "shape"))
            clauses.append(checked(((d - 1) * (d - t)).eq(0),
                                   lambda v, _, d=d.name, t=t, i=i, j=j: (
                f"the input's axis {j} of size {v[d]} does not broadcast to the shape's "
                f"{t} (output axis {i})")))
        elif t is not None:  # NumPy's rule of two sizes, decided by the facts or kept
            u = DimVar(f"u{i}")
            out.append(u)
            clauses.append(Broadcasts((d, size_entry(sizes, t, clauses, "shape")), u))
        else:
            u = DimVar(f"u{i}")
            out.append(u)
            clauses.append(u >= 0)
    return {"x": a, "sizes": sizes.patterns(), "y": out, "fits": clauses}


def expand(x: np.ndarray, shape: np.ndarray, *sizes: np.ndarray, **_: Any) -> np.ndarray:
    target = np.broadcast_shapes(x.shape, tuple(int(v) for v in shape.tolist()))
    return np.broadcast_to(x, target).copy()

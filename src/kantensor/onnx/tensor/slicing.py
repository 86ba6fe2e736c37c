"""ONNX's Slice: its builder (Python's slice along each listed axis, a bound that is a
size read both ways, one alternative per reading of its sign) and implementation."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.families.indexing import readings, slice_length, symbolic_length
from ...ops.params import ParamError, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import alternative, dims, reads_known_sizes, typed
from ...syntax.alternative import Alternative
from ...syntax.ast import Clause, DimVar, dim_max, dim_min
from ...types.dim import Dim
from ..shared import nonzero_entry, value_entries


@reads_known_sizes
def build_slice(types: tuple, starts_value: Any, ends_value: Any, axes_value: Any = None,
                steps_value: Any = None, given: tuple = (0, 1, 2), **_: Any) -> dict[str, Any]:
    """Slice: Python's slice along each listed axis (ONNX clamps the same way); a size
    bound (``seq``) is clamped like an int one: ``x[:, :seq]`` of 64 columns is ``min(64,
    seq)`` columns (a negative step leaves it unknown). A size bound's sign is a choice
    (:func:`~kantensor.ops.families.indexing.symbolic_length`): the first alternative
    reads each as its form shows, the later ones the other signs, so where the facts
    refute a reading (``-N*S`` where ``N*S == 0``) the one they allow applies. The
    entries slice distinct axes, so there are at most as many as the input's axes (an
    unknown count is needed so: onnxruntime fails at every value past it)."""
    x = types[0]
    known = starts_value if starts_value is not None else ends_value
    # the entries' count: the values' (a relation asked backwards knows no input's size)
    n = len(known) if known is not None else len(types[1].shape) and types[1].shape[0]
    if not isinstance(n, int):  # starts of unknown length (a slice of a shape with an
        # INT64_MAX end and a negative step): which axes it slices is not known (every
        # size unknown), the rank is the input's
        axes, steps, starts, ends = [None], [], [], []
    else:
        axes = list(range(n)) if 3 not in given else value_entries(axes_value, n, "axes")
        steps = [1] * n if 4 not in given else value_entries(steps_value, n, "steps")
        starts = value_entries(starts_value, n, "starts")
        ends = value_entries(ends_value, n, "ends")
    sizes = SizeNames(starts_value, ends_value, axes_value, steps_value)
    bounds: dict[int, tuple] | None = None  # None: the axes are not known
    if not any(ax is None or isinstance(ax, Dim) for ax in axes):
        bounds = {}
        picked = [normalize_axis(ax, x.ndim) for ax in axes]
        if len(set(picked)) != len(picked):
            raise ParamError(f"repeated axis in {tuple(axes)}")
        for i, ax in enumerate(picked):
            start, end, step = starts[i], ends[i], steps[i]
            own = x.shape[ax]
            if isinstance(end, Dim) and end == own and (not isinstance(step, int) or step > 0):
                end = _BIG  # the axis's end
            if isinstance(start, Dim) and start == own and isinstance(step, int) and step < 0:
                start = _BIG
            bounds[ax] = (*_onnx_bounds(start, end, step, own), step)
    sized = [(ax, k) for ax, b in (bounds or {}).items() for k in (0, 1) if isinstance(b[k], Dim)]
    count = [n] if isinstance(n, int) else dims("k")  # the entries' (stated when known)
    if isinstance(n, int) and n > x.ndim:  # (axes that are data: each listed once)
        raise ParamError(f"{n} entries slice {n} axes of an input of {x.ndim}")
    most = [] if isinstance(n, int) else [count[0] <= x.ndim]  # (as many: any value fails)
    most += [c for step in steps for c in nonzero_entry(sizes, step, "a step")]  # (onnxruntime's)
    rest = [*[typed(count, "I")] * (len(types) - 2 - len(sizes.dims)), *sizes.patterns()]
    outs = [_slice_out(x.ndim, bounds, sizes, dict(zip(sized, flips, strict=True)))
            if flips is not None else  # past the most readings: those axes unknown
            _slice_out(x.ndim, {ax: (_UNKNOWN, None, None) if (ax, 0) in sized or (
                ax, 1) in sized else b for ax, b in (bounds or {}).items()}, sizes, {})
            for flips in readings(len(sized))]
    inputs = [typed(dims("a", x.ndim), "T"), typed(count, "I"), *rest]
    return {"sig": [alternative(inputs, [typed(y, "T")], [*fits, *most]) for y, fits in outs]}


def _slice_out(ndim: int, bounds: dict | None, sizes: SizeNames, flips: dict
               ) -> tuple[list, list[Clause]]:
    """The output dims and where-clauses of one reading (``flips[axis, 0 or 1]``: the
    start's or end's sign read against its form); an axis sliced by bounds not known,
    or every axis where the axes are not known, is unknown."""
    a, unknown = dims("a", ndim), dims("u", ndim)
    if bounds is None:
        return unknown, [u >= 0 for u in unknown]
    out: list[Any] = list(a)
    clauses: list[Clause] = []
    for ax, (start, end, step) in bounds.items():
        if start is _UNKNOWN:
            out[ax] = unknown[ax]  # (an entry not known is no omitted bound)
            clauses.append(unknown[ax] >= 0)
        elif start is _EMPTY:
            out[ax] = 0
        elif isinstance(start, Dim) or isinstance(end, Dim):  # a bound is a size
            out[ax] = symbolic_length(a[ax], start, end, step, sizes, clauses, (
                flips.get((ax, 0), False), flips.get((ax, 1), False)))
        else:  # (Python takes nothing from a start below every -n)
            length = 0 if step < 0 and start is not None and start <= -_BIG else \
                slice_length(a[ax], start, end, step)
            out[ax] = length + _from_index_0(a[ax], start, end, step)
    return out, clauses


def _from_index_0(n: DimVar, start: int | None, end: int | None, step: int) -> Any:
    """What ONNX's negative walk from a ``start`` below ``-n`` adds to Python's length:
    ONNX starts it at index 0, Python takes nothing, so it is index 0 alone where the
    end is before it: 1 where ``1 <= n <= -start - 1`` and ``n <= -end - 1`` (an omitted
    end is before it at every n, an end >= 0 at none), else 0."""
    if step > 0 or start is None or start > -2 or end is not None and end >= 0:
        return 0
    bounds = [1, n] + ([] if start <= -_BIG else [-start - n]) + (
        [] if end is None else [-end - n])
    return dim_max(0, dim_min(*bounds))


#: INT64_MAX and the like as a Slice bound: past either end of any axis
_BIG = 1 << 62
_INT32_MAX = (1 << 31) - 1
_UNKNOWN, _EMPTY = object(), object()


def _onnx_bounds(start: Any, end: Any, step: Any, n: Any) -> tuple[Any, Any]:
    """A Slice's bounds along an axis of size ``n`` as Python's slice bounds of the same
    length (None: omitted), or (_EMPTY, _): no element, or (_UNKNOWN, _): not known. ONNX
    clamps differently from Python in two places: with a negative step a start below
    ``-n`` starts at index 0 (Python takes nothing), and onnxruntime reads an end of
    INT32_MAX or INT64_MAX with a negative step as running through index 0 where the
    spec (and onnx.reference) clamp it to ``n - 1`` and take nothing: unknown there."""
    if start is None or end is None or not isinstance(step, int) or step == 0 \
            or not all(isinstance(v, int | Dim) for v in (start, end)) or (
            step < 0 and not all(isinstance(v, int) for v in (start, end))):
        return _UNKNOWN, None
    if step > 0:
        if (isinstance(start, int) and start >= _BIG) or (isinstance(end, int) and
                                                          end <= -_BIG):
            return _EMPTY, None
        return _whole(start), _whole(end)
    if end >= _BIG or end == _INT32_MAX:
        return _UNKNOWN, None
    # a start below -n: ONNX walks from index 0, Python takes nothing (_from_index_0
    # adds the difference; -1 is the last entry, or nothing at n == 0, either way)
    return start if start <= -_BIG else _whole(start), _whole(end)


def _whole(bound: Any) -> Any:
    """A bound past an axis's end on the walk's side as an omitted one (None): ONNX
    clamps it there."""
    return None if isinstance(bound, int) and abs(bound) >= _BIG else bound


def slice_(x: np.ndarray, starts: np.ndarray, ends: np.ndarray, *rest: np.ndarray,
           given: tuple = (0, 1, 2), **_: Any) -> np.ndarray:
    n = len(starts)
    more = dict(zip([g for g in given if g > 2], rest, strict=False))
    axes = [int(a) for a in more[3]] if 3 in more else list(range(n))
    steps = [int(s) for s in more[4]] if 4 in more else [1] * n
    index = [slice(None)] * x.ndim
    for a, b, e, s in zip(axes, starts.tolist(), ends.tolist(), steps, strict=True):
        if s < 0:  # ONNX starts a negative walk from below -n at index 0 (Python: none)
            b = max(int(b), -x.shape[a % x.ndim])
        index[a % x.ndim] = slice(int(b), int(e), s)
    return x[tuple(index)]


@reads_known_sizes
def build_slice_attribute(types: tuple, starts: tuple, ends: tuple, axes: tuple | None = None,
                          **_: Any) -> dict[str, Any]:
    """Slice from opset 1 to 9: starts, ends and axes attributes (ints, no steps), each
    axis sliced as Slice's constant inputs slice it (onnxruntime runs both with one
    kernel): the alternatives of :func:`build_slice`, of the data alone."""
    given = (0, 1, 2) if axes is None else (0, 1, 2, 3)
    made = build_slice((types[0],) * len(given), starts_value=tuple(starts),
                       ends_value=tuple(ends), axes_value=None if axes is None else tuple(axes),
                       given=given)
    return {"sig": [Alternative(alt.inputs[:1], alt.outputs, alt.where, alt.loop)
                    for alt in made["sig"]]}


def slice_attribute(x: np.ndarray, *, starts: tuple, ends: tuple, axes: tuple | None = None,
                    **_: Any) -> np.ndarray:
    more = () if axes is None else (np.asarray(axes, np.int64),)
    return slice_(x, np.asarray(starts, np.int64), np.asarray(ends, np.int64), *more,
                  given=(0, 1, 2, 3)[:3 + len(more)])

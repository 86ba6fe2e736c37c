"""Value intervals of integer tensors computed from sizes, so that indices give conditions.

A model that looks up positions (GPT-2's ``Gather(wpe, Range(0, seq))``) is valid only
while the positions fit the table: ``seq <= n_positions``. The values of such an index
tensor are not known when the model is read, but their interval is: every element of a
``Range(start, limit, delta)`` lies in ``[start, start + delta*(n - 1)]``, with ``n`` its
length as the relation of Range states it. An :data:`Interval` ``(lo, end)`` says every
element ``v`` has ``lo <= v < end``, and that both ends are attained when the tensor is not
empty (so a condition made from it is exact, not only sufficient). It is carried through
what keeps the values (an entry whose ``values`` is ``kept``: Identity, Unsqueeze,
Squeeze, Reshape, Flatten, Expand, Tile, Transpose; ``cast`` to an integer type that holds
them, where a narrower one wraps them as onnxruntime does: :func:`_cast`) and shifted or
scaled by a constant (``sum``, ``difference``, ``product``: Add, Sub, Mul), each as its
catalogue entry declares (:mod:`.declared`); the importer gives it to the entries that
take an ``<input>_bounds`` parameter (``Gather``, ``GatherElements``), whose builders make
it their where-clauses.

Index tuples (GatherND's, whose last axis holds one column per indexed axis) need the
interval of each column apart: :func:`columns_of` finds them where the tuples are joined
along their last axis (``values = "joined"``: a Concat, as the dynamo exporter builds
``x[arange(b)[:, None], arange(s)]``) from parts whose columns are known, a part of one
column having its whole interval; the entries that take an ``<input>_columns`` parameter
get them, flattened (``lo0, end0, lo1, end1, ...``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from ..types.dim import Dim, DimLike
from ..types.dimminmax import dim_max, dim_min
from ..types.dtypes import DTYPE_TABLE, Category, integer_range
from ..types.prove import order
from ..types.symbols import free_symbols
from ..types.type import TensorType
from .values import static_size

__all__ = ["INTEGER_DTYPES", "MAKES_INTERVALS", "Interval", "columns_of", "exact_token",
           "input_bounds", "interval_of", "interval_output", "known_interval",
           "output_interval", "record_interval", "stated"]

#: The most elements a known value may have for its interval to be taken.
MAX_ELEMENTS = 1 << 16

#: ``(lo, end)``: every element ``v`` has ``lo <= v < end``; both attained when not empty.
Interval: TypeAlias = tuple[DimLike, DimLike]

#: The declared ``values`` of the entries whose output may have an interval.
MAKES_INTERVALS = frozenset({"kept", "cast", "range", "sum", "difference", "product"})
_ARITHMETIC = {"sum": "Add", "difference": "Sub", "product": "Mul"}
#: The dtypes of the tensors that have intervals: NumPy's own integer dtypes, read from the
#: dtype table (one home per dtype fact), not the low-precision ones ml_dtypes adds.
INTEGER_DTYPES = frozenset(d.name for d in DTYPE_TABLE
                           if d.category is Category.INTEGER and d.package == "numpy")


def known_interval(value: np.ndarray | None) -> Interval | None:
    """The interval of a known value of ints and sizes (None when empty, or an entry is
    unknown or no integer)."""
    if value is None or value.size == 0:
        return None
    entries = value.ravel().tolist()
    if not all(isinstance(v, int | Dim) and not isinstance(v, bool) for v in entries):
        if value.dtype.kind in "iu":
            entries = [int(v) for v in entries]
        else:
            return None
    lo, hi = dim_min(*entries), dim_max(*entries)
    return lo, hi + 1


def _scalar(value: np.ndarray | None) -> DimLike | None:
    """The one value all entries of a known tensor hold (an int or a size), or None."""
    if value is None or value.size == 0:
        return None
    entries = set(value.ravel().tolist())
    if len(entries) != 1:
        return None
    (v,) = entries
    if isinstance(v, bool) or not isinstance(v, int | Dim | np.integer):
        return None
    return int(v) if isinstance(v, np.integer) else v


def output_interval(kind: str | None, out: TensorType, inputs: Sequence[Interval | None],
                    values: Sequence[np.ndarray | None], source: str | None = None
                    ) -> Interval | None:
    """The interval of a node's (first) output of type ``out`` from its inputs'
    intervals and known values (``source``: its first input's dtype; ``kind``: its
    entry's declared ``values``), or None when none is known."""
    if out.dtype not in INTEGER_DTYPES:
        return None
    first = inputs[0] if inputs else None
    if kind == "kept":
        return first
    if kind == "cast":
        return None if first is None else _cast(first, out.dtype, source)
    if kind == "range":
        return _range(out, values)
    if kind in _ARITHMETIC and len(inputs) == 2:
        kept = _neutral(_ARITHMETIC[kind], inputs, values)
        if kept is not None:  # (x + 0, x - 0, x*1: the values themselves, none wraps)
            return kept
        result = _arithmetic(_ARITHMETIC[kind], inputs, values)
        return None if result is None else _in_dtype(result, out.dtype, kind)
    return None


def _neutral(op: str, inputs: Sequence[Interval | None],
             values: Sequence[np.ndarray | None]) -> Interval | None:
    """The interval of the input that ``op`` leaves as it is, the other a constant 0 (1
    for Mul; only the subtrahend for Sub), or None."""
    for k in (0, 1) if op != "Sub" else (0,):
        c = _scalar(values[1 - k])
        if inputs[k] is not None and type(c) is int and c == (op == "Mul"):
            return inputs[k]
    return None


def _in_dtype(interval: Interval, dtype: str, kind: str) -> Interval | None:
    """The interval of an arithmetic result computed in ``dtype``, which wraps modulo
    its range as a cast does: a sum or difference of contiguous values is contiguous
    (wrapped as :func:`_cast` wraps), a product by ``c`` is not (kept only where it is
    proven in range)."""
    if _ARITHMETIC[kind] != "Mul":
        return _cast(interval, dtype, None)
    low, high = integer_range(dtype)
    lo, end = interval
    return interval if _at_least(lo, low) and _at_least(high + 1, end) else None


def _at_least(a: DimLike, b: DimLike) -> bool:
    """Whether ``a >= b`` at every size (proven, not guessed)."""
    return order(a - b) in (0, 1)


def _cast(interval: Interval, dtype: str, source: str | None) -> Interval | None:
    """The interval of the values of ``interval`` cast to the integer ``dtype`` (from
    ``source``), which wraps them modulo its range as NumPy and onnxruntime do: kept where
    the target holds every value (every value of ``source``, or both ends proven in its
    range); wrapped exactly where the ends are ints; where ``lo`` is proven in range but
    not ``end``, ``[lo, end)`` while ``end - 1 <= max`` and the target's whole range after
    (contiguous values that pass ``max`` wrap onto ``min``: both attained), written with
    min and max of sizes; else unknown (None)."""
    lo, end = interval
    low, high = integer_range(dtype)
    if source in INTEGER_DTYPES:
        s_low, s_high = integer_range(source)
        if low <= s_low and s_high <= high:
            return interval
    lo_in = _at_least(lo, low) and _at_least(high, lo)
    if lo_in and _at_least(high + 1, end):
        return interval
    if isinstance(lo, int) and isinstance(end, int):
        span = high - low + 1
        if end - lo >= span:
            return low, high + 1
        first, last = (lo - low) % span + low, (end - 1 - low) % span + low
        return (first, last + 1) if first <= last else (low, high + 1)
    if not lo_in:
        return None
    past = dim_min(1, dim_max(0, end - (high + 1)))  # 1 where the values pass max, else 0
    return lo + (low - lo) * past, dim_min(end, high + 1)


def _range(out: TensorType, values: Sequence[np.ndarray | None]) -> Interval | None:
    start, limit, delta = (_scalar(v) for v in values[:3])
    n = out.shape[0] if out.ndim == 1 else None
    if start is None or not isinstance(delta, int) or delta == 0 or n is None:
        return None
    last = start + delta * (n - 1)
    return (start, last + 1) if delta > 0 else (last, start + 1)


def _arithmetic(op: str, inputs: Sequence[Interval | None],
                values: Sequence[np.ndarray | None]) -> Interval | None:
    for k in (0, 1):
        interval, c = inputs[k], _scalar(values[1 - k])
        if interval is None or c is None:
            continue
        lo, end = interval
        if op == "Add":
            return lo + c, end + c
        if op == "Sub":
            return (lo - c, end - c) if k == 0 else (c - end + 1, c - lo + 1)
        if isinstance(c, int) and c > 0:  # Mul by a positive int keeps the order
            return lo * c, (end - 1) * c + 1
        return None
    return None


# -- the importer's side: its reader holds ``types``, ``known``, ``value`` and ``intervals``
def interval_of(reader: Any, name: str) -> Interval | None:
    """The value interval of ``name`` in ``reader``, or None: of a known value of at
    most :data:`MAX_ELEMENTS` elements, or of the values of a node's output."""
    if not name:
        return None
    if reader.known(name):  # (a name's value is set once: its interval found once)
        found = getattr(reader, "known_intervals", None)
        if found is None:
            found = reader.known_intervals = {}
        if name not in found:
            vkey = _exact(reader, name)
            if vkey:
                vkey = MAX_ELEMENTS, vkey  # (a limit a caller may set)
            got = _KNOWN.get(vkey, _UNSEEN) if vkey else _UNSEEN
            if got is _UNSEEN:
                value = _small_value(reader, name)
                got = None if value is None else known_interval(value)
                if vkey:
                    _keep(_KNOWN, vkey, got)
            found[name] = got
        return found[name]
    return intervals(reader).get(name)


def intervals(reader: Any) -> dict[str, Interval]:
    """The value intervals ``reader`` knows (made at the first use): of integer tensors
    whose values are not known (Range, ...)."""
    found = getattr(reader, "intervals", None)
    if found is None:
        found = reader.intervals = {}
    return found


def bounded_key(reader: Any, entry: Any, names: list[str], key: tuple | None
                ) -> tuple | None:
    """A node's memo key with the intervals of the inputs its entry reads bounds of
    (``entry.bounded``; ``names``: the node's input names): the same node over other
    intervals is another build."""
    if key is None or not entry.bounded:
        return key
    return (*key, input_bounds(reader, entry, names))


def input_bounds(reader: Any, entry: Any, names: Sequence[str]) -> tuple:
    """What ``entry`` reads of the bounds of a node's inputs (``names``), in the order of
    ``entry.bounded``: an input's interval, or its columns (those in ``entry.columned``)."""
    columned = entry.columned
    return tuple([None if k >= len(names) else columns_of(reader, names[k])
                  if k in columned else interval_of(reader, names[k])
                  for k in entry.bounded])


def stated(bounds: Sequence[Any] | None) -> bool:
    """Whether a builder states ``bounds`` (an ``<input>_bounds`` or ``_columns``
    parameter): every entry known, each size in it over named sizes (a size that is no
    name, an axis of unknown size, is not said)."""
    return bounds is not None and all(
        b is not None and (not isinstance(b, Dim) or all(
            isinstance(s, str) for s in free_symbols(b))) for b in bounds)


def columns_of(reader: Any, name: str) -> tuple[DimLike, ...] | None:
    """The value interval of each column of ``name`` (the entries along its last axis,
    of a known size), flattened (``lo0, end0, lo1, end1, ...``; each column's ends
    attained where the tensor is not empty), or None where one is not known: of a known
    value, of a tensor of one column (its interval), or of one joined along its last
    axis from parts whose columns are known (found from its producer, once)."""
    t = reader.types.get(name) if name else None
    if not isinstance(t, TensorType) or not t.shape or type(t.shape[-1]) is not int:
        return None
    found = getattr(reader, "columns", None)
    if found is None:
        found = reader.columns = {}
    if name not in found:
        found[name] = None  # (while it is found: a cycle has none)
        found[name] = _columns(reader, name, t)
    return found[name]


def _columns(reader: Any, name: str, t: TensorType) -> tuple[DimLike, ...] | None:
    q = t.shape[-1]
    if reader.known(name):
        value = _small_value(reader, name)
        if value is None or value.size == 0:
            return None
        parts = [known_interval(value[..., k]) for k in range(q)]
        return None if None in parts else tuple(e for part in parts for e in part)
    if q == 1:
        whole = interval_of(reader, name)
        return whole if whole is None else tuple(whole)
    node = _producer(reader, name)
    if node is None or node.output[0] != name:
        return None
    entry = reader.entries.get((node.op_type, node.domain))
    if entry is None or entry.declared.values != "joined":
        return None
    axis = next((a.i for a in node.attribute if a.name == "axis"), None)
    if axis is None or axis % t.ndim != t.ndim - 1:
        return None
    joined: list[DimLike] = []
    for part in node.input:  # (each of known size along the axis: its columns, or none)
        p = reader.types.get(part)
        if not isinstance(p, TensorType) or p.ndim != t.ndim or type(p.shape[-1]) is not int:
            return None
        if p.shape[-1] == 0:
            continue
        got = columns_of(reader, part)
        if got is None:
            return None
        joined.extend(got)
    return tuple(joined) if len(joined) == 2 * q else None


def _producer(reader: Any, name: str) -> Any:
    """The node of ``reader``'s graph that makes ``name`` (a map made at the first use)."""
    made = getattr(reader, "producers", None)
    if made is None:
        made = reader.producers = {o: n for n in reader.proto.node for o in n.output if o}
    return made.get(name)


def _small_value(reader: Any, name: str) -> np.ndarray | None:
    t = reader.types.get(name)
    size = static_size(t) if isinstance(t, TensorType) else None
    return reader.value(name) if size is not None and size <= MAX_ELEMENTS else None


def interval_output(entry: Any, wanted: Any, outs: tuple, folded: tuple) -> Any:
    """The type of a node's first output whose value interval the reader records (a named
    integer output of an entry that makes one, its value not folded), else None: asked
    by the importer's ``typed_node`` and, for a node typed from its slot, of its plan."""
    return outs[0] if entry.declared.values in MAKES_INTERVALS and wanted and wanted[0] and \
        folded[0] is None and outs[0].dtype in INTEGER_DTYPES else None


def record_interval(reader: Any, entry: Any, node: Any, out: Any) -> None:
    """Record in ``reader`` the value interval of ``node``'s first output (of type
    ``out``; None: not one to record; ``entry``: the node's), where one is known (asked
    only of the few entries that make one). The interval is a function of the entry's
    declared ``values``, ``out``, the first input's dtype and each input's interval or
    known value: kept by those, with the values by their exact keys (:func:`_exact`),
    for a model typed again."""
    kind = entry.declared.values
    if out is None or kind not in MAKES_INTERVALS or not isinstance(out, TensorType) or \
            out.dtype not in INTEGER_DTYPES:
        return
    names = node.input[:]
    known = intervals(reader)
    first = reader.types.get(names[0]) if names and names[0] else None
    source = first.dtype if isinstance(first, TensorType) else None
    key: list | None = [kind, out, source, MAX_ELEMENTS]  # (a limit a caller may set)
    for n in names:
        if n and reader.known(n):
            vkey = _exact(reader, n)
            if not vkey:  # (no exact key: too large, or not made)
                key = None
                break
            key.append((True, vkey))
        else:
            key.append((False, known.get(n)))
    found = _OUTPUTS.get(tuple(key), _UNSEEN) if key is not None else _UNSEEN
    if found is _UNSEEN:
        values = [_small_value(reader, n) if n and reader.known(n) else None for n in names]
        inputs = [known.get(n) if v is None else known_interval(v)
                  for n, v in zip(names, values, strict=True)]
        found = output_interval(kind, out, inputs, values, source)
        if key is not None:
            _keep(_OUTPUTS, tuple(key), found)
    if found is not None:
        known[node.output[0]] = found


def _exact(reader: Any, name: str) -> tuple | None:
    """An exact key of the known value of ``name``: its token for the node slots
    (:mod:`.nodeslot`) when that holds the value (a type and the value's key, or an
    initializer's type and serialized proto: three entries), else the node memo's key
    of it, when made; None when neither is."""
    token = reader.tokens.get(name)
    if exact_token(token):
        return token
    return reader.value_keys.get(name) or None


def exact_token(token: Any) -> bool:
    """Whether a name's token for the node slots holds its value exactly: a small
    initializer's (its type and serialized proto) or a type and the value's key."""
    return type(token) is tuple and (len(token) == 3 or type(token[1]) is tuple)


_UNSEEN: Any = object()

#: (MAX_ELEMENTS, a known value's exact key: :func:`_exact`) -> its interval
_KNOWN: dict[tuple, Interval | None] = {}
#: (declared values, output type, first input's dtype, MAX_ELEMENTS, each input's (True,
#: its value's exact key) or (False, its interval)) -> the output's interval
#: (:func:`record_interval`)
_OUTPUTS: dict[tuple, Interval | None] = {}
#: the most entries each of the two keeps
_KEPT = 1 << 12


def _keep(memo: dict, key: tuple, interval: Interval | None) -> None:
    if len(memo) >= _KEPT:
        memo.clear()
    memo[key] = interval

"""The counts a boolean mask selects, with their bounds: what ``holds`` decides with.

``x[mask]`` (and ``np.nonzero``, ``argwhere``, ``flatnonzero``, ``compress``, made of it:
:mod:`kantensor.ops.counted`) selects a number of elements that no input's size gives:
its ``?`` axis. The ``index`` Op's relation bounds it, ``m <= N*D`` (the mask's size), a
condition on a size of its own (:class:`~kantensor.ops.located.NodeSize`) that names no
output axis, while what later code needs of that count names the output's ``?`` axis
(:class:`~kantensor.ops.located.VariableAxis`, or the names
:mod:`.sameaxes` gives the axes equal to it). :func:`count_bounds` links the two: the
output axis of an ``index`` node whose only array is one boolean mask and whose indexed
tensor has no ``?`` axis is that node's count, exactly (its other axes are the tensor's,
sliced), so it lies in ``least .. bound`` (``least`` 0, or ``min(1, N)`` where the
relation says the mask is true at its first element: ``np.unique``'s first
occurrences).

:func:`decided` then answers a condition on such counts at given sizes where every count
in those ranges answers it alike (``min(1, count) <= n`` at ``n == 0``: the mask has no
element, so the count is 0), and leaves it undecided otherwise (the data decide it).

:func:`same_counts` names the counts of one mask alike: ``x[m]``, ``y[m]`` and
``np.nonzero(m)`` (which indexes its positions by ``m != 0``) select as many elements,
however often the mask is computed from the same tensors (``x[x > 0] + y[x > 0]``), or
in another order (``np.flatnonzero(m)``, ``x.T[x.T > 0]``): a count is known by its
mask's value up to order (:func:`count_key`), not by the mask's node.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..ops.located import NodeSize, VariableAxis
from ..ops.paramvalues import ArrayRef, SliceItem
from ..types.conditions import Clause, Condition
from ..types.dim import Dim, unknown
from ..types.symbols import free_symbols, substitute

#: The most combinations of count values :func:`decided` tries (each count's range at the
#: given sizes, multiplied): past it, undecided.
MAX_TRIES = 4096

#: The Ops that index by masks, with the input their index arrays start at (``x, *arrays``;
#: ``x, value, *arrays``).
MASKING = {"index": 1, "index_set": 2, "index_add": 2}


Bounds = tuple[Dim | int, Dim | int]


def count_bounds(nodes: Iterable[Apply]) -> dict[VariableAxis | NodeSize, Bounds]:
    """For each node indexing by one boolean mask (``index``, and the updates
    ``index_set``, ``index_add``: :func:`mask_count`): its count (the size its relation
    makes) and the bounds ``(least, bound)`` its relation states (Dims over the named
    sizes); for an ``index`` node whose only array is the mask and whose indexed tensor
    has no ``?`` axis, its output's one ``?`` axis too (see the module)."""
    out: dict[VariableAxis | NodeSize, Bounds] = {}
    for node in nodes:
        found = mask_count(node)
        if found is None:
            continue
        _, count, bound = found
        bounds = (_least(node.conditions or (), count), bound)
        out[count] = bounds
        axis = _only_unknown_axis(node)
        if axis is not None:
            out[axis] = bounds
    return out


def _only_unknown_axis(node: Apply) -> VariableAxis | None:
    """The output's one ``?`` axis of an ``index`` node whose only array is one boolean
    mask and whose indexed tensor has no ``?`` axis: its count, exactly (its other axes
    are the tensor's, sliced)."""
    refs = [i for i in dict(getattr(node.op, "params", ())).get("index", ())
            if isinstance(i, ArrayRef)]
    if getattr(node.op, "name", None) != "index" or len(refs) != 1 or \
            not _bool(node.inputs[1]):
        return None
    x, y = node.inputs[0].type, node.outputs[0].type
    unknowns = [a for a, d in enumerate(y.shape or ()) if d is None]
    if x.shape is None or None in x.shape or len(unknowns) != 1:
        return None
    return VariableAxis(node.outputs[0], unknowns[0])


def mask_count(node: Apply) -> tuple[Variable, NodeSize, Dim | int] | None:
    """``(mask, count, bound)`` of a node indexing by one boolean mask among its index
    arrays (:data:`MASKING`): the mask, the size the node's relation makes for its
    number of true elements (the one size of its own its conditions name) and the bound
    ``count <= bound`` they state, where that bound is the mask's number of elements (a
    fact of the data, not a need); else None."""
    start = MASKING.get(getattr(node.op, "name", None))
    if start is None or len(node.outputs) != 1:
        return None
    refs = [i for i in dict(getattr(node.op, "params", ())).get("index", ())
            if isinstance(i, ArrayRef)]
    arrays = [node.inputs[start + r.position] for r in refs
              if start + r.position < len(node.inputs)]
    masks = [a for a in arrays if _bool(a)]
    own = {s for c in node.conditions or () for s in c.symbols() if isinstance(s, NodeSize)}
    if len(masks) != 1 or len(own) != 1:
        return None
    bound = _bound(node.conditions or ())
    shape = masks[0].type.shape
    if bound is None or shape is None or None in shape:
        return None
    size: Dim | int = 1
    for d in shape:
        size = size * d
    return (masks[0], own.pop(), bound) if size == bound else None


def _bound(conditions: Iterable[Clause]) -> Dim | int | None:
    """``E`` of the one condition ``u <= E`` on the node's own size ``u`` (E over named
    sizes), if the node's conditions name one such size only."""
    own = {s for c in conditions for s in c.symbols() if isinstance(s, NodeSize)}
    return _stated(conditions, own.pop(), "<=") if len(own) == 1 else None


def _least(conditions: Iterable[Clause], u: NodeSize) -> Dim | int:
    """``E`` of a condition ``u >= E`` on the node's own size ``u`` (E over named
    sizes), else 0 (a size's least)."""
    least = _stated(conditions, u, ">=")
    return 0 if least is None else least


def _stated(conditions: Iterable[Clause], u: NodeSize, op: str) -> Dim | int | None:
    """``E`` of the first condition ``u op E`` (``op`` ``<=`` or ``>=``) on the node's own
    size ``u`` with ``E`` over named sizes, else None."""
    for c in conditions:
        if isinstance(c, Condition) and c.op == op and lone(c.left, u):
            right = c.right
            if isinstance(right, int) or all(isinstance(s, str)
                                             for s in free_symbols(right)):
                return right
    return None


def lone(d: Any, u: Any) -> bool:
    """Whether ``d`` is the size ``u`` alone."""
    return isinstance(d, Dim) and free_symbols(d) == {u} and substitute(d, {u: 7}) == 7 \
        and substitute(d, {u: 0}) == 0


def decided(c: Clause, sizes: Mapping[Any, int], bounds: Mapping[Any, Bounds]
            ) -> bool | None:
    """``c`` at ``sizes`` where its unknowns are counts of ``bounds`` (keyed by their
    symbols) and every value of theirs in ``least .. bound`` answers it alike; else
    None."""
    unknowns = [s for s in c.symbols() if not isinstance(s, str)]
    if not unknowns or any(u not in bounds for u in unknowns):
        return None
    try:
        ranges = [range(max(lo, 0), max(hi, 0) + 1) for lo, hi in (
            (b if isinstance(b, int) else substitute(b, sizes) for b in bounds[u])
            for u in unknowns)]
    except (KeyError, ValueError, TypeError):
        return None
    total = 1
    for r in ranges:
        total *= len(r)
    if total > MAX_TRIES:
        return None
    answers = set()
    for values in itertools.product(*ranges):
        try:
            answers.add(bool(c.substitute(dict(zip(unknowns, values, strict=True)))
                             .holds(sizes)))
        except ZeroDivisionError:
            answers.add(False)
        if len(answers) > 1:
            return None
    return answers.pop() if answers else None


#: Ops whose output is a function of their inputs' values and their params alone (no
#: fresh values, as ``random``'s): a mask made by one of them from the same values is
#: the same mask.
ELEMENTWISE = frozenset({"gt", "ge", "lt", "le", "eq", "ne", "logical_and", "logical_or",
                         "logical_xor", "logical_not", "isnan", "isfinite", "isinf", "cast",
                         "add", "sub", "mul", "neg", "abs", "bitwise_and", "bitwise_or",
                         "bitwise_xor", "invert"})

#: Ops whose output is a function of their inputs' values and their params alone but not
#: element by element (the order of their input's elements matters): a mask made by one
#: of them from the same values is the same mask, but its count is not its input's.
ORDERED = frozenset({"roll", "cumsum", "ones_like", "zeros_like"})

#: Ops whose output holds their first input's elements, each once, in another order or
#: shape: a mask's count is its input's.
PERMUTING = frozenset({"flatten", "reshape", "ravel", "transpose", "permute_dims",
                       "matrix_transpose", "swapaxes", "moveaxis"})


def mask_key(v: Variable) -> Hashable:
    """What identifies the value of ``v``: a constant's value, an Op of
    :data:`ELEMENTWISE`, :data:`PERMUTING` or :data:`ORDERED` on its inputs' values, the
    sorted values of a vector (:func:`_sorted`) by its values up to order, else the
    variable itself."""
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        return ("constant", str(data.dtype), data.shape, data.tobytes())
    node = v.owner
    vector = _sorted(node)
    if vector is not None:
        return ("sorted", count_key(vector))
    if node is None or getattr(node.op, "name", None) not in ELEMENTWISE | PERMUTING | \
            ORDERED:
        return v
    return (node.op, tuple(mask_key(i) for i in node.inputs))


def _sorted(node: Apply | None) -> Variable | None:
    """The vector ``v`` of a node ``v[np.argsort(v)]`` (what ``np.unique`` sorts): its
    values are ``v``'s sorted, whatever their order in ``v`` (``np.ravel(x.T)``'s are
    ``np.ravel(x)``'s), up to what no comparison tells apart (``-0.0`` and ``0.0``, two
    NaNs), so a mask made of them by :data:`ELEMENTWISE` and :data:`ORDERED` Ops is
    the same mask; else None."""
    if node is None or getattr(node.op, "name", None) != "index" or len(node.inputs) != 2:
        return None
    v, order = node.inputs
    refs = dict(getattr(node.op, "params", ())).get("index", ())
    ranking = order.owner
    if len(refs) != 1 or not isinstance(refs[0], ArrayRef) or ranking is None or \
            getattr(ranking.op, "name", None) != "argsort" or ranking.inputs[0] is not v \
            or getattr(v.type, "ndim", None) != 1:
        return None
    return v


def count_key(v: Variable) -> Hashable:
    """What identifies the number of true elements of a mask ``v``: its value's
    (:func:`mask_key`) up to the order of its elements (:data:`PERMUTING` Ops are passed
    through, and so are elementwise Ops of one tensor and 0-d constants: ``x.T > 0``
    has as many as ``x > 0``), ``m != 0`` of a bool ``m`` that of ``m``."""
    node = v.owner
    name = getattr(getattr(node, "op", None), "name", None)
    if name in PERMUTING:
        return count_key(node.inputs[0])
    if name in ELEMENTWISE and not isinstance(node.inputs[0], Constant) and all(
            isinstance(i, Constant) and np.ndim(i.data) == 0 for i in node.inputs[1:]):
        rest = tuple(mask_key(i) for i in node.inputs[1:])
        if name == "ne" and _bool(node.inputs[0]) and rest == (_ZERO,):
            return count_key(node.inputs[0])
        return ("count", node.op, count_key(node.inputs[0]), rest)
    return mask_key(v)


def same_counts(nodes: Iterable[Apply]) -> dict[VariableAxis | NodeSize, Dim]:
    """The count of each node indexing by a mask whose value an earlier one's has
    (:func:`count_key`), named by that earlier count (in the order built): its output
    axis (:func:`_count_axis`), and the size its relation makes (:func:`mask_count`: so
    ``x[m] = x[m] * 2`` assigns as many values as ``x[m]`` selects)."""
    first: dict[Hashable, Dim] = {}
    out: dict[VariableAxis | NodeSize, Dim] = {}
    for node in nodes:
        axis = _count_axis(node)
        found = mask_count(node)
        counts = [k for k in (axis, found[1] if found else None) if k is not None]
        if not counts:
            continue
        key = count_key(node.inputs[1] if axis is not None else found[0])
        name = first.setdefault(key, unknown(counts[0]))
        out.update((k, name) for k in counts if unknown(k) != name)
    return out


def _count_axis(node: Apply) -> VariableAxis | None:
    """The output axis of an ``index`` node whose only array is one boolean mask, at the
    mask's place after full slices (``x[m]``, ``grid[:, m]``): its count; else None."""
    if getattr(node.op, "name", None) != "index" or len(node.outputs) != 1 or \
            len(node.inputs) < 2 or not _bool(node.inputs[1]):
        return None
    items = dict(getattr(node.op, "params", ())).get("index", ())
    if sum(isinstance(i, ArrayRef) for i in items) != 1:
        return None
    place = 0
    for item in items:
        if isinstance(item, ArrayRef):
            break
        if not isinstance(item, SliceItem) or item != _ALL:
            return None
        place += 1
    shape = node.outputs[0].type.shape
    if shape is None or place >= len(shape) or shape[place] is not None:
        return None
    return VariableAxis(node.outputs[0], place)


_ALL = SliceItem(None, None, None)
_ZERO = ("constant", "int64", (), np.int64(0).tobytes())


def _bool(v: Any) -> bool:
    return getattr(getattr(v, "type", None), "dtype", None) == "bool"

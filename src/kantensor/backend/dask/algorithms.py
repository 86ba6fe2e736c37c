"""Dask's own algorithms, by the kind an Op declares (``dask = "..."`` in its catalogue
entry): never by the Op's name, so a user's Op named ``sum`` is computed by its own
signature and implementation.

Each kind is a promise about what the Op computes, and the algorithm keeps it chunk by
chunk:

* ``reduction``: ``impl(x, axis=, keepdims=, **params)`` applied to partial results gives
  the whole result (sum, prod, max, min, all, any): a tree reduction with the Op's own
  implementation at every level; ``count``: partial counts summed in a tree;
* ``mean``, ``var``, ``std``: Dask's tree reductions of moments (counts, sums, and sums
  of squared deviations combined pairwise); ``argmax``/``argmin``: Dask's arg-reductions;
  ``norm``: Dask's norm (a tree sum of squares); ``logsumexp``, ``softmax``,
  ``log_softmax``: a tree maximum, then a tree sum of the shifted exponentials;
* ``product``: Dask's matmul; ``contraction``: blockwise partial results summed in a
  tree over the contracted chunks (:func:`.blockwise.contraction`);
* ``cumsum``/``cumprod``: Dask's cumulative scan along a chunked axis;
* ``reshape``: Dask's reshape, which rechunks only the axes whose chunks cross the new
  rows and refuses (with its reason) what it cannot do chunk-wise;
* ``slice``, ``mask``, ``take``, ``split`` (:mod:`.indexing`): Dask's slicing; Dask's
  boolean masking (a chunk of unknown size per block), or for one integer array a take
  by chunks; pieces of every chunk gathered in the indices' order (:mod:`.taking`); one
  slice per part;
* ``concatenate``, ``stack``, ``vstack``, ``hstack``, ``diff`` (overlapping
  slices), ``diagonal`` and ``trace`` (diagonals of blocks), ``flip``, ``roll``,
  ``tril``, ``triu``, ``diag``, ``pad``, ``broadcast_to``, ``repeat``, ``tile``,
  ``zeros_like``-style creation: Dask's functions of those names, which work chunk by
  chunk (``pad`` in the modes and widths where Dask's computes NumPy's values:
  :func:`_dask_pads`); on arrays with unknown chunks off the axes they join, roll, tile,
  repeat or pad, the same blocks joined by :mod:`.joining` (Dask's functions compare
  the unknown sizes);
* ``arrange``: no algorithm: the Op's axis parameters only place axes, and its
  signature's blockwise keeps every chunk.

Every algorithm returns the outputs in the inferred dtypes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import dask.array as da
import numpy as np

from .blockwise import axes_of, blockwise, contraction, typed
from .creating import arange, creation, eye, integer_arange, random, unseeded
from .indexing import (
    TAKE_WORDS,
    basic,
    indexing_words,
    mask_node,
    masks,
    slice_node,
    split_node,
    take_node,
    takes,
)
from .joining import (
    join_node,
    padded,
    repeat_node,
    repeats_int,
    roll_node,
    stack_node,
    tile_node,
)
from .lower import NodeCall, known
from .reductions import (
    arg_reduction,
    count,
    cumulative,
    exponentials,
    moments,
    norm,
    others_kept,
    product,
    reduction,
)
from .reshaping import kept_broadcast, reshape_node
from .unknown import (
    always,
    except_along,
    joined,
    moments_of_one_axis,
    never,
    reduces_empty,
    resolved,
    tiled,
    vectors,
)

__all__ = ["ALGORITHMS", "Algorithm"]


def _always(op: Any, types: tuple) -> bool:
    return True


def _has_axes(op: Any, types: tuple) -> bool:
    return types[0].ndim > 0


def _summed_norm(op: Any, types: tuple) -> bool:
    """A norm Dask computes as a tree of sums and maxima: not the matrix norms of order
    2, -2 and 'nuc', which Dask computes by an SVD that refuses a matrix split along both
    axes (those are the Op's blockwise: both axes whole in one task)."""
    params = dict(getattr(op, "params", ()))
    axis, order = params.get("axis"), params.get("ord")
    matrix = (len(axis) == 2) if isinstance(axis, tuple) else \
        (axis is None and order is not None and types[0].ndim == 2)
    return types[0].ndim > 0 and not (matrix and order in (2, -2, "nuc"))


def _matrices(op: Any, types: tuple) -> bool:
    return types[0].ndim >= 2


def no_elements(t: Any) -> bool:
    """A type with a size known to be 0 (a Dim or an unknown size is not)."""
    return any(type(n) is int and n == 0 for n in t.shape)


def _never(ins: tuple, outs: tuple) -> bool:
    return False


def _all_empty(ins: tuple, outs: tuple) -> bool:
    """Every input with axes has no elements (Dask's diag, pad, roll, outer,
    concatenate, ... fail on them: a chunk of 0 divides by zero, reshape_rechunk finds
    nothing to reduce)."""
    arrays = [t for t in ins if t.ndim]
    return bool(arrays) and all(no_elements(t) for t in arrays)


def _first_empty(ins: tuple, outs: tuple) -> bool:
    """The first input has no elements: ``repeat`` (Dask's finds nothing to
    concatenate), ``take`` (NumPy's checks the indices only where an element precedes
    the taken axis: ``np.take`` of an ``x`` of shape ``(0, 0, 5)`` along axis 1 by
    index 4 is an empty result, where a take by chunks checks every index)."""
    return no_elements(ins[0])


def _output_empty(ins: tuple, outs: tuple) -> bool:
    """The output has no elements (Dask's eye divides by its chunk of 0)."""
    return no_elements(outs[0])


@dataclass(frozen=True)
class Algorithm:
    """How a kind lowers (``lower(call, inputs) -> outputs``), what the plan says, for
    which inputs (``applies(op, input types)``, from static types): for others the node
    is the Op's blockwise (a reduction of a 0-d array, tril of a vector), and whether
    Dask's algorithm takes an input with chunks of unknown size (``nan``, a mask's) on
    ``axes`` (``unknown(call, axes)``): where it does not, the node needs those sizes
    (:meth:`.lower.Session.sizes`: an UnknownChunksError naming ``compute_chunk_sizes``,
    or with ``compute_chunk_sizes=True`` the sizes computed once), never Dask's own error
    from inside its function ("cannot convert float NaN to integer").

    ``numpy(input types, output types)`` says where arrays of no elements are the Op's
    own implementation instead (its blockwise, on the one empty block of each input,
    :func:`.lower.without_empty`), read from the types the call or the plan binds (a
    size known to be 0): the lowering and the plan ask the same rule, so the plan says
    what runs."""

    lower: Callable[[NodeCall, list[Any]], list[Any]]
    says: str | Callable[[Any, tuple], str]
    applies: Callable[[Any, tuple], bool] = _always
    unknown: Callable[[NodeCall, frozenset[int]], bool] = never
    numpy: Callable[[tuple, tuple], bool] = _never

    def known_inputs(self, call: NodeCall, values: list[Any]) -> list[Any]:
        """``values`` with the unknown chunk sizes this algorithm needs resolved (or
        refused) by the session (see :mod:`.unknown`)."""
        return resolved(call, values, self.unknown)

    def words(self, op: Any, types: tuple) -> str:
        """What the plan says the node lowers to (``says``, or what it says for these
        inputs)."""
        return self.says if isinstance(self.says, str) else self.says(op, types)


def _dask_function(fn: Callable[..., Any], *names: str, many: bool = False
                   ) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """An Op computed by a Dask function of the same call: the tensors (a sequence of
    them with ``many``) and the parameters ``names`` by keyword (on inputs of no
    elements, the Op's own function: :func:`_all_empty`)."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        params = call.params
        kwargs = {n: params[n] for n in names if n in params}
        arrays = [x if isinstance(x, da.Array) else da.from_array(np.asarray(x))
                  for x in values]
        if many:
            dtype = call.dtype()
            y = fn([x.astype(dtype) for x in arrays], **kwargs)
        else:
            y = fn(*arrays, **kwargs)
        return [typed(call, y)]
    return lower


#: The modes of ``numpy.pad`` whose values ``dask.array.pad`` computes as NumPy does, with
#: the parameters it takes for each, and how far it reaches into the axis: it slices
#: the edge blocks once, where NumPy reflects (``reflect``: the edge not repeated) or
#: wraps again and again when a pad is wider than the axis (``"n-1"``: every pad at most
#: n - 1 wide, ``"n"``: at most n). Not here: ``mean`` (Dask averages a corner over
#: both axes at once, NumPy the padded means: other roundings, and for integers
#: another rounding), ``linear_ramp`` (other corners), ``median`` (Dask has none).
_DASK_PAD: dict[str, tuple[tuple[str, ...], str | None]] = {
    "constant": (("constant_values",), None), "edge": ((), None), "empty": ((), None),
    "maximum": ((), None), "minimum": ((), None), "reflect": ((), "n-1"),
    "symmetric": ((), "n"), "wrap": ((), "n"),
}

#: Parameters of ``numpy.pad`` that Dask's reads otherwise, at their values where it
#: reads them as NumPy does: ``stat_length`` wider than the axis (NumPy clips it, Dask's
#: slice from the end wraps), ``reflect_type="odd"`` (Dask reads ``reflect``, so it
#: reflects evenly).
_PAD_DEFAULTS = {"stat_length": None, "reflect_type": "even"}


def _dask_pads(op: Any, types: tuple) -> bool:
    """Whether ``dask.array.pad`` computes this pad as NumPy does (:data:`_DASK_PAD`),
    read from the static types: a pad that reaches past the edge block needs the
    axis's size known (a size of the type an int), else the Op's blockwise (NumPy's pad
    on every padded axis whole) runs: a size that is not known is never guessed."""
    params = dict(getattr(op, "params", ()))
    mode = params.get("mode", "constant")
    if mode not in _DASK_PAD or types[0].ndim == 0:
        return False
    if any(params.get(k, v) != v for k, v in _PAD_DEFAULTS.items()):
        return False
    reach = _DASK_PAD[mode][1]
    if reach is None:
        return True
    pairs = params["pad_width"]
    pairs = pairs * types[0].ndim if len(pairs) == 1 else pairs
    less = 1 if reach == "n-1" else 0
    return all(max(p) == 0 or (type(n) is int and max(p) <= n - less)
               for n, p in zip(types[0].shape, pairs, strict=True))


def _pad_pairs(call: NodeCall) -> list[tuple[int, int]]:
    pairs = call.params["pad_width"]
    ndim = call.node.inputs[0].type.ndim
    return list(pairs * ndim if len(pairs) == 1 else pairs)


def _pads_known(call: NodeCall, axes: frozenset[int]) -> bool:
    """A constant pad takes unknown sizes on the axes it does not pad
    (:func:`.joining.padded`)."""
    pairs = _pad_pairs(call)
    return call.params.get("mode", "constant") == "constant" and \
        all(tuple(pairs[a]) == (0, 0) for a in axes)


def _pad(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.pad`` with the parameters its mode takes (see :func:`_dask_pads`);
    a constant pad of an array with unknown sizes (on axes it does not pad) by
    :func:`.joining.padded`."""
    params = call.params
    mode = params.get("mode", "constant")
    if any(not known(c) for c in values[0].chunks):
        return [typed(call, padded(call, values[0], _pad_pairs(call),
                                   params.get("constant_values", 0)))]
    kwargs = {k: params[k] for k in _DASK_PAD[mode][0] if k in params}
    return [typed(call, da.pad(values[0], params["pad_width"], mode=mode, **kwargs))]


def _diff(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.diff``; of booleans, NumPy's ``x[1:] != x[:-1]`` (``n`` times) on
    Dask's slices, as Dask's subtracts, which NumPy refuses for booleans."""
    x, n = values[0], call.params.get("n", 1)
    axis = call.params.get("axis", -1) % max(x.ndim, 1)
    if x.dtype != bool:
        return [others_kept(call, x, typed(call, da.diff(x, n=n, axis=axis)), (axis,))]
    before = (slice(None),) * axis
    y = x
    for _ in range(n):
        y = y[(*before, slice(1, None))] != y[(*before, slice(None, -1))]
    return [others_kept(call, x, typed(call, y), (axis,))]


def _flip(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.flip``: the chunks of the flipped axes reversed."""
    y = _dask_function(da.flip, "axis")(call, values)[0]
    return [others_kept(call, values[0], y, axes_of(call, y))]


def _kept(call: NodeCall, x: Any, y: Any) -> Any:
    """``y`` of ``x``'s chunks on every axis (chunks kept): every origin passed."""
    call.session.keeps(x, y, {a: a for a in range(x.ndim)})
    return y


def _outer(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.outer`` (blockwise: each vector's blocks kept along its axis)."""
    a, b = values
    y = _dask_function(da.outer)(call, values)[0]
    for k, v in enumerate((a, b)):
        if isinstance(v, da.Array) and v.ndim == 1:
            call.session.keeps(v, y, {0: k})
    return [y]


def _diagonal(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.diagonal``: the diagonals of the blocks, the other axes' blocks kept
    in order before the diagonal's axis."""
    y = _dask_function(da.diagonal, "offset", "axis1", "axis2")(call, values)[0]
    return [others_kept(call, values[0], y, _diagonal_axes(call), False)]


def _diagonal_axes(call: NodeCall) -> tuple[int, ...]:
    ndim = call.node.inputs[0].type.ndim
    return tuple(sorted({call.params.get("axis1", 0) % ndim,
                         call.params.get("axis2", 1) % ndim}))


def _off_diagonal(call: NodeCall, axes: frozenset[int]) -> bool:
    """diagonal, trace: unknown sizes on the axes other than the two of the diagonal
    (Dask's takes the diagonals of the blocks along those two only)."""
    return not axes & set(_diagonal_axes(call))


def _batch(call: NodeCall, axes: frozenset[int]) -> bool:
    """tril, triu: unknown sizes on the batch axes (Dask's masks the last two)."""
    return all(a < call.node.inputs[0].type.ndim - 2 for a in axes)


def _shape_of(call: NodeCall, values: list[Any]) -> list[Any]:
    """A vector as long as an axis of ``x`` (its values mean nothing): one block of
    ``x`` across its other axes, each chunk along the axis made a vector of its length;
    the chunks (known or not) of that axis kept."""
    x = values[0]
    axis = call.params["axis"] % x.ndim
    first = x.blocks[tuple(slice(None) if a == axis else 0 for a in range(x.ndim))]
    y = first.map_blocks(partial(call.op.impl, axis=axis), dtype=call.dtype(),
                         drop_axis=[a for a in range(x.ndim) if a != axis],
                         meta=np.empty((0,), call.dtype()))
    call.session.keeps(x, y, {axis: 0})
    return [y]


def _like(fn: Callable[..., Any]) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """``zeros_like``-style: the chunks of the first input kept; a fill value (the
    second input) must be a constant of the graph, else the Op's blockwise."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        if not isinstance(x, da.Array) or any(isinstance(v, da.Array) for v in values[1:]):
            return blockwise(call, values)
        return [_kept(call, x, fn(x, *values[1:], dtype=call.dtype()))]
    return lower


def _triangle(fn: Callable[..., Any]) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """tril/triu: Dask's, block by block, on 2-d and more; a vector (which NumPy makes
    a matrix of) by the Op's blockwise."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x, k = values[0], call.size_params("k")
        if x.ndim < 2 or k is None:
            return blockwise(call, values)
        return [others_kept(call, x, typed(call, fn(x, k=k[0] or 0)),
                            (x.ndim - 2, x.ndim - 1))]
    return lower


def _broadcast_to(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.broadcast_to`` the output type's shape (the call's sizes bound): a
    shape holding sizes (``np.broadcast_to(m, x.shape)``) has size inputs after the
    tensor, which Dask's function must not see; the Op's blockwise where one is
    unknown."""
    kept = kept_broadcast(call, values)
    if kept is not None:
        return [typed(call, kept)]
    sized = resolved(call, values, never)  # (the sizes it needs, or UnknownChunksError)
    shape = call.out_types[0].shape
    if None in shape or any(x is not y for x, y in zip(sized, values, strict=True)):
        return blockwise(call, sized)
    return [typed(call, da.broadcast_to(values[0], shape))]


def _trace(call: NodeCall, values: list[Any]) -> list[Any]:
    kwargs = {k: call.params[k] for k in ("offset", "axis1", "axis2") if k in call.params}
    y = typed(call, da.trace(values[0], dtype=call.dtype(), **kwargs))
    return [others_kept(call, values[0], y, _diagonal_axes(call), False)]


_A = Algorithm
#: Dask's scan carries each block's last entry to the next: an empty block (a mask may
#: leave one) carries an empty one, and the blocks after it lose their rows, so unknown
#: sizes only off the scanned axis (its sizes computed, empty chunks dropped)
_SCANNED = except_along("axis", None)
#: Dask's arg-reductions offset each block's index by the sizes of the reduced axis's
#: chunks only: unknown sizes on the other axes are taken (an empty block's arg-reduction
#: along another axis is empty)
_ARG = except_along("axis", None)
_TREE = "a tree reduction with its own implementation over the chunks of the reduced axes"
_EXP = "a tree maximum and a tree sum of the shifted exponentials"

ALGORITHMS: dict[str, Algorithm] = {
    "reduction": _A(reduction, _TREE, _has_axes, reduces_empty),
    "count": _A(count, "counts per chunk summed in a tree", _has_axes, always),
    "mean": _A(moments("mean"), "dask.array.mean (sums and counts in a tree)", _has_axes,
               always),
    "var": _A(moments("var"), "dask.array.var (moments combined in a tree)", _has_axes,
              moments_of_one_axis),
    "std": _A(moments("std"), "dask.array.std (moments combined in a tree)", _has_axes,
              moments_of_one_axis),
    "argmax": _A(arg_reduction("argmax"), "dask.array.argmax (a tree arg-reduction)", _has_axes,
                 _ARG),
    "argmin": _A(arg_reduction("argmin"), "dask.array.argmin (a tree arg-reduction)", _has_axes,
                 _ARG),
    "norm": _A(norm, "dask.array.linalg.norm (a tree sum of squares)", _summed_norm,
               reduces_empty),
    "logsumexp": _A(exponentials("logsumexp"), _EXP, _has_axes, always),
    "softmax": _A(exponentials("softmax"), _EXP + ", then blockwise", _has_axes,
                  always),
    "log_softmax": _A(exponentials("log_softmax"), _EXP + ", then blockwise", _has_axes,
                      always),
    "product": _A(product, "dask.array.matmul (partial products summed in a tree over the "
                            "chunks of the contracted axis)", unknown=always),
    "contraction": _A(contraction, "blockwise partial products summed in a tree over the "
                                   "chunks of the contracted axes", unknown=always),
    "cumsum": _A(cumulative("cumsum"), "dask.array.cumsum (a scan over the chunks)",
                 unknown=_SCANNED),
    "cumprod": _A(cumulative("cumprod"), "dask.array.cumprod (a scan over the chunks)",
                  unknown=_SCANNED),
    "reshape": _A(reshape_node, "dask.array.reshape (rechunks only the axes whose chunks "
                                 "cross the new rows; refuses what it cannot do chunk-wise)",
                  unknown=always),
    "slice": _A(slice_node, "Dask's slicing (the chunks of a sliced axis kept, cut where the "
                        "slice cuts)", basic, always),
    "mask": _A(mask_node, indexing_words, masks, always),
    "take": _A(take_node, TAKE_WORDS, takes, always, numpy=_first_empty),
    "shape_of": _A(_shape_of, "the chunks of that axis, each a vector of its length "
                              "(no data read)", _has_axes, always),
    "split": _A(split_node, "Dask's slicing, one slice per part",
                unknown=except_along("axis", 0)),
    "concatenate": _A(join_node(), "dask.array.concatenate (the inputs' chunks kept)",
                      unknown=joined, numpy=_all_empty),
    "stack": _A(stack_node, "dask.array.stack (one chunk per input along the new axis)",
                unknown=always, numpy=_all_empty),
    "vstack": _A(join_node(0), "dask.array.vstack", unknown=always, numpy=_all_empty),
    "hstack": _A(join_node(1), "dask.array.hstack", unknown=always, numpy=_all_empty),
    "diff": _A(_diff,
               "dask.array.diff (overlapping slices of neighbouring chunks)",
               unknown=except_along("axis", -1)),
    "diagonal": _A(_diagonal, "dask.array.diagonal (the diagonals of the blocks)",
                   unknown=_off_diagonal, numpy=_all_empty),
    "trace": _A(_trace, "dask.array.trace (the diagonals of the blocks summed in a tree)",
                unknown=_off_diagonal),
    "flip": _A(_flip, "dask.array.flip (chunks reversed)",
               unknown=except_along("axis", None), numpy=_all_empty),
    "roll": _A(roll_node, "dask.array.roll (slices joined)", unknown=except_along("axis", None),
               numpy=_first_empty),
    "tril": _A(_triangle(da.tril), "dask.array.tril (block by block)", _matrices, _batch),
    "triu": _A(_triangle(da.triu), "dask.array.triu (block by block)", _matrices, _batch),
    "diag": _A(_dask_function(da.diag, "k"), "dask.array.diag (block by block)",
               numpy=_all_empty),
    "pad": _A(_pad, "dask.array.pad (new chunks at the edges)", _dask_pads, _pads_known,
              numpy=_all_empty),
    "broadcast_to": _A(_broadcast_to,
                       "dask.array.broadcast_to (chunks kept)", unknown=always,
                       numpy=_all_empty),
    "repeat": _A(repeat_node, "dask.array.repeat (block by block)", unknown=repeats_int,
                 numpy=_first_empty),
    "outer": _A(_outer, "dask.array.outer (block by block)", unknown=vectors,
                numpy=_all_empty),
    "tile": _A(tile_node, "dask.array.tile (chunks repeated)", unknown=tiled, numpy=_all_empty),
    "zeros": _A(creation(da.zeros), "dask.array.zeros (Dask's automatic chunks)"),
    "ones": _A(creation(da.ones), "dask.array.ones (Dask's automatic chunks)"),
    "full": _A(creation(da.full), "dask.array.full (Dask's automatic chunks)"),
    "arange": _A(arange, "dask.array.arange (Dask's automatic chunks)", integer_arange),
    "eye": _A(eye, "dask.array.eye (Dask's automatic chunks)", numpy=_output_empty),
    "random": _A(random, "a fresh dask.array.random generator's draws (Dask's automatic "
                         "chunks)", unseeded),
    "zeros_like": _A(_like(da.zeros_like), "dask.array.zeros_like (chunks kept)",
                     unknown=always),
    "ones_like": _A(_like(da.ones_like), "dask.array.ones_like (chunks kept)",
                    unknown=always),
    "full_like": _A(_like(da.full_like), "dask.array.full_like (chunks kept)",
                    unknown=always),
}

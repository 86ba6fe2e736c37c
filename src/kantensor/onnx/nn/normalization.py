"""ONNX's normalisations: Layer, Batch, Instance, RMS, Lp, MeanVariance and Group
normalisation, and LRN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axis
from ...ops.templates import checked, dims, groups, reads_ranks, typed
from ...syntax.ast import Clause, DimVar, TensorPattern
from ..dtypes import dtype_of
from ..shared import NotKnown


def _onto(a: list[DimVar], rank: int, prefix: str, what: str
          ) -> tuple[TensorPattern, list[Clause]]:
    """An operand of ``rank`` dims named ``prefix``0, ... that broadcasts onto a tensor of
    dims ``a`` in one direction (each size 1 or the tensor's, aligned on the right), and
    those clauses, ``(s - 1)*(s - a) == 0``, with their messages."""
    if rank > len(a):
        raise ParamError(f"{what} has {rank} dimensions, more than X's {len(a)}")
    own = dims(prefix, rank)
    return typed(own, "T"), [checked(((s - 1) * (s - x)).eq(0),
                                     lambda v, _, s=s.name, x=x.name, j=j: (
        f"{what} does not broadcast onto X: its axis {j} has size {v[s]}, X's "
        f"{v[x]} (it must be 1 or X's size)"))
        for j, (s, x) in enumerate(zip(own, a[len(a) - rank:], strict=True))]


@reads_ranks
def build_layer_norm(types: tuple, axis: int, outputs: int = 1, stash_type: int = 1, **_: Any
                     ) -> dict[str, Any]:
    """LayerNormalization (and RMSNormalization, with one output): Y like X; Mean and
    InvStdDev keep the axes before ``axis`` and have 1 from it on. Scale and B broadcast
    onto X (each of their sizes 1 or X's, aligned on the right; no more dimensions than
    X), as onnxruntime requires: Y is X's shape. What is normalised is not empty
    (onnxruntime: "Size of X.shape[axis:] must be at least 1", even where X is)."""
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    a = dims("a", x.ndim)
    stat = typed([*a[:ax], *[1] * (x.ndim - ax)], dtype_of(stash_type, "LayerNormalization"))
    rest: list[Any] = []
    normalised = a[ax]
    for d in a[ax + 1:]:
        normalised = normalised * d
    clauses: list[Clause] = [checked(normalised >= 1, lambda v, _, axis=ax: (
        f"X's axes from {axis} on hold no element (onnxruntime: the size of X.shape[axis:] "
        "must be at least 1)"))]
    for i, (t, what) in enumerate(zip(types[1:], ("Scale", "B"), strict=False)):
        made, said = _onto(a, t.ndim, "sb"[i], what)
        rest.append(made)
        clauses += said
    return {"x": a, "rest": [*rest, *clauses], "outs": [typed(a, "T"), stat, stat][:outputs],
            "params": {"axis": ax}}


def layer_norm(x: np.ndarray, *rest: np.ndarray, axis: int, epsilon: float = 1e-5,
               stash_type: int = 1, outputs: int = 1) -> Any:
    axes = tuple(range(axis, x.ndim))
    xs = x.astype(np.float32) if stash_type == 1 else x
    mean = xs.mean(axis=axes, keepdims=True)
    var = ((xs - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + epsilon)
    y = (xs - mean) * inv
    if rest:
        y = y * rest[0]
    if len(rest) > 1:
        y = y + rest[1]
    y = y.astype(x.dtype)
    return (y, mean, inv)[:outputs] if outputs > 1 else y


def _channels(x: Any, least: int, op: str) -> list[DimVar]:
    """X's dim variables, X of ``least`` dimensions or more: (N, C, ...)."""
    if x.ndim < least:
        raise ParamError(f"{op} takes X of {least} dimensions or more (N, C, ...), got "
                         f"{x.ndim}")
    return dims("a", x.ndim)


def _batch_norm(types: tuple, outputs: int, counts: tuple[int, int], training: str,
                scale: str, stats: str, unasked: tuple = ()) -> dict[str, Any]:
    """BatchNormalization: Y like X (N, C, ...) of T; scale and B of X's C entries and
    dtype ``scale``, the input mean and variance of C entries and dtype ``stats``, and
    so are the outputs past Y (ONNX's schemas: one T up to opset 13, T and U at 14, T,
    T1 and T2 from 15). A node has ``counts[1]`` outputs in training, else Y alone
    (ONNX's schema takes those two counts, its shape inference the one ``training``
    says; onnxruntime refuses the others). In training onnxruntime needs the running mean
    and variance asked (not empty names: ``unasked``) and the saved ones both or
    neither; it crashes or fails otherwise, where the spec computes them: untyped."""
    if outputs not in counts:
        raise ParamError(f"{counts[1]} outputs in training ({training}), else 1 (Y); the "
                         f"node has {outputs}")
    if outputs > 1 and ({1, 2} & set(unasked) or len({3, 4} & set(unasked)) == 1):
        raise NotKnown("onnxruntime's kernel crashes or fails in training where the running "
                       "mean or variance is not asked for, or one saved statistic of the "
                       "two (an empty output name); the spec computes them")
    a = _channels(types[0], 2, "BatchNormalization")
    c, s = typed([a[1]], scale), typed([a[1]], stats)
    return {"x": a, "rest": [c, c, s, s], "outs": [typed(a, "T"), *[s] * (outputs - 1)]}


@reads_ranks
def build_batch_norm_7(types: tuple, outputs: int = 1, unasked: tuple = (), **_: Any
                       ) -> dict[str, Any]:
    """BatchNormalization, opsets 7 to 13: every tensor of X's T; 5 outputs (Y, the
    running mean and variance, the saved mean and inverse deviation) in training."""
    return _batch_norm(types, outputs, (1, 5), "5 outputs", "T", "T", unasked)


@reads_ranks
def build_batch_norm_14(types: tuple, outputs: int = 1, training_mode: int = 0,
                        unasked: tuple = (), **_: Any
                        ) -> dict[str, Any]:
    """BatchNormalization, opset 14: X, scale and B of T, the mean and variance of U."""
    _trained(outputs, training_mode)
    return _batch_norm(types, outputs, (1, 3), "training_mode 1", "T", "U", unasked)


@reads_ranks
def build_same_shape_stats(types: tuple, outputs: int = 1, training_mode: int = 0,
                           unasked: tuple = (), **_: Any
                           ) -> dict[str, Any]:
    """BatchNormalization, opset 15 on: X of T, scale and B of T1, the mean and variance
    of T2 (each float type on its own)."""
    _trained(outputs, training_mode)
    return _batch_norm(types, outputs, (1, 3), "training_mode 1", "T1", "T2", unasked)


def _trained(outputs: int, training_mode: int) -> None:
    """3 outputs (Y, running_mean, running_var) exactly when training_mode is 1."""
    if outputs != (3 if training_mode else 1):
        raise ParamError("3 outputs (Y, running_mean, running_var) when training_mode is "
                         f"1, else 1 (Y); training_mode is {training_mode}, the node has "
                         f"{outputs}")


@reads_ranks
def build_instance_norm(types: tuple, **_: Any) -> dict[str, Any]:
    """InstanceNormalization: Y like X (N, C, D1, ...: onnxruntime needs a spatial axis);
    scale and B have X's C entries."""
    a = _channels(types[0], 3, "InstanceNormalization")
    return {"x": a, "rest": [typed([a[1]], "T")] * (len(types) - 1), "outs": [typed(a, "T")]}


@reads_ranks
def build_group_norm(types: tuple, num_groups: int, **_: Any) -> dict[str, Any]:
    """GroupNormalization (opset 21): Y like X (N, C, ...); scale and bias have X's C
    entries, and C is divisible by num_groups (each group has as many channels); X has
    no empty axis (:func:`_grouped`)."""
    a, clauses = _grouped(types[0], num_groups)
    return {"x": a, "rest": [*[typed([a[1]], "T")] * (len(types) - 1), *clauses],
            "outs": [typed(a, "T")]}


def _grouped(x: Any, num_groups: int) -> tuple[list[DimVar], list[Clause]]:
    """X's dim variables (N, C, ...) and what GroupNormalization needs of them: C
    divisible by ``num_groups`` (of 1 or more), and no empty axis (onnxruntime's function
    reshapes X to (N, num_groups, -1), which it refuses for an empty X, but for one
    corner of rank 4 and one group, C and the first spatial axis empty, where its Y is
    not X's shape: left refused, never claimed)."""
    a = _channels(x, 2, "GroupNormalization")
    if num_groups < 1:
        raise ParamError(f"num_groups must be positive, got {num_groups}")
    fits = checked((a[1] % num_groups).eq(0), lambda v, _, c=a[1].name: (
        f"the channels C ({v[c]}) are not divisible by num_groups ({num_groups})"))
    full = [checked(d >= 1, lambda v, types, i=i: (
        f"axis {i} of {types[0]} is empty (onnxruntime's GroupNormalization reshapes X to "
        "(N, num_groups, -1), refused for an empty X)")) for i, d in enumerate(a)]
    return a, [fits, *full]


@reads_ranks
def build_lrn(types: tuple, size: int, **_: Any) -> dict[str, Any]:
    """LRN: Y like X. onnxruntime's kernel takes X of 4 axes (N, C, H, W) and an odd
    ``size`` of 1 or more, and refuses any other (the spec's X has 3 axes or more)."""
    if types[0].ndim != 4:
        raise ParamError(f"X has {types[0].ndim} axes; onnxruntime's LRN takes 4 (N, C, H, "
                         "W)")
    if size < 1 or size % 2 == 0:
        raise ParamError(f"size is {size}; onnxruntime's LRN takes an odd size of 1 or more")
    a = dims("a", 4)
    return {"x": a, "rest": [], "outs": [typed(a, "T")]}


def batch_norm(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray,
               var: np.ndarray, *, epsilon: float = 1e-5, momentum: float = 0.9,
               training_mode: int = 0, outputs: int = 1, unasked: tuple = ()) -> Any:
    """Y of X's dtype, the statistics of the input mean's (their schemas' T and T2);
    in training (``training_mode``, or 5 outputs before opset 14) Y is normalised by the
    batch's mean and variance, and the running ones move toward them by ``momentum``;
    the saved mean and inverse deviation (5 outputs) are the batch's, as onnxruntime
    gives them."""
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training_mode or outputs == 5:
        axes = (0, *range(2, x.ndim))
        m, v = x.mean(axis=axes), x.var(axis=axes)
        y = (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + epsilon)
        y = (y * scale.reshape(shape) + b.reshape(shape)).astype(x.dtype)
        stats = (mean * momentum + m * (1 - momentum), var * momentum + v * (1 - momentum),
                 m, 1 / np.sqrt(v + epsilon))
        return (y, *(t.astype(mean.dtype) for t in stats))[:outputs]
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    return (y * scale.reshape(shape) + b.reshape(shape)).astype(x.dtype)


@reads_ranks
def build_same_shape(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """The output(s) of X's shape and dtype; any other inputs of any shape."""
    a = dims("a", types[0].ndim)
    return {"x": a, "rest": groups("r", len(types) - 1), "outs": [typed(a, "T")] * outputs}


@reads_ranks
def build_same_shape_axes(types: tuple, axes: tuple = (0, 2, 3), **_: Any) -> dict[str, Any]:
    """MeanVarianceNormalization: Y of X's shape and dtype, its ``axes`` each an axis of X
    (its body's ReduceMean, onnx.reference's run, refuses another; onnxruntime's kernel
    runs some: a point is valid where both run)."""
    for axis in axes:
        normalize_axis(axis, types[0].ndim)
    return build_same_shape(types)


def instance_norm(x: np.ndarray, scale: np.ndarray, b: np.ndarray, *,
                  epsilon: float = 1e-5) -> np.ndarray:
    axes = tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + epsilon) * scale.reshape(shape) + b.reshape(shape)


def rms_norm(x: np.ndarray, scale: np.ndarray, *, axis: int = -1, epsilon: float = 1e-5,
             stash_type: int = 1) -> np.ndarray:
    axes = tuple(range(axis % x.ndim, x.ndim))
    xs = x.astype(np.float32) if stash_type == 1 else x
    y = xs / np.sqrt((xs ** 2).mean(axis=axes, keepdims=True) + epsilon)
    return (y * scale).astype(x.dtype)


def lp_norm(x: np.ndarray, *, axis: int = -1, p: int = 2) -> np.ndarray:
    n = np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1 / p)
    return np.where(n == 0, 0, x / np.where(n == 0, 1, n)).astype(x.dtype)


def mean_variance_norm(x: np.ndarray, *, axes: tuple = (0, 2, 3)) -> np.ndarray:
    m = x.mean(axis=axes, keepdims=True)
    s = np.sqrt(((x - m) ** 2).mean(axis=axes, keepdims=True))
    return ((x - m) / (s + 1e-9)).astype(x.dtype)


def group_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, num_groups: int,
               epsilon: float = 1e-5, stash_type: int = 1) -> np.ndarray:
    n, c = x.shape[:2]
    g = x.reshape(n, num_groups, -1).astype(np.float64)
    m, v = g.mean(axis=-1, keepdims=True), g.var(axis=-1, keepdims=True)
    y = ((g - m) / np.sqrt(v + epsilon)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (y * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype)


def lrn(x: np.ndarray, *, size: int, alpha: float = 1e-4, beta: float = 0.75,
        bias: float = 1.0) -> np.ndarray:
    c = x.shape[1]
    sq = np.square(x.astype(np.float64))
    total = np.zeros_like(sq)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    for i in range(c):
        total[:, i] = sq[:, max(0, i - lo):min(c, i + hi + 1)].sum(axis=1)
    return (x / (bias + alpha / size * total) ** beta).astype(x.dtype)

"""ONNX's math ops along one axis: Softmax, LogSoftmax and Hardmax, CumSum and
CumProd, TopK, and the losses over the class axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import alternative, builder, dims, reads_ranks, size_of, typed
from ...syntax.ast import Compare, DimVar
from ...types.dim import Dim


@reads_ranks
def build_same_axis(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """One axis of the input (Softmax, LogSoftmax, Hardmax): resolved. A rank-0 input
    has no axis, so no relation of that rank (onnx's inference, which onnxruntime runs,
    refuses "Input rank must be >= 1")."""
    x = types[0]
    if x.ndim == 0:
        raise ParamError("the input has rank 0: it must have at least one axis")
    return {"x": dims("a", x.ndim), "params": {"axis": normalize_axis(axis, x.ndim)}}


def softmax(x: np.ndarray, *, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, *, axis: int) -> np.ndarray:
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def hardmax(x: np.ndarray, *, axis: int) -> np.ndarray:
    idx = np.expand_dims(np.argmax(x, axis=axis), axis)
    out = np.zeros_like(x)
    np.put_along_axis(out, idx, 1, axis=axis)
    return out


def _flattened(fn: Any, x: np.ndarray, axis: int) -> np.ndarray:
    """``fn`` as opsets 1 to 12 define Softmax, LogSoftmax and Hardmax: over the axes
    from ``axis`` on, flattened into one (the input coerced to 2-D)."""
    ax = axis % x.ndim
    rows, cols = int(np.prod(x.shape[:ax])), int(np.prod(x.shape[ax:]))
    return fn(x.reshape(rows, cols), axis=1).reshape(x.shape)


def softmax_2d(x: np.ndarray, *, axis: int) -> np.ndarray:
    return _flattened(softmax, x, axis)


def log_softmax_2d(x: np.ndarray, *, axis: int) -> np.ndarray:
    return _flattened(log_softmax, x, axis)


def hardmax_2d(x: np.ndarray, *, axis: int) -> np.ndarray:
    return _flattened(hardmax, x, axis)


@builder
def build_cumulative(types: tuple, axis_value: Any = None, **_: Any) -> dict[str, Any]:
    """CumSum and CumProd: the input's shape; the axis (an input of one entry) is one of
    the input's axes (onnxruntime refuses any other): an int is checked now, a size (a
    Loop's iteration number) is a condition, ``-rank <= axis <= rank - 1``; an axis the
    data give is checked when the model runs. The axis is a scalar or a tensor of one
    entry (onnxruntime refuses any other shape)."""
    x = types[0]
    entry = axis_value[0] if axis_value and len(axis_value) == 1 else None
    sizes = SizeNames(entry) if isinstance(entry, Dim) else SizeNames()
    fits: list[Compare] = []
    if isinstance(entry, int):
        normalize_axis(entry, x.ndim)
    elif isinstance(entry, Dim):
        at = sizes.expr(entry)
        fits = [Compare("<=", at, x.ndim - 1), Compare(">=", at + x.ndim, 0)]
    if types[1].ndim > 1:
        raise ParamError(f"the axis is a tensor of rank {types[1].ndim}, not a scalar "
                         "or a tensor of one entry")
    return {"x": dims("a", x.ndim), "axis": [1] if types[1].ndim else [],
            "sizes": sizes.patterns(), "fits": fits}


def cumsum(x: np.ndarray, axis: np.ndarray, *sizes: np.ndarray, exclusive: int = 0,
           reverse: int = 0, **_: Any) -> np.ndarray:
    return _cumulative(np.cumsum, x, int(np.asarray(axis).ravel()[0]), exclusive, reverse, 0)


def cumprod(x: np.ndarray, axis: np.ndarray, *sizes: np.ndarray, exclusive: int = 0,
            reverse: int = 0, **_: Any) -> np.ndarray:
    return _cumulative(np.cumprod, x, int(np.asarray(axis).ravel()[0]), exclusive, reverse,
                       1)


def _cumulative(fn: Any, x: np.ndarray, axis: int, exclusive: int, reverse: int,
                identity: int) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    y = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        y = np.concatenate([np.full_like(np.take(y, [0], axis), identity),
                            np.delete(y, -1, axis)], axis=axis) if x.shape[axis] else y
    return np.flip(y, axis) if reverse else y


@builder
def build_topk(types: tuple, axis: int, K_value: Any, **_: Any) -> dict[str, Any]:
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    a = dims("a", x.ndim)
    k = K_value[0] if K_value else None
    sizes = SizeNames(k) if isinstance(k, Dim) else SizeNames()
    out: list[Any] = list(a)
    out[ax] = DimVar("u") if k is None else sizes.expr(k)
    return {"x": a, "sizes": sizes.patterns(), "y": out, "fits": [Compare("<=", out[ax], a[ax])],
            "params": {"axis": ax}}


@builder
def build_topk_attribute(types: tuple, axis: int, k: int, **_: Any) -> dict[str, Any]:
    """TopK from opset 1 to 9: ``k`` an attribute, at least 1 (onnx's inference, which
    onnxruntime runs, refuses 0 there: "Invalid value for attribute k"), the sizes
    TopK's of that k as a constant input."""
    if k < 1:
        raise ParamError(f"k is {k}: TopK before opset 10 takes k >= 1")
    made = build_topk(types, axis=axis, K_value=(k,))
    return {"x": made["x"], "y": made["y"], "fits": made["fits"], "params": made["params"]}


def topk_attribute(x: np.ndarray, *, k: int, axis: int = -1, **_: Any) -> tuple:
    return topk(x, np.asarray([k]), axis=axis)


def topk(x: np.ndarray, k: np.ndarray, *sizes: np.ndarray, axis: int, largest: int = 1,
         sorted: int = 1, **_: Any) -> tuple:
    n = int(np.asarray(k).ravel()[0])
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(n), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


def _loss_operands(types: tuple, reduction: str, outputs: int) -> tuple[list, list, tuple]:
    """The operands of a loss: scores (N, C, d...), targets (N, d...), weights (C); the
    loss per target (``none``) or a scalar; the log probabilities like the scores. Also
    the sizes ``(n, c, target)``: the batch, the classes and the targets' dims."""
    x = types[0]
    if x.ndim < 2:
        raise ParamError("the scores need a batch and a class axis")
    n, c = dims("n c")
    rest = dims("d", x.ndim - 2)
    scores, target = typed([n, c, *rest], "T"), [n, *rest]
    weights = [typed([c], "T")] if len(types) > 2 else []
    y = typed(target if reduction == "none" else [], "T")
    return [scores, typed(target, "I"), *weights], [y, scores][:outputs], (n, c, target)


@reads_ranks
def build_nll_loss(types: tuple, reduction: str, **_: Any) -> dict[str, Any]:
    """NegativeLogLikelihoodLoss: a class to pick (``C >= 1``), or no target to pick
    one for. onnxruntime gathers each target's score before it drops the ignored ones,
    so with no class it fails whatever the targets' values (and ignore_index) are."""
    inputs, outs, (_, c, target) = _loss_operands(types, reduction, 1)
    return {"sig": [alternative(inputs, outs, [c >= 1]),
                    alternative(inputs, outs, [size_of(target).eq(0)])]}


@reads_ranks
def build_softmax_cross_entropy(types: tuple, reduction: str, outputs: int = 1, **_: Any
                                ) -> dict[str, Any]:
    """SoftmaxCrossEntropyLoss: a batch and a class (``N >= 1``, ``C >= 1``).
    onnxruntime's function reshapes the scores to (N, C, -1), which it refuses for an
    empty batch or no class ("Invalid Target shape product of 0"), whatever the data."""
    inputs, outs, (n, c, _) = _loss_operands(types, reduction, outputs)
    return {"sig": [alternative(inputs, outs, [n >= 1, c >= 1])]}


def nll_loss(x: np.ndarray, target: np.ndarray, *weight: np.ndarray, reduction: str = "mean",
             ignore_index: int | None = None) -> np.ndarray:
    c = x.shape[1]
    t = target.astype(np.int64)
    keep = np.ones(t.shape, dtype=bool) if ignore_index is None else t != ignore_index
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(x, safe[:, None], axis=1)[:, 0]
    w = weight[0][safe] if weight else np.ones(t.shape, dtype=x.dtype)
    w = np.where(keep, w, 0).astype(x.dtype)
    loss = -picked * w
    if reduction == "none":
        return loss.astype(x.dtype)
    if reduction == "sum":
        return loss.sum().astype(x.dtype)
    del c
    return (loss.sum() / w.sum()).astype(x.dtype)


def softmax_cross_entropy(x: np.ndarray, labels: np.ndarray, *weight: np.ndarray,
                          reduction: str = "mean", ignore_index: int | None = None,
                          outputs: int = 1) -> Any:
    shifted = x - x.max(axis=1, keepdims=True)
    log_prob = (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))).astype(x.dtype)
    loss = nll_loss(log_prob, labels, *weight, reduction=reduction, ignore_index=ignore_index)
    return (loss, log_prob) if outputs > 1 else loss

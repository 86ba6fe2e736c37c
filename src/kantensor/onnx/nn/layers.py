"""ONNX's nn ops that reshape or mask their input: Flatten, Dropout and Shrink, and
TfIdfVectorizer (n-gram counts of integer tokens).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.templates import dims, reads_ranks, size_of, typed


@reads_ranks
def build_flatten(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Flatten: the axes before ``axis`` and from it, each multiplied out."""
    x = types[0]
    if not -x.ndim <= axis <= x.ndim:
        raise ParamError(f"axis {axis} is out of bounds for a tensor of dimension {x.ndim}")
    axis = axis + x.ndim if axis < 0 else axis
    a = dims("a", x.ndim)
    return {"x": a, "y": [size_of(a[:axis]), size_of(a[axis:])], "params": {"axis": axis}}


@reads_ranks
def build_flatten_nonnegative(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """Flatten before opset 11: ``axis`` from 0 to the rank (onnxruntime refuses a
    negative one: "Invalid value(-1) for attribute 'axis'")."""
    if axis < 0:
        raise ParamError(f"axis {axis} is negative: before opset 11 Flatten's axis is 0 "
                         "to the rank")
    return build_flatten(types, axis=axis)


def flatten(x: np.ndarray, *, axis: int) -> np.ndarray:
    lead = int(np.prod(x.shape[:axis]))
    return x.reshape(lead, -1) if x.size or lead else x.reshape(lead, int(np.prod(x.shape[axis:])))


@reads_ranks
def build_dropout(types: tuple, outputs: int, given: tuple = (0,), **_: Any
                  ) -> dict[str, Any]:
    """Dropout: the output, and the mask (bool) when the node asks for it. The ratio
    and the training mode (``given`` says which the node has: a training mode without
    a ratio is the training mode) are scalars, as onnx's inference requires: the ratio
    of dtype ``R`` (the catalogue's where-clause says which), the training mode bool."""
    x = dims("a", types[0].ndim)
    rest = [typed([], "R" if place == 1 else "bool") for place in given[1:]]
    return {"x": x, "rest": rest,
            "outs": [typed(x, "T"), typed(x, "bool")][:2 if outputs > 1 else 1]}


def dropout(x: np.ndarray, *rest: np.ndarray, given: tuple = (0,), outputs: int = 1,
            seed: int = 0, ratio: float = 0.5, **_: Any) -> Any:
    """X where not training (the training mode false or not given, as before opset 12);
    in training, each element kept with probability 1 - ratio and scaled by
    1 / (1 - ratio) (the dropped ones 0), drawn from the ``seed`` attribute's generator;
    the mask says which were kept."""
    extra = dict(zip(given[1:], rest, strict=False))
    training = 2 in extra and bool(np.asarray(extra[2]))
    ratio = float(np.asarray(extra[1])) if 1 in extra else ratio
    if not training or ratio == 0:
        y, mask = x.copy(), np.ones(x.shape, dtype=bool)
    else:
        mask = np.random.default_rng(seed).uniform(size=x.shape) >= ratio
        y = (x * mask * (1 / (1 - ratio) if ratio < 1 else 0)).astype(x.dtype)
    return (y, mask) if outputs > 1 else y


@reads_ranks
def build_dropout_7(types: tuple, outputs: int, **_: Any) -> dict[str, Any]:
    """Dropout from opset 7 to 9: the output, and the mask of the input's dtype (its
    schema's T; bool from 10)."""
    x = dims("a", types[0].ndim)
    return {"x": x, "rest": [], "outs": [typed(x, "T")] * (2 if outputs > 1 else 1)}


def dropout_7(x: np.ndarray, *, outputs: int = 1, ratio: float = 0.5, **_: Any) -> Any:
    """X (no training mode before 12), and the mask of X's dtype: every element kept, as
    onnx's reference keeps them (onnxruntime writes zeros)."""
    y = dropout(x, outputs=outputs, ratio=ratio)
    return (y[0], y[1].astype(x.dtype)) if outputs > 1 else y


def shrink(x: np.ndarray, *, bias: float, lambd: float) -> np.ndarray:
    return np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0)).astype(x.dtype)


@reads_ranks
def build_tfidf(types: tuple, ngram_indexes: tuple = (), **_: Any) -> dict[str, Any]:
    """TfIdfVectorizer: one count per n-gram index (the largest index + 1); a 2-d input's
    batch at least 1, as onnxruntime requires ("[B,C] dimensions with B > 0")."""
    n = max(ngram_indexes, default=-1) + 1
    x = types[0]
    b, s = dims("b s")
    if x.ndim == 1:
        return {"x": [s], "y": [n], "fits": []}
    if x.ndim == 2:
        return {"x": [b, s], "y": [b, n], "fits": [b >= 1]}
    raise ParamError("TfIdfVectorizer takes 1-d or 2-d input")


def tfidf(x: np.ndarray, *, max_gram_length: int, max_skip_count: int,
          min_gram_length: int, mode: str, ngram_counts: tuple, ngram_indexes: tuple,
          pool_int64s: tuple = (), weights: tuple = (), **_: Any) -> np.ndarray:
    """TfIdfVectorizer on integer tokens: counts of the pool's n-grams (with skips),
    as term frequencies, 0/1 (IDF) or weighted counts."""
    pool = list(pool_int64s)
    grams: dict[tuple, int] = {}
    starts = [*ngram_counts, len(pool)]
    at = 0
    for n in range(1, len(ngram_counts) + 1):
        lo, hi = starts[n - 1], starts[n]
        for j in range(lo, hi, n):
            grams[tuple(pool[j:j + n])] = ngram_indexes[at]
            at += 1
    size = max(ngram_indexes) + 1
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    out = np.zeros((rows.shape[0], size), dtype=np.float32)
    for r, row in enumerate(rows.tolist()):
        for n in range(min_gram_length, max_gram_length + 1):
            for skip in range(0, max_skip_count + 1 if n > 1 else 1):
                step = skip + 1
                for start in range(len(row) - (n - 1) * step):
                    key = tuple(row[start:start + (n - 1) * step + 1:step])
                    if key in grams:
                        out[r, grams[key]] += 1
    w = np.asarray(weights, dtype=np.float32) if weights else np.ones(size, np.float32)
    if mode == "IDF":
        out = (out > 0) * w
    elif mode == "TFIDF":
        out = out * w
    return out.reshape(-1) if x.ndim == 1 else out

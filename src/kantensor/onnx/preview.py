"""ONNX's preview family (``onnx/defs/preview``, domain ``ai.onnx.preview``):
FlexAttention (``signatures/onnx/preview.toml``), its builder beside its kernel.

FlexAttention is scaled dot-product attention whose scores and probabilities a subgraph
of the model may modify (``score_mod``, ``prob_mod``: one rank-4 tensor in, one of the
same shape out); they run as compiled kantensor functions, made once per subgraph.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..ops.paramvalues import GraphParam
from ..types.type import TensorType
from .dtypes import dtype_of
from .runner import subgraph_function


@lru_cache(maxsize=64)
def _modifier(graph: GraphParam, dtype: str) -> Any:
    return subgraph_function(graph, [TensorType(dtype, (None,) * 4)])


def _precision(x: np.ndarray, softmax_precision: int | None) -> str:
    if softmax_precision is not None:
        return dtype_of(softmax_precision, "FlexAttention's softmax_precision")
    return "float64" if x.dtype == np.float64 else "float32"


def flex_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, *,
                   scale: float | None = None, softmax_precision: int | None = None,
                   score_mod: GraphParam | None = None, prob_mod: GraphParam | None = None
                   ) -> np.ndarray:
    dtype = _precision(q, softmax_precision)
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k, group, axis=1).astype(dtype)
    v = np.repeat(v, group, axis=1).astype(dtype)
    factor = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q.astype(dtype) @ np.swapaxes(k, -1, -2)) * np.asarray(factor, dtype=dtype)
    if score_mod is not None:
        (scores,) = _modifier(score_mod, dtype)(scores)
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    exp = np.exp(scores - top)
    probs = exp / np.sum(exp, axis=-1, keepdims=True)
    if prob_mod is not None:
        (probs,) = _modifier(prob_mod, dtype)(probs)
    return (probs @ v).astype(q.dtype)

"""ONNX's training family (``onnx/defs/training``, domain ``ai.onnx.preview.training``):
the optimizers Adagrad, Adam and Momentum (``signatures/onnx/training.toml``), each
op's builder beside its kernel. Each takes a learning rate ``R``, an update count ``T``
and groups of tensors, one tensor per optimized value in each group (the values, their
gradients, their accumulated states), and gives the updated values and states, each of
its value's shape (a named group of sizes shared by a value, its gradient and states).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.templates import reads_ranks, typed
from ..syntax.ast import DTypeVar, InCategory, NamedGroup
from ..types.dtypetable import DTYPE_TABLE, FLOATING

#: The dtypes of the tensors (ONNX's ``T3``: IEEE single and double), each tensor of one
#: of them on its own: the dtype table's floats of 32 bits or more.
FLOATS = tuple(d.name for d in DTYPE_TABLE if d.category is FLOATING and d.bits >= 32)


def _optimizer(types: tuple, groups: int, outs: tuple[int, ...]) -> dict[str, Any]:
    """The operands of ``groups`` groups of tensors in (each tensor of its value's shape
    and of its own dtype of :data:`FLOATS`), the groups ``outs`` out: each output of its
    input's dtype, as onnx's inference gives it (onnxruntime has no kernel)."""
    n = len(types) - 2
    if n <= 0 or n % groups:
        raise ParamError(f"expected {groups} groups of tensors of one length after R and "
                         f"T, got {n} tensors")
    k = n // groups
    tensors = [[typed([NamedGroup(f"s{i}")], f"X{g}_{i}") for i in range(k)]
               for g in range(groups)]
    clauses = [InCategory(DTypeVar(f"X{g}_{i}"), FLOATS)
               for g in range(groups) for i in range(k)]
    return {"inputs": [t for group in tensors for t in group] + clauses,
            "outs": [t for g in outs for t in tensors[g]]}


@reads_ranks
def build_adagrad(types: tuple, **_: Any) -> dict[str, Any]:
    """Adagrad: values, gradients, squared-gradient sums in; values, sums out."""
    return _optimizer(types, 3, (0, 2))


@reads_ranks
def build_adam(types: tuple, **_: Any) -> dict[str, Any]:
    """Adam: values, gradients, first and second moments in; values, moments out."""
    return _optimizer(types, 4, (0, 2, 3))


@reads_ranks
def build_momentum(types: tuple, **_: Any) -> dict[str, Any]:
    """Momentum: values, gradients, velocities in; values, velocities out."""
    return _optimizer(types, 3, (0, 2))


def _split(tensors: tuple, groups: int) -> list[tuple]:
    """The tensors in their ``groups`` groups (each output is then computed in its
    input's dtype, the rate's and gradient's of another float type cast back)."""
    k = len(tensors) // groups
    return [tensors[g * k:(g + 1) * k] for g in range(groups)]


def adagrad(r: np.ndarray, t: np.ndarray, *tensors: np.ndarray, norm_coefficient: float = 0.0,
            decay_factor: float = 0.0, epsilon: float = 0.0) -> tuple:
    xs, gs, hs = _split(tensors, 3)
    rate = r / (1 + t * decay_factor)
    new_x, new_h = [], []
    for x, g, h in zip(xs, gs, hs, strict=True):
        g = norm_coefficient * x + g
        h2 = h + g * g
        new_x.append((x - rate * g / (np.sqrt(h2) + epsilon)).astype(x.dtype))
        new_h.append(h2.astype(h.dtype))
    return (*new_x, *new_h)


def adam(r: np.ndarray, t: np.ndarray, *tensors: np.ndarray, alpha: float = 0.9,
         beta: float = 0.999, epsilon: float = 0.0, norm_coefficient: float = 0.0,
         norm_coefficient_post: float = 0.0) -> tuple:
    xs, gs, vs, hs = _split(tensors, 4)
    rate = r * np.sqrt(1 - beta ** t) / (1 - alpha ** t) if t > 0 else r
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs, strict=True):
        g = norm_coefficient * x + g
        v2 = alpha * v + (1 - alpha) * g
        h2 = beta * h + (1 - beta) * g * g
        new_x.append(((1 - norm_coefficient_post) * (x - rate * v2 / (np.sqrt(h2) + epsilon)))
                     .astype(x.dtype))
        new_v.append(v2.astype(v.dtype))
        new_h.append(h2.astype(h.dtype))
    return (*new_x, *new_v, *new_h)


def momentum(r: np.ndarray, t: np.ndarray, *tensors: np.ndarray, alpha: float,
             beta: float, mode: str, norm_coefficient: float) -> tuple:
    xs, gs, vs = _split(tensors, 3)
    step = beta if t > 0 else 1
    new_x, new_v = [], []
    for x, g, v in zip(xs, gs, vs, strict=True):
        g = norm_coefficient * x + g
        v2 = alpha * v + step * g
        new_x.append((x - r * (g + alpha * v2 if mode == "nesterov" else v2)).astype(x.dtype))
        new_v.append(v2.astype(v.dtype))
    return (*new_x, *new_v)

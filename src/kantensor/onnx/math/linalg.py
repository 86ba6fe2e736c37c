"""ONNX's products: Gemm, MatMulInteger, QLinearMatMul, Einsum and Det (MatMul is
NumPy's matmul).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.families.linalg import build_einsum as einsum_signature
from ...ops.params import ParamError
from ...ops.templates import alternative, builder, checked, dims, reads_ranks, typed
from ...syntax.ast import NamedGroup
from ...types.dtypes import is_inexact, is_low_precision


@reads_ranks
def build_gemm(types: tuple, transA: int, transB: int, **_: Any) -> dict[str, Any]:
    """Gemm: A is (M, K) or (K, M), B (K, N) or (N, K); C has at most two axes and
    broadcasts to (M, N), so its sizes are 1 or the result's."""
    if types[0].ndim != 2 or types[1].ndim != 2:
        raise ParamError("A and B must be matrices")
    k, m, n = dims("k m n")
    c, fits = [], []
    if len(types) > 2:
        rank = types[2].ndim
        if rank > 2:
            raise ParamError(f"C has {rank} axes, at most 2 broadcast to (M, N)")
        own = dims("c", rank)
        c = [typed(own, "T")]
        fits = [checked(((s - 1) * (s - t)).eq(0), lambda v, _, s=s.name, t=t.name, w=w, j=j: (
            f"C does not broadcast to (M, N): its axis {j} has size {v[s]}, {w} is {v[t]}"))
            for j, (s, t, w) in enumerate(zip(own, [m, n][2 - rank:], "MN"[2 - rank:],
                                              strict=True))]
    return {"a": [k, m] if transA else [m, k], "b": [n, k] if transB else [k, n], "c": c,
            "fits": fits}


@reads_ranks
def build_gemm_with_c(types: tuple, transA: int, transB: int, **_: Any) -> dict[str, Any]:
    """Gemm before opset 11: C is required (onnxruntime refuses a node without it)."""
    if len(types) < 3:
        raise ParamError("Gemm takes C before opset 11")
    return build_gemm(types, transA=transA, transB=transB)


def gemm(a: np.ndarray, b: np.ndarray, *c: np.ndarray, alpha: float, beta: float,
         transA: int, transB: int) -> np.ndarray:
    a = a.T if transA else a
    b = b.T if transB else b
    y = alpha * (a @ b) if alpha != 1 else a @ b
    if c:
        y = y + (beta * c[0] if beta != 1 else c[0])
    return y


def _rows(v: np.ndarray) -> np.ndarray:
    """A per-row (M) scale or zero point of a left matrix operand, as (M, 1)."""
    return v.reshape(-1, 1) if v.ndim == 1 and v.size > 1 else v


@reads_ranks
def build_matmul_integer(types: tuple, given: tuple = (0, 1), **_: Any) -> dict[str, Any]:
    """MatMulInteger's zero points, of any shape: a_zero_point of A's dtype (its schema's
    T1), b_zero_point of B's (T2), each by its place (``given``: b_zero_point alone is
    the third tensor)."""
    places = given[2:] if len(given) == len(types) else range(2, len(types))
    return {"rest": [typed([NamedGroup(f"z{k}")], "T" if k == 2 else "U") for k in places]}


def matmul_integer(a: np.ndarray, b: np.ndarray, *zero: np.ndarray, given: tuple = (0, 1)
                   ) -> np.ndarray:
    """(Each zero point by its place: b_zero_point alone was taken for a_zero_point.)"""
    places = given[2:] if len(given) == 2 + len(zero) else range(2, 2 + len(zero))
    points = dict(zip(places, zero, strict=True))
    az = _rows(points[2]).astype(np.int32) if 2 in points else 0
    bz = points[3].astype(np.int32) if 3 in points else 0
    return (a.astype(np.int32) - az) @ (b.astype(np.int32) - bz)


@reads_ranks
def build_qlinear_matmul(types: tuple, **_: Any) -> dict[str, Any]:
    """QLinearMatMul: NumPy's matmul of a and b (batch axes named alike, so equal or
    broadcast by the loop), the scales and zero points of any shape."""
    a, b = types[0], types[3]
    if a.ndim < 1 or b.ndim < 1:
        raise ParamError("a and b need at least one axis")
    lead = max(a.ndim, b.ndim) - 2
    batch = dims("l", max(lead, 0))
    m, n, p = dims("m n p")
    am = [*batch[len(batch) - max(a.ndim - 2, 0):], m, n] if a.ndim >= 2 else [n]
    bm = [*batch[len(batch) - max(b.ndim - 2, 0):], n, p] if b.ndim >= 2 else [n]
    y = [*batch, *([m] if a.ndim >= 2 else []), *([p] if b.ndim >= 2 else [])]
    return {"a": am, "b": bm, "y": y}


def qlinear_matmul(a: np.ndarray, a_s: np.ndarray, a_z: np.ndarray, b: np.ndarray,
                   b_s: np.ndarray, b_z: np.ndarray, y_s: np.ndarray, y_z: np.ndarray
                   ) -> np.ndarray:
    real = ((a.astype(np.float64) - _rows(a_z)) * _rows(a_s)) @ \
        ((b.astype(np.float64) - b_z) * b_s)
    info = np.iinfo(y_z.dtype)
    return np.clip(np.rint(real / y_s) + y_z, info.min, info.max).astype(y_z.dtype)


@builder
def build_einsum(types: tuple, equation: str, **_: Any) -> dict[str, Any]:
    """NumPy's einsum of the inputs, every input and the output of one dtype ``T`` (the
    schema's; NumPy's einsum promotes: onnxruntime refuses a float32 beside a float64)."""
    made = einsum_signature(types, subscripts=equation.replace(" ", ""))
    made.pop("params", None)
    sig = made["sig"]
    made["sig"] = alternative([typed(p.dims, "T") for p in sig.inputs],
                              [typed(p.dims, "T") for p in sig.outputs], sig.where, sig.loop)
    return made


def einsum(*arrays: np.ndarray, equation: str) -> np.ndarray:
    if arrays and is_low_precision(arrays[0].dtype) and is_inexact(arrays[0].dtype):
        # NumPy's einsum has no loop for bfloat16 or float8: in float32, then back
        wide = (a.astype(np.float32) for a in arrays)
        return np.einsum(equation, *wide).astype(arrays[0].dtype)
    return np.einsum(equation, *arrays)


def det(x: np.ndarray) -> np.ndarray:
    return np.linalg.det(x)

"""ONNX's activation functions, element by element: Relu, LeakyRelu, PRelu,
ThresholdedRelu, Elu, Celu, Selu, Sigmoid, HardSigmoid, Softplus, Softsign, HardSwish,
Mish, Swish, Gelu and the Erf it uses. Their kernels only, no builder (each signature is
plain): a model of convolutions and Relus loads this small module for its entries, not
the arithmetic of :mod:`.elementwise`.
"""

from __future__ import annotations

from math import erf as _erf

import numpy as np


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0).astype(x.dtype)


def leaky_relu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return np.where(x < 0, x * alpha, x).astype(x.dtype)


def prelu(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    return np.where(x < 0, x * slope, x).astype(x.dtype)


def thresholded_relu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return np.where(x > alpha, x, 0).astype(x.dtype)


def elu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return np.where(x < 0, alpha * (np.exp(x) - 1), x).astype(x.dtype)


def celu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return (np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))).astype(x.dtype)


def selu(x: np.ndarray, *, alpha: float, gamma: float) -> np.ndarray:
    return np.where(x <= 0, gamma * (alpha * np.exp(x) - alpha), gamma * x).astype(x.dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype)


def hard_sigmoid(x: np.ndarray, *, alpha: float, beta: float) -> np.ndarray:
    return np.clip(alpha * x + beta, 0, 1).astype(x.dtype)


def softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, x).astype(x.dtype)


def softsign(x: np.ndarray) -> np.ndarray:
    return (x / (1 + np.abs(x))).astype(x.dtype)


def hard_swish(x: np.ndarray) -> np.ndarray:
    return (x * np.clip(x / 6 + 0.5, 0, 1)).astype(x.dtype)


def mish(x: np.ndarray) -> np.ndarray:
    return (x * np.tanh(np.logaddexp(0, x))).astype(x.dtype)


def swish(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    return (x / (1 + np.exp(-alpha * x))).astype(x.dtype)


def gelu(x: np.ndarray, *, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        y = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    else:
        y = 0.5 * x * (1 + erf(x / np.sqrt(2).astype(x.dtype)))
    return y.astype(x.dtype)


def erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(_erf, otypes=[x.dtype])(x) if x.size else x.copy()

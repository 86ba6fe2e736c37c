"""ONNX's rnn family (``onnx/defs/rnn``): RNN, GRU and LSTM
(``signatures/onnx/rnn.toml``), one builder and one implementation for the three.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.templates import dims, reads_ranks, typed


@reads_ranks
def build_rnn(types: tuple, hidden_size: int, direction: str = "forward", layout: int = 0,
              outputs: int = 2, gates: int = 1, given: tuple = (0, 1, 2), **_: Any
              ) -> dict[str, Any]:
    """RNN, GRU, LSTM: Y (seq, dirs, batch, hidden), Y_h and Y_c (dirs, batch, hidden);
    batch first with ``layout`` 1. The optional inputs have the shapes onnxruntime checks:
    B (dirs, 2*gates*hidden), sequence_lens (batch), initial_h and initial_c like Y_h, P
    (dirs, 3*hidden). onnxruntime's GRU needs a batch, a sequence and an input size, its
    LSTM a batch (an empty one aborts its process, found by brute force at sizes 0 to 2)."""
    dirs = 2 if direction == "bidirectional" else 1
    h = hidden_size
    b, s, i = dims("b s i")
    if layout:
        x, y, state = [b, s, i], [b, s, dirs, h], [b, dirs, h]
    else:
        x, y, state = [s, b, i], [s, dirs, b, h], [dirs, b, h]
    outs = [typed(y, "T"), typed(state, "T"), typed(state, "T")][:outputs]
    optional = {3: typed([dirs, 2 * gates * h], "T"), 4: typed([b], "int32"),
                5: typed(state, "T"), 6: typed(state, "T"), 7: typed([dirs, 3 * h], "T")}
    # an empty batch (LSTM, GRU), sequence or input size (GRU) aborts onnxruntime's process
    fits = [b >= 1, s >= 1, i >= 1] if gates == 3 else [b >= 1] if gates == 4 else []
    return {"x": x, "w": [dirs, gates * h, i], "r": [dirs, gates * h, h],
            "rest": [optional[p] for p in given[3:]], "outs": outs, "fits": fits}


def _sigmoid(v: np.ndarray, alpha: float | None = None, beta: float | None = None
             ) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


_ACTIVATIONS = {
    "sigmoid": _sigmoid,
    "tanh": lambda v, a=None, b=None: np.tanh(v),
    "relu": lambda v, a=None, b=None: np.maximum(v, 0),
    "affine": lambda v, a=1.0, b=0.0: a * v + b,
    "leakyrelu": lambda v, a=0.01, b=None: np.where(v < 0, a * v, v),
    "thresholdedrelu": lambda v, a=1.0, b=None: np.where(v > a, v, 0),
    "scaledtanh": lambda v, a=1.0, b=1.0: a * np.tanh(b * v),
    "hardsigmoid": lambda v, a=0.2, b=0.5: np.clip(a * v + b, 0, 1),
    "elu": lambda v, a=1.0, b=None: np.where(v < 0, a * (np.exp(v) - 1), v),
    "softsign": lambda v, a=None, b=None: v / (1 + np.abs(v)),
    "softplus": lambda v, a=None, b=None: np.log1p(np.exp(v)),
}


def rnn(x: np.ndarray, w: np.ndarray, r: np.ndarray, *rest: np.ndarray, given: tuple,
        hidden_size: int, gates: int, direction: str = "forward", layout: int = 0,
        outputs: int = 2, activations: tuple = (), activation_alpha: tuple = (),
        activation_beta: tuple = (), clip: float | None = None,
        linear_before_reset: int = 0, input_forget: int = 0) -> Any:
    """RNN (one gate), GRU (z, r, h) and LSTM (i, o, f, c), one direction at a time."""
    more = dict(zip(given[3:], rest, strict=False))
    h = hidden_size
    xs = x.transpose(1, 0, 2) if layout else x  # (seq, batch, input)
    seq, batch = xs.shape[:2]
    dirs = 2 if direction == "bidirectional" else 1
    default = {1: ["tanh"], 3: ["sigmoid", "tanh"], 4: ["sigmoid", "tanh", "tanh"]}[gates]
    names = [a.lower() for a in activations] or default * dirs
    alphas, betas = list(activation_alpha), list(activation_beta)
    funcs = []
    for j, name in enumerate(names):
        extra = ([alphas[j]] if j < len(alphas) else []) + ([betas[j]] if j < len(betas)
                                                              else [])
        funcs.append(lambda v, f=_ACTIVATIONS[name], e=tuple(extra): f(v, *e))
    lens = more.get(4)
    lens = np.full(batch, seq) if lens is None else lens.astype(np.int64)
    ys, hs, cs = [], [], []
    for d in range(dirs):
        f = funcs[d * len(default):(d + 1) * len(default)]
        bias = more.get(3)
        wb, rb = (bias[d, :gates * h], bias[d, gates * h:]) if bias is not None else (0, 0)
        state = more[5][d] if 5 in more else np.zeros((batch, h))
        cell = more[6][d] if 6 in more else np.zeros((batch, h))
        peep = more[7][d] if 7 in more else np.zeros(3 * h)
        reverse = direction == "reverse" or d == 1
        y = np.zeros((seq, batch, h))
        for step in range(seq):
            t = seq - 1 - step if reverse else step
            live = (t < lens)[:, None]
            pre = xs[t] @ w[d].T + wb
            rec = state @ r[d].T + rb

            def cap(v: np.ndarray) -> np.ndarray:
                return np.clip(v, -clip, clip) if clip else v

            if gates == 1:
                new, new_cell = f[0](cap(pre + rec)), cell
            elif gates == 3:
                z = f[0](cap(pre[:, :h] + rec[:, :h]))
                rr = f[0](cap(pre[:, h:2 * h] + rec[:, h:2 * h]))
                if linear_before_reset:
                    cand = f[1](cap(pre[:, 2 * h:] + rr * rec[:, 2 * h:]))
                else:
                    rh = (rr * state) @ r[d][2 * h:].T + (rb[2 * h:] if bias is not None
                                                          else 0)
                    cand = f[1](cap(pre[:, 2 * h:] + rh))
                new, new_cell = (1 - z) * cand + z * state, cell
            else:
                g = pre + rec
                i = f[0](cap(g[:, :h] + peep[:h] * cell))
                fo = f[0](cap(g[:, 2 * h:3 * h] + peep[2 * h:] * cell))
                if input_forget:
                    i = 1 - fo
                new_cell = fo * cell + i * f[1](cap(g[:, 3 * h:]))
                o = f[0](cap(g[:, h:2 * h] + peep[h:2 * h] * new_cell))
                new = o * f[2](new_cell)
            state = np.where(live, new, state)
            cell = np.where(live, new_cell, cell)
            y[t] = np.where(live, new, 0)
        ys.append(y)
        hs.append(state)
        cs.append(cell)
    y = np.stack(ys, axis=1).astype(x.dtype)  # (seq, dirs, batch, hidden)
    yh, yc = np.stack(hs).astype(x.dtype), np.stack(cs).astype(x.dtype)
    if layout:
        y, yh, yc = y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), yc.transpose(1, 0, 2)
    return (y, yh, yc)[:outputs] if outputs > 1 else y


# Each op's number of gates (RNN 1, GRU 3, LSTM 4) is the op's, never a node's attribute:
# a ``gates`` attribute, which ONNX does not have and onnxruntime refuses, was read as
# one (an RNN of 4 gates took an LSTM's weights).


@reads_ranks
def build_simple_rnn(types: tuple, **params: Any) -> dict[str, Any]:
    return build_rnn(types, gates=1, **params)


@reads_ranks
def build_gru(types: tuple, **params: Any) -> dict[str, Any]:
    return build_rnn(types, gates=3, **params)


@reads_ranks
def build_lstm(types: tuple, **params: Any) -> dict[str, Any]:
    return build_rnn(types, gates=4, **params)


def simple_rnn(*arrays: np.ndarray, **params: Any) -> Any:
    return rnn(*arrays, gates=1, **params)


def gru(*arrays: np.ndarray, **params: Any) -> Any:
    return rnn(*arrays, gates=3, **params)


def lstm(*arrays: np.ndarray, **params: Any) -> Any:
    return rnn(*arrays, gates=4, **params)

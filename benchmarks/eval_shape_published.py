"""eval_shape on published NumPy model code that the project does not ship.

The code is not in this repository: fetch each project (the table's first column,
``owner/name`` on GitHub) into a folder of its own under ``--corpus`` (default
/work/helpers/corpus), named ``owner+name``. This file holds only how each function is
called: its input types (named sizes), keyword arguments, and a lambda that builds the
objects it needs (a layer from symbolic weights) in the function's own module.

For every function it measures, each in a worker process (so a crash of the interpreter
is counted, not fatal): **typed right** (eval_shape's output types are NumPy's outputs'
at two size assignments where every size differs, drawn like tests/mutation.py does),
**wrong** (eval_shape gives a type NumPy's outputs do not have), **raised** (eval_shape
refuses it; the first line of its message is printed), **crashed**. Functions NumPy
itself cannot run at any tried assignment are listed apart. Then the bug-finding
figures of tests/mutation.py on the functions typed right: shape bugs seeded into each
plain function's code and into the weights' shapes, judged by NumPy.

Run: ``python benchmarks/eval_shape_published.py [--corpus DIR] [--project NAME]
[--no-mutants] [--verbose]``; autograd's examples need ``pip install autograd``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import json
import os
import random
import subprocess
import sys
import types
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


@dataclass
class Fn:
    """One function: ``target`` is a function of ``module`` (a name) or a lambda written
    against the module's names; ``ranges`` bound int inputs' values."""

    module: str
    target: str
    types: list[str]
    kwargs: dict[str, Any] = field(default_factory=dict)
    ranges: dict[int, str] = field(default_factory=dict)  # index -> "V" (values in [0, V))

    @property
    def name(self) -> str:
        return f"{self.module}.{self.target if self.target.isidentifier() else 'lambda'}" \
            if not self.target.startswith("lambda") else \
            f"{self.module}:{self.target.split(':', 1)[1].strip()[:60]}"


def F(module: str, target: str, *types: str, **kwargs: Any) -> Fn:  # noqa: N802
    ranges = kwargs.pop("_ranges", {})
    return Fn(module, target, list(types), kwargs, ranges)


# -- the corpus: how each published function is called ------------------------------------

PICO = [
    *(F(m, "gelu", "float32[T,E]") for m in ("gpt2", "gpt2_pico")),
    *(F(m, "softmax", "float32[T,V]") for m in ("gpt2", "gpt2_pico")),
    *(F(m, "layer_norm", "float32[T,E]", "float32[E]", "float32[E]")
      for m in ("gpt2", "gpt2_pico")),
    *(F(m, "linear", "float32[T,E]", "float32[E,F]", "float32[F]")
      for m in ("gpt2", "gpt2_pico")),
    *(F(m, "lambda x, w1, b1, w2, b2: ffn(x, dict(w=w1, b=b1), dict(w=w2, b=b2))",
        "float32[T,E]", "float32[E,F]", "float32[F]", "float32[F,E]", "float32[E]")
      for m in ("gpt2", "gpt2_pico")),
    *(F(m, "attention", "float32[T,K]", "float32[S,K]", "float32[S,U]", "float32[T,S]")
      for m in ("gpt2", "gpt2_pico")),
    *(F(m, "lambda x, wa, ba, wp, bp: mha(x, dict(w=wa, b=ba), dict(w=wp, b=bp), n_head=2)",
        "float32[T,E]", "float32[E,3*E]", "float32[3*E]", "float32[E,E]", "float32[E]")
      for m in ("gpt2", "gpt2_pico")),
    *(F(m, "lambda x, wa, ba, wp, bp, w1, b1, w2, b2, g1, c1, g2, c2: transformer_block("
           "x, dict(c_fc=dict(w=w1, b=b1), c_proj=dict(w=w2, b=b2)), "
           "dict(c_attn=dict(w=wa, b=ba), c_proj=dict(w=wp, b=bp)), dict(g=g1, b=c1), "
           "dict(g=g2, b=c2), n_head=2)",
        "float32[T,E]", "float32[E,3*E]", "float32[3*E]", "float32[E,E]", "float32[E]",
        "float32[E,F]", "float32[F]", "float32[F,E]", "float32[E]",
        "float32[E]", "float32[E]", "float32[E]", "float32[E]") for m in ("gpt2", "gpt2_pico")),
    *(F(m, "lambda ids, wte, wpe, wa, ba, wp, bp, w1, b1, w2, b2, g1, c1, g2, c2, gf, cf: "
           "gpt2(ids, wte, wpe, [dict(mlp=dict(c_fc=dict(w=w1, b=b1), c_proj=dict(w=w2, "
           "b=b2)), attn=dict(c_attn=dict(w=wa, b=ba), c_proj=dict(w=wp, b=bp)), "
           "ln_1=dict(g=g1, b=c1), ln_2=dict(g=g2, b=c2))], dict(g=gf, b=cf), n_head=2)",
        "int64[T]", "float32[V,E]", "float32[L,E]", "float32[E,3*E]", "float32[3*E]",
        "float32[E,E]", "float32[E]", "float32[E,F]", "float32[F]", "float32[F,E]",
        "float32[E]", "float32[E]", "float32[E]", "float32[E]", "float32[E]", "float32[E]",
        "float32[E]", _ranges={0: "V"}) for m in ("gpt2", "gpt2_pico")),
]

LLAMA = [
    F("llama3", "softmax", "float32[B,L,V]"),
    F("llama3", "silu", "float32[B,L,F]"),
    F("llama3", "lambda x: compute_cos_sin_cache(x.shape[1], x.shape[0])", "float32[M,H]"),
    F("llama3", "apply_rotary_emb", "float32[B,L,Q,H]", "float32[B,L,K,H]",
      "float32[L,H//2]", "float32[L,H//2]"),
    F("llama3", "repeat_kv", "float32[B,L,K,H]", n_rep=2),
    F("llama3", "lambda x, up, gate, down: FeedForward(up, gate, down)(x)",
      "float32[B,L,D]", "float32[F,D]", "float32[F,D]", "float32[D,F]"),
    F("llama3", "lambda x, w: RMSNorm(w, eps=1e-6)(x)", "float32[B,L,D]", "float32[D]"),
    F("llama3", "lambda x, q, k, v, o, c, s: Attention(q, k, v, o, ModelArgs(dim=x.shape[2], "
                "n_heads=2, max_seq_len=16, max_batch_size=4))(x, 0, None, c, s)",
      "float32[B,L,2*H]", "float32[2*H,2*H]", "float32[2*H,2*H]", "float32[2*H,2*H]",
      "float32[2*H,2*H]", "float32[L,H//2]", "float32[L,H//2]"),
    F("llama3", "lambda x, q, k, v, o, up, gate, down, n1, n2, c, s: TransformerBlock({"
                "'model.layers.0.self_attn.q_proj.weight': q, "
                "'model.layers.0.self_attn.k_proj.weight': k, "
                "'model.layers.0.self_attn.v_proj.weight': v, "
                "'model.layers.0.self_attn.o_proj.weight': o, "
                "'model.layers.0.mlp.up_proj.weight': up, "
                "'model.layers.0.mlp.gate_proj.weight': gate, "
                "'model.layers.0.mlp.down_proj.weight': down, "
                "'model.layers.0.input_layernorm.weight': n1, "
                "'model.layers.0.post_attention_layernorm.weight': n2}, 0, ModelArgs("
                "dim=x.shape[2], n_heads=2, max_seq_len=16, max_batch_size=4))(x, 0, None, c, s)",
      "float32[B,L,2*H]", "float32[2*H,2*H]", "float32[2*H,2*H]", "float32[2*H,2*H]",
      "float32[2*H,2*H]", "float32[F,2*H]", "float32[F,2*H]", "float32[2*H,F]",
      "float32[2*H]", "float32[2*H]", "float32[L,H//2]", "float32[L,H//2]"),
]

_DLFS = "common."
DLFS = [
    *(F(_DLFS + "functions", fn, "float64[N,D]") for fn in (
        "identity_function", "sigmoid", "sigmoid_grad", "relu", "relu_grad", "softmax")),
    F(_DLFS + "functions", "step_function", "float64[N,D]"),
    F(_DLFS + "functions", "sum_squared_error", "float64[N,D]", "float64[N,D]"),
    F(_DLFS + "functions", "cross_entropy_error", "float64[N,K]", "int64[N]",
      _ranges={1: "K"}),
    F(_DLFS + "functions", "softmax_loss", "float64[N,K]", "int64[N]", _ranges={1: "K"}),
    F(_DLFS + "util", "im2col", "float64[N,C,H,W]", filter_h=3, filter_w=3, stride=1, pad=1),
    F(_DLFS + "util", "lambda col, x: col2im(col, x.shape, 2, 2, 2, 0)",
      "float64[N*(H//2)*(W//2),C*4]", "float64[N,C,H,W]"),
    F(_DLFS + "layers", "lambda x: Relu().forward(x)", "float64[N,D]"),
    F(_DLFS + "layers", "lambda x, d: (r := Relu(), r.forward(x), r.backward(d))[2]",
      "float64[N,D]", "float64[N,D]"),
    F(_DLFS + "layers", "lambda x: Sigmoid().forward(x)", "float64[N,D]"),
    F(_DLFS + "layers", "lambda x, d: (s := Sigmoid(), s.forward(x), s.backward(d))[2]",
      "float64[N,D]", "float64[N,D]"),
    F(_DLFS + "layers", "lambda x, W, b: Affine(W, b).forward(x)",
      "float64[N,C,H,W]", "float64[C*H*W,M]", "float64[M]"),
    F(_DLFS + "layers", "lambda x, W, b, d: (a := Affine(W, b), a.forward(x), a.backward(d), "
                        "a.dW, a.db)[2:]",
      "float64[N,D]", "float64[D,M]", "float64[M]", "float64[N,M]"),
    F(_DLFS + "layers", "lambda x, t: SoftmaxWithLoss().forward(x, t)",
      "float64[N,K]", "int64[N]", _ranges={1: "K"}),
    F(_DLFS + "layers", "lambda x, t: (s := SoftmaxWithLoss(), s.forward(x, t), "
                        "s.backward())[2]", "float64[N,K]", "int64[N]", _ranges={1: "K"}),
    F(_DLFS + "layers", "lambda x: Dropout(0.5).forward(x)", "float64[N,D]"),
    F(_DLFS + "layers", "lambda x: Dropout(0.5).forward(x, train_flg=False)", "float64[N,D]"),
    F(_DLFS + "layers", "lambda x, g, b: BatchNormalization(g, b).forward(x)",
      "float64[N,D]", "float64[D]", "float64[D]"),
    F(_DLFS + "layers", "lambda x, g, b: BatchNormalization(g, b).forward(x)",
      "float64[N,C,H,W]", "float64[C*H*W]", "float64[C*H*W]"),
    F(_DLFS + "layers", "lambda x, g, b, d: (n := BatchNormalization(g, b), n.forward(x), "
                        "n.backward(d))[2]", "float64[N,D]", "float64[D]", "float64[D]",
      "float64[N,D]"),
    F(_DLFS + "layers", "lambda x, W, b: Convolution(W, b, stride=1, pad=1).forward(x)",
      "float64[N,C,H,W]", "float64[F,C,3,3]", "float64[F]"),
    F(_DLFS + "layers", "lambda x: Pooling(2, 2, stride=2).forward(x)", "float64[N,C,H,W]"),
    F(_DLFS + "layers", "lambda x, d: (p := Pooling(2, 2, stride=2), p.forward(x), "
                        "p.backward(d))[2]", "float64[N,C,H,W]", "float64[N,C,H//2,W//2]"),
]

_TL = "common.time_layers"
DLFS2 = [
    *(F("common.functions", fn, "float32[N,D]") for fn in ("sigmoid", "relu", "softmax")),
    F("common.functions", "softmax", "float32[D]"),
    F("common.functions", "cross_entropy_error", "float32[N,K]", "int64[N]",
      _ranges={1: "K"}),
    F("common.layers", "lambda x, W: MatMul(W).forward(x)", "float32[N,D]", "float32[D,H]"),
    F("common.layers", "lambda x, W, d: (m := MatMul(W), m.forward(x), m.backward(d), "
                       "m.grads[0])[2:]", "float32[N,D]", "float32[D,H]", "float32[N,H]"),
    F("common.layers", "lambda x, W, b: Affine(W, b).forward(x)", "float32[N,D]",
      "float32[D,H]", "float32[H]"),
    F("common.layers", "lambda x, W, b, d: (a := Affine(W, b), a.forward(x), a.backward(d), "
                       "*a.grads)[2:]", "float32[N,D]", "float32[D,H]", "float32[H]",
      "float32[N,H]"),
    F("common.layers", "lambda x, d: (s := Softmax(), s.forward(x), s.backward(d))[1:]",
      "float32[N,D]", "float32[N,D]"),
    F("common.layers", "lambda x, t: (s := SoftmaxWithLoss(), s.forward(x, t), "
                       "s.backward())[1:]", "float32[N,K]", "int64[N]", _ranges={1: "K"}),
    F("common.layers", "lambda x, d: (s := Sigmoid(), s.forward(x), s.backward(d))[1:]",
      "float32[N,D]", "float32[N,D]"),
    F("common.layers", "lambda x, t: (s := SigmoidWithLoss(), s.forward(x, t), "
                       "s.backward())[1:]", "float32[N]", "int64[N]", _ranges={1: "2"}),
    F("common.layers", "lambda x: Dropout(0.5).forward(x)", "float32[N,D]"),
    F("common.layers", "lambda i, W: Embedding(W).forward(i)", "int64[N]", "float32[V,D]",
      _ranges={0: "V"}),
    F(_TL, "lambda x, h, Wx, Wh, b: RNN(Wx, Wh, b).forward(x, h)", "float32[N,D]",
      "float32[N,H]", "float32[D,H]", "float32[H,H]", "float32[H]"),
    F(_TL, "lambda x, h, Wx, Wh, b, d: (r := RNN(Wx, Wh, b), r.forward(x, h), "
           "*r.backward(d), *r.grads)[2:]", "float32[N,D]", "float32[N,H]", "float32[D,H]",
      "float32[H,H]", "float32[H]", "float32[N,H]"),
    F(_TL, "lambda xs, Wx, Wh, b: TimeRNN(Wx, Wh, b).forward(xs)", "float32[N,3,D]",
      "float32[D,H]", "float32[H,H]", "float32[H]"),
    F(_TL, "lambda x, h, c, Wx, Wh, b: LSTM(Wx, Wh, b).forward(x, h, c)", "float32[N,D]",
      "float32[N,H]", "float32[N,H]", "float32[D,4*H]", "float32[H,4*H]", "float32[4*H]"),
    F(_TL, "lambda x, h, c, Wx, Wh, b, dh, dc: (l := LSTM(Wx, Wh, b), l.forward(x, h, c), "
           "*l.backward(dh, dc))[2:]", "float32[N,D]", "float32[N,H]", "float32[N,H]",
      "float32[D,4*H]", "float32[H,4*H]", "float32[4*H]", "float32[N,H]", "float32[N,H]"),
    F(_TL, "lambda xs, Wx, Wh, b: TimeLSTM(Wx, Wh, b).forward(xs)", "float32[N,3,D]",
      "float32[D,4*H]", "float32[H,4*H]", "float32[4*H]"),
    F(_TL, "lambda xs, W: TimeEmbedding(W).forward(xs)", "int64[N,3]", "float32[V,D]",
      _ranges={0: "V"}),
    F(_TL, "lambda x, W, b: TimeAffine(W, b).forward(x)", "float32[N,T,D]", "float32[D,H]",
      "float32[H]"),
    F(_TL, "lambda x, W, b, d: (a := TimeAffine(W, b), a.forward(x), a.backward(d), "
           "*a.grads)[2:]", "float32[N,T,D]", "float32[D,H]", "float32[H]", "float32[N,T,H]"),
    F(_TL, "lambda xs, ts: TimeSoftmaxWithLoss().forward(xs, ts)", "float32[N,T,V]",
      "int64[N,T]", _ranges={1: "V"}),
    F(_TL, "lambda xs, ts: (s := TimeSoftmaxWithLoss(), s.forward(xs, ts), s.backward())[2]",
      "float32[N,T,V]", "int64[N,T]", _ranges={1: "V"}),
    F(_TL, "lambda xs: TimeDropout(0.5).forward(xs)", "float32[N,T,D]"),
    F(_TL, "lambda x, h, Wx, Wh, b: GRU(Wx, Wh, b).forward(x, h)", "float32[N,D]",
      "float32[N,H]", "float32[D,3*H]", "float32[H,3*H]", "float32[3*H]"),
    F(_TL, "lambda xs, Wx, Wh, b: TimeGRU(Wx, Wh, b).forward(xs)", "float32[N,3,D]",
      "float32[D,3*H]", "float32[H,3*H]", "float32[3*H]"),
    F(_TL, "lambda xs, ts: TimeSigmoidWithLoss().forward(xs, ts)", "float32[N,T]",
      "int64[N,T]", _ranges={1: "2"}),
    F(_TL, "lambda xs, W, b: Simple_TimeAffine(W, b).forward(xs)", "float32[N,3,D]",
      "float32[D,H]", "float32[H]"),
    F(_TL, "lambda xs, ts: Simple_TimeSoftmaxWithLoss().forward(xs, ts)", "float32[N,3,V]",
      "int64[N,3]", _ranges={1: "V"}),
]

_MLFS = "mlfromscratch.deep_learning."
_ACT = ("Sigmoid", "Softmax", "TanH", "ReLU", "LeakyReLU", "ELU", "SELU", "SoftPlus")
MLFS = [
    *(F(_MLFS + "activation_functions", f"lambda x: {a}()(x)", "float64[N,D]") for a in _ACT),
    *(F(_MLFS + "activation_functions", f"lambda x: {a}().gradient(x)", "float64[N,D]")
      for a in _ACT),
    *(F(_MLFS + "loss_functions", f"lambda y, p: {c}().{m}(y, p)", "float64[N,K]",
        "float64[N,K]") for c in ("SquareLoss", "CrossEntropy") for m in ("loss", "gradient")),
    F(_MLFS + "layers", "lambda x: (d := Dense(8, input_shape=(x.shape[1],)), "
                        "d.initialize(Adam()), d.forward_pass(x))[2]", "float64[N,D]"),
    F(_MLFS + "layers", "lambda x, g: (d := Dense(8, input_shape=(x.shape[1],)), "
                        "d.initialize(Adam()), d.forward_pass(x), d.backward_pass(g))[3]",
      "float64[N,D]", "float64[N,8]"),
    F(_MLFS + "layers", "lambda x: (r := RNN(6, input_shape=x.shape[1:]), "
                        "r.initialize(Adam()), r.forward_pass(x))[2]", "float64[N,3,D]"),
    F(_MLFS + "layers", "lambda x: (c := Conv2D(4, (3, 3), input_shape=x.shape[1:]), "
                        "c.initialize(Adam()), c.forward_pass(x))[2]", "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda x: (b := BatchNormalization(), b.set_input_shape(x.shape[1:]), "
                        "b.initialize(Adam()), b.forward_pass(x))[3]", "float64[N,D]"),
    F(_MLFS + "layers", "lambda x, g: (b := BatchNormalization(), "
                        "b.set_input_shape(x.shape[1:]), b.initialize(Adam()), "
                        "b.forward_pass(x), b.backward_pass(g))[4]", "float64[N,D]",
      "float64[N,D]"),
    F(_MLFS + "layers", "lambda x: (p := MaxPooling2D((2, 2), stride=2, padding='valid'), "
                        "p.set_input_shape(x.shape[1:]), p.forward_pass(x))[2]",
      "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda x: (p := AveragePooling2D((2, 2), stride=2, "
                        "padding='valid'), "
                        "p.set_input_shape(x.shape[1:]), p.forward_pass(x))[2]",
      "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda x: ZeroPadding2D((1, 1)).forward_pass(x)", "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda x: Flatten().forward_pass(x)", "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda x, g: (f := Flatten(), f.forward_pass(x), "
                        "f.backward_pass(g))[2]", "float64[N,C,H,W]", "float64[N,C*H*W]"),
    F(_MLFS + "layers", "lambda x: UpSampling2D((2, 2)).forward_pass(x)", "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda x: Reshape((x.shape[1] // 2, 2)).forward_pass(x)",
      "float64[N,2*D]"),
    F(_MLFS + "layers", "lambda x: Dropout(0.2).forward_pass(x)", "float64[N,D]"),
    F(_MLFS + "layers", "lambda x: Activation('relu').forward_pass(x)", "float64[N,D]"),
    F(_MLFS + "layers", "lambda x, g: (a := Activation('tanh'), a.forward_pass(x), "
                        "a.backward_pass(g))[2]", "float64[N,D]", "float64[N,D]"),
    F(_MLFS + "layers", "lambda x: image_to_column(x, (3, 3), 1, 'same')", "float64[N,C,H,W]"),
    F(_MLFS + "layers", "lambda c, x: column_to_image(c, x.shape, (3, 3), 1, 'same')",
      "float64[C*9,H*W*N]", "float64[N,C,H,W]"),
    F("mlfromscratch.utils.data_operation", "mean_squared_error", "float64[N]", "float64[N]"),
    F("mlfromscratch.utils.data_operation", "calculate_variance", "float64[N,D]"),
    F("mlfromscratch.utils.data_operation", "calculate_std_dev", "float64[N,D]"),
    F("mlfromscratch.utils.data_operation", "euclidean_distance", "float64[D]", "float64[D]"),
    F("mlfromscratch.utils.data_operation", "calculate_covariance_matrix", "float64[N,D]"),
    F("mlfromscratch.utils.data_operation", "calculate_correlation_matrix", "float64[N,D]"),
    F("mlfromscratch.utils.data_manipulation", "normalize", "float64[N,D]"),
    F("mlfromscratch.utils.data_manipulation", "standardize", "float64[N,D]"),
    F("mlfromscratch.utils.data_manipulation", "to_categorical", "int64[N]", n_col=5,
      _ranges={0: "5"}),
    F("mlfromscratch.utils.data_manipulation", "make_diagonal", "float64[N]"),
    F("mlfromscratch.utils.data_manipulation", "polynomial_features", "float64[N,D]",
      degree=2),
]

AUTOGRAD = [
    F("neural_net", "lambda x, W1, b1, W2, b2: neural_net_predict([(W1, b1), (W2, b2)], x)",
      "float64[N,D]", "float64[D,H]", "float64[H]", "float64[H,K]", "float64[K]"),
    F("neural_net", "lambda W1, b1, W2, b2, x, t: log_posterior([(W1, b1), (W2, b2)], x, t, "
                    "0.1)", "float64[D,H]", "float64[H]", "float64[H,K]", "float64[K]",
      "float64[N,D]", "float64[N,K]"),
    F("neural_net", "lambda x, W1, b1, W2, b2, t: accuracy([(W1, b1), (W2, b2)], x, t)",
      "float64[N,D]", "float64[D,H]", "float64[H]", "float64[H,K]", "float64[K]",
      "float64[N,K]"),
    F("rnn", "sigmoid", "float64[N,D]"),
    F("rnn", "lambda W, a, b: concat_and_multiply(W, a, b)", "float64[D+H+1,K]",
      "float64[N,D]", "float64[N,H]"),
    F("rnn", "lambda x, i0, ch, pr: rnn_predict({'init hiddens': i0, 'change': ch, "
             "'predict': pr}, x)", "float64[3,N,D]", "float64[1,H]", "float64[D+H+1,H]",
      "float64[H+1,D]"),
    F("lstm", "lambda x, i0, c0, ch, fo, ig, og, pr: lstm_predict({'init hiddens': i0, "
              "'init cells': c0, 'change': ch, 'forget': fo, 'ingate': ig, 'outgate': og, "
              "'predict': pr}, x)",
      "float64[3,N,D]", "float64[1,H]", "float64[1,H]", "float64[D+H+1,H]",
      "float64[D+H+1,H]", "float64[D+H+1,H]", "float64[D+H+1,H]", "float64[H+1,D]"),
    F("variational_autoencoder", "diag_gaussian_log_density", "float64[N,D]", "float64[N,D]",
      "float64[N,D]"),
    F("variational_autoencoder", "unpack_gaussian_params", "float64[N,2*D]"),
    F("variational_autoencoder", "bernoulli_log_density", "float64[N,D]", "float64[N,D]"),
    F("variational_autoencoder", "relu", "float64[N,D]"),
    F("variational_autoencoder", "batch_normalize", "float64[N,D]"),
    F("variational_autoencoder", "lambda x, W1, b1, W2, b2: neural_net_predict([(W1, b1), "
                                 "(W2, b2)], x)", "float64[N,D]", "float64[D,H]", "float64[H]",
      "float64[H,K]", "float64[K]"),
    F("generative_adversarial_net", "logsigmoid", "float64[N,D]"),
    F("generative_adversarial_net", "batch_normalize", "float64[N,D]"),
    F("logistic_regression", "logistic_predictions", "float64[D]", "float64[N,D]"),
    F("gaussian_process", "lambda p, x, y: rbf_covariance(p, x, y)", "float64[D+1]",
      "float64[N,D]", "float64[M,D]"),
]

NPML = [
    *(F("nn_activations", f"lambda z: {a}().fn(z)", "float64[N,D]") for a in (
        "Sigmoid", "ReLU", "LeakyReLU", "GELU", "Tanh", "ELU", "Exponential", "SELU",
        "HardSigmoid", "SoftPlus")),
    *(F("nn_activations", f"lambda z: {a}().grad(z)", "float64[N,D]") for a in (
        "Sigmoid", "ReLU", "LeakyReLU", "Tanh", "ELU", "SELU", "SoftPlus")),
    F("nn_activations", "lambda z: Affine(2.0, 1.0)(z)", "float64[D]"),
    F("nn_utils", "lambda x: pad2D(x, 1)[0]", "float64[N,H,W,C]"),
    F("nn_utils", "lambda x: pad1D(x, 2)[0]", "float64[N,L,C]"),
    F("nn_utils", "lambda x, w: conv2D(x, w, 1, 0)", "float64[N,H,W,C]", "float64[3,3,C,F]"),
    F("nn_utils", "lambda x, w: conv1D(x, w, 1, 0)", "float64[N,L,C]", "float64[3,C,F]"),
    F("nn_utils", "lambda x, w: im2col(x, w.shape, 1, 1)[0]", "float64[N,H,W,C]",
      "float64[3,3,C,F]"),
    F("nn_utils", "lambda x, d: dilate(x, 1)", "float64[N,H,W,C]", "float64[1]"),
    F("nn_utils", "lambda w: calc_fan(w.shape)[0] * w", "float64[D,E]"),
]

#: owner+name folder -> (the module loader's roots and file aliases, the functions).
PROJECTS: dict[str, tuple[dict[str, str], list[Fn]]] = {
    "jaymody+picoGPT": ({}, PICO),
    "likejazz+llama3.np": ({}, LLAMA),
    "oreilly-japan+deep-learning-from-scratch": ({}, DLFS),
    "oreilly-japan+deep-learning-from-scratch-2": ({}, DLFS2),
    "eriklindernoren+ML-From-Scratch": ({}, MLFS),
    "HIPS+autograd": ({"": "examples"}, AUTOGRAD),
    "ddbourgin+numpy-ml": ({"nn_activations": "numpy_ml/neural_nets/activations/activations.py",
                            "nn_utils": "numpy_ml/neural_nets/utils/utils.py"}, NPML),
}

#: Optional libraries the projects import for plotting, tables or progress bars only.
_STUBBED = ("progressbar", "matplotlib", "mpl_toolkits", "tqdm", "terminaltables")


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Empty modules for :data:`_STUBBED` (and their submodules) when not installed."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name.partition(".")[0] not in _STUBBED:
            return None
        for finder in sys.meta_path:
            if finder is not self and finder.find_spec(name, path, target) is not None:
                return None
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _stub_attribute  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: Any) -> None:
        pass


class _Anything:
    """What a stubbed library's names are: any attribute, call or subclass gives one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Anything()

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (object,)


def _stub_attribute(attr: str) -> Any:
    if attr.startswith("__"):
        raise AttributeError(attr)
    return _Anything()


def _stub_missing() -> None:
    sys.meta_path.append(_Stubs())


def _module(root: Path, aliases: dict[str, str], name: str) -> Any:
    if name in aliases:
        spec = importlib.util.spec_from_file_location(name, root / aliases[name])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


def _ranges(fn: Fn) -> dict:
    return {i: (lambda s, v=v: (0, s[v] if not v.isdigit() else int(v)))
            for i, v in fn.ranges.items()}


def measure_one(fn: Fn, module: Any, rng: random.Random, mutate: bool) -> dict[str, Any]:
    import numpy as np  # noqa: F401 - the lambdas' module has it

    import mutation

    target = eval(fn.target, vars(module)) if fn.target.startswith("lambda") \
        else getattr(module, fn.target)  # noqa: S307 - this file's own lambdas
    case = mutation.Case(target, list(fn.types), dict(fn.kwargs), _ranges(fn))
    out: dict[str, Any] = {"name": fn.name}
    sizes = mutation.assignments(case, case.types, rng, count=2)
    if len(sizes) < 2:
        out["verdict"] = "numpy fails"
        return out
    try:
        result = mutation.eval_shape(target, case.types, case.kwargs)
    except Exception as exc:  # noqa: BLE001
        out["verdict"] = "raised"
        out["message"] = f"{type(exc).__name__}: {str(exc).splitlines()[-1][:300]}"
        out["where"] = str(exc).splitlines()[0][:300]
        return out
    ok = all(mutation._types_match(result, mutation.run_numpy(target, case, case.types, s), s)
             for s in sizes)
    out["verdict"] = "right" if ok else "wrong"
    out["type"] = str(result.type)
    types_ = result.type if isinstance(result.type, tuple) else (result.type,)
    out["exact"] = result.type is not None and all(d is not None for t in types_
                                                   for d in t.shape)
    if not ok or not mutate:
        return out
    plain = not fn.target.startswith("lambda")
    muts = (mutation.mutants(case, rng) if plain else
            [m for m in mutation.weight_mutants(case)][:3])
    verdicts = [mutation.judge(m, case.types, sizes) for m in muts]
    out["mutants"] = [{"kind": v.mutant.kind, "bug": v.bug, "symbolic": v.symbolic,
                       "line_first": v.line_first, "coded": v.mutant.line is not None,
                       "concrete": v.concrete, "equal": v.equal_sizes, "what": str(v.mutant)}
                      for v in verdicts]
    return out


def worker(folder: str, corpus: Path, start: int, mutate: bool) -> None:
    warnings.simplefilter("ignore")
    _stub_missing()
    root = corpus / folder
    aliases, fns = PROJECTS[folder]
    base = root / aliases.get("", "")
    sys.path.insert(0, str(base))
    rng = random.Random(34)
    for i, fn in enumerate(fns):
        if i < start:
            continue
        print(json.dumps({"start": i}), flush=True)
        try:
            module = _module(root, aliases, fn.module)
            if folder == "eriklindernoren+ML-From-Scratch" and not hasattr(module, "Adam"):
                from mlfromscratch.deep_learning.optimizers import Adam
                module.Adam = Adam
            result = measure_one(fn, module, rng, mutate)
        except Exception as exc:  # noqa: BLE001 - the harness's own failure, reported
            result = {"name": fn.name, "verdict": "harness",
                      "message": f"{type(exc).__name__}: {exc}"[:300]}
        result["index"] = i
        print(json.dumps(result), flush=True)


# -- the parent: workers, crashes, the table ----------------------------------------------

def run_project(folder: str, corpus: Path, mutate: bool, verbose: bool) -> list[dict]:
    results: list[dict] = []
    start = 0
    total = len(PROJECTS[folder][1])
    while start < total:
        cmd = [sys.executable, __file__, "--worker", folder, "--corpus", str(corpus),
               "--start", str(start)] + ([] if mutate else ["--no-mutants"])
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600,
                              env={**os.environ, "PYTHONHASHSEED": "0"})
        current = start
        for line in done.stdout.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "start" in record and len(record) == 1:
                current = record["start"]
                continue
            results.append(record)
            current = record["index"] + 1
        if current >= total:
            break
        if done.returncode != 0:  # the worker died inside function `current`
            fn = PROJECTS[folder][1][current]
            verdict = "crashed" if done.returncode < 0 else "harness"  # a signal: a crash
            results.append({"name": fn.name, "verdict": verdict, "index": current,
                            "message": f"exit {done.returncode}: {done.stderr[-300:]}"})
            current += 1
        start = current
    if verbose:
        for r in results:
            extra = r.get("type") or r.get("message", "")
            print(f"  {r['verdict']:12s} {r['name'][:70]:70s} {extra[:160]}")
    return results


def table(results: list[dict]) -> str:
    verdicts = Counter(r["verdict"] for r in results)
    judged = sum(verdicts[v] for v in ("right", "wrong", "raised", "crashed"))
    exact = sum(1 for r in results if r.get("exact") and r["verdict"] == "right")
    lines = [f"functions {len(results)}: typed right {verdicts['right']} of {judged} "
             f"({100 * verdicts['right'] / max(judged, 1):.0f}%; with every size known "
             f"{exact}), wrong {verdicts['wrong']}, "
             f"raised {verdicts['raised']}, crashed {verdicts['crashed']}; NumPy fails at "
             f"every tried size {verdicts['numpy fails']}, harness {verdicts['harness']}"]
    muts = [m for r in results for m in r.get("mutants", [])]
    bugs = [m for m in muts if m["bug"]]
    caught = [m for m in bugs if m["symbolic"] != "accepted"]
    coded = [m for m in caught if m["coded"]]
    alarms = [m for m in muts if not m["bug"] and m["symbolic"] != "accepted"]
    if muts:
        lines.append(
            f"mutants {len(muts)}: real shape bugs {len(bugs)}; caught symbolically "
            f"{len(caught)} ({100 * len(caught) / max(len(bugs), 1):.0f}%), the mutated line "
            f"named first in {sum(m['line_first'] for m in coded)} of {len(coded)} code edits; "
            f"false alarms {len(alarms)}; at distinct concrete sizes "
            f"{sum(m['concrete'] == 'raised' for m in bugs)}; NumPy at equal sizes "
            f"{sum(m['equal'] != 'accepted' for m in bugs)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/helpers/corpus"))
    parser.add_argument("--project", action="append")
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--worker")
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.corpus, args.start, not args.no_mutants)
        return
    everything = []
    for folder in args.project or list(PROJECTS):
        if not (args.corpus / folder).is_dir():
            print(f"{folder}: not in {args.corpus} (fetch it), skipped")
            continue
        results = run_project(folder, args.corpus, not args.no_mutants, args.verbose)
        print(f"{folder}: {table(results)}")
        everything.extend(results)
    print(f"all: {table(everything)}")


if __name__ == "__main__":
    main()

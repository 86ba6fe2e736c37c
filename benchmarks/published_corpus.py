"""How each published function of benchmarks/eval_shape_published.py is called: its
module (in the project's folder), the function or a lambda written against the module's
names (building a layer from symbolic weights, say), its input types (named sizes),
keyword arguments, and the range of its int inputs' values. Only this calling
convention is the project's own text; the published code itself is never in the
repository."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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

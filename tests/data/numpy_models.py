"""NumPy model code in the style of published implementations (GPT-2 and Llama written
in NumPy, teaching code for MLP and CNN layers with im2col), written here for
tests/test_eval_shape_corpus.py. Plain NumPy: nothing here knows about kantensor; each
function runs unchanged on arrays and under ``kt.eval_shape``."""

from __future__ import annotations

import math

import numpy as np

# -- building blocks (GPT-2 style) --------------------------------------------------------


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def layer_norm(x, g, b, eps=1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)
    return g * x + b


def linear(x, w, b):
    return x @ w + b


def ffn(x, w_fc, b_fc, w_proj, b_proj):
    return linear(gelu(linear(x, w_fc, b_fc)), w_proj, b_proj)


def attention(q, k, v, mask):
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def causal_self_attention(x, w_qkv, b_qkv, w_out, b_out, n_head=4):
    x = linear(x, w_qkv, b_qkv)
    qkv = np.split(x, 3, axis=-1)
    qkv_heads = list(map(lambda t: np.split(t, n_head, axis=-1), qkv))
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]  # noqa: B905
    x = np.hstack(out_heads)
    return linear(x, w_out, b_out)


def transformer_block(x, w_qkv, b_qkv, w_out, b_out, w_fc, b_fc, w_proj, b_proj, g1, b1,
                      g2, b2):
    x = x + causal_self_attention(layer_norm(x, g1, b1), w_qkv, b_qkv, w_out, b_out)
    return x + ffn(layer_norm(x, g2, b2), w_fc, b_fc, w_proj, b_proj)


def gpt2_embed(inputs, wte, wpe):
    return wte[inputs] + wpe[range(len(inputs))]


def gpt2_logits(x, wte, g, b):
    return layer_norm(x, g, b) @ wte.T


def greedy_next(tokens, logits):
    nxt = np.argmax(logits[:, -1, :], axis=-1)
    return np.concatenate([tokens, nxt[:, None]], axis=1)


# -- Llama style: RMS norm, rotary embeddings, grouped heads, a KV cache -------------------


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * weight


def silu(x):
    return x * (1 / (1 + np.exp(-x)))


def swiglu_ffn(x, w1, w2, w3):
    return (silu(x @ w1) * (x @ w3)) @ w2


def rope_tables(x, theta=10000.0):
    head_dim, seq_len = x.shape[-1], x.shape[1]
    freqs = 1.0 / (theta ** (np.arange(0, head_dim, 2)[: (head_dim // 2)] / head_dim))
    t = np.arange(seq_len)
    freqs = np.outer(t, freqs)
    return np.cos(freqs), np.sin(freqs)


def apply_rotary(xq, cos, sin):
    xr = xq.reshape(xq.shape[:-1] + (-1, 2))
    a, b = xr[..., 0], xr[..., 1]
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    out = np.stack([a * c - b * s, a * s + b * c], axis=-1)
    return out.reshape(xq.shape)


def repeat_kv(x, n_rep=2):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    x = np.broadcast_to(x[:, :, :, None, :], (bs, slen, n_kv_heads, n_rep, head_dim))
    return x.reshape(bs, slen, n_kv_heads * n_rep, head_dim)


class KVCache:
    def __init__(self, max_batch, max_seq, n_heads, head_dim):
        self.k = np.zeros((max_batch, max_seq, n_heads, head_dim))
        self.v = np.zeros((max_batch, max_seq, n_heads, head_dim))

    def update(self, xk, xv, start):
        batch, seqlen = xk.shape[:2]
        self.k[:batch, start:start + seqlen] = xk
        self.v[:batch, start:start + seqlen] = xv
        return self.k[:batch, :start + seqlen], self.v[:batch, :start + seqlen]


def cached_attention(xq, xk, xv, start=3):
    bsz, seqlen, n_heads, head_dim = xq.shape
    cache = KVCache(4, 32, n_heads, head_dim)
    keys, values = cache.update(xk, xv, start)
    q, k, v = (t.transpose(0, 2, 1, 3) for t in (xq, keys, values))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head_dim)
    mask = np.full((seqlen, seqlen), -np.inf)
    mask = np.triu(mask, k=1)
    mask = np.hstack([np.zeros((seqlen, start)), mask])
    scores = softmax(scores + mask)
    return (scores @ v).transpose(0, 2, 1, 3).reshape(bsz, seqlen, -1)


def padded_attention(q, k, tokens):
    scores = q @ np.swapaxes(k, -1, -2) * q.shape[-1] ** -0.5
    mask = (tokens != 0)[:, None, None, :]
    return softmax(np.where(mask, scores, -1e9))


def merge_heads(x):
    b, h, t, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * d)


def split_heads(x, n_head=4):
    b, t, c = x.shape
    return x.reshape(b, t, n_head, c // n_head).transpose(0, 2, 1, 3)


def sinusoidal_positions(x):
    max_len, d_model = x.shape
    pe = np.zeros((max_len, d_model))
    position = np.arange(0, max_len)[:, np.newaxis]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return x + pe


# -- teaching code: layers, losses, im2col --------------------------------------------------


def affine_backward(dout, x, w):
    dx = np.dot(dout, w.T)
    dw = np.dot(x.T, dout)
    db = np.sum(dout, axis=0)
    return dx, dw, db


def relu_backward(dout, x):
    mask = x <= 0
    dx = dout.copy()
    dx[mask] = 0
    return dx


def batchnorm_train(x, gamma, beta):
    mu = x.mean(axis=0)
    xc = x - mu
    var = np.mean(xc ** 2, axis=0)
    std = np.sqrt(var + 10e-7)
    return gamma * (xc / std) + beta


def dropout(x, ratio=0.5):
    mask = np.random.rand(*x.shape) > ratio
    return x * mask / (1.0 - ratio)


def cross_entropy(logits, t):
    batch_size = logits.shape[0]
    y = softmax(logits)
    return -np.sum(np.log(y[np.arange(batch_size), t] + 1e-7)) / batch_size


def softmax_loss_grad(x, y):
    probs = softmax(x)
    n = x.shape[0]
    dx = probs.copy()
    dx[np.arange(n), y] -= 1
    dx /= n
    return dx


def mse(pred, target):
    return np.mean((pred - target) ** 2)


def bce(p, y, eps=1e-7):
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


def one_hot(labels, num_classes=10):
    out = np.zeros((len(labels), num_classes))
    out[np.arange(len(labels)), labels] = 1
    return out


def accuracy(logits, labels):
    return np.mean(np.argmax(logits, axis=1) == labels)


def im2col(input_data, filter_h=3, filter_w=3, stride=1, pad=1):
    N, C, H, W = input_data.shape
    out_h = (H + 2 * pad - filter_h) // stride + 1
    out_w = (W + 2 * pad - filter_w) // stride + 1
    img = np.pad(input_data, [(0, 0), (0, 0), (pad, pad), (pad, pad)], 'constant')
    col = np.zeros((N, C, filter_h, filter_w, out_h, out_w))
    for y in range(filter_h):
        y_max = y + stride * out_h
        for x in range(filter_w):
            x_max = x + stride * out_w
            col[:, :, y, x, :, :] = img[:, :, y:y_max:stride, x:x_max:stride]
    return col.transpose(0, 4, 5, 1, 2, 3).reshape(N * out_h * out_w, -1)


def conv_forward(x, w, b, stride=1, pad=1):
    FN, C, FH, FW = w.shape
    N, C, H, W = x.shape
    out_h = int(1 + (H + 2 * pad - FH) / stride)
    out_w = int(1 + (W + 2 * pad - FW) / stride)
    col = im2col(x, FH, FW, stride, pad)
    col_w = w.reshape(FN, -1).T
    out = np.dot(col, col_w) + b
    return out.reshape(N, out_h, out_w, -1).transpose(0, 3, 1, 2)


def col2im(col, x, filter_h=2, filter_w=2, stride=2, pad=0):
    N, C, H, W = x.shape
    out_h = (H + 2 * pad - filter_h) // stride + 1
    out_w = (W + 2 * pad - filter_w) // stride + 1
    col = col.reshape(N, out_h, out_w, C, filter_h, filter_w).transpose(0, 3, 4, 5, 1, 2)
    img = np.zeros((N, C, H + 2 * pad + stride - 1, W + 2 * pad + stride - 1))
    for y in range(filter_h):
        y_max = y + stride * out_h
        for x in range(filter_w):
            x_max = x + stride * out_w
            img[:, :, y:y_max:stride, x:x_max:stride] += col[:, :, y, x, :, :]
    return img[:, :, pad:H + pad, pad:W + pad]


def max_pool(x, pool_h=2, pool_w=2, stride=2):
    N, C, H, W = x.shape
    out_h = int(1 + (H - pool_h) / stride)
    out_w = int(1 + (W - pool_w) / stride)
    col = im2col(x, pool_h, pool_w, stride, 0)
    col = col.reshape(-1, pool_h * pool_w)
    arg_max = np.argmax(col, axis=1)
    out = np.max(col, axis=1)
    return out.reshape(N, out_h, out_w, C).transpose(0, 3, 1, 2), arg_max


def avg_pool_reshape(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))


def global_avg_pool(x):
    return x.mean(axis=(2, 3))


def flatten_features(x, w):
    return x.reshape(x.shape[0], -1) @ w


def upsample_nearest(x):
    return x.repeat(2, axis=2).repeat(2, axis=3)


def conv1d_valid(x, w):
    n, k = len(x), len(w)
    out = np.zeros(n - k + 1)
    for i in range(k):
        out += x[i:i + n - k + 1] * w[i]
    return out


def crop_to(x, skip):
    return np.concatenate([x, skip[:, :, :x.shape[2], :x.shape[3]]], axis=1)


def last_window(x, y):
    n = y.shape[0]
    return x[-n:] + y


def lstm_cell(x, h, c, w, u, b):
    gates = x @ w + h @ u + b
    i, f, o, g = np.split(gates, 4, axis=1)
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    c_next = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c_next), c_next


def rnn_step(x, h, wx, wh, b):
    return np.tanh(x @ wx + h @ wh + b)


def l2_normalize(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def cosine_similarity(a, b):
    a = a / np.sqrt(np.sum(a * a, axis=1, keepdims=True))
    b = b / np.sqrt(np.sum(b * b, axis=1, keepdims=True))
    return a @ b.T


def logsumexp(x):
    m = np.max(x, axis=-1, keepdims=True)
    return (m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))[..., 0]


def beam_step(seqs, scores, log_probs, beam_size=3):
    vocab = log_probs.shape[-1]
    total = scores[:, None] + log_probs
    flat = total.reshape(-1)
    top = np.argsort(flat)[::-1][:beam_size]
    beam_idx, token_idx = top // vocab, top % vocab
    new_seqs = np.concatenate([seqs[beam_idx], token_idx[:, None]], axis=1)
    return new_seqs, flat[top]


def top_k_filter(logits, k=3):
    idx = np.argsort(logits, axis=-1)[:, -k:]
    kth = np.take_along_axis(logits, idx[:, :1], axis=-1)
    return np.where(logits < kth, -np.inf, logits)


def gather_last_token(hidden, lengths):
    return hidden[np.arange(len(hidden)), lengths - 1]


def pick_corners(m, i):
    return m[i, [0, -1, -1, -1]]


def sgd_momentum(w, dw, v, lr=0.01, mu=0.9):
    v *= mu
    v -= lr * dw
    w += v
    return w, v


def random_init(x, fan_out=8):
    w = np.random.randn(x.shape[1], fan_out) * np.sqrt(2.0 / x.shape[1])
    b = np.zeros(fan_out)
    return x @ w + b


def scatter_add_counts(labels, values, n_bins=5):
    counts = np.zeros(n_bins)
    np.add.at(counts, labels, values)
    return counts


def in_place_scale(x, y):
    np.multiply(x, 2.0, out=x)
    np.add(x, y, out=x)
    return x


# -- sizes split and joined again (a size a reshape divides is known to be divisible) ------


def rotary_pairs(xq, cos, sin):
    """Llama-style rotary embedding on interleaved pairs: (..., D) as (..., D//2, 2)."""
    xr = xq.reshape(*xq.shape[:-1], -1, 2)
    a, b = xr[..., 0], xr[..., 1]
    out = np.stack([a * cos - b * sin, a * sin + b * cos], axis=-1)
    return out.reshape(*xq.shape[:-1], -1)


def two_head_residual(x, wq, wo):
    """Heads split off the model size and merged back, then a residual connection."""
    B, T, D = x.shape
    q = (x @ wq).reshape(B, T, 2, -1).transpose(0, 2, 1, 3)
    ctx = softmax(q @ q.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])) @ q
    return ctx.transpose(0, 2, 1, 3).reshape(B, T, -1) @ wo + x


def pool_unpool(x):
    """2x average pooling along H by a reshape, upsampled back with np.repeat."""
    N, C, H, W = x.shape
    pooled = x.reshape(N, C, -1, 2, W).mean(axis=3)
    return np.repeat(pooled, 2, axis=2) - x


def swap_pairs(x):
    """Swap neighbouring features: (..., D) as (..., D//2, 2), reversed, flattened back."""
    pairs = x.reshape(x.shape[0], x.shape[1], -1, 2)[..., ::-1]
    return pairs.reshape(x.shape[0], x.shape[1], -1) + x

"""eval_shape on a corpus of NumPy model code (tests/data/numpy_models.py): every function
runs unchanged with symbolic sizes, and at three assignments of the sizes its output
types are those of NumPy's real outputs; the graph eval_shape returns computes NumPy's
values (functions that draw random numbers: the types only). Python floats take NumPy's
default float64 here (kantensor's default is float32, see docs/promotion.rst)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute

sys.path.insert(0, str(Path(__file__).parent / "data"))
import numpy_models as M  # noqa: E402

#: The three assignments of the sizes the corpus names (H, W, D even: pooling by 2 and
#: interleaved sin/cos need it; T <= L; B <= 4 and T + 3 <= 32 for the KV cache).
ASSIGNMENTS = [
    dict(B=2, T=3, S=4, N=5, C=2, H=6, W=4, V=7, D=6, K=3, L=8, M=7, F=2, P=8, Q=6, J=1,
         h=3),
    dict(B=1, T=5, S=2, N=3, C=3, H=4, W=6, V=5, D=4, K=4, L=9, M=6, F=3, P=6, Q=9, J=4,
         h=2),
    dict(B=3, T=2, S=6, N=8, C=1, H=8, W=8, V=11, D=8, K=2, L=4, M=9, F=1, P=9, Q=8, J=4,
         h=5),
]

#: (function, input types, keyword arguments, the range of each int input's values).
CASES = [
    (M.softmax, ["float64[B,T]"], {}, {}),
    (M.gelu, ["float64[B,T,16]"], {}, {}),
    (M.layer_norm, ["float64[B,T,16]", "float64[16]", "float64[16]"], {"eps": 1e-3}, {}),
    (M.linear, ["float64[B,16]", "float64[16,8]", "float64[8]"], {}, {}),
    (M.ffn, ["float64[T,16]", "float64[16,64]", "float64[64]", "float64[64,16]",
             "float64[16]"], {}, {}),
    (M.attention, ["float64[T,8]", "float64[S,8]", "float64[S,8]", "float64[T,S]"], {}, {}),
    (M.causal_self_attention, ["float64[T,16]", "float64[16,48]", "float64[48]",
                               "float64[16,16]", "float64[16]"], {}, {}),
    (M.transformer_block, ["float64[T,16]", "float64[16,48]", "float64[48]", "float64[16,16]",
                           "float64[16]", "float64[16,64]", "float64[64]", "float64[64,16]",
                           "float64[16]"] + ["float64[16]"] * 4, {}, {}),
    (M.gpt2_embed, ["int64[T]", "float64[V,16]", "float64[L,16]"], {},
     {0: lambda s: (0, s["V"])}),
    (M.gpt2_logits, ["float64[T,16]", "float64[V,16]", "float64[16]", "float64[16]"], {}, {}),
    (M.greedy_next, ["int64[B,T]", "float64[B,T,V]"], {}, {}),
    (M.rms_norm, ["float64[B,T,16]", "float64[16]"], {}, {}),
    (M.swiglu_ffn, ["float64[B,T,16]", "float64[16,32]", "float64[32,16]", "float64[16,32]"],
     {}, {}),
    (M.rope_tables, ["float64[B,T,4,D]"], {}, {}),
    (M.apply_rotary, ["float64[B,T,4,D]", "float64[T,D//2]", "float64[T,D//2]"], {}, {}),
    (M.repeat_kv, ["float64[B,T,2,8]"], {"n_rep": 3}, {}),
    (M.cached_attention, ["float64[B,T,4,8]"] * 3, {}, {}),
    (M.padded_attention, ["float64[B,4,T,8]", "float64[B,4,S,8]", "int64[B,S]"], {},
     {2: lambda s: (0, 3)}),
    (M.merge_heads, ["float64[B,4,T,8]"], {}, {}),
    (M.split_heads, ["float64[B,T,16]"], {}, {}),
    (M.sinusoidal_positions, ["float64[L,D]"], {}, {}),
    (M.affine_backward, ["float64[N,8]", "float64[N,D]", "float64[D,8]"], {}, {}),
    (M.relu_backward, ["float64[N,D]", "float64[N,D]"], {}, {}),
    (M.batchnorm_train, ["float64[N,D]", "float64[D]", "float64[D]"], {}, {}),
    (M.dropout, ["float64[N,D]"], {}, {}),
    (M.cross_entropy, ["float64[N,K]", "int64[N]"], {}, {1: lambda s: (0, s["K"])}),
    (M.softmax_loss_grad, ["float64[N,K]", "int64[N]"], {}, {1: lambda s: (0, s["K"])}),
    (M.mse, ["float64[N,D]", "float64[N,D]"], {}, {}),
    (M.bce, ["float64[N]", "float64[N]"], {}, {}),
    (M.one_hot, ["int64[N]"], {"num_classes": 6}, {0: lambda s: (0, 6)}),
    (M.accuracy, ["float64[N,K]", "int64[N]"], {}, {1: lambda s: (0, s["K"])}),
    (M.im2col, ["float64[N,C,H,W]"], {}, {}),
    (M.conv_forward, ["float64[N,3,H,W]", "float64[F,3,3,3]", "float64[F]"], {}, {}),
    (M.col2im, ["float64[N*(H//2)*(W//2),8]", "float64[N,2,H,W]"], {}, {}),
    (M.max_pool, ["float64[N,C,H,W]"], {}, {}),
    (M.avg_pool_reshape, ["float64[N,C,H,W]"], {}, {}),
    (M.global_avg_pool, ["float64[N,C,H,W]"], {}, {}),
    (M.flatten_features, ["float64[N,C,4,4]", "float64[16*C,10]"], {}, {}),
    (M.upsample_nearest, ["float64[N,C,H,W]"], {}, {}),
    (M.conv1d_valid, ["float64[L]", "float64[3]"], {}, {}),
    (M.crop_to, ["float64[N,4,H,W]", "float64[N,4,P,Q]"], {}, {}),
    (M.last_window, ["float64[M,D]", "float64[N,D]"], {}, {}),
    (M.lstm_cell, ["float64[B,8]", "float64[B,h]", "float64[B,h]", "float64[8,4*h]",
                   "float64[h,4*h]", "float64[4*h]"], {}, {}),
    (M.rnn_step, ["float64[B,8]", "float64[B,D]", "float64[8,D]", "float64[D,D]",
                  "float64[D]"], {}, {}),
    (M.l2_normalize, ["float64[B,T,D]"], {}, {}),
    (M.cosine_similarity, ["float64[N,D]", "float64[M,D]"], {}, {}),
    (M.logsumexp, ["float64[B,T]"], {}, {}),
    (M.beam_step, ["int64[3,L]", "float64[3]", "float64[3,V]"], {}, {}),
    (M.top_k_filter, ["float64[B,V]"], {}, {}),
    (M.gather_last_token, ["float64[B,T,8]", "int64[B]"], {}, {1: lambda s: (1, s["T"] + 1)}),
    (M.pick_corners, ["float64[N,4,3]", "int64[J]"], {}, {1: lambda s: (0, s["N"])}),
    (M.sgd_momentum, ["float64[N,D]"] * 3, {}, {}),
    (M.random_init, ["float64[N,D]"], {}, {}),
    (M.scatter_add_counts, ["int64[N]", "float64[N]"], {}, {0: lambda s: (0, 5)}),
    (M.in_place_scale, ["float64[N,D]", "float64[N,D]"], {}, {}),
    (M.rotary_pairs, ["float64[B,T,4,D]", "float64[T,1,D//2]", "float64[T,1,D//2]"], {}, {}),
    (M.two_head_residual, ["float64[B,T,D]", "float64[D,D]", "float64[D,D]"], {}, {}),
    (M.pool_unpool, ["float64[N,C,H,W]"], {}, {}),
    (M.swap_pairs, ["float64[B,T,D]"], {}, {}),
]

#: Output types stated exactly where a size is split and joined again (``2*(D//2)`` is
#: ``D`` after a reshape that requires ``D`` even; ``4*(d//4)`` is ``d``).
EXACT = {M.rotary_pairs: "float64[B,T,4,D]", M.two_head_residual: "float64[B,T,D]",
         M.pool_unpool: "float64[N,C,H,W]", M.swap_pairs: "float64[B,T,D]",
         M.apply_rotary: "float64[B,T,4,D]"}

#: Functions whose outputs are random: their values are not compared.
RANDOM = {M.dropout, M.random_init}


def _arrays(types, ranges, sizes, rng):
    out = []
    for i, t in enumerate(types):
        shape = tuple(substitute(d, sizes) if isinstance(d, Dim) else d for d in t.shape)
        if t.dtype.startswith("int"):
            low, high = ranges[i](sizes) if i in ranges else (0, 2)
            out.append(rng.integers(low, high, shape).astype(t.dtype))
        else:
            out.append(rng.random(shape).astype(t.dtype))
    return out


def _expected(t, sizes):
    return tuple(substitute(d, sizes) if isinstance(d, Dim) else d for d in t.shape)


def _agrees(t, value, sizes) -> bool:
    value = np.asarray(value)
    want = _expected(t, sizes)
    return value.dtype == np.dtype(t.dtype) and len(want) == value.ndim and all(
        w is None or w == s for w, s in zip(want, value.shape, strict=True))


def check(fn, types, kwargs, ranges):
    """(output types, wrong assignments) of one case: eval_shape's types against
    NumPy's outputs at every assignment, and the graph's values against NumPy's."""
    with kt.default_dtype("float64"):  # NumPy's default float (kantensor's is float32)
        return _check(fn, types, kwargs, ranges)


def _check(fn, types, kwargs, ranges):
    result = kt.eval_shape(fn, *types, **kwargs)
    compiled = kt.function(list(result.inputs), list(result.outputs), check=True)
    out_types = result.type if isinstance(result.type, tuple) else (result.type,)
    wrong = []
    for k, sizes in enumerate(ASSIGNMENTS):
        rng = np.random.default_rng(k)
        arrays = _arrays([kt.TensorType.parse(t) for t in types], ranges, sizes, rng)
        np.random.seed(k)
        want = fn(*(a.copy() for a in arrays), **kwargs)
        want = want if isinstance(want, tuple) else (want,)
        if len(want) != len(out_types) or not all(
                _agrees(t, w, sizes) for t, w in zip(out_types, want, strict=False)):
            wrong.append((k, [str(t) for t in out_types], [np.shape(w) for w in want]))
            continue
        got = compiled(*(a.copy() for a in arrays))
        got = got if isinstance(got, list) else [got]
        if fn not in RANDOM and not all(
                np.allclose(g, w, equal_nan=True) for g, w in zip(got, want, strict=True)):
            wrong.append((k, "values differ"))
    return out_types, wrong


@pytest.mark.parametrize(("fn", "types", "kwargs", "ranges"), CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_model_code_types_as_numpy_runs(fn, types, kwargs, ranges):
    out_types, wrong = check(fn, types, kwargs, ranges)
    assert not wrong, (out_types, wrong)
    if fn in EXACT:
        assert str(out_types[0]) == EXACT[fn]


def test_the_corpus_is_large_and_symbolic():
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)
    assert all(any(not ch.isdigit() for t in c[1] for ch in t.split("[")[1] if ch.isalpha())
               for c in CASES)

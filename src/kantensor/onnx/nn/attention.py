"""ONNX's attention ops: Attention (opsets 23 and later) and LinearAttention, their
signature templates and NumPy implementations, and RotaryEmbedding's implementation.

Attention's Q, K and V are 4-d (batch, heads, sequence, head size), or 3-d (batch, sequence,
heads * head size) with the ``q_num_heads`` and ``kv_num_heads`` attributes. A past
key and value (4-d) are prepended along the sequence; grouped-query attention repeats
each key/value head over ``q_num_heads / kv_num_heads`` query heads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.templates import checked, dims, reads_ranks, typed
from ...syntax.ast import Clause, DimExpr, DimVar, TensorPattern
from ..shared import NotKnown

#: The ONNX inputs, in order.
INPUTS = ("Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen")


@reads_ranks
def build(types: tuple, given: tuple, outputs: int, q_num_heads: int | None = None,
          kv_num_heads: int | None = None, unasked: tuple = (), **_: Any) -> dict[str, Any]:
    """Y is (batch, q heads, q sequence, v head size), or 3-d (batch, q sequence,
    q heads * v head size); the present key and value (4-d) add the past sequence to
    the key's; the QK product is (batch, q heads, q sequence, total sequence). Every size
    of Q, K and V at least 1 (heads, sequences, head sizes; the past may be empty), as
    onnxruntime's kernel requires (the spec allows empty ones). ``unasked``: the outputs
    that are empty names (not asked for, though ``outputs`` counts them)."""
    rank = types[0].ndim
    b, sq, skv, sp = dims("b sq skv sp")
    hq: int | DimVar
    hk: int | DimVar
    if rank == 3:
        if q_num_heads is None or kv_num_heads is None:
            raise ParamError("3-d inputs need q_num_heads and kv_num_heads")
        hq, hk = q_num_heads, kv_num_heads
        qw, kw, vw = dims("qw kw vw")
        q, k, v = typed([b, sq, qw], "T1"), typed([b, skv, kw], "T1"), typed([b, skv, vw], "T2")
        d, dv = kw // hk, vw // hk
        clauses = [(qw % hq).eq(0), (kw % hk).eq(0), (vw % hk).eq(0), (qw // hq).eq(kw // hk)]
        y = typed([b, sq, hq * dv], "T1")
    elif rank == 4:
        hq, hk, d, dv = dims("hq hk d dv")
        q, k, v = typed([b, hq, sq, d], "T1"), typed([b, hk, skv, d], "T1"), \
            typed([b, hk, skv, dv], "T2")
        clauses = []
        y = typed([b, hq, sq, dv], "T1")
    else:
        raise ParamError(f"Q, K and V must be 3-d or 4-d, got {rank} axes")
    operands = [q, k, v]
    pasts = {INPUTS[p] for p in given[3:]} & {"past_key", "past_value"}
    past = "past_key" in pasts
    asked = set(range(outputs)).difference(unasked)
    if len(pasts) == 1:
        raise NotKnown("onnxruntime's kernel refuses a past key without a past value or "
                       "the other way round (they must be both present or both absent)")
    if pasts and not asked >= {1, 2}:
        raise NotKnown("onnxruntime's kernel refuses a past key or value whose present one "
                       "is not asked for (the implementation does not support it), the spec "
                       "computes it")
    total = sp + skv if past else skv
    for position, t in zip(given[3:], types[3:], strict=False):
        name = INPUTS[position]
        if name == "attn_mask":
            made, said = _mask(t.ndim, b, hq, sq, total)
            operands.append(made)
            clauses += said
        elif name == "past_key":
            operands.append(typed([b, hk, sp, d], "T1"))
        elif name == "past_value":
            operands.append(typed([b, hk, sp, dv], "T2"))
        else:  # nonpad_kv_seqlen
            operands.append(typed([b], "int64"))
    outs = [y, typed([b, hk, total, d], "T1"), typed([b, hk, total, dv], "T2"),
            typed([b, hq, sq, total], "T1")][:outputs]
    if rank == 4:
        clauses.append((hq % hk).eq(0))
        clauses += [hq >= 1, hk >= 1]
    # (onnxruntime's kernel: "Batch size", "Q sequence length", "KV sequence length",
    # "Head size", "V head size must be greater than 0", a past of 0 or more)
    clauses += [checked(e >= 1, lambda v, _, w=w: f"Attention's {w} is 0: onnxruntime needs "
                        "it greater than 0") for e, w in
                ((b, "batch"), (sq, "q sequence"), (skv, "kv sequence"), (d, "head size"),
                 (dv, "v head size"))]
    return {"inputs": operands, "outs": outs, "fits": clauses}


def _mask(rank: int, b: DimVar, hq: int | DimVar, sq: DimVar, total: DimExpr
          ) -> tuple[TensorPattern, list[Clause]]:
    """attn_mask, as ONNX states it: of 1 to 4 axes, broadcast to (batch, q heads, q
    sequence, total sequence) (each axis 1 or that size, aligned on the right), its last
    axis at most the total sequence (a shorter one is padded). onnxruntime's CPU kernel is
    narrower (a q sequence axis and a last axis of exactly those sizes), its function body
    as wide."""
    if not 1 <= rank <= 4:
        raise ParamError(f"attn_mask must have 1 to 4 axes, got {rank}")
    lead = dims("mb mh mq")[4 - rank:] if rank > 1 else []
    (last,) = dims("mk")
    full = [b, hq, sq][4 - rank:] if rank > 1 else []
    what = ["batch", "q heads", "q sequence"][4 - rank:] if rank > 1 else []
    clauses = [checked(((m - 1) * (m - f)).eq(0), lambda v, _, m=m.name, w=w: (
        f"attn_mask's {w} axis has size {v[m]}: it must be 1 or the {w}"))
        for m, f, w in zip(lead, full, what, strict=True)]
    clauses.append(checked(last <= total, lambda v, _, m=last.name: (
        f"attn_mask's last axis has size {v[m]}, more than the total sequence")))
    return typed([*lead, last], "M"), clauses


def _heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(b, s, heads * d) -> (b, heads, s, d)."""
    b, s, w = x.shape
    return x.reshape(b, s, heads, w // heads).transpose(0, 2, 1, 3)


def _band(q: int, kv: int, offset: Any, keep: Any) -> np.ndarray:
    """An additive bias, 0 where ``keep(i + offset, j)`` holds, else -inf: (q, kv), or
    (batch, 1, q, kv) for a per-batch offset."""
    i = np.arange(q).reshape(q, 1)
    j = np.arange(kv).reshape(1, kv)
    if np.ndim(offset):
        pos = i + np.reshape(offset, (-1, 1, 1))
        return np.where(keep(pos, j), 0.0, -np.inf)[:, None]
    return np.where(keep(i + int(offset), j), 0.0, -np.inf)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, *rest: np.ndarray,
              given: tuple, outputs: int, scale: float | None = None, is_causal: int = 0,
              q_num_heads: int | None = None, kv_num_heads: int | None = None,
              softcap: float = 0.0, qk_matmul_output_mode: int = 0,
              softmax_precision: int | None = None, left_window_size: int = -1,
              right_window_size: int = -1, unasked: tuple = ()) -> Any:
    extra = dict(zip((INPUTS[p] for p in given[3:]), rest, strict=False))
    flat = Q.ndim == 3
    if flat:
        Q, K, V = _heads(Q, q_num_heads), _heads(K, kv_num_heads), _heads(V, kv_num_heads)
    dtype = Q.dtype
    s = np.sqrt(1 / np.sqrt(Q.shape[3]) if scale is None else scale).astype(dtype)
    past = extra.get("past_key")
    if past is not None:
        K = np.concatenate([past, K], axis=2)
        V = np.concatenate([extra["past_value"], V], axis=2)
    present_k, present_v = K, V
    sq, skv = Q.shape[2], K.shape[2]
    bias: Any = np.zeros((sq, skv), dtype=dtype)
    mask = extra.get("attn_mask")
    if mask is not None and mask.shape[-1] < skv:
        fill = False if mask.dtype == bool else -np.inf
        mask = np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, skv - mask.shape[-1])],
                      constant_values=fill)
    if mask is not None:
        bias = bias + (np.where(mask, 0.0, -np.inf).astype(dtype) if mask.dtype == bool
                       else mask.astype(dtype))
    lens = extra.get("nonpad_kv_seqlen")
    offset = past.shape[2] if past is not None else \
        (lens.reshape(-1) - sq if lens is not None else 0)
    if is_causal:
        bias = bias + _band(sq, skv, offset, lambda p, j: j <= p).astype(dtype)
    if left_window_size >= 0 or right_window_size >= 0:
        def keep(p: Any, j: Any) -> Any:
            ok = np.ones(np.broadcast_shapes(np.shape(p), np.shape(j)), dtype=bool)
            if left_window_size >= 0:
                ok &= p - j <= left_window_size
            if right_window_size >= 0:
                ok &= j - p <= right_window_size
            return ok
        bias = bias + _band(sq, skv, offset, keep).astype(dtype)
    if lens is not None:
        pad = np.arange(skv) < lens.reshape(-1, 1)
        bias = bias + np.where(pad, 0.0, -np.inf).astype(dtype).reshape(-1, 1, 1, skv)
    hq, hk = Q.shape[1], K.shape[1]
    if hq != hk and hq % hk == 0:
        K, V = np.repeat(K, hq // hk, axis=1), np.repeat(V, hq // hk, axis=1)
    with np.errstate(all="ignore"):
        # (a matmul of bfloat16 gives float32: back to the dtype, as ONNX's MatMul does)
        qk = ((Q * s) @ (K * s).transpose(0, 1, 3, 2)).astype(dtype, copy=False)
        if softcap and softcap > 0:
            qk = np.tanh(qk / softcap) * softcap
        shown = qk
        logits = qk + bias
        if qk_matmul_output_mode == 2:
            shown = logits
        top = np.max(logits, axis=-1, keepdims=True)
        e = np.exp(logits - np.where(np.isneginf(top), 0, top))
        total = np.sum(e, axis=-1, keepdims=True)
        probs = e / np.where(total == 0, 1, total)
        dead = np.isneginf(np.max(np.broadcast_to(bias, logits.shape), axis=-1,
                                  keepdims=True))
        probs = np.where(dead, 0, probs)
    if qk_matmul_output_mode == 3:
        shown = probs
    y = (probs.astype(dtype) @ V).astype(dtype, copy=False)
    if flat:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    return (y, present_k, present_v, shown.astype(dtype))[:outputs] if outputs > 1 else y


#: LinearAttention's update rules and the optional inputs each needs (onnx's inference
#: refuses a node without them; the recurrence reads them).
_LINEAR_NEEDS = {"linear": (), "gated": ("decay",), "delta": ("beta",),
                 "gated_delta": ("decay", "beta")}

#: LinearAttention's optional inputs by their place.
_LINEAR_PLACES = {"past_state": 3, "decay": 4, "beta": 5}


@reads_ranks
def build_linear(types: tuple, q_num_heads: int | None = None,
                 kv_num_heads: int | None = None, outputs: int = 2,
                 given: tuple = (0, 1, 2), update_rule: str = "gated_delta", **_: Any
                 ) -> dict[str, Any]:
    """LinearAttention: packed (batch, time, heads * size) inputs; the output packs
    q heads of the value size, the state is (batch, kv heads, key size, value size).
    As its schema says, decay and beta (``given`` says which the node has) are of the
    query's dtype T, past_state and the present state of their own S (T without a past
    state, as onnx's inference has it); the update rule's inputs must be given, and no
    other (onnx's reference: "forbids decay input"). Their shapes, as the schema and
    onnx's reference have them: past_state the state's (batch, kv heads, key size, value
    size); decay (batch, time, kv heads * key size) or (batch, time, kv heads); beta
    (batch, time, kv heads) or (batch, time, 1)."""
    if q_num_heads is None or kv_num_heads is None:
        raise ParamError("LinearAttention needs q_num_heads and kv_num_heads")
    needs = _LINEAR_NEEDS.get(update_rule, ())
    missing = [n for n in needs if _LINEAR_PLACES[n] not in given]
    if missing:
        raise ParamError(f"LinearAttention's update_rule {update_rule!r} needs the "
                         f"{' and '.join(missing)} input{'s' if len(missing) > 1 else ''}")
    extra = [n for n in ("decay", "beta") if _LINEAR_PLACES[n] in given and n not in needs]
    if extra:
        raise ParamError(f"LinearAttention's update_rule {update_rule!r} takes no "
                         f"{' and no '.join(extra)} input")
    hq, hk = q_num_heads, kv_num_heads
    b, t, qw, kw, vw, e4, e5 = dims("b t qw kw vw e4 e5")
    dk, dv = kw // hk, vw // hk
    state = "S" if _LINEAR_PLACES["past_state"] in given else "T"
    outs = [typed([b, t, hq * dv], "T"), typed([b, hk, dk, dv], state)][:outputs]
    shapes = {3: typed([b, hk, dk, dv], "S"), 4: typed([b, t, e4], "T"),
              5: typed([b, t, e5], "T")}
    fits = [(kw % hk).eq(0), (vw % hk).eq(0), (qw // hq).eq(kw // hk)]
    if 4 in given:
        fits.append(((e4 - hk) * (e4 - kw)).eq(0))
    if 5 in given:
        fits.append(((e5 - hk) * (e5 - 1)).eq(0))
    return {"inputs": [typed([b, t, qw], "T"), typed([b, t, kw], "T"), typed([b, t, vw], "T"),
                       *(shapes[place] for place in given[3:])], "outs": outs,
            "fits": fits}


def _packed(x: np.ndarray, heads: int) -> np.ndarray:
    """(b, t, heads * d) -> (b, heads, t, d)."""
    b, t, w = x.shape
    return x.reshape(b, t, heads, w // heads).transpose(0, 2, 1, 3)


def linear_attention(query: np.ndarray, key: np.ndarray, value: np.ndarray,
                     *rest: np.ndarray, given: tuple, outputs: int = 2,
                     q_num_heads: int, kv_num_heads: int, scale: float = 0.0,
                     update_rule: str = "gated_delta", chunk_size: int = 64) -> Any:
    extra = dict(zip(given[3:], rest, strict=False))
    hq, hk = q_num_heads, kv_num_heads
    q, k, v = _packed(query, hq), _packed(key, hk), _packed(value, hk)
    b, _, t, dk = k.shape
    dv = v.shape[3]
    state = extra[3].astype(np.float64) if 3 in extra else np.zeros((b, hk, dk, dv))
    decay = extra.get(4)
    if decay is not None:
        decay = _packed(decay, hk) if decay.shape[2] == hk * dk else \
            decay.transpose(0, 2, 1)[..., None]
    beta = extra.get(5)
    if beta is not None:
        beta = np.broadcast_to(beta.transpose(0, 2, 1)[..., None], (b, hk, t, 1)) \
            if beta.shape[2] in (hk, 1) else beta
    s = scale if scale else 1 / np.sqrt(dk)
    group = hq // hk
    out = np.zeros((b, hq, t, dv))
    for i in range(t):
        kt, vt = k[:, :, i], v[:, :, i]  # (b, hk, dk), (b, hk, dv)
        if update_rule in ("gated", "gated_delta"):
            state = np.exp(decay[:, :, i])[..., None] * state if decay.shape[-1] == dk \
                else np.exp(decay[:, :, i])[..., None] * state
        if update_rule in ("delta", "gated_delta"):
            recalled = np.einsum("bhkv,bhk->bhv", state, kt)
            state = state + beta[:, :, i][..., None] * np.einsum(
                "bhk,bhv->bhkv", kt, vt - recalled)
        else:
            state = state + np.einsum("bhk,bhv->bhkv", kt, vt)
        shared = np.repeat(state, group, axis=1)
        out[:, :, i] = s * np.einsum("bhk,bhkv->bhv", q[:, :, i], shared)
    y = out.transpose(0, 2, 1, 3).reshape(b, t, hq * dv).astype(query.dtype)
    kept = extra[3].dtype if 3 in extra else query.dtype
    return (y, state.astype(kept)) if outputs > 1 else y


@reads_ranks
def build_rotary(types: tuple, num_heads: int = 0, rotary_embedding_dim: int = 0, **_: Any
                 ) -> dict[str, Any]:
    """RotaryEmbedding: Y like X, (batch, heads, sequence, head size) or (batch, sequence,
    hidden) with ``num_heads`` dividing hidden. With position_ids (batch, sequence) the
    caches are (positions, rot/2) and hold the sequence (onnxruntime does not extend
    them); without, they are (batch, sequence, rot/2); rot is ``rotary_embedding_dim``, at
    most the head size, or the head size."""
    x = types[0]
    clauses: list[Clause] = []
    if x.ndim == 4:
        a = b, _, s, d = dims("b h s d")
    elif x.ndim == 3:
        if num_heads <= 0:
            raise ParamError("a 3-d input needs num_heads")
        a = b, s, w = dims("b s w")
        d = w // num_heads
        clauses.append(checked((w % num_heads).eq(0), lambda v, _, n=num_heads: (
            f"the hidden size {v['w']} is not divisible by num_heads {n}")))
    else:
        raise ParamError(f"X must have 3 or 4 axes, got {x.ndim}")
    if rotary_embedding_dim > 0:
        half: Any = rotary_embedding_dim // 2
        clauses.append(checked(d >= rotary_embedding_dim, lambda v, _, r=rotary_embedding_dim: (
            f"rotary_embedding_dim {r} is more than the head size")))
    else:
        half = d // 2
    if len(types) > 3:
        (p,) = dims("p")
        cache = typed([p, half], "T")
        clauses.append(checked(s <= p, lambda v, _: (
            f"the sequence ({v['s']}) is longer than the caches' {v['p']} positions")))
        rest = [cache, cache, typed([b, s], "int64")]
    else:
        cache = typed([b, s, half], "T")
        rest = [cache, cache]
    return {"x": a, "rest": rest, "outs": [typed(a, "T")], "fits": clauses}


def rotary_embedding(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, *ids: np.ndarray,
                     interleaved: int = 0, num_heads: int = 0,
                     rotary_embedding_dim: int = 0) -> np.ndarray:
    four = x.ndim == 4
    if four:
        y = x.transpose(0, 2, 1, 3)  # (b, s, h, d)
    else:
        b, s, w = x.shape
        y = x.reshape(b, s, num_heads, w // num_heads)
    d = y.shape[-1]
    rot = rotary_embedding_dim or d
    if ids:
        cos, sin = cos[ids[0]], sin[ids[0]]
    cos, sin = cos[:, :, None, :rot // 2], sin[:, :, None, :rot // 2]
    part, rest = y[..., :rot], y[..., rot:]
    if interleaved:
        x1, x2 = part[..., 0::2], part[..., 1::2]
        turned = np.empty_like(part)
        turned[..., 0::2] = x1 * cos - x2 * sin
        turned[..., 1::2] = x2 * cos + x1 * sin
    else:
        x1, x2 = part[..., :rot // 2], part[..., rot // 2:]
        turned = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
    out = np.concatenate([turned, rest], axis=-1)
    return out.transpose(0, 2, 1, 3) if four else out.reshape(x.shape)

"""eval_shape of a GPT-style block, kantensor beside JAX, with symbolic batch and length.

The block is written once against an array module ``xp``: kantensor traces it with
``xp = numpy`` (``kt.eval_shape``), JAX with ``xp = jax.numpy`` (``jax.eval_shape`` on
``ShapeDtypeStruct``s whose batch and length are ``jax.export.symbolic_shape`` symbols).
Each call traces a fresh function object (no tracing cache is hit on either side); the
times are the best of interleaved rounds, and the ratio is what counts (the machine is
shared). JAX is optional (``pip install -e '.[jax]'``); without it only kantensor's time
is printed. Run: ``python benchmarks/eval_shape_jax.py [--rounds 5 --number 20]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import kantensor as kt

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # the comparison is optional
    jax = jnp = None

C, HEADS = 64, 4


def gpt_block(xp):
    """A pre-norm transformer block (causal attention and an MLP) over module ``xp``."""
    def layer_norm(x, g, b, eps=1e-5):
        mu = xp.mean(x, axis=-1, keepdims=True)
        var = xp.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) / xp.sqrt(var + eps) * g + b

    def softmax(s):
        e = xp.exp(s - xp.max(s, axis=-1, keepdims=True))
        return e / xp.sum(e, axis=-1, keepdims=True)

    def block(x, w_qkv, w_out, w_fc, w_proj, g1, b1, g2, b2):
        B, T, _ = x.shape
        qkv = layer_norm(x, g1, b1) @ w_qkv
        q, k, v = qkv[..., :C], qkv[..., C:2 * C], qkv[..., 2 * C:]
        q, k, v = (t.reshape(B, T, HEADS, C // HEADS).transpose(0, 2, 1, 3)
                   for t in (q, k, v))
        s = q @ k.transpose(0, 1, 3, 2) * (C // HEADS) ** -0.5
        mask = xp.tril(xp.ones((T, T), dtype=bool))
        s = xp.where(mask, s, -1e9)
        a = (softmax(s) @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
        x = x + a @ w_out
        h = layer_norm(x, g2, b2) @ w_fc
        h = 0.5 * h * (1 + xp.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))
        return x + h @ w_proj
    return block


WEIGHTS = [(C, 3 * C), (C, C), (C, 4 * C), (4 * C, C), (C,), (C,), (C,), (C,)]


def kantensor_case():
    types = ["float32[B,T,64]"] + [f"float32[{','.join(map(str, s))}]" for s in WEIGHTS]
    return lambda: kt.eval_shape(gpt_block(np), *types).type


def jax_case():
    if jax is None:
        return None
    b, t = jax.export.symbolic_shape("B, T")
    args = [jax.ShapeDtypeStruct((b, t, C), jnp.float32)] + [
        jax.ShapeDtypeStruct(s, jnp.float32) for s in WEIGHTS]
    return lambda: jax.eval_shape(gpt_block(jnp), *args)


def best(fn, rounds: int, number: int) -> float:
    out = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        out = min(out, (time.perf_counter() - start) / number)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--number", type=int, default=20)
    args = parser.parse_args()
    ours, theirs = kantensor_case(), jax_case()
    print(f"kantensor: {ours()}")
    if theirs is not None:
        print(f"jax {jax.__version__}: {theirs()}")
    times = {"kantensor": 0.0, "jax": 0.0}
    for _ in range(args.rounds):  # interleaved: both see the same load
        times["kantensor"] = min(times["kantensor"] or float("inf"), best(ours, 1, args.number))
        if theirs is not None:
            times["jax"] = min(times["jax"] or float("inf"), best(theirs, 1, args.number))
    print(f"{platform.python_implementation()} {platform.python_version()}, "
          f"numpy {np.__version__}; best of {args.rounds} rounds of {args.number} calls")
    print(f"kt.eval_shape   {times['kantensor'] * 1e3:8.2f} ms per trace")
    if theirs is not None:
        print(f"jax.eval_shape  {times['jax'] * 1e3:8.2f} ms per trace")
        print(f"ratio jax / kantensor: {times['jax'] / times['kantensor']:.1f}x")


if __name__ == "__main__":
    main()

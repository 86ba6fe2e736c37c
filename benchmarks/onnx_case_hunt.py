"""A hunt for contracts onnxruntime contradicts, over ONNX's node cases: each one-node case
in kantensor.onnx's scope, with every axis of every graph input a named size of its own
(``s0``, ``s1``, ...; integer and shape-value inputs made initializers as
tests/onnx_cases.py does), its contract against onnxruntime's run at points of the box
0..4 per size: the case's own sizes, each size moved alone to 0..4, and random points (one
or two sizes moved, or all drawn). Inputs are ones (floats drawn), integers 0, truths
True. Printed, per case, each point where:

* VALID-REFUSED: the contract holds and onnxruntime refuses (or dies);
* INVALID-RAN: the contract fails and onnxruntime runs;
* WRONG-SIZE: the contract holds, onnxruntime runs, and a typed size differs;

then the counts. Not every line is a wrong contract: a refusal may be data's (an index
or a divisor of 0), an op onnxruntime has no kernel for, or a kernel gap the docs list
(docs/onnx.rst, "Left"); an INVALID-RAN may be a window the contract refuses as PyTorch
does, or onnxruntime skipping a check ONNX states (Concat's empty inputs).

Run: python benchmarks/onnx_case_hunt.py [OP,OP,...] [--points 30] [--seed 7]
(needs onnxruntime; tests/ortrun.py runs each model in a worker process).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import kantensor.onnx as ko  # noqa: E402
import ortrun  # noqa: E402
import shapejudge as sj  # noqa: E402
from onnx_cases import cases, in_scope, op_types, prepared  # noqa: E402

#: Ops whose outputs are random, or whose inputs are data no box point makes valid.
SKIP = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                  "Multinomial", "Bernoulli", "Dropout", "ImageDecoder"})
#: Named sizes past which a case is skipped (its box is too large to sample meaningfully).
MAX_NAMES = 9


def _feed(dtype: np.dtype, shape: list[int], rng: np.random.Generator) -> np.ndarray | None:
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind in "biu":
        return np.ones(shape, dtype) if dtype.kind == "b" else np.zeros(shape, dtype)
    return None


def _named(model, values) -> tuple[dict[str, int], list] | None:
    """Every axis of every graph input named (in place); the original sizes by name and
    the inputs' dtypes, or None for a case whose inputs are not all tensors."""
    orig: dict[str, int] = {}
    dtypes = []
    for info, v in zip(model.graph.input, values, strict=False):
        if info.type.WhichOneof("value") != "tensor_type" or not isinstance(v, np.ndarray):
            return None
        t = info.type.tensor_type
        t.ClearField("shape")
        t.shape.SetInParent()
        for n in v.shape:
            name = f"s{len(orig)}"
            orig[name] = n
            t.shape.dim.add().dim_param = name
        dtypes.append(v.dtype)
    return orig, dtypes


def _points(orig: dict[str, int], per: int, rng: random.Random) -> list[dict[str, int]]:
    keys = list(orig)
    pts = {tuple(orig.values())}
    pts |= {tuple(v if kk == k else orig[kk] for kk in keys) for k in keys for v in range(5)}
    for _ in range(per):
        if rng.random() < 0.5:
            moved = set(rng.sample(keys, min(2, len(keys))))
            pts.add(tuple(rng.randrange(5) if k in moved else orig[k] for k in keys))
        else:
            pts.add(tuple(rng.randrange(5) for _ in keys))
    chosen = sorted(pts)
    if len(chosen) > 2 * per:
        chosen = rng.sample(chosen, 2 * per)
    return [dict(zip(keys, p, strict=True)) for p in chosen]


def _verdicts(model, dtypes, contract, typed, points, rng) -> list[tuple[str, dict, object]]:
    """The points where onnxruntime contradicts the contract or a typed size."""
    found = []
    for sizes in points:
        feeds = {info.name: _feed(dt, [sizes[d.dim_param] for d in
                                       info.type.tensor_type.shape.dim], rng)
                 for info, dt in zip(model.graph.input, dtypes, strict=False)}
        if any(v is None for v in feeds.values()):
            return found
        got = ortrun.run(model, feeds)
        holds = False if contract is None else contract.holds(**sizes).value
        if isinstance(got, ortrun.Refusal):
            if holds is True:
                found.append(("VALID-REFUSED", sizes, got.why[-160:]))
        elif holds is False:
            found.append(("INVALID-RAN", sizes, got))
        elif holds is True:
            for out, shape in zip(model.graph.output, got, strict=False):
                dims = (typed or {}).get(out.name) or []
                if any(v is not None and v != e for v, e in zip(
                        (d if isinstance(d, int) else sj.kantensor_size(d, sizes)
                         if isinstance(d, str) else None for d in dims), shape,
                        strict=False)):
                    found.append(("WRONG-SIZE", sizes, (out.name, dims, shape)))
        if len(found) >= 3:
            break
    return found


def hunt(only: set[str] | None, per: int, seed: int) -> Counter:
    logging.disable(logging.WARNING)
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    counts: Counter = Counter()
    for case in cases():
        ops = op_types(case)
        if len(case.model.graph.node) != 1 or not in_scope(ops) or ops & SKIP or (
                only and not ops & only):
            continue
        model, values, _ = prepared(case, False)
        named = _named(model, values)
        if named is None or not named[0] or len(named[0]) > MAX_NAMES:
            continue
        orig, dtypes = named
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                contract = ko.contract(model)
                typed = sj.typed_shapes(ko.infer_shapes(model))
            except (TypeError, ValueError):  # (refused: kantensor's errors are both)
                contract, typed = None, None
        counts["cases"] += 1
        for kind, sizes, what in _verdicts(model, dtypes, contract, typed,
                                           _points(orig, per, rng), nrng):
            counts[kind] += 1
            print(kind, case.name, sizes, what, flush=True)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ops", nargs="?", default="", help="op types, comma-separated")
    parser.add_argument("--points", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    only = set(args.ops.split(",")) if args.ops else None
    print(dict(hunt(only, args.points, args.seed)))


if __name__ == "__main__":
    main()

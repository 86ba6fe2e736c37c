"""The element types of every input of ONNX's node test cases, judged by the oracles.

Each one-node case of ``onnx.backend.test.case.node`` (one per op type and domain: the
case of the most graph inputs, as tests/onnx_cases.py prepares it), with each graph
input's element type varied over every one in turn, the others as the case has them
(tests/onnxsweep.py ``cases``: 8,525 models): kantensor types the model exactly where
onnxruntime takes it at load, or, where onnxruntime refuses for another reason (a
missing kernel, an op of a domain it lacks, a type it does not register), where onnx's
strict shape inference does. It finds what the schema-against-signature check of
tests/test_onnx_type_constraints.py does not: handlers (a Loop's trip count of float32,
a body declaring another element type than the node passes), inputs a builder left of
any dtype (NonMaxSuppression's thresholds, Attention's mask), an input tied to an
attribute (LabelEncoder's keys, TreeEnsemble's splits), ops of other domains.
"""

from __future__ import annotations

import zlib

import pytest

from onnxsweep import NEWEST_CASES, Tally, case_models

#: Wrong accepts left, by op type, each with why (and whose area): none (the list
#: grows only with a reason; the test fails once an op in it is fixed).
LEFT_ACCEPTS: dict[str, str] = {}

#: Wrong refusals left: strings where a signature never took them (kantensor types
#: strings only where a signature says so); no op. (BatchNormalization's inputs of two
#: float types and the optimizers' tensors of two float types were refused: their
#: schemas let each be of its own set.)
LEFT_REFUSALS: set[str] = set()


#: The sweep in parts by op type, one test each (``make test``'s ``--dist loadfile`` keeps
#: them on one worker; ``-n 2 --dist load`` spreads them).
SHARDS = 4


def _shard(op: str) -> int:
    return zlib.crc32(op.encode()) % SHARDS


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_case_input_refused_exactly_where_the_oracles_refuse(shard):
    tallies: dict[str, Tally] = {}
    for what, op, model in case_models(NEWEST_CASES):
        if _shard(op) == shard:
            tallies.setdefault(op, Tally()).judge(what, model, op)
    accepts = {op: t.wrong_accepts[:3] for op, t in tallies.items()
               if t.wrong_accepts and op not in LEFT_ACCEPTS}
    refusals = {op: [w for w in t.wrong_refusals if " string (" not in w][:3]
                for op, t in tallies.items() if op not in LEFT_REFUSALS}
    assert not accepts, accepts
    assert not any(refusals.values()), refusals
    assert sum(t.judged for t in tallies.values()) > 8000 / SHARDS / 2
    # Each op left is still wrongly accepted (the list shrinks when one is fixed).
    fixed = [op for op in LEFT_ACCEPTS if _shard(op) == shard and not tallies[op].wrong_accepts]
    assert not fixed, f"{fixed} fixed now: drop them from LEFT_ACCEPTS"

"""The DSL's nodes hash once (:func:`kantensor.syntax.ast.names.hashed_once`): the same
hash as their fields' (what the dataclass writes), kept on the node, and never carried
by a pickle into a process whose strings hash otherwise."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys

from kantensor.ops.catalogue import load_all
from kantensor.syntax.alternative import Alternative
from kantensor.syntax.ast import BinOp, Call, Compare, TensorPattern
from kantensor.syntax.parser import parse_fresh

_ONCE = (Alternative, BinOp, Call, Compare, TensorPattern)


def _by_fields(node: object) -> int:
    """The hash a frozen dataclass gives by its fields (Python's own rule)."""
    return hash(tuple(getattr(node, f.name) for f in dataclasses.fields(node)
                      if f.compare and f.hash is not False))


def _nodes(x: object):
    if isinstance(x, tuple):
        for item in x:
            yield from _nodes(item)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        yield x
        for f in dataclasses.fields(x):
            yield from _nodes(getattr(x, f.name))


def test_every_node_of_the_shipped_signatures_hashes_as_its_fields_do():
    seen = 0
    for entry in load_all():
        if entry.is_template:
            continue
        for alt in entry.signature.alternatives:
            for node in _nodes(alt):
                if isinstance(node, _ONCE):
                    assert hash(node) == _by_fields(node) == hash(node), node
                    seen += 1
    assert seen > 300


def test_equal_nodes_made_apart_hash_alike_and_find_each_other():
    text = "+(m,n),(n,p)->(m+1,min(p,n)//2) where m >= 2, n != p"
    a, b = parse_fresh(text, False)[0], parse_fresh(text, False)[0]
    assert a is not b and hash(a) == hash(b) and {a: 1}[b] == 1


#: Pickle an alternative whose hash was asked (kept on it), under one string hash seed.
_PICKLE = """import pickle, sys
from kantensor.syntax.parser import parse_fresh
alt = parse_fresh(sys.argv[1], False)[0]
hash(alt)
sys.stdout.buffer.write(pickle.dumps(alt))
"""

#: Read it back under another seed and look it up by an equal alternative made there.
_LOOKUP = """import pickle, sys
from kantensor.syntax.parser import parse_fresh
alt = pickle.loads(sys.stdin.buffer.read())
fresh = parse_fresh(sys.argv[1], False)[0]
print(alt == fresh, hash(alt) == hash(fresh), {alt: 1}.get(fresh))
"""


def test_a_pickled_node_finds_its_hash_again_in_a_process_that_hashes_otherwise():
    text = "(batch,seq,width),(width,heads)->(batch,seq,heads) where seq >= 1"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    made = subprocess.run([sys.executable, "-c", _PICKLE, text], capture_output=True,
                          env={**env, "PYTHONHASHSEED": "1"}, check=True, timeout=120)
    read = subprocess.run([sys.executable, "-c", _LOOKUP, text], input=made.stdout,
                          capture_output=True, env={**env, "PYTHONHASHSEED": "2"},
                          check=True, timeout=120)
    assert read.stdout.decode().split() == ["True", "True", "1"]


def test_a_pickle_in_one_process_holds_no_hash():
    alt = parse_fresh("(n)->(n+1)", False)[0]
    hash(alt)
    copy = pickle.loads(pickle.dumps(alt))
    assert all("_hash" not in vars(node) for node in _nodes(copy))
    assert copy == alt and hash(copy) == hash(alt)

"""A bound Op given another count of inputs says so: the Op, the count given, the count
it takes. ``kt.sum.bind(axis=0).make_node(x, y)`` failed with 'too many values to
unpack (expected 1)', ``reshape{shape=(6,)}.make_node()`` with 'tuple index out of
range', einsum's count was 'no solutions' in query and relation.

Over every catalogue example that builds: its node's count of inputs ``n`` is what the
signature rendered for those inputs takes (the signature's own arity); given ``n - 1``
or ``n + 1`` inputs (the last dropped, or given twice), the Op either builds, where the
implementation (NumPy's function, mostly) computes on arrays of those types as the
built types say, or refuses with ``OP: takes n inputs, got c`` (``takes k or more`` for
a sequence of tensors, k above c). ``query`` and ``relation`` refuse the same counts
with the same words.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from kanren import run

import kantensor as kt
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily
from kantensor.query import var

FIGURES = {"refused": 0, "built": 0}


def _flat(value):
    return [t for v in value for t in (_flat(v) if isinstance(v, list) else [v])]


def _cases():
    for entry in load_all():
        for number, example in enumerate(entry.examples):
            if "in" in example and "error" not in example:
                yield pytest.param(entry, example, id=f"{entry.name}-{number}")


def _node(entry, example):
    family = getattr(kt, entry.name)
    params = _as_given(family, {k: v for k, v in example.items() if k not in ("in", "out")})
    op = family.bind(**params) if isinstance(family, OpFamily) else family
    return op.make_node(*(kt.TensorType.parse(t)() for t in _flat(example["in"])))


def _computes(op, types, built):
    """Whether the implementation runs on zero arrays of ``types`` (all sizes known)
    and gives the ``built`` shapes; True where a size is unknown (nothing to run)."""
    if not all(isinstance(d, int) for t in types for d in t.shape):
        return True
    try:
        out = op.impl(*(np.zeros(t.shape, t.dtype) for t in types), **op._kwargs)
    except (TypeError, ValueError, IndexError):
        return False
    outs = out if isinstance(out, tuple | list) else (out,)
    return [np.shape(o) for o in outs] == [t.shape for t in built]


@pytest.mark.parametrize(("entry", "example"), list(_cases()))
def test_a_count_the_op_never_takes_is_said(entry, example):
    node = _node(entry, example)
    op, n = node.op, len(node.inputs)
    signature, _ = op.signature_for(tuple(x.type for x in node.inputs))
    assert n in {i for i, _ in signature.arities}, (op, signature)
    for c in (n - 1, n + 1):
        if c < 0:
            continue
        extra = node.inputs[-1] if n else kt.TensorType.parse("float32[2]")()
        inputs = list(node.inputs[:c]) if c < n else [*node.inputs, extra]
        types = [x.type for x in inputs]
        try:
            built = op.make_node(*inputs)
        except kt.TypeInferenceError as exc:
            first = str(exc).splitlines()[0]
            said = re.fullmatch(rf"{re.escape(str(op))}( .*?)?: (takes (\d+)( or more)? "
                                rf"inputs?, got {c})( \(.*\))?", first)
            # (after the Op its signature; after the count the builder's words)
            assert said, (op, c, first)
            takes = int(said.group(3))
            assert takes > c if said.group(4) else takes == n, (op, c, first)
            FIGURES["refused"] += 1
            _query_refuses(op, types, len(node.outputs), first)
            continue
        except Exception as exc:  # noqa: BLE001 (any other error is the bug)
            pytest.fail(f"{op} given {c} inputs: {type(exc).__name__}: {exc}")
        outs = [v.type for v in built.outputs]
        signature, _ = built.op.signature_for(tuple(types))
        assert c in {i for i, _ in signature.arities}, (op, c, signature)
        assert _computes(built.op, types, outs), (op, c, types, outs)
        FIGURES["built"] += 1


def _query_refuses(op, types, n_out, first):
    """query and relation on ``types`` refuse with make_node's first line (``sum{axis=0,
    keepdims=False, dtype=None}: takes 1 input, got 2``; no input at all: ``R.goal([],
    outputs)``, as ``R(*outputs)`` reads as outputs alone only for an Op whose call
    names no tensor). ``tril{k=n}`` given three inputs was named by its rendered
    signature in query and relation (``tril (a0,a1):t,(s0):bool->(a0,a1):t: takes 2
    inputs, got 3``), by its parameters in make_node."""
    outputs = [var(f"Y{i}") for i in range(n_out)]
    with pytest.raises(kt.TypeInferenceError) as asked:
        kt.query(op, types, outputs)
    assert str(asked.value).splitlines()[0] == first, (op, str(asked.value), first)
    rel = kt.relation(op)
    with pytest.raises(kt.TypeInferenceError) as related:
        run(1, var(), rel(*types, *outputs) if types else rel.goal(types, outputs))
    assert str(related.value).splitlines()[0] == first, (op, str(related.value), first)


def test_figures():
    """Runs last in the module: most Ops refuse another count; the sequences build."""
    print(f"\nmake_node arity: {FIGURES}")
    assert FIGURES["refused"] > 300 and FIGURES["built"] > 5, FIGURES

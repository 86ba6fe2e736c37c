"""A query given every input answers with make_node's type, in make_node's form.

``x[1:n]`` of ``float32[5]``: make_node builds ``float32[min(4,n-(n+4)//5)]`` (its sizes
simplified under what is known of them, every size >= 0), the query answered
``float32[max(0,min(5,n)-1)]``: the same value at every n, written otherwise, so the
two front ends printed two types for one call. Oracle: NumPy's slice at every n in
0..11, and the one form make_node gives.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
from kantensor.query import query, var
from kantensor.types.symbols import substitute

N = kt.Dim("n")


@pytest.mark.parametrize(("start", "size"), list(itertools.product((0, 1, 2), range(6))))
def test_a_slice_to_a_named_size_is_answered_in_make_nodes_form(start, size):
    index = (slice(start, N),)
    t = kt.TensorType("float32", (size,))
    made = kt.getitem(t(), index=index).type
    answers = [a["Y"] for a in query(kt.getitem.bind(index=index), [t], [var("Y")])]
    assert answers == [made], (start, size, made, answers)
    for k in range(12):
        want = np.zeros(size)[start:k].shape
        assert tuple(substitute(d, {"n": k}) if isinstance(d, kt.Dim) else d
                     for d in made.shape) == want, (start, size, k)


@pytest.mark.parametrize("shape", [(N, 3), (N,), (2, N)], ids=str)
def test_a_size_the_conditions_fix_is_answered_as_make_node_gives_it(shape):
    """``broadcast_to{shape=(n, 3)}`` of ``float32[2,1]``: make_node builds
    ``float32[2,3]`` where ``2 - n == 0``, the query answered ``float32[n,3]`` where the
    same: the query now says the int as make_node does, under the same conditions; and
    make_node's answer is NumPy's shape at every n in 0..5 where its conditions hold,
    none where NumPy refuses."""
    op = kt.broadcast_to.bind(shape=shape)
    for rank in range(3):
        for sizes in itertools.product(range(3), repeat=rank):
            t = kt.TensorType("float32", sizes)
            try:
                y = kt.broadcast_to(t(), shape=shape)
            except (TypeError, ValueError):
                y = None
            made = [] if y is None else [(y.type, set(map(str, y.facts or ())))]
            answers = [(a["Y"], set(map(str, a.where)))
                       for a in query(op, [t], [var("Y")])]
            assert answers == made, (shape, sizes, made, answers)
            for k in range(6):
                try:
                    want = {np.broadcast_to(np.zeros(sizes), [k if d is N else d
                                                              for d in shape]).shape}
                except ValueError:
                    want = set()
                holds = y is not None and all(c.holds({"n": k}) for c in y.facts or ())
                got = {tuple(substitute(d, {"n": k}) if isinstance(d, kt.Dim) else d
                             for d in y.type.shape)} if holds else set()
                assert got == want, (shape, sizes, k, made)

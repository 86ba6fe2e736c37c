"""Backward queries of reshapes to named sizes: the input's sizes from the output's.

``query(reshape{shape=(-1, m)}, [float32[n]], [float32[6,4]])`` answered ``n = n,
where 6 == n//m and m >= 1 and n % m == 0 and m == 4``: true, but unsolved (``n`` is
24 wherever that holds). Oracle: NumPy's reshape by brute force over input sizes and
``m`` in a domain (every size up to :data:`TOP`), and make_node at each such point.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
from kantensor.query import pattern, query, var
from kantensor.types.symbols import free_symbols, substitute

M = kt.Dim("m")
#: Every size of the domain: an input's axis and m are 0..TOP.
TOP = 13

#: (the shape parameter over m, the output's shape, the input's rank)
CASES = [
    ((-1, M), (6, 2), 1),
    ((M, -1), (3, 4), 1),
    ((6, M), (6, 2), 1),
    ((M, 2, -1), (3, 2, 2), 1),
    ((-1, M), (0, 4), 1),
    ((-1, M), (3, 4), 2),
    ((M, -1), (2, 3), 2),
    ((M, -1), (0, 3), 2),  # (m == 0 made a -1's divisor 0: ZeroDivisionError; NumPy
    ((-1, M), (0, 0), 1),  # refuses reshape(0, -1), so there is no answer)
    ((M, -1), (0, 3), 1),
]


def _numpy(shape, sizes, m):
    """NumPy's output shape of the reshape at ``m`` of an input of ``sizes``, or None."""
    try:
        return np.zeros(sizes).reshape([m if d is M else d for d in shape]).shape
    except ValueError:
        return None


def _made(shape, sizes, m):
    """make_node's output shape of the call at ints, or None where it refuses."""
    try:
        y = kt.reshape(kt.TensorType("float32", sizes)(), tuple(m if d is M else d
                                                                for d in shape))
    except (TypeError, ValueError):
        return None
    return y.type.shape


def _holds(where, env):
    try:
        return all(c.holds(env) for c in where)
    except ZeroDivisionError:
        return False


@pytest.mark.parametrize(("shape", "out", "rank"), CASES,
                         ids=[f"{s} to {o} rank {r}" for s, o, r in CASES])
def test_a_backward_reshape_query_is_numpy_by_brute_force(shape, out, rank):
    """The answers, at every assignment of their names in the domain, give exactly the
    inputs (and m) NumPy reshapes to ``out`` there (sound and complete); make_node
    agrees with NumPy at every point; and where the output fixes the input's size
    (rank 1: its size is the output's product), the answer says that size as an int."""
    op = kt.reshape.bind(shape=shape)
    names = [f"s{i}" for i in range(rank)]
    x = pattern("float32", tuple(var(n) for n in names))
    answers = list(query(op, [x], [kt.TensorType("float32", out)]))
    want = set()
    for sizes in itertools.product(range(TOP + 1), repeat=rank):
        for m in range(TOP + 1):
            got = _numpy(shape, sizes, m)
            assert _made(shape, sizes, m) == got, (shape, sizes, m)
            if got == out:
                want.add((sizes, m))
    found = set()
    for a in answers:
        values = [a[n] for n in names]
        symbols = sorted({s for v in values if isinstance(v, kt.Dim) for s in free_symbols(v)}
                         | {s for c in a.where for s in free_symbols(c.left)
                            | free_symbols(c.right)} | {"m"})
        for point in itertools.product(range(TOP + 1), repeat=len(symbols)):
            env = dict(zip(symbols, point, strict=True))
            if _holds(a.where, env):
                found.add((tuple(substitute(v, env) if isinstance(v, kt.Dim) else v
                                 for v in values), env["m"]))
    assert found == want, (shape, out, answers)
    if rank == 1 and want:
        assert answers and all(isinstance(a["s0"], int) for a in answers), answers

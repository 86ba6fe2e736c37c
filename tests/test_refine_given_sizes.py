"""``refine(outputs, given={"n": k})`` where ``n`` is a named size of the graph: every
size made of it is that size at ``n = k`` (DESIGN §13: the given size narrows the others
by the contract). A name met only inside an expression (``float32[2*n]``, ``n*m``,
``zeros((2*n, 3))``) was refused ("n is the size of no axis of the graph") or left
unused (``m*n`` stayed ``m*n``).

Oracle: the same graph built forwards with ``n`` an int (make_node on ints, whose sizes
NumPy's rules give), at k = 0..4, the other names kept: where it builds and the
graph built on the name covers ``n = k`` (its contract holds there for some sizes of the
other names), refine gives its types (each size the same value at every other name's
size 0..5); where the forward build refuses, refine refuses.
"""

from __future__ import annotations

import itertools

import pytest

import kantensor as kt
from kantensor.types.symbols import free_symbols, substitute

N, M = kt.dims("n m")


def _x(*shape):
    return kt.tensor(None, "float32", shape)


#: (name, the graph's outputs as a function of n, an int or the Dim)
GRAPHS = [
    ("exp(x[2n])", lambda n: [kt.exp(_x(2 * n))]),
    ("x[2n, m]", lambda n: [kt.exp(_x(2 * n, M))]),
    ("concatenate(x[n+1], w[n])", lambda n: [kt.concatenate([_x(n + 1), _x(n)])]),
    ("zeros((2n, 3)) + x[2n, 1]", lambda n: [kt.zeros((2 * n, 3)) + _x(n * 2, 1)]),
    ("x[2n] + w[n+2]", lambda n: [_x(2 * n) + _x(n + 2)]),
    ("x[n, n+1] @ w[n+1, 2n]", lambda n: [_x(n, n + 1) @ _x(n + 1, 2 * n)]),
    ("x[2n][:n-1]", lambda n: [_x(2 * n)[:n - 1]]),
    ("x[2n, 3].reshape(n, -1)", lambda n: [_x(2 * n, 3).reshape(n, -1)]),
    ("exp(x[n*m])", lambda n: [kt.exp(_x(n * M))]),
    ("x[n*m] + w[m]", lambda n: [_x(n * M) + _x(M)]),
    ("x[n//2 + m] * w[3]", lambda n: [_x(n // 2 + M) * _x(3)]),
]


def _forward(graph, k):
    try:
        return [o.type for o in graph(k)]
    except (TypeError, ValueError, IndexError):
        return None


def _same_value(a, b):
    """Two types of one dtype whose sizes are equal at every size 0..5 of the names."""
    if a.dtype != b.dtype or a.ndim != b.ndim:
        return False
    names = sorted({s for t in (a, b) for d in t.shape if isinstance(d, kt.Dim)
                    for s in free_symbols(d)}, key=str)
    for values in itertools.product(range(6), repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        at = [[substitute(d, env) if isinstance(d, kt.Dim) else d for d in t.shape]
              for t in (a, b)]
        if at[0] != at[1]:
            return False
    return True


def _covered(contract, k):
    """Whether the graph built on ``n`` covers n = k: its contract (None: no
    conditions) holds there (not undecided) at some sizes 0..5 of its other names."""
    if contract is None:
        return True
    others = [name for name, _ in contract.sizes if name != "n"]
    return any(contract.holds(n=k, **dict(zip(others, values, strict=True))).value is True
               for values in itertools.product(range(6), repeat=len(others)))


@pytest.mark.parametrize(("name", "graph"), GRAPHS, ids=[g[0] for g in GRAPHS])
def test_a_given_size_is_its_value_in_every_expression(name, graph):
    outs = graph(N)
    contract = kt.contract(outs)
    for k in range(5):
        want = _forward(graph, k)
        covered = _covered(contract, k)
        try:
            r = kt.refine(outs, given={"n": k})
        except kt.RefinementError:
            assert want is None or not covered, (name, k, want)
            continue
        assert want is not None, (name, k, [str(r[o]) for o in outs])
        for o, t in zip(outs, want, strict=True):
            assert _same_value(r[o], t), (name, k, str(r[o]), str(t))
            assert "n" not in {s for d in r[o].shape if isinstance(d, kt.Dim)
                               for s in free_symbols(d)}, (name, k, str(r[o]))


def test_a_given_size_names_itself_in_a_conflict():
    """The conflict chain names the given size (its label was empty, ``because of given``
    and nothing, where the size is inside an expression)."""
    x = kt.tensor("x", "float32", (2 * N,))
    with pytest.raises(kt.RefinementError, match="because of given n = 3"):
        kt.refine(x + kt.tensor("w", "float32", (N + 2,)), given={"n": 3})

"""A pool's input needs channels unless its batch is empty (onnxruntime's "Only N can be
zero"). Stated as the product ``N*C >= N`` it is no box: every pool contract over a
named channel count was approximate (``N*(C - 1) >= 0`` left "with conditions no box
states"). Stated as ``C >= min(1, N)``, as the spatial axes' ``W >= min(1, N)``, it is
solved into boxes (``N == 0`` or ``C >= 1``) and the contracts are exact. Judged by
onnxruntime at every point of tests/test_onnx_pool_empty_axes.py's grid (n, c and w from
0, windows watched): ``holds`` is valid exactly where it runs within ONNX's rule."""

from __future__ import annotations

import itertools
import warnings

import pytest

import kantensor.onnx as ko
from kantensor.types.conditions import Condition
from kantensor.types.contracts.atoms import Atom, condition_holds
from kantensor.types.contracts.contract import Contract
from kantensor.types.contracts.points import points
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_min
from test_onnx_pool_empty_axes import POOLS, WINDOWS, _has, _judge, _model

CASES = [(op, opset, a) for (op, opset), a in itertools.product(POOLS, WINDOWS[:4] + WINDOWS[-3:])
         if _has(op, opset, a)]


def _contract(op: str, opset: int, **attributes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ko.contract(_model(op, opset, ["n", "c", "w"], **attributes))


@pytest.mark.parametrize("op, opset, attributes", CASES)
def test_a_pool_contract_over_named_channels_is_exact(op, opset, attributes):
    contract = _contract(op, opset, **attributes)
    assert contract.exact, str(contract)
    assert not any("*" in str(a.clause) for a in contract.atoms), contract.dsl()
    ran, _ = _judge(op, opset, **attributes)  # (holds == onnxruntime at every grid point)
    assert ran >= 1


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_a_global_pool_contract_over_named_channels_is_exact(op):
    contract = _contract(op, 22)
    assert contract.exact and contract.dsl() == "where c >= min(1, n), w >= min(1, n)", \
        str(contract)
    _judge(op, 22)


#: Conditions over ``min(k, v)``, the same written in Python (the oracle), and whether
#: the split leaves boxes (else a condition over ``c`` and ``w`` no box states, kept).
MINS = [
    (lambda n, c, w: Condition(c, ">=", dim_min(1, n)), lambda n, c, w: c >= min(1, n), True),
    (lambda n, c, w: Condition(c + w, ">=", dim_min(3, n) + 1),
     lambda n, c, w: c + w >= min(3, n) + 1, False),
    (lambda n, c, w: Condition(2 * c, "<=", dim_min(2, n) + w),
     lambda n, c, w: 2 * c <= min(2, n) + w, False),
    (lambda n, c, w: Condition(c, "==", dim_min(4, n)), lambda n, c, w: c == min(4, n), True),
    (lambda n, c, w: Condition(w, ">=", dim_min(2, n) + dim_min(1, c)),
     lambda n, c, w: w >= min(2, n) + min(1, c), True),
]


@pytest.mark.parametrize("k", range(len(MINS)))
def test_the_cells_of_a_condition_over_a_min_are_its_points(k):
    """The solved cells (split on the sizes the mins read) hold exactly the points where
    the condition holds, by brute force over 0..6: each cell's points enumerated, as
    ``solutions`` does but without its check by ``holds``, and kept where the cell's
    own leftover conditions hold (none where the contract is exact)."""
    n, c, w = Dim("n"), Dim("c"), Dim("w")
    made, oracle, exact = MINS[k]
    contract = Contract([Atom(made(n, c, w))], [("n", "n"), ("c", "c"), ("w", "w")])
    assert contract.exact is exact, str(contract)
    grid = {s: list(range(7)) for s in ("n", "c", "w")}
    found = {tuple(p[s] for s in ("n", "c", "w")) for cell in contract.cells
             for p in points(cell, ["n", "c", "w"], grid, {s: s for s in grid})
             if all(condition_holds(r, p) for r in cell.rest)}
    want = {p for p in itertools.product(range(7), repeat=3) if oracle(*p)}
    assert found == want, (contract.dsl(), sorted(found ^ want)[:5])

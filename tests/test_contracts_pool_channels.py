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

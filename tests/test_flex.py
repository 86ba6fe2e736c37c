"""Flexible dims as an AST rewrite: the variants of an alternative (signature/flex.py)."""

from __future__ import annotations

import numpy as np
import pytest

from kantensor.signature.flex import flexible
from kantensor.signature.signature import Signature
from kantensor.syntax.parser import parse_alternatives
from kantensor.types.type import TensorType


def alt(text: str):
    (a,) = parse_alternatives(text)
    return a


def test_variants_of_matmul_are_plain_alternatives():
    flex = flexible(alt("(m?,n),(n,p?)->(m?,p?)"))
    assert flex.names == ("m", "p")
    text = {presence: str(flex.variant(presence))
            for presence in [(True, True), (True, False), (False, True), (False, False)]}
    assert text == {(True, True): "(m,n),(n,p)->(m,p)", (True, False): "(m,n),(n)->(m)",
                    (False, True): "(n),(n,p)->(p)", (False, False): "(n),(n)->()"}
    assert flex.variant((True, False)) is flex.variant((True, False))  # built once


def test_numpy_rule_selects_the_variant_from_the_ranks():
    flex = flexible(alt("(m?,n),(n,p?)->(m?,p?)"))
    assert flex.presence({0: 1, 1: 2}) == (False, True)
    assert flex.presence({0: 2}) is None  # p is decided by input 1 only
    sig = Signature.parse("(m?,n),(n,p?)->(m?,p?)")
    for a, b in [((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)), ((2, 3), (3, 4))]:
        (out,) = sig.infer([TensorType("float64", a), TensorType("float64", b)])
        assert out.shape == np.matmul(np.ones(a), np.ones(b)).shape


def test_an_input_with_a_present_and_an_absent_flexible_dim_has_no_variant():
    flex = flexible(alt("(m?,p?,n)->(n)"))
    assert flex.variant((True, False)) is None
    assert str(flex.variant((False, False))) == "(n)->(n)"


def test_no_flexible_dims_no_rewrite():
    assert flexible(alt("(m,n)->(n)")) is None


def test_thirty_flexible_dims_build_only_the_variant_the_ranks_select():
    dims = ",".join(f"d{i}?" for i in range(30))
    a = alt(f"({dims},n)->(n)")
    sig = Signature(alternatives=[a])
    (out,) = sig.infer([TensorType("float32", (5,))])
    assert out.shape == (5,)
    flex = flexible(a)
    assert flex.presence({0: 1}) == (False,) * 30
    assert str(flex.variant((False,) * 30)) == "(n)->(n)"
    (out,) = sig.infer([TensorType("float32", (1,) * 30 + (7,))])  # all present
    assert out.shape == (7,)
    with pytest.raises(TypeError, match="input 0 has 2 dimensions but .* needs exactly 1"):
        sig.infer([TensorType("float32", (2, 5))])  # too few for all: none are present

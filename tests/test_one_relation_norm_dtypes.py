"""``linalg.norm``'s dtypes are NumPy's, in its relation: judged by NumPy at every dtype
(NumPy's and ml_dtypes'), order, axis and a few shapes, make_node types what
``np.linalg.norm`` gives or refuses where it raises, and query, relation and refine
agree (:func:`test_one_relation.check_all_known`); a query backwards from an output
type answers exactly the dtypes that build it.

Before, the relation said ``real(t)`` of every inexact ``t``: a bfloat16, float8 or
float4 tensor's norm was typed in its own dtype where NumPy computes it in float64
(``x.astype(float)``: NumPy lacks them), and a float16 matrix's 2-norm, -2-norm and
nuclear norm were typed float16 where NumPy's svd refuses float16 ("array type float16
is unsupported in linalg"); the hunt of tests/test_one_relation_drawn.py found it."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
from unification import var

import kantensor as kt
from kantensor.types.dtypes import DTYPES
from test_one_relation import FIGURES, check_all_known, forward

ALL = tuple(d for d in DTYPES if d != "string")
ORDERS = [None, 2, -2, "nuc", "fro", 1, -1, np.inf, 0, 3]
CALLS = [((3,), None), ((2, 2), None), ((0, 2), None), ((2, 3, 2), -1), ((2, 3, 2), (0, 2)),
         ((2, 3, 2), (2, 1))]


def _numpy(dtype: str, shape: tuple, order, axis) -> tuple | None:
    """NumPy's (dtype, shape) of the norm of ones of ``dtype``, or None where it raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = np.linalg.norm(np.ones(shape).astype(getattr(ml_dtypes, dtype, dtype)),
                                 ord=order, axis=axis)
        except (TypeError, ValueError):
            return None
    return str(out.dtype), np.shape(out)


@pytest.mark.parametrize(("shape", "axis"), CALLS, ids=str)
@pytest.mark.parametrize("order", ORDERS, ids=str)
def test_norm_types_numpys_dtypes_in_one_relation(order, shape, axis):
    try:
        op = kt.norm.bind(ord=order, axis=axis)
    except (TypeError, ValueError):  # (an order NumPy refuses for these axes)
        assert all(_numpy(d, shape, order, axis) is None for d in ("float32", "int8"))
        return
    before = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    built: dict = {}
    with kt.default_dtype("float64"):  # NumPy's default float
        for dtype in ALL:
            types = [kt.TensorType(dtype, shape)]
            outs = forward(op, types)
            want = _numpy(dtype, shape, order, axis)
            assert (None if outs is None else (outs[0].dtype, outs[0].shape)) == want, \
                (dtype, outs, want)
            check_all_known(op, types, outs)
            if outs is not None:
                built.setdefault(outs, set()).add(dtype)
        for outs, dtypes in built.items():  # backwards over dtypes, brute force
            t = var("t")
            answered = {a["t"] for a in kt.query(op, [kt.pattern(t, shape)], list(outs))}
            assert answered == dtypes, (outs, sorted(answered ^ dtypes))
    after = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    assert after == before, (FIGURES["disagree"][before[0]:][:3],
                             FIGURES["unsound"][before[1]:][:3],
                             FIGURES["missing"][before[2]:][:3])


def test_a_float16_singular_value_norm_is_refused_in_numpys_words():
    x = kt.tensor("x", "float16", (2, 2))
    for order in (2, -2, "nuc"):
        with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
            np.linalg.norm(np.ones((2, 2), np.float16), ord=order)
        with pytest.raises(kt.TypeInferenceError) as refused:
            kt.norm(x, ord=order)
        assert str(refused.value).startswith("array type float16 is unsupported in linalg")
    assert {str(np.linalg.norm(kt.tensor(f"x{i}", d, (3,))).type) for i, d in
            enumerate(["bfloat16", "float8_e4m3fn", "float4_e2m1fn"])} == {"float64[]"}

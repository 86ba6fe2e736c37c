"""One relation for ``numpy.linalg``'s entries on tensors (the LAPACK Ops with
``as_numpy=True``, what ``np.linalg.inv(x)`` builds): their dtype rule, NumPy's, is in
the relation (``ops/families/lapack.py``), so make_node, query, the relation and refine
agree on every dtype, and a query backwards from an output type answers exactly the
input dtypes that build it. Before, the rule was Python around the entry
(``ops/linalgnumpy.py`` refused float16 and cast a low-precision tensor to float64
before the Op): the Op NumPy's entry built typed bfloat16 bfloat16, and no query of it
answered a bfloat16 input for NumPy's float64.

Judged by NumPy: at each dtype (NumPy's and ml_dtypes'), the dtype of NumPy's result on
a 2x2 matrix of it, or its refusal, is make_node's; by brute force: every dtype the
backward query answers builds that output, every one that does is answered; and at every
size of a small box (``check_backwards``)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from unification import var

import kantensor as kt
from kantensor.types.dtypes import DTYPES
from test_one_relation import FIGURES, check_all_known, check_backwards, forward

ALL = tuple(d for d in DTYPES if d != "string")
#: (name, the Op's parameters, NumPy's call on the matrices, whether the outputs are
#: always complex here: eig and eigvals, documented)
CASES = [
    ("det", {}, np.linalg.det, False),
    ("inv", {}, np.linalg.inv, False),
    ("cholesky", {}, np.linalg.cholesky, False),
    ("eig", {}, np.linalg.eig, True),
    ("eigvals", {}, np.linalg.eigvals, True),
    ("eigh", {}, np.linalg.eigh, False),
    ("eigvalsh", {}, np.linalg.eigvalsh, False),
    ("slogdet", {}, np.linalg.slogdet, False),
    ("qr", {"mode": "r"}, lambda a: np.linalg.qr(a, mode="r"), False),
    ("qr", {}, np.linalg.qr, False),
    ("svd", {"compute_uv": False}, lambda a: np.linalg.svd(a, compute_uv=False), False),
    ("svd", {}, np.linalg.svd, False),
    ("pinv", {}, np.linalg.pinv, False),
    ("pinv", {"rtol": None}, lambda a: np.linalg.pinv(a, rtol=None), False),
    ("solve", {}, lambda a: np.linalg.solve(a, np.ones(2)), False),
]


def _array(dtype: str, rows: list) -> np.ndarray:
    return np.array(rows, dtype=np.float64).astype(getattr(ml_dtypes, dtype, dtype))


def _numpy_dtypes(call, dtype: str, complex_out: bool) -> tuple[str, ...] | None:
    """The dtypes of NumPy's result on a 2x2 matrix of ``dtype`` (complex of them for
    eig's), or None where NumPy raises."""
    rows = [[2, 1], [1, 2]] if dtype == "float8_e8m0fnu" else [[1, 0], [0, 1]]  # (no 0)
    try:
        out = call(_array(dtype, rows))
    except (TypeError, ValueError):  # (not LinAlgError: the values', not the dtype's)
        return None
    outs = out if isinstance(out, tuple) else (out,)
    return tuple(str(np.promote_types(o.dtype, np.complex64) if complex_out else o.dtype)
                 for o in outs)


def _op(name: str, params: dict):
    return getattr(kt, name).bind(**params, as_numpy=True)


def _types(name: str, dtype: str, n: int = 2) -> list[kt.TensorType]:
    if name == "solve":  # (b float64: NumPy's np.ones)
        return [kt.TensorType(dtype, (n, n)), kt.TensorType("float64", (n,))]
    return [kt.TensorType(dtype, (n, n))]


@pytest.mark.parametrize(("name", "params", "call", "complex_out"), CASES,
                         ids=[f"{c[0]}{c[1] or ''}" for c in CASES])
def test_numpy_entries_type_numpys_dtypes_in_one_relation(name, params, call, complex_out):
    op = _op(name, params)
    before = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    with kt.default_dtype("float64"):  # NumPy's default float
        built = {}
        for dtype in ALL:
            types = _types(name, dtype)
            outs = forward(op, types)
            want = _numpy_dtypes(call, dtype, complex_out)
            assert (None if outs is None else tuple(t.dtype for t in outs)) == want, \
                (dtype, outs, want)
            check_all_known(op, types, outs)
            if outs is not None:
                built.setdefault(outs, set()).add(dtype)
                if dtype in ("float32", "bfloat16", "int8", "complex64"):
                    check_backwards(op, types, outs)
        for outs, dtypes in built.items():  # backwards over dtypes, brute force
            t = var("t")
            pattern = kt.pattern(t, (2, 2))
            rest = _types(name, "float64")[1:]
            answered = {a["t"] for a in kt.query(op, [pattern, *rest], list(outs))}
            assert answered == dtypes, (outs, sorted(answered ^ dtypes))
    after = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    assert after == before, (FIGURES["disagree"][before[0]:][:3],
                             FIGURES["unsound"][before[1]:][:3],
                             FIGURES["missing"][before[2]:][:3])


def test_the_numpy_entry_is_the_op_whose_relation_says_so():
    """``np.linalg.inv`` of a bfloat16 tensor is one node, the Op with ``as_numpy``
    (before: a cast to float64, then ``inv``), and a float16 one is refused with NumPy's
    sentence by that relation."""
    x = kt.tensor("x", "bfloat16", (3, 3))
    y = np.linalg.inv(x)
    assert y.owner.op == kt.inv.bind(as_numpy=True) and y.owner.inputs == [x]
    assert y.type == kt.TensorType(str(np.linalg.inv(_array("bfloat16", np.eye(3))).dtype),
                                   (3, 3))
    with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
        np.linalg.inv(kt.tensor("h", "float16", (3, 3)))
    with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
        np.linalg.inv(np.eye(3, dtype=np.float16))


@pytest.mark.parametrize("dtype", ["float16", "int8", "bool", "bfloat16", "int4"])
@pytest.mark.parametrize("shape", [(0, 2), (2, 0), (3, 0, 0), (2, 2)], ids=str)
def test_pinv_of_empty_matrices_is_one_relation(shape, dtype):
    """np.linalg.pinv of empty matrices of a dtype NumPy reads as not inexact (float16,
    integers, bool, the low-precision ones): given back in their own dtype, as NumPy
    does (float16 refused where not empty, the others float); make_node, query,
    relation and refine agree, and backwards at every size of the box. Before, empty
    ones were refused."""
    op = _op("pinv", {})
    types = [kt.TensorType(dtype, shape)]
    with kt.default_dtype("float64"):
        outs = forward(op, types)
    try:
        want = np.linalg.pinv(np.eye(*shape[-2:]).astype(getattr(ml_dtypes, dtype, dtype)))
        want = np.broadcast_to(want, (*shape[:-2], *want.shape))
    except TypeError:
        want = None
    assert (None if outs is None else (outs[0].dtype, outs[0].shape)) == \
        (None if want is None else (str(want.dtype), want.shape))
    before = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    with kt.default_dtype("float64"):
        check_all_known(op, types, outs)
        if outs is not None:
            check_backwards(op, types, outs)
    after = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    assert after == before, (FIGURES["disagree"][before[0]:][:3],
                             FIGURES["unsound"][before[1]:][:3],
                             FIGURES["missing"][before[2]:][:3])

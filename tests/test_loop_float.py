"""``loopfloat(T, ...)``: the dtype a float ufunc computes in, judged by NumPy (under NumPy's
rules), by PyTorch's table (under kantensor's), and run backwards by the relation.

Under NumPy's rules (``eval_shape``) ``np.sqrt`` of int8 is float16 and ``np.arctan2`` of
an int8 array and a Python ``5`` float16 (NEP 50 reads the Python int as int8 before the
loop is picked); under kantensor's, PyTorch's: ``torch.sqrt`` of int8 is the default float.
"""

from __future__ import annotations

import itertools
import warnings
from contextlib import nullcontext

import numpy as np
import pytest

import kantensor as kt
from kantensor.query import pattern, query, var
from kantensor.types import dtypes as d
from kantensor.types.dtypes import Priority
from kantensor.types.numpyrules import loop_float_of, numpy_rules
from test_dtypes import PAIRS, operands

T, Z, W = Priority.TENSOR, Priority.ZERO_DIM, Priority.WRAPPED
NUMPY = [t for t in d.DEFAULT_RANGE if not d.is_low_precision(t)]
#: Python numbers as NumPy code has them, and the dtype each is wrapped as under NumPy's rules.
WEAK = [(True, "bool"), (5, "int64"), (2.5, "float64"), (1 + 2j, "complex128")]
UNARY = (np.sqrt, np.exp, np.log, np.sin, np.arctanh, np.fabs, np.deg2rad, np.exp2)
BINARY = (np.arctan2, np.hypot, np.logaddexp, np.logaddexp2)


def _numpy(f: np.ufunc, *args: object) -> str | None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(f(*args)).dtype.name
        except TypeError:  # (no loop: np.arctan2 of complex, np.fabs of complex)
            return None


def _operands() -> list[tuple[object, tuple[str, Priority]]]:
    return [(np.ones(2, t), (t, T)) for t in NUMPY] + \
        [(np.ones((), t)[()], (t, Z)) for t in NUMPY] + [(v, (t, W)) for v, t in WEAK]


def test_numpys_rule_is_numpys_loops() -> None:
    """Every operand (arrays, NumPy scalars, Python numbers) of the unary float ufuncs and
    every pair of the binary ones: NumPy's result dtype, wherever NumPy has a loop."""
    checked = 0
    for f in UNARY:
        for value, op in _operands():
            want = _numpy(f, value)
            if want is not None:
                assert loop_float_of([op], numpy=True) == want, (f.__name__, op)
                checked += 1
    for f in BINARY:
        for (a, oa), (b, ob) in itertools.product(_operands(), repeat=2):
            want = _numpy(f, a, b)
            if want is not None:
                assert loop_float_of([oa, ob], numpy=True) == want, (f.__name__, oa, ob)
                checked += 1
    assert checked == 3162  # (NumPy 2.4: the calls it has a loop for)


def test_kantensors_rule_is_pytorchs() -> None:
    """Under kantensor's rules a float op of an integer or bool promotion is the default
    float (``torch.atan2`` of int8 and uint8 is float32), of an inexact one that dtype:
    every pair of PyTorch's promotion table."""
    with d.default_dtype("float32"):  # (the tables' default)
        for row in PAIRS:
            ops = operands(row, "ab")
            want = row["result"] if d.is_inexact(row["result"]) else "float32"
            assert loop_float_of(ops, numpy=False) == want, ops
        assert loop_float_of([("int8", T)], numpy=False) == "float32"  # torch.sqrt(int8)


@pytest.mark.parametrize("rules", ["kantensor", "numpy"])
def test_the_ops_say_so(rules: str) -> None:
    """``np.sqrt`` on a symbolic tensor and ``kt.sqrt``: float16 of int8 under NumPy's rules,
    the default float under kantensor's; float(T) Ops (true_divide) keep float64."""
    x = kt.vector("x", "int8")
    if rules == "numpy":
        with numpy_rules():
            assert kt.sqrt(x).type.dtype == np.sqrt(x).type.dtype == "float16"
            assert kt.true_divide(x, x).type.dtype == "float64"
    else:
        with d.default_dtype("float32"):
            assert kt.sqrt(x).type.dtype == np.sqrt(x).type.dtype == "float32"


def _forward(op: object, dtypes: tuple[str, ...]) -> str | None:
    try:
        return op(*(kt.vector(f"v{i}", t) for i, t in enumerate(dtypes))).type.dtype
    except (TypeError, ValueError):
        return None


@pytest.mark.parametrize("rules", ["kantensor", "numpy"])
@pytest.mark.parametrize(("op", "ufunc"), [(kt.sqrt, np.sqrt), (kt.arctan2, np.arctan2)],
                         ids=["sqrt", "arctan2"])
def test_the_relation_runs_backwards(rules: str, op: object, ufunc: np.ufunc) -> None:
    """``kt.query`` from each output dtype back to the inputs' dtypes, under each rules, is
    exactly the inputs a brute force over every dtype (pair) sends there: built forward,
    and, under NumPy's rules for NumPy's dtypes, run by NumPy."""
    n = ufunc.nin
    names = [var(f"t{i}") for i in range(n)]
    inputs = list(itertools.product(d.DEFAULT_RANGE, repeat=n))
    with numpy_rules() if rules == "numpy" else nullcontext():
        forward = {ts: _forward(op, ts) for ts in inputs}
        if rules == "numpy":
            for ts in inputs:
                if all(t in NUMPY for t in ts):
                    assert forward[ts] == _numpy(ufunc, *(np.ones(2, t) for t in ts)), ts
        for out in {*filter(None, forward.values())}:
            sols = query(op, [pattern(v, (2,)) for v in names], [f"{out}[2]"])
            got = {tuple(s[f"t{i}"] for i in range(n)) for s in sols}
            assert got == {ts for ts, o in forward.items() if o == out}, out


def test_the_memo_keeps_the_defaults_apart() -> None:
    """Under kantensor's rules ``loopfloat`` of an integer is the default float: a build
    under one default is not the answer under another (nor under NumPy's rules)."""
    x = kt.vector("x", "int8")
    for default in ("float32", "float64", "float16", "float32"):
        with d.default_dtype(default):
            assert kt.sqrt(x).type.dtype == kt.arctan2(x, x).type.dtype == default
        with numpy_rules():
            assert kt.sqrt(x).type.dtype == "float16"

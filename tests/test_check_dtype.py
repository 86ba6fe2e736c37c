"""``function(..., check=True)`` compares NumPy's own result dtype with the inferred one,
before any cast (issue 38): Ops made with ``kt.op`` around NumPy functions, with dtype
rules right and wrong, on inputs of every dtype.

For each Op, NumPy's own dtype is computed by calling the NumPy function directly on the
arrays as the compute mode passes them (cast to the output dtype for ``"output"``, as
they are otherwise); ``check=True`` must raise OutputTypeError exactly when that dtype is
not the inferred one (for ``"wider"``: not a dtype of its category that holds it), and
otherwise return NumPy's values.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import NUMERIC_DTYPES
from differential import count
from kantensor.types.dtypes import category, is_lossless_cast

#: NumPy functions and the core signature of the Op around each.
FUNCTIONS = {
    "sqrt": (np.sqrt, "+():T->():{rule}"),
    "negative": (np.negative, "+():T->():{rule}"),
    "floor": (np.floor, "+():T->():{rule}"),
    "mean_last": (lambda x: x.mean(-1), "+(n):T->():{rule}"),
    "sum_last": (lambda x: x.sum(-1), "+(n):T->():{rule}"),
    "max_last": (lambda x: x.max(-1), "+(n):T->():{rule}"),
    "true_divide": (np.true_divide, "+():T,():U->():{rule}"),
    "floor_divide": (np.floor_divide, "+():T,():U->():{rule}"),
    "add": (np.add, "+():T,():U->():{rule}"),
}
RULES = ("T", "float(T)", "float64", "int64", "float32", "bool")
BINARY_RULES = ("promote(T,U)", "T", "float(promote(T,U))", "float64")
REAL = tuple(d for d in NUMERIC_DTYPES if not d.startswith("complex"))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FUNCTIONS)), st.data(),
       st.sampled_from(("none", "output", "wider")))
def test_check_raises_exactly_where_numpy_computes_another_dtype(name, data, mode):
    fn, text = FUNCTIONS[name]
    binary = text.count(":") == 3
    rule = data.draw(st.sampled_from(BINARY_RULES if binary else RULES))
    dtypes = [data.draw(st.sampled_from(REAL)) for _ in range(2 if binary else 1)]
    op = kt.op(text.format(rule=rule), name=name, compute=mode)(fn)
    inputs = [kt.tensor(f"x{i}", d, (2, 3)) for i, d in enumerate(dtypes)]
    try:
        y = op(*inputs)
    except (TypeError, ValueError):  # the rule refuses these dtypes
        return
    want = y.type.dtype
    arrays = [np.arange(1, 7).reshape(2, 3).astype(d) for d in dtypes]
    passed = [a.astype(want) for a in arrays] if mode == "output" else arrays
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            own = np.asarray(fn(*passed)).dtype.name
        except TypeError:  # NumPy has no loop for these (negative of bool): nor do we
            try:
                kt.function(inputs, y, check=True)(*arrays)
            except TypeError:
                return
            raise AssertionError(f"{name} ran where NumPy refuses") from None
        wrong = own != want and not (mode == "wider" and category(own) is category(want)
                                     and is_lossless_cast(want, own))
        try:
            got = kt.function(inputs, y, check=True)(*arrays)
        except kt.backend.OutputTypeError as exc:
            assert wrong, (name, rule, mode, dtypes, own, want, exc)
            assert f"its implementation computes {own}, but its type is {y.type}" in str(exc)
            count("check=True: a dtype rule NumPy does not follow refused")
            return
    assert not wrong, (name, rule, mode, dtypes, own, want)
    assert got.dtype == np.dtype(want)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert np.array_equal(got, np.asarray(fn(*passed)).astype(want), equal_nan=True)
    count("check=True: NumPy's own dtype, accepted")


def test_the_issue_reproducer():
    """An Op declared ``(n):T->():T`` around ``x.mean(-1)`` on int8: [1, 4] without the
    check (the cast), an OutputTypeError with it (NumPy computes [1.5, 4.5])."""
    mean_last = kt.op("+(n):T->():T", name="mean_last")(lambda x: x.mean(-1))
    x = kt.tensor("x", "int8", (2, 2))
    values = np.array([[1, 2], [4, 5]], np.int8)
    assert kt.function([x], mean_last(x))(values).tolist() == [1, 4]
    try:
        kt.function([x], mean_last(x), check=True)(values)
    except kt.backend.OutputTypeError as exc:
        assert "computes float64, but its type is int8[2]" in str(exc)
    else:
        raise AssertionError("check=True let a wrong dtype rule through")

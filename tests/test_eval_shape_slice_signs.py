"""A slice bound that is a size of no sign its form shows (``(K - N) // (N - K)``, ``N %
(K - N)``, ``N - K``) is read by Python's rule in traced code: its sign is asked as a
branch on sizes is, so each case counts it from the start or from the end, as NumPy
does, and the result holds exactly where NumPy runs, with NumPy's shape, at every ``N,
K`` in 0..5. Main read such a bound as counting from the start (the build's choice) and
left the sizes where it is negative uncovered: ``x[: (K - N) // (N - K)]`` at ``N == 0``
and ``x[: N % (K - N)]`` at ``N > K`` were not held where Python runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

BOUNDS = {
    "(K-N)//(N-K)": lambda n, k: (k - n) // (n - k), "N%(K-N)": lambda n, k: n % (k - n),
    "K-N": lambda n, k: k - n, "N-K": lambda n, k: n - k, "4//(N-K)": lambda n, k: 4 // (n - k),
}
FORMS = {
    "[:s]": lambda x, s: x[:s], "[s:]": lambda x, s: x[s:], "[1:s]": lambda x, s: x[1:s],
    "[s:-1]": lambda x, s: x[s:-1], "[s::-1]": lambda x, s: x[s::-1],
    "[:s:-1]": lambda x, s: x[:s:-1], "[s::2]": lambda x, s: x[s::2],
    "[::-1][s:]": lambda x, s: x[::-1][s:],
}
PROGRAMS = list(itertools.product(BOUNDS, FORMS))


def _program(bound, form):
    def fn(x, y):
        return FORMS[form](x, BOUNDS[bound](x.shape[0], y.shape[0])) * 2
    return fn


@pytest.mark.parametrize(("bound", "form"), PROGRAMS, ids=[f"x{f}, s={b}" for b, f in PROGRAMS])
def test_a_bound_of_no_shown_sign_is_read_as_python_reads_it(bound, form):
    fn = _program(bound, form)
    result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    for n, k in itertools.product(range(6), repeat=2):
        sizes = {"N": n, "K": k}
        try:
            want = fn(np.zeros(n, np.float32), np.zeros(k, np.float32)).shape
        except ZeroDivisionError:
            want = None
        assert result.holds(sizes) == (want is not None), sizes
        if want is not None:
            case = next((c for c in result.cases
                         if all(x.holds(sizes) for x in c.conditions)), result)
            assert tuple(substitute(d, sizes) for d in case.type.shape) == want, sizes


def test_the_briefs_two_slices_hold_where_python_runs():
    first = kt.eval_shape(lambda x, y: x[: (y.shape[0] - x.shape[0]) // (x.shape[0] -
                                                                           y.shape[0])],
                          "float32[N]", "float32[K]")
    assert first.holds({"N": 0, "K": 3})  # x[:-1] of an empty x
    second = kt.eval_shape(lambda x, y: x[: x.shape[0] % (y.shape[0] - x.shape[0])],
                           "float32[N]", "float32[K]")
    assert second.holds({"N": 3, "K": 1})  # x[:3 % -2] is x[:-1]


@pytest.mark.parametrize(("fn", "fails_at", "says"), [
    (lambda x: x[-x.shape[1]:], {"n": 3, "m": 0}, "counts from the start"),
    (lambda x: x[:x.shape[0] - 5], {"n": 3, "m": 2}, "counts from the end"),
], ids=["x[-m:]", "x[:n - 5]"])
def test_a_sign_choice_is_said_in_the_users_terms(fn, fails_at, says):
    """The assumption of a bound's sign reading says what NumPy computes where it fails
    (judged by NumPy there: another length than the type's), over the user's sizes and
    tensors: not the relation's own text (``0-(0-s0) >= 1``) nor the inputs that carry
    the sizes (``bool[m] = SizeOp()``)."""
    result = kt.eval_shape(fn, "float64[n,m]")
    (chosen,) = result.assumptions
    assert not chosen.holds(fails_at)
    typed = tuple(substitute(d, fails_at) for d in result.type.shape)
    ran = fn(np.zeros((fails_at["n"], fails_at["m"]))).shape
    assert ran != typed  # NumPy computes another length there
    text = repr(result)
    assert says in text and "NumPy computes another length" in text, text
    assert not any(w in text for w in ("s0", "SizeOp", "operand 1")), text

"""make_node over an input whose size is unknown (``float32[?]``) writes an output size
under the conditions it keeps: a divisor the Dim algebra keeps as ``0//u`` of that
unknown (``n//m - n//m + n`` is ``n + 0//m``) is 0 where the conditions show ``u >= 1``,
so the output is ``float32[i]`` under ``x1.shape[0] >= 1``, not unknown (``float32[?]``
since the algebra kept the divisor; an output size over an input's unknown is unknown).

Judged by brute force with Python's own arithmetic: at every i and every size m of the
unknown axis in 0..6 where the node's conditions hold, an output size make_node gives
(evaluated at i) is Python's value of the signature's expression; and where Python's
value is one for every such m (it does not depend on the unknown), make_node gives it.
"""

from __future__ import annotations

import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

AT = range(7)

#: (signature's output expressions over n and m, as Python computes them)
CASES = [
    "n//m - n//m + n",
    "max(n, n % m)",
    "n + 0*(n//m)",
    "n + min(2//m, 0)",
    "(n//m) % 1 + n",
    "n//m - n//m + n, m//2",
    "n, max(n, n % m) + 1",
    # divisors that may be negative, kept as `v != 0` (not `v >= 1`): review20C
    "n//(m - 1) - n//(m - 1) + n",
    "n + (3//(m - 1)) % 1",
    "n + 0*(n//(m - 3))",
]


def _python(expr: str, n: int, m: int) -> tuple | None:
    try:
        out = eval(f"({expr},)", {"max": max, "min": min}, {"n": n, "m": m})  # noqa: S307
    except ZeroDivisionError:
        return None
    return out if all(x >= 0 for x in out) else None


@pytest.mark.parametrize("expr", CASES)
def test_output_over_an_unknown_divisor_is_folded_under_its_conditions(expr):
    op = kt.op(f"(n),(m)->({expr})", name="divided")(lambda a, b: a)
    y = op(kt.TensorType.parse("float32[i]")("x0"), kt.TensorType.parse("float32[?]")("x1"))
    conditions = y.owner.conditions
    for i in AT:
        valid = {}
        for m in AT:
            env = {}
            for c in conditions:
                env.update({s: i if s == "i" else m for s in c.symbols()})
            try:
                holds = all(c.holds(env) for c in conditions)
            except ZeroDivisionError:
                holds = False
            want = _python(expr, i, m)
            assert holds == (want is not None), (expr, i, m, y.type, conditions)
            if holds:
                valid[m] = want
        for axis, size in enumerate(y.type.shape):
            values = {out[axis] for out in valid.values()}
            if size is None:  # unknown: only where Python's value depends on m
                assert len(values) > 1, (expr, i, axis, y.type, conditions, values)
                continue
            got = substitute(size, {"i": i}) if isinstance(size, kt.Dim) else size
            assert values <= {got}, (expr, i, axis, y.type, conditions, values)

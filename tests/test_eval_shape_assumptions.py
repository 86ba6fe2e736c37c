"""Named sizes are distinct in eval_shape: what a program needs of them is reported as
assumptions (the core's Conditions, each at the user's line), checked against NumPy at
every assignment of a box of sizes (0 and 1 included): the assumptions hold exactly
where NumPy runs, and there the output shape is NumPy's."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape import AssumptionError
from kantensor.types.symbols import substitute
from kantensor.types.tidy import plain


def project(x, w):
    h = x * 2
    return np.tanh(h @ w)


def step(v, dw):
    v -= 0.5 * dw
    return v


def add_into(x, y):
    np.add(x, y, out=x)
    return x


PROGRAMS = [
    (lambda x: x @ x, ["float32[N,D]"]),
    (project, ["float32[N,D]", "float32[K,M]"]),
    (lambda a, b: a + b, ["float32[N]", "float32[K]"]),
    (lambda a, b: np.concatenate([a, b], axis=1), ["float32[N,D]", "float32[K,M]"]),
    (lambda x: x.reshape(x.shape[0], 2, -1), ["float32[N,D]"]),
    (lambda x: x.reshape(x.shape[0], 3, x.shape[1] // 3), ["float32[N,D]"]),
    (lambda x, m: x[:, :4] * m, ["float32[N,D]", "float32[K]"]),
    (lambda x, w: (x - x.mean(axis=-1)) @ w, ["float32[N,D]", "float32[K,M]"]),
    (lambda q, k: np.einsum("nd,md->nm", q, k), ["float32[N,D]", "float32[M,K]"]),
    (lambda x, y: np.stack([x, y]), ["float32[N,D]", "float32[K,M]"]),
    (lambda x, y: np.where(x > 0, x, y), ["float32[N,D]", "float32[K]"]),
    (lambda x, i: x[i], ["float32[N,D]", "int64[K]"]),
    # a remainder by a size: tidying its condition substituted N = 0 and raised
    (lambda x: np.tile(x, 2)[1:].reshape(x.shape[0], -1), ["float32[N]"]),
    # a shape whose size divides by B - C: reading its sign at large sizes raised
    (lambda y, w: np.broadcast_to(w, w.reshape(y[w.shape[0]:].shape[0], -1).shape),
     ["float32[B]", "float32[C,B]"]),
    # a size divided by a size: Python raises ZeroDivisionError at D == 0 (covered there)
    (lambda x: x[: x.shape[0] // x.shape[1]], ["float32[N,D]"]),
    (lambda x: x[x.shape[0] % x.shape[1]:] * 2, ["float32[N,D]"]),
    # ... whose quotient cancels the divisor (N // N is 1, N % N is 0): NumPy never sees
    # it, the division itself asks N >= 1 (the types said every N valid)
    (lambda x: np.zeros((x.shape[0] // x.shape[0], 2)) + x[:1, None], ["float32[N]"]),
    (lambda x: x[: (2 * x.shape[0]) // x.shape[0]], ["float32[N,D]"]),
    (lambda x: x.reshape(x.shape[0] * x.shape[1] // x.shape[0], x.shape[0]), ["float32[N,D]"]),
    (lambda x: np.zeros(divmod(x.shape[0], x.shape[0])[1] + 1), ["float32[N]"]),
    # ... by a size that may be negative (N - K): Python divides by it, only 0 raises (the
    # division asked N - K >= 1: N < K was said to fail)
    (lambda x, y: (4 // (x.shape[0] - y.shape[0]), x * 2)[1], ["float32[N]", "float32[K]"]),
    (lambda x, y: (divmod(x.shape[0], y.shape[0] - x.shape[0]), x * 2)[1],
     ["float32[N]", "float32[K]"]),
    # ... whose quotient is then used: as a number, a slice stop, a size (each said
    # N - K >= 1, or D >= 3 for a remainder by D - 2, refusing N < K and D < 2)
    (lambda x, y: x * (4 // (x.shape[0] - y.shape[0])), ["float32[N]", "float32[K]"]),
    (lambda x, y: x[: 4 // (x.shape[0] - y.shape[0])], ["float32[N]", "float32[K]"]),
    (lambda x, y: x * divmod(x.shape[0], y.shape[0] - x.shape[0])[0],
     ["float32[N]", "float32[K]"]),
    (lambda x: x * (len(x) % (x.shape[1] - 2)), ["float32[N,D]"]),
    (lambda x: x[:, : len(x) // (x.shape[1] - 2) + 4], ["float32[N,D]"]),
    (lambda x: np.zeros(len(x) % (x.shape[1] - 2)), ["float32[N,D]"]),
    (lambda x: x * (len(x) / (x.shape[1] - 2)), ["float32[N,D]"]),
    (lambda x, y: x * (x.shape[0] / (x.shape[0] - y.shape[0])), ["float32[N]", "float32[K]"]),
    # a Python number divided by a size (a Python int in NumPy code): 2.0 / 0 raises
    (lambda x: x * (2.0 / x.shape[0]), ["float32[N]"]),
    (lambda x: x * x.shape[1] ** -0.5, ["float32[N,D]"]),
    # an index arange(T) (range(len(t)) in the code) looks up 0 .. T - 1: T <= L, not
    # only a non-empty axis
    (lambda w, t: w[range(len(t))], ["float32[L,D]", "float32[T]"]),
    (lambda w, t: w[np.arange(t.shape[0] - 1), 1:], ["float32[L,D]", "float32[T]"]),
    # a shape n - 2 (carried by n): NumPy refuses n < 2; nothing was assumed
    (lambda x: np.zeros(x.shape[0] - 2) + x[2:], ["float32[N]"]),
    # a size divided by itself is 1 where Python does not raise (N / N at N == 0 raised
    # ZeroDivisionError; nothing was assumed, as N // N assumes N >= 1)
    (lambda x: x * (x.shape[0] / x.shape[0]), ["float32[N]"]),
    (lambda x: x[: int(x.shape[1] / x.shape[1])], ["float32[N,D]"]),
    # math's functions of a size raise "math domain error" outside their domain
    # (math.log(0), math.sqrt(-1)); nothing was assumed
    (lambda x: x * math.log(x.shape[0]), ["float32[N]"]),
    (lambda x: x / math.sqrt(x.shape[0] - 3), ["float32[N]"]),
    (lambda x, y: x * math.log2(x.shape[0] - y.shape[0]), ["float32[N]", "float32[K]"]),
    (lambda x: x * math.log10(x.shape[0] / 2 - 1), ["float32[N]"]),
    (lambda x: x * math.log1p(x.shape[0] / 2 - 2), ["float32[N]"]),
    (lambda x: x * math.sqrt(3 - x.shape[0]), ["float32[N]"]),
    # a size used as a number is a Python int: NumPy 2 refuses one an integer dtype cannot
    # hold (OverflowError: -3 for uint8 at N == 0); nothing was assumed
    (lambda x: np.minimum(x, x.shape[0] - 3), ["uint8[N]"]),
    (lambda x: x + 100 * x.shape[0], ["uint8[N]"]),
    (lambda x, y: x % (x.shape[0] - y.shape[0]), ["int8[N]", "float32[K]"]),
    # v -= dw writes into v: dw broadcasts onto v's shape (D == N here), not only with it
    # a split's exact quotient D/3 then reshaped by 4: (D//3) % 4 == 0 holds at D == 1,
    # where the split's D % 3 == 0 fails (the facts read D/3 as exact, holds as a floor)
    (lambda x: np.split(x, 3, axis=-1)[0].reshape(x.shape[0], 4, -1), ["float32[N,D]"]),
    (step, ["float32[N,D]", "float32[D,N]"]),
    (step, ["float32[N,D]", "float32[K]"]),
    (add_into, ["float32[N,D]", "float32[D,N]"]),
]


def _names(types):
    return list(dict.fromkeys(d.name for t in types for d in kt.TensorType.parse(t).shape
                              if isinstance(d, kt.Dim)))


def _numpy(fn, types, sizes):
    arrays = []
    for t in map(kt.TensorType.parse, types):
        shape = [sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape]
        arrays.append(np.zeros(shape, t.dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*arrays)


def _box(fn, types):
    """Each assignment of the sizes 0..4 to the types' names, with NumPy's result of
    ``fn`` there (None where NumPy refuses)."""
    names = _names(types)
    for values in itertools.product(range(5), repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        try:
            out = _numpy(fn, types, sizes)
        except (ValueError, IndexError, ZeroDivisionError, OverflowError):
            out = None
        yield sizes, out


@pytest.mark.parametrize(("fn", "types"), PROGRAMS, ids=range(len(PROGRAMS)))
def test_assumptions_hold_exactly_where_numpy_runs(fn, types):
    result = kt.eval_shape(fn, *types)
    assert result.assumptions, "every program here needs something of its sizes"
    assert all(isinstance(a, kt.Condition | kt.AnyOf) for a in result.assumptions)
    for sizes, out in _box(fn, types):
        if out is None:
            assert not result.holds(sizes), sizes
            continue
        assert result.holds(sizes), sizes
        case = next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                    result)  # (of a program that branched, the case the sizes are in)
        want = tuple(substitute(d, sizes) for d in case.type.shape)
        assert want == out.shape, sizes


#: Powers of sizes: a size that may be negative to a Python float power that is not an
#: integer is a complex number in Python ((-2) ** 0.5), and NumPy's result complex
ROOTS = [
    (lambda x, y: x * (x.shape[0] - y.shape[0]) ** -0.5, ["float32[N]", "float32[K]"]),
    (lambda x, y: x * (x.shape[0] - y.shape[0]) ** 0.5, ["float32[N]", "float32[K]"]),
    (lambda x: x * (x.shape[1] - 2) ** 1.5, ["float32[N,D]"]),
    # an integral float power of a negative size is a float; of a size, no condition
    (lambda x, y: x * (x.shape[0] - y.shape[0] - 1) ** -1.0, ["float32[N]", "float32[K]"]),
    (lambda x, y: x * (x.shape[0] - y.shape[0]) ** 2.0, ["float32[N]", "float32[K]"]),
    (lambda x: x * x.shape[1] ** 0.5, ["float32[N,D]"]),
    # an int to a size's power is an int (N ** K), a float where the size is negative
    # (2 ** (N - K) at N < K is 0.25: an int32 array times it is float64, in NumPy and
    # in eval_shape; main assumed N >= K)
    (lambda x, y: x.astype(np.int32) * x.shape[0] ** y.shape[0], ["float32[N]", "float32[K]"]),
    (lambda x, y: x.astype(np.int32) * 2 ** (x.shape[0] - y.shape[0]),
     ["float32[N]", "float32[K]"]),
    (lambda x, y: x.astype(np.int32) * (x.shape[0] - 1) ** (x.shape[0] - y.shape[0]),
     ["float32[N]", "float32[K]"]),
]


@pytest.mark.parametrize(("fn", "types"), ROOTS, ids=range(len(ROOTS)))
def test_where_the_assumptions_hold_numpy_gives_the_dtype_and_shape(fn, types):
    """Where the assumptions hold, NumPy runs and gives the type's dtype and shape (a
    complex result is not a float32 one: main assumed only ``N - K != 0`` of
    ``(N - K) ** -0.5``, and nothing of ``(N - K) ** 0.5``); where a size to a float
    power is an integer's, it is refused only where NumPy refuses."""
    result = kt.eval_shape(fn, *types)
    for sizes, out in _box(fn, types):
        if out is None:
            assert not result.holds(sizes), sizes
            continue
        case = next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                    result)  # (2 ** (N - K): an int at N >= K, a float below)
        if out.dtype != case.type.dtype:
            assert not result.holds(sizes), (sizes, out.dtype)
            continue
        assert result.holds(sizes), sizes
        assert tuple(substitute(d, sizes) for d in case.type.shape) == out.shape, sizes


def test_an_assumption_names_the_op_the_users_line_and_the_operands():
    result = kt.eval_shape(project, "float32[N,D]", "float32[K,M]")
    (need,) = result.assumptions
    assert str(need) == "D == K" and need.source.op == "matmul"
    line = project.__code__.co_firstlineno + 2
    assert need.source.location.endswith(f"test_eval_shape_assumptions.py:{line}")
    assert need.source.code == "return np.tanh(h @ w)"
    detail = need.source.detail
    assert detail.startswith("D is axis 1 of h; K is axis 0 of w; operand 0: h: "
                             "float32[N,D] = mul(x, 2) at ")
    assert f"= mul(x, 2) at {__file__}, line {line - 1}" in detail  # where h was made
    assert "from x: float32[N,D] (an input)" in detail
    assert repr(result).startswith("ShapeResult(float32[N,M]), assuming:\n  D == K (matmul at")
    html = result._repr_html_()
    assert "assuming" in html and "D == K" in html and html.index("D == K") < html.index(
        "<table")
    assert result.holds({"N": 2, "D": 3, "K": 3, "M": 4})
    assert not result.holds({"N": 2, "D": 3, "K": 4, "M": 4})
    with pytest.raises(ValueError, match="needs a value for"):
        result.holds({"N": 2})


def test_x_at_x_keeps_both_names_and_assumes():
    """The issue's first example: ``x @ x`` of ``[N,D]`` was ``[N,N]`` without a word."""
    result = kt.eval_shape(lambda x: x @ x, "float32[N,D]")
    assert str(result.type) == "float32[N,D]"
    assert [str(a) for a in result.assumptions] == ["D == N"]


def test_assume_error_raises_at_the_first_and_allow_reports_none():
    with pytest.raises(AssumptionError, match=r"eval_shape\(project\) assumes D == K "
                                              r"\(matmul at .*:\d+: return np.tanh") as info:
        kt.eval_shape(project, "float32[N,D]", "float32[K,M]", assume="error")
    assert isinstance(info.value, kt.TypeInferenceError)
    assert str(info.value.assumption) == "D == K"
    allowed = kt.eval_shape(project, "float32[N,D]", "float32[K,M]", assume="allow")
    assert allowed.assumptions == () and str(allowed.type) == "float32[N,M]"
    fine = kt.eval_shape(project, "float32[N,D]", "float32[D,M]", assume="error")
    assert fine.assumptions == ()  # the same name: tied, nothing assumed
    with pytest.raises(ValueError, match="assume must be one of report, error, allow"):
        kt.eval_shape(project, "float32[N,D]", "float32[K,M]", assume="warn")


def test_what_is_given_is_not_assumed():
    given = kt.eval_shape(project, "float32[N,D]", "float32[K,M]", where="K == D")
    assert given.assumptions == ()
    some = kt.eval_shape(lambda a, b: a + b, "float32[N]", "float32[K]", where="K >= 2")
    assert [str(a) for a in some.assumptions] == ["N == K or N == 1"]
    facts = kt.Facts([kt.Condition(kt.Dim("N"), "==", 1)])
    assert kt.eval_shape(lambda a, b: a + b, "float32[N]", "float32[K]",
                         where=facts).assumptions == ()
    one = kt.Condition(kt.Dim("K"), "==", 1)
    for where in (one, [one], kt.Facts([one])):
        assert kt.eval_shape(lambda a, b: a + b, "float32[N]", "float32[K]",
                             where=where).assumptions == ()
    with pytest.raises(ValueError, match="cannot meet"):
        kt.eval_shape(project, "float32[N,D]", "float32[K,M]", where="K < 2 and K > 3")
    with pytest.raises(ValueError, match="is not a comparison of two sizes"):
        kt.eval_shape(project, "float32[N,D]", "float32[K,M]", where="K")


def test_sizes_tied_by_the_user_need_no_assumption():
    N, D = kt.dims("N D", where="D == 2*N")
    assert (N, D) == (kt.Dim("N"), 2 * kt.Dim("N"))
    x, w = kt.TensorType("float32", (N, D)), kt.TensorType("float32", (D, 3))
    pairs = kt.eval_shape(lambda x: x.reshape(x.shape[0], x.shape[0], 2), x)
    assert str(pairs.type) == "float32[N,N,2]" and pairs.assumptions == ()
    untied = kt.eval_shape(lambda x: x.reshape(x.shape[0], x.shape[0], 2), "float32[N,D]")
    assert [str(a) for a in untied.assumptions] == ["N == 0 or D == 2*N"]  # N may be 0
    product = kt.eval_shape(lambda x, w: x @ w, x, w, assume="error")
    assert str(product.type) == "float32[N,3]"
    with pytest.raises(ValueError, match="does not tie a name"):
        kt.dims("N D", where="D > N")


def test_each_case_of_a_branch_has_its_assumptions():
    def pick(x, w):
        if x.shape[0] > 1:
            return x @ w
        return x

    result = kt.eval_shape(pick, "float32[L,D]", "float32[K,M]")
    first, second = result.cases
    assert [str(a) for a in first.assumptions] == ["D == K"] and second.assumptions == ()
    assert result.holds({"L": 1, "D": 2, "K": 3, "M": 4})  # no product in that case
    assert not result.holds({"L": 2, "D": 2, "K": 3, "M": 4})
    assert "L > 1: float32[L,M] assuming D == K" in repr(result)


def test_the_same_program_twice_reports_the_same():
    """Builds are cached (an Op family's cached calls, make_node's memo): the second
    trace of a program reports what the first did."""
    def backward(dout, x):
        return np.dot(x.T, dout)

    reports = [[str(a) for a in kt.eval_shape(backward, "float64[N,S]", "float64[D,N]")
                .assumptions] for _ in range(3)]
    assert reports == [["D == N"]] * 3


def test_a_condition_on_one_size_is_said_as_its_bound():
    """``2*N >= 1`` (a reshape's -1 of an empty tensor) is reported as ``N >= 1``, the
    same set of sizes: checked at every size 0..29 for random linear conditions."""
    N = kt.Dim("N")
    rng = random.Random(34)
    for _ in range(500):
        left = rng.choice([-3, -2, -1, 1, 2, 3]) * N + rng.randint(-7, 7)
        right = rng.choice([0, 0, 1, -1, 2]) * N + rng.randint(-5, 5)
        op = rng.choice(["==", "!=", "<", "<=", ">", ">="])
        if isinstance(left - right, int):
            continue
        cond = kt.Condition(left, op, right)
        said = plain(cond)
        assert all(cond.holds({"N": n}) == said.holds({"N": n}) for n in range(30)), cond
    result = kt.eval_shape(lambda x: x.reshape(x.shape[0], 2, -1), "float32[N,D]")
    assert [str(a) for a in result.assumptions] == ["N >= 1", "D % 2 == 0"]


def test_assumptions_and_types_read_plainly():
    """What the relations make, in the form people write (equivalent at every size,
    0 included): an index pair of one length gives that length, a reshape's product
    check is a remainder, a broadcast against a slice is a bound."""
    pair = kt.eval_shape(lambda x, i, j: x[i, j], "float32[A,B]", "int64[n]", "int64[n]")
    assert str(pair.type) == "float32[n]"  # not n*min(1,n)
    assert [str(a) for a in pair.assumptions] == ["min(1, n) <= A", "min(1, n) <= B"]
    def thirds(x):
        return x.reshape(x.shape[0], 3, x.shape[1] // 3)

    def guessed(x):
        return x.reshape(x.shape[0], 3, -1)  # -1 of an empty array: NumPy refuses

    found = kt.eval_shape(thirds, "float32[N,D]")
    assert [str(a) for a in found.assumptions] == ["N == 0 or D % 3 == 0"]
    minus = kt.eval_shape(guessed, "float32[N,D]")
    assert [str(a) for a in minus.assumptions] == ["N >= 1", "D % 3 == 0"]
    for n, d in itertools.product(range(4), range(7)):  # NumPy agrees, 0 included
        for fn, result in ((thirds, found), (guessed, minus)):
            try:
                fn(np.zeros((n, d)))
                runs = True
            except ValueError:
                runs = False
            assert result.holds({"N": n, "D": d}) == runs, (fn.__name__, n, d)


def test_holds_is_false_where_an_assumption_divides_by_zero():
    """``N % K == 0`` at K = 0 divides by zero: holds says False (as a contract does),
    where no earlier assumption guards it (a case's, after a disjunction that held)."""
    r = kt.eval_shape(lambda x, y: x.reshape(len(y), -1), "float32[N]", "float32[K]")
    alone = dataclasses.replace(r, assumptions=r.assumptions[1:])
    assert [str(a) for a in alone.assumptions] == ["N % K == 0"]
    assert alone.holds({"N": 3, "K": 0}) is False
    assert alone.holds({"N": 4, "K": 2}) is True


#: int() of a size's fraction truncates toward zero, as Python's does: int((n - 3) / 3) is
#: 0 at n < 3, where floor division gives -1 (a shape of 0 where NumPy's is 1)
TRUNCATED = [
    (lambda x: np.zeros(int((x.shape[0] - 3) / 3) + 1), ["float32[N]"]),
    (lambda x, y: x[: int((x.shape[0] - y.shape[0]) / 2) + 2], ["float32[N]", "float32[K]"]),
    (lambda x: np.ones((int(x.shape[0] / 2), int((1 - x.shape[0]) / 2) + 3)), ["float32[N]"]),
    # round() of a size's fraction rounds a tie to the even int, as Python's does:
    # round(1 / 2) is 0 and round(5 / 2) is 2 (each was rounded up)
    (lambda x: np.zeros(round(x.shape[0] / 2)), ["float32[N]"]),
    (lambda x, y: x[: round((x.shape[0] + 3 * y.shape[0]) / 4)], ["float32[N]", "float32[K]"]),
]


@pytest.mark.parametrize(("fn", "types"), TRUNCATED, ids=range(len(TRUNCATED)))
def test_int_and_round_of_a_fraction_are_pythons(fn, types):
    result = kt.eval_shape(fn, *types)
    for sizes, out in _box(fn, types):
        assert result.holds(sizes) == (out is not None), sizes
        if out is None:
            continue
        case = next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                    result)
        assert tuple(substitute(d, sizes) for d in case.type.shape) == out.shape, sizes

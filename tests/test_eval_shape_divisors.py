"""Python numbers divided by numbers made of sizes, and floats made of sizes given as
shapes, in eval_shape, judged by Python and NumPy at every assignment of the sizes 0..4.

A size is a Python int in NumPy code, and ``N / 2``, ``N * 0.5``, ``(N - K) / 3`` are
Python floats: ``2.0 / (N / 2)`` raises ZeroDivisionError at ``N == 0`` (as do ``//``,
``%`` and ``divmod``), so the result must hold exactly where Python runs; and NumPy
refuses a float as a shape, a count or an index even where its value is an integer
(``np.zeros(N / 2 * 2)``: TypeError), so a float of sizes must never be typed as a size.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

#: Divisors made of sizes (x is float32[N], y float32[K]).
DIVISORS = ["x.shape[0]", "x.shape[0] / 2", "x.shape[0] * 0.5", "x.shape[0] - y.shape[0]",
            "(x.shape[0] - y.shape[0]) / 3", "x.shape[0] // 2", "x.shape[0] % 3",
            "len(x) - 1", "x.shape[0] ** 0.5", "(x.shape[0] / 2) ** 1.5"]

#: The divisions, of a float and of an int numerator.
DIVISIONS = ["{a} / ({b})", "{a} // ({b})", "{a} % ({b})", "divmod({a}, {b})[0]",
             "divmod({a}, {b})[1]"]

PROGRAMS = [f"lambda x, y: x * ({d.format(a=a, b=b)})"
            for b, d, a in itertools.product(DIVISORS, DIVISIONS, ["2.0", "3"])]


def _outcome(fn, sizes):
    """``fn``'s output at ``sizes`` (N and K), or None where Python or NumPy raises."""
    x, y = np.zeros(sizes["N"], "float32"), np.zeros(sizes["K"], "float32")
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return np.asarray(fn(x, y))
    except (ValueError, ZeroDivisionError, TypeError, IndexError):
        return None


def _judged(source):
    """eval_shape's result of the program ``source`` against Python at every N, K in
    0..4: holds exactly where it runs, and there gives its shape; the program and the
    result."""
    fn = eval(source, {"np": np, "math": math})
    result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    for n, k in itertools.product(range(5), repeat=2):
        sizes = {"N": n, "K": k}
        out = _outcome(fn, sizes)
        assert result.holds(sizes) == (out is not None), (source, sizes)
        if out is not None:
            case = next((c for c in result.cases
                         if all(a.holds(sizes) for a in c.conditions)), result)
            shape = tuple(substitute(d, sizes) for d in case.type.shape)
            assert shape == out.shape, (source, sizes)
    return fn, result


@pytest.mark.parametrize("source", PROGRAMS)
def test_a_division_by_a_number_of_sizes_holds_exactly_where_python_runs(source):
    """``2.0 / (N / 2)``, ``3 % (N * 0.5)``, ``2.0 // ((N - K) / 3)`` were said to hold at
    ``N == 0`` or ``N == K`` (nothing was assumed of a divisor that is a float of
    sizes); ``%`` and ``divmod`` by ``N / 2`` and ``divmod`` by ``N * 0.5`` were refused
    everywhere, and ``3 // ((N - K) / 3)`` at ``N < K``, where Python runs; ``2.0 / N **
    0.5`` was said to hold at ``N == 0``."""
    _judged(source)


#: Floats made of sizes whose value is a size (or not).
FLOATS = ["x.shape[0] / 2 * 2", "x.shape[0] / 1", "(x.shape[0] - y.shape[0]) / 3 * 3",
          "x.shape[0] / 2 // 1", "x.shape[0] / 2 % 4", "x.shape[0] / x.shape[0]",
          "x.shape[0] * 0.5 * 2", "float(x.shape[0])"]

#: What takes a shape, a count or an index; NumPy refuses a float in each.
USES = ["np.zeros({e})", "np.ones(({e}, 2))", "np.empty({e})", "np.full({e}, 1.0)",
        "x.reshape({e})", "x.reshape({e}, -1)", "np.broadcast_to(x[:1], ({e},))",
        "np.tile(x, {e})", "np.repeat(x, {e})", "x[:{e}]", "x[{e}:]", "x[range({e})]",
        "x[{e}]", "np.eye({e})", "np.tri({e})", "np.random.rand({e})",
        "np.identity({e})", "np.zeros((2, {e}))", "np.linspace(0, 1, {e})"]


@pytest.mark.parametrize(("use", "value"), list(itertools.product(USES, FLOATS)))
def test_a_float_of_sizes_is_no_shape(use, value):
    """Where eval_shape's result holds, NumPy runs and gives its shape: NumPy refuses a
    float shape, count or index (TypeError), and eval_shape refuses it (``np.zeros(N / 2
    * 2)`` was float64[N], ``x[:N / 1]`` float32[N], ``np.eye(N / 2 // 1)``
    float64[N//2,N//2]: a fraction whose denominator divided its numerator became the
    size; ``np.repeat``, which NumPy gives an integral float, is refused, no wrong
    answer)."""
    source = "lambda x, y: " + use.format(e=value)
    fn = eval(source, {"np": np, "math": math})
    try:
        result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    except (TypeError, IndexError, ValueError):
        return
    for n, k in itertools.product(range(5), repeat=2):
        sizes = {"N": n, "K": k}
        if result.holds(sizes):
            out = _outcome(fn, sizes)
            assert out is not None, (source, sizes)
            assert tuple(substitute(d, sizes) for d in result.type.shape) == out.shape


def test_a_float_of_sizes_computes_as_pythons_float():
    """``N / 2 * 2`` is a float: an int array times it is a float array (as NumPy's), and
    ``int()``, ``math.floor`` and ``round`` of it are the size."""
    r = kt.eval_shape(lambda x: (x.astype(np.int32) * (x.shape[0] / 2 * 2),
                                 np.zeros(int(x.shape[0] / 2 * 2)),
                                 np.zeros(math.floor(x.shape[0] / 1)),
                                 np.zeros(round(x.shape[0] / x.shape[0]))),
                      "float32[N]")
    assert r.type[0].dtype.startswith("float")
    assert [str(t) for t in r.type[1:]] == ["float64[N]", "float64[N]", "float64[1]"]


#: Branches on a float of sizes: its truth and its comparisons with a float.
TESTS = ["{e}", "not ({e})", "{e} == 1.5", "{e} != 2.0", "{e} == 2.0", "{e} > 0.75",
         "{e} <= 1.5", "{e} == float('nan')", "{e} < float('inf')", "{e} == np.float64(1.5)"]


@pytest.mark.parametrize(("test", "value"),
                         list(itertools.product(TESTS, FLOATS[:5] + [
                             "x.shape[0] / 2", "x.shape[0]", "x.shape[0] - y.shape[0]"])))
def test_a_branch_on_a_float_of_sizes_is_pythons(test, value):
    """``if N / 2:`` is false at ``N == 0`` (a Ratio was always true: ``N / 1``, a size
    before it stayed a float, split the cases, now typed one way at every N), and ``N / 2
    == 1.5`` is true at ``N == 3`` (an unequal type was always unequal; ``N / 1 > 0.75``
    was refused; a size, an int, was unequal to every float, ``N == 2.0`` too, and
    refused beside an infinity): each case of the branch where Python takes it."""
    source = f"lambda x, y: np.zeros(3) if {test.format(e=value)} else np.zeros(5)"
    compares = test not in ("{e}", "not ({e})") and "float(" not in test
    if value in ROUNDED and compares:  # (see test_a_float_rounded_twice_is_refused)
        with pytest.raises(TypeError, match="rounded"):
            kt.eval_shape(eval(source, {"np": np}), "float32[N]", "float32[K]")
        return
    _judged(source)


#: Floats of sizes Python rounds in two steps, the first inexact (``n / 3 + y / 3`` is
#: refused even where its integer part comes out exact: conservative, never wrong).
ROUNDED = ["(x.shape[0] - y.shape[0]) / 3 * 3", "x.shape[0] / 49 * 49",
           "x.shape[0] / 3 + y.shape[0] / 3", "(x.shape[0] / 10) * 10 - 0",
           "(x.shape[0] / 3 + 1) / 5"]

#: Floats of sizes Python rounds once, or exactly (a denominator a power of 2), or an
#: inexact one plus an exact one (an integer only where both are exact).
ONCE = ["x.shape[0] / 49", "x.shape[0] / 4 * 3 + 1", "-x.shape[0] / 7",
        "x.shape[0] / 3 + 1", "(x.shape[0] - 1) / 3 - y.shape[0] / 2",
        "(x.shape[0] + y.shape[0]) / 10", "x.shape[0] / 2 / 2 * 5"]

#: What reads an integer part or an order of a float.
READS = ["np.zeros(int({e}))", "np.zeros(math.floor({e}) % 7)", "np.zeros(math.ceil({e}))",
         "np.zeros(round({e}))", "np.zeros(3) if {e} < 2 else np.zeros(5)",
         "np.zeros(3) if {e} == 2 else np.zeros(5)"]


def _holds_where_numpy_says(source, sizes):
    """eval_shape's result of ``source`` is NumPy's at every size in ``sizes`` (x is
    float32[N], y float32[K]), or eval_shape refused it as rounded."""
    fn = eval(source, {"np": np, "math": math})
    try:
        result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    except TypeError as exc:
        assert "rounded" in str(exc), source
        return False
    for n, k in sizes:
        sizes = {"N": n, "K": k}
        out = _outcome(fn, sizes)
        if out is None or not result.holds(sizes):
            assert result.holds(sizes) == (out is not None), (source, sizes)
            continue
        case = next((c for c in result.cases
                     if all(a.holds(sizes) for a in c.conditions)), result)
        assert tuple(substitute(d, sizes) for d in case.type.shape) == out.shape, (
            source, sizes)
    return True


@pytest.mark.parametrize(("read", "value"), list(itertools.product(READS, ROUNDED + ONCE)))
def test_a_float_rounded_twice_is_refused(read, value):
    """Python rounds ``n / 49`` and then ``* 49``: ``int(n / 49 * 49)`` is 0 at n == 1 and 3
    at n == 4, where kantensor's exact fraction said n (float64[n]); each such read is
    refused, and a float rounded once (or exactly) is typed as NumPy gives, judged at
    every N in 0..120 (K in 0..2)."""
    typed = _holds_where_numpy_says("lambda x, y: " + read.format(e=value),
                                    itertools.product(range(121), range(3)))
    assert typed == (value in ONCE)


#: A remainder by a size written out (``N - N//K*K``), or the whole chunks it leaves (the
#: idiom ``x[:N//K*K].reshape(-1, K)``).
REMAINDERS = ["lambda x, y: x[: len(x) - len(x) // len(y) * len(y)]",
              "lambda x, y: np.zeros(len(x) - len(x) // len(y) * len(y)) + 1",
              "lambda x, y: x[len(x) // len(y) * len(y):]",
              "lambda x, y: x[: len(x) // len(y) * len(y)].reshape(-1, len(y))",
              "lambda x, y: x[: x.shape[0] // y.shape[0] * y.shape[0]]"
              ".reshape(-1, y.shape[0]).sum(1)"]


@pytest.mark.parametrize("source", REMAINDERS)
def test_a_remainder_written_out_is_a_size(source):
    """``N - K*(N//K)`` is ``N % K``, in ``0 .. K - 1`` where ``K >= 1``: the slice it
    bounds has a size (it split on that size's sign, a case of ``?``), and nothing is
    assumed of it that NumPy does not need (``N - K*(N//K) >= 0``, ``min(K*(N//K), N) %
    K == 0`` were): each assumption fails at some N, K in 0..4 where the others hold and
    Python or NumPy raises."""
    _each_needed(source)


#: A stride by a size (``x[::K]``: ``(K + N - 1)//K`` elements) and the whole chunks an
#: idiom leaves (``N - N % K``, ``N + (-N) % K``: multiples of ``K``).
CHUNKS = ["lambda x, y: x[::len(y)]",
          "lambda x, y: x[::len(y)].reshape(-1, 1)",
          "lambda x, y: x[: len(x) - len(x) % len(y)].reshape(-1, len(y))",
          "lambda x, y: np.pad(x, (0, -len(x) % len(y))).reshape(-1, len(y))"]


@pytest.mark.parametrize("source", CHUNKS)
def test_a_stride_or_whole_chunks_assume_only_what_numpy_needs(source):
    """A floor quotient of a numerator ``>= 0`` by a size ``>= 1`` is ``>= 0``
    (``(K + N - 1)//K >= 0`` under ``K >= 1`` was assumed), and ``N - N % K`` is
    ``K*(N//K)``, a multiple of ``K`` (``(N - N % K) % K == 0`` was assumed): each
    assumption left, read by Python as written, is false at some N, K in 0..4 (those
    held wherever Python could evaluate them)."""
    fn, result = _judged(source)
    assert None not in result.type.shape
    boxes = [{"N": n, "K": k} for n, k in itertools.product(range(5), repeat=2)]
    for need in result.assumptions:
        assert any(_python(need, s) is False for s in boxes), need


def _python(need, sizes):
    """``need`` at ``sizes`` as Python evaluates its text (None: a division by 0)."""
    try:
        return bool(eval(str(need), {}, dict(sizes)))
    except ZeroDivisionError:
        return None


def _each_needed(source):
    """``source`` judged (:func:`_judged`), of a known shape, each assumption needed."""
    fn, result = _judged(source)
    assert None not in result.type.shape
    boxes = [{"N": n, "K": k} for n, k in itertools.product(range(5), repeat=2)]
    for need in result.assumptions:  # (each needed: broken where the others hold)
        others = [a for a in result.assumptions if a is not need]
        assert any(not _safely(need, s) and all(_safely(a, s) for a in others) and
                   _outcome(fn, s) is None for s in boxes), need


def _safely(need, sizes):
    try:
        return need.holds(sizes)
    except ZeroDivisionError:
        return False

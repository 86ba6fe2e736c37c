"""eval_shape of NumPy functions that were refused by name ("kantensor has no Op for it"):
np.nonzero, np.where(c), np.argwhere, np.flatnonzero, np.compress, np.unique_values, np.unique (a
length the data decide: ``?``, one count shared by nonzero's arrays), np.broadcast_arrays,
np.lexsort, np.cumsum/np.cumprod with ``dtype=``, and np.pad's modes other than constant
(an axis that grows must not be empty; one element is enough, reflect included).

Judged by NumPy: every program at every size of a box that includes 0 and 1
(tests/npprograms.judge: where the result holds NumPy runs and gives its shape and
dtype, where it does not NumPy fails), and the graph eval_shape builds computed on
random values at sizes that all differ, against NumPy's own values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute
from npprograms import BOX, _sized, judge, returning

PROGRAMS = [
    ("np.nonzero(x0)[0]", ["float32[A,B]"]),
    ("np.nonzero(x0)[1] + np.nonzero(x0)[0]", ["int8[A,B]"]),
    ("np.stack(np.nonzero(x0))", ["bool[A,B,2]"]),
    ("x0[np.nonzero(x0)]", ["float64[A,B]"]),
    ("np.where(x0)[0]", ["uint8[A]"]),
    ("x0.nonzero()[0]", ["float32[A,B]"]),
    ("np.argwhere(x0)", ["float32[A,B]"]),
    ("np.argwhere(x0)", ["int8[]"]),
    ("np.argwhere(x0).sum(axis=0)", ["complex64[A,3]"]),
    ("np.flatnonzero(x0)", ["float16[A,B]"]),
    ("x0.ravel()[np.flatnonzero(x0)]", ["int32[A,B]"]),
    ("np.compress(x1 > 0, x0, axis=1)", ["float32[A,B]", "int8[B]"]),
    ("np.compress([True, False], x0, axis=-1)", ["int8[A,3]"]),
    ("np.compress([1, 0, 2], x0)", ["float32[A]"]),
    ("np.compress([True], x0, axis=0)", ["float32[]"]),
    ("np.compress(x1[0], x0)", ["float32[A]", "bool[B,A]"]),
    ("x0.compress(x1 > 0)", ["float32[A]", "float32[A]"]),
    ("np.compress(x0 > 0, np.arange(5.0))", ["float32[A]"]),  # (A <= 5)
    ("np.unique_values(x0)", ["float32[A,B]"]),
    ("np.unique_values(x0) * 2", ["uint8[]"]),
    ("len(np.unique_values(x0)) + x0", ["int8[A]"]),
    ("np.unique(x0)", ["float32[A,B]"]),
    ("np.unique(x0, equal_nan=False) * 2", ["uint8[]"]),
    ("np.broadcast_arrays(x0, x1)[0]", ["float32[A,1]", "int8[B]"]),
    ("np.broadcast_arrays(x0, x1)[1]", ["float32[A]", "int8[B]"]),
    ("np.broadcast_arrays(x0, x1, x0)[2]", ["bool[A,B]", "float16[B]"]),
    ("np.broadcast_arrays(x0)[0]", ["float32[A]"]),
    ("np.broadcast_arrays(x0, 2.0)[1]", ["float32[A,1]"]),
    ("np.broadcast_arrays(np.zeros(3, np.int8), x0)[0]", ["float32[A,1]"]),
    ("np.lexsort((x0, x1))", ["float32[A,B]", "int8[A,B]"]),
    ("np.lexsort((x0, x1))", ["float32[A]", "int8[B]"]),
    ("np.lexsort((x0,), axis=0)", ["float32[A,B]"]),
    ("np.lexsort((x0, x0))", ["bool[]"]),
    ("np.lexsort(x0)", ["float32[2,B]"]),
    ("np.cumsum(x0, dtype=np.int8)", ["float32[A,B]"]),
    ("np.cumsum(x0, axis=1, dtype=bool)", ["int32[A,B]"]),
    ("np.cumprod(x0, 0, np.float16)", ["int64[A]"]),
    ("x0.cumsum(dtype=np.uint8)", ["int8[A,B]"]),
    ("x0.cumprod(axis=0, dtype=np.complex64)", ["float32[A,B]"]),
    ("np.cumsum(x0, dtype=np.float32)", ["float64[]"]),
    ("np.pad(x0, 1, 'edge')", ["float32[A,B]"]),
    ("np.pad(x0, ((0, 0), (2, 1)), 'reflect')", ["int8[A,B]"]),
    ("np.pad(x0, 3, 'reflect')", ["float32[A]"]),
    ("np.pad(x0, (2, 0), mode='symmetric')", ["float32[A]"]),
    ("np.pad(x0, ((1, 0), (0, 0)), 'wrap')", ["uint8[A,B]"]),
    ("np.pad(x0, 1, 'maximum')", ["bool[A]"]),
    ("np.pad(x0, (0, 1), 'mean')", ["int8[A,B]"]),
    ("np.pad(x0, 2, 'median')", ["float16[A]"]),
    ("np.pad(x0, 1, 'minimum')", ["complex64[A]"]),
    ("np.pad(x0, 1, 'linear_ramp')", ["int32[A,B]"]),
    ("np.pad(x0, 2, 'empty')", ["float32[A,B]"]),
    ("np.pad(x0, 0, 'edge')", ["float32[A]"]),
    ("np.pad(x0, 1, 'edge')", ["float32[]"]),
]


#: Programs that need something of a length the data decide: kept as an assumption
#: that holds() says it cannot decide (a ValueError naming that size), never dropped.
#: None here: what ``len(np.unique_values(x0)) + x0`` (the count must fit int8: <= 127),
#: ``x0[np.nonzero(x0)]`` and ``x0.ravel()[np.flatnonzero(x0)]`` need of their counts
#: holds at every count up to the mask's size, so holds decides it at every size of the
#: box (evalshape/counts.py; two arrays of one count are named alike:
#: np.nonzero(x0)[1] + np.nonzero(x0)[0] assumes nothing, evalshape/sameaxes.py).
#: tests/test_eval_shape_mask_counts.py has programs the data decide.
UNDECIDED: set[str] = set()


@pytest.mark.parametrize(("body", "types"), PROGRAMS, ids=[p for p, _ in PROGRAMS])
def test_functions_refused_before_are_numpys(body, types):
    verdict = judge(returning(body, len(types)), types, BOX)
    assert verdict.status in ("typed", "refused"), verdict.note
    wrong = [w for w in verdict.wrong if w[0] != "undecided" or body not in UNDECIDED]
    assert not wrong, wrong[:3]
    assert (body in UNDECIDED) is any(w[0] == "undecided" for w in verdict.wrong)


#: Programs whose graphs are computed on random values (where values decide lengths).
VALUED = [
    (lambda x: np.nonzero(x), ["float32[A,B]"]),
    (lambda x: np.argwhere(x), ["int8[A,B,C]"]),
    (lambda x: np.argwhere(x), ["float32[]"]),
    (lambda x: np.flatnonzero(x), ["bool[A,B]"]),
    (lambda x: np.where(x), ["float64[A]"]),
    (lambda x, c: np.compress(c, x, axis=1), ["float32[A,B]", "bool[B]"]),
    (lambda x, c: np.compress(c > 0, x, axis=0), ["float32[A,B]", "int8[A]"]),
    (lambda x, c: np.compress(c[: len(x)], x), ["float32[A]", "bool[B]"]),
    (lambda x: np.unique_values(x), ["float32[A,B]"]),
    (lambda x: np.unique_values(x), ["int8[A]"]),
    (lambda x: np.unique(x), ["float32[A,B]"]),  # (NaNs: one, NumPy's equal_nan=True)
    (lambda x: np.unique(x, equal_nan=False), ["float64[A]"]),
    (lambda x: np.unique(x), ["int8[A,B]"]),
    (lambda x, y: np.lexsort((x, y)), ["int8[A,B]", "float32[A,B]"]),
    (lambda x, y: np.lexsort((x, y, x), axis=0), ["int8[A,B]", "bool[A,B]"]),
    (lambda x: np.cumsum(x, dtype=np.int8), ["float32[A,B]"]),
    (lambda x: np.cumprod(x, axis=0, dtype=np.uint8), ["int32[A,B]"]),
    (lambda x: x.cumsum(axis=1, dtype=bool), ["int8[A,B]"]),
    (lambda x: np.pad(x, ((1, 3), (0, 2)), "reflect"), ["float32[A,B]"]),
    (lambda x: np.pad(x, 2, "symmetric"), ["int8[A]"]),
    (lambda x: np.pad(x, (3, 1), "wrap"), ["float32[A]"]),
    (lambda x: np.pad(x, 1, "edge"), ["uint8[A,B]"]),
    (lambda x, y: np.broadcast_arrays(x, y), ["float32[A,1]", "int8[B]"]),
]

SIZES = [dict(zip("ABC", s, strict=True)) for s in ((2, 3, 5), (1, 5, 3), (5, 1, 2),
                                                     (0, 2, 3), (3, 0, 1))]


def _values(t: kt.TensorType, sizes: dict, rng: np.random.Generator) -> np.ndarray:
    shape = [sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape]
    v = rng.integers(-2, 3, size=shape) * rng.integers(0, 2, size=shape)
    if t.dtype.startswith("float"):
        v = np.where(rng.random(shape) < 0.1, np.nan, v)
    return v.astype(t.dtype)


def _same(got: np.ndarray, want: np.ndarray, fn) -> bool:
    if fn.__code__.co_names.count("unique_values"):  # sorted here, hash order in NumPy
        want = np.sort(want)
    return got.shape == want.shape and got.dtype == want.dtype and \
        np.array_equal(got, want, equal_nan=got.dtype.kind in "fc")


@pytest.mark.parametrize(("fn", "types"), VALUED, ids=[str(t) for _, t in VALUED])
def test_the_graph_computes_numpys_values_and_lengths(fn, types):
    """The graph's values are NumPy's (so its lengths are the data's), and each type
    gives NumPy's shape (a ``?`` length between 0 and the input's size) and dtype."""
    result = kt.eval_shape(fn, *types)
    run = kt.function(list(result.inputs), list(result.outputs))
    rng = np.random.default_rng(20)
    for sizes in SIZES:
        if not result.holds(sizes):
            continue
        arrays = [_values(kt.TensorType.parse(t), sizes, rng) for t in types]
        want = fn(*arrays)
        want = list(want) if isinstance(want, tuple) else [want]
        got = run(*arrays)
        assert len(got) == len(want)
        for g, w, out in zip(got, want, result.outputs, strict=True):
            w = np.asarray(w)
            assert _same(np.asarray(g), w, fn), (sizes, g, w)
            typed = [_sized(d, sizes) for d in out.type.shape]
            bound = max(1, int(np.prod([a.size for a in arrays])))
            assert all(t == n if t is not None else 0 <= n <= bound
                       for t, n in zip(typed, w.shape, strict=True)), (typed, w.shape)
            assert out.type.dtype == str(w.dtype)


@pytest.mark.parametrize(("fn", "fails"), [
    (lambda x: np.zeros(3)[len(np.flatnonzero(x))], True),
    (lambda x: np.zeros(3)[len(np.nonzero(x)[0])], True),
    (lambda x: np.zeros(3)[np.argwhere(x).shape[0]], True),
    (lambda x: np.zeros(3)[len(np.unique_values(x))], True),
    (lambda x: x[x > 0] + x[x < 0][::-1], False),
])
def test_what_code_needs_of_a_data_decided_length_stays_undecided(fn, fails):
    """A need on a length the data decide (``np.zeros(3)[k]``: NumPy raises IndexError
    where the count is 3 or more) is kept, and holds says it cannot decide it; so is
    one of two counts (which NumPy meets at some data: an assumption, never dropped)."""
    result = kt.eval_shape(fn, "float32[n]")
    assert result.assumptions
    with pytest.raises(ValueError, match="no input's size decides"):
        result.holds({"n": 5})
    fn(np.zeros(5, np.float32))  # NumPy runs at some data ...
    if fails:  # ... and raises at others
        with pytest.raises(IndexError):
            fn(np.arange(1, 6, dtype=np.float32))


def test_arrays_of_one_count_need_nothing_of_it():
    """``np.nonzero(x)[0] + np.where(x)[0][::-1]``: one count (one node of positions,
    each array passing its length on), no assumption; NumPy runs at every data."""
    def fn(x):
        return np.nonzero(x)[0] + np.where(x)[0][::-1]
    result = kt.eval_shape(fn, "float32[n]")
    assert result.assumptions == ()
    assert result.holds({"n": 5})
    for data in (np.zeros(5), np.ones(5), np.arange(5.0), np.arange(5.0) % 2):
        fn(data.astype(np.float32))


@pytest.mark.parametrize(("fn", "types", "axis"), [
    (lambda x, c: np.compress(c > 0, x, axis=0), ["float32[A,B]", "int8[C]"],
     lambda s: s["A"]),
    (lambda x, c: np.compress(c, x), ["float32[A,B]", "bool[C]"], lambda s: s["A"] * s["B"]),
    (lambda x, c: x.compress(c, axis=1), ["float32[A,B]", "bool[C]"], lambda s: s["B"]),
])
def test_a_compress_condition_longer_than_its_axis_is_refused(fn, types, axis):
    """A longer condition runs in NumPy only where its extra entries are false (all
    true, it raises IndexError), which no size says: refused exactly there."""
    result = kt.eval_shape(fn, *types)
    for a, b, c in itertools.product(BOX, repeat=3):
        sizes = {"A": a, "B": b, "C": c}
        x = np.zeros((a, b), np.float32)
        try:
            fn(x, np.ones(c, np.dtype(types[1][:types[1].index("[")])))
            runs = True
        except IndexError:
            runs = False
        held = result.holds(sizes)
        assert held is (c <= axis(sizes)), sizes
        assert runs or not held, sizes  # (NumPy skips the check where the other axes
        assert held or not runs or a == 0, sizes  # are empty: refused there, never wrong)


@pytest.mark.parametrize(("n", "width"), list(itertools.product((0, 1, 2, 3), (0, 1, 4))))
@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap", "mean"])
def test_pad_modes_hold_where_numpy_runs(mode, n, width):
    """NumPy refuses to grow an empty axis in these modes and grows one element by
    repeating it (reflect too)."""
    result = kt.eval_shape(lambda x: np.pad(x, width, mode), "float32[N]")
    try:
        shape = np.pad(np.zeros(n, np.float32), width, mode).shape
    except ValueError:
        shape = None
    assert result.holds({"N": n}) is (shape is not None)
    if shape is not None:
        assert substitute(result.type.shape[0], {"N": n}) == shape[0]


@pytest.mark.parametrize(("fn", "words"), [
    (lambda x: np.lexsort(x), "the number of keys is a size"),
    (lambda x: np.pad(x, 1, "mean", stat_length=2), "stat_length"),
])
def test_what_depends_on_more_than_the_engine_states_is_refused_by_name(fn, words):
    with pytest.raises(TypeError, match=words):
        kt.eval_shape(fn, "float32[A,B]")


def test_numpys_own_errors_are_kept():
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        kt.eval_shape(lambda x: np.pad(x, 1, "edge", constant_values=1), "float32[A]")
    with pytest.raises(ValueError, match="condition must be a 1-d array"):
        kt.eval_shape(lambda x: np.compress(x > 0, x), "float32[A,B]")
    with pytest.raises(ValueError, match="0d arrays"):
        kt.eval_shape(lambda x: np.where(x), "float32[]")
    with pytest.raises(ValueError, match="0d arrays"):
        kt.eval_shape(lambda x: np.nonzero(x), "int8[]")
    with pytest.raises(IndexError, match="axis 1 is out of bounds"):
        kt.eval_shape(lambda x: np.lexsort((x,), axis=1), "float32[A]")

"""Chunks of unknown size (``nan``: a boolean mask's rows) through every kind of Dask
algorithm (issue 37 point 3, DESIGN §12): nothing is computed during a call; a node whose
algorithm needs the sizes raises UnknownChunksError naming ``compute_chunk_sizes``, never
Dask's own error from inside its function ("cannot convert float NaN to integer", "not
enough values to unpack"), and one that does not need them (a slice of the known axes, a
reduction, a join along the unknown axis) keeps them ``nan``; compiled with
``compute_chunk_sizes=True`` every one computes NumPy's result.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback

import kantensor as kt
from kantensor.backend.dask import TaskTooLargeError, UnknownChunksError

V = np.arange(40.0).reshape(10, 4) - 13.0
K = np.arange(10) % 3 != 0
R = V[K]  # NumPy's masked rows: the oracle of every case

#: name -> (kantensor's graph of the masked rows y, NumPy's of R, whether its algorithm
#: takes the rows' unknown sizes as they are)
CASES = {
    "slice_known_axis": (lambda y: y[:, :2], lambda r: r[:, :2], True),
    "int_on_known_axis": (lambda y: y[:, 1], lambda r: r[:, 1], True),
    "slice_unknown_axis": (lambda y: y[1:], lambda r: r[1:], False),
    "transpose": (lambda y: y.T, lambda r: r.T, True),
    "concatenate_along": (lambda y: kt.concatenate([y, y], axis=0),
                          lambda r: np.concatenate([r, r], axis=0), True),
    "concatenate_across": (lambda y: kt.concatenate([y, y * 2], axis=1),
                           lambda r: np.concatenate([r, r * 2], axis=1), True),
    "vstack": (lambda y: kt.vstack([y, y]), lambda r: np.vstack([r, r]), True),
    "hstack": (lambda y: kt.hstack([y, y]), lambda r: np.hstack([r, r]), True),
    "stack": (lambda y: kt.stack([y, y]), lambda r: np.stack([r, r]), True),
    "diff_known": (lambda y: kt.diff(y, axis=1), lambda r: np.diff(r, axis=1), True),
    "diff_unknown": (lambda y: kt.diff(y, axis=0), lambda r: np.diff(r, axis=0), False),
    "flip_known": (lambda y: kt.flip(y, axis=1), lambda r: np.flip(r, axis=1), True),
    "flip_unknown": (lambda y: kt.flip(y, axis=0), lambda r: np.flip(r, axis=0), False),
    "flip_all": (lambda y: kt.flip(y), lambda r: np.flip(r), False),
    "roll": (lambda y: kt.roll(y, 1, axis=0), lambda r: np.roll(r, 1, axis=0), False),
    "tril": (lambda y: kt.tril(y), np.tril, False),
    "trace": (lambda y: kt.trace(y), np.trace, False),
    "diagonal": (lambda y: kt.diagonal(y), np.diagonal, False),
    "pad": (lambda y: kt.pad(y, 1), lambda r: np.pad(r, 1), False),
    "repeat": (lambda y: kt.repeat(y, 2, axis=0), lambda r: np.repeat(r, 2, axis=0), True),
    "tile": (lambda y: kt.tile(y, (2, 1)), lambda r: np.tile(r, (2, 1)), True),
    "argmax": (lambda y: kt.argmax(y, axis=0), lambda r: np.argmax(r, axis=0), False),
    "outer": (lambda y: kt.outer(y[:, 0], y[:, 1]), lambda r: np.outer(r[:, 0], r[:, 1]),
              True),
    # (a scan along the unknown axis: an empty block loses the rows after it, below)
    "cumsum": (lambda y: kt.cumsum(y, axis=0), lambda r: np.cumsum(r, axis=0), False),
    "cumsum_known": (lambda y: kt.cumsum(y, axis=1), lambda r: np.cumsum(r, axis=1), True),
    "max": (lambda y: kt.max(y, axis=0), lambda r: np.max(r, axis=0), False),
    "max_known": (lambda y: kt.max(y, axis=1), lambda r: np.max(r, axis=1), True),
    "min_initial": (lambda y: kt.min(y, axis=0, initial=0.0),
                    lambda r: np.min(r, axis=0, initial=0.0), True),
    "sum": (lambda y: kt.sum(y, axis=0), lambda r: np.sum(r, axis=0), True),
    "std": (lambda y: kt.std(y, axis=0), lambda r: np.std(r, axis=0), True),
    "matmul": (lambda y: y.T @ y, lambda r: r.T @ r, True),
    "softmax": (lambda y: kt.softmax(y, axis=0),
                lambda r: np.exp(r - r.max(0)) / np.exp(r - r.max(0)).sum(0), True),
    "zeros_like": (lambda y: kt.zeros_like(y), np.zeros_like, True),
}


class _Computes(Callback):
    """Counts the graphs Dask computes while it is active."""

    def __init__(self):
        super().__init__()
        self.graphs = 0

    def _start(self, dsk):
        self.graphs += 1


def _graph(case):
    v = kt.TensorType.parse("float64[n,m]")("v")
    keep = kt.TensorType.parse("bool[n]")("keep")
    return [v, keep], CASES[case][0](v[keep])


@pytest.mark.parametrize("case", list(CASES))
def test_unknown_sizes_stay_unknown_or_are_refused_naming_compute_chunk_sizes(case):
    inputs, out = _graph(case)
    takes = CASES[case][2]
    f = kt.function(inputs, out, backend="dask")
    with _Computes() as seen:
        if takes:
            got = f(V, K, chunks=[(5, 4), 5])
        else:
            with pytest.raises(UnknownChunksError, match=r"compute_chunk_sizes\(\)"):
                f(V, K, chunks=[(5, 4), 5])
    assert seen.graphs == 0  # nothing computed during the call
    if takes:
        np.testing.assert_allclose(got.compute(), CASES[case][1](R), rtol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_compute_chunk_sizes_true_computes_numpys_result(case):
    inputs, out = _graph(case)
    g = kt.function(inputs, out, backend="dask", compute_chunk_sizes=True)
    got = g(V, K, chunks=[(5, 4), 5])
    want = CASES[case][1](R)
    if not CASES[case][2]:  # computed for this node: known from here on
        assert got.shape == want.shape
    np.testing.assert_allclose(got.compute(), want, rtol=1e-12)


def test_a_named_size_of_unknown_chunks_is_refused_or_computed_never_read_as_one():
    """An input whose type names a size (``float64[n]``) given a Dask array of unknown
    chunks (a mask's): the name was bound to -1, whose size vector NumPy makes of length
    1, so ``kt.sum(x) * n`` computed ``sum(x) * 1`` (39.0 where NumPy's is 234.0). Now
    UnknownChunksError naming compute_chunk_sizes, or with the option the sizes computed
    once (the user's array left as it is) and the name checked across inputs."""
    x = kt.TensorType.parse("float64[n]")("x")
    y = kt.TensorType.parse("float64[n]")("y")
    values = np.arange(10.0)
    kept = values[values > 3]
    xs = da.from_array(values, chunks=5)
    masked = xs[xs > 3]
    scaled = kt.sum(x) * x.type.shape[0]
    with pytest.raises(UnknownChunksError, match=r"its type names that size \(n\).*"
                                                 r"compute_chunk_sizes\(\)"):
        kt.function([x], scaled, backend="dask")(masked)
    with pytest.raises(UnknownChunksError, match="compute_chunk_sizes"):
        kt.function([x, y], x + y, backend="dask")(masked, masked)
    with pytest.raises(UnknownChunksError, match="compute_chunk_sizes"):
        kt.function([x], scaled, backend="dask").chunks(masked.chunks)
    f = kt.function([x], scaled, backend="dask", compute_chunk_sizes=True)
    assert float(f(masked).compute()) == np.sum(kept) * len(kept)
    assert np.isnan(masked.shape[0])  # the user's array is left as it is
    g = kt.function([x, y], x + y, backend="dask", compute_chunk_sizes=True)
    np.testing.assert_array_equal(g(masked, xs[:6]).compute(), kept + values[:6])
    with pytest.raises(Exception, match="dimension n is 6 in input 0"):
        g(masked, xs[:5])


def _masked(values, keep, chunks, keep_chunks=None):
    """A Dask array of ``values`` masked along axis 0 by ``keep`` (its chunks there
    unknown: ``nan``)."""
    return da.from_array(np.asarray(values), chunks=chunks)[
        da.from_array(np.asarray(keep), chunks=keep_chunks or chunks[0])]


def test_two_masks_unknown_chunks_of_one_count_are_not_aligned_blocks():
    """Two masked arrays of 2 blocks each, of rows (2, 1) and (1, 2): their unknown chunks
    ``(nan, nan)`` were read as the same, so ``a + b`` of two float64[3] paired block with
    block and gave 4 values (Dask's own ``x + y`` does). Now aligning them needs their
    sizes: UnknownChunksError, or with compute_chunk_sizes=True NumPy's sum (found by
    hunt30's random graphs with masked inputs, /tmp/h30/dasknan.py)."""
    x = _masked([1.0, 2.0, 3.0, 0.0], [True, True, False, True], (2,))
    y = _masked([0.0, 10.0, 20.0, 30.0], [False, True, True, True], (2,))
    a, b = kt.tensor("a", "float64", (3,)), kt.tensor("b", "float64", (3,))
    with pytest.raises(UnknownChunksError, match=r"add: input 0 has chunks of unknown size "
                                                 r"\(\(nan, nan\)\).*must be aligned"):
        kt.function([a, b], a + b, backend="dask")(x, y)
    with pytest.raises(UnknownChunksError, match="must be aligned"):  # the plan, alike
        kt.function([a, b], a + b, backend="dask").chunks(x.chunks, y.chunks)
    got = kt.function([a, b], a + b, backend="dask", compute_chunk_sizes=True)(x, y)
    np.testing.assert_array_equal(got.compute(), np.array([11.0, 22.0, 30.0]))
    one = kt.function([a], a * 2 + a, backend="dask")(x)  # one array's blocks: aligned
    np.testing.assert_array_equal(one.compute(), np.array([3.0, 6.0, 0.0]))


def test_computed_chunk_sizes_leave_the_users_array_and_drop_empty_blocks():
    """compute_chunk_sizes=True computed Dask's ``compute_chunk_sizes`` on the user's
    array itself (its chunks were known after the call), and the blocks the mask left
    empty reached argmax (NumPy: "zero-size array to reduction operation maximum").
    Now on a copy, its empty chunks dropped as every node's are."""
    big = np.array([[3], [9], [1], [4], [7]], "uint8")
    keep = np.array([True, False, True, True, False])
    m = _masked(big, keep, ((1, 1, 3), (1,)), 1)
    x = kt.tensor("x", "uint8", (3, 1))
    f = kt.function([x], kt.argmax(x), backend="dask", compute_chunk_sizes=True)
    assert int(f(m).compute()) == int(np.argmax(big[keep]))
    assert all(np.isnan(c) for c in m.chunks[0])  # the user's array is left as it is


def test_an_unknown_size_computed_1_broadcasts():
    """``gt`` of a masked float64[1] against a masked int8[3] with compute_chunk_sizes:
    the size-1 axis, unknown until computed, was aligned as a size (Dask: "Chunks do not
    add up to shape"); once computed 1 it broadcasts, as NumPy's."""
    y, z = kt.tensor("y", "float64", (1,)), kt.tensor("z", "int8", (3,))
    g = kt.function([y, z], kt.gt(y, z), backend="dask", compute_chunk_sizes=True)
    a = _masked([0.0, 2.0, 0.0], [False, True, False], (1,))
    b = _masked(np.array([1, 5, 0, 9], "int8"), [True, True, False, True], (2,))
    np.testing.assert_array_equal(g(a, b).compute(), np.array([2.0]) > np.array([1, 5, 9]))


@pytest.mark.parametrize(("name", "build", "numpy"), [
    ("cumsum", lambda x: kt.cumsum(x, axis=0), lambda r: np.cumsum(r, axis=0)),
    ("max", lambda x: kt.max(x, axis=0), lambda r: np.max(r, axis=0)),
    ("norm", lambda x: kt.norm(x, ord=np.inf, axis=0),
     lambda r: np.linalg.norm(r, ord=np.inf, axis=0))])
def test_a_scan_or_maximum_along_unknown_chunks_with_an_empty_block(name, build, numpy):
    """A mask that leaves a middle block empty: Dask's cumsum carried that block's empty
    last row, and the rows after it were lost (``[[5, 1]]`` where NumPy's cumsum has two
    rows; Dask's own ``da.cumsum`` does the same); ``max`` and the inf-norm failed when
    computed ("zero-size array to reduction operation maximum"). Now they need the sizes:
    UnknownChunksError, or computed with their empty chunks dropped."""
    big = np.array([[5.0, 1.0], [7.0, 2.0], [1.0, 3.0], [2.0, 2.0]])
    keep = np.array([True, False, False, True])
    x = kt.tensor("x", "float64", (2, 2))
    with pytest.raises(UnknownChunksError, match=f"{name}.*compute_chunk_sizes"):
        kt.function([x], build(x), backend="dask")(_masked(big, keep, ((2, 1, 1), (2,))))
    f = kt.function([x], build(x), backend="dask", compute_chunk_sizes=True)
    got = f(_masked(big, keep, ((2, 1, 1), (2,)))).compute()
    np.testing.assert_array_equal(got, numpy(big[keep]))


def test_moments_of_several_axes_over_unknown_chunks_with_an_empty_block():
    """``var`` over axes (0, 1) of a masked array whose first block the mask leaves empty:
    Dask's moments gave NaN (Dask's own ``da.var`` does), silently. Now they need the
    sizes; over one axis Dask's moments take the empty block, and give NumPy's."""
    v = np.arange(12.0).reshape(4, 3) ** 2
    keep = np.array([False, True, True, False])
    x = kt.tensor("x", "float64", (2, 3))
    with pytest.raises(UnknownChunksError, match="var.*compute_chunk_sizes"):
        kt.function([x], kt.var(x, axis=(0, 1)), backend="dask")(
            _masked(v, keep, ((4,), (3,)), ((0, 2, 2),)))
    f = kt.function([x], kt.var(x, axis=(0, 1)), backend="dask", compute_chunk_sizes=True)
    got = f(_masked(v, keep, ((4,), (3,)), ((0, 2, 2),))).compute()
    np.testing.assert_allclose(got, np.var(v[keep]), rtol=1e-12)
    one = kt.function([x], kt.std(x, axis=0), backend="dask")(
        _masked(v, keep, ((4,), (3,)), ((0, 2, 2),)))
    np.testing.assert_allclose(one.compute(), np.std(v[keep], axis=0), rtol=1e-12)


@pytest.mark.parametrize("reps", [(2, 1), (1, 2), (2, 2), (2, 1, 1), (1, 2, 1), (3, 1, 2)])
def test_tile_over_unknown_chunks_refuses_before_dask(reps):
    """``tile`` of masked rows repeating another axis than the rows: Dask's own error
    from inside its concatenate ("Tried to concatenate arrays with unknown shape (nan,
    2)") reached the user; now UnknownChunksError naming compute_chunk_sizes where Dask
    needs the sizes, and NumPy's result where it does not, or with them computed."""
    v, keep = np.arange(8.0).reshape(4, 2), np.arange(4) % 4 != 1
    x = kt.tensor("x", "float64", (3, 2))
    want = np.tile(v[keep], reps)
    try:
        got = kt.function([x], kt.tile(x, reps), backend="dask")(
            _masked(v, keep, ((2, 2), (2,))))
    except UnknownChunksError as exc:
        assert "compute_chunk_sizes" in str(exc)
    else:
        np.testing.assert_array_equal(got.compute(), want)
    f = kt.function([x], kt.tile(x, reps), backend="dask", compute_chunk_sizes=True)
    np.testing.assert_array_equal(f(_masked(v, keep, ((2, 2), (2,)))).compute(), want)


def test_matmul_over_two_masks_rows_needs_their_sizes():
    """``x.T @ y`` contracting two masks' rows: of one block count but other sizes, the
    product failed when computed (NumPy: "mismatch in its core dimension"); of other
    block counts, Dask's own error reached the user ("Arrays' chunk sizes ... are
    unknown"). Now UnknownChunksError naming compute_chunk_sizes, and with it NumPy's
    product; one mask's rows (``x.T @ x``) are one array's blocks, as before."""
    v, keep = np.arange(8.0).reshape(4, 2), np.array([True, True, False, True])
    w, keep2 = np.arange(12.0).reshape(4, 3), np.array([False, True, True, True])
    x, y = kt.tensor("x", "float64", (3, 2)), kt.tensor("y", "float64", (3, 3))
    for chunks, chunks2 in [(2, 2), ((1, 3), (3, 1))]:
        def args(chunks=chunks, chunks2=chunks2):
            return (_masked(v, keep, (chunks, 2), chunks), _masked(w, keep2, (chunks2, 3), chunks2))
        with pytest.raises(UnknownChunksError, match="matmul.*must be aligned.*compute_chunk"):
            kt.function([x, y], x.T @ (y * 2), backend="dask")(*args())
        f = kt.function([x, y], x.T @ (y * 2), backend="dask", compute_chunk_sizes=True)
        np.testing.assert_array_equal(f(*args()).compute(), v[keep].T @ (2 * w[keep2]))
    g = kt.function([x], x.T @ x, backend="dask")(_masked(v, keep, (2, 2), 2))
    np.testing.assert_array_equal(g.compute(), v[keep].T @ v[keep])


def test_split_into_sections_of_rows_whose_sizes_were_computed():
    """``split`` into 3 sections of masked rows with compute_chunk_sizes=True: the node
    was typed on the unknown chunks (its parts' lengths None) and summed them ("int +
    NoneType"); now the parts are the computed axis's thirds, as NumPy's."""
    v, keep = np.arange(16.0).reshape(8, 2), np.array([1, 1, 0, 1, 1, 1, 0, 1], bool)
    x = kt.tensor("x", "float64", (6, 2))
    f = kt.function([x], list(kt.split(x, 3, axis=0)), backend="dask",
                    compute_chunk_sizes=True)
    got = [y.compute() for y in f(_masked(v, keep, ((3, 5), (2,)), (3, 5)))]
    for y, want in zip(got, np.split(v[keep], 3, axis=0), strict=True):
        np.testing.assert_array_equal(y, want)


def test_batched_matmul_of_two_masks_pairs_batch_rows_by_their_sizes():
    """``matmul`` of two masked stacks, masks of 3 rows each in blocks (1, 1, 1) and
    (2, 0, 1): only the contracted axes were checked, so Dask paired the batch blocks
    one with one and gave wrong products silently (review24D, repro_matmul.py). Now the
    broadcast batch axes are checked as the contracted ones: UnknownChunksError naming
    compute_chunk_sizes, or with it NumPy's product; one mask's rows (``y @ (2 * y)``)
    are one array's blocks and need nothing."""
    a_, b_ = np.arange(36.0).reshape(6, 2, 3), np.arange(36.0).reshape(6, 3, 2)
    r1 = np.array([1, 0, 0, 1, 1, 0], bool)
    r2 = np.array([1, 1, 0, 0, 0, 1], bool)
    a, b = kt.tensor("a", "float64", (None, 2, 3)), kt.tensor("b", "float64", (None, 3, 2))
    m1, m2 = kt.vector("m1", "bool"), kt.vector("m2", "bool")
    out = kt.matmul(a[m1], b[m2])
    with pytest.raises(UnknownChunksError, match=r"matmul.*must be aligned.*compute_chunk_sizes"):
        kt.function([a, b, m1, m2], out, backend="dask")(a_, b_, r1, r2, chunks=2)
    f = kt.function([a, b, m1, m2], out, backend="dask", compute_chunk_sizes=True)
    np.testing.assert_array_equal(f(a_, b_, r1, r2, chunks=2).compute(), a_[r1] @ b_[r2])
    c = kt.tensor("c", "float64", (None, 3, 3))
    c_ = np.arange(54.0).reshape(6, 3, 3)
    g = kt.function([c, m1], kt.matmul(c[m1], 2 * c[m1]), backend="dask")
    np.testing.assert_array_equal(g(c_, r1, chunks=2).compute(), c_[r1] @ (2 * c_[r1]))


_TWO_AXES = {
    "cumsum0": (lambda y, y2: kt.cumsum(y, axis=0), lambda r, r2: np.cumsum(r, axis=0)),
    "cumprod0": (lambda y, y2: kt.cumprod(y, axis=0), lambda r, r2: np.cumprod(r, axis=0)),
    "var": (lambda y, y2: kt.var(y), lambda r, r2: np.var(r)),
    "std": (lambda y, y2: kt.std(y), lambda r, r2: np.std(r)),
    "var01": (lambda y, y2: kt.var(y, axis=(0, 1)), lambda r, r2: np.var(r, axis=(0, 1))),
    "add_other": (lambda y, y2: y + y2, lambda r, r2: r + r2),
}


@pytest.mark.parametrize("case", sorted(_TWO_AXES))
def test_sizes_of_an_array_masked_on_two_axes_are_all_computed(case):
    """``x[r][:, c]`` with compute_chunk_sizes=True: its sizes were the column mask's
    counts only, the rows' left ``nan`` but the array taken as sized, so ``cumsum``
    along the rows gave one row of NumPy's two, ``var`` NaN, and two row masks' sums
    were paired block by block (review24D, probe_2mask_graph.py). Now every unknown
    axis gets its sizes: NumPy's values."""
    big = np.arange(1, 25, dtype=float).reshape(6, 4)
    rows = np.array([True, False, False, False, True, False])  # blocks of 1, 0, 1 rows
    rows2 = np.array([True, True, False, False, False, False])  # blocks of 2, 0, 0
    cols = np.array([True, False, True, True])
    x, r, r2, c = (kt.matrix("x", "float64"), kt.vector("r", "bool"),
                   kt.vector("r2", "bool"), kt.vector("c", "bool"))
    ours, numpys = _TWO_AXES[case]
    f = kt.function([x, r, r2, c], ours(x[r][:, c], x[r2][:, c]), backend="dask",
                    compute_chunk_sizes=True)
    got = f(big, rows, rows2, cols, chunks=2).compute()
    want = numpys(big[rows][:, cols], big[rows2][:, cols])
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sizes_of_one_origin_are_computed_once():
    """``cumsum(2 * u) + cumsum(3 * u)`` of a masked Dask array with
    compute_chunk_sizes=True: the sizes were kept by array name, so ``2 * u`` and
    ``3 * u`` each computed ``u``'s upstream (8 block runs of 4 during the call;
    review24D, probe_twice.py). Now by the origin of their blocks: once, as the docs
    say; NumPy's values."""
    runs = []

    def tap(block):
        runs.append(1)
        return block

    big, keep = np.arange(1.0, 9.0), np.array([1, 0, 0, 0, 1, 1, 0, 1], bool)
    u = kt.vector("u", "float64")
    f = kt.function([u], kt.cumsum(2 * u) + kt.cumsum(3 * u), backend="dask",
                    compute_chunk_sizes=True)
    data = da.from_array(big, chunks=2).map_blocks(tap, dtype=float)[
        da.from_array(keep, chunks=2)]
    runs.clear()  # (map_blocks may run tap on an empty block for its meta)
    y = f(data)
    assert len(runs) == data.numblocks[0]
    np.testing.assert_array_equal(y.compute(scheduler="sync"),
                                  np.cumsum(2 * big[keep]) + np.cumsum(3 * big[keep]))
    assert np.isnan(data.chunks[0]).all()  # the user's array keeps its nan


@pytest.mark.parametrize("reps", [0, (0,), (2, 0), (0, 1)])
def test_tile_repeating_the_unknown_axis_zero_times_needs_its_sizes(reps):
    """``tile`` of masked rows repeating them 0 times: taken as Dask's tile of the one
    unknown axis, whose own error reached the user ("wrap_func_shape_as_first_arg"),
    with compute_chunk_sizes=True too (review24D, probe_tile0.py). Now it needs the
    sizes: UnknownChunksError naming compute_chunk_sizes, or with them NumPy's result."""
    big, keep = np.arange(6.0) + 1, np.array([1, 0, 0, 0, 1, 1], bool)
    v, m = kt.vector("v", "float64"), kt.vector("m", "bool")
    with pytest.raises(UnknownChunksError, match=r"tile.*compute_chunk_sizes"):
        kt.function([v, m], kt.tile(v[m], reps), backend="dask")(big, keep, chunks=2)
    f = kt.function([v, m], kt.tile(v[m], reps), backend="dask", compute_chunk_sizes=True)
    got = f(big, keep, chunks=2).compute()
    want = np.tile(big[keep], reps)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn, numpy", [(kt.cumsum, np.cumsum), (kt.cumprod, np.cumprod)])
def test_a_scan_of_a_known_axis_in_several_chunks_over_unknown_rows(fn, numpy):
    """``cumsum(y, axis=1)`` of masked rows whose columns are split in chunks: Dask's
    scan over several chunks makes a block of every other axis's sizes (``np.full_like``
    of the rows' ``nan``), so computing it failed inside Dask's task ("'float' object
    cannot be interpreted as an integer", found by the origins hunt, seed 25). Now the
    node needs the rows' sizes: UnknownChunksError naming compute_chunk_sizes, or with
    them NumPy's values. In one chunk of columns the rows stay unknown."""
    x, m = kt.tensor("x", "float64", (None, 3)), kt.vector("m", "bool")
    args = (da.from_array(V[:, :3], chunks=(4, 2)), da.from_array(K, chunks=4))
    with pytest.raises(UnknownChunksError, match=r"several chunks.*compute_chunk_sizes"):
        kt.function([x, m], fn(x[m], axis=1), backend="dask")(*args)
    f = kt.function([x, m], fn(x[m], axis=1), backend="dask", compute_chunk_sizes=True)
    np.testing.assert_allclose(f(*args).compute(), numpy(R[:, :3], axis=1), rtol=1e-12)
    whole = kt.function([x, m], fn(x[m], axis=1), backend="dask")(
        da.from_array(V[:, :3], chunks=(4, 3)), da.from_array(K, chunks=4))
    assert np.isnan(whole.chunks[0]).all()
    np.testing.assert_allclose(whole.compute(), numpy(R[:, :3], axis=1), rtol=1e-12)


def test_bytes_of_tasks_on_unknown_chunks_are_reported_unknown_never_bounded():
    """A task on an input's blocks of unknown size (``nan``) holds bytes the data
    decides: the memory report printed them by ``int(nan)`` (ValueError: cannot convert
    float NaN to integer), and ``max_task_bytes`` compared ``nan > bound`` (False), so a
    call with a bound passed unchecked. Now the report counts them as of unknown bytes
    (the largest and the peak are of the known ones), and a bound refuses them
    (TaskTooLargeError naming compute_chunk_sizes); after .compute_chunk_sizes() the
    same call is bounded by the known bytes (NumPy's values). (A mask inside the graph
    is bounded by the blocks it masks: ``test_dask_origins_bounds.py``.)"""
    x = kt.matrix("x", "float64")
    f = kt.function([x], 2 * x, backend="dask")
    report = f.memory(((np.nan, np.nan), (4,)))
    assert report.unknown == 4 and report.at_most == 0  # (with the input's 2 blocks)
    assert "mul: 4 tasks; 4 tasks of bytes unknown (chunks of unknown size)" in str(report)
    # no task of known bytes: no largest task nor peak is said (once "0 B ... at least 0 B")
    assert str(report).splitlines()[0] == (
        "4 tasks; 4 tasks of bytes unknown (chunks of unknown size); no task's bytes "
        "known, so no largest task or peak per worker")
    assert kt.function([x], 2 * x, backend="dask").memory(((5, 5), (4,))).unknown == 0
    X, M = da.from_array(V, chunks=(5, 4)), da.from_array(K, chunks=5)
    masked = X[M]
    sized = masked.copy().compute_chunk_sizes()
    plain = kt.function([x], 2 * x, backend="dask", max_task_bytes=10_000)
    np.testing.assert_allclose(plain(sized).compute(), 2 * R, rtol=1e-12)
    with pytest.raises(TaskTooLargeError, match=r"cannot bound.*has chunks of unknown "
                                                r"size, call \.compute_chunk_sizes\(\) on it"):
        plain(masked)

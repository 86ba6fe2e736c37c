"""The Dask backend's plans: which algorithm each declared kind gets (never by name), the
chunk-wise lowerings checked against dask.array's own graphs (task counts, chunks, values),
refusals, bytes per task before running, the backend registry and pickling.
"""

from __future__ import annotations

import pickle
import tracemalloc

import dask
import dask.array as da
import numpy as np
import pytest
from dask._task_spec import execute_graph
from dask.array.optimization import optimize
from dask.highlevelgraph import HighLevelGraph

import kantensor as kt
from kantensor.backend import BACKENDS, register_backend
from kantensor.backend.dask import RechunkError, TaskTooLargeError
from kantensor.backend.dask.algorithms import ALGORITHMS
from kantensor.backend.dask.tasks import account


def graph_of(*arrays) -> dict:
    return dict(HighLevelGraph.merge(*(a.__dask_graph__() for a in arrays)))


def tasks_of(*arrays) -> int:
    return len(graph_of(*arrays))


# -- nothing by name ---------------------------------------------------------------

def test_every_declared_kind_has_an_algorithm():
    kinds = {name: getattr(op, "lowering", {}).get("dask")
             for name, op in kt.CATALOGUE.items()}
    declared = {k for k in kinds.values() if k is not None}
    assert declared <= set(ALGORITHMS) | {"arrange"}
    assert kinds["sum"] == "reduction" and kinds["std"] == "std"
    assert kinds["einsum"] == kinds["tensordot"] == kinds["dot"] == "contraction"
    assert kinds["sort"] is None  # it needs its axis whole


def _my_sum(x):
    return np.max(x, axis=-1)


def test_a_user_op_named_sum_is_its_own_op_not_dasks_sum():
    # issue #38 point 5: it computed a maximum with NumPy and a sum with Dask
    mine = kt.op("(n)->()", name="sum")(_my_sum)
    x = kt.vector("x", "float64")
    values = np.array([1.0, 2.0, 3.0, 4.0])
    assert kt.function([x], mine(x))(values) == 4.0
    strict = kt.function([x], mine(x), backend="dask")
    with pytest.raises(RechunkError, match="sum: input 0 axis 0 is split into 2 chunks"):
        strict(values, chunks=2)
    assert strict(values, chunks=4).compute() == 4.0
    f = kt.function([x], mine(x), backend="dask", allow_rechunk=True)
    assert f(values, chunks=2).compute() == 4.0
    assert "needs x axis 0 whole" in str(f.plan())
    # the catalogue's sum is Dask's tree reduction
    g = kt.function([x], kt.sum(x), backend="dask")
    assert g(values, chunks=2).compute() == 10.0
    assert "tree reduction" in str(g.plan())


def test_a_dask_function_over_named_sizes_pickles():
    # issue #38 point 5: Can't pickle local object 'dims_checker.<locals>.dims'
    x = kt.TensorType.parse("float64[n,3]")("x")
    w = kt.TensorType.parse("float64[3,k]")("w")
    f = kt.function([x, w], kt.tanh(x @ w), backend="dask", allow_rechunk=True,
                    max_task_bytes=1e6)
    g = pickle.loads(pickle.dumps(f))
    assert (g.allow_rechunk, g.max_task_bytes) == (True, 1e6)
    X, W = np.ones((10, 3)), np.ones((3, 2))
    np.testing.assert_allclose(g(X, W, chunks=5).compute(), np.tanh(X @ W))
    with pytest.raises(Exception, match="n"):
        g(X, np.ones((4, 2)), chunks=5)  # named sizes still checked after unpickling


def test_backend_registry():
    x = kt.vector("x", "float64")
    assert set(BACKENDS) >= {"numpy", "dask"}
    made = []

    def echo(inputs, outputs, allow_input_downcast=None, loud=False):
        made.append((inputs, outputs, loud))
        return "compiled"

    register_backend("echo", echo, options=("loud",))
    try:
        assert kt.function([x], x + 1, backend="echo", loud=True) == "compiled"
        assert made[0][2] is True
        with pytest.raises(TypeError, match="check is an option of the numpy backend"):
            kt.function([x], x + 1, backend="echo", check=True)
    finally:
        del BACKENDS["echo"]
    with pytest.raises(ValueError, match="backend must be one of 'numpy', 'dask'"):
        kt.function([x], x + 1, backend="jax")
    with pytest.raises(TypeError, match="allow_rechunk is an option of the dask backend"):
        kt.function([x], x + 1, allow_rechunk=True)


# -- chunk-wise lowerings against dask.array's own -------------------------------------

X = np.random.default_rng(0).normal(size=(600, 5))
Y = np.random.default_rng(1).normal(size=(600, 3))
XC, YC = ((100,) * 6, (5,)), ((100,) * 6, (3,))


@pytest.mark.parametrize("build, theirs", [
    (lambda x, y: kt.einsum("ij,ik->jk", x, y), lambda x, y: da.einsum("ij,ik->jk", x, y)),
    (lambda x, y: kt.tensordot(x, y, axes=([0], [0])),
     lambda x, y: da.tensordot(x, y, axes=([0], [0]))),
    (lambda x, y: kt.dot(kt.matrix_transpose(x), y), lambda x, y: da.dot(x.T, y)),
    (lambda x, y: x.T @ y, lambda x, y: x.T @ y),
])
def test_contractions_sum_partial_products_in_a_tree(build, theirs):
    x, y = kt.matrix("x", "float64"), kt.matrix("y", "float64")
    f = kt.function([x, y], build(x, y), backend="dask")
    ours = f(X, Y, chunks=[XC, YC])
    want = theirs(da.from_array(X, chunks=XC), da.from_array(Y, chunks=YC))
    np.testing.assert_allclose(ours.compute(), X.T @ Y, rtol=1e-10)
    memory = f.memory(XC, YC)
    # no task holds more than a row block of each input (what a tree of partial
    # products needs), never the whole contracted axis
    assert memory.largest_input <= (100 * 5 + 100 * 3) * 8
    assert tasks_of(ours) <= tasks_of(want) + 6 * 2  # the inputs' from_array tasks aside
    assert "tree" in str(f.plan())


def test_vecdot_contracts_chunk_by_chunk():
    a, b = kt.matrix("a", "float64"), kt.matrix("b", "float64")
    f = kt.function([a, b], kt.vecdot(a, b), backend="dask")
    A, B = X, X[::-1]
    y = f(A, B, chunks=((300, 300), (2, 3)))
    assert y.chunks == ((300, 300),)
    np.testing.assert_allclose(y.compute(), np.vecdot(A, B))
    assert f.memory(((300, 300), (2, 3)), ((300, 300), (2, 3))).largest_input <= 2 * 300 * 3 * 8


@pytest.mark.parametrize("name", ["std", "var", "mean"])
def test_moments_are_dasks_tree_reductions(name):
    x = kt.matrix("x", "float32")
    values = np.random.default_rng(2).normal(size=(400, 300)).astype(np.float32)
    chunks = ((100,) * 4, (100,) * 3)
    f = kt.function([x], getattr(kt, name)(x, axis=0), backend="dask")
    ours = f(values, chunks=chunks)
    theirs = getattr(da, name)(da.from_array(values, chunks=chunks), axis=0)
    assert ours.chunks == theirs.chunks == ((100,) * 3,)
    assert tasks_of(ours) == tasks_of(theirs)
    np.testing.assert_allclose(ours.compute(), getattr(np, name)(values, axis=0), rtol=1e-4,
                               atol=1e-6)
    assert f.memory(chunks).largest_input <= 100 * 100 * 4 * 1.01


@pytest.mark.parametrize("kwargs", [{"ord": 2}, {"ord": -2, "axis": (1, 0)}, {"ord": "nuc"}])
def test_svd_norms_need_the_matrix_whole(kwargs):
    """Dask's SVD refuses a matrix split along both axes: the plan says the norm needs
    both axes whole and the call is refused naming the node (not Dask's error at
    compute); allowed to rechunk, the value is NumPy's. Other orders stay Dask's tree."""
    x = kt.matrix("x", "float64")
    values = np.random.default_rng(3).normal(size=(6, 4))
    chunks = ((3, 3), (2, 2))
    f = kt.function([x], kt.norm(x, **kwargs), backend="dask")
    assert "needs x axis 0, x axis 1 whole in each task" in f.plan().lines[0]
    with pytest.raises(RechunkError, match=r"norm\{.*input 0 axis 0 is split into 2 chunks"):
        f(values, chunks=chunks)
    g = kt.function([x], kt.norm(x, **kwargs), backend="dask", allow_rechunk=True)
    np.testing.assert_allclose(g(values, chunks=chunks).compute(),
                               np.linalg.norm(values, **kwargs))
    tree = kt.function([x], kt.norm(x, ord=2, axis=1), backend="dask")
    assert "tree sum of squares" in tree.plan().lines[0]
    np.testing.assert_allclose(tree(values, chunks=chunks).compute(),
                               np.linalg.norm(values, ord=2, axis=1))


def test_diff_and_trace_work_on_blocks():
    x = kt.matrix("x", "int32")
    values = np.arange(36 * 36, dtype=np.int32).reshape(36, 36) % 7
    chunks = ((12,) * 3, (12,) * 3)
    f = kt.function([x], [kt.diff(x, axis=0), kt.trace(x), kt.diagonal(x, offset=1)],
                    backend="dask")
    d, t, g = f(values, chunks=chunks)
    assert d.chunks == da.diff(da.from_array(values, chunks=chunks), axis=0).chunks
    np.testing.assert_array_equal(d.compute(), np.diff(values, axis=0))
    assert t.compute() == np.trace(values) and t.dtype == np.trace(values).dtype
    np.testing.assert_array_equal(g.compute(), np.diagonal(values, offset=1))
    assert f.memory(chunks).largest_input <= 2 * 12 * 12 * 4


def test_reshape_by_dasks_rules_refused_with_its_reason():
    # issue #37: built silently as one 3 GB chunk; Dask refuses it at build time
    x = kt.matrix("x", "float64")
    y = kt.reshape(kt.concatenate([x[::2], x[1::2]], axis=1), (-1, 10))
    values = np.arange(1000 * 25, dtype=np.float64).reshape(1000, 25)
    with pytest.raises(RechunkError, match=r"Dask cannot reshape \(500, 50\) to \(2500, 10\) "
                                           r"chunk by chunk \(Dask's reshape only supports "
                                           r"operations that merge or split existing "
                                           r"dimensions evenly"):
        kt.function([x], y, backend="dask")(values, chunks=(100, 25))
    f = kt.function([x], y, backend="dask", allow_rechunk=True)
    z = f(values, chunks=(100, 25))
    want = np.concatenate([values[::2], values[1::2]], axis=1).reshape(-1, 10)
    np.testing.assert_array_equal(z.compute(), want)
    assert len(z.chunks[0]) > 1  # the rows stay split: two passes, as Dask advises
    assert "reshaped in two passes, through (500, 5, 10)" in str(f.plan(((100,) * 10, (25,))))
    # where no two passes do, through the flat array: trailing axes whole, rows kept split
    g = kt.function([x], kt.reshape(x, (-1, 6)), backend="dask", allow_rechunk=True)
    w = g(values[:, :21], chunks=(100, 7))
    np.testing.assert_array_equal(w.compute(), values[:, :21].reshape(-1, 6))
    assert "flat chunks" in str(g.plan(((100,) * 10, (7,) * 3))) or \
        "rechunked to one chunk" in str(g.plan(((100,) * 10, (7,) * 3)))
    assert len(w.chunks[0]) > 1


def _optimized_tasks(*arrays) -> int:
    return len(optimize(HighLevelGraph.merge(*(a.__dask_graph__() for a in arrays)),
                        [a.__dask_keys__() for a in arrays]))


TAKEN = np.arange(7 * 10, dtype=np.float32).reshape(7, 10)
TC = ((3, 4), (4, 4, 2))


@pytest.mark.parametrize("build", [lambda x, i: x[:, i], lambda x, i: kt.take(x, i, axis=1)])
def test_integer_array_indexing_is_dasks_take_by_chunks(build):
    # issue #37: refused without allow_rechunk (the whole axis in one task)
    x, i = kt.matrix("x", "float32"), kt.vector("i", "int64")
    f = kt.function([x, i], build(x, i), backend="dask")
    idx = np.array([1, 9, -1, 3, 3, 0, 7, -10])
    ours = f(da.from_array(TAKEN, chunks=TC), da.from_array(idx, chunks=3))
    theirs = da.from_array(TAKEN, chunks=TC)[:, da.from_array(idx, chunks=3)]
    assert ours.chunks == theirs.chunks == f.chunks(TC, ((3, 3, 2),)) == ((3, 4), (3, 3, 2))
    # Dask's tasks but its chunk offsets (an array of one task a chunk of x along the
    # axis), which ours writes into its pieces' tasks, and with the sorted positions of
    # each index block (one task a block)
    assert _optimized_tasks(ours) == _optimized_tasks(theirs) - len(TC[1]) + 3
    np.testing.assert_array_equal(ours.compute(), np.take(TAKEN, idx, axis=1))
    assert "a take by chunks" in str(f.plan())
    # a task holds one chunk of x and one block of the indices, never the whole axis
    assert f.memory(TC, ((3, 3, 2),)).largest_input <= 4 * 4 * 4 + 3 * 8 + 8


@pytest.mark.parametrize("case", ["take2d", "none", "sliced", "bool", "const"])
def test_take_by_chunks_equals_numpy(case):
    x = kt.matrix("x", "float32")
    rng = np.random.default_rng(5)
    if case == "take2d":
        i = kt.matrix("i", "int16")
        y, idx, want = kt.take(x, i, axis=0), rng.integers(-7, 7, (4, 5)).astype(np.int16), \
            lambda v: np.take(TAKEN, v, axis=0)
    elif case == "none":
        i = kt.vector("i", "uint8")
        y, idx, want = kt.take(x, i), rng.integers(0, 70, 9).astype(np.uint8), \
            lambda v: np.take(TAKEN, v)
    elif case == "sliced":
        i = kt.matrix("i", "int64")
        y, idx, want = x[i, 1::2], rng.integers(-7, 7, (3, 2)), lambda v: TAKEN[v, 1::2]
    elif case == "bool":  # np.take reads bools as 0 and 1
        i = kt.vector("i", "bool")
        y, idx, want = kt.take(x, i, axis=1), rng.random(6) < 0.5, \
            lambda v: np.take(TAKEN, v, axis=1)
    else:
        i = kt.vector("i", "int64")
        const = np.array([6, -7, 2, 2])
        y, idx, want = x[const] + kt.sum(i), np.zeros(2, np.int64), lambda v: TAKEN[const]
    f = kt.function([x, i], y, backend="dask")
    ours = f(TAKEN, idx, chunks=[TC, 2])
    assert f.chunks(TC, da.from_array(idx, chunks=2).chunks) == ours.chunks
    got_chunks = tuple(tuple(b.shape[a] for b in (ours.blocks[(0,) * a + (k,)] for k in
                                                   range(ours.numblocks[a])))
                       for a in range(ours.ndim))
    assert got_chunks == ours.chunks
    np.testing.assert_array_equal(ours.compute(), want(idx))
    assert "needs" not in str(f.plan())


def test_take_out_of_bounds_raises_numpys_index_error():
    # Dask's own gather returns x[..., 1] for 12 beside 1 in one block (Dask 2026.8)
    x, i = kt.matrix("x", "float32"), kt.vector("i", "int64")
    f = kt.function([x, i], kt.take(x, i, axis=1), backend="dask")
    for bad in ([1, 12], [-11, 0]):
        with pytest.raises(IndexError) as numpy_error:
            np.take(TAKEN, bad, axis=1)
        with pytest.raises(IndexError, match=str(numpy_error.value)):
            f(TAKEN, np.array(bad), chunks=[TC, 2]).compute()


def test_take_along_axis_stays_refused_with_its_reason():
    x, i = kt.matrix("x", "float32"), kt.matrix("i", "int64")
    f = kt.function([x, i], kt.take_along_axis(x, i, axis=1), backend="dask")
    assert "needs x axis 1 whole in each task" in str(f.plan())
    with pytest.raises(RechunkError, match="take_along_axis"):
        f(TAKEN, np.zeros((7, 2), np.int64), chunks=[TC, -1])


# -- bytes per task ------------------------------------------------------------------

def test_memory_and_plan_give_bytes_per_task_before_running():
    x = kt.matrix("x", "float64")
    f = kt.function([x], kt.sort(x, axis=1) * 2, backend="dask", allow_rechunk=True)
    chunks = ((100,) * 10, (100,) * 10)
    report = f.memory(*[chunks])
    row = 100 * 1000 * 8  # a row block, merged from its chunks
    assert report.largest_output == row  # sorted and doubled
    assert report.largest_input == row
    # one fused task: the ten chunks in, merged (a row), sorted (a row, the merged one
    # released after), doubled (a row): at most three rows at once
    assert report.largest[1].inside == 2 * row
    assert report.largest_scheduled == 2 * row  # what a scheduler sees: in and out
    assert report.peak_per_worker == 3 * row
    assert f.memory(chunks, threads_per_worker=4).peak_per_worker == 12 * row
    text = str(f.plan(chunks))
    assert "781.2 KiB in + 781.2 KiB out, 1.5 MiB at once inside" in text and "tasks" in text
    bounded = kt.function([x], kt.sort(x, axis=1) * 2, backend="dask", allow_rechunk=True,
                          max_task_bytes=1_000_000)
    with pytest.raises(TaskTooLargeError, match=r"mul: task .* \(block \(\d+, 0\)\) holds "
                                                r"2.3 MiB .*\(Dask fuses rechunk-merge-sort-"
                                                r"mul into it\), above max_task_bytes"):
        bounded(np.zeros((1000, 1000)), chunks=100)
    assert bounded(np.zeros((1000, 1000)), chunks=(40, 100)).shape == (1000, 1000)
    with pytest.raises(ValueError, match="max_task_bytes must be a positive number"):
        kt.function([x], x, backend="dask", max_task_bytes=-1)


def test_bytes_per_task_are_the_blocks_dask_computes():
    # the accounting against the blocks themselves, task by task, on the sync scheduler
    x, w = kt.matrix("x", "float64"), kt.matrix("w", "float64")
    f = kt.function([x, w], [kt.std(x @ w, axis=0), kt.reshape(x, (-1,))], backend="dask")
    X, W = np.ones((90, 6)), np.ones((6, 4))
    outs = f(X, W, chunks=[((30, 30, 30), (3, 3)), -1])
    owners = {name: "node" for o in outs for name in o.dask.layers}
    predicted = {}
    for t in account(outs, owners).values():
        predicted[t.largest.key] = t.largest.output
    graph = optimize(HighLevelGraph.merge(*(o.__dask_graph__() for o in outs)),
                     [o.__dask_keys__() for o in outs])  # as compute runs it
    results = dict(zip(predicted, dask.get(graph, list(predicted)), strict=True))
    for key, value in results.items():
        got = sum(v.nbytes for v in value.values()) if isinstance(value, dict) else \
            np.asarray(value).nbytes
        assert predicted[key] <= got <= 3 * predicted[key], key  # dicts of moments: 3


@pytest.mark.parametrize("source", ["ones", "from_array"])
def test_a_fused_task_counts_what_it_makes_inside(source):
    # issue #37: da.ones fused into the step reading it was a task of 0 B in (its
    # block and the step's intermediates uncounted), from_array's the same chunks in
    # another shape; the oracle: the bytes NumPy allocates while Dask runs the task
    x = kt.matrix("x", "float64")
    f = kt.function([x], kt.tanh(x) * 2, backend="dask", max_task_bytes=1e9)
    block = 100 * 200 * 8
    arr = da.ones((400, 400), chunks=(100, 200)) if source == "ones" else \
        da.from_array(np.ones((400, 400)), chunks=(100, 200))
    y = f(arr)
    owners = {name: "node" for name in y.dask.layers}
    (tasks,) = account([y], owners).values()
    made = tasks.largest
    assert made.scheduled == made.inputs + block  # what a scheduler counts: unchanged
    graph = optimize(y.__dask_graph__(), y.__dask_keys__())
    task = graph[made.key]
    assert not task.dependencies  # fused: the block is made (or embedded) inside
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        execute_graph({made.key: task}, keys=[made.key])
        allocated = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    embedded = block if source == "from_array" else 0  # allocated before the run
    assert abs(made.inside - embedded - allocated) <= 0.1 * allocated, (made, allocated)
    assert made.inside == embedded + 2 * block  # two blocks alive at once, besides
    assert f.memory(((100,) * 4, (200, 200))).largest[1].held >= 2 * block

"""The Dask backend on a ``dask.distributed`` LocalCluster: two worker processes, each
task's kernel pickled to them (DESIGN §12).

One cluster serves the module: a 10-Op graph must equal the NumPy backend, and a graph
over an array larger than a worker's memory limit must run with no task holding more
than twice the largest chunk, by the scheduler's own accounting (``TaskState.nbytes``
of each task's result and of the results it reads).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import SchedulerPlugin

import kantensor as kt

#: Each worker may use this much (its nanny ends it beyond 95%: the memory test would
#: fail, not wait); the array of the memory test is larger than both together.
MEMORY_LIMIT = 160 * 2**20
#: Rows of a chunk of the memory test's array (64 float64 columns: 4 MiB).
CHUNK_ROWS = 2**13


@pytest.fixture(scope="module")
def client():
    # a worker near its limit fails the test rather than pausing it
    with dask.config.set({"distributed.worker.memory.pause": False}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               memory_limit=MEMORY_LIMIT, dashboard_address=None)
    with Client(cluster) as c:
        yield c
    cluster.close()


class TaskMemory(SchedulerPlugin):
    """For every task that finishes: the bytes of its result and of the results it read."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.held: dict = {}
        self.results: dict = {}

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory":
            ts = self.scheduler.tasks[key]
            self.results[key] = ts.nbytes
            self.held[key] = ts.nbytes + sum(d.nbytes for d in ts.dependencies)


def ten_ops(x, w):
    """Ten Ops: the same code for kantensor tensors and NumPy arrays."""
    h = np.tanh(x @ w)
    z = np.exp(-(h * h)) + h
    return np.sum(z, axis=0), np.max(x, axis=0), np.mean(np.abs(x), axis=0)


def test_ten_op_graph_on_the_cluster_equals_numpy(client):
    x = kt.matrix("x", "float64")
    w = kt.matrix("w", "float64")
    outs = list(ten_ops(x, w))
    assert len(kt.function([x, w], outs).fgraph.toposort()) == 10
    f = kt.function([x, w], outs, backend="dask")
    rng = np.random.default_rng(3)
    X, W = rng.normal(size=(2000, 12)), rng.normal(size=(12, 5))
    lazy = f(X, W, chunks=[(300, 6), -1])
    got = client.compute(lazy, sync=True)
    for g, want in zip(got, kt.function([x, w], outs)(X, W), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12)
    for g, want in zip(got, ten_ops(X, W), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_memory_per_task_is_at_most_twice_the_largest_chunk(client):
    x = kt.matrix("x", "float64")
    w = kt.matrix("w", "float64")
    f = kt.function([x, w], list(ten_ops(x, w)), backend="dask")
    rows = 9 * MEMORY_LIMIT // 4 // (64 * 8)  # 2.25 times a worker's memory limit
    X = da.random.default_rng(0).random((rows, 64), chunks=(CHUNK_ROWS, 64)) - 0.5
    W = np.random.default_rng(1).normal(size=(64, 16))
    assert X.nbytes > 2 * MEMORY_LIMIT  # more than the whole cluster may hold
    plugin = TaskMemory(client.cluster.scheduler)
    client.cluster.scheduler.add_plugin(plugin, name="task-memory")
    try:
        sums, maxima, means = client.compute(f(X, W, chunks=[None, -1]), sync=True)
    finally:
        client.cluster.scheduler.remove_plugin(name="task-memory")
    chunk = CHUNK_ROWS * 64 * 8
    assert sums.shape == (16,) and maxima.shape == (64,) and means.shape == (64,)
    assert max(plugin.results.values()) <= chunk  # no result larger than an input chunk
    assert max(plugin.held.values()) <= 2 * chunk

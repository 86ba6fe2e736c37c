"""The Dask backend on a ``dask.distributed`` LocalCluster: two worker processes with a
memory limit each (their nanny ends a worker past 95% of it), every task's kernel
pickled to them (DESIGN §12).

The nine workloads of the benchmark (``benchmarks/dask_workloads.py``), scaled so that a
task holding a whole contracted or reduced axis would not fit in a worker, run to the
end and equal dask.array's own code on the same cluster; the bytes every task holds,
predicted by ``f.memory`` before anything runs, are within 10% of the scheduler's own
accounting (``TaskState.nbytes`` of each task's result and of the results it reads).
``KANTENSOR_DASK_CLUSTER_SCALE`` (default 1) scales the workloads' rows.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import dask
import dask.array
import dask.order
import numpy as np
import pytest
from dask.base import collections_to_expr
from distributed import Client, LocalCluster, wait
from distributed.diagnostics.plugin import SchedulerPlugin

import kantensor as kt
from kantensor.backend.dask import RechunkError, TaskTooLargeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import dask_workloads  # noqa: E402  (the workloads' one home)

#: Each worker may use this much (its nanny ends it beyond 95%: a test fails, not waits).
MEMORY_LIMIT = 200 * 2**20
SCALE = float(os.environ.get("KANTENSOR_DASK_CLUSTER_SCALE", "1"))

#: Per workload: input shapes and chunks (4-8 MiB blocks), and the bytes one task would
#: hold if the lowering put a whole contracted or reduced axis in it (its input block
#: and its result): each more than a worker may hold.
SCALED = {
    "ten_ops": (((450_000, 64), (64, 16)), ((8192, 64), (64, 16)), None),
    "einsum": (((400_000, 64), (400_000, 16)), ((8192, 64), (8192, 16)), 400_000 * 80 * 8),
    "tensordot": (((400_000, 64), (400_000, 16)), ((8192, 64), (8192, 16)),
                  400_000 * 80 * 8),
    "dot": (((400_000, 64), (400_000, 16)), ((8192, 64), (8192, 16)), 400_000 * 80 * 8),
    "std": (((7000, 7000),), ((500, 2000),), 2 * 7000 * 2000 * 8),
    "diff_trace": (((7000, 7000),), ((500, 2000),), None),
    "reshape": (((600_000, 50),), ((10_000, 50),), None),
    "mask": (((600_000, 50),), ((10_000, 50),), None),
    "xarray": (((7000, 7000),), ((500, 2000),), 2 * 7000 * 2000 * 8),
}


#: Seconds a computation may take before the test fails (one run under heavy load once
#: waited in Client.gather with both workers idle: a failure names it, a hang does not).
TIMEOUT = float(os.environ.get("KANTENSOR_DASK_CLUSTER_TIMEOUT", "600"))


def computed(client, outs):
    """``client.compute(outs, sync=True)``, failing after :data:`TIMEOUT` seconds with the
    workers' states instead of waiting for ever."""
    futures = client.compute(outs)
    try:
        wait(futures, timeout=TIMEOUT)
    except TimeoutError:
        states = {w: (ws.status, len(ws.processing), ws.nbytes)
                  for w, ws in client.cluster.scheduler.workers.items()}
        raise AssertionError(f"the cluster did not finish within {TIMEOUT:g} s; workers "
                             f"(status, tasks processing, bytes held): {states}") from None
    return client.gather(futures)


@pytest.fixture(scope="module")
def client():
    # A worker near its limit fails the test rather than pausing it. The setting stays
    # for the cluster's whole life: a worker its nanny starts again after the `with` has
    # ended comes back with Dask's default (pause at 80%), and one CI run waited paused
    # until the timeout.
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

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory":
            ts = self.scheduler.tasks[key]
            self.held[key] = (ts.nbytes, sum(d.nbytes for d in ts.dependencies))


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
    got = computed(client, f(X, W, chunks=[(300, 6), -1]))
    for g, want in zip(got, kt.function([x, w], outs)(X, W), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12)
    for g, want in zip(got, ten_ops(X, W), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12)


def _scaled(name):
    shapes, chunks, whole = SCALED[name]
    shapes = tuple((max(int(s[0] * SCALE), 2 * c[0]),) + s[1:] if c[0] < s[0] else s
                   for s, c in zip(shapes, chunks, strict=True))
    return dataclasses.replace(dask_workloads.WORKLOADS[name], shapes=shapes, chunks=chunks), whole


def _measured(client, outs):
    """Compute ``outs`` on the cluster, recording every task's bytes."""
    plugin = TaskMemory(client.cluster.scheduler)
    client.cluster.scheduler.add_plugin(plugin, name="task-memory")
    try:
        values = computed(client, outs)
    finally:
        client.cluster.scheduler.remove_plugin(name="task-memory")
    return values, plugin.held


@pytest.mark.parametrize("name", list(SCALED))
def test_workload_runs_chunk_by_chunk_under_the_memory_limit(client, name):
    workload, whole = _scaled(name)
    inputs = dask_workloads.inputs(workload, 1.0)
    assert sum(x.nbytes for x in inputs) > MEMORY_LIMIT  # more than a worker holds
    if whole is not None:
        assert whole > MEMORY_LIMIT  # what a whole-axis lowering would hold in one task
    ours = dask_workloads.build(workload, "kantensor", 1.0)
    theirs = dask_workloads.build(workload, "dask.array", 1.0)
    got, held = _measured(client, ours)
    want = computed(client, theirs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-6)
    generated = {x.name for x in inputs}
    tasks = {k: v for k, v in held.items()
             if (k[0] if isinstance(k, tuple) else k) not in generated}
    measured = max(out + ins for out, ins in tasks.values())
    assert measured < MEMORY_LIMIT / 4
    if name in ("xarray", "mask"):
        return  # built from a DataArray / sizes computed in the call: no placeholder plan
    predicted = _predicted(workload)
    assert abs(predicted - measured) <= 0.1 * measured, (predicted, measured)


@pytest.mark.parametrize("name", ["diff_trace", "std", "reshape"])
def test_workload_is_dask_arrays_graph_key_for_key(name):
    """kantensor lowers ``diff``, ``sum``, ``trace``, ``mean``, ``std`` and ``reshape`` to
    dask.array's own functions with dask.array's arguments, and an elementwise node on
    Dask arrays of NumPy's loop dtypes (``x - mean``, ``/ std``, ``y * y``) to
    dask.array's own ``elemwise`` call, so the optimised graph is dask.array's, key for
    key (names and tokens), and ``dask.order`` runs it in the same order, holding as
    many results at once. Peak memory per worker on a cluster then differs only by the
    run (docs/dask.rst: ``diff_trace`` 231 to 291 MB for either variant, run in turns),
    not by a key name of kantensor's that orders the graph otherwise (issue #37:
    ``std`` peaked at 1.14 to 1.21x dask.array's memory with its elementwise nodes named
    kantensor's way)."""
    workload, _ = _scaled(name)
    graphs = [dict(collections_to_expr(dask_workloads.build(workload, v, 1.0),
                                       optimize_graph=True).__dask_graph__())
              for v in ("kantensor", "dask.array")]
    ours, theirs = graphs
    assert set(ours) == set(theirs)
    order = [dask.order.order(g) for g in graphs]
    assert order[0] == order[1]
    held = [max(dask.order.diagnostics(g)[1]) for g in graphs]
    assert held[0] == held[1]


def _predicted(workload):
    """The most the scheduler will count for one task of the kantensor plan for the
    workload's chunks (its inputs and result), before running."""
    tensors = [kt.TensorType("float64", (None,) * len(s))(f"x{i}")
               for i, s in enumerate(workload.shapes)]
    outs, options = workload.kantensor(kt, *tensors)
    f = kt.function(tensors, outs, backend="dask", **options)
    chunks = [tuple(_axis(n, c) for n, c in zip(s, cs, strict=True))
              for s, cs in zip(workload.shapes, workload.chunks, strict=True)]
    return f.memory(*chunks).largest_scheduled


def _axis(n, c):
    return (c,) * (n // c) + ((n % c,) if n % c else ())


def test_the_plan_refuses_what_it_must_before_anything_runs(client):
    x = kt.matrix("x", "float64")
    f = kt.function([x], kt.sort(x, axis=0), backend="dask", allow_rechunk=True,
                    max_task_bytes=MEMORY_LIMIT / 4)
    X = dask_workloads.inputs(dataclasses.replace(
        dask_workloads.WORKLOADS["std"], shapes=((7000, 7000),), chunks=((500, 2000),)), 1.0)[0]
    with pytest.raises(TaskTooLargeError, match=r"sort\{axis=0\}: task"):
        f(X)
    with pytest.raises(RechunkError, match="allow_rechunk=True"):
        kt.function([x], kt.sort(x, axis=0), backend="dask")(X)
    assert f.memory(X.chunks).largest[1].held > MEMORY_LIMIT / 4


def test_take_by_chunks_on_the_cluster(client):
    """x[i] by a Dask array of indices (issue #37: refused, the whole axis in one task):
    NumPy's values on worker processes, and the most the scheduler counts for one task
    within 10% of the plan's prediction."""
    x, i = kt.matrix("x", "float64"), kt.vector("i", "int64")
    f = kt.function([x, i], x[i], backend="dask", max_task_bytes=MEMORY_LIMIT / 8)
    rng = np.random.default_rng(7)
    X, Idx = rng.normal(size=(6000, 500)), rng.integers(-6000, 6000, 4000)
    xc, ic = ((500,) * 12, (500,)), ((1000,) * 4,)
    ours = f(dask.array.from_array(X, chunks=xc), dask.array.from_array(Idx, chunks=ic))
    assert ours.chunks == f.chunks(xc, ic) == (ic[0], (500,))
    got, held = _measured(client, [ours])
    np.testing.assert_array_equal(got[0], X[Idx])
    measured = max(out + ins for k, (out, ins) in held.items()
                   if not str(k[0] if isinstance(k, tuple) else k).startswith("finalize"))
    predicted = f.memory(xc, ic).largest_scheduled
    assert abs(predicted - measured) <= 0.1 * measured, (predicted, measured)


#: What a worker evaluates to list its kantensor modules (a builtin and text: a function
#: of this module would import it, and kantensor's lowering with it, on the worker).
_WORKER_MODULES = "sorted(m for m in __import__('sys').modules if m.startswith('kantensor'))"


def test_a_worker_imports_the_kernels_not_the_lowering(client):
    """A worker unpickles each task's kernel (``kantensor.backend.dask.kernels``), which
    imports ``kantensor`` and that module where a task needs kantensor (an input block
    to cast, an einsum that repeats a subscript): nothing else of kantensor (the
    lowering, which only the process building the arrays needs), after every graph the
    tests above ran on these workers (the nine workloads, a take by chunks)."""
    x, n = kt.matrix("x", "float64"), kt.matrix("n", "int32")
    f = kt.function([x, n], [kt.einsum("ii,ik->k", x[:6], x[:6]), x + n], backend="dask")
    X, N = np.arange(600.0).reshape(100, 6), np.arange(600, dtype=np.int32).reshape(100, 6)
    got = computed(client, f(dask.array.from_array(X, chunks=(10, 6)),
                             dask.array.from_array(N, chunks=(10, 6))))
    np.testing.assert_allclose(got[0], np.einsum("ii,ik->k", X[:6], X[:6]))
    np.testing.assert_array_equal(got[1], X + N)
    package = subprocess.run([sys.executable, "-c",
                              f"import kantensor; print({_WORKER_MODULES})"],
                             capture_output=True, text=True, check=True).stdout
    allowed = {*ast.literal_eval(package), "kantensor.backend.dask",
               "kantensor.backend.dask.kernels"}
    for worker, found in client.run(eval, _WORKER_MODULES).items():
        assert "kantensor.backend.dask.kernels" in found, worker
        assert set(found) <= allowed, (worker, sorted(set(found) - allowed))


def test_a_worker_imports_no_kantensor_where_the_tasks_call_numpys_own_functions(client):
    """Workers started afresh (``client.restart``), then graphs whose every Op computes
    with one of NumPy's own functions (the ten Ops, a contraction's partial products,
    kantensor's einsum where it is ``numpy.einsum``, a mask's counts with
    ``compute_chunk_sizes=True``, a constant exponent, takes by chunks along either
    axis by indices of one and two axes): each task
    pickles as NumPy's functions composed, so no worker imports any kantensor module
    (``import kantensor`` is about 12 MiB on a worker holding about 200 MB in the
    benchmark), and the values are NumPy's."""
    client.restart()
    x, w, v = kt.matrix("x", "float64"), kt.matrix("w", "float64"), kt.vector("v", "float64")
    rng = np.random.default_rng(11)
    X, W, V = rng.normal(size=(2000, 12)), rng.normal(size=(12, 5)), rng.normal(size=2000)
    f = kt.function([x, w], list(ten_ops(x, w)), backend="dask")
    got = computed(client, f(X, W, chunks=[(300, 6), -1]))
    for g, want in zip(got, ten_ops(X, W), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12)
    t = kt.function([x], kt.tensordot(x, x, axes=([0], [0])), backend="dask")
    np.testing.assert_allclose(computed(client, t(X, chunks=(300, 12))), X.T @ X, rtol=1e-12)
    e = kt.function([x, v], kt.einsum("ij,i->j", x, v), backend="dask")
    np.testing.assert_allclose(computed(client, e(X, V, chunks=[(300, 6), 300])),
                               np.einsum("ij,i->j", X, V), rtol=1e-12)
    i, j = kt.vector("i", "int64"), kt.matrix("j", "uint16")
    g = kt.function([x, i, j], [x[i], kt.take(x, j, axis=1)], backend="dask")
    Idx, J = rng.integers(-2000, 2000, 700), rng.integers(0, 12, (40, 3)).astype(np.uint16)
    got = computed(client, g(X, Idx, J, chunks=[(300, 5), 200, (15, 2)]))
    np.testing.assert_array_equal(got[0], X[Idx])
    np.testing.assert_array_equal(got[1], np.take(X, J, axis=1))
    m = kt.function([x, v], kt.sum(kt.reshape(x[v > 0], (-1,)) ** 2), backend="dask",
                    compute_chunk_sizes=True)
    np.testing.assert_allclose(computed(client, m(X, V, chunks=300)),
                               np.sum(X[V > 0] ** 2), rtol=1e-12)
    for worker, found in client.run(eval, _WORKER_MODULES).items():
        assert found == [], (worker, found)

"""The memory plan beyond one thread's elementwise runs: the interpreter of large graphs
releases dead values and reuses their buffers as the generated code does; block runs
shared by threads; Ops other than ufuncs whose NumPy function takes ``out=`` (matmul,
reductions) write into dead buffers. Every way gives the plain interpreter's values byte
for byte."""

import threading

import numpy as np
import pytest

import kantensor as kt
from kantensor.backend import workers
from kantensor.backend.linker import CODEGEN_LIMIT
from kantensor.backend.mode import execution
from kantensor.backend.workers import run_blocks
from kantensor.types.dtypes import DTYPE_TABLE
from test_backend_plan import FORCED, assert_identical, g14, numpy_peak, run_all


def test_a_graph_too_large_for_generated_code_releases_its_values():
    x = kt.dvector("x")
    z = x
    for _ in range(CODEGEN_LIMIT // 2 + 10):  # two nodes a step: interpreted
        z = kt.sin(z) * 2.0
    f = kt.function([x], z)
    assert type(f).__call__ is kt.Function.__call__ and f.plan is not None
    n = 20_000
    report = f.memory((n,))
    assert report.planned
    assert report.peak <= 3 * 8 * n < report.plain_peak  # not one buffer per node
    a = np.random.default_rng(0).uniform(-1, 1, n)
    with execution(generate=False, plan=False):
        plain = kt.function([x], z)
    assert f(a).tobytes() == plain(a).tobytes()
    want = a
    for _ in range(CODEGEN_LIMIT // 2 + 10):
        want = np.sin(want) * 2.0
    assert numpy_peak(f, a) <= report.peak + 1024
    np.testing.assert_array_equal(f(a), want)


@pytest.fixture
def idle(monkeypatch):
    """A machine whose CPUs the load average says are idle (so helpers always join)."""
    monkeypatch.setattr(workers, "idle_cpus", lambda: 64)


def test_block_runs_shared_by_threads_give_the_plain_values(idle):
    x, y = kt.dvector("x"), kt.dvector("y")
    outs = [g14(kt, x, y), kt.exp(x) * y, (x + y)[::2] * 2.0]
    with execution(plan_min_size=0, block_bytes=16, threads=3):
        f = kt.function([x, y], outs)
    with execution(generate=False, plan=False):
        plain = kt.function([x, y], outs)
    rng = np.random.default_rng(5)
    for n in (0, 1, 7, 8, 9, 1001):  # up to 500 blocks of two, three threads
        a, b = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
        assert_identical(f(a, b), plain(a, b))


def test_helper_threads_take_blocks_once_each_under_the_callers_errstate(idle):
    seen: list[tuple[int, int, str]] = []
    second = threading.Event()

    def part(starts):
        for i in starts:
            if i >= 64:
                break
            seen.append((i, threading.get_ident(), np.geterr()["over"]))
            if seen[0][1] != threading.get_ident():
                second.set()
            elif i == 0:  # the thread of the first block waits for the other one
                assert second.wait(10)

    with np.errstate(over="raise"):
        run_blocks(part, 64, 2, threads=2)  # 32 blocks: one helper
    assert sorted(i for i, _, _ in seen) == list(range(0, 64, 2))
    assert len({t for _, t, _ in seen}) == 2
    assert {e for _, _, e in seen} == {"raise"}


def test_a_busy_machine_runs_the_blocks_in_the_calling_thread(monkeypatch):
    monkeypatch.setattr(workers, "idle_cpus", lambda: 0)  # no CPU idle besides ours
    seen = []

    def part(starts):
        for i in starts:
            if i >= 64:
                break
            seen.append(threading.get_ident())

    run_blocks(part, 64, 2, threads=4)
    assert set(seen) == {threading.get_ident()} and len(seen) == 32


def test_an_error_in_a_helper_thread_reaches_the_caller(idle):
    x = kt.dvector("x")
    with execution(plan_min_size=0, block_bytes=16, threads=2):
        f = kt.function([x], kt.exp(x * 2.0) + 1.0)
    a = np.zeros(400)
    a[-3:] = 1000.0  # overflows in the last block only
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        f(a)
    with np.errstate(over="ignore"):
        assert f(a).tobytes() == (np.exp(a * 2.0) + 1.0).tobytes()


def _product_graph(x, w, v):
    """A matrix product after a node at which a buffer of its type died:
    ``(isnan(sin(x) + v), x @ w)``, the product into the buffer of ``sin(x) + v`` (the
    vector ``v`` keeps the elementwise nodes out of a block run)."""
    return kt.isnan(kt.sin(x) + v), x @ w


def test_a_matrix_product_writes_into_a_buffer_that_died_just_before():
    x, w, v = kt.dmatrix("x"), kt.dmatrix("w"), kt.dvector("v")
    outs = list(_product_graph(x, w, v))
    with execution(**FORCED):
        f = kt.function([x, w, v], outs)
    assert f.plan.action(3) == "into the dead buffer of add.out"
    rng = np.random.default_rng(6)
    for xs, ws in [((5, 5), (5, 5)), ((5, 3), (3, 3)), ((4, 6), (6, 4)), ((3, 0), (0, 3))]:
        a, b, c = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(xs[1])
        got, _ = run_all([x, w, v], outs, [a, b, c])  # where the shapes differ: a new array
        np.testing.assert_allclose(got[1], a @ b)
        run_all([x, w, v], outs, [np.asfortranarray(a), b, c])  # an F-ordered buffer


def test_matrix_products_with_aliases():
    x, v = kt.dmatrix("x"), kt.dvector("v")
    a, c = np.random.default_rng(7).standard_normal((6, 6)), np.arange(6.0) / 6
    mask, p = _product_graph(x, x, v)  # an input used twice
    run_all([x, v], [mask, p, x], [a, c])  # an output that is an input
    run_all([x, v], [mask, p, p.T, p[1:]], [a, c])  # outputs that are views of the product
    t = kt.sin(x) + v
    for view in (t.T, t[1:], t.reshape((-1,))):  # the buffer lives on in a view
        outs = [kt.isnan(t), x @ x, view]
        with execution(**FORCED):
            assert kt.function([x, v], outs).plan.action(3) == ""
        got, _ = run_all([x, v], outs, [a, c])
        np.testing.assert_array_equal(got[1], a @ a)
    for dtype in ("float32", "int64", "complex128"):
        m, u = kt.matrix("m", dtype), kt.vector("u", dtype)
        run_all([m, u], list(_product_graph(m, m, u)),
                [(a * 3).astype(dtype), c.astype(dtype)])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int8",
                                   "uint16", "int64"])
def test_matrix_products_into_dead_buffers_of_every_dtype(dtype):
    x, w, v = kt.matrix("x", dtype), kt.matrix("w", dtype), kt.vector("v", dtype)
    outs = list(_product_graph(x, w, v))
    rng = np.random.default_rng(8)
    for n, k, m in [(1, 1, 1), (2, 3, 3), (7, 1, 1), (4, 9, 9), (0, 2, 2), (2, 0, 0), (3, 4, 5)]:
        # (the product goes into the buffer of sin(x) + v where k == m)
        a, b = (rng.uniform(-100, 100, s).astype(dtype) for s in [(n, k), (k, m)])
        run_all([x, w, v], outs, [a, b, rng.uniform(-9, 9, k).astype(dtype)])


REDUCE = {"sum": kt.sum, "prod": kt.prod, "max": kt.max, "min": kt.min}


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("dtype", [d.name for d in DTYPE_TABLE if d.reduces_into])
def test_reductions_write_into_a_buffer_that_died_just_before(name, dtype):
    x, v = kt.matrix("x", dtype), kt.vector("v", dtype)
    reduce = REDUCE[name]
    rng = np.random.default_rng(9)
    for axis in (0, 1):
        s = reduce(x, axis=axis)
        outs = [kt.exp(v) * x, s]  # exp(v) dies at the product: the reduction's buffer
        with execution(**FORCED):
            assert kt.function([x, v], outs).plan.action(2) == "into the dead buffer of exp.out"
        for shape in [(5, 5), (1, 1), (3, 5), (5, 3)]:  # the sizes fit or not
            a = rng.uniform(-2, 2, shape).astype(dtype)
            a.flat[0] = -0.0
            b = rng.uniform(-1, 1, shape[1]).astype(dtype)
            got, _ = run_all([x, v], outs, [a, b])
            np.testing.assert_array_equal(got[1], getattr(np, name)(a, axis=axis))
            run_all([x, v], outs, [np.asfortranarray(a), b])  # not C-contiguous: a new array
            run_all([x, v], [*outs, s[1:], x, reduce(x, axis=axis, keepdims=True)], [a, b])


def test_a_buffer_seen_through_a_long_chain_of_views_lives_as_long_as_the_last():
    x = kt.dmatrix("x")
    t = kt.exp(x)
    view = t
    for _ in range(CODEGEN_LIMIT + 1):  # interpreted; each transpose may view t
        view = view.T
    s = kt.sin(x) * t  # t's last own use: it would take t's buffer but for the views
    outs = [s, kt.cos(view) + 1.0, view]
    with execution(generate=False):
        f = kt.function([x], outs)
    multiply = next(n for n in f.plan.nodes if n.op == kt.mul)
    assert f.plan.target.get(multiply) is not t
    a = np.random.default_rng(10).uniform(-1, 1, (3, 3))
    got = f(a)
    assert_identical(got, [np.sin(a) * np.exp(a), np.cos(np.exp(a).T) + 1.0, np.exp(a).T])

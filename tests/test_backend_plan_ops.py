"""The memory plan beyond one thread's elementwise runs: the interpreter of large graphs
releases dead values and reuses their buffers as the generated code does; block runs
shared by threads; Ops other than ufuncs whose NumPy function takes ``out=`` (matmul,
reductions) write into dead buffers. Every way gives the plain interpreter's values byte
for byte."""

import threading

import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.linker import CODEGEN_LIMIT
from kantensor.backend.mode import execution
from kantensor.backend.workers import run_blocks
from test_backend_plan import assert_identical, g14, numpy_peak


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


def test_block_runs_shared_by_threads_give_the_plain_values():
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


def test_helper_threads_take_blocks_once_each_under_the_callers_errstate():
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


def test_an_error_in_a_helper_thread_reaches_the_caller():
    x = kt.dvector("x")
    with execution(plan_min_size=0, block_bytes=16, threads=2):
        f = kt.function([x], kt.exp(x * 2.0) + 1.0)
    a = np.zeros(400)
    a[-3:] = 1000.0  # overflows in the last block only
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        f(a)
    with np.errstate(over="ignore"):
        assert f(a).tobytes() == (np.exp(a * 2.0) + 1.0).tobytes()

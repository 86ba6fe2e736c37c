"""The memory plan beyond elementwise runs: the interpreter of large graphs releases
dead values and reuses their buffers as the generated code does, and Ops other than
ufuncs whose NumPy function takes ``out=`` (matmul, reductions) write into dead buffers;
every way gives the plain interpreter's values byte for byte."""

import numpy as np

import kantensor as kt
from kantensor.backend.linker import CODEGEN_LIMIT
from kantensor.backend.mode import execution
from test_backend_plan import numpy_peak


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

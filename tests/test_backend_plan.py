"""The memory plan of compiled Functions (kantensor.backend.plan): the planned code gives
the plain interpreter's outputs byte for byte, never writes into the caller's arrays,
constants or returned outputs, and needs no more memory than NumPy's own expression.

``KANTENSOR_PLAN_GRAPHS`` sets the number of random graphs (default 150, a few
seconds); each has its own seed, ``KANTENSOR_PLAN_SEED`` + its number.
"""

import os
import threading
import tracemalloc

import numpy as np
import pytest

import kantensor as kt
import sizing
from kantensor.backend.mode import current, execution
from kantensor.graph import codegen

GRAPHS = sizing.size("PLAN_GRAPHS", 150, 1500)
SEED = int(os.environ.get("KANTENSOR_PLAN_SEED", "26"))

#: The plan for any size, in blocks of two float64 (so small arrays run block by block).
FORCED = {"plan_min_size": 0, "block_bytes": 16}


def compiled(inputs, outputs, **kwargs):
    """The same graph four ways: plain interpreter, generated code without the plan,
    generated code with the plan forced on, and the interpreter with its plan."""
    with execution(generate=False, plan=False):
        plain = kt.function(inputs, outputs, **kwargs)
    with execution(plan=False):
        unplanned = kt.function(inputs, outputs, **kwargs)
    with execution(**FORCED):
        planned = kt.function(inputs, outputs, **kwargs)
    with execution(generate=False):
        interpreted = kt.function(inputs, outputs, **kwargs)
    return plain, unplanned, planned, interpreted


def assert_identical(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        assert g.tobytes() == w.tobytes(), (g, w)


def run_all(inputs, outputs, arrays, **kwargs):
    """Run the three ways on copies of ``arrays``; assert identical outputs and unchanged
    inputs; return the planned Function's outputs and the arrays it was given."""
    plain, unplanned, planned, interpreted = compiled(inputs, outputs, **kwargs)
    given, given_too = [a.copy() for a in arrays], [a.copy() for a in arrays]
    with np.errstate(all="ignore"):
        want = plain(*[a.copy() for a in arrays])
        assert_identical(unplanned(*[a.copy() for a in arrays]), want)
        got = planned(*given)
        assert_identical(interpreted(*given_too), want)
    assert_identical(got, want)
    for a, g, h in zip(arrays, given, given_too, strict=True):
        assert a.tobytes() == g.tobytes() == h.tobytes()  # no input changed
    return got, given


def g14(lib, x, y):
    """The 14-node graph of the benchmarks."""
    z = x * y + 1.0
    z = lib.tanh(z) * 2.0 - y
    z = lib.exp(-z * z) + x
    return lib.sqrt(z * z + 1.0) / (y + 2.0)


def test_the_switches():
    x, y = kt.dvector("x"), kt.dvector("y")
    plain, unplanned, planned, interpreted = compiled([x, y], [g14(kt, x, y)])
    assert type(plain).__call__ is kt.Function.__call__  # the interpreter: no generated code
    assert not hasattr(plain, "source") and plain.plan is None
    assert type(interpreted).__call__ is kt.Function.__call__
    assert interpreted.plan.target and not interpreted.plan.runs  # no blocks, any size
    unplanned_text, planned_text = type(unplanned).__call__.source, type(planned).__call__.source
    assert unplanned.plan is None and "del " not in unplanned_text
    assert "del " in planned_text and " in starts:" in planned_text  # the blocks' loop
    assert len(planned.plan.runs) == 1  # the 14 nodes are one block run
    assert "memory plan: 14 in block runs" in planned._repr_html_()
    assert "memory plan" not in plain._repr_html_()
    assert kt.function([x, y], g14(kt, x, y), check=True).plan is None
    assert current().generate and current().plan  # the with blocks left no trace


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 64])
def test_the_14_node_graph_in_blocks_and_not(n):
    x, y = kt.dvector("x"), kt.dvector("y")
    rng = np.random.default_rng(n)
    a, b = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
    got, _ = run_all([x, y], [g14(kt, x, y)], [a, b])
    np.testing.assert_allclose(got[0], g14(np, a, b), rtol=1e-15)


def test_operands_that_do_not_fit_the_blocks_take_the_node_by_node_path():
    x, y = kt.dmatrix("x"), kt.dmatrix("y")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 4))
    for b in (rng.standard_normal((4, 5)).T, rng.standard_normal((1, 4)),  # not contiguous,
              rng.standard_normal((5, 1))):                               # broadcast
        run_all([x, y], [g14(kt, x, y)], [a, b])
        run_all([x, y], [g14(kt, x, y)], [b, a])


def test_an_output_that_is_an_input_is_a_copy_and_views_stay_views():
    # issue 27: the caller's array itself was returned
    v = kt.dvector("v")
    for f in compiled([v], [v, v[1:]]):  # the four ways
        a = np.arange(4.0)
        same, tail = f(a)
        assert not np.shares_memory(same, a)
        np.testing.assert_array_equal(same, a)
        assert np.shares_memory(tail, a)  # like NumPy's a[1:]: documented in backend.rst
    single = kt.function([v], v)
    a = np.arange(3.0)
    assert single(a) is not a


def test_an_input_used_twice_and_operands_that_overlap():
    x = kt.dvector("x")
    t = kt.exp(x)
    outs = [(t * t + t) * (x + x), t[::-1] + t, t[1:] * t[:-1]]
    a = np.random.default_rng(2).uniform(-1, 1, 9)
    got, _ = run_all([x], outs, [a])
    e = np.exp(a)
    np.testing.assert_allclose(got[0], (e * e + e) * (a + a))
    np.testing.assert_allclose(got[1], e[::-1] + e)


def test_outputs_that_are_views_of_each_other_are_never_written_over():
    x = kt.dvector("x")
    w = kt.sin(x) * 2.0
    u = w[1:]
    after = kt.cos(w + 1.0) * 3.0  # w dies here, but it is returned
    a = np.random.default_rng(3).uniform(-1, 1, 8)
    got, _ = run_all([x], [w, u, after], [a])
    want = np.sin(a) * 2.0
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], want[1:])
    assert np.shares_memory(got[0], got[1])


def test_a_buffer_is_reused_only_after_every_view_of_it_died():
    x = kt.dvector("x")
    t = kt.exp(x)
    u = t[1:]  # a view of t's buffer, still used after t's own last use
    s = kt.sin(x) + 1.0  # would go into t's buffer if views were ignored
    z = (s[1:] + u) * 2.0
    z2 = kt.cos(z) - 1.0  # z's buffer, dead here, may be written
    a = np.random.default_rng(4).uniform(-1, 1, 16)
    got, _ = run_all([x], [z2], [a])
    e = np.exp(a)
    np.testing.assert_allclose(got[0], np.cos((np.sin(a)[1:] + 1.0 + e[1:]) * 2.0) - 1.0)
    with execution(**FORCED):
        f = kt.function([x], [z2])
    nodes = f.fgraph.toposort()
    exp_out = next(n.outputs[0] for n in nodes if n.op == kt.exp)
    assert all(v is not exp_out for v in f.plan.target.values())
    last = max(i for i, n in enumerate(nodes) if n.op == kt.cos)
    assert f.plan.action(last)  # after the view died, the plan does write


def test_never_into_constants_or_the_callers_arrays():
    x = kt.dvector("x")
    c = kt.constant(np.arange(5.0))
    outs = [kt.exp(c + x) * 2.0, kt.sqrt(x * x + c)]
    a = np.random.default_rng(5).uniform(0, 1, 5)
    before = c.data.copy()
    run_all([x], outs, [a])
    np.testing.assert_array_equal(c.data, before)
    run_all([x], outs, [a], trust_input=True)


def test_dtypes_wrap_around_and_mixed_ranks():
    i8 = kt.tensor("i8", "int8", (None, 3))
    f32 = kt.tensor("f32", "float32", (3,))
    outs = [(i8 * 100 + i8) * i8, kt.tanh(f32 + 1.5) * f32 + i8, (i8 < 2) & (i8 > -5)]
    rng = np.random.default_rng(6)
    run_all([i8, f32], outs, [rng.integers(-128, 127, (4, 3), dtype="int8"),
                              rng.standard_normal(3).astype("float32")])


def random_graph(rng, x, y, lib):
    """A random graph of unary and binary elementwise Ops, views and reductions on
    ``lib`` (kantensor or numpy): returns the outputs."""
    values = [x, y]
    for _ in range(rng.integers(3, 16)):
        kind = rng.integers(0, 8)
        a = values[rng.integers(len(values))]
        b = values[rng.integers(len(values))]
        if kind <= 2:
            values.append([lib.sin, lib.exp, lib.tanh, lib.abs][rng.integers(4)](a))
        elif kind <= 5:
            op = [lambda p, q: p + q, lambda p, q: p * q, lambda p, q: p - q,
                  lambda p, q: p * 0.5 + 1.0][kind - 3]
            values.append(op(a, b) if a.ndim == b.ndim else op(a, a))
        elif kind == 6:
            values.append(a.T if a.ndim == 2 else a[::-1])
        else:
            values.append(lib.sum(a, axis=0, keepdims=True) + a)
    picks = rng.choice(len(values) - 2, size=min(3, len(values) - 2), replace=False) + 2
    return [values[i] for i in sorted(picks)]


def test_random_graphs():
    for g in range(GRAPHS):
        rng = np.random.default_rng(SEED + g)
        side = int(rng.integers(1, 5))
        shape = (side, side)  # square: a transpose has the shape of the others
        x, y = kt.dmatrix("x"), kt.dmatrix("y")
        outs = random_graph(np.random.default_rng(SEED + g), x, y, kt)
        data = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)
        got, _ = run_all([x, y], outs, list(data))
        with np.errstate(all="ignore"):
            want = random_graph(np.random.default_rng(SEED + g), *data, np)
        for o, w in zip(got, want, strict=True):
            np.testing.assert_allclose(o, w, rtol=1e-13, err_msg=f"graph {g}")


def test_threads_call_one_planned_function_at_once():
    x, y = kt.dvector("x"), kt.dvector("y")
    with execution(plan_min_size=0, block_bytes=256):
        f = kt.function([x, y], [g14(kt, x, y), kt.exp(x) * y])
    rng = np.random.default_rng(8)
    args = [[(rng.uniform(-1, 1, 200 + t), rng.uniform(-1, 1, 200 + t)) for _ in range(10)]
            for t in range(8)]
    results = [[None] * 10 for _ in range(8)]
    errors = []
    start = threading.Barrier(8)

    def work(t):
        try:
            start.wait()
            for c, (a, b) in enumerate(args[t]):
                results[t][c] = f(a, b)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for t in range(8):
        for c, (a, b) in enumerate(args[t]):
            np.testing.assert_array_equal(results[t][c][0], g14(np, a, b))
            np.testing.assert_array_equal(results[t][c][1], np.exp(a) * b)


def numpy_peak(fn, *args):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del result
    return peak


def test_memory_report_peak_at_most_numpys_own_expression():
    x, y = kt.dvector("x"), kt.dvector("y")
    f = kt.function([x, y], g14(kt, x, y))
    n = 100_000
    report = f.memory((n,), (n,))
    assert report.planned
    a = np.zeros(n)
    assert report.peak <= numpy_peak(g14, np, a, a)
    assert report.peak < report.plain_peak
    assert report.peak >= 8 * n  # the output is allocated in the call
    text = str(report)
    assert "block run 0 (into its array)" in text and "true_divide" in text
    small = f.memory((10,), (10,))
    assert not small.planned
    with pytest.raises(TypeError, match="one shape per input"):
        f.memory((3,))


def test_memory_report_of_a_layer_names_what_runs_in_place():
    x, w, b = kt.fmatrix("x"), kt.fmatrix("w"), kt.fvector("b")
    f = kt.function([x, w, b], kt.tanh(x @ w + b))
    report = f.memory((256, 64), (64, 128), (128,))
    assert [a for _, a in report.nodes] == ["", "in place of matmul.out", "in place of add.out"]
    assert report.peak < report.plain_peak
    # the same with NumPy's own expression: its temporaries
    a, wa, ba = (np.zeros(s, "float32") for s in [(256, 64), (64, 128), (128,)])
    assert report.peak <= numpy_peak(lambda: np.tanh(a @ wa + ba))


def test_the_process_switch_of_generated_code_gives_the_interpreter():
    """kantensor.graph.codegen.plain() (as KANTENSOR_GENERATED_CODE=0) compiles Functions
    to the plain interpreter, whose values are the generated code's."""
    x = kt.dvector("x")
    out = kt.tanh(x * 2.0) + kt.exp(-x)
    generated = kt.function([x], out)
    with codegen.plain():
        plain = kt.function([x], out)
    assert hasattr(type(generated).__call__, "source")
    assert not hasattr(type(plain).__call__, "source")
    value = np.linspace(-2, 2, 50_000)
    assert generated(value).tobytes() == plain(value).tobytes()


class _Tagged(np.ndarray):
    """An ndarray subclass: the filter makes a plain ndarray of it; a trusted function
    takes it as given, and a subclass runs the plain body (no flat views, no out=)."""


@pytest.mark.parametrize("trust", [False, True])
def test_an_ndarray_subclass_of_plan_size_computes_as_numpy_does(trust):
    x, y = kt.dvector("x"), kt.dvector("y")
    f = kt.function([x, y], kt.sqrt(kt.abs(x * y + x)), trust_input=trust)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(50_000), rng.standard_normal(50_000)
    got = f(a.view(_Tagged), b.view(_Tagged))
    np.testing.assert_array_equal(np.asarray(got), np.sqrt(np.abs(a * b + a)))
    if not trust:
        assert type(got) is np.ndarray  # the filter made plain arrays of the inputs

"""How compiled Functions run: generated code, the interpreter for large graphs, checks,
and calls from many threads at once. Every value is compared with NumPy's."""

import threading

import numpy as np
import pytest

import kantensor as kt
from kantensor.backend import linker
from kantensor.backend.mode import execution

MODES = ["generated", "planned", "interpreter", "checked", "checked interpreter"]


def compile_in(mode, monkeypatch, inputs, outputs, **kwargs):
    """kt.function in one of the five ways a Function runs ("planned": the memory plan
    for any size, in blocks of 64 bytes)."""
    if "interpreter" in mode:
        monkeypatch.setattr(linker, "CODEGEN_LIMIT", 0)
    with execution(plan_min_size=0 if mode == "planned" else 1 << 14, block_bytes=64):
        return kt.function(inputs, outputs, check=mode.startswith("checked"), **kwargs)


def long_graph(lib, x, y):
    """150 elementwise nodes (75 rounds of two) on ``lib``: kantensor or numpy."""
    z = x
    for i in range(75):
        z = lib.sin(z * y) if i % 2 else lib.cos(z + x)
    return z


def test_long_graph_has_150_nodes():
    x, y = kt.dvector("x"), kt.dvector("y")
    assert len(kt.toposort([long_graph(kt, x, y)])) == 150


@pytest.mark.parametrize("mode", MODES)
def test_one_function_called_from_eight_threads_at_once(mode, monkeypatch):
    x, y = kt.dvector("x"), kt.dvector("y")
    f = compile_in(mode, monkeypatch, [x, y], long_graph(kt, x, y))
    rng = np.random.default_rng(7)
    n_threads, calls = 8, 12
    args = [[(rng.standard_normal(1000), rng.standard_normal(1000)) for _ in range(calls)]
            for _ in range(n_threads)]
    expected = [[long_graph(np, a, b) for a, b in per_thread] for per_thread in args]
    results = [[None] * calls for _ in range(n_threads)]
    errors = []
    start = threading.Barrier(n_threads)

    def work(t):
        try:
            start.wait()
            for c, (a, b) in enumerate(args[t]):
                results[t][c] = f(a, b)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for t in range(n_threads):
        for c in range(calls):
            np.testing.assert_array_equal(results[t][c], expected[t][c])


@pytest.mark.parametrize("mode", MODES)
def test_dtypes_casts_and_wrap_around(mode, monkeypatch):
    i8 = kt.tensor("i8", "int8", (None,))
    f32 = kt.tensor("f32", "float32", (3,))
    s = kt.tensor("s", "int16", ())
    outs = [i8 + i8, i8 * 100, f32 + 1.5, f32 < 2, s + s, kt.sum(i8), f32 / 2, i8, -s]
    f = compile_in(mode, monkeypatch, [i8, f32, s], outs)
    a = np.array([100, -100, 7], "int8")
    b = np.array([1.0, 2.0, 3.0], "float32")
    c = np.array(30000, "int16")
    with np.errstate(all="ignore"):
        want = [a + a, (a * np.int8(100)).astype("int8"), b + np.float32(1.5), b < 2,
                c + c, np.sum(a, dtype="int64"), b / np.float32(2), a, -c]
    got = f(a, b, c)
    for value, expected, out in zip(got, want, outs, strict=True):
        assert type(value) is np.ndarray
        assert value.dtype == np.dtype(out.type.dtype) == expected.dtype
        np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("mode", MODES)
def test_inputs_filtered_and_dims_bound_in_every_mode(mode, monkeypatch):
    n = kt.Dim("n")
    x = kt.tensor("x", "float64", (n,))
    y = kt.tensor("y", "float32", (n, 2))
    f = compile_in(mode, monkeypatch, [x, y], x[:, None] * y)
    got = f([1, 2], [[1, 2], [3, 4]])  # lists, ints: filtered into the types
    np.testing.assert_array_equal(got, [[1.0, 2.0], [6.0, 8.0]])
    assert got.dtype == np.float64
    with pytest.raises(ValueError, match=r"dimension n is 2 in input 0 \(x\)"):
        f([1.0, 2.0], np.zeros((3, 2), "float32"))
    with pytest.raises(TypeError, match=r"bad value for input 1 \(y\): axis 1 has length 3"):
        f([1.0], np.zeros((1, 3), "float32"))


def test_the_generated_parameters_are_not_input_names():
    x, y = kt.dvector("x"), kt.dvector("y")
    f = kt.function([x, y], x - y)
    with pytest.raises(TypeError, match="unknown input name 'v0'; named inputs are: x, y"):
        f(v0=[1.0], v1=[2.0])
    np.testing.assert_array_equal(f([3.0], y=[1.0]), [2.0])
    with pytest.raises(TypeError, match="missing value for input: y"):
        f(x=[1.0])


def test_trust_input_computes_the_same():
    x, y = kt.dvector("x"), kt.dvector("y")
    f = kt.function([x, y], long_graph(kt, x, y), trust_input=True)
    a, b = np.linspace(-1, 1, 5), np.linspace(2, 3, 5)
    np.testing.assert_array_equal(f(a, b), long_graph(np, a, b))


def test_an_op_without_kernel_runs_its_perform_with_cells_of_its_own():
    calls = []

    class Twice(kt.Op):
        def make_node(self, x):
            x = kt.as_tensor_variable(x)
            return kt.Apply(self, [x], [x.type(), x.type()])

        def perform(self, node, inputs, out):
            calls.append(len(out))
            out[0][0] = inputs[0] * 2
            out[1][0] = inputs[0] * 3

    x = kt.dvector("x")
    a, b = Twice()(x)
    f = kt.function([x], [a + b, b])
    got = f([1.0, 2.0])
    np.testing.assert_array_equal(got[0], [5.0, 10.0])
    np.testing.assert_array_equal(got[1], [3.0, 6.0])
    assert calls == [2]


@pytest.mark.parametrize("mode", MODES)
def test_values_an_op_without_kernel_gives_are_cast_or_checked(mode, monkeypatch):

    class Liar(kt.Op):
        def make_node(self, x):
            return kt.Apply(self, [x], [kt.TensorType("float32", (None,))()])

        def perform(self, node, inputs, out):
            out[0][0] = np.zeros(4, dtype="float64")

    x = kt.dvector("x")
    f = compile_in(mode, monkeypatch, [x], Liar()(x) * 2)
    if mode.startswith("checked"):
        with pytest.raises(kt.backend.OutputTypeError, match="output 0 of Liar has dtype "
                                                              "float64"):
            f(np.zeros(1))
    else:  # unchecked, the next node still computes in its inferred dtype
        assert f(np.zeros(1)).dtype == np.float32


def test_large_graphs_run_on_the_interpreter(monkeypatch):
    monkeypatch.setattr(linker, "CODEGEN_LIMIT", 10)
    x, y = kt.dvector("x"), kt.dvector("y")
    big = kt.function([x, y], long_graph(kt, x, y))
    small = kt.function([x, y], x + y)
    assert type(big).__call__ is kt.Function.__call__
    assert "def __call__" in type(small).__call__.source  # generated code
    assert isinstance(small, kt.Function) and type(small) is not kt.Function
    a, b = np.arange(3.0), np.ones(3)
    np.testing.assert_array_equal(big(a, b), long_graph(np, a, b))
    np.testing.assert_array_equal(big(y=b, x=a), long_graph(np, a, b))
    with pytest.raises(TypeError, match="missing value for input: y"):
        big(a)

"""What eval_shape reaches: the builtins and NumPy's entries in every module of the traced
code (not only the traced function's), random generators made before the trace (typed
sources; NumPy's own compiled samplers keep NumPy's functions), NumPy's shape queries,
and everything put back afterwards."""

from __future__ import annotations

import importlib
import math
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import kantensor as kt

LIBRARY = '''
import math
import numpy as np
from numpy import zeros
from numpy.random import randn

def gpt2(inputs, wte, wpe, n_head):
    x = wte[inputs] + wpe[range(len(inputs))]
    scale = 1 / math.sqrt(x.shape[-1] // n_head)
    return x * scale + zeros((len(inputs), 1)) + 0 * randn(1, x.shape[1])

class Layer:
    def __init__(self, rng):
        self.rng = rng

    def forward(self, x):
        return x @ self.rng.normal(0, 1, (x.shape[-1], 3)) + len(x)
'''


@pytest.fixture
def library(tmp_path, monkeypatch):
    """A module of model code in a file of its own (imported like a user's package)."""
    (tmp_path / "model_lib.py").write_text(LIBRARY)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("model_lib")
    yield module
    sys.modules.pop("model_lib", None)


def _ops(result):
    return [getattr(node.op, "name", type(node.op).__name__)
            for node in result.graph.toposort()]


def test_builtins_and_numpy_in_the_module_of_a_called_function(library):
    result = kt.eval_shape(lambda *a: library.gpt2(*a, n_head=2), "int64[T]",
                           "float64[V,8]", "float64[L,8]")
    assert str(result.type) == "float64[T,8]"
    assert "random" in _ops(result) and "zeros" in _ops(result)
    assert library.len is len if hasattr(library, "len") else "len" not in vars(library)
    assert library.zeros is np.zeros and library.randn is np.random.randn
    assert library.np is np and library.math is math


def test_a_generator_made_before_the_trace_is_a_typed_source():
    g = np.random.default_rng(0)
    result = kt.eval_shape(lambda x: x * g.random((2, 3)), "float64[2,3]")
    assert str(result.type) == "float64[2,3]" and "random" in _ops(result)
    result = kt.eval_shape(lambda x: x @ g.normal(0.0, 0.1, (x.shape[1], 4)), "float64[n,d]")
    assert str(result.type) == "float64[n,4]"
    assert type(g) is np.random.Generator  # put back
    values = kt.function(list(result.inputs), result.outputs[0])(np.ones((2, 5)))
    assert values.shape == (2, 4)


def test_a_generator_in_an_object_a_default_and_a_keyword(library):
    layer = library.Layer(np.random.RandomState(0))
    assert str(kt.eval_shape(layer.forward, "float64[n,d]").type) == "float64[n,3]"
    assert type(layer.rng) is np.random.RandomState

    def init(x, rng=np.random.default_rng(1)):  # noqa: B008 - what is tested
        return x + rng.standard_normal(x.shape)

    assert str(kt.eval_shape(init, "float32[a,b]").type) == "float64[a,b]"
    assert type(init.__defaults__[0]) is np.random.Generator

    def draw(x, rng):
        assert isinstance(rng, np.random.Generator)
        return x + rng.integers(0, x.shape[0], size=x.shape)

    result = kt.eval_shape(draw, "int64[n]", rng=np.random.default_rng(2))
    assert str(result.type) == "int64[n]"


def test_numpy_samplers_never_see_a_tensor():
    """The crash of a random generator made before the trace (NumPy's compiled sampler
    called a replaced np.empty and wrote into a tensor), run in a process of its own."""
    code = textwrap.dedent("""
        import numpy as np, kantensor as kt
        g = np.random.default_rng(0)
        print(kt.eval_shape(lambda x: x * g.random((2, 3)), "float64[2,3]"))
        def real(x):
            return x + np.asarray(g.random((2, 3))).sum() + np.random.default_rng(1).random(3)[0]
        print(kt.eval_shape(real, "float64[2,3]"))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["ShapeResult(float64[2,3])"] * 2


def test_numpy_shape_queries():
    def f(x):
        n, d = np.shape(x)
        return np.zeros((np.size(x, 0), np.ndim(x) * d)) + np.size(x) * 0.0

    assert str(kt.eval_shape(f, "float32[n,d]").type) == "float64[n,2*d]"
    x = kt.tensor("x", "complex64", (kt.Dim("n"), 3))
    assert (np.shape(x), np.size(x), np.size(x, (0, 1)), np.ndim(x)) == \
        (x.shape, x.size, x.size, 2)
    assert np.iscomplexobj(x) and not np.isrealobj(x)


def test_reversed_and_sampling_with_symbolic_bounds():
    def init(x):
        limit = 1 / math.sqrt(x.shape[1])
        w = np.random.uniform(-limit, limit, (x.shape[1], 5))
        rows = [x[t] for t in reversed(np.arange(1, 3))]
        return x @ w, np.stack(rows), np.random.normal(0, limit)

    result = kt.eval_shape(init, "float64[n,d]")
    assert [str(t) for t in result.type] == ["float64[n,5]", "float64[2,d]", "float64[]"]
    f = kt.function(list(result.inputs), list(result.outputs), check=True)
    x = np.arange(12.0).reshape(3, 4)
    w, rows, scalar = f(x)
    np.testing.assert_array_equal(rows, x[[2, 1]])
    assert w.shape == (3, 5) and scalar.shape == ()


def test_put_back_after_an_error_and_other_threads_keep_numpy(library):
    started, seen = threading.Event(), []

    def slow(x):
        started.set()
        for _ in range(100):
            x = x + library.zeros(3)
        raise ValueError("stop")

    def other():
        started.wait(5)
        seen.append(all(type(library.zeros(3)) is np.ndarray for _ in range(200)))

    thread = threading.Thread(target=other)
    thread.start()
    with pytest.raises(ValueError, match="stop"):
        kt.eval_shape(slow, "float64[3]")
    thread.join()
    assert seen == [True]
    assert library.zeros is np.zeros and "len" not in vars(library)


def test_smaller_gaps():
    """norm's ord positional, diag's relation at every size of [N,N], an advanced index
    of size 1 broadcast against one of size 0 (NumPy: (2, 0))."""
    def normed(x):
        return np.linalg.norm(x, 1, 1), np.linalg.norm(x, np.inf), np.linalg.norm(x, "nuc")

    result = kt.eval_shape(normed, "float64[n,d]")
    assert [str(t) for t in result.type] == ["float64[n]", "float64[]", "float64[]"]
    f = kt.function(list(result.inputs), list(result.outputs), check=True)
    x = np.arange(12.0).reshape(3, 4) - 5
    for got, want in zip(f(x), normed(x), strict=True):
        np.testing.assert_allclose(got, want)

    diag = kt.eval_shape(np.diag, "float32[N,N]").type.shape[0]
    for n in range(5):
        assert kt.types.symbols.substitute(diag, {"N": n}) == np.diag(np.zeros((n, n))).shape[0]

    t = kt.tensor("t", "float64", (2, 3, 4))
    empty = np.zeros(0, int)
    assert t[:, [0], empty].type.shape == np.zeros((2, 3, 4))[:, [0], empty].shape == (2, 0)


def test_scipy_special_functions_kantensor_has():
    """Code calling scipy.special's logsumexp, softmax, log_softmax, expit or erf (by
    module or imported by name) gets kantensor's Ops of the same meaning, values as
    SciPy's."""
    import scipy.special as sp
    from scipy.special import expit, logsumexp

    def head(x):
        return x - logsumexp(x, axis=1, keepdims=True) + expit(x) * sp.softmax(x, axis=1) \
            + sp.log_softmax(x, axis=None) + sp.erf(x)

    result = kt.eval_shape(head, "float64[n,k]")
    assert str(result.type) == "float64[n,k]"
    x = np.linspace(-2, 2, 12).reshape(3, 4)
    got = kt.function(list(result.inputs), result.outputs[0], check=True)(x)
    np.testing.assert_allclose(got, head(x))

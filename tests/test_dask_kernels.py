"""The Dask tasks' kernels as a worker unpickles them (``kantensor.backend.dask.kernels``).

A kernel calling one of NumPy's own functions with no input to cast pickles as NumPy's
functions composed: a fresh interpreter unpickles it without importing any kantensor
module (a worker of a cluster saves the ~12 MiB of ``import kantensor``), and computes
what the kernel computes in this process, which is what NumPy computes. Any other kernel
pickles as itself. The oracles: NumPy's own results, and ``sys.modules`` of a fresh
interpreter.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import dask
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.dask.kernels import Block, Partial, count_nonzero, numpy_own
from kantensor.ops.families.linalg import einsum

RNG = np.random.default_rng(5)
X = RNG.normal(size=(6, 4))
Y = RNG.normal(size=(6, 3))

#: (kernel, its blocks, what NumPy computes).
NUMPY_KERNELS = {
    "ufunc": (Block(np.tanh, {}, (None,), "float64"), (X,), np.tanh(X)),
    "parameters": (Block(np.sum, {"axis": (0,), "keepdims": True}, (None,), "float64"), (X,),
                   np.sum(X, axis=0, keepdims=True)),
    "a 0-d result becomes an array": (Block(np.add, {}, (None, None), "float64"),
                                      (np.float64(1.5), np.float64(2.0)), np.array(3.5)),
    "the result cast to the type's dtype": (Block(np.multiply, {}, (None, None), "float32"),
                                            (X, X), (X * X).astype(np.float32)),
    "one output of several": (Block(np.linalg.eigh, {}, (None,), "float64", pick=0),
                              (X.T @ X,), np.linalg.eigh(X.T @ X)[0]),
    "a partial product": (Partial(Block(np.tensordot, {"axes": ([0], [0])}, (None, None),
                                        "float64"), 1), (X, Y),
                          np.tensordot(X, Y, axes=([0], [0]))[..., None]),
    "a mask's count": (count_nonzero, (X > 0,), np.array([np.count_nonzero(X > 0)])),
    "kantensor's einsum, no subscript repeated in an operand: numpy.einsum": (
        Partial(Block(einsum, {"subscripts": "ij,ik->jk"}, (None, None), "float64"), 1),
        (X, Y), np.einsum("ij,ik->jk", X, Y)[..., None]),
}

#: Kernels that need kantensor on the worker: its own implementation where it is not
#: NumPy's call, an input to cast, a result to cast (compute mode "wider").
KANTENSOR_KERNELS = {
    "kantensor's einsum, a subscript repeated in an operand (it checks their sizes)": (
        Block(einsum, {"subscripts": "ii,ik->k"}, (None, None), "float64"),
        (X[:4, :4], Y[:4]), np.einsum("ii,ik->k", X[:4, :4], Y[:4])),
    "an input cast": (Block(np.add, {}, ("float64", None), "float64"),
                      (X.astype(np.float32), Y[:, :1]), X.astype(np.float32) + Y[:, :1]),
    "a result to cast (the type float32, NumPy's det float64)": (
        Block(np.linalg.det, {}, (None,), "float32", exact=False),
        (np.diag([1e20, 1e20, 1.0]),), np.array(np.inf, np.float32)),
}

#: Run in a fresh interpreter: unpickle kernels and blocks from stdin, call each, print
#: the results and the kantensor modules the interpreter has imported.
UNPICKLE = """
import pickle, sys
kernels = pickle.loads(sys.stdin.buffer.read())
results = [f(*blocks) for f, blocks in kernels]
modules = sorted(m for m in sys.modules if m.split(".")[0] == "kantensor")
sys.stdout.buffer.write(pickle.dumps((results, modules)))
"""


def in_fresh_interpreter(kernels: list) -> tuple[list, list[str]]:
    out = subprocess.run([sys.executable, "-c", UNPICKLE], input=pickle.dumps(kernels),
                         capture_output=True, check=True)
    return pickle.loads(out.stdout)


def same(got, want) -> None:
    assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_numpy_own_is_by_identity_not_by_name():
    assert numpy_own(np.tanh) and numpy_own(np.linalg.det) and numpy_own(np.fft.rfft)

    def sum(a, axis=None):  # noqa: A001  (NumPy's name, not NumPy's function)
        return a

    assert not numpy_own(sum) and not numpy_own(einsum)
    assert not numpy_own(lambda a: a) and not numpy_own(np.float64(1.0))


@pytest.mark.parametrize("case", list(NUMPY_KERNELS))
def test_a_numpy_kernel_unpickles_as_numpys_functions_computing_the_same(case):
    kernel, blocks, want = NUMPY_KERNELS[case]
    same(np.asarray(kernel(*blocks)), want)  # the kernel in this process: NumPy's result
    copy = pickle.loads(pickle.dumps(kernel))
    assert not isinstance(copy, Block | Partial)
    same(copy(*blocks), want)
    assert b"kantensor" not in pickle.dumps(kernel)


def test_a_fresh_interpreter_unpickles_numpy_kernels_without_importing_kantensor():
    cases = list(NUMPY_KERNELS.values())
    results, modules = in_fresh_interpreter([(k, blocks) for k, blocks, _ in cases])
    assert modules == []
    for got, (_, _, want) in zip(results, cases, strict=True):
        same(got, want)


def test_other_kernels_pickle_as_themselves():
    cases = list(KANTENSOR_KERNELS.values())
    for kernel, blocks, want in cases:
        copy = pickle.loads(pickle.dumps(kernel))
        assert type(copy) is Block
        same(copy(*blocks), want)
    results, modules = in_fresh_interpreter([(k, blocks) for k, blocks, _ in cases])
    assert "kantensor.backend.dask.kernels" in modules
    for got, (_, _, want) in zip(results, cases, strict=True):
        same(got, want)


def test_a_graphs_casts_left_to_its_tasks_are_the_ones_that_change_a_dtype():
    """x ** 2 on float64 blocks: the exponent (a constant) is cast when the graph is
    lowered, the blocks need no cast: the task pickles as NumPy's power."""
    x = kt.vector("x", "float64")
    f = kt.function([x], x ** 2, backend="dask")
    y = f(np.arange(6.0), chunks=3)
    kernels = [t.func for t in dict(y.__dask_graph__()).values()
               if isinstance(getattr(t, "func", None), Block)]
    assert kernels and all(k.casts == (None, None) for k in kernels)
    assert b"kantensor" not in pickle.dumps(dict(y.__dask_graph__()))
    np.testing.assert_array_equal(y.compute(), np.arange(6.0) ** 2)


def test_a_result_cast_stays_the_numpy_backends_on_a_worker():
    """An Op of compute mode "wider" (NumPy may give a wider dtype, rounded to the type's):
    its task casts as the NumPy backend does (``cast_array``, under ``errstate``), so a
    worker warns where the NumPy backend warns and nowhere else; pickled as NumPy's
    functions, ``np.asarray``'s cast warned "overflow encountered in cast" where the
    NumPy backend is silent. Oracle: NumPy's det and the NumPy backend's warnings."""
    det32 = kt.op("(n,n)->():float32", name="det32", compute="wider")(np.linalg.det)
    x = kt.matrix("x", "float64")
    A = np.diag([1e20, 1e20, 1.0])  # det 1e40: float64's, beyond float32's range
    assert np.linalg.det(A).dtype == np.float64
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = kt.function([x], det32(x))(A)
        y = kt.function([x], det32(x), backend="dask")(A, chunks=3)
        got = dask.get(pickle.loads(pickle.dumps(dict(y.__dask_graph__()))), (y.name,))
    same(np.asarray(got), want)
    assert want == np.float32(np.inf)


def test_a_take_by_chunks_pickles_as_numpys_functions():
    """x[i] by a Dask array of indices (pieces of every chunk, then a gather per index
    block): every task is NumPy's functions composed, so a fresh interpreter computes
    the graph unpickled, NumPy's values and its IndexError, importing no kantensor."""
    x, i = kt.matrix("x", "float64"), kt.matrix("i", "int16")
    f = kt.function([x, i], [x[i], kt.take(x, i, axis=1)], backend="dask")
    idx = RNG.integers(-4, 4, (5, 3)).astype(np.int16)
    for bad, error in ((idx, None), (idx - 3, "index -7 is out of bounds for axis 0 "
                                                "with size 6")):
        ys = f(X, bad, chunks=[(2, 3), (2, 2)])
        ys = ys if error is None else ys[:1]  # x[i] alone: its IndexError, no other
        graph = dict(dask.base.collections_to_expr(ys).__dask_graph__())
        assert b"kantensor" not in pickle.dumps(graph)
        out = subprocess.run([sys.executable, "-c", COMPUTE], capture_output=True,
                             input=pickle.dumps((graph, [y.__dask_keys__() for y in ys])))
        if error is None:
            got, modules = pickle.loads(out.stdout)
            assert modules == []
            np.testing.assert_array_equal(np.block(got[0]), X[bad])
            np.testing.assert_array_equal(np.block(got[1]), np.take(X, bad, axis=1))
        else:
            with pytest.raises(IndexError) as numpy_error:
                X[bad]
            assert str(numpy_error.value) == error
            assert f"IndexError: {error}" in out.stderr.decode()


#: Run in a fresh interpreter: compute a pickled graph's keys (Dask's synchronous
#: scheduler), print the results and the kantensor modules imported.
COMPUTE = """
import pickle, sys
import dask
graph, keys = pickle.loads(sys.stdin.buffer.read())
def lists(x):
    return [lists(v) for v in x] if isinstance(x, list | tuple) else x
results = lists(dask.get(graph, keys))
modules = sorted(m for m in sys.modules if m.split(".")[0] == "kantensor")
sys.stdout.buffer.write(pickle.dumps((results, modules)))
"""

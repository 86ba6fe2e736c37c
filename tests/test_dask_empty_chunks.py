"""Empty chunks and size-1 axes split into several chunks on the Dask backend, judged by
the NumPy backend (found by tests/daskgraphs.py): every node's lowering drops empty
chunks first (:func:`kantensor.backend.dask.lower.without_empty`), so a size-1 axis in
chunks ``(0, 1, 0)`` broadcasts as one element and Dask's algorithms never see an empty
block, and an array of no elements is one block; ``split`` reads its indices as NumPy's
slices; ``diff`` of booleans is NumPy's ``!=`` (Dask's subtracts)."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from test_dask import agree, same_chunks


def _run(build, specs):
    """Inputs of (dtype, values, chunks); the Dask Function's outputs equal NumPy's, and
    its predicted chunks the computed blocks'."""
    ins = [kt.tensor(f"x{i}", v.dtype.name, v.shape) for i, (v, _) in enumerate(specs)]
    outs = build(*ins)
    outs = list(outs) if isinstance(outs, tuple | list) else [outs]
    want = kt.function(ins, outs)(*(v for v, _ in specs))
    want = list(want) if isinstance(want, tuple | list) else [want]
    f = kt.function(ins, outs, backend="dask", allow_rechunk=True)
    arrays = [da.from_array(v, chunks=c) for v, c in specs]
    got = f(*arrays)
    got = list(got) if isinstance(got, tuple | list) else [got]
    predicted = f.chunks(*(c for _, c in specs))
    predicted = list(predicted) if isinstance(predicted, list) else [predicted]
    for y, w, p in zip(got, want, predicted, strict=True):
        assert agree(y.compute(), w), (y.compute(), w)
        assert same_chunks(p, y.chunks)


BROADCASTS = [
    ("softmax", lambda x: kt.softmax(x, axis=0),
     [(np.ones((1, 3), "float32"), ((0, 1, 0, 0), (3,)))]),
    ("mod", kt.mod, [(np.array([5], "int8"), ((1, 0, 0),)),
                     (np.array(3, "int64"), ())]),
    ("logical_and", kt.logical_and,
     [(np.ones((1, 1), "float32"), ((0, 0, 1), (0, 1, 0))),
      (np.array([1], "int8"), ((1,),))]),
    ("add", lambda x, y: x + y, [(np.array([1.5], "float64"), ((0, 1),)),
                                 (np.array([1.0, 2.0]), ((1, 1),))]),
]

EMPTY = [
    ("max", lambda x: kt.max(x, axis=1), [(np.arange(6.0).reshape(2, 3), ((1, 1), (0, 3, 0)))]),
    ("count_nonzero", lambda x: kt.count_nonzero(x, axis=1),
     [(np.ones((1, 1), "float32"), ((1, 0), (1, 0, 0, 0)))]),
    ("median", lambda x: kt.median(x, axis=1),
     [(np.array([[True], [False], [True]]), ((0, 1, 1, 1), (0, 1)))]),
    ("var", lambda x: kt.var(x, axis=0), [(np.array([[1.0], [4.0]], "float32"), ((1, 1), (0, 1)))]),
    ("repeat", lambda x: kt.repeat(x, 3, axis=0),
     [(np.arange(3, dtype="int8").reshape(1, 3), ((0, 1), (3,)))]),
    ("cumprod", lambda x: kt.cumprod(x, axis=1),
     [(np.arange(6, dtype="int8").reshape(2, 3), ((0, 1, 1), (0, 0, 3)))]),
    ("norm", lambda x: kt.norm(x, axis=(0, 2), keepdims=True),
     [(np.zeros((1, 3, 0), "int8"), ((0, 1), (0, 2, 1, 0), (0,)))]),
    ("ravel", kt.ravel, [(np.zeros((0, 2, 0), "float32"), ((0, 0), (1, 1), (0, 0)))]),
    ("reshape", lambda x: x.reshape(6, -1), [(np.zeros((3, 0, 4), "float32"),
                                              ((1, 2), (0,), (2, 2)))]),
    ("outer", kt.outer, [(np.zeros((2, 0), bool), ((1, 1), (0,))),
                         (np.ones(3, bool), ((3,),))]),
    ("roll", lambda x: kt.roll(x, 1), [(np.zeros((3, 0), "float32"), ((1, 2), (0,)))]),
    ("repeat_flat", lambda x: kt.repeat(x, 2), [(np.zeros((0, 3), "uint8"), ((0,), (1, 2)))]),
    ("repeat_empty_axis", lambda x: kt.repeat(x, 3, axis=0),
     [(np.zeros((0, 3), "int8"), ((0,), (3,)))]),
    ("logsumexp", lambda x: kt.logsumexp(x - 1, axis=None, keepdims=True),
     [(np.zeros((0, 3), "int16"), ((0, 0), (1, 0, 2)))]),
    ("dot", kt.dot, [(np.ones((2, 3)), ((2,), (0, 3))), (np.ones((3, 1)), ((1, 2, 0), (1,)))]),
    ("triu", lambda x: kt.triu(x), [(np.ones((3, 3), "float32"), ((0, 3), (1, 0, 2)))]),
    ("diag", lambda x: kt.diag(x, k=1), [(np.zeros((0,), "int16"), ((0,),))]),
    ("power", kt.power, [(np.zeros(0, "float32"), ((0, 0, 0, 0),)),
                         (np.zeros(0, "int64"), ((0, 0),))]),
    ("pad", lambda x: kt.pad(x, 1) / 2, [(np.zeros((1, 0), "float32"), ((1,), (0,)))]),
    ("svd", lambda x: kt.svd(x)[1], [(np.zeros((0, 3), "uint8"), ((0,), (1, 2)))]),
]

DIFF_BOOL = [
    ("diff_bool", lambda x: kt.diff(x, n=2, axis=0),
     [(np.array([[True, False], [False, False], [True, True]]), ((1, 2), (2,)))]),
    ("diff_bool_last", lambda x: kt.diff(x), [(np.array([True, False, False, True]), ((1, 3),))]),
]


@pytest.mark.parametrize("name, build, specs", BROADCASTS + EMPTY + DIFF_BOOL, ids=lambda c: c
                         if isinstance(c, str) else "")
def test_empty_chunks_as_numpy(name, build, specs):
    _run(build, specs)


def test_split_reads_negative_indices_as_numpy_slices():
    v = np.arange(2, dtype="int8").reshape(2, 1)
    _run(lambda x: kt.split(x, [2, -1], axis=1), [(v, ((1, 1), (1,)))])


# np.take checks its indices only where an element of x precedes the taken axis (the
# loop over them runs once per such element): x of no elements there takes nothing and
# raises nothing, whatever the indices (daskgraphs.py 300 6: the take by chunks checked
# every index, IndexError where NumPy gives an empty array).
TAKES_NOTHING = [
    ("take_empty_before_axis", lambda x, i: kt.take(x, i, axis=-2),
     [(np.zeros((0, 0, 5), "int8"), ((0,), (0,), (0, 5))),
      (np.array([[4, 1], [2, 3], [0, 0], [1, 1]], "uint8"), ((2, 2), (1, 1)))]),
    ("take_past_an_empty_axis", lambda x, i: kt.take(x, i, axis=1),
     [(np.zeros((0, 3), "float32"), ((0,), (1, 2))), (np.array([7, -9]), ((1, 1),))]),
]


@pytest.mark.parametrize("name, build, specs", TAKES_NOTHING, ids=lambda c: c
                         if isinstance(c, str) else "")
def test_take_from_no_elements_as_numpy(name, build, specs):
    _run(build, specs)


@pytest.mark.parametrize("build, shape", [
    (lambda x, i: kt.take(x, i, axis=0), (3, 0)),  # a row precedes nothing: checked
    (lambda x, i: x[:, i], (0, 3)),  # fancy indexing checks every index
], ids=["take_rows_of_no_columns", "index_of_no_rows"])
def test_indices_numpy_checks_raise_its_index_error(build, shape):
    """Where NumPy checks the indices of an x of no elements, Dask raises its
    IndexError too (index 7 of an axis of 3)."""
    x, i = kt.tensor("x", "float32", shape), kt.tensor("i", "int64", (1,))
    xv, iv = np.zeros(shape, "float32"), np.array([7])
    y = build(x, i)
    with pytest.raises(IndexError):
        kt.function([x, i], y)(xv, iv)
    f = kt.function([x, i], y, backend="dask")
    with pytest.raises(IndexError):
        f(da.from_array(xv, chunks=-1), da.from_array(iv, chunks=1)).compute()


def test_plan_says_numpys_function_runs_on_no_elements():
    """The plan names what runs: an Op of Dask's function (diag, take, eye) on arrays of
    no elements is its own implementation on one empty block, from the graph's types
    (a size 0) or, given chunks, from theirs."""
    v = kt.tensor("v", "int16", (0,))
    assert "its own implementation" in str(kt.function([v], kt.diag(v, k=1),
                                                       backend="dask").plan())
    x, i = kt.tensor("x", "int8", (None, None, 5)), kt.tensor("i", "uint8", (4, 2))
    f = kt.function([x, i], kt.take(x, i, axis=1), backend="dask")
    assert "a take by chunks" in str(f.plan())
    assert "a take by chunks" in str(f.plan(((2,), (3,), (5,)), ((4,), (2,))))
    empty = str(f.plan(((0,), (0,), (5,)), ((2, 2), (2,))))
    assert "its own implementation" in empty and "not a take by chunks" in empty
    n = kt.tensor("n", "float64", (0, 4))
    assert "its own implementation" in str(kt.function([n], kt.eye(n.shape[0]),
                                                       backend="dask").plan())

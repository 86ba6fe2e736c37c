"""Sizes as NumPy's offsets, shifts and positions: ``np.tril``/``np.triu`` with a
diagonal ``k`` that is a size (of either sign), ``np.eye(n, m, k)`` by sizes,
``np.roll`` by a size, ``np.partition`` at a ``kth`` made of sizes, ``x.std(ddof=n)``,
``x.item(i)`` at a size (and at one position per axis), a list index holding sizes
(``x[[len(y) - 1, 0]]``, ``np.take(x, [n, 0])``), ``np.take`` with ``mode='clip'`` or
``'wrap'``, ``np.sum``/``np.prod`` with ``where=``, judged by
NumPy at every assignment of a box of sizes (0, 1, 2, 3, 5): where the result holds
NumPy runs and gives its shape and dtype and the graph computes NumPy's values (with
the NumPy backend and with Dask's), where it does not NumPy raises."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

BOX = (0, 1, 2, 3, 5)

PROGRAMS = {
    "tril below a size": (lambda x: np.tril(x, x.shape[1] - 2), ["float64[A,B]"]),
    "triu at minus a size": (lambda x: np.triu(x, -x.shape[0]), ["int8[A,B]"]),
    "tril of a vector": (lambda x, y: np.tril(x, len(y) - 1), ["float32[A]", "int8[B]"]),
    "triu of a stack": (lambda x: np.triu(x, 1 - x.shape[0]), ["float32[C,A,B]"]),
    "eye by sizes": (lambda x: np.eye(x.shape[0], x.shape[1], x.shape[1] - 1) + 0 * x,
                     ["float64[A,B]"]),
    "eye below": (lambda x: np.eye(len(x), k=-len(x) // 2), ["float32[A]"]),
    "roll by a size": (lambda x: np.roll(x, x.shape[0]), ["float64[A,B]"]),
    "roll along an axis": (lambda x: np.roll(x, 1 - x.shape[1], axis=1), ["int64[A,B]"]),
    "roll by sizes": (lambda x: np.roll(x, (x.shape[0], -2), axis=(1, 0)), ["int8[A,B]"]),
    "partition at the last": (lambda x: np.partition(x, x.shape[1] - 1), ["float64[A,B]"]),
    "partition from the end": (lambda x: np.partition(x, -x.shape[0], axis=0),
                               ["float32[A,B]"]),
    "partition at sizes": (lambda x: np.partition(x, [0, x.shape[0] // 2], axis=None),
                           ["int64[A,B]"]),
    "argpartition at a size": (lambda x, y: np.argpartition(x, len(y)), ["float64[A]",
                                                                        "int8[B]"]),
    "std with a size ddof": (lambda x: x.std(ddof=x.shape[0] - 1), ["float64[A,B]"]),
    "var by axis": (lambda x: np.var(x, axis=0, ddof=x.shape[1]), ["float32[A,B]"]),
    "var with an int ddof past n": (lambda x: np.var(x, axis=0, ddof=3), ["float64[A,B]"]),
    "item at a size": (lambda x: x.item(x.shape[0] - 1), ["float64[A,B]"]),
    "item from the end": (lambda x: x.item(-x.shape[1]), ["float64[A,B]"]),
    "item per axis": (lambda x, y: x.item(len(y) - 1, -1), ["float64[A,B]", "int8[C]"]),
    "item of a tuple": (lambda x: x.item((0, x.shape[0] - 2)), ["float64[A,B]"]),
    "item of an int": (lambda x: x.item(3), ["float64[A,B]"]),
    "a list index of sizes": (lambda x: x[[len(x) - 1, 0]], ["float64[A,B]"]),
    "a list index of another's size": (lambda x, y: x[:, [len(y) - 3, 1]],
                                       ["int8[A,B]", "float32[C]"]),
    "two list indices": (lambda x: x[[x.shape[0] - 1] * 2, [0, x.shape[1] - 1]],
                         ["float64[A,B]"]),
    "a nested list index": (lambda x: x[[[0, len(x) - 2]]], ["int64[A]"]),
    "take of a list of sizes": (lambda x: np.take(x, [x.shape[1], 0]), ["float32[A,B]"]),
    "take clipped": (lambda x: np.take(x, [0, 5], mode="clip"), ["float64[A,B]"]),
    # (NumPy skips its check where the other axes are empty, which the index does not:
    # refused there, docs/numpy.rst; and its wrap of an empty axis does not return)
    "take wrapped on an axis": (lambda x: np.take(x, [0, 5, -7], axis=1, mode="wrap"),
                                ["int8[2,B]"]),
    "take clipped at sizes": (lambda x, y: x.take([-1, len(y)], axis=0, mode="clip"),
                              ["float32[A,3]", "int8[B]"]),
    "take wrapped by data": (lambda x, i: np.take(x, i, axis=0, mode="wrap"),
                             ["float64[3,A]", "int64[C]"]),
    "take clipped by data": (lambda x, i: np.take(x, i * 3 - 4, mode="clip"),
                             ["float64[A]", "int32[B,C]"]),
    "a sum where a mask": (lambda x: x.sum(where=x > 2), ["float64[A,B]"]),
    "a sum by axis where a row": (lambda x, m: np.sum(x, axis=0, where=m),
                                  ["int8[A,B]", "bool[B]"]),
    "a prod where a list": (lambda x: np.prod(x % 3 + 1, axis=1, keepdims=True,
                                              where=[True, False, True]),
                            ["int32[A,3]"]),
    "a bool sum where": (lambda x, m: np.sum(x > 3, where=m[:, None]),
                         ["float32[A,B]", "bool[A]"]),
    "a prod method where": (lambda x: x.prod(0, where=x > 1), ["float64[A,B]"]),
    "broadcast to another's shape": (lambda x, m: np.broadcast_to(m, x.shape) * 1,
                                     ["float32[A,B]", "bool[B]"]),
}


def _shape(text: str, sizes: dict[str, int]) -> tuple[int, ...]:
    t = kt.TensorType.parse(text)
    return tuple(sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape)


def _case(result, sizes):
    return next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                result) if result.cases else result


def _arrays(types, sizes):
    rng = np.random.default_rng(len(sizes) + sum(sizes.values()))
    return [rng.permutation(int(np.prod(_shape(t, sizes)))).astype(
        kt.TensorType.parse(t).dtype).reshape(_shape(t, sizes)) for t in types]


def _judged(fn, types):
    result = kt.eval_shape(fn, *types)
    names = sorted({d.name for t in types for d in kt.TensorType.parse(t).shape
                    if isinstance(d, kt.Dim)})
    compiled = {"numpy": kt.function(list(result.inputs), list(result.outputs)),
                "dask": kt.function(list(result.inputs), list(result.outputs),
                                    backend="dask", allow_rechunk=True)}
    ran = 0
    for values in itertools.product(BOX, repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        arrays = _arrays(types, sizes)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = np.asarray(fn(*arrays))
        except (ValueError, IndexError):
            assert not result.holds(sizes), sizes
            continue
        assert result.holds(sizes), sizes
        ran += 1
        typed = _case(result, sizes).type
        want = tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d
                     for d in typed.shape)
        assert want == out.shape and str(out.dtype) == typed.dtype, (sizes, want,
                                                                     out.shape, out.dtype)
        for backend, f in compiled.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = f(*arrays)
            got = np.asarray(got[0] if isinstance(got, list) else got)
            if backend == "dask":
                got = np.asarray(got.compute() if hasattr(got, "compute") else got)
            if backend == "dask" and out.dtype.kind == "f":  # (sums in another order)
                np.testing.assert_allclose(got, out, rtol=1e-5, err_msg=f"dask {sizes}")
            else:
                np.testing.assert_array_equal(got, out, err_msg=f"{backend} {sizes}")
    assert ran


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_sizes_as_offsets_shifts_and_positions_are_numpys(name):
    _judged(*PROGRAMS[name])


REFUSED = {  # NumPy raises TypeError at every size: so must eval_shape
    "a sum where a float mask": (lambda x: np.sum(x, where=x * 1.5), ["float64[A]"]),
    "a prod where an int mask": (lambda x: np.prod(x, where=(x > 0).astype(np.int64)),
                                 ["float64[A]"]),
    "a sum where an int array": (lambda x: x.sum(where=np.array([1, 0, 1])), ["int8[3]"]),
    "take clipped by floats": (lambda x, i: np.take(x, i, mode="clip"),
                               ["float64[A]", "float32[C]"]),
    "item at a slice": (lambda x: x.item(slice(0, 1)), ["float64[A]"]),
    "item at None": (lambda x: x.item(None), ["float64[A]"]),
    "item at a bool": (lambda x: x.item(True), ["float64[A]"]),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_numpy_refuses_by_type_is_refused(name):
    fn, types = REFUSED[name]
    for sizes in ({"A": 3, "C": 2}, {"A": 0, "C": 0}):
        with pytest.raises(TypeError) as numpys:
            fn(*_arrays(types, sizes))
        with pytest.raises(TypeError) as ours:
            kt.eval_shape(fn, *types)
        assert str(numpys.value) in str(ours.value)


@pytest.mark.parametrize("mode", ["clip", "wrap"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_take_modes_of_narrow_indices_need_nothing_of_their_dtype(mode, dtype):
    """NumPy clips and wraps in intp: an axis longer than the indices' dtype can count
    is taken from as any other (the box above never reaches 128)."""
    fn = lambda x, i: np.take(x, i, mode=mode)  # noqa: E731
    result = kt.eval_shape(fn, "float64[A]", f"{dtype}[C]")
    for a, c in itertools.product((0, 1, 5, 200, 300, 70000), (0, 3)):
        x = np.arange(a, dtype=np.float64)
        i = np.array([0, 100, np.iinfo(dtype).max][:c], dtype=dtype)
        try:
            out = fn(x, i)
        except IndexError:  # (a take from an empty axis)
            assert not result.holds({"A": a, "C": c}), (a, c)
            continue
        assert result.holds({"A": a, "C": c}), (a, c)
        assert out.shape == (c,)

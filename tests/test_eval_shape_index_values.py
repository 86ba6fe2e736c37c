"""Index arrays whose values are made of sizes, judged by NumPy at m, k in 0..4.

``x[np.arange(k) % 2]`` runs only where ``m >= min(k, 2)``: NumPy raises IndexError at
a value out of bounds, and the values are decided by the sizes. ``holds`` said True at
``m == 1, k == 2``; now the result holds exactly where NumPy runs, or holds says it
cannot answer (values it does not read), never a wrong True.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt

#: Index arrays made of sizes (x is float32[m], y float32[k]).
INDICES = ["np.arange(y.shape[0]) % 2", "np.arange(y.shape[0])[::-1]",
           "np.arange(2, y.shape[0], 3) * 2 - 1", "np.minimum(np.arange(y.shape[0]), 4)",
           "np.maximum(np.arange(y.shape[0]) - 2, 0)", "-np.arange(y.shape[0]) - 1",
           "np.arange(y.shape[0]) // 2", "np.concatenate([np.arange(y.shape[0]), [1]])",
           "np.repeat(np.arange(y.shape[0]), 2)", "np.arange(y.shape[0]).reshape(1, -1)",
           "np.arange(y.shape[0], 0, -1)", "(np.arange(y.shape[0]) + 1) % 3",
           "np.arange(y.shape[0]) % 2 - 1", "np.tile(np.arange(2), y.shape[0])",
           "np.arange(y.shape[0]) * 0 + y.shape[0] - 1", "np.arange(y.shape[0]) ** 2",
           # some of them picked: which, the sizes decide (not read: never refused where
           # NumPy runs, as the hull 0 .. k - 1 would at m=1)
           "np.arange(y.shape[0])[[0]]", "np.take(np.arange(y.shape[0]), [0])",
           "np.where(np.arange(y.shape[0]) > 0, 0, np.arange(y.shape[0]))",
           "np.clip(np.arange(y.shape[0]), 0, 1)"]

USES = ["x[{i}]", "x[None][:, {i}]", "x[..., {i}]"]


def _runs(fn, m: int, k: int):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.shape(fn(np.zeros(m, "float32"), np.zeros(k, "float32")))
    except IndexError:
        return None


@pytest.mark.parametrize(("use", "index"), list(itertools.product(USES, INDICES)))
def test_index_values_made_of_sizes_hold_where_numpy_runs(use, index):
    source = "lambda x, y: " + use.format(i=index)
    fn = eval(source, {"np": np})
    r = kt.eval_shape(fn, "float32[m]", "float32[k]")
    for m, k in itertools.product(range(5), repeat=2):
        out = _runs(fn, m, k)
        try:
            holds = r.holds({"m": m, "k": k})
        except ValueError as exc:  # it cannot say: never a wrong answer
            assert "cannot say" in str(exc), (source, exc)
            continue
        assert holds == (out is not None), (source, m, k)


def test_holds_says_why_it_cannot_answer_a_data_dependent_count():
    """An assumption on a count the data decides made holds raise a bare 'needs a value'
    ValueError; it now says which size no input decides."""
    r = kt.eval_shape(lambda x: np.zeros(3)[x[x > 0].shape[0]], "float32[n]")
    with pytest.raises(ValueError, match="no input's size decides"):
        r.holds({"n": 3})


def test_a_permutation_made_of_sizes_is_stated_by_the_index_op_alone():
    """``x[np.argsort(<sizes>, axis=1)]``: the index Op's relation states the permuted
    axis against x's (:attr:`ArrayRef.along`); eval_shape's reading of values made of
    sizes said it again from the hull (one home per fact: it states nothing now)."""
    from kantensor.evalshape.indexvalues import index_bounds
    r = kt.eval_shape(lambda x, y: x[np.argsort(np.zeros(y.shape), axis=1)],
                      "float64[B,D]", "float64[C,E]")
    node = r.graph.outputs[0].owner
    assert dict(node.op.params)["index"][0].along == 1
    assert index_bounds(node) == []
    assert [str(a) for a in r.assumptions] == ["E*min(1, C, E) <= B"]


#: Index arrays of a computed bool's values (x is float32[m], y float32[k]): 0 or 1,
#: each for some data, so the index needs m >= 2 wherever it is not empty (the
#: for-every-data reading, as argmax's positions); NumPy judges at data with and
#: without true elements.
BOOLS = ["(y > 0).astype(np.int64)", "(y > 0).astype(np.int8) * 1",
         "np.logical_not(y > 0).astype(np.intp)", "(y == y).astype(np.int64)[::-1]"]


def _data_runs(fn, m: int, k: int) -> list[bool]:
    out = []
    for y in (np.zeros(k, "float32"), np.ones(k, "float32"),
              np.arange(k, dtype="float32") - 1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(np.zeros(m, "float32"), y)
            out.append(True)
        except IndexError:
            out.append(False)
    return out


@pytest.mark.parametrize("index", BOOLS)
def test_an_index_of_a_computed_bool_holds_where_numpy_runs_for_every_data(index):
    source = "lambda x, y: x[" + index + "]"
    fn = eval(source, {"np": np})
    r = kt.eval_shape(fn, "float32[m]", "float32[k]")
    for m, k in itertools.product(range(5), repeat=2):
        runs = _data_runs(fn, m, k)
        assert r.holds({"m": m, "k": k}) == all(runs), (source, m, k, runs)


#: One position made of sizes, given to ``np.take`` (``x.take``): a size, or a 0-d index
#: whose values the sizes decide. The catalogue's take reads no values, so they went
#: unchecked: ``np.take(x, len(y) - 1)`` held at m == 1, k == 3 (NumPy IndexError), and
#: ``np.take(x, np.argmax(np.arange(1, k)))`` too (npprograms seed 47, KINDS 31, #15).
POSITIONS = ["y.shape[0] - 1", "len(y) // 2", "y.shape[0]", "-len(y)",
             "np.argmax(np.arange(1, y.shape[0]))", "np.argmax(np.arange(y.shape[0]) * 2)",
             "np.int64(y.shape[0])"]


@pytest.mark.parametrize(("use", "position"), list(itertools.product(
    ["np.take(x, {i})", "x.take({i})", "np.take(x[:, None], {i}, axis=0)"], POSITIONS)))
def test_a_position_made_of_sizes_never_holds_where_take_raises(use, position):
    source = "lambda x, y: " + use.format(i=position)
    fn = eval(source, {"np": np})
    r = kt.eval_shape(fn, "float32[m]", "float32[k]")
    for m, k in itertools.product(range(5), repeat=2):
        try:
            holds = r.holds({"m": m, "k": k})
        except ValueError as exc:  # it cannot say: never a wrong answer
            assert "cannot say" in str(exc), (source, exc)
            continue
        if holds:
            try:
                fn(np.zeros(m, "float32"), np.zeros(k, "float32"))
            except (IndexError, ValueError) as exc:
                raise AssertionError(f"{source} holds at m={m}, k={k}: NumPy {exc}") from None

"""The memos that make cached graph builds fast must never give a different answer
from a fresh build: values that compare equal but differ (1 and True, 0.0 and -0.0),
type objects that die and whose ids are reused, the default dtype changing."""

import gc
import sys

import numpy as np
import pytest

import kantensor as kt
from kantensor.ops.params import ParamError
from kantensor.ops.templates import RankType, names, operand, reads_ranks


def test_bool_parameter_is_not_taken_for_an_int_seen_before():
    x = kt.tensor("x", "float64", (2, 3))
    assert kt.sum(x, axis=1).type == kt.TensorType("float64", (2,))
    with pytest.raises(ParamError, match="axis"):
        kt.sum(x, axis=True)
    assert kt.sum(x, axis=1).type == kt.TensorType("float64", (2,))


def test_slice_bounds_must_stay_ints_after_an_int_slice_was_cached():
    x = kt.tensor("x", "float64", (5,))
    assert x[1:].type == kt.TensorType("float64", (4,))
    with pytest.raises(ParamError, match="slice bounds that are ints or None"):
        x[1.0:]
    assert x[::2].type == kt.TensorType("float64", (3,))
    assert x[1:, None].type == kt.TensorType("float64", (4, 1))


def test_a_list_and_a_tuple_of_sizes_reshape_alike():
    x = kt.tensor("x", "float32", (2, 6))
    assert x.reshape((3, 4)).type == x.reshape([3, 4]).type == x.reshape(3, 4).type \
        == kt.TensorType("float32", (3, 4))


def test_minus_zero_stays_minus_zero():
    x = kt.dvector("x")
    f = kt.function([x], [x * 0.0, x * -0.0])
    plus, minus = f(np.array([1.0]))
    assert not np.signbit(plus[0]) and np.signbit(minus[0])


def test_every_build_makes_new_nodes():
    a, b = kt.fmatrix("a"), kt.fmatrix("b")
    first, second = a + b, a + b
    assert first is not second and first.owner is not second.owner
    assert first.type == second.type
    assert first.owner.inputs == [a, b]


def test_default_dtype_is_part_of_the_memo():
    i = kt.ivector("i")
    old = kt.get_default_dtype()
    try:
        for dtype in ("float32", "float64", "float32"):
            kt.set_default_dtype(dtype)
            assert (i + 1.5).type.dtype == dtype  # a wrapped float takes the default
            assert (i / 2).type.dtype == dtype
    finally:
        kt.set_default_dtype(old)


def clear_other_caches():
    """Empty every functools cache in kantensor's modules."""
    for name, module in list(sys.modules.items()):
        if name.startswith("kantensor"):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


@pytest.mark.parametrize("build", [lambda x, y: x @ y, lambda x, y: kt.concatenate([x, y])])
def test_types_that_die_do_not_leave_answers_for_their_ids(build):
    """Fresh types whose ids the allocator reuses at once must still get their own
    output types."""
    for n in range(1, 60):
        x = kt.tensor(None, "float64", (n, 3))
        y = kt.tensor(None, "float64", (3, 3))
        out = build(x, y)
        rows = n if out.owner.op.name == "matmul" else n + 3
        assert out.type == kt.TensorType("float64", (rows, 3))
        del x, y, out
        clear_other_caches()  # (the solver's memo keeps types alive too)
        gc.collect()


def test_a_rank_only_builder_renders_once_per_ranks_and_dtypes():
    """A builder marked reads_ranks sees RankType inputs (no shape to read), renders
    once per ranks and dtypes, and every size still comes from the relation."""
    seen = []

    @reads_ranks
    def rows(types, **_):
        seen.append(types)
        return {"x": operand(names("a", types[0].ndim)), "y": "(a0)"}

    first_rows = kt.op("{x}:t->{y}:t", call="x", builder=rows)(lambda x: x[:, 0])
    for n in (2, 5, 0):
        x = kt.tensor(None, "float32", (n, 3))
        assert first_rows(x).type == kt.TensorType("float32", (n,))
    assert first_rows(kt.dmatrix()).type == kt.TensorType("float64", (None,))
    assert [(t[0].dtype, t[0].ndim) for t in seen] == [("float32", 2), ("float64", 2)]
    assert all(type(t[0]) is RankType and not hasattr(t[0], "shape") for t in seen)
    f = kt.function([x := kt.fmatrix()], first_rows(x))
    assert f(np.ones((4, 3), "float32")).tolist() == [1.0] * 4

    @reads_ranks
    def mislabelled(types, **_):
        return {"x": operand(types[0].shape), "y": "()"}

    wrong = kt.op("{x}:t->{y}:t", call="x", builder=mislabelled)(lambda x: x.sum())
    with pytest.raises(AttributeError, match="'RankType' object has no attribute 'shape'"):
        wrong(kt.fmatrix())

"""Interning of TensorTypes by every constructor (the readers' ``checked_type`` and
``sized`` make and file a new type inline): equal dtype and shape give one object,
whichever constructor made it first; unequal ones are distinct objects; a pickle
round-trips to the same object. Judged by hypothesis against the plain equality of the
dtypes' names and the shapes' tuples."""

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor import Dim, TensorType
from kantensor.types import type as tt

_NAMES = ("n", "batch", "seq")


@st.composite
def _entries(draw: st.DrawFn) -> object:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.integers(0, 300))
    if kind == 1:
        return None
    name = Dim(draw(st.sampled_from(_NAMES)))
    if kind == 2:
        return name
    return name * draw(st.integers(2, 3)) + draw(st.integers(0, 2))  # an expression


_SHAPES = st.lists(_entries(), max_size=4).map(tuple)
_DTYPES = st.sampled_from(("float32", "int64"))


def _made(how: int, dtype: str, shape: tuple) -> TensorType:
    """The type of ``dtype`` and ``shape`` by one of the constructors that take it."""
    ints = all(type(s) is int for s in shape)
    if how == 1 and ints:
        return tt.sized(dtype, shape)
    if how == 2 and None not in shape:
        return tt.checked_type(dtype, shape, tt.static_axes(shape))
    if how == 3 and ints and shape:
        return tt.sized_all(dtype, [shape], len(shape))[0]
    return TensorType(dtype, list(shape))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_DTYPES, _SHAPES, st.integers(0, 3)), min_size=1, max_size=8))
def test_equal_types_are_one_object_whoever_made_them(cases: list) -> None:
    made = [_made(how, dtype, shape) for dtype, shape, how in cases]
    for (dtype, shape, _), t in zip(cases, made, strict=True):
        assert type(t) is TensorType and t.dtype == dtype and t.shape == shape
        assert pickle.loads(pickle.dumps(t)) is t
        assert t is TensorType(dtype, shape)
    for (d1, s1, _), t1 in zip(cases, made, strict=True):
        for (d2, s2, _), t2 in zip(cases, made, strict=True):
            same = d1 == d2 and s1 == s2
            assert (t1 is t2) == same and (t1 == t2) == same
            if same:
                assert hash(t1) == hash(t2)

"""Shape Ops against NumPy (see conformance.py): reshape, transpose, permute_dims,
expand_dims, squeeze, concatenate, stack, split, broadcast_to, flatten, diff,
convolve and pad, with parameters in every form NumPy takes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes
from kantensor.ops.params import ParamError
from kantensor.query import var
from kantensor.types.dim import Dim

CASES = settings(max_examples=200, deadline=None)


@st.composite
def tensor(draw, shape=None, dtype=None, **shape_kw):
    """An array (any dtype unless given) and a mask of its hidden dims."""
    shape = draw(shapes(**shape_kw)) if shape is None else tuple(shape)
    dtype = dtype or draw(st.sampled_from(ALL_DTYPES))
    return draw(arrays(dtype, shape)), draw(hidden_mask(len(shape)))


def axis_ints(ndim: int, extra: int = 1) -> st.SearchStrategy[int]:
    """Axes of a rank-``ndim`` tensor, negative ones and some out of range."""
    return st.integers(-ndim - extra, ndim - 1 + extra)


def int_or_tuple(ints: st.SearchStrategy[int], max_size: int = 3, lists: bool = True):
    """An int, or a tuple or (if ``lists``) a list of them (possibly with repeats)."""
    forms = [ints, st.lists(ints, max_size=max_size).map(tuple)]
    if lists:
        forms.append(st.lists(ints, max_size=max_size))
    return st.one_of(*forms)


# --------------------------------------------------------------------------- reshape


@st.composite
def new_shape(draw, shape: tuple[int, ...]):
    """A target shape: usually the input's size regrouped (merging neighbours of a
    permutation, padding with 1s), sometimes with one or two negative sizes, and
    sometimes arbitrary; as a tuple, a list or (one axis) an int."""
    if draw(st.booleans()):
        sizes = draw(st.permutations([*shape, *[1] * draw(st.integers(0, 2))]))
        out: list[int] = []
        for s in sizes:
            if out and draw(st.booleans()):
                out[-1] *= s
            else:
                out.append(s)
        for _ in range(draw(st.integers(0, 2))):
            if out:
                out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(-3, -1))
    else:
        out = draw(st.lists(st.integers(-2, 6), max_size=4))
    if len(out) == 1 and draw(st.booleans()):
        return out[0]
    return draw(st.sampled_from([tuple(out), list(out)]))


@CASES
@given(st.data())
def test_reshape(data):
    x, hidden = data.draw(tensor(max_dims=4))
    target = data.draw(new_shape(x.shape))
    method = data.draw(st.booleans())
    build = (lambda v: v.reshape(target)) if method else (lambda v: kt.reshape(v, target))
    conform("reshape", build, lambda a: np.reshape(a, target), [x], [hidden])


def test_reshape_types():
    x = kt.tensor("x", "float32", (None, 3))
    assert str(x.reshape(-1).type) == "float32[?]"
    assert str(x.reshape((3, -1)).type) == "float32[3,?]"
    n = kt.tensor("n", "int8", (kt.Dim("n"), 4))
    assert str(kt.reshape(n, (2, -1, 2)).type) == "int8[2,n,2]"
    with pytest.raises(kt.TypeInferenceError):
        kt.reshape(kt.tensor("y", "float32", (2, 3)), (4, -1))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.data())
def test_reshape_with_the_inputs_own_sizes_agrees_with_numpy(sizes, data):
    """Targets written with the input's own sizes (named Dims, ``x.shape[i]`` of unknown
    axes), ints and at most one -1, zero sizes included: kantensor builds and runs
    (with ``check=True``) exactly when NumPy reshapes, to NumPy's shape. NumPy refuses
    -1 beside sizes that multiply to 0, even ``(0, 3).reshape(0, -1)``."""
    named = data.draw(st.booleans())
    dims = [kt.Dim(f"n{i}") for i in range(len(sizes))] if named else [None] * len(sizes)
    x = kt.tensor("x", "float32", dims)
    own = [d if named else x.shape[i] for i, d in enumerate(dims)]
    entries = data.draw(st.lists(st.sampled_from(range(len(sizes))).map(lambda i: ("own", i))
                                 | st.integers(0, 4).map(lambda k: ("int", k)),
                                 min_size=0, max_size=3))
    if data.draw(st.booleans()):
        entries.insert(data.draw(st.integers(0, len(entries))), ("int", -1))
    target = tuple(own[i] if kind == "own" else i for kind, i in entries)
    concrete = tuple(sizes[i] if kind == "own" else i for kind, i in entries)
    value = np.zeros(sizes, "float32")
    try:
        expected = value.reshape(concrete).shape
    except ValueError:
        expected = None
    try:
        y = x.reshape(target)
    except (ParamError, kt.TypeInferenceError):
        assert expected is None, (sizes, target)
        return
    try:
        got = kt.function([x], y, check=True)(value).shape
    except (kt.TypeInferenceError, ValueError):
        got = None
    assert got == expected, (sizes, target)
    try:  # what the relation claims, x's sizes given: NumPy's answer, not a run-time error
        claimed = kt.refine(y, given={x: kt.TensorType("float32", tuple(sizes))})[y]
    except kt.TypeInferenceError:
        claimed = None
    assert claimed == (None if expected is None else kt.TensorType("float32", expected))


def test_reshape_split_and_joined_again_keeps_the_size():
    """A size the reshape divides (its where-clause ``d % 4 == 0``) is an exact quotient in
    its result: joined again it is ``d``, so ``+ x`` keeps ``d``; a floor quotient typed
    by hand has no such fact and stays."""
    b, s, d = kt.dims("b s d")
    x = kt.tensor("x", "float32", (b, s, d))
    heads = x.reshape((b, s, 4, -1))
    assert str(heads.type) == "float32[b,s,4,d//4]"
    back = heads.reshape((b, s, -1))
    assert back.type == x.type and (back + x).type == x.type
    y = kt.tensor("y", "float32", (b, s, 4, d // 4))
    assert str(y.reshape((b, s, -1)).type) == "float32[b,s,4*(d//4)]"
    assert (heads + y).type == heads.type  # the exact and the floor d//4: one size
    f = kt.function([x], back + x, check=True)
    value = np.arange(2 * 3 * 8, dtype="float32").reshape(2, 3, 8)
    np.testing.assert_array_equal(f(value), 2 * value)
    with pytest.raises(kt.TypeInferenceError, match="cannot reshape"):  # d == 6: as NumPy
        f(np.zeros((2, 3, 6), "float32"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(2, 4), st.data())
def test_split_and_joined_again_agrees_with_numpy(sizes, k, data):
    """``x.reshape(*lead, k, -1).reshape(*lead, -1) + x`` over named sizes is typed as x
    (not ``k*(n//k)``) and runs exactly where NumPy runs it, to NumPy's values."""
    dims = [kt.Dim(f"n{i}") for i in range(len(sizes))]
    x = kt.tensor("x", "float32", dims)
    lead = data.draw(st.integers(0, len(sizes) - 1))
    y = x.reshape((*dims[:lead], k, -1)).reshape((*dims[:lead], -1))
    assert str(y.type) == str(kt.TensorType("float32", (*dims[:lead], math.prod(dims[lead:]))))
    z = y.reshape(x.shape) + x
    assert z.type == x.type
    value = np.arange(math.prod(sizes), dtype="float32").reshape(sizes)
    try:
        expected = value.reshape((*sizes[:lead], k, -1)).reshape(sizes) + value
    except ValueError:
        expected = None
    try:
        got = kt.function([x], z, check=True)(value)
    except (ValueError, kt.TypeInferenceError):
        got = None
    assert (got is None) == (expected is None)
    if got is not None:
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------------------------------------- transpose


def axes_perm(ndim: int):
    """None, a permutation (with negative axes), or anything of about that length."""
    perm = st.permutations(range(ndim)).flatmap(
        lambda p: st.tuples(*[st.sampled_from([a, a - ndim]) for a in p]))
    junk = st.lists(axis_ints(ndim), min_size=max(0, ndim - 1), max_size=ndim + 1)
    return st.one_of(st.none(), perm, perm.map(list), junk.map(tuple), axis_ints(ndim))


@CASES
@given(st.data())
def test_transpose(data):
    x, hidden = data.draw(tensor())
    axes = data.draw(axes_perm(x.ndim))
    how = data.draw(st.sampled_from(["function", "method", "T"]))
    if how == "T":
        build, ref = (lambda v: v.T), (lambda a: a.T)
    elif how == "method":
        build, ref = (lambda v: v.transpose(axes)), (lambda a: a.transpose(axes))
    else:
        build, ref = (lambda v: kt.transpose(v, axes)), (lambda a: np.transpose(a, axes))
    conform("transpose", build, ref, [x], [hidden])


@CASES
@given(st.data())
def test_permute_dims(data):
    x, hidden = data.draw(tensor())
    axes = data.draw(axes_perm(x.ndim))
    conform("permute_dims", lambda v: kt.permute_dims(v, axes),
            lambda a: np.permute_dims(a, axes), [x], [hidden])


# --------------------------------------------------------------------------- expand/squeeze


@CASES
@given(st.data())
def test_expand_dims(data):
    x, hidden = data.draw(tensor())
    axis = data.draw(int_or_tuple(axis_ints(x.ndim, 2)))
    conform("expand_dims", lambda v: kt.expand_dims(v, axis),
            lambda a: np.expand_dims(a, axis), [x], [hidden])


@CASES
@given(st.data())
def test_squeeze(data):
    x, hidden = data.draw(tensor(max_side=2, max_dims=4))
    # NumPy's squeeze refuses a list of axes (TypeError) where it takes a tuple;
    # kantensor takes both, so lists are left out.
    axis = data.draw(st.one_of(st.none(), int_or_tuple(axis_ints(x.ndim), lists=False)))
    if axis is None:
        # The relation (docs): an unknown axis is kept under "size != 1", checked when
        # the graph runs; the run-time check is tested below, so a hidden axis here is
        # never 1 (then the result is NumPy's).
        hidden = tuple(h and n != 1 for n, h in zip(x.shape, hidden, strict=True))
    def ref(a):
        return np.squeeze(a, axis)
    method = data.draw(st.booleans())
    build = (lambda v: v.squeeze(axis)) if method else (lambda v: kt.squeeze(v, axis))
    conform("squeeze", build, ref, [x], [hidden])


def test_squeeze_none_keeps_unknown_sizes_under_a_check():
    """axis=None drops the sizes known to be 1 and keeps an unknown one under
    ``size != 1``: a run-time size 1 there is an error (under check=True the relation's,
    without it the kernel's), never a result of another shape than the type."""
    x = kt.tensor("x", "float64", (1, None, 1))
    y = kt.squeeze(x)
    assert str(y.type) == "float64[?]"
    f = kt.function([x], y, check=True)
    assert f(np.zeros((1, 4, 1))).shape == (4,) == np.squeeze(np.zeros((1, 4, 1))).shape
    with pytest.raises(kt.TypeInferenceError, match="at run time"):
        f(np.zeros((1, 1, 1)))
    with pytest.raises(ValueError, match="axis 1 of the value .* has size 1"):
        kt.function([x], y)(np.zeros((1, 1, 1)))


@pytest.mark.parametrize("pattern", [(1, None, 2), (None, None), (None, 1, None), (2, "n"),
                                     (None,), ("n", 1, "m")])
def test_squeeze_none_is_one_relation(pattern):
    """squeeze(axis=None) on every size 0..3 of the unknown axes (issue 38): make_node at
    the concrete sizes, the query's one answer there and NumPy agree; the query on the
    unknown sizes covers every one of those results; and the graph built on the unknown
    sizes runs to NumPy's value exactly where its type holds, and refuses the others."""
    shape = tuple(Dim(e) if isinstance(e, str) else e for e in pattern)
    x = kt.tensor("x", "float32", shape)
    y = kt.squeeze(x)
    f = kt.function([x], y)
    answers = [a["Z"] for a in kt.query(kt.squeeze, [x.type], [var("Z")])]
    holes = [i for i, e in enumerate(pattern) if not isinstance(e, int)]
    names = {}
    for sizes in itertools.product(range(4), repeat=len(holes)):
        concrete = list(pattern)
        for i, n in zip(holes, sizes, strict=True):
            if isinstance(pattern[i], str):  # a named size is the same wherever it is
                n = names.setdefault(pattern[i], n)
            concrete[i] = n
        names.clear()
        value = np.arange(math.prod(concrete), dtype=np.float32).reshape(concrete)
        want = np.squeeze(value)
        built = kt.squeeze(kt.tensor("c", "float32", tuple(concrete))).type
        assert built.shape == want.shape
        (alone,) = kt.query(kt.squeeze, [kt.TensorType("float32", tuple(concrete))],
                            [var("Z")])
        assert alone["Z"] == built
        assert any(a.ndim == want.ndim and all(
            not isinstance(e, int) or e == n for e, n in zip(a.shape, want.shape, strict=True))
            for a in answers), (concrete, answers)
        fits = y.type.ndim == want.ndim
        try:
            got = f(value)
        except ValueError as exc:
            assert not fits and "has size 1" in str(exc), (concrete, exc)
            continue
        assert fits and got.shape == want.shape and np.array_equal(got, want), concrete


# --------------------------------------------------------------------------- joining


@st.composite
def joinable(draw, vary_axis: bool, min_n: int = 0, max_n: int = 3):
    """Up to three arrays of mixed dtypes, usually equal in shape except (when
    ``vary_axis``) along one axis, sometimes of any shapes."""
    n = draw(st.integers(min_n, max_n))
    base = draw(shapes(max_dims=3))
    if draw(st.integers(0, 3)) == 0:
        shape_list = [draw(shapes()) for _ in range(n)]
    else:
        along = draw(st.integers(0, max(len(base) - 1, 0)))
        shape_list = []
        for _ in range(n):
            s = list(base)
            if vary_axis and s:
                s[along] = draw(st.integers(0, 4))
            shape_list.append(tuple(s))
    return [draw(tensor(shape=s)) for s in shape_list]


@CASES
@given(st.data())
def test_concatenate(data):
    pairs = data.draw(joinable(vary_axis=True))
    xs, hidden = [p[0] for p in pairs], [p[1] for p in pairs]
    ndim = max((x.ndim for x in xs), default=0)
    axis = data.draw(st.one_of(st.none(), axis_ints(ndim)))
    conform("concatenate", lambda *vs: kt.concatenate(list(vs), axis=axis),
            lambda *a: np.concatenate(a, axis=axis), xs, hidden)


def test_concatenate_promotes_zero_dim_like_numpy():
    a, b = kt.tensor("a", "int8", (2,)), kt.tensor("b", "int64", ())
    y = kt.concatenate([a, b], axis=None)
    assert str(y.type) == "int64[3]"
    assert kt.function([a, b], y)(np.array([1, 2], "int8"), np.array(1000)).tolist() == \
        [1, 2, 1000]


@CASES
@given(st.data())
def test_stack(data):
    pairs = data.draw(joinable(vary_axis=False))
    xs, hidden = [p[0] for p in pairs], [p[1] for p in pairs]
    ndim = max((x.ndim for x in xs), default=0)
    axis = data.draw(axis_ints(ndim + 1))
    conform("stack", lambda *vs: kt.stack(list(vs), axis=axis),
            lambda *a: np.stack(a, axis=axis), xs, hidden)


# --------------------------------------------------------------------------- split


@CASES
@given(st.data())
def test_split(data):
    x, hidden = data.draw(tensor(min_dims=data.draw(st.sampled_from([0, 1, 1, 1])),
                                 max_side=6))
    axis = data.draw(axis_ints(x.ndim))
    size = x.shape[axis] if -x.ndim <= axis < x.ndim else 0
    divisors = [k for k in range(1, 7) if size % k == 0]
    # NumPy also takes True as one section; kantensor's int parameters refuse bools.
    how = data.draw(st.one_of(st.sampled_from(divisors), st.integers(-1, 4),
                              st.lists(st.integers(-7, 7), max_size=3).map(tuple),
                              st.lists(st.integers(-7, 7), max_size=3)))
    conform("split", lambda v: kt.split(v, how, axis=axis),
            lambda a: tuple(np.split(a, how, axis=axis)), [x], [hidden])


def test_split_types():
    x = kt.tensor("x", "float32", (kt.Dim("n"), 6))
    parts = kt.split(x, 3, axis=1)
    assert [str(p.type) for p in parts] == ["float32[n,2]"] * 3
    parts = kt.split(kt.tensor("y", "int8", (5,)), [2, 10])
    assert [str(p.type) for p in parts] == ["int8[2]", "int8[3]", "int8[0]"]


# --------------------------------------------------------------------------- broadcast_to


@st.composite
def broadcast_target(draw, shape: tuple[int, ...]):
    """Usually a shape that ``shape`` broadcasts to (1s stretched, leading axes
    added), sometimes with a wrong or negative size; an int for one axis."""
    lead = draw(st.lists(st.integers(0, 3), max_size=2))
    tail = [draw(st.integers(0, 4)) if n == 1 else n for n in shape]
    out = lead + tail
    if out and draw(st.integers(0, 3)) == 0:
        out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(-1, 4))
    if draw(st.integers(0, 5)) == 0:
        out = out[1:]
    if len(out) == 1 and draw(st.booleans()):
        return out[0]
    return tuple(out)


@CASES
@given(st.data())
def test_broadcast_to(data):
    x, hidden = data.draw(tensor(max_side=3))
    target = data.draw(broadcast_target(x.shape))
    conform("broadcast_to", lambda v: kt.broadcast_to(v, target),
            lambda a: np.broadcast_to(a, target), [x], [hidden])


def test_broadcast_to_unknown_dim_is_checked_by_numpy():
    x = kt.tensor("x", "float32", (None, 3))
    y = kt.broadcast_to(x, (2, 4, 3))
    assert str(y.type) == "float32[2,4,3]"
    f = kt.function([x], y)
    assert f(np.ones((1, 3), "float32")).shape == (2, 4, 3)
    with pytest.raises(ValueError):
        f(np.ones((2, 3), "float32"))


# --------------------------------------------------------------------------- flatten, diff


@CASES
@given(st.data())
def test_flatten(data):
    x, hidden = data.draw(tensor(max_dims=4))
    method = data.draw(st.booleans())
    build = (lambda v: v.flatten()) if method else kt.flatten
    conform("flatten", build, lambda a: a.flatten(), [x], [hidden])


@CASES
@given(st.data())
def test_diff(data):
    x, hidden = data.draw(tensor(max_side=5))
    n = data.draw(st.integers(-1, 5))
    axis = data.draw(axis_ints(x.ndim))
    conform("diff", lambda v: kt.diff(v, n, axis), lambda a: np.diff(a, n, axis),
            [x], [hidden])


# --------------------------------------------------------------------------- convolve


@CASES
@given(st.data())
def test_convolve(data):
    a, ha = data.draw(tensor(max_dims=2, max_side=5))
    v, hv = data.draw(tensor(max_dims=2, max_side=5))
    mode = data.draw(st.sampled_from(["full", "same", "valid"]))
    conform("convolve", lambda x, y: kt.convolve(x, y, mode),
            lambda x, y: np.convolve(x, y, mode), [a, v], [ha, hv])


def test_convolve_rejects_unknown_mode():
    x = kt.tensor("x", "float32", (3,))
    with pytest.raises(ParamError):
        kt.convolve(x, x, "circular")


# --------------------------------------------------------------------------- pad


def pad_widths(ndim: int):
    """Every form of pad_width NumPy takes: n, [n], (b, a), ((b, a),), one pair or
    one [n] per axis; sometimes the wrong number of pairs or a negative width."""
    w = st.integers(0, 2)
    pair = st.tuples(w, w)
    return st.one_of(
        w, st.lists(w, min_size=1, max_size=1), pair, st.lists(pair, min_size=1, max_size=1),
        st.lists(pair, min_size=ndim, max_size=ndim).map(tuple),
        st.lists(st.lists(w, min_size=1, max_size=1), min_size=ndim, max_size=ndim),
        st.lists(pair, min_size=0, max_size=4), st.integers(-1, 0),
        st.tuples(st.integers(-1, 1), w))


FILL = st.one_of(st.integers(-300, 300), st.sampled_from([0, -1, 1.5, -2.5, True, False,
                                                          1j, 2 - 1j, float("nan"),
                                                          float("inf"), 1e300, 2**63]))


@CASES
@given(st.data())
def test_pad(data):
    x, hidden = data.draw(tensor(max_side=3))
    pw = data.draw(pad_widths(x.ndim))
    fill = data.draw(FILL)
    conform("pad", lambda v: kt.pad(v, pw, constant_values=fill),
            lambda a: np.pad(a, pw, constant_values=fill), [x], [hidden])


def test_pad_sizes_are_symbolic():
    x = kt.tensor("x", "float32", (kt.Dim("n"), None))
    assert str(kt.pad(x, ((1, 2), (0, 0))).type) == "float32[n+3,?]"
    assert math.prod(kt.function([x], kt.pad(x, 1))(np.ones((2, 2), "float32")).shape) == 16


@CASES
@given(st.data())
def test_shape_of(data):
    """shape_of(x, axis) is as long as NumPy's x.shape[axis] (out-of-range axes refused
    as NumPy refuses the index)."""
    x, hidden = data.draw(tensor(min_dims=1, max_dims=4))
    axis = data.draw(axis_ints(x.ndim))
    conform("shape_of", lambda v: kt.shape_of(v, axis=axis),
            lambda a: np.zeros(a.shape[axis], dtype=bool), [x], [hidden])

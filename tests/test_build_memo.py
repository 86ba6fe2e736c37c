"""The memos that make cached graph builds fast must never give a different answer
from a fresh build: values that compare equal but differ (1 and True, 0.0 and -0.0),
type objects that die and whose ids are reused, the default dtype changing."""

import copy
import gc
import pickle
import random
import sys
import textwrap
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.graph import codegen
from kantensor.ops import fastcall
from kantensor.ops.family import FAST_SHAPES, OpFamily
from kantensor.ops.params import ParamError
from kantensor.ops.templates import RankType, dims, reads_ranks


def test_bool_parameter_is_not_taken_for_an_int_seen_before():
    x = kt.tensor("x", "float64", (2, 3))
    assert kt.sum(x, axis=1).type == kt.TensorType("float64", (2,))
    with pytest.raises(ParamError, match="axis"):
        kt.sum(x, axis=True)
    assert kt.sum(x, axis=1).type == kt.TensorType("float64", (2,))


def test_slice_bounds_must_stay_ints_after_an_int_slice_was_cached():
    x = kt.tensor("x", "float64", (5,))
    assert x[1:].type == kt.TensorType("float64", (4,))
    with pytest.raises(ParamError, match="slice bounds and steps that are ints or None"):
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


def test_equal_types_are_one_object_and_a_type_nobody_holds_is_freed():
    """Types are interned, so memos key on the type itself: no id of a dead type can
    stand for another."""
    a = kt.TensorType("float32", (3, None))
    assert kt.TensorType(np.float32, [3, None]) is a
    assert kt.TensorType.parse("float32[3,?]") is a and kt.fmatrix().type is not a
    assert pickle.loads(pickle.dumps(a)) is a and copy.deepcopy(a) is a
    gone = weakref.ref(kt.TensorType("int8", (98765,)))
    gc.collect()
    assert gone() is None
    x = kt.tensor(None, "int16", (45678, 2))
    held = weakref.ref(x.type)
    (x + 1).type  # noqa: B018 - the memo of add keys on x's type and keeps it
    del x
    gc.collect()
    assert held() is not None


def test_a_rank_only_builder_renders_once_per_ranks_and_dtypes():
    """A builder marked reads_ranks sees RankType inputs (no shape to read), renders
    once per ranks and dtypes, and every size still comes from the relation."""
    seen = []

    @reads_ranks
    def rows(types, **_):
        seen.append(types)
        a = dims("a", types[0].ndim)
        return {"x": a, "y": a[:1]}

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
        return {"x": list(types[0].shape), "y": []}

    wrong = kt.op("{x}:t->{y}:t", call="x", builder=mislabelled)(lambda x: x.sum())
    with pytest.raises(AttributeError, match="'RankType' object has no attribute 'shape'"):
        wrong(kt.fmatrix())


# -- cached calls of Ops with parameters (ops/fastcall.py) --------------------------
# Each call shape has a generated function that keys the call and looks it up. Values
# that compare equal but are treated differently (1 and True, 1 and 1.0, -1 and
# np.int64(-1), a tuple and a list) must never share an answer: a sequence of calls with
# repeats is run twice, once as it comes (memo hits among them) and once with every memo
# of the family emptied before each call, and NumPy says what the successes must be.

ATOMS = st.sampled_from([0, 1, -1, 2, 3, True, False, 1.0, -0.0, np.int64(-1), None])
SLICES = st.builds(slice, ATOMS, ATOMS, st.sampled_from([None, 1, 2, -1, True, 2.0]))
ITEMS = st.one_of(ATOMS, SLICES, st.just(Ellipsis))
INDICES = st.one_of(ITEMS, st.tuples(ITEMS, ITEMS), st.tuples(ITEMS, ITEMS, ITEMS),
                    st.lists(ITEMS, max_size=2))
AXES = st.one_of(ATOMS, st.tuples(ATOMS), st.tuples(ATOMS, ATOMS))  # NumPy: no lists
SHAPES = st.one_of(st.tuples(ATOMS, ATOMS), st.lists(ATOMS, min_size=1, max_size=3),
                   st.sampled_from([(3, -1), (-1, 4), [12], (2, 6), (2, 2, 3), 12]))
X = np.arange(12.0).reshape(4, 3)
Y = np.arange(6.0).reshape(2, 3)
KX, KY = kt.tensor("x", "float64", (4, 3)), kt.tensor("y", "float64", (2, 3))

#: Any value goes to any call: an error is an outcome too, and keys of one value in
#: calls of other shapes (``sum(x, 1)``, ``sum(x, keepdims=1)``) must not meet.
VALUES = st.one_of(ATOMS, INDICES, SHAPES, AXES)


def run_call(lib, call: str, value):
    """The call, on kantensor's tensors or NumPy's arrays."""
    x, y = (KX, KY) if lib is kt else (X, Y)
    calls = {
        "x[i]": lambda: x[value],
        "sum(x, axis=a)": lambda: lib.sum(x, axis=value),
        "sum(x, a)": lambda: lib.sum(x, value),
        "sum(x, a, keepdims=True)": lambda: lib.sum(x, value, keepdims=True),
        "sum(x, keepdims=a)": lambda: lib.sum(x, keepdims=value),
        "x.reshape(s)": lambda: x.reshape(value),
        "reshape(x, shape=s)": lambda: lib.reshape(x, shape=value),
        "concatenate([x, y], axis=a)": lambda: lib.concatenate([x, y], axis=value),
        "concatenate((y, x), a)": lambda: lib.concatenate((y, x), value),
    }
    return calls[call]() if call else calls


CALL_NAMES = run_call(np, "", None)


FAMILIES = [kt.ops.CATALOGUE[name] for name in ("getitem", "sum", "reshape", "concatenate")]


def forget() -> None:
    """Empty the families' memos of calls and of normalised values."""
    for family in FAMILIES:
        family.forget_calls()


def outcome(call: str, value, fresh: bool):
    """(the output type as text) or (the error's class and message); ``fresh`` forgets
    every earlier call first."""
    if fresh:
        forget()
    try:
        return str(run_call(kt, call, value).type)
    except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
        return type(exc).__name__, str(exc)


#: Each atom's look-alike, by type and value (a dict would take True for 1): equal to
#: it, but given to a normaliser it may differ.
LOOK_ALIKES = {(int, 1): 1.0, (int, 0): False, (int, -1): np.int64(-1), (int, 2): 2.0,
               (int, 3): np.int64(3), (bool, True): 1, (bool, False): 0}


def look_alike(value):
    """``value`` with every atom (also slice bounds and tuple items) replaced by its
    look-alike, kind kept (a tuple stays a tuple)."""
    if isinstance(value, slice):
        return slice(*map(look_alike, (value.start, value.stop, value.step)))
    if isinstance(value, tuple | list):
        return type(value)(map(look_alike, value))
    return LOOK_ALIKES.get((type(value), value), value)


@st.composite
def call_sequences(draw):
    """Every call with a few values and their look-alike twins, each twice, in any
    order."""
    values = draw(st.lists(VALUES, min_size=1, max_size=2))
    values += [look_alike(value) for value in values]
    pool = [(call, value) for call in CALL_NAMES for value in values]
    return draw(st.permutations(pool + pool))


@settings(max_examples=100, deadline=None)
@given(call_sequences())
def test_cached_calls_never_differ_from_fresh_ones(calls):
    forget()  # each example starts afresh, so that a failure is its own
    as_it_comes = [outcome(call, value, fresh=False) for call, value in calls]
    fresh = [outcome(call, value, fresh=True) for call, value in calls]
    assert as_it_comes == fresh, calls
    for (call, value), got in zip(calls, fresh, strict=True):
        if isinstance(got, str):  # kantensor built it: NumPy must agree on the type
            try:
                expected = run_call(np, call, value)
            except Exception:  # noqa: BLE001 - x[[12]]: NumPy checks at once, we at run time
                out = run_call(kt, call, value)
                with pytest.raises(Exception):  # noqa: B017, PT011 - NumPy's own error
                    kt.function([KX, KY], out)(X, Y)
                continue
            assert got == str(kt.TensorType(str(expected.dtype), expected.shape)), \
                (call, value)


@settings(max_examples=30, deadline=None)
@given(call_sequences())
def test_generated_calls_give_what_the_plain_path_gives(calls):
    """The reference: with generated code off (kantensor.graph.codegen), every call
    binds and builds afresh; the cached calls must give the same outcomes."""
    forget()
    generated = [outcome(call, value, fresh=False) for call, value in calls]
    forget()
    with codegen.plain():
        for family in FAMILIES:
            family.fast.clear()
        plain = [outcome(call, value, fresh=False) for call, value in calls]
        assert not any(family.fast for family in FAMILIES)  # nothing was generated
    assert generated == plain, calls


@settings(max_examples=300, deadline=None)
@given(st.one_of(VALUES, st.lists(st.one_of(ITEMS, st.text(max_size=1)), max_size=3),
                 st.text(max_size=2), st.floats(), st.just(slice(1, "a"))))
def test_exact_key_is_the_key_generated_calls_inline(value):
    """exact_key (plain Python) and the loop generated calls inline for a tuple
    (fastcall._SEQUENCE_KEY) key every sequence alike, or both refuse it."""
    body = textwrap.indent(fastcall._SEQUENCE_KEY.format(key="key", kind="kind",
                                                          items="items"), "    ")
    inlined = codegen.define(f"def keyed(kind, items):\n{body}\n    return key", "keyed", {})
    if type(value) in (tuple, list, slice):
        items = (value,) if type(value) is slice else value
        assert fastcall.exact_key(value) == inlined(type(value), items), value
    else:  # an atom is its own key with its type; anything else has none
        atom = type(value) in (int, bool, str) or value is None or value is Ellipsis
        assert fastcall.exact_key(value) == ((type(value), value) if atom else None)
    with codegen.plain():
        assert fastcall.exact_key(value) is None  # (nothing remembered by key)


def test_generated_code_is_made_only_while_the_switch_is_on():
    family = kt.ops.CATALOGUE["sum"]
    x = kt.tensor(None, "float32", (2, 3))
    with codegen.plain():
        family.fast.clear()
        assert kt.sum(x, axis=1).type == kt.sum(x, axis=1).type == kt.TensorType("float32", (2,))
        assert not family.fast
    kt.sum(x, axis=1)
    assert family.fast and "def _fast_call" in next(iter(family.fast.values())).func.__source__


def test_make_node_builds_what_the_call_builds_and_caches_no_call():
    """``family.make_node`` (for callers with their own memo, such as the ONNX importer)
    gives the call's node, NumPy's types, and records no cached call of its shape."""
    family = kt.ops.CATALOGUE["sum"]
    x = kt.tensor("x", "float32", (4, 3))
    family.forget_calls()
    family.fast.clear()
    node = family.make_node(x, axis=1, keepdims=True)
    assert not family.fast  # nothing recorded, nothing generated
    expected = np.sum(np.ones((4, 3), "float32"), axis=1, keepdims=True)
    assert node.inputs == [x] and node.outputs[0].type == kt.TensorType(
        str(expected.dtype), expected.shape)
    called = kt.sum(x, axis=1, keepdims=True)
    assert called.owner.op is node.op and called.type is node.outputs[0].type
    with pytest.raises(ParamError, match="keepdims: expected True or False, got 1"):
        family.make_node(x, keepdims=1)


def test_a_cached_call_makes_new_nodes_of_the_same_op():
    x = kt.tensor("x", "float64", (4, 3))
    first, second, third = x[1:, ::2], x[1:, ::2], x[1:, ::2]
    assert len({id(first), id(second), id(third)}) == 3
    assert len({id(v.owner) for v in (first, second, third)}) == 3
    assert first.owner.op is second.owner.op is third.owner.op
    assert second.owner.inputs == [x] and str(third.type) == "float64[3,2]"
    parts = kt.split(x, [1, 3], axis=0)  # several outputs, cached
    again = kt.split(x, [1, 3], axis=0)
    assert [str(p.type) for p in again] == ["float64[1,3]", "float64[2,3]", "float64[1,3]"]
    assert all(a is not b for a, b in zip(parts, again, strict=True))
    assert again[0].owner is again[2].owner


def test_calls_of_other_shapes_never_share_an_answer():
    """``sum(x, 1)`` and ``sum(x, keepdims=1)`` give the same value in calls of other
    shapes: the first is axis 1, the second is refused (keepdims must be a bool), however
    often either was called before."""
    x = kt.tensor("x", "float64", (4, 3))
    for _ in range(3):
        assert str(kt.sum(x, 1).type) == "float64[4]"
        with pytest.raises(ParamError, match="keepdims: expected True or False, got 1"):
            kt.sum(x, keepdims=1)


def test_cached_calls_read_keywords_in_any_order():
    x = kt.tensor("x", "float64", (4, 3))
    for _ in range(2):
        assert str(kt.sum(x, axis=0, keepdims=True).type) == "float64[1,3]"
        assert str(kt.sum(x, keepdims=True, axis=1).type) == "float64[4,1]"
        assert str(kt.sum(x, keepdims=False, axis=1).type) == "float64[4]"


def test_call_shapes_past_the_bound_bind_every_time_and_stay_right():
    """Each call shape has a memo; past FAST_SHAPES shapes calls take the general path
    (so the memos' memory stays bounded) and give the same answers."""
    keep = kt.op("(n)->(n)", call="x, a: int = 0, b: int = 0, c: int = 0, d: int = 0, "
                                  "e: int = 0")(lambda x, **_: x)
    x = kt.dvector("x")
    names = "abcde"
    shapes = [dict.fromkeys(names[:k], 1) for k in range(6)] + \
        [dict.fromkeys(names[k:], 2) for k in range(1, 5)] + \
        [{name: 3} for name in names[1:4]] + [{"e": 1, "a": 1}, {"d": 1, "b": 1},
                                             {"c": 1, "a": 1}, {"e": 1, "b": 1}]
    assert len({tuple(kwargs) for kwargs in shapes}) == len(shapes) > FAST_SHAPES
    for _ in range(2):
        for kwargs in shapes:
            out = keep(x, **kwargs)
            assert out.type == x.type and out.owner.inputs == [x]
            assert dict(out.owner.op.params) == {**dict.fromkeys(names, 0), **kwargs}
    assert len(keep.fast) == FAST_SHAPES


def test_the_second_equal_call_is_a_memo_hit(monkeypatch):
    """The first call of a shape binds and records; equal calls after it do not bind
    (what makes cached builds fast), unequal ones do."""
    binds = []
    spec = kt.ops.CATALOGUE["getitem"].spec
    real = spec.bind
    monkeypatch.setattr(spec, "bind", lambda *a: binds.append(a) or real(*a))
    x = kt.tensor(None, "float64", (7, 5))  # a type never seen: the first call misses
    types = [str(x[1:, ::2].type) for _ in range(3)]
    assert types == ["float64[6,3]"] * 3 and len(binds) == 1
    assert str(x[2:, ::2].type) == "float64[5,3]" and len(binds) == 2
    assert str(x[2:, 1].type) == "float64[5]" and len(binds) == 3


def test_families_sharing_a_call_convention_keep_their_own_answers():
    """Two families of one CallSpec (a catalogue entry's family and the one its
    examples make) never answer each other's calls."""
    twice = OpFamily("twice_sum", kt.sum.template, lambda x, **kw: 2 * np.sum(x, **kw),
                     kt.sum.spec, compute=kt.sum.compute, builder=kt.sum.builder)
    x = kt.dmatrix("x")
    for _ in range(2):
        assert kt.sum(x, axis=1).owner.op.name == "sum"
        assert twice(x, axis=1).owner.op.name == "twice_sum"
    y = twice(x, axis=1)
    assert kt.function([x], y)(np.ones((2, 3))).tolist() == [6.0, 6.0]


def test_cached_calls_from_many_threads_give_what_one_thread_gives():
    """Eight threads make the same calls (look-alikes among them) at once, while one
    of them keeps emptying the memos: every outcome is the single-threaded one."""
    values = [1, True, 1.0, (0,), [0], (slice(1, None), slice(None, None, 2)),
              (slice(1.0, None),), (3, -1), [2, 6], np.int64(-1)]
    calls = [(call, value) for call in sorted(CALL_NAMES) for value in values]
    forget()
    expected = [outcome(call, value, fresh=True) for call, value in calls]

    def run(seed: int) -> bool:
        order = list(range(len(calls)))
        random.Random(seed).shuffle(order)
        got = {}
        for i in order * 3:
            if seed == 0 and i % 7 == 0:
                forget()
            got[i] = outcome(*calls[i], fresh=False)
            if got[i] != expected[i]:
                return False
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(run, range(16)))


def test_a_python_int_that_does_not_fit_is_refused_after_one_that_fits():
    """Wrapped ints share one interned type; the memo keys them on what decides whether
    they fit (sign and bit length), so a cached answer never skips the refusal."""
    u = kt.vector("u", "uint8")
    for value, fits in ((1, True), (1000, False), (255, True), (256, False), (-1, False),
                        (200, True), (-129, False)):
        for _ in range(2):  # the second time from the memo
            if fits:
                assert (u + value).type == kt.TensorType("uint8", (None,))
            else:
                with pytest.raises(kt.ops.pyints.PythonIntError, match=f"integer {value} "):
                    u + value


def test_a_cached_call_keeps_the_conditions_and_facts_of_a_fresh_build():
    """An Op family's cached call (ops/fastcall.py) never loses what the relation needs
    of the sizes: the second ``dot`` of ``[N,D]`` and ``[K,3]`` still needs ``D == K``,
    and a call on a tensor with facts passes them on."""
    N, D, K = kt.dims("N D K")
    x, w = kt.tensor("x", "float32", (N, D)), kt.tensor("w", "float32", (K, 3))
    built = [kt.dot(x, w) for _ in range(3)]
    assert [[str(c) for c in y.owner.conditions] for y in built] == [["D == K"]] * 3
    assert all(str(y.facts) == "Facts(D == K)" for y in built)
    assert [str(kt.sum(y, axis=0).facts) for y in built] == ["Facts(D == K)"] * 3


def test_conditions_named_when_first_read_are_those_named_at_the_build():
    """A build's broadcast condition (a disjunction: no fact) is named on the node's
    inputs when first read: the same conditions as naming them at once, on the inputs
    the node had when it was built (even if its inputs are replaced meanwhile, as a
    rewrite does), in a pickle too."""
    from kantensor.ops.located import Unplaced, located
    from kantensor.signature.forward import build

    x = kt.tensor("x", "float32", (None, 3))
    y = kt.tensor("y", "float32", (7, 3))
    node = (x + y).owner
    assert isinstance(node._conditions, Unplaced)  # not named yet
    raw = build(kt.add.signature, (x.type, y.type)).conditions
    expected = located(raw, node)
    node.inputs[0] = kt.tensor("other", "float32", (None, 3))  # a rewrite's replacement
    got = node.conditions
    assert got == expected and [c.source for c in got] == [c.source for c in expected]
    assert str(got[0]) == "x.shape[0] == 7 or x.shape[0] == 1"
    assert node.conditions is got  # named once
    z = x + kt.tensor("w", "float32", (5, 3))
    again = pickle.loads(pickle.dumps(z))
    assert [str(c) for c in again.owner.conditions] == \
        ["x.shape[0] == 5 or x.shape[0] == 1"]
    assert (x + y).owner.outputs[0].facts == kt.Facts()  # no fact from a disjunction

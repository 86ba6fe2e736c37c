"""Canonical forms of sizes (kantensor.types.canon, .quasi): sound at every size (Python's
own ``//``, ``%``, min and max at 0, 1 and on, by substitution), one form for sizes of one
symbol that are equal at every size (equality decided by brute force over a window
longer than the threshold and two periods), chains of strided and ceil-mode windows
that stay short, and hostile sizes that stay cheap. The number of examples is
``KANTENSOR_FACTS_EXAMPLES`` (150 by default; the long run uses 5,000)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.canon import _canonical, canonical_form
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim, unknown
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.quasi import MAX_PERIOD, table
from kantensor.types.quasiform import one_symbol_form
from kantensor.types.readback import one_floor as _one_floor
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
n, m, h = Dim("n"), Dim("m"), Dim("h")


def _at(x, **sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


# -- the named forms ----------------------------------------------------------------------
@pytest.mark.parametrize(("ways", "form"), [
    ((n % 3, n - 3 * (n // 3)), "n % 3"),
    ((n // 2 + (n + 1) // 2, n), "n"),  # Hermite's identity
    (((n // 2) // 3, n // 6), "n//6"),
    ((-(-n // 3), (n + 2) // 3, n - (2 * n) // 3), "(n + 2)//3"),  # a ceil
    (((3 * n) // 2, n + n // 2, 2 * n - (n + 1) // 2), "n + n//2"),
    (((n + 1) // 2 - n // 2, n % 2, (n + 2) % 2, n - 2 * (n // 2)), "n % 2"),
    ((dim_max(n // 2, n // 3), n // 2, dim_min(n, n // 2)), "n//2"),
    ((dim_min((h + 1) // 2, h // 2), h // 2), "h//2"),
    ((n // 2 + n // 3, (5 * n - 3 * (n % 2) - 2 * (n % 3)) // 6), "n//2 + n//3"),
    ((n // 2 + n // 6, (4 * n - 3 * (n % 2) - n % 6) // 6), "n//2 + n//6"),  # nested combs
    ((n // 2 - n // 4, (n + 2) // 4), "(n + 2)//4"),
    ((dim_max(5, n), dim_max(0, n - 5) + 5, dim_max(n, 5, n - 1)), "max(5, n)"),
    ((dim_min(64, n), 64 - dim_max(0, 64 - n)), "min(64, n)"),
    ((dim_min(3, (n + 1) // 2) + dim_min(3, n // 2), dim_min(6, n)), "min(6, n)"),
    ((dim_max(1, n) + 2 - 3 * ((dim_max(1, n) + 2) // 3), (dim_max(n, 1) + 5) % 3),
     "(max(1, n) + 2) % 3"),  # a clamp, then a remainder
    # separate symbols: each part on its own
    ((n % 2 + m // 2 + (m + 1) // 2, m + n - 2 * (n // 2)), "m + n % 2"),
    # over two symbols the arguments are made canonical
    ((dim_min(m, n // 2 + (n + 1) // 2), dim_min(n, m)), "min(m, n)"),
])
def test_equal_sizes_get_one_form(ways, form) -> None:
    for x in ways:
        for v in range(0, 40):
            assert _at(x, n=v, m=v // 3, h=v) == _at(ways[0], n=v, m=v // 3, h=v)
        assert str(canonical_form(x)) == form, x
        assert str(EMPTY.simplify(x)) == form, x


def test_facts_simplify_into_the_one_form() -> None:
    """What a fact makes simpler is then written in the one form too."""
    even = Facts([Condition(n % 2, "==", 0)])
    assert even.simplify(2 * (n // 2) + n % 3) == n + n % 3
    small = Facts([Condition(n, "<=", 64)])
    assert str(small.simplify(dim_min(64, n) - 3 * (n // 3))) == "n % 3"


@pytest.mark.parametrize(("ways", "form"), [
    ((dim_max(n % 3, n // 3), dim_max(n % 3, n // 2) + dim_min(dim_max(n % 3, n // 3), n // 2)
      - n // 2), "max(n % 3, n//3)"),
    ((dim_max(n % 2, n // 4), dim_max(n % 2, n // 4) - dim_min(3 - n, dim_max(n % 2, n // 4))
      + dim_min(4 - n, dim_max(n % 2, n // 4) + 1) - 1), "max(n % 2, n//4)"),
    ((dim_min(3 * (n % 2), n), dim_min(3 * (n % 2), dim_min(3 * (n % 2), n) + 1, n)),
     "min(3*(n % 2), n)"),
    ((dim_min(6, n) % 4, (dim_min(6, n) % 4 + 1) // 2 + (dim_min(6, n) % 4) // 2), "min(6, n) % 4"),
    ((3 * n + dim_min(5, n) % 4, 2 * n + (n + 1) // 2 + dim_min(5, n) % 4 + n // 2),
     "3*n + min(5, n) % 4"),
    ((dim_min(6, n) % 2, dim_min((dim_min(6, n) % 2 + 1) // 2, n % 2)), "min(6, n) % 2"),
    ((dim_min(8, 4 * n), 4 * dim_min(2, n)), "4*min(2, n)"),  # a common factor out
    ((dim_max(6, 2 * n) + 1, 2 * dim_max(3, n) + 1, dim_max(7, 2 * n + 1)), "2*max(3, n) + 1"),
])
def test_sizes_past_a_threshold_get_one_form(ways, form) -> None:
    """A size of one symbol past a threshold: the min or max of its late sum and another
    sum (of a short period), or the late sum plus the difference until the threshold."""
    for x in ways:
        for v in range(0, 60):
            assert _at(x, n=v) == _at(ways[0], n=v)
        assert str(canonical_form(x)) == form, x
        assert _decided(x)


# -- random sizes of one symbol -----------------------------------------------------------
def _tree(depth: int = 3, extremes: bool = True) -> st.SearchStrategy:
    """Size expressions of ``n`` as trees: ("n",), ("int", k), (op, left, right | k);
    min and max among them unless ``extremes`` is False."""
    leaf = st.one_of(st.just(("n",)), st.integers(-3, 8).map(lambda k: ("int", k)))
    if depth == 0:
        return leaf
    sub = _tree(depth - 1, extremes)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["+", "-", "min", "max"] if extremes else ["+", "-"]),
                  sub, sub),
        st.tuples(st.just("*"), sub, st.integers(-3, 3)),
        st.tuples(st.sampled_from(["//", "%"]), sub, st.integers(1, 4)),
    )


def _build(t):
    """The size a tree stands for (leaves: the sizes ``n``, ``m`` and ints)."""
    if t[0] in ("n", "m"):
        return Dim(t[0])
    if t[0] == "int":
        return t[1]
    a = _build(t[1])
    b = _build(t[2]) if isinstance(t[2], tuple) else t[2]
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "//": lambda: a // b, "%": lambda: a % b, "min": lambda: dim_min(a, b),
            "max": lambda: dim_max(a, b)}[t[0]]()


def _rewrite(t, choice: int, k: int):
    """``t`` written another way, with the same value at every size."""
    if choice == 0:  # Hermite: t == t//2 + (t + 1)//2
        return ("+", ("//", t, 2), ("//", ("+", t, ("int", 1)), 2))
    if choice == 1:  # t == t % k + k*(t//k)
        return ("+", ("%", t, k), ("*", ("//", t, k), k))
    if choice == 2:  # an argument the other bounds
        return ("min", t, ("+", t, ("int", k - 1)))
    if choice == 3:
        return ("max", ("-", t, ("int", k)), t)
    if choice == 4:  # t == (k*t + j)//k
        return ("//", ("+", ("*", t, k), ("int", k - 1)), k)
    if choice == 5 and t[0] == "%":  # t % k == t - k*(t//k)
        return ("-", t[1], ("*", ("//", t[1], t[2]), t[2]))
    if choice == 6 and t[0] == "//":  # (x//a)//b == x//(a*b), a floor taken apart
        return ("//", ("//", t[1], 1), t[2]) if t[2] == 1 else \
            ("//", ("//", ("*", t[1], k), k), t[2])
    if choice == 7 and t[0] == "//":  # a ceil the other way: -((-x)//k) == (x + k - 1)//k
        return ("-", ("int", 0), ("//", ("-", ("int", 0), ("-", t[1], ("int", t[2] - 1))), t[2]))
    return t


def _rewritten(t, path: list[int], choice: int, k: int):
    """``t`` with the node ``path`` leads to rewritten."""
    if not path or t[0] in ("n", "int"):
        return _rewrite(t, choice, k)
    i = 1 + path[0] % (2 if isinstance(t[2], tuple) else 1)
    parts = list(t)
    parts[i] = _rewritten(t[i], path[1:], choice, k)
    return tuple(parts)


def _window(*xs) -> int:
    """Past the threshold and two periods of each size (their tables), at least 40."""
    found = [table(x) for x in xs if not isinstance(x, int)]
    return max([40] + [t[0] + 2 * t[1] + 1 for t in found if t is not None])


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(t=_tree(), far=st.lists(st.integers(0, 10**12), max_size=3))
def test_the_form_is_sound(t, far) -> None:
    """The form equals the size at 0, 1, on past its threshold and two periods, and far;
    it is its own form."""
    x = _build(t)
    form = canonical_form(x)
    assert canonical_form(form) == form, (x, form, canonical_form(form))
    for v in [*range(_window(x)), *far]:
        assert _at(form, n=v) == _at(x, n=v), (x, form, v)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(t=_tree(), steps=st.lists(st.tuples(st.lists(st.integers(0, 1), max_size=3),
                                           st.integers(0, 7), st.integers(1, 4)),
                                 min_size=1, max_size=3))
def test_sizes_equal_at_every_size_get_one_form(t, steps) -> None:
    """A size and the same size rewritten (Hermite, remainders, ceils, bounded min/max
    arguments, floors taken apart): equal at every size (checked over the window of
    their tables), so one form, wherever the size's form is decided."""
    u = t
    for path, choice, k in steps:
        u = _rewritten(u, path, choice, k)
    x, y = _build(t), _build(u)
    for v in range(_window(x, y)):
        assert _at(x, n=v) == _at(y, n=v)
    if isinstance(x, int) or table(x) is None:
        return  # past the limits: sound (above), not canonical
    assert table(x) == table(y)
    if _decided(x):
        assert canonical_form(x) == canonical_form(y), (x, y)
        assert str(canonical_form(x)) == str(canonical_form(y))


def _decided(x) -> bool:
    """Whether the form of ``x`` is one of its table (not left as built)."""
    return one_symbol_form(x, "n") is not None


@pytest.mark.parametrize("x", [(n + n // 4) % 4, (n + n // 3) % 4, (n // 3 + n // 5) % 2,
                               (n + n // 2) % 4 + n // 3])
def test_a_part_no_sparse_fit_has_is_written_from_its_table(x) -> None:
    """A part of one size whose table no sum of one or two floors (nor the greedy search)
    has is written with one floor by its period per residue (quasiform._combs): sound at
    every size of the window (brute force), its own form, and the same however it is
    written (Hermite's identity, a remainder taken apart, plus and minus a floor)."""
    ways = (x, (x + 1) // 2 + x // 2, x + 3 * (x // 3) - 3 * (x // 3), 2 * x - x)
    ways += (x % 7 + 7 * (x // 7),)
    form = canonical_form(x)
    assert one_symbol_form(x, "n") is not None
    assert canonical_form(form) == form
    for y in ways:
        for v in range(_window(x, y) + 40):
            assert _at(y, n=v) == _at(x, n=v) == _at(form, n=v)
        assert canonical_form(y) == form, (y, canonical_form(y), form)
        assert EMPTY.simplify(y) == form


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(a=st.integers(-3, 3), combs=st.lists(st.tuples(st.integers(-3, 3), st.integers(2, 7),
                                                      st.integers(0, 6)), max_size=2),
       e=st.integers(2, 9), s=st.integers(0, 10))
def test_a_remainder_of_a_sparse_sum_gets_one_form(a, combs, e, s) -> None:
    """A remainder ``(g + s) % e`` of ``a*n`` and up to two floors (periods up to 9*35,
    past MAX_COMB_PERIOD: no sparse fit of its own table) has one form (quasimod), sound
    at every size past its threshold and two periods (brute force), however it is
    written."""
    g = a * n + sum((c * ((n + r % d) // d) for c, d, r in combs), start=0)
    x = (g + s) % e
    ways = (x, (x + 1) // 2 + x // 2, x % 7 + 7 * (x // 7), 2 * (x // 2) + x % 2)
    form = canonical_form(x)
    assert isinstance(x, int) or one_symbol_form(x, "n") is not None
    for y in ways:
        for v in range(_window(x, y) + 40):
            assert _at(y, n=v) == _at(x, n=v) == _at(form, n=v)
        assert canonical_form(y) == form, (y, canonical_form(y), form)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(a=_tree(2), b=_tree(2))
def test_tables_decide_equality_and_equal_sizes_get_one_form(a, b) -> None:
    """Two random sizes: their tables agree exactly where brute force over the window
    says they are equal, and then they get one form."""
    x, y = _build(a), _build(b)
    equal = all(_at(x, n=v) == _at(y, n=v) for v in range(_window(x, y)))
    if isinstance(x, int) or isinstance(y, int):
        assert (canonical_form(x) == canonical_form(y)) is equal
        return
    if table(x) is None or table(y) is None:
        return
    assert (table(x) == table(y)) is equal, (x, y)
    if equal and _decided(x):
        assert canonical_form(x) == canonical_form(y), (x, y)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(a=_tree(2, extremes=False), b=_tree(2, extremes=False), c=st.integers(0, 12),
       kind=st.integers(0, 3), k=st.integers(2, 4), steps=st.lists(st.tuples(
           st.lists(st.integers(0, 1), max_size=3), st.integers(0, 7), st.integers(1, 4)),
           min_size=1, max_size=2))
def test_sizes_past_a_threshold_rewritten_get_one_form(a, b, c, kind, k, steps) -> None:
    """Random sizes past a threshold (a min or max of two sums; a floor or remainder of a
    clamp beside a sum) and the same sizes rewritten: sound over their tables' window,
    one form wherever the size's form is decided."""
    t = [("min", a, b), ("max", a, b), ("+", a, ("%", ("min", ("int", c), ("n",)), k)),
         ("+", a, ("//", ("max", ("int", c), b), k))][kind]
    u = t
    for path, choice, j in steps:
        u = _rewritten(u, path, choice, j)
    x, y = _build(t), _build(u)
    for v in range(_window(x, y)):
        assert _at(x, n=v) == _at(y, n=v)
        assert _at(canonical_form(y), n=v) == _at(y, n=v)
    if isinstance(x, int) or table(x) is None:
        return
    if _decided(x):
        assert canonical_form(x) == canonical_form(y), (x, y)


# -- two symbols ----------------------------------------------------------------------------
def _in(t, name: str):
    """The tree ``t`` over the symbol ``name`` instead of ``n``."""
    if t[0] == "n":
        return (name,)
    if t[0] == "int":
        return t
    return (t[0], _in(t[1], name), _in(t[2], name) if isinstance(t[2], tuple) else t[2])


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(a=_tree(2), b=_tree(2), mixed=_tree(2), steps=st.lists(st.tuples(
    st.lists(st.integers(0, 1), max_size=2), st.integers(0, 7), st.integers(1, 4)),
    min_size=1, max_size=2))
def test_parts_of_one_symbol_each_get_their_form(a, b, mixed, steps) -> None:
    """``f(n) + g(m)``: each part in its one form (a rewrite of each part gives the same
    form); a part over both symbols keeps its value."""
    ra, rb = a, b
    for path, choice, k in steps:
        ra, rb = _rewritten(ra, path, choice, k), _rewritten(rb, path, choice, k)
    x = _build(a) + _build(_in(b, "m"))
    y = _build(_in(rb, "m")) + _build(ra)
    both = _build(("+", mixed, _in(_rewritten(mixed, [1], 0, 2), "m")))
    window = range(0, _window(_build(a), _build(b), _build(ra), _build(rb)))
    for v in window:
        for w in (0, 1, 5, v):
            assert _at(x, n=v, m=w) == _at(y, n=v, m=w)
            assert _at(canonical_form(x), n=v, m=w) == _at(x, n=v, m=w)
            assert _at(canonical_form(both), n=v, m=w) == _at(both, n=v, m=w)
    if all(isinstance(z, int) or (table(z) is not None and _decided(z))
           for z in (_build(a), _build(b))):
        assert canonical_form(x) == canonical_form(y), (x, y)


@pytest.mark.parametrize(("ways", "form"), [
    ((m + n - 2 * ((m + n) // 2), (m + n) % 2, (m + n + 2) % 2), "(m + n) % 2"),
    (((m + n) % 2 + 2 * ((m + n) // 2), (m + n + 1) // 2 + (m + n) // 2), "m + n"),
    ((-(-(m + n) // 3), m + n - (2 * m + 2 * n) // 3), "(m + n + 2)//3"),
    ((m + 2 * n - 4 * ((m + 2 * n) // 4) + (m + n) % 3, (m + 2 * n) % 4 + (m + n) % 3),
     "(m + 2*n) % 4 + (m + n) % 3"),
])
def test_floors_of_one_linear_form_get_one_form(ways, form) -> None:
    """Floors and remainders of one linear form ``u`` of several sizes are a part of
    ``u`` (Hermite's identity, a ceil), and remainders are read one way only."""
    for x in ways:
        for v, w in ((0, 0), (1, 0), (0, 1), (3, 5), (7, 2), (11, 13)):
            assert _at(x, n=v, m=w) == _at(ways[0], n=v, m=w)
        assert str(canonical_form(x)) == form, x


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(t=_tree(3, extremes=False), steps=st.lists(st.tuples(
    st.lists(st.integers(0, 1), max_size=3), st.sampled_from([0, 1, 4, 5, 6, 7]),
    st.integers(1, 4)), min_size=1, max_size=2),
    pq=st.one_of(st.just((1, 1)), st.tuples(st.integers(1, 3), st.integers(1, 3))))
def test_a_size_of_a_linear_form_gets_one_form(t, steps, pq) -> None:
    """A size of ``u = p*m + q*n`` and the same size rewritten: sound; one form where
    ``u`` is ``m + n`` (with other coefficients the Dim algebra takes floors of ``u``
    apart, ``(m + 2*n)//2`` is ``n + m//2``, and the parts left are not compared)."""
    u = t
    for path, choice, k in steps:
        u = _rewritten(u, path, choice, k)
    p, q = pq
    linear = p * m + q * n
    x, y = (substitute(_build(z), {"n": linear}) if not isinstance(_build(z), int)
            else _build(z) for z in (t, u))
    for v, w in ((0, 0), (1, 0), (0, 1), (2, 3), (5, 1), (9, 14), (40, 3)):
        assert _at(canonical_form(x), n=v, m=w) == _at(x, n=v, m=w) == _at(y, n=v, m=w)
    if p == q == 1 and (isinstance(_build(t), int) or table(_build(t)) is not None
                        and _decided(_build(t))):
        assert canonical_form(x) == canonical_form(y), (x, y)


# -- chains of windows ----------------------------------------------------------------------
def _window_size(x, k: int, s: int, pb: int, pe: int, ceil: bool):
    """ONNX's output size of a window (kernel ``k``, stride ``s``, pads ``pb``, ``pe``)."""
    if ceil:  # the last window must start inside the input or its left pad
        return dim_min((x + pb + pe + s - 1 - k) // s + 1, (x + pb - 1) // s + 1)
    return (x + pb + pe - k) // s + 1


def test_chains_of_floors_and_ceil_mode_pools_stay_short() -> None:
    """``min((h + 1)//2, h//2)`` and ``((h - 1)//2 - 1)//2`` nested 12 deep: one floor."""
    pool, floor = h, h
    for depth in range(1, 13):
        pool = EMPTY.simplify(dim_min((pool + 1) // 2, pool // 2))
        floor = EMPTY.simplify((floor - 1) // 2 - 1)
        assert pool == h // 2 ** depth
        assert len(str(floor)) <= 24, floor
    assert str(floor) == "(h + 3)//4096 - 3"
    for v in range(0, 20000, 37):
        y = v
        for _ in range(12):
            y = (y - 1) // 2 - 1
        assert _at(floor, h=v) == y


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(layers=st.lists(st.tuples(st.integers(1, 5), st.integers(1, 3), st.integers(0, 4),
                                 st.integers(0, 4), st.booleans()), min_size=1, max_size=12))
def test_a_stack_of_windows_has_a_form_linear_in_its_depth(layers) -> None:
    """Random stacks of strided, padded, ceil-mode windows (as conv and pool layers
    make): the form's text grows at most linearly with the depth, and it is sound."""
    x = h
    for depth, (k, s, pb, pe, ceil) in enumerate(layers, 1):
        x = EMPTY.simplify(_window_size(x, k, s, min(pb, k - 1), min(pe, k - 1), ceil))
        assert isinstance(x, int) or len(str(x)) <= 24 + 8 * depth, (depth, x)
    for v in (0, 1, 2, 7, 64, 225, 1000):
        y = v
        for k, s, pb, pe, ceil in layers:
            y = _window_size(y, k, s, min(pb, k - 1), min(pe, k - 1), ceil)
        assert _at(x, h=v) == y


# -- hostile sizes --------------------------------------------------------------------------
def test_hostile_sizes_stay_bounded_and_sound() -> None:
    """Periods and thresholds past the limits, huge coefficients, many arguments: left
    as built (sound, not canonical) or formed exactly, without long work."""
    long = n // 997 + n // 991  # period 988,027 > MAX_PERIOD
    assert table(long) is None and canonical_form(long) == long
    late = dim_max(n, 10**15)
    assert table(late) is None and canonical_form(late) == late
    huge = (2**70 + 1) * (n // 2) + 2**65 * (n % 5) - n // 3  # int64 would overflow
    assert canonical_form(huge) == EMPTY.simplify(huge)
    for v in (0, 1, 2, 3, 10**9):
        assert _at(canonical_form(huge), n=v) == \
            (2**70 + 1) * (v // 2) + 2**65 * (v % 5) - v // 3
    wide = dim_max(*(n // k + k for k in range(1, 40)))  # past the analysed arguments
    assert all(_at(canonical_form(wide), n=v) == _at(wide, n=v) for v in range(0, 200, 7))
    assert MAX_PERIOD <= 1024


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.sampled_from([n, h]), st.integers(2, 600), st.integers(-1200, 1200),
       st.integers(-5, 5).filter(bool), st.integers(-9, 9), st.booleans())
def test_one_floor_of_one_size_is_its_own_form(size, d, s, k, c, unknown_size) -> None:
    """``k*((n + s)//d) + c`` (a window's size) is taken as its form without the search
    (readback.one_floor): the search gives it back unchanged, over a named size and over
    an unknown."""
    x = size if not unknown_size else unknown(object())
    x = k * ((x + s) // d) + c
    assert _one_floor(x)
    searched = _canonical(x._terms)
    assert not isinstance(searched, int) and searched._terms == x._terms
    assert canonical_form(x) is x


@pytest.mark.parametrize("x", [n // 2 + n, (2 * n + 1) // 4 + m, (n + m) // 2, n % 3,
                               dim_max(n, 3) // 2, (n * n) // 2, ((n + 1) // 2) // 3 + n,
                               (n // 2) * (m // 2), 2 * n // 3 + 1])
def test_other_sizes_are_not_one_floor(x) -> None:
    """A floor beside its size, of two sizes, of a multiple, a remainder, a floor of a
    max or of a power, a product: the search decides their forms."""
    assert not _one_floor(x)

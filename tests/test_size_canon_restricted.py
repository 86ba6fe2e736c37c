"""One form for sizes equal only where the facts hold (kantensor.types.restricted): of
one size between two bounds (its values there decide it), on the multiples of a divisor
(its function on them decides it, whatever the size as simplified was); and what the
prover shows by eliminating exactly first, the form of a one-size part past a
threshold, remainders of one size beside floors of several. Each property is checked
sound at every satisfying point and fails on the tree before these rules (c93000e). The
number of examples is ``KANTENSOR_FACTS_EXAMPLES`` (60 by default, 150 with
``KANTENSOR_LONG=1``)."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

import sizegen
import sizing
from kantensor.types.canon import canonical_form
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.quasi import table
from kantensor.types.quasiform import one_symbol_form
from kantensor.types.restricted import on_points
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 60, 150)
m, n = Dim("m"), Dim("n")


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


def _pair(seed: int, symbols: tuple = ("n",)) -> tuple:
    """A random size and a rewriting of it (equal everywhere), or another random size."""
    rng = random.Random(seed)
    t = sizegen.tree(rng, symbols)
    u = sizegen.rewrite(rng, t, symbols) if rng.random() < 0.7 else sizegen.tree(rng, symbols)
    return sizegen.build(t), sizegen.build(u)


# -- between two bounds ---------------------------------------------------------------------
@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lo=st.integers(0, 4), span=st.integers(0, 12),
       k=st.integers(1, 3))
def test_sizes_of_one_size_between_two_bounds_get_one_form(seed, lo, span, k) -> None:
    """Under ``lo <= n <= lo + span`` (and ``n % k == 0``) a size of ``n`` is formed from
    its values at those sizes (the least extension of them): sound there, and two sizes
    equal there get one form (``max(4, n) % 2`` and ``max(0, n - 2*(n//3) - 2)`` under
    ``n <= 7``); on c93000e, e.g. ``n % 3`` is ``n - 3`` and ``((n + 1)//2 + n//2) % 3``
    is ``n//2 - 1`` under ``3 <= n <= 4``."""
    x, y = _pair(seed)
    atoms = [Condition(n, ">=", lo), Condition(n, "<=", lo + span)]
    if k > 1:
        atoms.append(Condition(n % k, "==", 0))
    facts = Facts(atoms)
    points = [v for v in range(lo, lo + span + 1) if v % k == 0]
    if not points:
        return
    fx, fy = facts.simplify(x), facts.simplify(y)
    for v in points:
        p = {"n": v}
        assert _at(fx, p) == _at(x, p), (x, fx, v)
        assert _at(fy, p) == _at(y, p), (y, fy, v)
    if any(_at(x, {"n": v}) != _at(y, {"n": v}) for v in points) or isinstance(x, int):
        return
    if on_points(x, "n", points) is not x:  # its values have a form: it is each one's
        assert fx == fy, (x, y, fx, fy)


def test_between_bounds_named() -> None:
    seven = Facts([Condition(n, "<=", 7)])
    assert seven.simplify(dim_max(4, n) % 2) == seven.simplify(dim_max(0, n - 2 * (n // 3) - 2))
    assert str(seven.simplify(dim_max(4, n) % 2)) == "max(4, n) % 2"
    few = Facts([Condition(n, ">=", 3), Condition(n, "<=", 4)])
    assert few.simplify(n % 3) == few.simplify(((n + 1) // 2 + n // 2) % 3) == n - 3
    one = Facts([Condition(n, ">=", 2), Condition(n, "<=", 2)])
    assert one.simplify(n // 3 + dim_min(5, 2 * n)) == 4  # one size: its value
    by_size = Facts([Condition(n, "<=", 5), Condition(2 % n, "==", 0)])  # 2 % 0: kept
    assert by_size.simplify(n // 2 + n % 2) == (n + 1) // 2
    wide = Facts([Condition(n, "<=", 64)])  # what the facts simplify stays readable
    assert [str(wide.simplify(x)) for x in (dim_min(64, n), dim_min(32, n), n % 64)] == \
        ["n", "min(32, n)", "n % 64"]


# -- on multiples ---------------------------------------------------------------------------
@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), a=st.integers(-2, 3))
def test_sizes_equal_on_multiples_get_one_form(seed, k, a) -> None:
    """Under ``n % k == 0`` a size ``x`` and ``x`` at ``k*(n//k)`` or ``n + a*(n % k)``
    (equal on the multiples only) are formed over ``t = n/k`` and read back from that
    form alone (the shortest of ``t`` as ``n//k`` and, over the rationals, as ``n/k`` in
    each rendering of its table): sound on the multiples, one form where the size over
    ``t`` has its table's form. On c93000e the shorter of that and the size as
    simplified was kept: ``m//2`` and ``m//3 + m//6`` under ``m % 3 == 0``."""
    x, _ = _pair(seed)
    if isinstance(x, int):
        return
    y = substitute(x, {"n": k * (n // k) if a == 0 else n + a * (n % k)})
    facts = Facts([Condition(n % k, "==", 0)])
    fx, fy = facts.simplify(x), facts.simplify(y)
    for v in range(0, 60, k):
        p = {"n": v}
        assert _at(fx, p) == _at(x, p) == _at(fy, p), (x, y, fx, fy, v)
    over = substitute(x, {"n": k * n})
    if isinstance(over, int) or (table(over) is not None and
                                 one_symbol_form(over, "n") is not None):
        assert fx == fy, (x, y, fx, fy)


def test_multiples_named() -> None:
    three = Facts([Condition(m % 3, "==", 0)])
    assert three.simplify(m // 2) == three.simplify((m + 3 * (m % 3)) // 6 + m // 3) == m // 2
    even = Facts([Condition(n, ">=", 2), Condition(n % 2, "==", 0)])
    hidden = dim_max(dim_min(6, n), n // 2) + dim_min(6, n // 2) - n // 2
    assert even.simplify(dim_min(6, n)) == even.simplify(hidden) == dim_min(6, n)
    two = Facts([Condition(n % 2, "==", 0)])
    assert str(two.simplify(2 * (n // 2) + n % 3)) == "n + n % 3"


def test_multiples_between_bounds_named() -> None:
    """Under ``n % 2 == 0`` and ``n <= 4`` a size whose form over the multiples has an
    exact quotient ``n/2`` is formed from its values at 0, 2, 4 as any other
    (benchmarks/canon_rate.py --seed 6 had these two in two forms: the quotient kept
    restricted.on_points from it)."""
    facts = Facts([Condition(n % 2, "==", 0), Condition(n, "<=", 4)])
    x = dim_min(6 - n - n % 2, dim_max(1, n))
    y = dim_max(0, x - n % 3) + dim_min(6 - n - n % 2, n % 3)
    fx, fy = facts.simplify(x), facts.simplify(y)
    for v in (0, 2, 4):
        assert _at(fx, {"n": v}) == _at(x, {"n": v}) == _at(y, {"n": v}) == _at(fy, {"n": v})
    assert fx == fy, (fx, fy)


# -- the prover, exact eliminations first ---------------------------------------------------
@settings(max_examples=N_EXAMPLES, deadline=None)
@given(d=st.integers(2, 7), c=st.integers(0, 3), e=st.integers(1, 3))
def test_a_remainder_is_at_most_its_argument(d, c, e) -> None:
    """``m % d <= m <= e*n + c`` proves ``e*n + c >= m % d`` (and so ``max(m % d, e*n +
    c)`` is ``e*n + c``): eliminating ``m % d``'s quotient first kept only a rational
    shadow (not proven on c93000e)."""
    facts = Facts([Condition(m, "<=", e * n + c)])
    assert facts.decide(Condition(e * n + c, ">=", m % d)) is True
    assert facts.simplify(dim_max(m % d, e * n + c)) == e * n + c
    for p in sizegen.points(("n", "m")):
        if p["m"] <= e * p["n"] + c:
            assert p["m"] % d <= e * p["n"] + c


# -- past a threshold; remainders beside floors of several ----------------------------------
@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), two=st.booleans(), c=st.integers(1, 9),
       a=st.integers(1, 4), b=st.integers(1, 3))
@example(seed=422, two=False, c=1, a=1, b=1)  # min((n//3) % 4, 2*(n % 2)): two on ee70401
def test_one_form_from_canonical_form_and_simplify(seed, two, c, a, b) -> None:
    """``canonical_form`` and ``Facts().simplify`` (which forms each atom's arguments
    first) give one form, of a random size of one or two sizes too (a min of one size
    with no table form is the lattice's form over its atoms in their forms:
    ``min((n//3) % 4, 2*(n % 2))`` is ``min(2*(n % 2) + 4*(n//12), n//3) -
    4*(n//12)`` both ways); the min or max of a part past a threshold repeats the steps
    before it that are the part's (``min(5, 2*n)``, not ``min(5, 2*n - n//3)``, whose
    ``n//3`` the lattice form of ``max(min(5, 2*n), n) - n`` then wrote over digits); a
    remainder's argument has the multiple of its divisor out before it is formed, also
    where a lone remainder is left (``(M + 2*min(m, M) + 2) % 2`` is ``M % 2``: formed
    first, the lattice merged the argument into one max)."""
    big = dim_max(c, n)  # beside a min of several, a multiple of the divisor comes out
    hidden = (big + dim_min(m + 1, big + 1) + b * dim_min(m, big) + a) % (b + 1)
    x, _ = _pair(seed, ("n", "m") if two else ("n",))
    for z in (x, dim_max(dim_min(c, a * n), b * n) - b * n,
              dim_min(dim_max(0, c - a * n), b * n), hidden):
        if not isinstance(z, int):
            assert canonical_form(z) == EMPTY.simplify(z), z
    assert EMPTY.simplify(hidden) == canonical_form((big + a + 1) % (b + 1))


def test_past_a_threshold_named() -> None:
    x = dim_max(dim_min(5, 2 * n), n) - n
    assert str(canonical_form(dim_min(5, 2 * n))) == "min(5, 2*n)"
    assert canonical_form(x) == EMPTY.simplify(x) == canonical_form(dim_min(dim_max(0, 5 - n), n))
    rewritten = n - (n % 3) % 2 - 2 * ((n % 3) // 2)  # test_size_canon_multi, seed 80998
    over = {"n": n + m % 3}
    assert canonical_form(substitute(n - n % 3, over)) == \
        canonical_form(substitute(rewritten, over)) == 3 * ((m + n) // 3) - 3 * (m // 3)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(c=st.integers(-3, 6), a=st.integers(0, 9), d=st.integers(2, 5), e=st.integers(1, 3),
       op=st.sampled_from(["//", "%"]))
def test_a_falling_min_in_a_floor_of_several_is_minus_a_max(c, a, d, e, op) -> None:
    """``min(c, a - e*m)`` is ``a - max(a - c, e*m)``: in a floor or remainder of several
    sizes either gets one form (the min as minus a max, whose multiple of the divisor
    the Dim algebra takes out as a size's: ``(n + min(2, 6 - m))//3 - 2`` and ``(n +
    2*max(4, m))//3 - max(4, m)``; two forms on c93000e)."""
    falling = n + dim_min(c, a - e * m)
    rising = n + a - dim_max(a - c, e * m)
    apply = (lambda x: x // d) if op == "//" else (lambda x: x % d)
    fx, fy = canonical_form(apply(falling)), canonical_form(apply(rising))
    for p in sizegen.points(("n", "m")):
        assert _at(fx, p) == _at(apply(falling), p) == _at(fy, p), (fx, fy, p)
    assert fx == fy == EMPTY.simplify(apply(falling)), (fx, fy)

"""Forms of sizes over several symbols (kantensor.types.lattice, .canon): sound at every
satisfying assignment of a grid (0 and 1 included) for random expressions over 1-3
sizes and random facts; one form for sums of min and max rewritten by identities of
min and max (the lattice fragment, where the forms are complete); ``Facts.decide``
never says True of sizes that differ somewhere the facts hold, and says it where their
forms agree; hostile sums of min and max stay cheap. The number of examples is
``KANTENSOR_FACTS_EXAMPLES`` (150 by default; the long run uses 5,000)."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sizegen
import sizing
from bounded import run_cases
from kantensor.types import factsform as facts_module
from kantensor.types.canon import canonical_form
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.lattice import lattice_form
from kantensor.types.quasi import table
from kantensor.types.quasiform import one_symbol_form
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
m, n, k = Dim("m"), Dim("n"), Dim("k")
FAR = ({"n": 10**12 + 7, "m": 3, "k": 10**9}, {"n": 1, "m": 2**40 + 1, "k": 0})


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


# -- named forms ----------------------------------------------------------------------------
@pytest.mark.parametrize(("ways", "form"), [
    ((dim_min(m, n) + dim_max(m, n), m + n, m + n + dim_min(m - n, 0) - dim_min(0, m - n)),
     "m + n"),
    ((dim_min(m, n + 1) - dim_min(m - 1, n), 1 + 0 * m), "1"),
    ((dim_max(m, n) - dim_max(0, n - m), dim_min(m, n - 6) + dim_max(0, m - n + 6)), "m"),
    ((m + n - dim_min(m, n), dim_max(m, n), dim_max(m, n, dim_min(m, n))), "max(m, n)"),
    ((dim_min(m + n + 1, 2 * n + 1), n + 1 + dim_min(m, n)), "n + min(m, n) + 1"),
    ((dim_min(4 * m, 4 * n), 4 * dim_min(m, n)), "4*min(m, n)"),
    ((dim_max(0, m // 3 - n) + dim_min(m // 3, n), m // 3), "m//3"),
    ((dim_min(m, dim_max(k, n)), dim_max(dim_min(k, m), dim_min(m, n))), "min(m, max(k, n))"),
    (((dim_min(m, n) + 1) // 2 + dim_min(m, n) // 2, dim_min(m, n)), "min(m, n)"),
    ((m + n - (m + n) // 2, (3 * m + 3 * n + 2) // 4 + (3 * m + 3 * n) // 4
      - 2 * ((m + n) // 2)), "(m + n + 1)//2"),
    ((2 * (dim_max(m, n) // 2) + dim_max(m, n) % 2, dim_max(m, n)), "max(m, n)"),
    # sums of parts of one size each, shown by the prover where the lattice takes n//3
    # (m % 3, n % 4) as free: max(t, u) - max(0, u - t) and max(0, t - u) + min(t, u)
    ((m // 4 + dim_max(dim_min(1, n), n // 3), dim_max(m // 4 + dim_max(dim_min(1, n), n // 3), n)
      - dim_max(0, n - m // 4 - dim_max(dim_min(1, n), n // 3))),
     "m//4 + max((n + 2)//3 - n//3, n//3)"),
    ((dim_max(m % 3, m % 4) + 4, dim_max(k, m % 3, m % 4) + 4
      - dim_max(0, k - dim_max(m % 3, m % 4))),
     "m - 2*((m + 3)//12) - (m + 8)//12 - m//12 - 2*(m//4) - m//6 + 4"),
    (((3 * dim_max(2, n)) % 4, dim_max(0, (3 * dim_max(2, n)) % 4 - dim_max(m, n))
      + dim_min((3 * dim_max(2, n)) % 4, dim_max(m, n))), "3 - (max(2, n) + 3) % 4"),
])
def test_equal_sizes_over_several_symbols_get_one_form(ways, form) -> None:
    grid = sizegen.points(("n", "m", "k"))
    for x in ways:
        for p in grid:
            assert _at(x, p) == _at(ways[0], p)
        assert str(canonical_form(x)) == form, x
        assert str(EMPTY.simplify(x)) == form, x


def test_the_form_is_the_sum_when_no_piece_splits() -> None:
    """A size with no min or max of several sizes is not the lattice's: unchanged."""
    for x in (m + n, dim_min(64, n) + m, (m + n) // 2, 3):
        assert lattice_form(x) is x


# -- random sizes over 1-3 symbols --------------------------------------------------------
@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 3))
def test_forms_are_sound_at_every_satisfying_size(seed, count) -> None:
    """The form, and the form under random facts, equal the size at every grid point
    (where the facts hold), 0 and 1 included, and far; each is its own form."""
    rng = random.Random(seed)
    symbols = sizegen.SYMBOLS[:count]
    t = sizegen.tree(rng, symbols, 4)
    if rng.random() < 0.5:
        t = sizegen.rewrite(rng, t, symbols)
    facts, stated = sizegen.facts(rng, symbols)
    x = sizegen.build(t)
    form, under = canonical_form(x), facts.simplify(x)
    assert canonical_form(form) == form and facts.simplify(under) == under, (x, facts)
    for p in sizegen.points(symbols):
        assert _at(form, p) == sizegen.value(t, p), (x, form, p)
        if sizegen.holds(stated, p):
            assert _at(under, p) == sizegen.value(t, p), (x, under, facts, p)
    for p in FAR:
        assert _at(form, p) == sizegen.value(t, p), (x, form, p)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(2, 3))
def test_sums_of_min_and_max_rewritten_get_one_form(seed, count) -> None:
    """On the lattice part (sums, int multiples, min, max of several sizes), sizes
    rewritten by identities of min and max get one form wherever the forms are decided
    (within the budgets) and the sizes as built are equal over the rationals; both
    forms are sound."""
    rng = random.Random(seed)
    symbols = sizegen.SYMBOLS[:count]
    t = sizegen.lattice_tree(rng, symbols)
    u = t
    for _ in range(rng.randint(1, 2)):
        u = sizegen.lattice_rewrite(rng, u, symbols)
    x, y = sizegen.build(t), sizegen.build(u)
    for p in sizegen.points(symbols):
        assert sizegen.value(t, p) == sizegen.value(u, p)
    fx, fy = canonical_form(x), canonical_form(y)
    for p in sizegen.points(symbols):
        assert _at(fx, p) == _at(fy, p) == sizegen.value(t, p), (x, y, fx, fy, p)
    if sizegen.decided(x) and sizegen.decided(y) and sizegen.equal_over_rationals(x, y):
        assert fx == fy, (x, y, fx, fy)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 3))
def test_decide_is_never_wrong_and_agrees_with_the_forms(seed, count) -> None:
    """``Facts.decide(a == b)``: never True where ``a`` and ``b`` differ at a grid point
    where the facts hold, never False where they agree at all of them (and some hold);
    True wherever their forms under the facts are one."""
    rng = random.Random(seed)
    symbols = sizegen.SYMBOLS[:count]
    a = sizegen.tree(rng, symbols)
    b = sizegen.rewrite(rng, a, symbols) if rng.random() < 0.7 else sizegen.tree(rng, symbols)
    facts, stated = sizegen.facts(rng, symbols)
    grid = [p for p in sizegen.points(symbols) if sizegen.holds(stated, p)]
    x, y = sizegen.build(a), sizegen.build(b)
    decided = facts.decide(Condition(x, "==", y))
    equal = all(sizegen.value(a, p) == sizegen.value(b, p) for p in grid)
    if not equal:
        assert decided is not True, (x, y, facts)
    elif grid:
        assert decided is not False, (x, y, facts)
    if facts.simplify(x) == facts.simplify(y):
        assert decided is True, (x, y, facts)


@pytest.mark.parametrize(("ways", "form"), [
    ((3 * ((n + m % 2 + 1) // 2) + 3 * ((n + m % 2) // 2) - 6 * n, 3 * (m % 2) - 3 * n),
     "3*(m % 2) - 3*n"),
    (((n + (m + 3) % 4 + 1) // 2 + (n + (m + 3) % 4) // 2, n + (m + 3) % 4), "n + (m + 3) % 4"),
    (((m % 3 + dim_min(m, n) + 1) // 2 + (m % 3 + dim_min(m, n)) // 2 - 2 * (m % 3),
      dim_min(m, n) - m % 3), "min(m, n) - m % 3"),
    ((n + dim_min(5, k) - (n + dim_min(5, k)) // 2, -(-(n + dim_min(5, k)) // 2)),
     "(n + min(5, k) + 1)//2"),
    (((m + dim_min(8, 4 * n)) % 4, m % 4), "m % 4"),  # its atoms formed first: 4*min(2, n)
    ((dim_min(3 * k + 3 * n, k + n + 24) % 2, (k + n) % 2), "(k + n) % 2"),  # a min of u's
    ((dim_max(k + n, 3), dim_max(0, k + n - 3) + 3), "max(3, k + n)"),  # the constant in
    (((3 * n + dim_max(4, 4 * m)) // 4 + dim_min(-1, -m) - n, -((n + 3) // 4)), "-((n + 3)//4)"),
    # a floor of one size the Dim algebra does not merge (coefficient 2) is a variable of u
    ((m // 2 - n // 3, (m + 2 * (n // 3) + 2) // 4 + (m + 2 * (n // 3)) // 4 - 2 * (n // 3)),
     "m//2 - n//3"),
    # a floor by 2 over n + m % 2 beside one by 4 stays over it, or is folded back into
    # it from over m + n: Hermite's identity over u = n + m % 2 meets both (canonunfold)
    (((n + m % 2 + 1) // 4 + (n + m % 2) // 2, 3 * (n + m % 2) // 4),
     "n - (n + m % 2 + 3)//4 + m % 2"),
    (((m + n) // 2 + (n + m % 2 + 1) // 4, (n + m % 2) // 2 + m // 2 + (n + m % 2 + 1) // 4,
      n + m % 2 - (n + m % 2 + 3) // 4 + m // 2), "n + (m + 1)//2 - (n + m % 2 + 3)//4"),
    (((m + n + 1) // 2 + (n + m % 2) // 4, (n + m % 2 + 1) // 2 + m // 2 + (n + m % 2) // 4),
     "n + (m + 1)//2 - (n + m % 2 + 2)//4"),
])
def test_floors_of_a_linear_form_over_atoms_get_one_form(ways, form) -> None:
    """A linear form over sizes and atoms of one size ``>= 0`` (``n + m % 2``, ``m % 3 +
    min(m, n)``, ``m + 2*(n//3)``) is a ``u`` like a sum of sizes: Hermite's identity,
    ceils, one form."""
    for x in ways:
        for p in sizegen.points(("n", "m", "k"))[::5]:
            assert _at(x, p) == _at(ways[0], p)
        assert str(canonical_form(x)) == form, x


ATOMS = (m % 2, m % 3, dim_min(5, m), dim_max(2, m) % 3, dim_min(m, k), dim_max(m, k))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, len(ATOMS) - 1),
       twice=st.booleans())
@example(seed=80998, which=1, twice=False)  # n + m % 3 - (m + n) % 3: two forms on c93000e
@example(seed=2569, which=0, twice=False)  # (3*u)//4 for u = n + m % 2: two forms on f40837b
def test_sizes_of_a_linear_form_over_atoms_rewritten_get_one_form(seed, which, twice) -> None:
    """A random size of ``n`` with ``n`` read as ``n + a`` (``a`` an atom ``>= 0``: a
    remainder or a clamp of ``m``, a min or max of several) and the same size rewritten:
    sound at the grid, one form where the size of ``n`` has its table's form and no min
    or max (``max(3, u) + min(3, u)`` is a form over those two atoms, not over ``u``)."""
    rng = random.Random(seed)
    t = sizegen.tree(rng, ("n",))
    u = sizegen.rewrite(rng, t, ("n",))
    if twice:
        u = sizegen.rewrite(rng, u, ("n",))
    over = {"n": n + ATOMS[which]}
    x, y = (sizegen.build(z) for z in (t, u))
    if isinstance(x, int):
        return
    fx, fy = (canonical_form(substitute(z, over)) if not isinstance(z, int) else z
              for z in (x, y))
    for p in sizegen.points(("n", "m", "k"))[::3]:
        assert _at(fx, p) == _at(substitute(x, over), p) == _at(fy, p), (x, y, fx, fy, p)
    if table(x) is not None and one_symbol_form(x, "n") is not None and \
            not any(op in str((t, u)) for op in ("min", "max")):
        assert fx == fy, (x, y, fx, fy)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 3))
def test_forming_the_arguments_first_wins_only_where_an_atom_is_inside_another(seed, count
                                                                                ) -> None:
    """``Facts.simplify`` forms a size as a whole, and its atoms' arguments first only
    where an atom is inside another's arguments (factsform._flat): elsewhere that order
    gives no shorter form than the whole-first one, on random sizes over random facts."""
    rng = random.Random(seed)
    symbols = sizegen.SYMBOLS[:count]
    facts = sizegen.facts(rng, symbols)[0] if rng.random() < 0.5 else EMPTY
    t = sizegen.tree(rng, symbols)
    x = sizegen.build(sizegen.rewrite(rng, t, symbols) if rng.random() < 0.7 else t)
    if isinstance(x, int) or not facts_module._flat(x):
        return
    whole = canonical_form(x)
    if isinstance(whole, int):
        return
    key = [(0, z) if isinstance(z, int) else (1, len(str(z)), str(z))
           for z in (facts_module._under(whole, facts), facts_module._under(x, facts))]
    assert key[0] <= key[1], (x, facts)


def test_facts_simplify_again_what_a_form_shows() -> None:
    """A form can show what the facts simplify (``min(k, m, n)`` beside ``k <= m``, made
    by Hermite's identity), and a divisor of a size is the lcm of the facts' (``6*(n//6)``
    is ``n`` where 2 and 3 divide it)."""
    below = Facts([Condition(k, "<=", m)])
    hermite = (dim_min(m, n) + 1) // 2 + dim_min(m, n) // 2
    assert str(below.simplify(dim_min(hermite, k) % 4)) == "min(k, n) % 4"
    under = Facts([Condition(n, "<=", m)])
    assert under.simplify(dim_max(0, n - dim_min(k, m)) + dim_min(k, m, n)) == n
    six = Facts([Condition(n % 2, "==", 0), Condition(n % 3, "==", 0)])
    assert six.simplify((n + 1) // 2 + n // 2) == six.simplify(6 * (n // 6)) == n
    one = Facts([Condition(k, ">=", 1)])  # past a lower bound: formed over k - 1
    assert one.simplify(dim_min(2, k // 2 + 1)) == one.simplify(dim_min(2, k))
    assert str(one.simplify(dim_min(2, k))) == "min(2, k)"


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lo=st.integers(1, 5), way=st.integers(0, 2))
def test_sizes_equal_past_a_lower_bound_get_one_form(seed, lo, way) -> None:
    """Under ``n >= lo``, a size of ``n`` and the same size at ``max(lo, n)``, ``2*max(lo,
    n) - n`` or ``min(lo, n) + n - lo`` (each ``n`` past ``lo``) are equal: sound at
    every grid point past ``lo``, one form where the size's form past ``lo`` is its
    table's."""
    rng = random.Random(seed)
    t = sizegen.tree(rng, ("n",))
    x = sizegen.build(t)
    if isinstance(x, int):
        return
    other = [dim_max(lo, n), 2 * dim_max(lo, n) - n, dim_min(lo, n) + n - lo][way]
    y = substitute(x, {"n": other})
    facts = Facts([Condition(n, ">=", lo)])
    fx, fy = facts.simplify(x), facts.simplify(y)
    for p in sizegen.points(("n",)):
        if p["n"] >= lo:
            assert _at(fx, p) == _at(x, p) == _at(y, p) == _at(fy, p), (x, y, fx, fy, p)
    shifted = substitute(x, {"n": n + lo})
    if isinstance(shifted, int) or (table(shifted) is not None and
                                    one_symbol_form(shifted, "n") is not None):
        assert fx == fy, (x, y, fx, fy)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), c=st.integers(-2, 2), way=st.integers(0, 1))
def test_sizes_equal_by_facts_that_order_two_sizes_both_ways_get_one_form(seed, c, way
                                                                          ) -> None:
    """Facts that order ``m`` and ``n + c`` both ways (``m <= n + c`` and ``n + c <= m``;
    or ``m <= k <= n + c <= m``) make them one size: a size of ``n`` and ``m`` and the
    same size with ``n`` written ``m - c`` are sound at every grid point where the facts
    hold and get one form (the first size by name stands for its class). A size one
    fact equates with another keeps its name (``x @ x``'s ``D == N``)."""
    rng = random.Random(seed)
    x = sizegen.build(sizegen.tree(rng, ("n", "m")))
    if isinstance(x, int):
        return
    facts = Facts([[Condition(m, "<=", n + c), Condition(n + c, "<=", m)],
                   [Condition(m, "<=", k), Condition(k, "<=", n + c),
                    Condition(n + c, "<=", m)]][way])
    y = substitute(x, {"n": m - c})
    fx, fy = facts.simplify(x), facts.simplify(y)
    for p in sizegen.points(("n", "m", "k")):
        if p["m"] == p["n"] + c and (way == 0 or p["k"] == p["m"]):
            assert _at(fx, p) == _at(x, p) == _at(y, p) == _at(fy, p), (x, y, fx, fy, p)
    assert fx == fy, (x, y, fx, fy)
    assert Facts([Condition(m, "==", n + c)]).simplify(m + 2 * n) == m + 2 * n


# -- hostile ---------------------------------------------------------------------------------
def test_hostile_sums_of_min_and_max_stay_cheap_and_sound() -> None:
    """Many arguments, deep alternations, long sums, huge coefficients: formed or left
    as built within the budgets (selections, pieces, eliminations), each in a forked child
    within :data:`bounded.DEADLINE` (``KANTENSOR_FUZZ_DEADLINE``) rather than a timed
    assertion."""
    deep = m
    for i in range(12):
        deep = dim_min(dim_max(deep + 1, n - i), k + i) if i % 2 else \
            dim_max(dim_min(2 * deep, m + i), n)
    alternating = m
    for i in range(6):
        alternating = dim_max(dim_min(alternating, n + i), k - i) + dim_min(m, n)
    cases = [
        dim_max(*(i * m - j * n + k for i in range(1, 5) for j in range(1, 5))),
        dim_max(*(m + i * n - i * i for i in range(40))),  # 40 pieces
        sum(dim_min(m + i, n - i, k + 2 * i) for i in range(8)),
        dim_min(2**80 * m + 3, 2**70 * n) + dim_max(2**90 * k, m),
        deep, alternating,
        sum(dim_max(m // (i + 2), n % (i + 2), k) for i in range(6)),
    ]
    def formed(x: Dim) -> str:
        form = canonical_form(x)
        wrong = [p for p in [*sizegen.points(("n", "m", "k"))[::7], *FAR]
                 if _at(form, p) != _at(x, p)]
        return "ok" if not wrong else f"{form} differs from {x} at {wrong[0]}"

    records, _ = run_cases(cases, formed)
    assert [r["outcome"] for r in records] == ["ok"] * len(cases), records


def test_an_elimination_past_its_limit_leaves_the_size_as_written() -> None:
    """A cell or a bound the elimination cannot settle within its limit is not taken
    either way: this size's ``max(1, m)`` cell (``m < 1``) was once taken as empty and
    its piece 4 lost (5 at ``m = 0``, ``k = n = 3`` where the size is 4)."""
    inner = dim_min(2 * dim_min(k, n), 5 - dim_max(1, m))
    y = dim_max(dim_max(m, inner) - dim_max(0, m - inner), dim_min(m, n)) + \
        dim_min(m, dim_max(m, inner) - dim_max(0, m - inner), n) - dim_min(m, n)
    form = canonical_form(y)
    assert str(form) == "min(5, 2*k + m, m + 2*n, m + 4) - m"
    for p in sizegen.points(("n", "m", "k")):
        assert _at(form, p) == _at(y, p) == _at(inner, p)


def test_facts_decide_by_forms_within_facts() -> None:
    """Under ``m <= n``, ``min(m, n) + max(m, n) - 2*n`` is ``m - n``: forms decide
    ``== m - n``; the negated condition is False, and an unequal one is not True."""
    facts = Facts([Condition(m, "<=", n)])
    x = dim_min(m, n) + dim_max(m, n) - 2 * n
    assert facts.decide(Condition(x, "==", m - n)) is True
    assert facts.decide(Condition(x, "!=", m - n)) is False
    assert facts.decide(Condition(x, "==", m - n + dim_min(1, m))) is not True


def test_a_divisor_the_facts_make_zero_leaves_the_atom() -> None:
    """Under ``k == 0`` the floor ``m//k`` stays as it is (it raised ZeroDivisionError:
    the facts' constant made ``m//0``); the test of tidy found it."""
    zero = Facts([Condition(k, "==", 0)])
    assert zero.simplify(m // k + n) == m // k + n
    assert zero.simplify(m % k) == m % k

"""A window's size read in closed form (:func:`kantensor.types.poly.window_form`): the
interval of sizes a fact ``out + c op 0`` allows, and the least value of a rising
question over the box, as a ceil-mode pool's kept ``out >= 1`` and the next pool's
question state them. Judged by Python's evaluation of the pool's output size (PyTorch's
formula, ``ceil((h + pads - dil*(k-1) - 1)/s) + 1`` less one where the last window would
start past the input and its left pad) at every size of a range, invalid pools (no
position) included, and by the search and the prover the closed form stands in for."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.onnx.nn.conv import _window
from kantensor.types import factsform, monotone, poly
from kantensor.types.canon import canonical_form, formed_as_is
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY
from kantensor.types.prove import proves
from kantensor.types.stated import settled

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
h = Dim("h")
SIZES = range(0, 200)  # (every interval's end below 64 for the windows taken here)


def _out(v: int, k: int, s: int, d: int, pb: int, pe: int, ceil: int) -> int:
    """A pool's output size over ``v`` in Python (the formula, not the Dim algebra)."""
    span = v + pb + pe - d * (k - 1) - 1
    if not ceil:
        return span // s + 1
    out = -(-span // s) + 1
    return out - 1 if (out - 1) * s >= v + pb else out


def _windows() -> list[tuple]:
    """Every pool of kernel 1 to 4, stride 1 to 3, dilation 1 or 2, pads smaller than the
    kernel (as onnxruntime requires of a pool), floor or ceil mode."""
    return [(k, s, d, pb, pe, c) for k, s, d, c in itertools.product(
                range(1, 5), range(1, 4), (1, 2), (0, 1))
            for pb in range(k) for pe in range(k)]


def _stacked(params: list[tuple]) -> tuple:
    """The Dim of a stack of pools over ``h`` and its value at a size, in Python."""
    x = h
    for k, s, d, pb, pe, c in params:
        x = _window(x, k, s, d, pb, pe, "NOTSET", c)

    def at(v: int) -> int:
        for k, s, d, pb, pe, c in params:
            v = _out(v, k, s, d, pb, pe, c)
        return v
    return x, at


def _allowed(box: dict | None, v: int) -> bool:
    lo, hi = box.get("h", (0, None))
    return lo <= v and (hi is None or v <= hi)


def _general(monkeypatch) -> None:
    """The path before the closed form: symbols and trend walked, the least searched."""
    monkeypatch.setattr(monotone, "window_form", lambda _: None)
    monotone._fact_parts.cache_clear()
    monotone._half_of.cache_clear()
    monotone.box_of.cache_clear()


def test_a_pool_s_fact_allows_the_sizes_python_s_formula_says(monkeypatch) -> None:
    """``out + c op 0`` for every pool of :func:`_windows` (and two stacked): the box
    of that one fact is the sizes ``v`` of ``0..199`` where Python's output size meets
    it (where ``out`` is 0 or negative too: an invalid pool), and the same box the
    general path (walks and search) finds."""
    pools = _windows()
    facts = []
    for i, p in enumerate(pools):
        stacks = [[p], [p, pools[(7 * i + 3) % len(pools)]]]
        for params in stacks:
            x, at = _stacked(params)
            for c, op in itertools.product((-3, -1, 0, 2), (">=", ">")):
                facts.append(((x + c, op, 0), at, c, op))
    assert sum(poly.window_form(f[0][0]._terms) is not None for f in facts
               if not isinstance(f[0][0], int)) > len(facts) // 2  # (the path is taken)
    found = []
    for fact, at, c, op in facts:
        box = monotone.box_of((fact,))
        assert box is not None
        found.append(box)
        for v in SIZES:
            value = at(v) + c
            holds = value >= 0 if op == ">=" else value > 0
            assert (box is not monotone.NO_SIZES and _allowed(box, v)) == holds, \
                (fact, v, box)
    _general(monkeypatch)
    assert [monotone.box_of((fact,)) for fact, *_ in facts] == found


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(params=st.lists(st.sampled_from(_windows()), min_size=1, max_size=4),
       extra=st.integers(-2, 3))
def test_the_next_pool_s_question_under_a_stack_s_facts(params, extra) -> None:
    """A stack of pools keeps each pool's ``out >= 1``; the next pool's ``out + extra
    >= 0`` is decided as Python's sizes say: True where it holds at every size of
    ``0..1499`` the kept facts allow (the least they allow is below 700 here), never
    False (it holds for large sizes), and True exactly where the prover proves it."""
    store = EMPTY
    for n in range(1, len(params)):
        x, _ = _stacked(params[:n])
        if not isinstance(x, int):
            store = store.with_(Condition(x, ">=", 1))
    x, _ = _stacked(params)
    goal = x + extra
    if isinstance(goal, int):
        return
    python = [_stacked(params[:n])[1] for n in range(1, len(params) + 1)]
    allowed = [v for v in range(1500) if all(f(v) >= 1 for f in python[:-1])]
    holds = all(python[-1](v) + extra >= 0 for v in allowed)
    decided = store.decide((goal, ">=", 0))
    assert decided is not False
    assert (decided is True) == holds, (params, extra, decided)
    assert bool(proves(store.triples, (goal, ">=", 0))) == holds


def test_a_window_form_read_off_is_the_size_and_its_own_form() -> None:
    """``window_form`` reads ``k*((h + t)//d) + c`` back as Python computes it at every
    size of ``0..64``, and where ``k > 0`` the size is what ``Facts.simplify`` leaves as
    it is under rising facts (``factsform._as_is``, read off the form): settled, and
    the canonical form of itself."""
    rnd = random.Random(25)
    read = 0
    for _ in range(600):
        k, d = rnd.choice([-3, -1, 1, 2, 3, 7]), rnd.randint(1, 12)
        t, c = rnd.randint(-20, 20), rnd.randint(-40, 40)
        x = k * ((h + t) // d) + c
        form = None if isinstance(x, int) else poly.window_form(x._terms)
        if form is None:
            continue
        read += 1
        s, fk, fd, ft, fc = form
        assert s == "h"
        assert all(fk * ((v + ft) // fd) + fc == k * ((v + t) // d) + c for v in range(65))
        if fk > 0:
            assert settled(x) and formed_as_is(x) and canonical_form(x) == x, x
        factsform._AS_IS.clear()
        assert factsform._as_is(x) == (settled(x) and formed_as_is(x)), x
    assert read > 500

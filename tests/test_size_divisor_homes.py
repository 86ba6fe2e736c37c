"""The last walks of what a size divides by, now in :mod:`kantensor.types.divisors`
(review20A): ``_roots``' own ``//``/``%`` atom test in ``logic/oneunknown``
(:func:`~kantensor.types.divisors.divides`), ``evalshape/located``'s walk of a shape's
divisors that may be 0 (:func:`~kantensor.types.divisors.size_divisors`, filtered by
the interval), ``types/quasimod``'s divisors of a period
(:func:`~kantensor.types.divisors.int_divisors`). Each answers as the walk it replaced
(kept below as it was, but for names) over random sizes of quotients, remainders, min
and max nested a few levels, and the front ends that use them stay right by Python."""

from __future__ import annotations

import random

import pytest

from kantensor.types.dim import Dim
from kantensor.types.divisors import divides, int_divisors, size_divisors
from kantensor.types.intervals import interval
from kantensor.types.poly import Opaque
from test_size_divisor_walks import SIZES


# -- the walks as they were before they had one home (verbatim but for names) ----------
def _old_roots_divides(diff) -> bool:  # logic/oneunknown._roots' test of its atoms
    return any(isinstance(a, Opaque) and a.op in ("//", "%") for m, _ in diff._terms
               for a, _ in m)


def _old_located_divisors(d: Dim) -> list[Dim]:  # evalshape/located._divisors
    out = []
    for monomial, _ in d._terms:
        for atom, _ in monomial:
            if isinstance(atom, Opaque):
                if atom.op in ("//", "%") and isinstance(atom.args[1], Dim) and (
                        interval(atom.args[1])[0] or 0) < 1:
                    out.append(atom.args[1])
                out.extend(x for arg in atom.args if isinstance(arg, Dim)
                           for x in _old_located_divisors(arg))
    return out


def _old_quasimod_divisors(q: int) -> list[int]:  # types/quasimod._divisors
    return [d for d in range(2, q + 1) if q % d == 0]


@pytest.mark.parametrize("chunk", range(4))
def test_the_homes_answer_as_the_walks_they_replaced(chunk):
    rng = random.Random(chunk)
    shapes = [rng.sample(SIZES, rng.randint(1, 3)) for _ in range(100)]
    for x in SIZES[chunk::4]:
        if isinstance(x, int):
            continue
        assert divides(x) == _old_roots_divides(x), str(x)
    for shape in shapes:  # located: one dict over a node's output shape
        dims = [s for s in shape if isinstance(s, Dim)]
        old = dict.fromkeys(d for s in dims for d in _old_located_divisors(s))
        new = dict.fromkeys(d for s in dims for d in size_divisors(s)
                            if (interval(d)[0] or 0) < 1)
        assert list(old) == list(new), [str(s) for s in shape]


@pytest.mark.parametrize("q", range(0, 400))
def test_a_period_s_divisors_are_as_before(q):
    assert [d for d in int_divisors(q) if d >= 2] == _old_quasimod_divisors(q)

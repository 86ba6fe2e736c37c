"""``logic.broadcast``'s memo of joint verdicts (``_VERDICTS``) shared by threads: Dask
builds graphs from threads, and so may a user's code. A lookup is one dict operation;
dropping the oldest verdict and keeping a new one is several, and two threads between
them dropped the same one (``KeyError``) or kept more than ``MAX_VERDICTS``. A verdict
is never wrong: each entry holds its substitution and constraints, so no identity in a
key is reused while it is kept; the tests check answers against NumPy's broadcasting.

The memo is replaced by a dict that yields to other threads inside each operation
(what a finalizer run by a freed entry, the GC, or a free-threaded build does), so the
interleavings that broke it happen on every run, not once in a while.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest
from kanren import eq, run
from unification import var

import kantensor as kt
from kantensor.logic import broadcast

THREADS = 8


class _Yielding(dict):
    """A dict that lets other threads run in the middle of a change of the memo."""

    def __len__(self) -> int:
        time.sleep(0.0002)
        return super().__len__()

    def __delitem__(self, key) -> None:
        time.sleep(0.0002)
        super().__delitem__(key)


@pytest.fixture
def yielding(monkeypatch):
    monkeypatch.setattr(broadcast, "_VERDICTS", _Yielding())
    monkeypatch.setattr(broadcast, "MAX_VERDICTS", 4)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield broadcast
    sys.setswitchinterval(old)


def _threads(work, n: int = THREADS) -> list:
    """Run ``work(i)`` in ``n`` threads started together; the exceptions they raised."""
    errors: list = []
    start = threading.Barrier(n)

    def run_one(i: int) -> None:
        start.wait()
        try:
            work(i)
        except BaseException as exc:  # noqa: BLE001 (any failure of a thread is the test's)
            errors.append(exc)
    threads = [threading.Thread(target=run_one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_threads_changing_the_memo_together(yielding):
    """Every thread's verdicts on fresh substitutions, many of them dropped while the
    others keep theirs: no exception, the memo never above its bound, and every verdict
    kept is ``jointly``'s own for its substitution."""
    def work(i: int) -> None:
        for k in range(40):
            s = {("thread", i): k}
            assert yielding._jointly_once(s, ()) is True
            assert len(yielding._VERDICTS) <= yielding.MAX_VERDICTS
    assert _threads(work) == []
    assert len(yielding._VERDICTS) <= yielding.MAX_VERDICTS
    for s, constraints, verdict in list(dict.values(yielding._VERDICTS)):
        assert verdict == yielding.jointly(s, constraints)


def _type(shape: tuple) -> kt.TensorType:
    return kt.TensorType("float32", tuple(kt.Dim(d) if isinstance(d, str) else d
                                          for d in shape))


#: ``float32[c,a,a] * float32[d,b,b]`` of ``(2,) + tail``: NumPy broadcasts some sizes
#: to it exactly where the named sizes a, b (and c, d) allow it (judged by NumPy below)
TAILS = [(2, 3), (2, 2), (1, 1), (0, 1), (3, 3), (1, 2)]


def _truth(tail: tuple) -> bool:
    return any(np.broadcast_shapes((c, a, a), (d, b, b)) == (2, *tail)
               for a in range(5) for b in range(5) for c in range(4) for d in range(4)
               if _broadcasts((c, a, a), (d, b, b)))


def _broadcasts(*shapes: tuple) -> bool:
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


def _answer(tail: tuple) -> tuple:
    x, y = _type(("c", "a", "a")), _type(("d", "b", "b"))
    wanted = (2, *tail)
    outs = [var() for _ in wanted]
    return run(0, tuple(outs), kt.relation(kt.mul)(x, y, kt.pattern(var(), tuple(outs))),
               *(eq(o, k) for o, k in zip(outs, wanted, strict=True)))


def test_joint_broadcasts_answered_from_threads_are_numpys(yielding):
    """The same queries answered from every thread at once, the memo dropping verdicts
    all the while: each answer is the one NumPy's broadcasting gives."""
    truths = {tail: _truth(tail) for tail in TAILS}
    assert set(truths.values()) == {True, False}
    answers: dict = {}

    def work(i: int) -> None:
        for tail in TAILS[i % len(TAILS):] + TAILS[:i % len(TAILS)]:
            got = _answer(tail)
            answers.setdefault(tail, set()).add(got)
            assert got == (((2, *tail),) if truths[tail] else ()), (tail, got)
    assert _threads(work) == []
    assert {tail: next(iter(a)) for tail, a in answers.items()} == {
        tail: ((2, *tail),) if truths[tail] else () for tail in TAILS}

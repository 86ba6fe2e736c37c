"""The fuzz harness: run one text through an entry point, bounded in time.

:func:`run_case` calls an entry point on one input under a per-case deadline (a
``SIGALRM`` timer, so a hang fails the case instead of the run) and checks the
outcome: it returns, or raises one of the documented errors (``ValueError`` and
its subclasses ``SignatureSyntaxError``, ``CatalogueError``, ``ParamError``;
``TypeError`` and its subclass ``TypeInferenceError``; ``SystemExit`` for the
command line's usage errors). Anything else (``RecursionError``,
``MemoryError``, ``IndexError``, ``KeyError``, ...) is a failure, and so is a
case that outlives the deadline. Cases and the slowest one are counted per
entry point in :data:`STATS`; ``conftest.py`` prints them at the end of the run.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

#: Per entry point: [cases, slowest seconds, slowest input].
STATS: dict[str, list] = {}

#: Seconds one case may take before it counts as a hang (a generous bound: hostile
#: inputs must be refused in well under a second; this only catches the unbounded).
DEADLINE = float(os.environ.get("KANTENSOR_FUZZ_DEADLINE", "20"))

#: Documented errors of the text entry points.
DOCUMENTED = (ValueError, TypeError, SystemExit)


class Hang(BaseException):
    """A case outlived :data:`DEADLINE` (a BaseException, so no ``except Exception``
    in the code under test can swallow it)."""


def _expire(signum: int, frame: Any) -> None:
    raise Hang


def run_case(entry: str, fn: Callable[[Any], Any], arg: Any) -> str:
    """``fn(arg)`` bounded by :data:`DEADLINE`; returns "ok" or the documented error's
    name, raises AssertionError (naming the input) otherwise."""
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, DEADLINE)
    start = time.perf_counter()
    outcome = "ok"
    try:
        fn(arg)
    except DOCUMENTED as exc:
        outcome = type(exc).__name__
    except Hang:
        raise AssertionError(f"{entry}: no answer within {DEADLINE:g} s for "
                             f"{_show(arg)}") from None
    except BaseException as exc:  # the failure this harness exists to find
        raise AssertionError(f"{entry}: undocumented {type(exc).__name__} "
                             f"({str(exc)[:200]}) for {_show(arg)}") from exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - start
    stats = STATS.setdefault(entry, [0, 0.0, ""])
    stats[0] += 1
    if elapsed > stats[1]:
        stats[1], stats[2] = elapsed, _show(arg)
    return outcome


def _show(arg: Any) -> str:
    text = repr(arg)
    return text if len(text) <= 120 else f"{text[:100]}... ({len(text)} characters)"


# --------------------------------------------------------------------------- mutations

def mutate(text: str, rng: random.Random, pieces: Sequence[str]) -> str:
    """One random edit of ``text``: delete, duplicate, repeat or move a span, insert a
    piece of the language (``pieces``), or wrap a span in deep nesting."""
    if not text:
        return rng.choice(pieces)
    i = rng.randrange(len(text) + 1)
    j = min(len(text), i + rng.randrange(1, 12))
    span = text[i:j] or rng.choice(pieces)
    kind = rng.randrange(7)
    if kind == 0:
        return text[:i] + text[j:]
    if kind == 1:
        return text[:i] + span + span + text[j:]
    if kind == 2:  # amplify: a span repeated hundreds of times
        return text[:i] + span * rng.choice((50, 300, 3000)) + text[j:]
    if kind == 3:
        k = rng.randrange(len(text) + 1)
        rest = text[:i] + text[j:]
        return rest[:k] + span + rest[k:]
    if kind == 4:
        return text[:i] + rng.choice(pieces) + text[i:]
    if kind == 5:  # deep nesting around a span
        depth = rng.choice((10, 100, 1000))
        return text[:i] + "(" * depth + span + ")" * depth + text[j:]
    return text[:i] + rng.choice(("9" * 30, "9" * 5000, "2**", "**9**9**9", "-" * 1000,
                                  "min(" * 200, "\x00", "\u00e9", " " * 100)) + text[j:]


def mutants(seeds: Sequence[str], count: int, pieces: Sequence[str], seed: int
            ) -> list[str]:
    """``count`` inputs, each one to three random edits of a seed (reproducible)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(seeds)
        for _ in range(rng.randrange(1, 4)):
            text = mutate(text, rng, pieces)
        out.append(text)
    return out


# --------------------------------------------------------------------------- hostile sizes

def hostile_sizes(rng: random.Random, count: int, atoms: Sequence[str] = "abcdmnk"
                  ) -> list[str]:
    """``count`` size expressions that are costly to expand or to solve: powers of sums,
    nested powers, products of sums, huge divisors and moduli (reproducible)."""
    def total() -> str:
        k = rng.randrange(1, len(atoms) + 1)
        return "(" + "+".join(rng.sample(list(atoms), k)) + f"+{rng.randrange(0, 4)})"

    out = []
    for _ in range(count):
        kind = rng.randrange(5)
        if kind == 0:  # a power of a sum
            out.append(f"{total()}**{rng.choice((2, 8, 16, 33, 40, 64, 65, 1000))}")
        elif kind == 1:  # nested powers
            text = total()
            for _ in range(rng.randrange(2, 5)):
                text = f"({text})**{rng.choice((2, 3, 8, 64))}"
            out.append(text)
        elif kind == 2:  # a product of sums
            out.append("*".join(total() for _ in range(rng.randrange(2, 25))))
        else:  # a huge divisor or modulus, in a term or around one
            big = rng.choice(("2**64", "2**63", "2**62*4", "9" * 30, str(2**200),
                              "(2**63-1)*(2**63-1)"))
            op = rng.choice(("//", "%", "*", "+", "-"))
            out.append(f"{rng.choice(atoms)}{op}{big}" if kind == 3 else
                       f"({total()}{op}{big}){rng.choice(('//', '%'))}{big}")
    return out


def hostile_repetitions(rng: random.Random, count: int) -> list[str]:
    """``count`` graph-text expressions that repeat sequences: ``(0,)*10**10`` and
    friends (reproducible)."""
    out = []
    for _ in range(count):
        n = rng.choice(("10**10", "10**8", "2**62", "1000", "1001", "-1", "True", "999"))
        seq = rng.choice(("(0,)", "[0]", "(0, 1)", "[x]", "()"))
        expr = rng.choice((f"{seq}*{n}", f"{n}*{seq}", f"({seq}*{n})*{n}"))
        out.append(rng.choice((f"x.sum(axis={expr})", f"concatenate({expr})",
                               f"x.reshape({expr})", f"zeros({expr})")))
    return out

"""Python branches on sizes: ``if L > 1:``, ``if n_rep == 1:``, ``assert d % h == 0``.

A traced program compares named sizes. Where what is known decides the comparison
(``n + 1 > n``, ``L >= 0``: sizes are never negative, ``L > 1`` after ``L > 2`` was
taken), that is the answer. Otherwise the trace *splits*: the function runs once per
combination of answers (depth first, True first), and each run is a **case** holding the
conditions it took, each with the user's line (:class:`Condition`). A case that raises
is a case the program refuses: its conditions are what the program assumes false.

:class:`Path` is one run's answers; :func:`explore` drives the runs. The comparisons come
from :data:`kantensor.types.dimorder.COMPARE` (the hook this module gives the trace),
only for the user's code (:mod:`.code`): kantensor's own comparisons of sizes keep their
meaning.
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..types import sizenum
from ..types.dim import Dim, DimLike, free_symbols, substitute
from ..types.dimorder import decided, ordered
from .located import Site
from .trace import COMPARE_HOOK, current

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}
#: The methods that forward a comparison of sizes (Dim's, and a Ratio's cross-multiplied
#: one), by the id of their code (kept alive by the classes): the caller is further out.
_FORWARDING = frozenset(
    id(getattr(cls, name).__code__) for cls, names in (
        (Dim, ("__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__")),
        (sizenum.Ratio, ("_compare", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
                         "__ge__"))) for name in names) | {id(f.__code__) for f in (ordered,
                                                                                  decided)}
_NEGATION = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

#: At most this many cases per eval_shape call, and answers per case.
MAX_CASES = 32
MAX_DEPTH = 24


class BranchError(TypeError):
    """A program whose branches on sizes cannot be split into cases (too many, or a
    loop whose number of turns is a symbolic size)."""


@dataclass(frozen=True)
class Condition:
    """``left op right`` over sizes, taken at ``site`` (the user's line)."""

    op: str
    left: DimLike
    right: DimLike
    site: Site | None = None

    def negated(self) -> Condition:
        return Condition(_NEGATION[self.op], self.left, self.right, self.site)

    def holds(self, **sizes: int) -> bool:
        """Whether the condition holds at these sizes (given by name)."""
        left, right = (substitute(x, sizes) if isinstance(x, Dim) else x
                       for x in (self.left, self.right))
        if isinstance(left, Dim) or isinstance(right, Dim):
            missing = sorted(str(s) for x in (left, right) for s in free_symbols(x))
            raise ValueError(f"{self}: no value given for {', '.join(missing)}")
        return _OPS[self.op](left, right)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    def described(self) -> str:
        return f"{self} (at {self.site})" if self.site is not None else str(self)


def _linear(d: Dim) -> tuple[str, int, int] | None:
    """``(s, c, k)`` when ``d == c*s + k`` for one named size ``s``."""
    symbols = free_symbols(d)
    if len(symbols) != 1:
        return None
    (s,) = symbols
    if not isinstance(s, str):
        return None
    at = [substitute(d, {s: v}) for v in (0, 1, 2, 7)]
    if not all(isinstance(v, int) for v in at):
        return None
    k, c = at[0], at[1] - at[0]
    if any(v != c * x + k for v, x in zip(at, (0, 1, 2, 7), strict=True)):
        return None
    return s, c, k


class Facts:
    """What the answers taken so far say: an interval for each named size (sizes are
    never negative), and the answers themselves (the same comparison is answered the
    same way)."""

    def __init__(self) -> None:
        self.low: dict[str, int] = {}
        self.high: dict[str, float] = {}
        self.known: dict[tuple[str, Any], bool] = {}

    def decide(self, op: str, a: DimLike, b: DimLike) -> bool | None:
        d = a - b
        if isinstance(d, int):
            return _OPS[op](d, 0)
        hit = self.known.get((op, d))
        if hit is not None:
            return hit
        flipped = self.known.get((_NEGATION[op], d))
        if flipped is not None:
            return not flipped
        span = self._span(d)
        if span is None:
            return None
        lo, hi = span
        if op in ("==", "!="):
            if lo > 0 or hi < 0:
                return op == "!="
            return op == "==" if lo == hi == 0 else None
        ends = {_OPS[op](lo, 0), _OPS[op](hi, 0)}  # d is monotonic in its one size
        return ends.pop() if len(ends) == 1 else None

    def _span(self, d: Dim) -> tuple[float, float] | None:
        found = _linear(d)
        if found is None:
            return None
        s, c, k = found
        lo, hi = self.low.get(s, 0), self.high.get(s, math.inf)
        return (c * lo + k, c * hi + k) if c > 0 else (c * hi + k, c * lo + k)

    def add(self, cond: Condition) -> None:
        d = cond.left - cond.right
        if isinstance(d, int):
            return
        self.known[(cond.op, d)] = True
        found = _linear(d)
        if found is None or cond.op == "!=":
            return
        s, c, k = found  # c*s + k op 0, that is s op t (op flipped for c < 0)
        t = Fraction(-k, c)
        op = cond.op if c > 0 else {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(
            cond.op, cond.op)
        least = {">": math.floor(t) + 1, ">=": math.ceil(t), "==": t}.get(op)
        most = {"<": math.ceil(t) - 1, "<=": math.floor(t), "==": t}.get(op)
        if least is not None:
            self.low[s] = max(self.low.get(s, 0), math.ceil(least))
        if most is not None:
            self.high[s] = min(self.high.get(s, math.inf), math.floor(most))


class Path:
    """One run's answers: those forced (``prefix``), then True for each new comparison
    the facts do not decide."""

    def __init__(self, prefix: list[bool]):
        self.prefix = prefix
        self.taken: list[Condition] = []  # as answered (negated when answered False)
        self.choices: list[bool] = []
        self.facts = Facts()

    def decide(self, op: str, a: DimLike, b: DimLike, site: Site | None) -> bool:
        known = self.facts.decide(op, a, b)
        if known is not None:
            return known
        i = len(self.choices)
        if i >= MAX_DEPTH:
            raise BranchError(f"more than {MAX_DEPTH} comparisons of symbolic sizes in one "
                              f"run (a loop whose number of turns is a size?), the last "
                              f"{a} {op} {b} at {site}; give that size as an int")
        choice = self.prefix[i] if i < len(self.prefix) else True
        cond = Condition(op, a, b, site)
        cond = cond if choice else cond.negated()
        self.choices.append(choice)
        self.taken.append(cond)
        self.facts.add(cond)
        return choice

    def next_prefix(self) -> list[bool] | None:
        """The answers of the next run (depth first), None when every case was run."""
        choices = list(self.choices)
        while choices and not choices[-1]:
            choices.pop()
        if not choices:
            return None
        choices[-1] = False
        return choices


def _hook(op: str, a: Dim, b: Any) -> Any:
    trace = current()
    path = getattr(trace, "path", None)
    if path is None:
        return NotImplemented
    frame = sys._getframe(1)
    while frame is not None and id(frame.f_code) in _FORWARDING:
        frame = frame.f_back
    if frame is None or trace.locator.library(frame):
        return NotImplemented
    site = Site(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
    return path.decide(op, a, b, site)


def explore(run: Callable[[Path], Any]) -> Iterator[tuple[Path, Any]]:
    """``run(path)`` once per case, yielding ``(path, outcome)``; ``run`` returns or
    raises (the outcome is then the exception)."""
    prefix: list[bool] | None = []
    cases = 0
    while prefix is not None:
        cases += 1
        if cases > MAX_CASES:
            raise BranchError(f"more than {MAX_CASES} cases of comparisons of symbolic sizes")
        path = Path(prefix)
        try:
            outcome: Any = run(path)
        except BranchError:
            raise
        except Exception as exc:  # noqa: BLE001 - a case the program refuses
            outcome = exc
        yield path, outcome
        prefix = path.next_prefix()


COMPARE_HOOK[0] = _hook

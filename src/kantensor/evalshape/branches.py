"""Python branches on sizes: ``if L > 1:``, ``if n_rep == 1:``, ``assert d % h == 0``.

A traced program compares named sizes. Where what is known decides the comparison
(``n + 1 > n``, ``L >= 0``: sizes are never negative, ``L > 1`` after ``L > 2`` was
taken: :class:`kantensor.Facts` decides), that is the answer. Otherwise the trace
*splits*: the function runs once per combination of answers (depth first, True first),
and each run is a **case** holding the conditions it took (:class:`kantensor.Condition`,
whose :class:`~kantensor.Source` is the user's line). A case that raises is a case the
program refuses: its conditions are what the program assumes false. A combination the
facts show impossible is no case.

:class:`Path` is one run's answers; :func:`explore` drives the runs. The comparisons come
from :data:`kantensor.types.dimorder.COMPARE` (the hook this module gives the trace),
only for the user's code (:mod:`.code`): kantensor's own comparisons of sizes keep their
meaning.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..types import dim, sizenum
from ..types.conditions import Condition, Source
from ..types.dim import Dim, DimLike
from ..types.dimorder import asked_positive, decided, divided, divides, equal, ordered, powered
from ..types.facts import EMPTY, Facts
from .located import Site
from .loops import BranchError, Budget
from .patches import FORWARDERS
from .trace import ANSWER, current

#: The methods that forward a comparison of sizes (Dim's, and a Ratio's cross-multiplied
#: one; Dim's divisions, which ask their divisor: dimorder.divides, as do a size's true
#: division by itself: sizenum, and a Ratio's //, % and divmod by a size; a power of a
#: size, which asks its sign: dimorder.powered; math's functions of a size, which ask
#: their domain), by the id of their code (kept alive by the classes and modules): the
#: caller is further out.
_FORWARDING = frozenset(
    id(getattr(cls, name).__code__) for cls, names in (
        (Dim, ("__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__floordiv__",
               "__rfloordiv__", "__divmod__", "__rdivmod__", "__abs__")),
        (sizenum.Ratio, ("_compare", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
                         "__ge__", "__bool__", "__trunc__", "__round__", "_arith", "__floordiv__",
                         "__rfloordiv__", "__mod__", "__rmod__", "__divmod__",
                         "__rdivmod__", "__abs__"))) for name in names) | {
    id(f.__code__) for f in (ordered, decided, divides, equal, asked_positive, divided, powered,
                             Dim.__pow__, Dim.__rpow__, dim.with_number, sizenum.number_op,
                             sizenum.size_abs)} | {
    id(code) for code in FORWARDERS}

#: At most this many cases per eval_shape call, and answers per case.
MAX_CASES = 32
MAX_DEPTH = 24


class Infeasible(BaseException):  # noqa: N818 - not an error: a combination of answers
    """The answers a run took cannot hold together: that run is no case (a
    BaseException, so that no ``except Exception`` of the traced code takes it)."""


def branch_source(site: Site | None) -> Source:
    """The source of a condition a Python branch took at ``site``."""
    if site is None:
        return Source(op="branch")
    return Source(op="branch", location=f"{site.filename}:{site.lineno}", code=site.source)


class Path:
    """One run's answers: those forced (``prefix``), then True for each new comparison
    the facts (``facts``, from ``given`` and the answers so far) do not decide."""

    def __init__(self, prefix: list[bool], given: Facts = EMPTY, budget: Budget | None = None):
        self.prefix = prefix
        #: The turns of loops over sizes the runs took so far (shared by them: :mod:`.loops`).
        self.budget = Budget() if budget is None else budget
        self.taken: list[Condition] = []  # as answered (negated when answered False)
        self.choices: list[bool] = []
        self.facts = given
        self.chosen: tuple[Condition, ...] = ()  # overloads' choices made before a raise
        #: Where the run stopped typing (a loop past its turns, :mod:`.loops`): choices
        #: too (``Source.otherwise``), so the sizes past them are not covered, never
        #: taken for sizes NumPy refuses.
        self.limits: tuple[Condition, ...] = ()
        #: The error that stopped typing (a loop past its turns, too many comparisons),
        #: kept so that a run whose code caught it (``except TypeError:``) is refused as
        #: one that raised it: what the code did next is not typed.
        self.stopped: Exception | None = None
        #: kantensor's own limit the run raised on, said (:mod:`.limits`): its case is
        #: not covered, never one the program refuses.
        self.limit = ""
        #: The loops over ``range`` of sizes under way, outermost first (:mod:`.loops`).
        self.loops: list[Any] = []

    def decide(self, op: str, a: DimLike, b: DimLike, site: Site | None) -> bool:
        cond = Condition(a, op, b, branch_source(site))
        known = self.facts.decide(cond)
        if known is not None:
            return known
        i = len(self.choices)
        if i >= MAX_DEPTH:
            raise self.stop(BranchError(
                f"more than {MAX_DEPTH} comparisons of symbolic sizes in one run (a loop "
                f"whose number of turns is a size?), the last {cond} at "
                f"{cond.source.location}: {cond.source.code}; give that size as an int"))
        choice = self.prefix[i] if i < len(self.prefix) else True
        cond = cond if choice else cond.negated()
        self.choices.append(choice)
        self.taken.append(cond)
        self.facts = self.facts.with_(cond)
        if not self.facts.consistent():
            raise Infeasible(cond)
        return choice

    def stop(self, error: Exception) -> Exception:
        """``error``, noted as what stopped this run's typing (:attr:`stopped`)."""
        if self.stopped is None:
            self.stopped = error
        return error

    def next_prefix(self) -> list[bool] | None:
        """The answers of the next run (depth first), None when every case was run."""
        choices = list(self.choices)
        while choices and not choices[-1]:
            choices.pop()
        if not choices:
            return None
        choices[-1] = False
        return choices


def _hook(op: str, a: Dim, b: Any, program: bool = False) -> Any:
    """The answer to a comparison of sizes the user's code makes (or that kantensor asks
    for it, if ``program``: at its innermost line), else NotImplemented."""
    trace = current()
    path = getattr(trace, "path", None)
    if path is None:
        return NotImplemented
    frame = sys._getframe(1)
    if program:
        frame = trace.locator.frame(frame)
    while frame is not None and id(frame.f_code) in _FORWARDING:
        frame = frame.f_back
    if frame is None or trace.locator.library(frame):
        return NotImplemented
    site = Site(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
    before = path.facts
    answer = path.decide(op, a, b, site)
    if path.facts is not before:
        _known(trace, path.facts)
    return answer


def _known(trace: Any, facts: Facts) -> None:
    """Give every value ``trace`` made (and its inputs) the facts of its case so far, so
    that the Ops built from them in this case are built under the case's answers: an
    overload's choice (a slice bound's sign) the answers refute is not taken there
    (``if n < 5: x[:n - 5]`` reads ``n - 5`` as counting from the end, as NumPy does)."""
    for v in trace.made:
        v.facts = facts if v.facts is None else v.facts.union(facts)


def explore(run: Callable[[Path], Any], given: Facts = EMPTY
            ) -> Iterator[tuple[Path, Any]]:
    """``run(path)`` once per case, yielding ``(path, outcome)``; ``run`` returns or
    raises (the outcome is then the exception). ``given``: facts every run starts from."""
    prefix: list[bool] | None = []
    cases = 0
    budget = Budget()
    while prefix is not None:
        path = Path(prefix, given, budget)
        try:
            outcome: Any = run(path)
        except BranchError:
            raise
        except Infeasible:
            outcome = None
        except Exception as exc:  # noqa: BLE001 - a case the program refuses
            outcome = exc
        if outcome is not None:
            cases += 1
            if cases > MAX_CASES:
                raise BranchError(f"more than {MAX_CASES} cases of comparisons of symbolic "
                                  "sizes")
            yield path, outcome
        prefix = path.next_prefix()


ANSWER.set(_hook)

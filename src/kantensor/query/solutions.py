"""The answers of a query as a lazy sequence (:class:`Solutions`): read once in order,
the first :data:`KEEP` kept, later ones streamed and told apart by a digest; the rank
bound's note when it cut answers; their text and HTML displays."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from kanren.constraints import ConstrainedState

from ..logic.terms import TensorTerm
from ..signature.display import solutions_html, solutions_text
from ..signature.solve import DEFAULT_MAX_RANK
from ..types.dim import Dim
from ..types.type import TensorType
from .answers import Answer
from .opendtypes import OpenDType

#: Answers a :class:`Solutions` keeps, for indexing and display; past them answers are
#: streamed and forgotten (iterating again past them runs the search again).
KEEP = 1_000
#: Most answers ``len()`` counts before it raises :class:`TooManyAnswers`.
MAX_LEN = 10_000


class TooManyAnswers(OverflowError):
    """``len()`` of a query with more than :data:`MAX_LEN` answers (within its limit)."""


class Solutions:
    """The answers of a query, computed lazily: iterate, index, or take ``len``.

    Answers are read once, in order. The first :data:`KEEP` are kept (indexing and
    displays read them again for free); later ones are forgotten once handed out, so
    iterating a huge query takes constant memory besides a 16-byte digest per answer,
    which tells answers apart (no answer is given twice). An iteration that goes back
    over forgotten answers runs the search again. ``len`` reads the answers (up to
    ``limit``) and raises :class:`TooManyAnswers` past :data:`MAX_LEN`: count a huge
    query with ``sum(1 for _ in answers)``, or give ``limit``.
    """

    def __init__(self, search: Callable[[Callable, set], Iterator[dict]], names: list[str],
                 limit: int | None, max_rank: int = DEFAULT_MAX_RANK,
                 complete: Callable[[ConstrainedState], Iterator[dict]] | None = None):
        """``search(beyond, digests)`` gives every answer (the limit aside) once, adding
        each one's :func:`digest` to ``digests`` and passing the states past the rank
        bound to ``beyond``; ``complete(S)`` gives the answers of such a state."""
        self._search = search
        self._keys: set[bytes] = set()  # the digest of every answer read
        self._stream = search(self._record, self._keys)
        self._complete = complete
        self._kept: list[dict] = []  # the first KEEP answers
        self._count = 0  # answers read (within the limit)
        self._exhausted = False
        self._error: BaseException | None = None  # what the search raised, raised again
        self._beyond: list[Iterator[ConstrainedState]] = []
        self._pending: Iterator[dict] | None = None  # answers past the bound, being read
        self._candidates: set[bytes] = set()  # their digests, while not known to be new
        self._cut = False
        self.names = names
        self.limit = limit
        self.max_rank = max_rank

    # -- reading ---------------------------------------------------------------------
    def _full(self) -> bool:
        return self.limit is not None and self._count >= self.limit

    def _read(self) -> dict | None:
        """Read one more answer (kept while among the first KEEP); None when none is
        left or the limit is reached. An error the search raised (a relation that says
        what it needs) is raised again at every later read: ``list(answers)`` asks
        ``len`` first and drops a TypeError it raises, then read on from a search that
        had ended, a false end of the answers."""
        if self._error is not None:
            raise self._error
        if self._exhausted or self._full():
            return None
        try:
            answer = next(self._stream, None)
        except Exception as exc:
            self._error = exc
            raise
        if answer is None:
            self._exhausted = True
            return None
        self._count += 1
        if len(self._kept) < KEEP:
            self._kept.append(answer)
        return answer

    @property
    def read_all(self) -> bool:
        """Have all the answers (up to ``limit``) been read?"""
        return self._exhausted or self._full()

    def __iter__(self) -> Iterator[dict]:
        i = 0
        while True:
            if i < len(self._kept):
                yield self._kept[i]
            elif i == self._count:  # at the front: read on
                answer = self._read()
                if answer is None:
                    return
                yield answer
            else:  # behind the front, past the kept answers: they are forgotten
                yield from self._again(i)
                return
            i += 1

    def _again(self, start: int) -> Iterator[dict]:
        """The answers from number ``start`` on, from a new run of the search."""
        stream = self._search(lambda states: None, set())
        stop = self.limit
        yield from itertools.islice(stream, start, stop)

    def __len__(self) -> int:
        while not self.read_all:
            if self._count >= MAX_LEN:
                raise TooManyAnswers(
                    f"more than {MAX_LEN} answers: len() counts at most {MAX_LEN} "
                    f"(give limit=..., or count with sum(1 for _ in answers))")
            self._read()
        return self._count

    def __getitem__(self, i: int) -> dict:
        if i < 0:
            i += len(self)
        if i >= 0:
            for answer in itertools.islice(self, i, None):
                return answer
        raise IndexError(f"solution {i} out of range")

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    # -- the rank bound ------------------------------------------------------------------
    def _record(self, states: Iterator[ConstrainedState]) -> None:
        """labelo's ``beyond`` callback: states past the rank bound, checked lazily."""
        if not self._cut:
            self._beyond.append(states)
            if len(self._beyond) > 64:  # a long search: look at them as it goes (memory)
                self._rank_cut(budget=1000)

    def _rank_cut(self, budget: int | None = None) -> bool:
        """Did the bound cut an answer? Known as soon as an answer past the bound is new
        and shows more than ``max_rank`` axes, else once every answer is read (an
        answer past the bound is then cut iff the query did not list it). Looks at no
        more than ``budget`` answers past the bound (for displays)."""
        while not self._cut:
            if self._pending is None:
                if not self._beyond or self._complete is None:
                    break
                states = self._beyond.pop(0)
                self._pending = (a for S in states for a in self._complete(S))
            for answer in self._pending:
                key = digest(answer)
                if key not in self._keys:
                    if any(_rank(v) > self.max_rank for v in answer.values()):
                        self._cut, self._pending = True, None
                        self._beyond.clear()
                        return True
                    self._candidates.add(key)
                if budget is not None:
                    budget -= 1
                    if budget <= 0:
                        return False
            self._pending = None
        if not self._cut and self._exhausted:
            self._cut = bool(self._candidates - self._keys)
        return self._cut

    @property
    def truncated_by_rank(self) -> bool:
        """True when ``max_rank`` cut answers: some type fits only with more than
        ``max_rank`` axes where the query leaves a rank open (pass a larger
        ``max_rank`` to list them). Reads answers until it knows: past the first few
        when the bound cuts, every answer (beyond ``limit`` too) when it does not."""
        while not self._rank_cut():
            if not self._read():
                return self._rank_cut()
        return True

    def _bound_note(self) -> str:
        """The line naming the bound, when it is known to have cut (read so far)."""
        if not self._rank_cut(budget=1000):
            return ""
        return (f"(the rank bound cut answers: an unknown rank takes at most "
                f"max_rank={self.max_rank} axes; max_rank={self.max_rank + 1} or more lists "
                f"them: query(..., max_rank=...), kantensor query --max-rank ...)")

    # -- display --------------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.text()

    def text(self, show: int | None = None, start: int = 0) -> str:
        """Answers ``start`` to ``start + show`` (20 if None) one a line, and when there
        are others, how many it shows of how many (``... showing 20 of 63 solutions``)."""
        return solutions_text(self, _row, show, self._bound_note, start)

    def html(self, show: int | None = None, start: int = 0) -> str:
        """:meth:`text` as an HTML table (50 rows if ``show`` is None)."""
        return solutions_html(self.names, self, self._bound_note, show, start)

    def _repr_html_(self) -> str:
        return self.html()


def digest(answer: Answer) -> bytes:
    """What tells two answers apart, in 16 bytes: a digest of their text."""
    text = repr((sorted(answer.items()), answer.where, answer.dtypes))
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _row(answer: Answer) -> str:
    """One answer as text: ``X = float32[n], where m == n//2``. A size left symbolic
    under its own name (``m = m``) says nothing and is left out, unless it is all."""
    shown = {k: v for k, v in answer.items()
             if not (isinstance(v, Dim | OpenDType) and str(v) == k)} or answer
    where = answer.where_text()
    if not shown:  # no variable: the types given hold, where the constraints do
        return f"holds where {where}" if where else "holds"
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in shown.items()) + (
        f", where {where}" if where else "")


def _rank(value: Any) -> int:
    """The most axes a value of an answer shows (0 for a dtype or a size)."""
    if isinstance(value, TensorType):
        return value.ndim
    if isinstance(value, TensorTerm):
        value = value.shape
    return len(value) if isinstance(value, tuple) else 0


def _fmt(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_fmt, value)) + ("," if len(value) == 1 else "") + ")"
    return str(value)

"""Rich (HTML) displays of signatures, their errors and the solutions of queries.

``Signature._repr_html_``, ``TypeInferenceError._repr_html_`` and
``Solutions._repr_html_`` are one-line methods calling these functions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..graph.display import block, code, esc, table
from ..graph.progress import Progress
from ..logic.answers import where_text
from ..syntax.alternative import Alternative, Loop, Overloads
from ..types.display import value_inline
from .compile import constant_truth

#: Rows a Solutions table shows, answers a text list shows (the CLI's ``--limit``, the
#: REPL's ``limit`` change it), and how far both count the rest ("showing 50 of 312";
#: past the cap "of at least 1,050": counting further would enumerate too much).
MAX_ROWS = 50
SHOW = 20
COUNT_CAP = 1_000

_LOOPS = {None: "none", Loop.BROADCAST: "broadcast (+)", Loop.EQUAL: "equal (=)"}


def readable(sig: Any) -> str:
    """A signature as a user reads it: the alternatives a where-clause between constants
    rules out (``0 == 1``, from a template) left out, and clauses between constants that
    hold (``0 == 0``) not shown. Display only: ``str(sig)`` is the text that parses back."""
    shown = []
    for alt in sig.alternatives:
        truths = [constant_truth(c) for c in alt.where]
        if False in truths:
            continue
        loop = ("" if alt.loop is None else alt.loop.value) + \
            ("" if alt.max_loop_dims is None else str(alt.max_loop_dims))
        text = f"{loop}{','.join(map(str, alt.inputs))}->{','.join(map(str, alt.outputs))}"
        kept = [str(c) for c, truth in zip(alt.where, truths, strict=True) if truth is None]
        shown.append(text + (" where " + ", ".join(kept) if kept else ""))
    return " | ".join(shown) or str(sig)


def alternative_row(alt: Alternative) -> list[str]:
    """The cells of one alternative: loop dims, inputs, outputs, where-clauses."""
    loop = _LOOPS[alt.loop] + ("" if alt.max_loop_dims is None
                               else f", at most {alt.max_loop_dims}")
    return [esc(loop), ", ".join(code(p) for p in alt.inputs),
            ", ".join(code(p) for p in alt.outputs),
            "<br>".join(code(c) for c in alt.where) or "&ndash;"]


def signature_table(sig: Overloads) -> str:
    """Each alternative of a signature as a row."""
    rows = [[str(i), *alternative_row(a)] for i, a in enumerate(sig.alternatives, start=1)]
    return table(["#", "loop dims", "inputs", "outputs", "where"], rows)


def signature_html(sig: Overloads) -> str:
    """A Signature: its text, then a table of its alternatives and their where-clauses."""
    n = len(sig.alternatives)
    title = f"{code(sig)} <i>({n} alternative{'s' * (n != 1)})</i>"
    return block("Signature", title, signature_table(sig))


def how_many(shown: int, rest: Iterator, noun: str, start: int = 0) -> str:
    """``3 solutions``, ``showing 20 of 63 solutions`` (``showing 21-40 of 63`` from
    ``start`` 20) or, when counting the rest would read more than COUNT_CAP more,
    ``showing 20 of at least 1,020 solutions``."""
    extra = 0
    with Progress(f"counting {noun}s") as progress:  # on a terminal, after a second
        for _ in itertools.islice(rest, COUNT_CAP):
            extra += 1
            progress.step()
    if extra == 0 and start == 0:
        return f"{shown} {noun}{'s' * (shown != 1)}"
    at_least = "at least " if extra >= COUNT_CAP else ""
    which = f"{start + 1}-{start + shown}" if start else f"{shown}"
    return f"showing {which} of {at_least}{start + shown + extra:,} {noun}s"


def _page(stream: Iterator, start: int, show: int) -> tuple[list, int]:
    """Answers ``start`` to ``start + show`` of ``stream``, and how many answers were read
    (a progress line on a terminal when reading them takes more than a second)."""
    rows = []
    read = 0
    with Progress("reading solutions", total=start + show) as progress:
        for k, row in enumerate(itertools.islice(stream, start + show)):
            if k >= start:
                rows.append(row)
            read += 1
            progress.step()
    return rows, read


def _past_the_end(read: int) -> str:
    """What a page after the last answer says (``more`` once every answer was shown)."""
    return f"no more solutions ({read:,} in all)"


def solutions_text(solutions: Iterable, row: Callable[[Any], str], show: int | None = None,
                   note: Callable[[], str] | None = None, start: int = 0) -> str:
    """Answers ``start`` to ``start + show`` (SHOW if None), one a line, then a line
    saying how many it shows of how many: ``3 solutions`` for a whole list, ``...
    showing 20 of 63 solutions`` for a cut one."""
    show = SHOW if show is None else show
    stream = iter(solutions)
    rows, read = _page(stream, start, show)
    if not rows and start:
        return _past_the_end(read)
    if not rows and next(stream, None) is None:
        text = note() if note is not None else ""
        return "no solutions" + (f"\n{text}" if text else "")
    caption = how_many(len(rows), stream, "solution", start)
    text = note() if note is not None else ""
    lines = "\n".join(map(row, rows))
    lines += ("\n" if lines else "") + (f"... {caption}" if caption.startswith("showing")
                                        else caption)
    return lines + (f"\n{text}" if text else "")


def _where(row: Any) -> str:
    """A row's constraints as one line: its own ``where_text()`` (an answer's sizes and
    open dtypes), else the text of its ``where`` (empty where it has none)."""
    own = getattr(row, "where_text", None)
    return own() if callable(own) else where_text(getattr(row, "where", ()))


def solutions_html(names: Sequence[str], solutions: Iterable[dict],
                   note: Callable[[], str] | None = None, show: int | None = None,
                   start: int = 0) -> str:
    """The first MAX_ROWS solutions as a table, saying how many there are in all.

    An empty query says "no solutions"; a cut table says "showing N of M" (counting up
    to COUNT_CAP solutions, so an endless stream still displays). ``note()``, called
    once the rows are read, gives a line to add (the rank bound that cut answers).
    """
    stream = iter(solutions)
    show = MAX_ROWS if show is None else show
    rows, read = _page(stream, start, show)
    if not rows and start:
        return block("Solutions", f"<i>{esc(_past_the_end(read))}</i>")
    if not rows:
        text = note() if note is not None else ""
        return block("Solutions", "<i>no solutions</i>" + (f"<br>{esc(text)}" if text
                                                             else ""))
    caption = how_many(len(rows), stream, "solution", start)
    text = note() if note is not None else ""
    if text:
        caption = f"{caption} {text}"
    cells = [[value_inline(r.get(n)) for n in names] for r in rows]
    header = list(names)
    wheres = [_where(r) for r in rows]
    if any(wheres):  # constraints the values leave
        header.append("where")
        for row, text in zip(cells, wheres, strict=True):
            row.append(esc(text))
    return block("Solutions", "", table(header, cells, caption=esc(caption)))

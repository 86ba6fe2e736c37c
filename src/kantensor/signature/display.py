"""Rich (HTML) displays of signatures, their errors and the solutions of queries.

``Signature._repr_html_``, ``TypeInferenceError._repr_html_`` and
``Solutions._repr_html_`` are one-line methods calling these functions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

from ..graph.display import block, code, esc, table
from ..logic.answers import where_text
from ..syntax.alternative import Alternative, Overloads
from ..types.display import value_inline

#: Rows a Solutions table shows, and how far it counts the rest ("showing 50 of 312").
MAX_ROWS = 50
COUNT_CAP = 10_000

_LOOPS = {None: "none", "+": "broadcast (+)", "=": "equal (=)"}


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


def solutions_html(names: Sequence[str], solutions: Iterable[dict],
                   note: Callable[[], str] | None = None) -> str:
    """The first MAX_ROWS solutions as a table, saying how many there are in all.

    An empty query says "no solutions"; a cut table says "showing N of M" (counting up
    to COUNT_CAP solutions, so an endless stream still displays). ``note()``, called
    once the rows are read, gives a line to add (the rank bound that cut answers).
    """
    stream = iter(solutions)
    rows = list(itertools.islice(stream, MAX_ROWS))
    if not rows:
        text = note() if note is not None else ""
        return block("Solutions", "<i>no solutions</i>" + (f"<br>{esc(text)}" if text
                                                             else ""))
    extra = sum(1 for _ in itertools.islice(stream, COUNT_CAP))
    shown = len(rows)
    if extra == 0:
        caption = f"{shown} solution{'s' * (shown != 1)}"
    elif extra < COUNT_CAP:
        caption = f"showing {shown} of {shown + extra} solutions"
    else:
        caption = f"showing {shown} of more than {shown + COUNT_CAP - 1} solutions"
    text = note() if note is not None else ""
    if text:
        caption = f"{caption} {text}"
    cells = [[value_inline(r.get(n)) for n in names] for r in rows]
    header = list(names)
    if any(getattr(r, "where", ()) for r in rows):  # constraints the values leave
        header.append("where")
        for row, r in zip(cells, rows, strict=True):
            row.append(esc(where_text(getattr(r, "where", ()))))
    return block("Solutions", "", table(header, cells, caption=esc(caption)))

"""Named sizes: ``kt.dims("N D")``, tied by the user where they are not distinct
(``kt.dims("N D", where="D == 2*N")``), and conditions on sizes written as text
(``"D == 2*N and T <= 1024"``) in the dim-expression language of the DSL."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .conditions import COMPARE, Condition, Source
from .dim import Dim, DimLike
from .symbols import free_symbols, substitute
from .type import TensorType

__all__ = ["dims", "parse_conditions"]

_COMPARISON = re.compile(r"(==|!=|<=|>=|<|>)")


def _size(text: str, whole: str) -> DimLike:
    try:
        return TensorType.parse(f"bool[{text.strip()}]").shape[0]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{whole!r}: {text.strip()!r} is not a size expression "
                         f"({exc})") from None


def parse_conditions(text: str, source: Source | None = None) -> list[Condition]:
    """The conditions of ``text``: comparisons of size expressions joined by ``and`` or
    commas (``"D == 2*N and T <= 1024"``)."""
    out = []
    for part in re.split(r"\band\b|,", text):
        pieces = _COMPARISON.split(part)
        if len(pieces) != 3 or pieces[1] not in COMPARE:
            raise ValueError(f"{part.strip()!r} is not a comparison of two sizes "
                             "(such as D == 2*N, T <= 1024, D % H == 0)")
        left, op, right = pieces
        out.append(Condition(_size(left, part), op, _size(right, part), source))
    return out


def dims(names: str | Iterable[str], where: str | None = None) -> tuple[DimLike, ...]:
    """Named symbolic sizes: ``n, m = dims("n m")``. ``where`` ties some of them to the
    others (``dims("N D", where="D == 2*N")`` gives ``N`` and ``2*N``): each clause is
    ``name == expression`` of the other names, so a tied size is that expression
    wherever it is used (as if written so), and nothing has to assume it."""
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    names = list(names)
    sizes: dict[str, DimLike] = {n: Dim(n) for n in names}
    for cond in parse_conditions(where) if where else ():
        tied = cond.left.name if isinstance(cond.left, Dim) else None
        if cond.op != "==" or tied not in sizes or tied in free_symbols(cond.right):
            raise ValueError(f"dims(where=...): {cond} does not tie a name: write "
                             "name == expression of the other names (D == 2*N)")
        sizes[tied] = substitute(cond.right, sizes)
    return tuple(sizes[n] for n in names)

"""A question's unknowns renamed to fixed stand-ins, so that questions alike but for
their fresh logic variables are one question to the prover's memo.

Every build makes fresh logic variables (``~y0_9640``), so a relation's waiting equation
``y0 == a0`` asks :func:`~.dims.nowhere` a question no earlier build asked, though an
earlier build asked it of ``~y0_7`` and ``~a0_5``: the prover's memo
(:func:`kantensor.types.prove.proves`) missed at every build, and a traced loop nest
(``for i in range(n): for j in range(n): out[i, j] = ...``, a build per turn, each proof
under the case's facts) spent seconds proving the same thing again.

Where the unknowns occur in the question alone (never in the facts it is asked under)
and only as atoms of their own (never inside a floor, a remainder, a min or a max, whose
text would change), the question with the ``i``-th unknown in the atoms' order
(:func:`kantensor.types.poly.atom_key`) renamed to the ``i``-th stand-in is the same
question, the same terms in the same order over other names: what holds at every value
of one holds at every value of the other, and the prover walks both alike.
"""

from __future__ import annotations

from typing import Any

from ..types.dim import Dim, from_terms
from ..types.facts import Facts
from ..types.poly import Opaque, atom_key

__all__ = ["standing_in"]


class _StandIn:
    """The ``rank``-th unknown of a question; its text orders as its rank (after every
    named size and term, as an unknown's does)."""

    __slots__ = ("rank",)

    def __init__(self, rank: int):
        self.rank = rank

    def __repr__(self) -> str:
        return f"~{self.rank:06d}"


_STAND_INS: list[_StandIn] = []


def _stand_in(rank: int) -> _StandIn:
    while len(_STAND_INS) <= rank:
        _STAND_INS.append(_StandIn(len(_STAND_INS)))
    return _STAND_INS[rank]


def standing_in(diff: Dim, facts: Facts) -> Dim:
    """``diff`` with its unknowns renamed to stand-ins in their order (module docstring);
    ``diff`` itself where an unknown is inside a term or in ``facts``, or it has none."""
    unknowns = []
    for mono, _ in diff._terms:
        for atom, _p in mono:
            if isinstance(atom, Opaque):
                if any(_has_unknown(a) for a in atom.args):
                    return diff
            elif not isinstance(atom, str) and atom not in unknowns:
                unknowns.append(atom)
    if not unknowns or any(type(u) is _StandIn for u in unknowns):
        return diff
    if any(not isinstance(u, str) for c in facts.atoms for u in c.symbols()):
        return diff  # (an unknown the facts name: renamed alone, it would be another)
    unknowns.sort(key=atom_key)
    renamed = {u: _stand_in(k) for k, u in enumerate(unknowns)}
    return from_terms(tuple([(tuple([(renamed.get(a, a), p) for a, p in mono]), c)
                             for mono, c in diff._terms]))  # (in order: canonical still)


def _has_unknown(x: Any) -> bool:
    """Whether the size ``x`` has an unknown (a key that is no name) anywhere."""
    if isinstance(x, int):
        return False
    for mono, _ in x._terms:
        for atom, _p in mono:
            if isinstance(atom, Opaque):
                if any(_has_unknown(a) for a in atom.args):
                    return True
            elif not isinstance(atom, str):
                return True
    return False

"""Why a build refused its operands when they alone would be accepted: what the code
assumed on earlier lines contradicts what this Op needs.

A node's outputs carry the conditions of the nodes they come from as facts, and an Op
is built under them (:meth:`kantensor.ops.op.SignatureOp.make_node`). When the facts
refute what the Op's relation needs, the build fails, and the line that failed is only
where the contradiction showed: the operands it was given are fine at some sizes.
:func:`conflict` finds the few earlier conditions that, with what the Op needs, no sizes
meet (deleting the latest first, so that the earliest stay), each at the user's line of
the Op that imposed it, the earliest first.
"""

from __future__ import annotations

import itertools
from types import TracebackType
from typing import Any

from ..graph.basic import Apply, Variable
from ..ops.op import SignatureOp
from ..signature.forward import build
from ..syntax.errors import TypeInferenceError
from ..types.conditions import AnyOf, Clause, Condition, Source, conjunction, is_choice
from ..types.facts import EMPTY, Facts
from ..types.tidy import tidy
from .located import Site, at_site, described

_INFER = SignatureOp._infer.__code__
_MAX_OPTIONS = 64  # the cases of the Op's disjunctions tried together, at most


def refused_build(exc: BaseException) -> dict[str, Any] | None:
    """The locals of the innermost ``SignatureOp._infer`` frame of ``exc``'s traceback."""
    found = None
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _INFER:
            found = tb.tb_frame.f_locals
        tb = tb.tb_next
    return found


def _needs(frame: dict[str, Any]) -> tuple[Clause, ...] | None:
    """What the Op of a refused build needs of its operands' sizes, facts aside (None
    if it refuses them at every size)."""
    op, inputs = frame.get("self"), frame.get("inputs")
    if not isinstance(op, SignatureOp) or not isinstance(inputs, list):
        return None
    types = tuple(x.type for x in inputs)
    try:
        signature, named = op.signature_for(types)
        return build(signature, types, tuple(x.wrapped for x in inputs), name=named,
                     facts=EMPTY).conditions
    except TypeInferenceError:
        return None


def _refuted(atoms: list[Condition], needs: tuple[Clause, ...]) -> bool:
    """Whether no sizes meet ``atoms`` and ``needs`` (every case of its disjunctions)."""
    options = [[(c,)] if isinstance(c, Condition) else list(c.cases) for c in needs]
    for k, choice in enumerate(itertools.product(*options)):
        if k == _MAX_OPTIONS:
            return False  # not shown
        if Facts([*atoms, *(c for case in choice for c in case)]).consistent():
            return False
    return True


def _imposed(sites: dict[Apply, Site | None], names: dict[Variable, str]
             ) -> dict[Condition, Condition]:
    """Each condition the nodes built so far made a fact, at the user's line of the first
    node that imposed it (in the order built)."""
    out: dict[Condition, Condition] = {}
    for node, site in sites.items():
        for clause in getattr(node, "conditions", ()) or ():
            for atom in conjunction([clause]):
                if atom not in out:
                    where = at_site(clause, node, site, sites, names).source
                    out[atom] = atom.with_source(where)
    return out


def conflict(exc: BaseException, sites: dict[Apply, Site | None],
             names: dict[Variable, str], failed: Site | None) -> list[str] | None:
    """The earlier conditions and the refused Op's needs that no sizes meet together,
    each described at its user's line (earliest first, the Op's needs last), if ``exc``
    is a build refused only under what earlier nodes need; else None (also where
    finding them fails: the error is then said as it was)."""
    try:
        return _conflict(exc, sites, names, failed)
    except Exception:  # noqa: BLE001 - a diagnosis only: never hide the user's error
        return None


def _conflicting(exc: BaseException, sites: dict[Apply, Site | None],
                 names: dict[Variable, str]) -> tuple[Any, list[Condition],
                                                      tuple[Clause, ...], dict] | None:
    """The refused build's frame, the earlier conditions and the Op's needs that no sizes
    meet together, and the conditions imposed by the nodes (see :func:`conflict`)."""
    frame = refused_build(exc)
    facts = frame.get("facts") if frame is not None else None
    if not isinstance(facts, Facts) or not facts:
        return None
    needs = _needs(frame)
    if not needs:
        return None
    imposed = _imposed(sites, names)
    order = {atom: k for k, atom in enumerate(imposed)}
    atoms = sorted(facts.atoms, key=lambda a: order.get(a, -1))  # given facts first
    if not _refuted(atoms, needs):
        return None
    core = _core(atoms, needs)
    for c in list(needs):  # and of the Op's needs, those the contradiction takes
        fewer = tuple(x for x in needs if x is not c)
        if fewer and _refuted(core, fewer):
            needs = fewer
    return frame, core, needs, imposed


def choice_refuted(exc: BaseException, sites: dict[Apply, Site | None],
                   names: dict[Variable, str], failed: Site | None
                   ) -> tuple[Condition, ...] | None:
    """Where ``exc`` is a build refused only because what it needs contradicts a build's
    choice made earlier (the sign a slice bound is read with), the other conditions of
    that contradiction (the Op's needs among them): under them as facts the choice is
    not made. None otherwise (also where finding them fails)."""
    try:
        found = _conflicting(exc, sites, names)
    except Exception:  # noqa: BLE001 - a diagnosis only: never hide the user's error
        return None
    if found is None:
        return None
    frame, core, needs, imposed = found
    if not any(is_choice(imposed.get(a, a)) for a in core):
        return None
    here = _here(frame, failed)
    return tuple(imposed.get(a, a) for a in core if not is_choice(imposed.get(a, a))) + \
        tuple(_plainest(c.with_source(here)) for c in needs if isinstance(c, Condition))


def _here(frame: Any, failed: Site | None) -> Source:
    """The refused Op at the user's line that failed, as a condition's source."""
    op = str(getattr(frame.get("self"), "name", "") or "")
    return Source(op=op, location=f"{failed.filename}:{failed.lineno}" if failed else "",
                  code=failed.source if failed else "")


def _conflict(exc: BaseException, sites: dict[Apply, Site | None],
              names: dict[Variable, str], failed: Site | None) -> list[str] | None:
    found = _conflicting(exc, sites, names)
    if found is None:
        return None
    frame, core, needs, imposed = found
    here = _here(frame, failed)
    lines = [described(_plainest(imposed.get(a, a))) for a in core]
    lines += [described(_plainest(c.with_source(here)) if isinstance(c, Condition)
                        else AnyOf(c.cases, here)) for c in needs]
    return lines


def _core(atoms: list[Condition], needs: tuple[Clause, ...] = ()) -> list[Condition]:
    """The fewest of ``atoms`` (in their order) that with ``needs`` no sizes meet,
    deleting the latest first, so that the earliest stay where they can."""
    core = list(atoms)
    for atom in reversed(atoms):
        trial = [a for a in core if a is not atom]
        if _refuted(trial, needs):
            core = trial
    return core


def contradicting(assumptions: tuple[Clause, ...]) -> list[Condition] | None:
    """The fewest of a result's assumptions (each a condition, in the order the code
    needs them) that no sizes meet together, earliest first; None if they are met
    somewhere (as far as shown; disjunctions are not looked at)."""
    atoms = list(dict.fromkeys(a for a in assumptions if isinstance(a, Condition)))
    if len(atoms) < 2 or not _refuted(atoms, ()):
        return None
    return _core(atoms)


def contradicted(assumptions: tuple[Clause, ...]) -> list[str] | None:
    """:func:`contradicting`, each described."""
    core = contradicting(assumptions)
    return None if core is None else [described(_plainest(a)) for a in core]


def _plainest(c: Condition) -> Clause:
    """``c`` as one plainer clause where :func:`~kantensor.types.tidy.tidy` says it so
    (``min(32, T + 3) == T`` is ``T == 32``), for the message."""
    found = tidy(c)
    return found[0] if len(found) == 1 else c

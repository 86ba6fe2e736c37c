"""How many times a Loop runs its body: its trip count, 0, 1, or a size the data decide
(named after the node, ``<node>_iters``), with what bounds it (``0 <= iters``, ``iters <=
max(0, M)``), which are facts for the nodes after the Loop and the bounds a contract
quantifies the count over."""

from __future__ import annotations

from typing import Any

from ..types.conditions import Condition, Source
from ..types.dim import Dim, lone_atom_of
from ..types.dimminmax import dim_max
from ..types.facts import EMPTY, Facts
from ..types.poly import Opaque
from ..types.symbols import data_size
from .subgraph import Notes, SizeCondition, base_name, fresh_names

__all__ = ["iteration_count"]


def iteration_count(label: str, trips: Any, has_trips: bool, start: bool | None,
                    then: bool | None, notes: Notes, taken: set[str], once: bool = True,
                    facts: Facts = EMPTY) -> tuple[Any, list[SizeCondition]]:
    """How many times a Loop runs its body (its trip count ``trips`` if it has one,
    ``start`` its first condition, ``then`` the body's condition, each None where not
    known): 0, 1, the trip count, or a size of its own named after the node (with its
    conditions, in the DSL's syntax: ``0 <= loop_iters``, ``loop_iters <= M``). A trip
    count may be negative (``N - 5``), and onnxruntime then runs no iteration: the
    trip count stands for ``max(0, M)``, simplified under ``facts`` (``M`` where they
    show ``M >= 0``). In a graph that runs many times per run of the model (``once``
    False: a loop's body) the data may decide another count at every run, so one name
    would claim one size for all of them: the count is unknown (None) there, with a
    note."""
    if isinstance(trips, Dim):  # (first: max(0, M) may simplify to the int 0)
        trips = facts.simplify(dim_max(0, trips))
    if start is False or has_trips and isinstance(trips, int) and trips <= 0:
        return 0, []
    if start is True and then is True and has_trips and trips is not None:
        return trips, []
    if start is True and then is False and (not has_trips or isinstance(trips, int)):
        return 1, []  # one iteration, which ends the loop
    if not once:
        notes.add(base_name(label) + "_iters", "count", "the data decide it, at every "
                  "run of the loop's body that holds this Loop")
        return None, []
    name = base_name(label) + "_iters"
    if name in taken:
        (name,) = fresh_names(name, 1, taken)
    count = data_size(name, f"{name} is decided when the model runs, at Loop node "
                            f"{label!r}: how many times its body runs")
    facts = [SizeCondition(0, "<=", count, label)]
    if has_trips and trips is not None:  # (at most min(a, b): at most each, which the
        facts += [SizeCondition(count, "<=", t, label) for t in _mins(trips)]  # prover reads)
    if then is False:
        facts.append(SizeCondition(count, "<=", 1, label))
    count.name.bounds = tuple(Condition(f.left, f.op, f.right, Source(op="Loop", node=label))
                              for f in facts)  # (a contract quantifies the count away)
    if then is True and has_trips and trips is not None:
        notes.add(name, "count", "the condition input decides whether the loop runs",
                  (("the condition", trips), ("not the condition", 0)))
    elif not has_trips and then is not False:
        notes.add(name, "count", "the loop runs until its condition is false")
    elif has_trips and trips is None:
        notes.add(name, "count", "the trip count is not known when the model is read")
    else:
        notes.add(name, "count", "the body may end the loop early")
    return count, facts


def _mins(x: Any) -> tuple[Any, ...]:
    """The arguments of ``x`` where it is a ``min`` of sizes (a count at most ``min(2**40,
    N)`` is at most ``2**40`` and at most ``N``), else ``(x,)``."""
    atom = lone_atom_of(x) if isinstance(x, Dim) else None
    return tuple(atom.args) if isinstance(atom, Opaque) and atom.op == "min" else (x,)

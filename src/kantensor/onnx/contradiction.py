"""A model node whose own conditions hold at no sizes together (a broadcast that needs
``n == 0`` of one axis and ``n == 1 or n == 2`` of another): the model is invalid at
every size, so the reader refuses it as it refuses a node that cannot be built at all
(a Reshape whose static target contradicts its input's static size), naming the node
and the conditions. Only what the facts prove is refused: where they do not decide, the
conditions stay the model's (its contract solves them). A subgraph's node is not refused:
its graph may never run (an If's other branch, a Loop of no iterations), and
onnxruntime runs such a model.

Conditions of different nodes that hold at no sizes together are refused the same way,
whichever node comes first: a later node's build fails under the facts the earlier
nodes' conditions state (:func:`across`), and a disjunction (no fact: ``n == 3 or n ==
1``) that later nodes' facts refute is found when the graph is read (:func:`settled`).
Both name the nodes and their conditions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import is_
from typing import Any

import onnx

from ..syntax.errors import TypeInferenceError
from ..types.conditions import AnyOf, Clause, Condition, has_choice
from ..types.facts import EMPTY, Facts
from ..types.stated import rising_facts
from .protos import label as node_label

__all__ = ["across", "consistent", "lasting", "settled"]

#: The most facts :func:`_needed` narrows to the few a refusal needs (one reduce each)
MAX_NARROWED = 24

#: The most passes of :func:`settled` over a graph's disjunctions (each pass states the
#: one case left of some as facts for the next): bounded, whatever their chains
MAX_PASSES = 4

#: (a graph's disjunctions, its facts) that :func:`settled` found refute none, at most
#: MAX_SETTLED of them
_SETTLED: dict[tuple, bool] = {}
MAX_SETTLED = 256
#: The disjunctions (all a graph's, the objects themselves) and facts of the last graph
#: :func:`settled` found refute none: the same objects say the same
_LAST: list[tuple[list, Facts | None]] = [([], None)]


def consistent(own: tuple[Clause, ...], node: onnx.NodeProto, parent: object = None
               ) -> tuple[Clause, ...]:
    """``own`` (a node's conditions, in the graph's terms), unless they contradict each
    other in a main graph (``parent`` None: not a subgraph's reader): then
    TypeInferenceError naming the node and them."""
    if parent is not None or len(own) < 2 or any(map(has_choice, own)):  # one
        # condition no sizes meet: the build refused it; an overload's choice: other
        # types apply; a subgraph's node: its graph may not run
        return own
    if _rising(own) or _hold_together(tuple(own)):
        return own
    listed = "; ".join(map(str, own))
    raise TypeInferenceError(f"node {node_label(node)!r} ({node.op_type}): its conditions "
                             f"contradict each other, so the model is valid at no sizes: "
                             f"no sizes meet all of {listed}")


def lasting(own: tuple[Clause, ...]) -> list[Clause]:
    """The conditions of ``own`` (a node's, as :func:`consistent` passed them) that are
    facts for every later node: all but an overload's choice's (where it fails the model
    may run, with other types after it, and no later node is refused by it)."""
    return [c for c in own if not getattr(getattr(c, "source", None), "otherwise", "")]


@lru_cache(maxsize=4096)
def _hold_together(own: tuple[Clause, ...]) -> bool:
    """Whether the facts leave ``own`` satisfiable together; kept per conditions (equal
    conditions say the same whatever their sources), since a model typed again, or a
    stack of like layers, asks it of the same conditions again."""
    facts = EMPTY.with_(*(c for c in own if isinstance(c, Condition)))
    return facts.consistent() and facts.reduce(own) is not None


def _rising(own: tuple[Clause, ...]) -> bool:
    """Whether ``own`` are all conditions that a :func:`~kantensor.types.stated.rising`
    size is at least an int (a pool's kept ``out >= 1`` of each spatial axis): they
    hold together wherever the sizes are large enough, as the prover finds at more
    cost (a model's first typing asks it of every window's conditions, new each
    time)."""
    return all(type(c) is Condition and c.op != "!=" for c in own) and rising_facts(own)


def across(exc: Exception, build: Callable[[], Any], tensors: Sequence[Any], facts: Facts,
           label: str, op_type: str) -> TypeInferenceError | None:
    """Where a node's build failed (TypeInferenceError ``exc``, the relation's refusal)
    under ``facts`` (what the earlier nodes' conditions state, set on its input
    ``tensors``): ``build()`` again without them and, where it gives conditions those facts
    refute, the error naming the node, the earlier nodes and the conditions of each; None
    where the node fails alone (its own error says why), or for another error."""
    if not isinstance(exc, TypeInferenceError):
        return None
    for t in tensors:
        t.facts = None
    try:
        apply = build()
    except (TypeError, ValueError, IndexError):
        return None
    finally:
        for t in tensors:
            t.facts = facts
    own = tuple(c for c in (apply.conditions if apply is not None else ()) if not
                has_choice(c))
    if not own or facts.reduce(own) is not None:
        return None
    return _refused(own, facts, label, op_type)


def settled(conditions: Sequence[Clause], facts: Facts, parent: object = None) -> None:
    """Raise TypeInferenceError where the facts of the whole graph refute one of its
    nodes' disjunctions (no fact: built under the facts of the nodes before it only),
    or those facts and the one case other disjunctions are left with, naming its node
    and the nodes whose conditions refute it; a subgraph's (``parent`` not None) may
    never run."""
    if parent is not None or not facts:
        return
    found = [c for c in conditions if type(c) is AnyOf]
    last, last_facts = _LAST[0]
    if len(found) == len(last) and all(map(is_, found, last)) and facts == last_facts:
        return  # (a model read again node by node: its slots' plans' own disjunctions,
        # the same objects as the last reading's, which refute none)
    open_ = [c for c in found if not has_choice(c)]
    if not open_:
        return
    key = (tuple(open_), facts)
    if _SETTLED.pop(key, None):  # kept with this reading's disjunctions: a replay's are
        _SETTLED[key] = True  # its plans' own objects, which the next replay's key then
        _LAST[0] = (found, facts)  # meets by identity
        return
    if len(_SETTLED) >= MAX_SETTLED:
        _SETTLED.clear()
    given = facts
    alone: list[tuple[AnyOf, tuple, Facts, Facts]] = []  # each disjunction left one case
    # (stated as facts): it, the case, the facts before and after (read when refused)
    for _ in range(MAX_PASSES):  # a disjunction the facts leave one case of states it: a
        if not open_:  # fact for the others (as a build under those facts records it)
            break
        changed, left = False, []
        named = frozenset().union(*(x.symbols() for x in facts.atoms))
        for c in open_:  # (each case judged by the prover alone: a graph's disjunctions
            # simplified again would cost a tenth of its typing)
            cases = [case for case in c.cases if not any(_refutes(facts, named, x)
                                                         for x in case)]
            if not cases:
                source = c.source
                raise _refused((c,), facts, source.node if source else "",
                               source.op if source else "", alone)
            if len(cases) == 1:
                before, changed = facts, True
                facts = facts.with_(*cases[0])
                alone.append((c, cases[0], before, facts))
                named = named.union(*(x.symbols() for x in cases[0]))
            else:
                left.append(c)
        if not changed:
            break
        open_ = left
    _SETTLED[key] = True  # (equal conditions say the same whatever their sources)
    _LAST[0] = (found, given)  # (the facts it was given, as its first test reads them)


def _refutes(facts: Facts, named: frozenset, x: Condition) -> bool:
    """Whether ``facts`` (consistent: a model's, over the sizes ``named``) refute ``x``.
    A condition over none of their sizes is refuted by them only where it holds at no
    sizes at all: the prover asked so without them (no facts: most such answers are
    found without it) says the same, at a fraction of its cost (the broadcasts of a
    model's other sizes, ``m == 1``)."""
    return (facts if named & x.symbols() else EMPTY).decide(x) is False


def _refused(own: tuple[Clause, ...], facts: Facts, label: str, op_type: str,
             alone: Sequence[tuple[AnyOf, tuple, Facts, Facts]] = ()
             ) -> TypeInferenceError:
    """The error for a node's conditions ``own`` that ``facts`` refute; a fact that is
    the one case some disjunction was left with (``alone``: :func:`settled`'s) is said as
    that disjunction and the facts that cut its other cases, each with its node."""
    needed = _explained(_needed(own, facts), alone)
    nodes = list(dict.fromkeys(_node_of(c) for c in needed if _node_of(c) != (label,
                                                                              op_type)))
    named = [f"{n!r} ({o})" if o and o != n else repr(n) for n, o in nodes if n]
    whose = f"those of node{'s' if len(named) > 1 else ''} {', '.join(named)}" if named \
        else "the model's other conditions"
    listed = "; ".join([*map(str, own), *(f"{c} (node {_node_of(c)[0]!r})" if
                                          _node_of(c)[0] else str(c) for c in needed)])
    return TypeInferenceError(f"node {label!r} ({op_type}): its conditions contradict "
                              f"{whose}, so the model is valid at no sizes: no sizes meet "
                              f"all of {listed}")


def _explained(needed: list[Condition], alone: Sequence[tuple[AnyOf, tuple, Facts, Facts]]
               ) -> list[Clause]:
    """``needed`` with each fact stated from the one case a disjunction was left with
    (``alone``: the disjunction, the case, the facts before and after it) replaced by that
    disjunction and the few facts that cut its other cases (themselves
    explained alike): the conditions of the nodes that together hold at no sizes, where
    the case alone named the disjunction's node and not the node whose fact cut it."""
    left = {x: (c, case, before) for c, case, before, after in alone
            for x in set(after.atoms).difference(before.atoms)}
    out: list[Clause] = []
    todo, seen = list(needed), set()
    while todo:
        x = todo.pop(0)
        if x in seen:
            continue
        seen.add(x)
        why = left.get(x) if type(x) is Condition else None
        if why is None:
            out.append(x)
            continue
        c, case, before = why
        others = [k for k in c.cases if k is not case]
        if c not in seen:
            seen.add(c)
            out.append(c)
        if others:  # (a disjunction of one case states it: nothing cut the others)
            cut = (AnyOf(tuple(others), c.source),) if len(others) > 1 else others[0]
            todo.extend(_needed(cut, before))
    return out


def _needed(own: tuple[Clause, ...], facts: Facts) -> list[Condition]:
    """A few of ``facts`` that still refute ``own`` (each dropped where the rest do),
    in a fixed order: those over ``own``'s sizes."""
    symbols = frozenset().union(*(c.symbols() for c in own))
    kept = sorted(facts.about(symbols), key=str)
    if len(kept) > MAX_NARROWED:
        return kept
    for c in list(kept):
        rest = [x for x in kept if x is not c]
        if EMPTY.with_(*rest).reduce(own) is None:
            kept = rest
    return kept


def _node_of(c: Clause) -> tuple[str, str]:
    source = c.source
    return (source.node, source.op) if source is not None else ("", "")

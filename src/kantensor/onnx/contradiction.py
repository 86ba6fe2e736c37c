"""A model node whose own conditions hold at no sizes together (a broadcast that needs
``n == 0`` of one axis and ``n == 1 or n == 2`` of another): the model is invalid at
every size, so the reader refuses it as it refuses a node that cannot be built at all
(a Reshape whose static target contradicts its input's static size), naming the node
and the conditions. Only what the facts prove is refused: where they do not decide, the
conditions stay the model's (its contract solves them). A subgraph's node is not refused:
its graph may never run (an If's other branch, a Loop of no iterations), and
onnxruntime runs such a model."""

from __future__ import annotations

from functools import lru_cache

import onnx

from ..syntax.errors import TypeInferenceError
from ..types.conditions import Clause, Condition, has_choice
from ..types.facts import EMPTY
from ..types.stated import rising_facts
from .protos import label as node_label

__all__ = ["consistent", "lasting"]


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

"""Iterative graph walkers (no recursion: 100,000-node chains are fine)."""

from __future__ import annotations

from collections.abc import Iterable

from .basic import Apply, Constant, Variable


def ancestors(outputs: Iterable[Variable], blockers: Iterable[Variable] = ()) -> list[Variable]:
    """Every Variable the ``outputs`` depend on (outputs included), depth-first.

    The walk stops at ``blockers``. Each variable appears once.
    """
    blocked = set(map(id, blockers))
    seen: set[int] = set()
    order: list[Variable] = []
    stack = list(reversed(list(outputs)))
    pop, push, mark, append = stack.pop, stack.extend, seen.add, order.append
    while stack:
        var = pop()
        key = id(var)
        if key in seen:
            continue
        mark(key)
        append(var)
        owner = var.owner
        if owner is not None and key not in blocked:
            push(reversed(owner.inputs))
    return order


def graph_inputs(outputs: Iterable[Variable], blockers: Iterable[Variable] = ()) -> list[Variable]:
    """The ownerless Variables (inputs and constants) among the ancestors."""
    blocked = set(map(id, blockers))
    return [v for v in ancestors(outputs, blockers) if v.owner is None or id(v) in blocked]


def toposort(outputs: Iterable[Variable], inputs: Iterable[Variable] = ()) -> list[Apply]:
    """The Apply nodes between ``inputs`` and ``outputs``, each after its inputs' owners."""
    stop = set(map(id, inputs))
    done: set[int] = set()
    order: list[Apply] = []
    # Stack of (node, expanded?) pairs: a node is emitted when popped the second time.
    stack: list[tuple[Apply, bool]] = [
        (o.owner, False) for o in reversed(list(outputs))
        if o.owner is not None and id(o) not in stop
    ]
    pop, push = stack.pop, stack.append
    while stack:
        node, expanded = pop()
        key = id(node)
        if key in done:
            continue
        if expanded:
            done.add(key)
            order.append(node)
            continue
        push((node, True))
        for inp in reversed(node.inputs):
            owner = inp.owner
            if owner is not None and id(owner) not in done and (
                    not stop or id(inp) not in stop):
                push((owner, False))
    return order


def ancestors_and_nodes(outputs: Iterable[Variable]) -> tuple[list[Variable], list[Apply]]:
    """``(ancestors(outputs), toposort(outputs))`` in one walk (each Variable and node
    visited once, where the two walks visit every node's inputs twice over): both lists
    in exactly their orders, one depth-first walk over the inputs in order giving the
    Variables as they are first reached and the nodes once all their inputs' nodes are."""
    seen: set[Variable] = set()  # (Variables and nodes hash by object)
    started: set[Apply] = set()
    variables: list[Variable] = []
    nodes: list[Apply] = []
    stack: list = list(reversed(list(outputs)))
    pop, push, extend = stack.pop, stack.append, stack.extend
    mark, start = seen.add, started.add
    append, emit = variables.append, nodes.append
    while stack:
        item = pop()
        if isinstance(item, Apply):  # (pushed below its inputs) every input is walked
            emit(item)
            continue
        if item in seen:
            continue
        mark(item)
        append(item)
        owner = item.owner
        if owner is not None and owner not in started:
            start(owner)
            push(owner)
            extend(reversed(owner.inputs))
    return variables, nodes


def clone(inputs: Iterable[Variable], outputs: Iterable[Variable],
          copy_inputs: bool = True, memo: dict | None = None
          ) -> tuple[list[Variable], list[Variable]]:
    """Copy the graph between ``inputs`` and ``outputs``; return the new (inputs, outputs).

    Constants are shared, not copied. ``memo`` maps old Variables to new ones
    and is filled in place.
    """
    inputs, outputs = list(inputs), list(outputs)
    memo = {} if memo is None else memo
    for v in inputs:
        memo.setdefault(v, v.clone() if copy_inputs else v)
    for node in toposort(outputs, inputs):
        for v in node.inputs:
            if v not in memo:
                memo[v] = v if isinstance(v, Constant) else (v.clone() if copy_inputs else v)
        new_node = node.clone_with_new_inputs([memo[v] for v in node.inputs])
        for old, new in zip(node.outputs, new_node.outputs, strict=True):
            memo[old] = new
    for v in outputs:
        if v not in memo:  # an input or ownerless variable also used as output
            memo[v] = v if isinstance(v, Constant) else (v.clone() if copy_inputs else v)
    return [memo[v] for v in inputs], [memo[v] for v in outputs]


"""The three front ends of one relation asked alike (DESIGN: one relation behind every
front end): whether ``make_node``, ``kt.query`` and the relation in ``kanren.run``
accept an Op's inputs (:func:`front_ends`), and whether some size gives a value
(:func:`somewhere`, Python's arithmetic the judge). Used by the tests of where-clauses
that hold at no size (tests/test_size_nowhere_*.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kanren import run
from unification import var

import kantensor as kt
from kantensor.query import UndecidedAnswer
from kantensor.types.dim import Dim


def front_ends(signature: str, k: int) -> tuple[bool, bool, bool | None]:
    """``(made, queried, related)``: whether make_node, query and the relation accept
    the Op of ``signature`` (two inputs, one axis each) on a first input of the named
    size ``a`` and a second of size ``k``; ``related`` is None where ``run`` raises
    :class:`~kantensor.query.UndecidedAnswer` (an answer under a condition it cannot
    show nor decide: neither an answer nor a refusal)."""
    op = kt.op(signature, name="nowhere")(lambda x, y: x)
    a = kt.TensorType("float32", (Dim("a"),))
    second = kt.TensorType("float32", (k,))
    try:
        op.make_node(a("x"), second("y"))
        made = True
    except kt.TypeInferenceError:
        made = False
    out = var()
    queried = bool(list(kt.query(op, [a, second], [out])))
    try:
        related: bool | None = bool(run(0, out, kt.relation(op)(a, second, out)))
    except UndecidedAnswer:
        related = None
    return made, queried, related


def somewhere(holds: Callable[[int], object], sizes: Iterable[int]) -> bool:
    """Whether ``holds(n)`` is true at some size ``n`` of ``sizes`` where it has a value
    (Python's ``ZeroDivisionError``: none there)."""
    for n in sizes:
        try:
            if holds(n):
                return True
        except ZeroDivisionError:
            pass
    return False

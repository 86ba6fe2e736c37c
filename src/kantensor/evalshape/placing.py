"""Which earlier line put a conflict's axes where they meet: the line to name first.

An Op that needs a condition of its operands' sizes (``x - mean`` needs ``T == B``: the
axes it aligns hold different sizes) is only where the sizes met. When an operand's axes
were put in their places by an earlier line of the user's code (a reduction without
``keepdims``, a transpose, a reshape, an index: an Op that removed, moved, merged or made
axes), that line is the one to read first if *with that Op's input in the operand's
place the Op needs nothing*: the operand's axes as they were before that line fit, so
what changed them is where the sizes went wrong (``mean = np.mean(x, axis=-1)`` for
``x - mean``). Where no such line exists (operands given as they are, or one whose
earlier axes do not fit either: a swapped operand), the Op's own line stays first.

An axis is followed back (:func:`origin`) through the Ops that pass it on: those with an
input holding the same size at the same place counted from the right (elementwise Ops,
broadcasting, reductions with ``keepdims``, a product's batch and outer axes). The first
Op without one placed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..graph.basic import Apply, Variable
from ..ops.op import SignatureOp
from ..ops.sizes import SizeOp
from ..types.conditions import AnyOf, Clause
from ..types.dim import Dim
from ..types.symbols import free_symbols
from ..types.type import TensorType
from .sameaxes import built


class Placed(NamedTuple):
    """The node whose line placed the axes of operand ``operand`` of the needing Op, and
    that node's input which, in the operand's place, the Op accepts at every size."""

    node: Apply
    operand: int
    before: Variable


def placed(clause: Clause, node: Apply, sites: Mapping[Apply, Any]) -> Placed | None:
    """The latest node at another user line than ``node``'s that placed an axis of an
    operand of ``node`` holding a size ``clause`` compares, and with whose input in that
    operand's place ``node``'s Op needs nothing (see the module); None if there is none."""
    here = sites.get(node)
    if here is None or not isinstance(node.op, SignatureOp):
        return None
    found: dict[tuple[Apply, int], None] = {}
    for size in compared(clause):
        for i, v in enumerate(node.inputs):
            shape = _shape(v)
            for a, d in enumerate(shape):
                if isinstance(d, Dim) and same(d, size):
                    at = origin(v, len(shape) - a)
                    if at is not None and sites.get(at) is not None \
                            and sites[at].lineno != here.lineno:
                        found[at, i] = None
    order = {n: k for k, n in enumerate(sites)}
    for at, i in sorted(found, key=lambda p: -order.get(p[0], -1)):
        before = _fits_before(node, i, at)
        if before is not None:
            return Placed(at, i, before)
    return None


def origin(v: Variable, right: int) -> Apply | None:
    """The node that put the size at place ``right`` (counted from the right, 1 the last
    axis) of ``v`` there; None if it is an input's (or a size's) as given."""
    while True:
        node = v.owner
        if node is None or isinstance(node.op, SizeOp):
            return None
        size = v.type.shape[len(v.type.shape) - right]
        nearer = [u for u in node.inputs if isinstance(u, Variable)
                  and len(_shape(u)) >= right and _equal(_shape(u)[-right], size)]
        if not nearer:
            return node
        v = nearer[0]


def _fits_before(node: Apply, i: int, at: Apply) -> Variable | None:
    """``at``'s first tensor input if, in place of operand ``i``, ``node``'s Op accepts
    it with the other operands at every size (no condition) and gives outputs of the
    ranks it gives (the code after it reads the same axes); else None."""
    ranks = [len(_shape(o)) for o in node.outputs]
    return _accepted_before(node.op, list(node.inputs), i, at, ranks)


def _accepted_before(op: SignatureOp, inputs: list[Variable], i: int, at: Apply,
                     ranks: list[int] | None) -> Variable | None:
    """``at``'s first tensor input if ``op`` accepts it in place of operand ``i`` of
    ``inputs`` at every size, with outputs of ``ranks``; else None."""
    before = next((u for u in at.inputs if isinstance(u, Variable) and _shape(u)
                   and (u.owner is None or not isinstance(u.owner.op, SizeOp))), None)
    if before is None or ranks is None:
        return None
    types = tuple(before.type if k == i else x.type for k, x in enumerate(inputs))
    got = built(op, types, inputs)
    if got is None or got.conditions or [
            len(getattr(t, "shape", ()) or ()) for t in got.types] != ranks:
        return None
    return before


def placed_refused(op: Any, inputs: list[Variable], sites: Mapping[Apply, Any],
                   lineno: int) -> Placed | None:
    """For a build of ``op`` refused on ``inputs`` at line ``lineno`` (at concrete
    sizes, where no named size says which axes conflict): the latest node at another
    user line that placed an axis of an operand, with whose input in that operand's
    place ``op`` builds at every size, with the output ranks the operands' ranks give
    (``x - mean`` after ``mean = np.mean(x, axis=-1)``: the mean's line); None if
    there is none."""
    if not isinstance(op, SignatureOp) or not isinstance(inputs, list):
        return None
    blank = tuple(TensorType(x.type.dtype, (None,) * len(_shape(x))) if _shape(x)
                  else x.type for x in inputs)  # the ranks the operands' ranks give
    got = built(op, blank, inputs)
    ranks = None if got is None else [len(getattr(t, "shape", ()) or ()) for t in got.types]
    found: dict[tuple[Apply, int], None] = {}
    for i, v in enumerate(inputs):
        shape = _shape(v)
        for a in range(len(shape)):
            at = origin(v, len(shape) - a)
            if at is not None and sites.get(at) is not None and sites[at].lineno != lineno:
                found[at, i] = None
    order = {n: k for k, n in enumerate(sites)}
    for at, i in sorted(found, key=lambda p: -order.get(p[0], -1)):
        before = _accepted_before(op, inputs, i, at, ranks)
        if before is not None:
            return Placed(at, i, before)
    return None


def compared(clause: Clause) -> list[Dim]:
    """The sizes a clause compares: each side, and each named size in it."""
    conditions = [c for case in clause.cases for c in case] if isinstance(clause, AnyOf) \
        else [clause]
    wanted: dict[Any, None] = {}
    for c in conditions:
        for side in (c.left, c.right):
            if isinstance(side, Dim):
                wanted[side] = None
                wanted.update((Dim(s), None) for s in free_symbols(side) if isinstance(s, str))
    return list(wanted)


def same(a: Dim, b: Dim) -> bool:
    """The same size expression (structurally: no traced program's answer is asked)."""
    return a is b or (hash(a) == hash(b) and str(a) == str(b))


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, Dim) or isinstance(b, Dim):
        return isinstance(a, Dim) and isinstance(b, Dim) and same(a, b)
    return a is not None and a == b


def _shape(v: Any) -> tuple:
    return getattr(getattr(v, "type", None), "shape", None) or ()

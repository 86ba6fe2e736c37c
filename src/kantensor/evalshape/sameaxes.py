"""Unknown sizes that a node's relation makes equal: one name for one size.

A size the data decide (the count of ``x[x > 0]``, of ``np.nonzero(x)``) is ``?`` in the
types, and a node's condition names an operand's ``?`` axis by that operand
(:class:`~kantensor.ops.located.VariableAxis`). So ``rows, cols = np.nonzero(x)`` then
``rows + cols`` needed ``rows.shape[0] == cols.shape[0]``, which no input's size
decides, although both are the one count: each ``getitem`` passes its input's axis on.

:func:`same_axes` finds, for each node in the order built, which ``?`` axis of an
output is an input's ``?`` axis: the node's Op built again on its operands' types with
each ``?`` a fresh size of its own (a probe), with no fact given; where that build gives
that output axis a size of the probes and the named sizes only (no size the node makes:
a mask's count), the relation makes it that size at every size where the node holds
(what it needs of the sizes is the node's own condition, an assumption of the code
beside every one named this way). The output axis is then named by that input axis's name
(itself followed back the same way; operand axes of one name share one probe, so
``a != b`` of two such axes is that name again), and :func:`renamed` says the code's conditions with
those names, so that ``count == count`` is no assumption. Nothing here types a node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..graph.basic import Apply, Variable
from ..ops.located import NodeSize, VariableAxis
from ..ops.op import SignatureOp
from ..signature.forward import build
from ..syntax.errors import TypeInferenceError
from ..types.conditions import Clause
from ..types.dim import Dim, unknown
from ..types.facts import EMPTY
from ..types.symbols import data_size, free_symbols, substitute
from ..types.tidysize import tidy_size
from ..types.type import TensorType


def built(op: SignatureOp, types: tuple, inputs: list[Variable]) -> Any:
    """``op``'s build on ``types`` (the wrapped flags of ``inputs``) with no fact given;
    None where it refuses them."""
    try:
        signature, named = op.signature_for(types)
        return build(signature, types, tuple(x.wrapped for x in inputs), name=named,
                     facts=EMPTY)
    except (TypeInferenceError, ValueError, TypeError):
        return None


def same_axes(nodes: Iterable[Apply],
              known: Mapping[VariableAxis | NodeSize, Dim] | None = None
              ) -> dict[VariableAxis | NodeSize, Dim]:
    """Each ``?`` output axis of ``nodes`` (in the order built) that its node's relation
    makes a size of its inputs' ``?`` axes (and named sizes), with the Dim that says it
    over the names of those axes (or what they were found equal to before): see the
    module. ``known``: axes named already (the counts of one mask, :mod:`.counts`)."""
    names: dict[VariableAxis | NodeSize, Dim] = dict(known or {})
    for node in nodes:
        if not isinstance(node.op, SignatureOp) or not any(
                None in _shape(o) for o in node.outputs):
            continue
        probes: dict[Dim, Dim] = {}  # the probe of each name of an operand's ``?`` axis
        types = []
        for v in node.inputs:
            t = v.type
            if not isinstance(t, TensorType) or t.shape is None or None not in t.shape:
                types.append(t)
                continue
            shape = []
            for axis, d in enumerate(t.shape):
                if d is None:
                    key = VariableAxis(v, axis)
                    name = names.get(key, unknown(key))
                    if name not in probes:
                        probes[name] = data_size(f"probe{len(probes)}",
                                                 "an unknown axis of an operand")
                    d = probes[name]
                shape.append(d)
            types.append(TensorType(t.dtype, tuple(shape)))
        if not probes:
            continue
        got = built(node.op, tuple(types), list(node.inputs))
        if got is None:
            continue
        back = {next(iter(free_symbols(probe))): name for name, probe in probes.items()}
        for out, t in zip(node.outputs, got.types, strict=False):
            for axis, d in enumerate(_shape(out)):
                found = _shape(t)[axis] if axis < len(_shape(t)) else None
                if d is None and isinstance(found, Dim) and all(
                        isinstance(x, str) for x in free_symbols(found)):
                    names[VariableAxis(out, axis)] = substitute(tidy_size(found), back)
    return names


def renamed(clauses: Iterable[Clause], names: Mapping[VariableAxis | NodeSize, Dim]
            ) -> list[Clause]:
    """``clauses`` with each ``?`` axis :func:`same_axes` found named as its equal (and
    each mask's count a node makes, as :func:`~kantensor.evalshape.counts.same_counts`
    names it)."""
    if not names:
        return list(clauses)
    out: list[Clause] = []
    for c in clauses:
        keys = {k: names[k] for k in c.symbols() if isinstance(k, VariableAxis | NodeSize)
                and k in names}
        out.append(c.substitute(keys) if keys else c)
    return out


def _shape(v: Any) -> tuple:
    return getattr(getattr(v, "type", v), "shape", None) or ()

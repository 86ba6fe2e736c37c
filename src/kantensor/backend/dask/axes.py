"""The axes of a node as the Dask lowering sees them: one label per axis of every operand.

The labels come from the alternative of the node's signature that types its inputs (the
first that accepts them, as ``make_node`` picks it) with its flexible dims resolved by
the inputs' ranks. Two axes with one label are one axis of the computation:

* a loop dim or an axis of a group (``...``, ``*name``, ``.k.``) is labelled by its group
  and its position, right-aligned as NumPy broadcasts;
* a dim written as a bare name (``n``) is labelled by the name;
* any other dim (a fixed size, an expression such as ``c0+c1``) has a label of its own.

A label is *whole* when the Op, computed by its signature alone, needs every element
along it in one call: a core dim of an alternative with loop dims (a gufunc's core); an
axis a parameter names (``axis``, ``axes``, ``axis1``, ``axis2``: what sort or median
work along) unless the Op's declared kind says its parameters only place axes
(``arranging``: a transpose, a new or dropped axis); a label repeated within one
operand (a diagonal). A label of inputs only is contracted, and a label of outputs only
is new. Which of Dask's algorithms lifts those needs is the Op's declared kind's business
(:mod:`.algorithms`), never its name. This module needs no Dask.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...signature.flex import flexible
from ...signature.forward import infer
from ...signature.signature import Signature
from ...syntax.alternative import Alternative
from ...syntax.ast import AnonGroup, AnyGroup, Broadcasts, DimVar, NamedGroup
from ...syntax.errors import TypeInferenceError
from ...types.type import TensorType

__all__ = ["NodeAxes", "node_axes"]

#: Parameters naming the axes an Op works along.
AXIS_PARAMS = ("axis", "axes", "axis1", "axis2")

Label = Hashable


@dataclass(frozen=True)
class NodeAxes:
    """The labels of every axis of a node's operands, and which labels are whole."""

    inputs: tuple[tuple[Label, ...], ...]
    outputs: tuple[tuple[Label, ...], ...]
    whole: frozenset
    alternative: Alternative

    @property
    def contracted(self) -> frozenset:
        """Labels of inputs only."""
        out = {x for o in self.outputs for x in o}
        return frozenset(x for i in self.inputs for x in i if x not in out)

    @property
    def new(self) -> frozenset:
        """Labels of outputs only."""
        ins = {x for i in self.inputs for x in i}
        return frozenset(x for o in self.outputs for x in o if x not in ins)

    @property
    def shared(self) -> frozenset:
        """Labels of inputs and outputs that are not whole: split across chunks."""
        ins = {x for i in self.inputs for x in i}
        return frozenset(x for o in self.outputs for x in o
                         if x in ins and x not in self.whole)


def matching_alternative(signature: Signature, types: tuple[TensorType, ...],
                         wrapped: tuple[bool, ...]) -> Alternative:
    """The alternative of ``signature`` that types inputs of ``types`` (the first that
    accepts them), with its flexible dims resolved by the inputs' ranks."""
    for alt in signature.alternatives:
        if len(alt.inputs) != len(types):
            continue
        try:
            infer(_single(alt), types, wrapped)
        except TypeInferenceError:
            continue
        flex = flexible(alt)
        if flex is not None:
            presence = flex.presence({i: t.ndim for i, t in enumerate(types)})
            alt = flex.variant(presence) if presence is not None else alt
        return alt
    raise TypeInferenceError(f"no alternative of {signature} types {types}")


@lru_cache(maxsize=4096)
def _single(alt: Alternative) -> Signature:
    return Signature(alternatives=(alt,))


def node_axes(op: Any, signature: Signature, types: tuple[TensorType, ...],
              wrapped: tuple[bool, ...], out_ranks: Sequence[int],
              arranging: bool = False) -> NodeAxes:
    """The labels of a node of ``op`` whose inputs have ``types`` (see the module doc);
    ``arranging``: the Op's axis parameters only place axes."""
    alt = matching_alternative(signature, types, wrapped)
    ins, outs = _labels(alt, [t.ndim for t in types], list(out_ranks))
    one = _broadcast_labels(alt)
    if one:
        ins = [tuple(one.get(x, x) for x in row) for row in ins]
        outs = [tuple(one.get(x, x) for x in row) for row in outs]
    whole: set = set()
    if alt.loop is not None:
        whole |= {x for row in (*ins, *outs) for x in row if x[0] == "dim"}
    params = dict(getattr(op, "params", ()))
    if not arranging and ins:
        for key in AXIS_PARAMS:
            if key not in params:
                continue
            value = params[key]
            if value is None:
                whole |= {x for row in ins for x in row}
                continue
            for a in value if isinstance(value, tuple | list) else (value,):
                if isinstance(a, int) and -len(ins[0]) <= a < len(ins[0]):
                    whole.add(ins[0][a])
    for row in (*ins, *outs):
        whole |= {x for x in row if row.count(x) > 1}
    return NodeAxes(tuple(ins), tuple(outs), frozenset(whole), alt)


def _broadcast_labels(alt: Alternative) -> dict[Label, Label]:
    """Labels that ``broadcast(a, b) == c`` clauses make one axis: each of ``a``, ``b``
    is ``c`` or 1 (einsum's index repeated across operands), so ``a`` and ``b`` are
    labelled ``c``."""
    out: dict[Label, Label] = {}
    for clause in alt.where:
        if isinstance(clause, Broadcasts) and isinstance(clause.result, DimVar):
            for arg in clause.args:
                if isinstance(arg, DimVar):
                    out[("dim", arg.name)] = ("dim", clause.result.name)
    return out


def _labels(alt: Alternative, in_ranks: list[int], out_ranks: list[int]
            ) -> tuple[list[tuple], list[tuple]]:
    """Per operand, the label of each axis (inputs first, then outputs)."""
    operands = list(alt.inputs) + list(alt.outputs)
    ranks = in_ranks + out_ranks
    implicit = alt.loop is not None and not any(
        isinstance(d, AnyGroup | NamedGroup) for op in operands for d in op.dims)
    rows: list[list[tuple[str, Any]]] = []  # per operand: ("axis", dim) | ("group", key)
    for op in operands:
        row: list[tuple[str, Any]] = [("group", "loop")] if implicit else []
        anon = 0
        for d in op.dims:
            if isinstance(d, AnyGroup):
                row.append(("group", "..."))
            elif isinstance(d, NamedGroup):
                row.append(("group", ("*", d.name)))
            elif isinstance(d, AnonGroup):
                row.extend(("axis", ("anon", anon, t)) for t in range(d.k))
                anon += 1
            else:
                row.append(("axis", d))
        rows.append(row)
    # the length of every group occurrence, and of each group (its longest occurrence)
    lengths: list[dict[Any, int]] = []
    longest: dict[Any, int] = {}
    for row, rank in zip(rows, ranks, strict=True):
        groups = [key for kind, key in row if kind == "group"]
        fixed = len(row) - len(groups)
        n = max(rank - fixed, 0)
        lengths.append({g: n for g in groups})  # an operand has at most one such group
        for g in groups:
            longest[g] = max(longest.get(g, 0), n)
    n_in = len(alt.inputs)
    out: list[tuple] = []
    for k, (row, lens) in enumerate(zip(rows, lengths, strict=True)):
        labels: list[Label] = []
        for axis_kind, key in row:
            if axis_kind == "group":
                n, top = lens[key], longest[key]
                labels.extend(("group", key, top - n + p) for p in range(n))
            elif isinstance(key, tuple):  # an axis of a .k. group
                labels.append(key)
            elif isinstance(key, DimVar):
                labels.append(("dim", key.name))
            else:
                where = ("in", k) if k < n_in else ("out", k - n_in)
                labels.append(("own", *where, len(labels)))
        out.append(tuple(labels))
    return out[:n_in], out[n_in:]

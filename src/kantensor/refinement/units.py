"""The units of refinement: what each relation of a graph constrains.

A unit is a node of the graph (its Op's signature: the relation ``make_node`` runs), a
SpecifyShape (its input and output are one type) or a type the user requires
(``given``), over its operands: the Variables whose sizes the graph refines, or the
sizes a given type fixes. :mod:`.relations` runs a unit's relation on the sizes known
now; :mod:`.solve` runs them all to a fixpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

from ..graph.basic import Apply, Constant, Variable
from ..graph.display import value_text
from ..ops.op import SignatureOp, built_rules
from ..ops.sizes import SizeOp, axis_length, entries, given_axis, map_entries, symbol_of
from ..signature.signature import Signature
from ..types.basic_ops import SpecifyShape
from ..types.dim import Dim, unknown
from ..types.symbols import substitute

__all__ = ["UNIFY", "Operand", "Spelled", "Unify", "Unit", "describe", "node_relation", "node_unit",
           "node_units"]


class Unify(Enum):
    """The relation of a SpecifyShape and of a given type: both operands are one type (a
    sentinel, compared by identity)."""

    UNIFY = "unify"


UNIFY = Unify.UNIFY


class Operand(NamedTuple):
    """What a unit constrains: a Variable (whose sizes the graph refines) or, for a
    given type, the fixed sizes the user wrote (``variable`` None). ``fixed`` is None
    where the sizes are read from the graph's :class:`~.sizes.Sizes`; a scalar
    Variable's are ``()`` (they never change, and Sizes does not file scalars)."""

    variable: Variable | None
    dtype: str
    wrapped: bool
    fixed: tuple | None = None


@dataclass(eq=False, slots=True)
class Unit:
    """A node, a SpecifyShape or a given type: a relation over operands
    (:attr:`operands`), kept as three tuples, the last two shared by the units of one
    Op on operands of the same types (a graph's units are made without an Operand each:
    :func:`node_units`)."""

    relation: Signature | Unify
    #: each operand's Variable (None: the sizes a given type fixes)
    variables: tuple[Variable | None, ...]
    #: each operand's dtype and wrapped flag
    kinds: tuple[tuple[str, bool], ...]
    #: each operand's sizes where they are fixed (a given type's, a scalar's ``()``),
    #: else None (read from the graph's Sizes)
    fixed: tuple[tuple | None, ...]
    n_inputs: int
    node: Apply | None
    given: str = ""  # how a given type is named in messages
    #: the runs of the units of one Op on operands of the same types and wrapped flags
    #: (:func:`.relations.run_sizes`; shared by those units, None for a given type)
    memo: dict | None = None
    #: the last flow of given types that ran it (:func:`.solve._fixpoint`'s token)
    mark: object = None
    #: the rules its node was built under (:func:`~kantensor.ops.op.built_rules`:
    #: ``"numpy"`` for eval_shape's nodes, or a default dtype), run under them as
    #: make_node ran it; None: the caller's (a given type)
    rules: str | None = None

    @classmethod
    def of(cls, relation: Signature | Unify, operands: Sequence[Operand], n_inputs: int,
           node: Apply | None, given: str = "") -> Unit:
        """The unit of ``relation`` over ``operands``."""
        return cls(relation, tuple(op.variable for op in operands),
                   tuple((op.dtype, op.wrapped) for op in operands),
                   tuple(op.fixed for op in operands), n_inputs, node, given,
                   rules=None if node is None else built_rules(node))

    @property
    def operands(self) -> tuple[Operand, ...]:
        """Each operand: its Variable, dtype, wrapped flag and fixed sizes."""
        return tuple(Operand(v, dtype, wrapped, fixed) for v, (dtype, wrapped), fixed in
                     zip(self.variables, self.kinds, self.fixed, strict=True))

    @property
    def label(self) -> str:
        """How messages name the unit: ``y = matmul(x, W)``, or the given type; a node
        read from a model says its name there (``node.tag["name"]``): ``y = MatMul(x, W)
        (node 'proj')``."""
        node = self.node
        if node is None:
            return self.given
        named = node.tag.get("name")
        suffix = f" (node {named!r})" if named else ""
        if len(node.outputs) == 1 and node.outputs[0].name is None:
            return describe(node.outputs[0]) + suffix
        name = getattr(node.op, "name", None) or str(node.op)
        return f"{', '.join(describe(o) for o in node.outputs)} = " \
               f"{name}({', '.join(describe(v) for v in node.inputs)}){suffix}"


def node_relation(node: Apply) -> Signature | Unify | None:
    """The relation ``make_node`` ran for ``node`` (None for an Op without one)."""
    op = node.op
    if isinstance(op, SpecifyShape):
        return UNIFY
    if isinstance(op, SignatureOp):
        return op.signature_for(tuple(v.type for v in node.inputs))[0]
    return None


def node_unit(node: Apply, relation: Signature | Unify) -> Unit:
    """The unit of a node: its relation over its inputs and outputs (an output stated
    as the relation makes it: not wrapped, see :func:`kinds`)."""
    return Unit.of(relation, [Operand(v, dtype, wrapped) for v, (dtype, wrapped) in
                              zip((*node.inputs, *node.outputs), kinds(node), strict=True)],
                   len(node.inputs), node)


def kinds(node: Apply) -> tuple[tuple[str, bool], ...]:
    """Each operand's dtype and wrapped flag as ``node``'s relation states them: an
    input's own, an output never wrapped, as every relation makes its outputs and as
    ``make_node`` ran it. (A size used as a number, ``size_number``'s output, is a
    wrapped Python int where it is used, an input; as the output of its node it is the
    0-d int64 its relation gives.)"""
    return (*((v.type.dtype, v.wrapped) for v in node.inputs),
            *((v.type.dtype, False) for v in node.outputs))


def node_units(nodes: Sequence[Apply], touching: dict[Variable, list[Unit]]) -> list[Unit]:
    """The units of the nodes that have a relation (:func:`node_unit`, but a scalar's
    sizes fixed at ``()``: nothing to file), each added to ``touching`` under its
    Variables that have a size other than an int (no binding changes the others). What
    a unit's operand types decide is worked out once per Op and operand types and
    wrapped flags (types are interned): the relation, the operands' kinds and fixed
    sizes, which of them are filed, and one memo of runs
    (:func:`.relations.run_sizes`) their units share; per node, nothing more than its
    Variables and its unit (a whole graph's units at once)."""
    shared: dict = {}
    units: list[Unit] = []
    for node in nodes:
        inputs, outputs = node.inputs, node.outputs
        tagged = node.rules  # (eval_shape's nodes: "numpy")
        if len(inputs) == 2 and len(outputs) == 1:  # (the usual case: no comprehension)
            a, b = inputs
            o = outputs[0]
            variables = (a, b, o)
            key = (id(node.op), a.type, a.wrapped, b.type, b.wrapped, o.type, o.wrapped,
                   tagged)
        else:
            variables = (*inputs, *outputs)
            key = (id(node.op), len(inputs), tagged,
                   *[(v.type, v.wrapped) for v in variables])
        alike = shared.get(key)
        if alike is None:
            alike = shared[key] = _alike(node, variables)
        relation, kinds, fixed, filed, memo, rules = alike
        if relation is None:
            continue
        unit = Unit(relation, variables, kinds, fixed, len(inputs), node, "", memo, None,
                    rules)
        units.append(unit)
        for i in filed:
            v = variables[i]
            users = touching.get(v)
            if users is None:
                touching[v] = [unit]
            else:
                users.append(unit)
    return units


def _alike(node: Apply, variables: tuple[Variable, ...]) -> tuple:
    """What :func:`node_units` shares among the units of nodes like ``node``: its
    relation (None: no unit), the operands' kinds and fixed sizes, the positions of
    those filed, a memo of runs, and the rules the node was built under (its tag, else
    what its wrapped numbers say: both in the key of :func:`node_units`)."""
    relation = node_relation(node)
    if relation is None:
        return None, None, None, None, None, None
    shapes = [v.type.shape for v in variables]
    return (relation, kinds(node),
            tuple(() if shape == () else None for shape in shapes),
            tuple(i for i, shape in enumerate(shapes) if any(type(d) is not int for d in shape)),
            {}, built_rules(node))


def is_size_carrier(variable: Variable) -> bool:
    """Whether ``variable`` only carries a size into a size parameter (``size{n}``, or
    ``x.shape[i]`` as ``shape_of``): no value of the user's program."""
    node = variable.owner
    return node is not None and (isinstance(node.op, SizeOp)
                                 or getattr(node.op, "impl", None) is axis_length)


def describe(variable: Variable, depth: int = 2) -> str:
    """How messages name a Variable: its name, a constant's value, or the expression
    that computes it (cut at ``depth`` calls); the input that carries an axis of ``x``
    into a size parameter reads as the user wrote it, ``x.shape[0]``, and a call whose
    sizes are parameters shows them (``zeros(shape=(2*x.shape[0], 3))``, not the
    inputs that carry them)."""
    if variable.name is not None:
        return variable.name
    if isinstance(variable, Constant):
        data = getattr(variable, "data", None)
        if data is not None and getattr(data, "ndim", 1) == 0:
            return repr(data.item())
        return f"<{variable.type}>"
    if variable.owner is None:
        return f"<{variable.type}>"
    node = variable.owner
    if getattr(node.op, "impl", None) is axis_length:  # x.shape[i] carried as an input
        return f"{_axis_text(variable, depth)}"
    if isinstance(node.op, SizeOp):  # a named size carried as an input: B, 2*n
        return str(node.op.size)
    name = getattr(node.op, "name", None) or str(node.op)
    if depth <= 0:
        return f"{name}(…)"
    args = [describe(v, depth - 1) for v in node.inputs if not is_size_carrier(v)]
    if len(args) < len(node.inputs) or not node.inputs:
        args += _size_params(node, depth)
    out = f"{name}({', '.join(args)})"
    return out if len(node.outputs) == 1 else f"{out}[{variable.index}]"


def _axis_text(carrier: Variable, depth: int) -> str:
    """``x.shape[i]``: how the user wrote the size a ``shape_of`` input carries."""
    node = carrier.owner
    return f"{describe(node.inputs[0], depth)}.shape[{dict(node.op.params)['axis']}]"


class Spelled:
    """The key of a Dim that prints as a text: an axis size as the user wrote it
    (``x.shape[0]``), in place of the placeholder a call's parameters hold."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def _size_params(node: Apply, depth: int) -> list[str]:
    """``name=value`` for each parameter of ``node``'s Op that holds sizes (as the user
    wrote them), the k-th ``x.shape[i]`` it holds (kept as a placeholder, see
    :func:`~kantensor.ops.sizes.untie`) written over the k-th ``shape_of`` input."""
    written = node.op.written()[1] if hasattr(node.op, "written") else \
        getattr(node.op, "params", ())
    axes = [v for v in node.inputs
            if v.owner is not None and getattr(v.owner.op, "impl", None) is axis_length]
    mapping = {symbol_of(given_axis(k)): unknown(Spelled(_axis_text(v, depth - 1)))
               for k, v in enumerate(axes)}

    def said(entry: Any) -> Any:
        return substitute(entry, mapping) if mapping and isinstance(entry, Dim) else entry

    return [f"{key}={value_text(map_entries(value, said))}" for key, value in written
            if any(isinstance(e, int | Dim) and not isinstance(e, bool)
                   for e in entries(value))]

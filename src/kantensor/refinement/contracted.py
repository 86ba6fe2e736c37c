"""Refinement under the graph's contract: sizes given by name, and what the nodes'
conditions leave of the others.

``refine(outputs, given={"H": 224})`` gives a named size a value: each Variable with an
axis of that size, or of an expression of it (``2*H``), is given it (a given type, as a
Variable key would), and the size itself is bound (:mod:`.solve`). After the
relations' fixpoint, the graph's contract (:func:`kantensor.contract`: every node's
conditions, which its relation could not decide when it was built) is fixed at the sizes
the refinement knows; no sizes left is a :class:`RefinementError` naming the atom that
empties it and its node, a size left with one value is bound (and the fixpoint runs
again), and :meth:`Refinement.sets` says what is left of each other size.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

from ..graph.basic import Apply, Constant, Variable
from ..graph.walk import graph_inputs, toposort
from ..ops.located import VariableAxis
from ..ops.op import SignatureOp
from ..ops.pyints import wrapped_key
from ..types.conditions import Condition
from ..types.contracts import Atom, Contract
from ..types.contracts.words import factored
from ..types.dim import Dim, DimLike, unknown
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType
from .explain import Conflict, RefinementError
from .sizes import Hole, Sizes, has_hole

__all__ = ["Walked", "by_name", "graph_sizes", "narrowed", "sized_types"]


def by_name(given: Mapping | None) -> tuple[dict | None, dict[str, int]]:
    """``given`` split into its Variable keys and its size names (with int values)."""
    if given is None:
        return None, {}
    if not isinstance(given, Mapping):
        raise TypeError(f"refine: given must map Variables to types or size names to ints, "
                        f"got {type(given).__name__}")
    variables, names = {}, {}
    for k, v in given.items():
        if isinstance(k, str):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"refine: the size {k} must be given an int >= 0, got {v!r}")
            names[k] = v
        else:
            variables[k] = v
    return variables, names


def sized_types(names: Mapping[str, int], sizes: Sizes, strict: bool = True
                ) -> list[tuple[Variable, TensorType]]:
    """Given types for the Variables with an axis that is one of the named sizes or an
    expression of them (``2*n``, ``n*m``): that axis at its value (the expression with
    the given names substituted; unknown where that is no size, negative or a division
    by zero, which the nodes' relations then explain), the others as they are
    (``strict``: ValueError for a name that no axis's size mentions)."""
    if not names:
        return []
    found: dict[Variable, list] = {}
    seen: set[str] = set()
    for v, entries in sizes.entries.items():
        for axis, e in enumerate(entries):
            if isinstance(e, Dim) and not isinstance(e, Hole):
                named = {s for s in free_symbols(e) if isinstance(s, str)} & names.keys()
                if not named:
                    continue
                shape = found.setdefault(v, [None if isinstance(x, Hole) else x
                                             for x in entries])
                try:
                    value = substitute(e, {k: names[k] for k in named})
                except ZeroDivisionError:  # no size there: the nodes' relations say so
                    value = None
                shape[axis] = None if isinstance(value, int) and value < 0 else value
                seen |= named
    missing = sorted(set(names) - seen)
    if missing and strict:
        known = sorted({e.name for es in sizes.entries.values() for e in es
                        if isinstance(e, Dim) and e.name is not None})
        raise ValueError(f"refine: {', '.join(missing)} is the size of no axis of the graph "
                         f"(its named sizes: {', '.join(known) or 'none'})")
    return [(v, TensorType(v.type.dtype, shape)) for v, shape in found.items()]


def narrowed(whole: Contract | None, sizes: Sizes) -> Contract | None:
    """The graph's contract (:func:`kantensor.contract` of its outputs; None when no node
    has conditions) at the sizes refinement knows (None: the graph has no conditions);
    RefinementError when it leaves none."""
    if whole is None or not whole.atoms:
        return None
    hidden = {k: _value(k, sizes) for k in whole.hidden}
    hidden = {k: v for k, v in hidden.items() if v is not None}
    atoms = [Atom(a.clause.substitute(hidden) if hidden.keys() & a.symbols() else a.clause,
                  a.sources) for a in whole.atoms]
    base = Contract(atoms, whole.sizes)
    fixed: dict[str, Any] = {}
    for name, symbol in whole.sizes:
        value = _value(symbol, sizes)
        if type(value) is int:  # (a size bound to another, c := a, stays: the condition
            fixed[name] = value  # that binds it, a given type's a == c or a node's, is
            # an atom that relates them, and fixing it away would drop the size)
    known = base.fix(fixed) if fixed else base
    if known.empty:
        atom = known.emptied_by()
        at = ", ".join(f"{k} = {v}" for k, v in fixed.items())
        where = atom.where() if atom is not None else "the graph"
        text = "its conditions" if atom is None else factored(atom.clause, [
            s for _, s in base.sizes]) if isinstance(atom.clause, Condition) else \
            str(atom.clause)
        raise RefinementError((), Conflict(where, (), f"{text} leaves no sizes"
                                           + (f" with {at}" if at else "")),
                              "the graph's contract leaves no sizes")
    return known


def _dim(symbol: Hashable) -> Any:
    return Dim(symbol) if isinstance(symbol, str) else None


def _value(symbol: Hashable, sizes: Sizes) -> DimLike | None:
    """What refinement knows of a size of the contract: an int, or an expression of
    named sizes (None: nothing, or a size still unknown)."""
    if isinstance(symbol, str):
        if symbol not in sizes.bindings:
            return None
        value = sizes.symbol_value(symbol)
    elif isinstance(symbol, VariableAxis) and symbol.variable in sizes.entries:
        value = sizes.current(symbol.variable)[symbol.axis]
    else:
        return None
    if isinstance(value, Hole) or has_hole(value):
        return None
    return value



def graph_sizes(variables: Sequence[Variable], walked: Walked | None = None
                ) -> dict[Variable, tuple[DimLike | None, ...]]:
    """Each of ``variables``' sizes as its graph computes them from the sizes of the
    graph's inputs, in the contract's terms (named sizes, and an input's unknown axis as
    the unknown of its :class:`VariableAxis`): the size of its type where it states
    one; where it has an unknown size, the size the graph's nodes give when each
    unknown axis of an input is a size of its own (``max(a, w.shape[0])*min(1, a,
    w.shape[0])`` for ``x[a] + w[?]``); None where even that is unknown. What a given
    type says of a Variable is a condition on these (:func:`~.solve.refine`).
    ``walked``: the graph already walked (refine's walk), used where the Variables
    that need the nodes are its outputs."""
    out: dict[Variable, tuple[DimLike | None, ...]] = {}
    need = []
    for v in variables:
        shape = v.type.shape
        if v.owner is None:
            out[v] = tuple(unknown(VariableAxis(v, k)) if d is None else d
                           for k, d in enumerate(shape))
        elif None in shape:
            need.append(v)
        else:
            out[v] = shape
    if not need:
        return out
    if walked is not None and len(walked.outputs) == len(need) and all(
            a is b for a, b in zip(walked.outputs, need, strict=True)):  # (walked once)
        ins, nodes = walked.inputs, walked.nodes
    else:
        ins = [v for v in graph_inputs(need) if not isinstance(v, Constant)]
        nodes = toposort(need)
    taken = {s for v in ins if isinstance(v.type, TensorType) for d in v.type.shape
             if isinstance(d, Dim) for s in free_symbols(d) if isinstance(s, str)}
    back: dict[Hashable, DimLike] = {}
    memo: dict[Variable, Variable] = {}
    for v in ins:
        if not isinstance(v.type, TensorType) or None not in v.type.shape:
            continue
        shape = []
        for k, d in enumerate(v.type.shape):
            if d is None:  # a named size of its own, renamed back to the axis after
                name = f"{v.name if (v.name or '').isidentifier() else 'input'}_shape_{k}"
                while name in taken or name in back:
                    name += "_"
                back[name] = unknown(VariableAxis(v, k))
                d = Dim(name)
            shape.append(d)
        memo[v] = TensorType(v.type.dtype, tuple(shape))(v.name)
    # Two builds of one SignatureOp on inputs alike (no facts, the same types and
    # wrapped keys: SignatureOp.make_node's memo key, as ops.fastcall keys its hits)
    # under the same rules (each node is rebuilt under its own, its ``rules``) give
    # outputs of the same types: the nodes of such a key are made once where its build
    # gives no facts (has no conditions), so a chain of a million z + 1.0 is rebuilt in
    # one node.
    alike: dict[tuple, list[Variable]] = {}
    get = memo.get
    plain = SignatureOp.make_node
    for node in nodes:
        op = node.op
        key: tuple | None = None
        old = node.inputs
        rules = node.rules  # (None: INITIAL_DEFAULT's)
        if len(old) == 2:  # (the usual case, written out: no comprehension, no loop)
            a, b = old
            a, b = get(a, a), get(b, b)
            inputs = [a, b]
            if a.facts is None and b.facts is None and type(op).make_node is plain:
                key = (id(op), rules, a.type, a.wrapped and wrapped_key(a),
                       b.type, b.wrapped and wrapped_key(b))
        else:
            inputs = [get(x, x) for x in old]
            if type(op).make_node is plain:
                parts = [id(op), rules]
                for x in inputs:
                    if x.facts is not None:
                        break
                    parts.append(x.type)
                    parts.append(x.wrapped and wrapped_key(x))
                else:
                    key = tuple(parts)
        outputs = None if key is None else alike.get(key)
        if outputs is None:
            try:
                new = node.clone_with_new_inputs(inputs, strict=False)
            except (TypeError, ValueError, IndexError):  # refused with sizes of their own:
                break  # what follows stays unknown
            outputs = new.outputs
            if key is not None and all(o.facts is None for o in outputs):
                alike[key] = outputs  # (a build with conditions gives its outputs facts)
        olds = node.outputs
        if len(olds) == 1:
            memo[olds[0]] = outputs[0]
        else:
            memo.update(zip(olds, outputs, strict=True))
    for v in need:
        shape = memo[v].type.shape if v in memo else v.type.shape
        out[v] = tuple(substitute(d, back) if isinstance(d, Dim) else d for d in shape)
    return out


class Walked(NamedTuple):
    """A graph walked once: its ``outputs``, their ancestors and the nodes in
    topological order (:func:`~kantensor.graph.walk.ancestors_and_nodes`), and its
    ``inputs`` (the ancestors without an owner, constants left out)."""

    outputs: list[Variable]
    variables: list[Variable]
    nodes: list[Apply]
    inputs: list[Variable]

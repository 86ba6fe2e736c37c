"""A refinement's reasons in the user's words: the solver says what failed over a
relation's places and dim names (``input 1``, a builder's ``a0``); an explanation says it
over the graph's operands (``W``, ``x.shape[1]``), from the reason's structured facts
(its tree, its place, the parts it was said in: :func:`kantensor.logic.store.said`),
never by reading its sentence back.
"""

from __future__ import annotations

from ..logic.store import Reason
from ..signature.mismatch import show
from ..syntax import ast as A
from ..syntax.alternative import Overloads, Place, Side
from ..syntax.ast import evaluate
from ..types.dim import Dim, DimLike, unknown
from ..types.dimminmax import DIM_CALLS
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType
from .sizes import Sizes, has_hole
from .units import Spelled, Unit, describe, is_size_carrier

__all__ = ["clause_axes", "clause_said", "in_user_terms", "in_words"]


def in_words(unit: Unit, reason: str) -> str:
    """The solver's reason with the unit's operands named: a broadcast names each
    operand's axis and size (``x axis 1 is 3 and v axis 0 is 5``), two sizes that must
    be equal name both (``x axis 1 is 3 but u axis 0 is 5``), never the signature's
    name for the dimension."""
    kind = getattr(reason, "kind", "")
    if kind == "core":
        return _unequal(unit, reason.facts)
    if kind != "broadcast":
        return reason
    said = " and ".join(
        f"{_operand_name(unit, i)} {'an axis' if a is None else f'axis {a}'} is {v}"
        for i, a, v in reason.facts["axes"])
    out = reason.facts["out"]
    sizes = {v for _, _, v in reason.facts["axes"] if v != 1}
    return f"{said} could not be broadcast" + (  # (to the output when they broadcast)
        f" to the output's {out}" if out is not None and len(sizes) < 2 else "")


def _unequal(unit: Unit, facts: dict) -> str:
    """``x axis 1 is 3 but u axis 0 is 5, and they must be equal`` from a dimension's
    mismatch (``facts``: where each size was seen, and the two sizes)."""
    (place, axis, _), (was, size) = facts["second"], facts["sizes"]
    second = f"{_place_name(unit, place)} axis {axis} is {show(size)}"
    if facts["first"] is None:
        return f"{second}, not {show(was)} as another operand requires"
    first_place, first_axis, _ = facts["first"]
    return (f"{_place_name(unit, first_place)} axis {first_axis} is {show(was)} but "
            f"{second}, and they must be equal")


def _place_name(unit: Unit, place: Place) -> str:
    """The operand of ``unit`` at an alternative's ``place`` (``input 1``: ``W``)."""
    i = place.index if place.side is Side.INPUT else unit.n_inputs + place.index
    return _operand_name(unit, i) if 0 <= i < len(unit.operands) else str(place)


def clause_said(sizes: Sizes, unit: Unit, reason: str) -> str | None:
    """A failing where-clause in the words its Op's builder gave it (NumPy's sentence,
    over the operands' types as refinement knows them), or None."""
    if getattr(reason, "kind", "") != "clause" or unit.node is None:
        return None
    message = getattr(unit.node.op, "clause_messages", {}).get(reason.facts["clause"])
    if message is None:
        return None
    types = tuple(TensorType(op.dtype, tuple(
        None if has_hole(e) else e for e in sizes.current(op.variable)))
        for op in unit.operands[:unit.n_inputs] if op.variable is not None)
    return message(reason.facts["values"], types)


def _operand_name(unit: Unit, i: int) -> str:
    v = unit.operands[i].variable
    return f"input {i}" if v is None else describe(v)


#: Pattern items that take exactly one axis (not a group, not ``m?``).
_ONE_AXIS = (A.DimVar, A.FixedDim, A.BinOp, A.Call)


def in_user_terms(reason: str, unit: Unit) -> str:
    """The solver's sentence (a where-clause, an axis's size) over the operands
    (``x.shape[1]``, ``y axis 0``), not its signature's names (a builder's ``a1``,
    ``output 0``): from the constraint's tree and place (its facts), or from the parts
    it was said in (:func:`~kantensor.logic.store.said`: places and the DSL's nodes as
    objects). A broadcast's, a mismatch's or a category's reason is kept
    (:func:`in_words`), and so is a sentence with no structure."""
    relation = unit.relation
    if unit.node is None or not isinstance(relation, Overloads) or \
            getattr(reason, "kind", "") in ("broadcast", "core", "category"):
        return reason
    names = _axis_names(unit, relation)
    facts = getattr(reason, "facts", {})
    if facts.get("tree") is not None:  # its own tree, each dim written as its axis
        said = A.written(facts["tree"], lambda n: names.get(n, n))
        if reason.kind == "clause":
            return Reason(f"where-clause {said} fails: {_clause_values(facts, names)}",
                          "clause", **facts)
        place, where = facts["place"], facts["where"]
        where = where if place is None else f"{_place_name(unit, place[0])} axis {place[1]}"
        return Reason(f"{where}: {facts['before']}{said}{facts['after']}", "size", **facts)
    if "parts" not in facts:
        return reason
    return Reason("".join(_part(p, unit, names) for p in facts["parts"]), reason.kind,
                  **facts)


def _clause_values(facts: dict, names: dict[str, str]) -> str:
    """What a failing where-clause's sides are, in the user's words: the sizes known
    put in, an axis still unknown named as its operand's axis (``2048*x.shape[3] == 9216
    holds for no size x.shape[3]``, not ``2048*unknown == 9216 is false``); the solver's
    own sentence where a side is not so written."""
    tree, values = facts["tree"], facts.get("values", {})
    if not isinstance(tree, A.Compare) or not values:
        return facts["said"]
    spelled: dict = {}
    for name, value in values.items():
        symbols = [s for s in free_symbols(value) if not isinstance(s, str)]
        if len(symbols) == 1 and value == unknown(symbols[0]):
            spelled[symbols[0]] = unknown(Spelled(names.get(name, name)))

    def value(name: str) -> DimLike:
        v = values[name]
        return v if isinstance(v, int) else substitute(v, spelled)
    try:
        left, right = (evaluate(side, value, calls=DIM_CALLS)
                       for side in (tree.left, tree.right))
    except (KeyError, ZeroDivisionError):
        return facts["said"]
    open_sizes = {s for side in (left, right) if isinstance(side, Dim)
                  for s in free_symbols(side) if not isinstance(s, str)}
    if any(not isinstance(s, Spelled) for s in open_sizes):
        return facts["said"]  # an unknown no name of the clause stands for
    said = f"{left} {tree.op} {right}"
    if not open_sizes:
        return f"{said} is false"
    return f"{said} holds for no size {' and '.join(sorted(map(str, open_sizes)))}"


def _part(part: object, unit: Unit, names: dict[str, str]) -> str:
    """A part of a reason in the user's words: a place as its operand, a pattern or a
    where-clause of the relation with each dim as the axis it names."""
    def name(n: str) -> str:
        return names.get(n, n)
    if isinstance(part, Place):
        return _place_name(unit, part)
    if isinstance(part, A.TensorPattern):
        return "(" + ",".join(A.written(d, name) if isinstance(d, _ONE_AXIS) else str(d)
                              for d in part.dims) + ")"
    if isinstance(part, A.Broadcasts):
        return f"broadcast({','.join(A.written(a, name) for a in part.args)}) == " \
               f"{A.written(part.result, name)}"
    return str(part)


def _axis_names(unit: Unit, relation: Overloads) -> dict[str, str]:
    """Each dimension name of the relation's alternatives as the operand axis it names
    (``x.shape[1]``; ``x.shape[-1]`` after a group), the first alternative's first."""
    names: dict[str, str] = {}
    for name, (i, axis) in _axis_places(unit, relation).items():
        variable = unit.operands[i].variable
        names[name] = describe(variable) if is_size_carrier(variable) \
            else f"{describe(variable)}.shape[{axis}]"  # (B: a size)
    return names


def _axis_places(unit: Unit, relation: Overloads) -> dict[str, tuple[int, int]]:
    """Each dimension name of the relation's alternatives as ``(operand, axis)`` (the
    axis negative after a group), the first alternative's first."""
    places: dict[str, tuple[int, int]] = {}
    for alt in relation.alternatives:
        for i, op in enumerate(alt.operands):
            variable = unit.operands[i].variable if i < len(unit.operands) else None
            if variable is None:
                continue
            dims = list(op.dims)
            varying = [k for k, d in enumerate(dims) if not isinstance(d, _ONE_AXIS)]
            for k, d in enumerate(dims):
                if not isinstance(d, A.DimVar) or varying and \
                        varying[0] < k < varying[-1]:
                    continue  # between two groups: its axis is not known here
                axis = k if not varying or k < varying[0] else k - len(dims)
                places.setdefault(d.name, (i, axis))
    return places


def clause_axes(unit: Unit, reason: str) -> list[tuple[int, int]]:
    """The operand axes ``(operand, axis)`` whose sizes a failing where-clause read as
    ints, folded into the sides it is said with (``2048*x.shape[3] == 9216`` is
    ``x.shape[0]*x.shape[1]*(x.shape[2]*x.shape[3]) == 9216`` at 1, 256 and 8): the
    sentence uses their values, so an explanation names them even where none alone
    could make the clause hold (the axis negative after a group); [] for another
    reason, and for a clause said with no values (``it divides by zero``)."""
    relation = unit.relation
    if getattr(reason, "kind", "") != "clause" or unit.node is None or \
            not isinstance(relation, Overloads) or \
            not reason.facts.get("said", "").endswith(" is false"):
        return []
    places = _axis_places(unit, relation)
    return [places[name] for name, value in reason.facts.get("values", {}).items()
            if isinstance(value, int) and name in places]

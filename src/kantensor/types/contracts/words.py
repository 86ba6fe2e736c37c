"""A contract in words, in the DSL's where-clause syntax, and as HTML.

The words say each condition in its plainest form: the conditions over one size are
solved into its set (``H >= 51`` for the windows of a stack of pools, with the node
that binds it), a product over separate sizes is written factored
(``N*((H + 13)//32 - 1)*((W + 13)//32 - 1) == 36``), a disjunction as ``or``; then the
boxes it solves into, and each size's set. The DSL text says the same as where-clauses
(one ``where`` per case of the disjunctions: the DSL has no ``or``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any, Final

from ...graph.display import block, code, esc, table
from ..conditions import AnyOf, Condition
from ..dim import Dim, DimLike
from ..facts import Facts
from ..productsign import factors
from ..symbols import DataSymbol, free_symbols, substitute
from .cells import Cell
from .sizeset import ALL, SizeSet
from .univariate import solve as solve_one

__all__ = ["Line", "cell_text", "contract_dsl", "contract_html", "contract_text", "factored",
           "lines"]

#: The most boxes the words list (the rest: ``contract.cells``).
SHOWN_CELLS: Final = 12


def factored(c: Condition, order: Sequence[Hashable] = ()) -> str:
    """The condition with a product of factors over their own sizes written as one
    (``N*((H + 13)//32 - 1)*((W + 13)//32 - 1) == 36``, factors in the sizes' ``order``),
    else as it is."""
    d, op = c.key
    split = factors(d)
    if split is None:
        return str(c)
    k, fs, const = split  # k*product + const op 0
    rank = {x: i for i, x in enumerate(order)}
    fs.sort(key=lambda f: min((rank.get(x, len(rank)) for x in free_symbols(f)),
                              default=len(rank)))
    target = -const
    if target % k == 0 and op in ("==", "!="):
        k, target = 1, target // k
    parts = [str(k)] if k != 1 else []
    parts += [str(f) if _simple(f) else f"({f})" for f in fs]
    return f"{'*'.join(parts)} {op} {target}"


def _simple(f: DimLike) -> bool:
    """Whether ``f`` reads the same unparenthesized in a product: a name or an int."""
    return isinstance(f, int) or (isinstance(f, Dim) and f.name is not None)


class Line:
    """One line of the words: the text, its where-clause text (None: none says it), and
    the atoms it comes from."""

    def __init__(self, text: str, dsl: str | None, atoms: list[Any]):
        self.text, self.dsl, self.atoms = text, dsl, atoms

    @property
    def where(self) -> str:
        nodes = list(dict.fromkeys(n for a in self.atoms for n in a.nodes))
        return ", ".join(nodes) if nodes else "the graph"


def lines(contract: Any) -> list[Line]:
    """The contract's conditions, plainest first: one line per size its one-size
    conditions bind, then the others in node order."""
    names = contract._name
    one: dict[Hashable, list[tuple[Any, SizeSet]]] = {}
    others = []
    for atom in contract.atoms:
        c = atom.clause
        syms = atom.symbols()
        if isinstance(c, Condition) and len(syms) == 1 and not syms & contract.hidden:
            (s,) = syms
            solved = solve_one(*c.key, s)
            if solved is not None:
                one.setdefault(s, []).append((atom, solved))
                continue
        others.append(atom)
    out = []
    for _, s in contract.sizes:
        if s not in one:
            continue
        found = one[s]
        total = ALL
        for _, x in found:
            total &= x
        binding = list(found)
        for item in reversed(found):  # the fewest atoms that give the set, earliest kept
            trial = [x for x in binding if x is not item]
            whole = ALL
            for _, x in trial:
                whole &= x
            if whole == total:
                binding = trial
        atoms = [a for a, _ in binding]
        out.append(Line(total.text(names[s]), _set_dsl(total, names[s]) or ", ".join(
            _dsl(a.clause, contract) for a in atoms), atoms))
    for atom in others:
        c = atom.clause
        if isinstance(c, Condition):
            out.append(Line(factored(c, _order(contract)), _dsl(c, contract), [atom]))
        else:
            out.append(Line(_any_text(c, _order(contract)), None, [atom]))
    return out


def _order(contract: Any) -> list[Hashable]:
    return [s for _, s in contract.sizes]


def _any_text(c: AnyOf, order: Sequence[Hashable]) -> str:
    def case_text(case: tuple) -> str:
        text = " and ".join(factored(x, order) for x in case)
        return text if len(case) == 1 or len(c.cases) == 1 else f"({text})"
    return " or ".join(map(case_text, c.cases)) if c.cases else "false"


def _clause_text(c: Any, contract: Any) -> str:
    return factored(c, _order(contract)) if isinstance(c, Condition) else \
        _any_text(c, _order(contract))


def _set_dsl(s: SizeSet, name: str) -> str | None:
    """A set of one piece as where-clauses (None: not one piece)."""
    if len(s.pieces) != 1:
        return None if s.pieces else "0 == 1"
    p = s.pieces[0]
    name = _ident(name)
    parts = []
    if not p.plain:
        if len(p.residues) != 1:
            return None
        parts.append(f"{name} % {p.modulus} == {next(iter(p.residues))}")
    if p.hi == p.lo:
        return f"{name} == {p.lo}"
    if p.lo:
        parts.append(f"{name} >= {p.lo}")
    if p.hi is not None:
        parts.append(f"{name} <= {p.hi}")
    return ", ".join(parts) or f"{name} >= 0"


def _ident(name: str) -> str:
    """A name as the DSL writes a size: an identifier (``x.shape[1]`` is ``x_shape_1``)."""
    if name.isidentifier():
        return name
    return re.sub(r"\W+", "_", name).strip("_") or "size"


def _dsl(c: Condition, contract: Any) -> str:
    """A condition as a where-clause, over the sizes' DSL names (a size that is no input,
    ``/model/NonZero.u_0``, as an identifier too: ``model_NonZero_u_0``)."""
    renames = {s: Dim(_ident(n)) for n, s in contract.sizes if not n.isidentifier()}
    renames.update({s: Dim(_ident(str(s))) for s in c.symbols()
                    if s in contract.hidden and not isinstance(s, str)})
    if renames:
        c = Condition(substitute(c.left, renames), c.op, substitute(c.right, renames))
    return factored(c, [_ident(n) if s in renames else s for n, s in contract.sizes])


def cell_text(cell: Cell, contract: Any) -> str:
    """One box: ``N == 1, H in [211, 242], W in [211, 242]``."""
    names = contract._name
    parts = []
    for _, s in contract.sizes:
        if s in cell.defined:
            e = cell.defined[s]
            parts.append(f"{names[s]} == {e}")
        elif s in cell.sets and not cell.sets[s].is_all:
            parts.append(cell.sets[s].text(names[s]))
    order = _order(contract)
    parts += [factored(c, order) for c in cell.rest]
    parts += [f"{factored(c, order)} ({_hidden_kind(c)})" for c in cell.hidden]
    return (", ".join(parts) or "any sizes") + ("" if cell.covered else "  (not covered)")


def _hidden_kind(c: Any) -> str:
    """What a condition over sizes that are no inputs is: a check made when the model
    runs where it names a size the data decide."""
    if any(type(s) is DataSymbol for s in c.symbols()):
        return "checked when the model runs"
    return "over sizes that are no inputs"


def _heading(contract: Any) -> str:
    sizes = ", ".join(contract.names) or "no sizes"
    head = f"Contract over {sizes} ({contract.label})"
    if contract.fixed:
        head += " with " + ", ".join(f"{k} = {v}" for k, v in contract.fixed.items())
    return head


def contract_text(contract: Any) -> str:
    """The contract in words (see the module's doc)."""
    out = [_heading(contract)]
    for note in contract.notes:
        out.append(f"  note: {note}")
    data = sorted({s for s in contract.hidden if type(s) is DataSymbol}, key=str)
    checks = sum(1 for a in contract.atoms if a.symbols() & set(data))
    if checks and contract.exact:  # (an If's two branches that need alike)
        out.append(f"  {checks} condition{'s' * (checks != 1)} name{'s' * (checks == 1)} "
                   "sizes the data decide, yet the boxes are exact: valid there whatever "
                   "the data give, invalid elsewhere whatever they give")
        out += [f"    {s.why}" if s.why else f"    {s}: decided by the data" for s in data]
    elif checks:
        out.append(f"  approximate: {checks} condition{'s' * (checks != 1)} "
                   f"name{'s' * (checks == 1)} sizes the data decide, checked when the "
                   "model runs, not by the input sizes alone (contract.inner is "
                   "sufficient: valid whatever the data; contract.outer necessary)")
        out += [f"    {s.why}" if s.why else f"    {s}: decided by the data" for s in data]
    hidden = sum(1 for a in contract.atoms if a.symbols() & contract.hidden
                 and not a.symbols() & set(data))
    if hidden:
        out.append(f"  approximate: {hidden} condition{'s' * (hidden != 1)} "
                   f"name{'s' * (hidden == 1)} sizes that are no inputs (data-dependent "
                   "counts, or sizes the types do not relate to the inputs'); "
                   "contract.inner is sufficient, contract.outer necessary")
    uncovered = any(not c.covered for c in contract.cells)  # (none: every choice holds
    # wherever the other conditions do, as the cells show)
    for atom in contract.atoms:
        if atom.chosen and uncovered:
            out.append(f"  approximate: where {_clause_text(atom.clause, contract)} fails, "
                       f"{atom.chooser()} gives {atom.chosen}, not the type the graph was "
                       "built for: those sizes are not covered (neither valid nor invalid "
                       "here; contract.inner is sufficient, contract.outer necessary)")
    found = lines(contract)
    if not found:
        out.append("  no size is valid" if contract.empty else "  every size is valid"
                   if not contract.notes else "  no condition is known (see the notes)")
    else:
        out.append("valid where:")
        width = min(max(len(x.text) for x in found), 60)
        out += [f"  {x.text:<{width}}  {x.where}" for x in found]
    cells = contract.cells
    if contract.empty:
        atom = contract.emptied_by()
        given = ", ".join(f"{k} = {v}" for k, v in contract.fixed.items())
        out.append("no sizes are valid" + (
            f": {_clause_text(atom.clause, contract)} ({atom.where()}) leaves none"
            + (f" with {given}" if given else "") if atom is not None else ""))
    elif found:
        out.append(f"solved: {len(cells)} box{'es' * (len(cells) != 1)}" + (
            "" if contract.exact else " (some not covered)" if all(
                not c.rest and not c.hidden for c in cells) else
            " (with conditions no box states)"))
        out += [f"  {cell_text(c, contract)}" for c in cells[:SHOWN_CELLS]]
        if len(cells) > SHOWN_CELLS:
            out.append(f"  ... and {len(cells) - SHOWN_CELLS} more (contract.cells)")
        sets = contract.sets()
        shown = [f"  {v.text(k)}" for k, v in sets.items() if not v.is_all]
        if shown:
            out.append("sizes:" + ("" if sets.exact else " (necessary)"))
            out += shown
    if found:
        out.append("DSL: " + "\n     ".join(contract_dsl(contract).splitlines()))
    renamed = [(n, _ident(n)) for n in contract.names if not n.isidentifier()]
    if renamed:
        out.append("  (" + ", ".join(f"{i} is {n}" for n, i in renamed) + ")")
    named = [s for s in data if any(s in a.symbols() for a in contract.atoms)]
    if found and named:  # (a where-clause names sizes as if the caller chose them)
        one = len(named) == 1
        out.append("  (" + ", ".join(map(str, named)) + f" {'is' if one else 'are'} decided "
                   "by the data when the model runs, no input size: a clause over "
                   f"{'it' if one else 'them'} is a check made then)")
    return "\n".join(out)


def contract_dsl(contract: Any) -> str:
    """Where-clauses: one line ``where ...`` per case of the disjunctions, but those
    whose conditions contradict (as far as :class:`~kantensor.types.facts.Facts` show)."""
    found = lines(contract)
    plain = [x.dsl for x in found if x.dsl is not None]
    facts = [a.clause for x in found if x.dsl is not None for a in x.atoms
             if isinstance(a.clause, Condition)]
    cases = [(plain, facts)]
    for x in found:
        if x.dsl is None:
            (atom,) = x.atoms
            cases = [(case + [", ".join(_dsl(c, contract) for c in option)], [*met, *option])
                     for case, met in cases for option in atom.clause.cases][:64]
    if not all(case for case, _ in cases):
        return ""  # a case with no condition: every size is valid, as no where-clause says
    # (a case whose conditions contradict, ``T >= 1, T == 0``, says no size: left out)
    met = [case for case, c in cases if Facts(c).consistent()] or [cases[0][0]]
    return "\n".join(dict.fromkeys("where " + ", ".join(dict.fromkeys(case)) for case in met))


def contract_html(contract: Any) -> str:
    """The rich display: the conditions with their nodes, the boxes, the sets."""
    found = lines(contract)
    rows = [[code(x.text), esc(x.where)] for x in found]
    parts = [table(["condition", "imposed by"], rows)] if rows else \
        ["<i>every size is valid</i>" if not contract.empty else "<i>no size is valid</i>"]
    cells = contract.cells
    if cells and found:
        cap = f"{len(cells)} boxes; showing {SHOWN_CELLS}" if len(cells) > SHOWN_CELLS \
            else ""
        parts.append(table(["valid box"], [[code(cell_text(c, contract))]
                                            for c in cells[:SHOWN_CELLS]], esc(cap)))
        sets = contract.sets()
        parts.append(table(["size", "values"], [[code(k), code(v.text(k))]
                                                for k, v in sets.items()]))
    return block("Contract", esc(_heading(contract)[len("Contract "):]), *parts)


"""What :func:`kantensor.eval_shape` returns: the assumptions, the types, the graph, and
the cases.

Named sizes are distinct: what the code needs of them (``D == K`` for ``x @ w``,
``seq <= 64``) is an **assumption**, a :class:`~kantensor.Condition` (or
:class:`~kantensor.AnyOf`) whose :class:`~kantensor.Source` is the Op and the user's
line; the result shows them first. A function without branches on sizes gives one
:class:`ShapeResult`. One whose branches
split (``if L > 1:``, see :mod:`.branches`) gives a result whose ``cases`` each hold a
case's conditions, types and graph, and whose ``refused`` are the cases the program
raised in (what it assumes false); its ``type`` keeps what every case agrees on, a size
on which they differ is unknown, and :meth:`ShapeResult.why` says which branch made it so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..graph.basic import Apply, Variable
from ..graph.fgraph import FunctionGraph
from ..ops.contracts import contract, contract_of
from ..types.conditions import AnyOf, Clause, Condition, Source, negate
from ..types.contracts import Contract
from ..types.numpyrules import numpy_rules
from ..types.type import TensorType
from .counts import decided
from .display import shape_result_html
from .located import Site, described, why
from .shortest import shortest


@dataclass(frozen=True)
class Refusal:
    """A case the program raised in: its conditions and the error (with its line)."""

    conditions: tuple[Condition, ...]
    error: BaseException
    chosen: tuple[Condition, ...] = ()  # overloads' choices the types it raised on made
    #: kantensor's own limit it raised on (:mod:`.limits`), said; empty where the program
    #: refuses the case.
    limit: str = ""

    def __str__(self) -> str:
        return f"{' and '.join(map(str, self.conditions))}: {type(self.error).__name__}: " \
               f"{str(self.error).splitlines()[0]}"


@dataclass(frozen=True)
class ShapeResult:
    """What :func:`eval_shape` found: ``type`` (one TensorType, or a tuple of them when
    the function returns several values), the symbolic ``inputs`` and ``outputs``, and
    ``graph``, a FunctionGraph from the inputs to the outputs.

    ``assumptions`` are what the code needs of the sizes and nothing given decides, each
    with its Op and line (see the module), in the order the code needs them.

    Where the function branched on sizes, ``cases`` holds one ShapeResult per case run
    (each with its ``conditions`` and its own assumptions), ``refused`` the cases that
    raised, and the result's own ``type`` what the cases agree on; its assumptions are
    those of every case and that no refused case holds; ``inputs``, ``outputs`` and
    ``graph`` are then those of each case only (here empty, and ``graph`` None)."""

    type: TensorType | tuple[TensorType, ...] | None
    inputs: tuple[Variable, ...]
    outputs: tuple[Variable, ...]
    graph: FunctionGraph | None
    conditions: tuple[Condition, ...] = ()
    cases: tuple[ShapeResult, ...] = ()
    refused: tuple[Refusal, ...] = ()
    assumptions: tuple[Clause, ...] = ()
    sites: dict[Apply, Site | None] = field(default_factory=dict, repr=False, compare=False)
    notes: dict[Any, str] = field(default_factory=dict, repr=False, compare=False)
    #: The masks' counts and their bounds (:mod:`.counts`): what holds decides with.
    counts: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def contract(self) -> Contract:
        """The input sizes under which the code's every operation holds, over the named
        sizes of the input types (see :func:`kantensor.contract`): its assumptions, each
        with its Op and the user's line (with ``assume="allow"``, the graph's conditions);
        where the code branched on sizes, one of its cases with its own conditions and
        assumptions (ValueError where a case's assumption is itself a disjunction: see
        each case's contract)."""
        with numpy_rules():  # (the rules the graph was built under)
            return self._contract()

    def _contract(self) -> Contract:
        if self.cases:
            options = []
            for case in self.cases:
                if not all(isinstance(a, Condition) for a in case.assumptions):
                    raise ValueError("a case's assumption is a disjunction: see the contract "
                                     "of each case (result.cases[i].contract)")
                # an overload's choice first: where it fails, the case's branch
                # conditions may be of the sizes it chose (a branch on a squeezed size)
                chosen = [a for a in case.assumptions if a.source and a.source.otherwise]
                options.append(tuple(x for x in (*chosen, *case.conditions, *(
                    a for a in case.assumptions if a not in chosen))
                    if x not in self.assumptions))  # (those said on their own)
            inputs = list(self.cases[0].inputs)
            either = [AnyOf(tuple(options))] if all(options) else []
            chosen = [a for a in self.assumptions if _has_choice(a)]
            return contract_of([*chosen, *either, *(a for a in self.assumptions
                                                    if a not in chosen)], inputs)
        if not self.assumptions:
            return contract(list(self.outputs), list(self.inputs))
        return contract_of(self.assumptions, list(self.inputs))

    def __repr__(self) -> str:
        text = f"ShapeResult({_types(self.type)})"
        if self.conditions:
            text += f" where {' and '.join(map(str, self.conditions))}"
        if self.assumptions:
            text += ", assuming:\n" + "\n".join(f"  {described(a)}" for a in self.assumptions)
        if self.cases:
            rows = [f"  {' and '.join(map(str, c.conditions))}: {_types(c.type)}" + (
                        f" assuming {' and '.join(map(str, c.assumptions))}"
                        if c.assumptions else "") for c in self.cases]
            rows += [f"  {' and '.join(map(str, r.conditions))}: raises "
                     f"{type(r.error).__name__}" for r in self.refused]
            text += f"{chr(10) if self.assumptions else ', '}in " \
                    f"{len(self.cases) + len(self.refused)} cases:\n" + "\n".join(rows)
        return text

    def holds(self, sizes: dict[Any, int]) -> bool:
        """Whether the sizes ``sizes`` (by name) meet every assumption, and those of the
        case they fall in (a size the result does not name: ValueError; an assumption on
        a size no input decides, a data-dependent count: ValueError saying so)."""
        if not all(_holds(a, sizes, self.counts) for a in self.assumptions):
            return False
        if not self.cases:
            return True
        case = next((c for c in self.cases
                     if all(_holds(x, sizes, c.counts) for x in c.conditions)), None)
        return case is not None and case.holds(sizes)

    def _repr_html_(self) -> str:
        return shape_result_html(self)

    def where(self, v: Any) -> Site | None:
        """The user's line that built the node of Variable ``v`` (None for an input)."""
        return self.sites.get(v.owner) if isinstance(v, Variable) else None

    def why(self, output: int | Variable = 0, axis: int | None = None) -> str:
        """Why the sizes of an output (its index, or any Variable of the graph; one axis,
        or every unknown one) are unknown: the node and the line that left each one
        unknown, and why (a data-dependent Op, ``int()`` of a value, a Python branch, a
        relation that leaves it open), or the input whose type has it."""
        if self.cases:
            return "\n".join(self._branch_why(output, axis))
        v = self.outputs[output] if isinstance(output, int) else output
        names = {x: x.name for x in self.inputs if x.name}
        return "\n".join(why(v, axis, self.sites, names, self.notes))

    def _branch_why(self, output: int | Variable, axis: int | None) -> list[str]:
        if not isinstance(output, int):
            raise TypeError("a result of several cases answers why() by output index; ask "
                            "a case (result.cases[i].why(v)) about its own variables")
        mine = _as_tuple(self.type)[output] if self.type is not None else None
        lines = []
        for k, case in enumerate(self.cases):
            t = _as_tuple(case.type)[output]
            differs = mine is None or any(
                a is None and b is not None for a, b in zip(mine.shape, t.shape, strict=False))
            if differs:
                where = "; ".join(map(described, case.conditions))
                lines.append(f"case {k} ({where}): {t}")
        head = "a Python branch on sizes: the cases give different types"
        return [head, *lines] if lines else [f"output {output}: every case agrees"] + \
            [f"case {k}: {case.why(output, axis)}" for k, case in enumerate(self.cases)]


def _holds(c: Clause, sizes: dict[Any, int], counts: dict[Any, Any] | None = None) -> bool:
    """``c`` at ``sizes``; False where it divides by a size that is 0 there (as a
    contract takes it: ``1 % (A - 1) == 0`` at A = 1). Where ``c`` names a size no input
    has: a count the data decide (``x[x > 0]``'s) is between 0 and its bound
    (``counts``, :mod:`.counts`), and where every count there answers ``c`` alike, that
    is the answer; else (or for the values of an index made of sizes that kantensor
    does not read: :mod:`.indexvalues`) no input sizes decide it, and a ValueError says
    why holds cannot answer True or False."""
    try:
        return c.holds(sizes)
    except ZeroDivisionError:
        return False
    except ValueError:
        unknowns = sorted(str(s) for s in c.symbols() if not isinstance(s, str))
        if not unknowns:
            raise
        answer = decided(c, sizes, counts or {})
        if answer is not None:
            return answer
        raise ValueError(
            f"holds cannot say whether the sizes meet {c}: it names "
            f"{', '.join(unknowns)}, which no input's size decides (a size the data "
            "decides, such as the count of x[x > 0], or values made of sizes that "
            "kantensor does not read); result.why() says where each unknown size comes "
            "from") from None


def _has_choice(c: Clause) -> bool:
    """Whether ``c`` is, or has, an overload's choice (``Source.otherwise``)."""
    if isinstance(c, Condition):
        return bool(c.source and c.source.otherwise)
    return any(x.source and x.source.otherwise for case in c.cases for x in case)


def _as_tuple(t: Any) -> tuple:
    return t if isinstance(t, tuple) else (t,)


def _types(t: Any) -> str:
    if t is None:
        return "the cases disagree"
    return ", ".join(map(str, _as_tuple(t)))


def merged(cases: list[ShapeResult], refused: list[Refusal]) -> ShapeResult:
    """One result for the cases of a program that branched (see the module)."""
    types = [_as_tuple(c.type) for c in cases]
    single = not isinstance(cases[0].type, tuple)
    joined: Any = None
    if all(len(t) == len(types[0]) for t in types):
        outs = [_join([t[i] for t in types]) for i in range(len(types[0]))]
        if all(o is not None for o in outs):
            joined = outs[0] if single else tuple(outs)
    common = [a for a in cases[0].assumptions if all(a in c.assumptions for c in cases)]
    # a case raised where its conditions hold, unless a choice made before the raise
    # fails there (NumPy gives another type than the one the code raised on): undecided
    # (each as its shortest equivalent: a loop's refused turns, n <= 16, not a disjunct
    # per turn)
    # (a case kantensor cannot type is not covered: each condition a choice, see .limits)
    common += [x for r in refused if r.conditions for x in shortest(
        AnyOf(tuple((*r.chosen, _uncovered(c.negated(), r.limit)) for c in r.conditions))
        if r.chosen or r.limit else negate(r.conditions))]
    return ShapeResult(joined, (), (), None, cases=tuple(cases), refused=tuple(refused),
                       assumptions=tuple(common),
                       counts={k: b for c in cases for k, b in c.counts.items()})


def _uncovered(c: Condition, limit: str) -> Condition:
    """``c``, where ``limit`` is said, marked as a choice past which the case is not
    covered (``Source.otherwise``: eval_shape's limit, not the program's refusal)."""
    if not limit:
        return c
    said = f"a case eval_shape does not type ({limit})"
    source = c.source.replaced(otherwise=said) if c.source else Source(otherwise=said)
    return Condition(c.left, c.op, c.right, source)


def _join(ts: list[TensorType]) -> TensorType | None:
    first = ts[0]
    if any(t.dtype != first.dtype or t.ndim != first.ndim for t in ts):
        return None
    shape = [d if all(t.shape[i] == d for t in ts) else None
             for i, d in enumerate(first.shape)]
    return TensorType(first.dtype, tuple(shape))

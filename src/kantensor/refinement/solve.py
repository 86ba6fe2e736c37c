"""``refine``: every node's relation, run to a fixpoint over the whole graph.

A worklist, never one conjunction over the whole graph: each unit (a node, a
SpecifyShape, a given type) runs its own relation on the sizes known now; what it
decides binds a symbol of :class:`~kantensor.refinement.sizes.Sizes`, and the units of the
Variables that mention that symbol run again. A symbol is bound at most once, so the
work is linear in the graph for the usual shapes of graphs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from operator import attrgetter

from ..graph.basic import Constant, Variable
from ..graph.heap import collector_paused
from ..graph.progress import Progress
from ..graph.walk import ancestors_and_nodes
from ..ops.contracts import contract as graph_contract
from ..ops.contracts import contract_given
from ..types.conditions import Condition, Source
from ..types.dim import Dim
from ..types.numpyrules import rules_key
from ..types.symbols import free_symbols
from ..types.type import TensorType
from .contracted import Walked, by_name, graph_sizes, narrowed, sized_types
from .explain import Conflict, RefinementError, Step, explain_conflict, undefined_size
from .relations import cases, run, run_sizes
from .result import Refinement
from .sizes import Hole, Sizes, symbol_dim, symbols_of
from .units import UNIFY, Operand, Unit, describe, node_units

__all__ = ["refine"]


def refine(outputs: Variable | Sequence[Variable],
           given: Mapping[Variable | str, TensorType | str | int] | None = None
           ) -> Refinement:
    """The most specific type of every Variable of the graph of ``outputs`` (inputs,
    intermediates and outputs) that every node's relation allows, solved jointly.

    ``given`` maps Variables of the graph to types they must have (TensorTypes or
    compact text such as ``"float32[5,?]"``; Dims allowed), for example a required
    output type, which then propagates back to the inputs; and names of sizes to ints
    (``{"H": 224}``). A contradiction raises :class:`RefinementError` (a
    TypeInferenceError) whose message, and ``chain`` attribute, give the nodes, operands,
    axes and values that lead to it. The graph's contract (its nodes' conditions) is
    fixed at what refinement finds (:mod:`.contracted`): the Refinement's
    :meth:`~Refinement.sets` say what it leaves of the other sizes; a size it leaves
    one value of is bound; none left is a RefinementError naming the condition and
    its node.
    """
    with collector_paused():
        return _refine(outputs, given)


def _refine(outputs: Variable | Sequence[Variable],
            given: Mapping[Variable | str, TensorType | str | int] | None) -> Refinement:
    outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    for i, v in enumerate(outs):
        if not isinstance(v, Variable) or not isinstance(v.type, TensorType):
            raise TypeError(f"refine: output {i} must be a tensor Variable of a graph, "
                            f"got {v!r}")
    variables, nodes = ancestors_and_nodes(outs)
    sizes = Sizes()
    sizes.add_all(variables)
    outputs_of = [o for node in nodes for o in node.outputs]  # (each node has one or more)
    for node in nodes if len(outputs_of) > len(nodes) else ():  # every output of a node,
        if len(node.outputs) > 1:  # also those the outputs do not use (a node's only
            for o in node.outputs:  # output is one of the variables)
                if isinstance(o.type, TensorType):
                    sizes.add(o)
    given, names = by_name(given)
    typed = _read_given(given, sizes, variables)
    units = [_given_unit(v, t, sizes) for v, t in typed]
    units += [_given_unit(v, t, sizes, _named(names, t, v)) for v, t in
              sized_types(names, sizes)]
    # each given name is its value wherever it appears (``n*m`` is ``4*m`` at n = 4; an
    # axis's given type binds only what its relation solves for)
    units += [Unit.of(UNIFY, (Operand(None, "bool", False, (Dim(k),)),
                              Operand(None, "bool", False, (x,))), 1, None, f"given {k} = {x}")
              for k, x in names.items()]
    touching = _touching(units)
    units += node_units(nodes, touching)
    sizes = _settled(sizes, units, touching)
    _by_cases(sizes, units, touching)
    roots = [v for v in variables if v.owner is None]  # (the graph's inputs, constants too)
    walked = Walked(outs, variables, nodes, [v for v in roots if not isinstance(v, Constant)])
    needs, notes = _given_conditions(typed, walked)
    whole = contract_given(walked.inputs, nodes, needs, notes) if needs or notes else \
        graph_contract(outs) if any(map(_conditions, nodes)) else None
    contract = narrowed(whole, sizes)
    for _ in range(MAX_NARROWINGS):  # a size the contract leaves one value of is bound
        forced = {} if contract is None else {
            name: s.min for name, s in contract.sets().items() if s.count() == 1}
        more = [_given_unit(v, t, sizes, f"the contract: {_named(forced, t, v)}")
                for v, t in sized_types(forced, sizes, strict=False)]
        if not more:
            break
        units += more
        _touching(more, touching)
        sizes = _settled(sizes, units, touching)
        contract = narrowed(whole, sizes)
    order = roots + outputs_of
    return Refinement(outs, sizes.types_of(order), contract)


_conditions = attrgetter("conditions")


#: How many times refine binds the sizes its contract leaves one value of, at most.
MAX_NARROWINGS = 4


def _named(names: Mapping[str, int], t: TensorType, v: Variable) -> str:
    """``given H = 224``: the label of a given type made from named sizes."""
    shown = [f"{k} = {x}" for k, x in names.items()
             if any(isinstance(d, Dim) and k in free_symbols(d) for d in v.type.shape)]
    return "given " + ", ".join(shown)


def _read_given(given: Mapping | None, sizes: Sizes, variables: list[Variable]
                ) -> list[tuple[Variable, TensorType]]:
    if given is None:
        return []
    if not isinstance(given, Mapping):
        raise TypeError(f"refine: given must map Variables to types, got "
                        f"{type(given).__name__}")
    out = []
    scalars = None  # the graph's scalars, which Sizes does not file (asked for rarely)
    for v, t in given.items():
        if isinstance(v, Variable) and v not in sizes.entries and scalars is None:
            scalars = {x for x in variables if isinstance(x.type, TensorType)
                       and x.type.shape == ()}
        if not isinstance(v, Variable) or v not in sizes.entries and v not in scalars:
            raise ValueError(f"refine: given names {v!r}, which is not a Variable of the "
                             "graph of the outputs")
        if isinstance(t, str):
            try:
                t = TensorType.parse(t)
            except ValueError as exc:
                raise ValueError(f"refine: the type given for {describe(v)}: {exc}") from None
        if not isinstance(t, TensorType):
            raise TypeError(f"refine: the type given for {describe(v)} must be a "
                            f"TensorType or text such as 'float32[3,?]', got {t!r}")
        out.append((v, t))
    return out


def _given_conditions(typed: list[tuple[Variable, TensorType]], walked: Walked
                      ) -> tuple[list[Condition], list[str]]:
    """What the given types need of the graph's sizes, as conditions of the contract
    beside the nodes' (the given types are facts, as the nodes' conditions are): each
    given size (``c``, or ``3``) equals the size the graph computes there from its
    inputs' sizes (:func:`graph_sizes`: ``max(a,b)*min(1,a,b)``, a lone ``a``, or
    ``max(a, w.shape[0])*min(1, a, w.shape[0])`` for ``x[a] + w[?]``), whatever
    refinement binds (``c := a`` leaves ``a == c`` to the contract), so a given size is
    never dropped in silence; and a note for a size the graph does not compute from its
    inputs' sizes (the contract is then only necessary). ``walked``: the graph, walked
    once by refine."""
    out, notes = [], []
    own = graph_sizes([v for v, _ in typed], walked)
    for v, t in typed:
        label = f"{describe(v)}: {t}"
        for axis, (want, have) in enumerate(zip(t.shape, own[v], strict=True)):
            if want is None or want == have:
                continue
            if have is None:
                notes.append(f"given {label}: axis {axis} is a size the graph does not "
                             f"compute from its inputs' sizes")
                continue
            out.append(Condition(have, "==", want, Source(
                op="given", node=label, detail=f"axis {axis} of {describe(v)} is given "
                f"{want}")))
    return out, notes


def _given_unit(v: Variable, t: TensorType, sizes: Sizes, label: str | None = None) -> Unit:
    label = label or f"given {describe(v)}: {t}"
    if t.dtype != v.type.dtype or t.ndim != v.type.ndim:
        about = "dtype" if t.dtype != v.type.dtype else "rank"
        raise RefinementError((), Conflict(label, (), f"{describe(v)} is {v.type} in the "
                                           "graph; refine refines sizes, not dtypes or ranks"),
                              f"the given {about} contradicts the graph")
    return Unit.of(UNIFY, (Operand(v, v.type.dtype, v.wrapped),
                           Operand(None, t.dtype, v.wrapped, tuple(
                               symbol_dim(object()) if e is None else e for e in t.shape))),
                   1, None, label)


def _touching(units: list[Unit], touching: dict | None = None
              ) -> dict[Variable, list[Unit]]:
    """The units each Variable takes part in (added to ``touching``)."""
    touching = {} if touching is None else touching
    for u in units:
        for v in u.variables:
            if v is not None:
                touching.setdefault(v, []).append(u)
    return touching


def _operands(sizes: Sizes, unit: Unit) -> list:
    try:
        return [(dtype, wrapped, fixed if v is None else sizes.current(v)) for v, (
            dtype, wrapped), fixed in zip(unit.variables, unit.kinds, unit.fixed, strict=True)]
    except ZeroDivisionError:  # a size of the graph's types divides by 0 here
        raise undefined_size(sizes, unit) from None


def _settled(sizes: Sizes, units: list[Unit], touching: dict) -> Sizes:
    """``sizes`` after every unit's relation has run to the fixpoint
    (:func:`_fixpoint`), what the given types fix flowing from them first. A
    contradiction is explained as the graph's order meets it (the given types, then the
    nodes in order: the steps from the first given type on, as before that order was
    changed), so that part runs again from a copy of ``sizes`` in that order."""
    before = sizes.copy()
    try:
        _fixpoint(sizes, units, touching, given_first=True)
    except RefinementError:
        _fixpoint(before, units, touching)
        return before  # (the graph's order found no contradiction: its sizes)
    return sizes


def _fixpoint(sizes: Sizes, units: list[Unit], touching: dict | None = None,
              start: list[tuple[Unit, dict]] | None = None, given_first: bool = False
              ) -> None:
    """Run the units until none learns anything (all of them, or those ``start``'s
    facts, learnt by its units, touch).

    All of them: in order, or, ``given_first``, the given types first and what they fix
    flowing on from them (each unit whose sizes changed runs, until none does), then
    each unit that has not run yet, in order. A unit runs again whenever one of its
    Variables changes, so each ends having run on the sizes known at the end, whatever
    the order; from the given end, a unit mostly runs once, on sizes already fixed: a
    chain given its output's type runs each node once, where in the graph's order each
    ran twice (once learning that its output's size is its input's, then on ints)."""
    touching = _touching(units) if touching is None else touching
    queue: deque = deque()
    queued: set = set()
    ran: object | None = None  # while the given types' flow lasts: the mark of the units
    count = 0  # it ran (unit.mark; a token held by them, so no other flow has its id)
    if start is None:
        seeds = [u for u in units if u.node is None] if given_first else ()
        queue.extend(seeds or units)
        queued.update(seeds or units)
        if seeds:
            ran = object()
    for unit, found in start or ():
        _learn(sizes, unit, found, touching, queue, queued)
    progress = Progress("refine: relations solved")
    popleft, discard = queue.popleft, queued.discard
    resolved, resolve = sizes.known.get, sizes.resolve_entries
    dtype = rules_key()
    runs = 0
    try:
        while True:
            while queue:  # (the hot loop of refine: _operands and Sizes.current written out)
                runs += 1
                if not runs & 255:
                    progress.step(256)
                unit = popleft()
                discard(unit)
                if ran is not None and unit.mark is not ran:
                    unit.mark = ran
                    count += 1
                operands = []
                for v, fixed in zip(unit.variables, unit.fixed, strict=True):
                    if fixed is None:
                        try:
                            fixed = (resolved(v) or resolve(v))[0]
                        except ZeroDivisionError:  # a size of the graph's types divides by 0
                            raise undefined_size(sizes, unit) from None
                    operands.append(fixed)
                rules = unit.rules or dtype  # (a node's own: the rules make_node ran)
                found = run_sizes(unit, operands, rules) if unit.memo is not None else \
                    run(unit, [(*kind, e) for kind, e in zip(unit.kinds, operands, strict=True)],
                        rules)
                if found is None:
                    raise explain_conflict(sizes, unit)
                if found:
                    _learn(sizes, unit, found, touching, queue, queued)
            if ran is None or count == len(units):  # (all run: no walk of them)
                break
            rest = [u for u in units if u.mark is not ran]  # the units not run yet, in order
            ran = None
            queue.extend(rest)
            queued.update(rest)
    finally:
        progress.close()


def _learn(sizes: Sizes, unit: Unit, found: dict, touching: dict, queue: deque,
           queued: set) -> None:
    """Bind what ``unit`` found, and queue the units of the Variables that changed."""
    bindings, get = sizes.bindings, touching.get
    for symbol, value in found.items():
        if symbol in bindings:
            continue  # bound meanwhile
        if type(symbol) is not Hole:
            if not isinstance(symbol, str):
                continue  # an unknown of a given type (no axis)
            if unit.node is not None:
                continue  # a named size is rigid: what a node needs of it is a condition
        kind = type(value)
        if kind is Hole and value not in bindings:  # (resolve written out: a free hole)
            if value is symbol:
                continue  # no news
        elif kind is not int:
            value = sizes.resolve(value)
            if value is symbol or type(value) is not Hole and symbol in symbols_of(value):
                continue  # no news, or not a value of its own
        for v in sizes.bind(symbol, value, unit):
            for other in get(v, ()):
                if other is not unit and other not in queued:
                    queued.add(other)
                    queue.append(other)


#: Most units refine splits into cases after the fixpoint (each split that decides
#: something is followed by a new fixpoint).
MAX_SPLITS = 32


def _by_cases(sizes: Sizes, units: list[Unit], touching: dict) -> None:
    """Where a unit's relation leaves a few cases (a broadcast size is 1 or the result),
    run the graph's fixpoint in each: cases that contradict the graph are dropped, and
    what every surviving case agrees on is learnt (``reshape(x[a,2], -1) + y[6]``: the
    sum's size 1 leaves ``2a == 1``, so it is 6 and a is 3). No case left: the
    contradiction of the last one is raised."""
    splits = 0
    tried: set = set()
    progress = True
    while progress and splits < MAX_SPLITS and sizes.free_holes:  # (none: nothing to split)
        progress = False
        for unit in units:
            if unit.node is None or not any(
                    v is not None and sizes.open(v) for v in unit.variables):
                continue
            operands = _operands(sizes, unit)
            key = (id(unit), repr(operands))
            if key in tried:
                continue
            tried.add(key)
            options = cases(unit, operands)
            if options is None or len(options) < 2:
                continue
            splits += 1
            survivors, failed = [], []
            for facts in options:
                trial = sizes.copy()
                try:
                    _fixpoint(trial, units, touching, [(unit, facts)])
                except RefinementError as exc:
                    failed.append(exc)
                    continue
                survivors.append(trial)
            if not survivors:
                raise _every_case_fails(unit, failed)
            agreed = _agreed(sizes, survivors)
            if agreed:
                _fixpoint(sizes, units, touching, [(unit, agreed)])
                progress = True
                break
            if splits >= MAX_SPLITS:
                break


def _every_case_fails(unit: Unit, failed: list[RefinementError]) -> RefinementError:
    """The error when each case of ``unit`` contradicts the graph: the steps that lead
    to the contradictions (once each), and per case what it assumed and what fails."""
    steps: dict[str, Step] = {}
    cases_text = []
    for exc in failed:
        assumed = [st for st in exc.chain if st.source == unit.label]
        for st in exc.chain:
            if st not in assumed:
                steps.setdefault(str(st), st)
        what = " and ".join(f"{describe(st.variable)} axis {st.axis} is {st.value}"
                            for st in assumed) or "this case"
        cases_text.append(f"if {what}, {exc.conflict}")
    return RefinementError(tuple(steps.values()), Conflict(
        unit.label, (), f"each case its relation leaves fails: {'; '.join(cases_text)}"))


def _agreed(sizes: Sizes, survivors: list[Sizes]) -> dict:
    """The symbols free in ``sizes`` that every survivor binds to one value."""
    if not survivors:
        return {}
    first, rest = survivors[0], survivors[1:]
    out = {}
    for symbol in first.bindings.keys() - sizes.bindings.keys():
        value = first.symbol_value(symbol)
        if all(symbol in t.bindings and t.symbol_value(symbol) == value for t in rest):
            out[symbol] = value
    return out

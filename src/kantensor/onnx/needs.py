"""What a node needs of the sizes for its subgraphs: the conditions of an If's branch
that runs, of a loop's body at every iteration.

A subgraph is read by a reader of its own (:mod:`.subgraph`), whose nodes record their
conditions there; onnxruntime fails the node where a run of its subgraph fails, so
those conditions are the node's, over the outer graph's sizes (a captured value's
stand-in read as the outer value it stands for), each naming its node and subgraph.

An If's branch (:func:`branch_conditions`):

* a condition known when the model is read: the conditions of the branch it picks;
* a comparison of sizes (``Equal(n, 1)``): each branch's conditions where it is taken,
  ``n != 1 or C`` for the then branch's ``C``, exactly;
* any other condition (the data decide it): each branch's conditions under a size the
  data decide, the If's ``<name>_then`` (1 where it takes its then branch, 0 where its
  else branch: a :class:`~kantensor.types.symbols.DataSymbol` bounded by ``0 <= t <=
  1``), ``t == 0 or C``. A contract quantifies it away: valid where both branches' hold,
  invalid where neither's, undecided where only one branch fails.

A branch that cannot be typed (its nodes contradict each other at every size, or the
sizes around it) fails wherever it is taken: the If then needs it not taken, and its
outputs are the other branch's.

A Loop's or Scan's body (:func:`body_conditions`), typed once with a symbol for each
carried size and the iteration number (:mod:`.recurrence`), needs its conditions at
every iteration (a SequenceMap's at every element): where the loop runs (``iters == 0
or C``), with each carried size that never changes its initial size; a size that
changes from one iteration to the next is no size of the graph around, so a condition
over it is one the data decide (a DataSymbol of its own, unbounded: ``holds`` is
undecided where it matters). A Loop's iteration number ``i`` runs over ``0 .. iters -
1``: a comparison affine in ``i`` alone among the changing sizes (a Gather's ``x[i + 2]``
needs ``i + 3 <= n``) holds at every ``i`` exactly where it holds at both ends, so it is
stated there (``iters == 0 or (3 <= n and iters + 2 <= n)``, :func:`at_ends`); any other
at each ``i`` where the count is a known int (at most :data:`MAX_ENUMERATED`; one that
divides by ``i``, a Reshape's ``-1`` beside ``i``, fails at ``i = 0``). A body
that cannot be typed with ``i`` a size (:func:`refused_index`) needs no iteration where
its relations hold at no ``i``, else leaves its iterations to the data. The Loop's own
conditions over its body's sizes (``more``: each scan output one shape at every
iteration, ``Recurrence._same``) are stated the same way.

A Loop's scan output whose shape its body does not declare (:func:`idle_scans`) has,
after no iteration, the shape onnxruntime's own inference of the body finds: its types
are the build's choice of an iteration run (``iters >= 1``).

A Scan over an empty axis (:func:`scan_conditions`): ONNX's pseudo-code runs no
iteration and leaves each scan output "an empty tensor" of no stated shape; onnxruntime
refuses every such run (its tensor slicer fails, or its process dies on a scan axis
other than 0), and onnx.reference refuses it where the Scan has scan outputs. So a Scan
needs its scan axis ``>= 1`` (and, at opset 8, its batch axis ``>= 1``: onnxruntime's
process dies on an empty batch), and its body's conditions unguarded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import onnx

from ..ops.located import VariableAxis
from ..syntax.errors import TypeInferenceError
from ..types.conditions import AnyOf, Clause, Condition, Source
from ..types.dim import Dim, unknown
from ..types.intervals import interval
from ..types.symbols import DataSymbol, free_symbols, substitute
from ..types.type import TensorType
from .declared import NEGATED, NOTHING, Declared
from .registry import UnsupportedOp, lookup
from .sequence import scalar_value
from .shared import NotKnown
from .subgraph import base_name

__all__ = ["body_conditions", "branch_conditions", "compared", "refused_index",
           "scan_conditions"]

def _declared(scope: Any, node: onnx.NodeProto) -> Declared:
    """What the entry of ``node`` (read by ``scope``) declares (nothing: no entry)."""
    domain = "" if node.domain == "ai.onnx" else node.domain
    try:
        return lookup(node.op_type, domain, scope.opsets.get(domain), node.name).declared
    except UnsupportedOp:
        return NOTHING


def compared(scope: Any, name: str) -> tuple[Any, str, str, Any] | None:
    """``(left, yes, no, right)`` where the value of the bool ``name`` is the size
    condition ``left yes right`` (and its negation ``left no right``): a comparison of
    sizes known when the model is read (an entry that ``compares``), through any ops
    whose ``values`` keep their input's (reshapes) or negate it (Not); else None."""
    producers = {o: n for n in scope.proto.node for o in n.output}
    producer = producers.get(name)
    negate = False
    declared = _declared(scope, producer) if producer is not None else NOTHING
    while declared.values in ("kept", "negated") and producer.input:
        negate ^= declared.values == "negated"
        producer = producers.get(producer.input[0])
        declared = _declared(scope, producer) if producer is not None else NOTHING
    if declared.compares is None or len(producer.input) != 2:
        return None
    sides = [scalar_value(scope, n) for n in producer.input]
    if any(s is None for s in sides) or not any(isinstance(s, Dim) for s in sides):
        return None
    yes = declared.compares
    no = NEGATED[yes]
    return (sides[0], no, yes, sides[1]) if negate else (sides[0], yes, no, sides[1])


def branch_conditions(scope: Any, node: onnx.NodeProto, label: str,
                      subs: dict[bool, Any], cond: bool | None, failed: Iterable[bool] = ()
                      ) -> tuple[Clause, ...]:
    """The conditions the If ``node`` (read by ``scope``; ``subs``: its branches' readers
    by the condition's value, ``cond`` that value where known; ``failed``: the branches
    that fail at every size the facts leave) needs of the sizes."""
    own = {truth: _outer(scope, node, label, sub, truth) for truth, sub in subs.items()}
    if cond is not None:
        return own.get(cond, ())
    failed = tuple(failed)
    if not failed and not any(own.values()):
        return ()
    sides = compared(scope, node.input[0])
    if sides is not None:
        left, yes, no, right = sides
        source = Source(op="If", node=label)
        guard = {True: Condition(left, no, right, source),
                 False: Condition(left, yes, right, source)}
    else:
        symbol = DataSymbol(f"{base_name(node.name or 'If_' + node.output[0])}_then",
                            f"1 where If node {label!r} takes its then_branch, 0 where "
                            "its else_branch (its condition's value decides it)")
        taken = Dim(symbol)
        symbol.bounds = (Condition(taken, ">=", 0), Condition(taken, "<=", 1))
        guard = {True: Condition(taken, "==", 0), False: Condition(taken, "==", 1)}
    out: list[Clause] = [guard[truth].with_source(Source(op="If", node=f"{label}: "
                         f"{'then' if truth else 'else'}_branch fails at every size"))
                         for truth in failed]
    for truth, clauses in own.items():
        for c in clauses:
            cases = ((c,),) if isinstance(c, Condition) else c.cases
            out.append(AnyOf(((guard[truth],), *cases), c.source))
    return tuple(out)


def body_conditions(scope: Any, node: onnx.NodeProto, label: str, sub: Any, count: Any,
                    symbols: Iterable[str] = (), known: dict | None = None,
                    runs: bool = False, index: str | None = None,
                    more: tuple[Clause, ...] = (), first: dict | None = None
                    ) -> tuple[Clause, ...]:
    """The conditions a Loop's, Scan's or SequenceMap's ``node`` (read by ``scope``)
    needs for its body (``sub``: its reader) to hold at every one of its ``count`` runs
    (an int, a Dim, or None: not known); ``symbols``: the body's own sizes (a
    :class:`~.recurrence.Recurrence`'s carried sizes and iteration number), ``known``
    those that never change, by their initial sizes; ``runs``: the node needs ``count
    >= 1`` (a Scan, :func:`scan_conditions`), so the body's are needed unguarded;
    ``index``: which of ``symbols`` is the iteration number (a Loop's), which runs over
    ``0 .. count - 1``; ``first``: the initial sizes of the symbols that change (a
    Loop's carried sizes, known or symbolic when the model is read): its first
    iteration sees them, so the body's conditions hold there too (:func:`_first`)."""
    if count == 0 or not (sub.conditions or more):
        return ()
    sizes: dict[Any, Any] = {}
    changing: dict[str, DataSymbol] = {}
    for s in sorted(symbols, key=str):
        n0 = (known or {}).get(s)
        if n0 is None:
            changing[s] = DataSymbol(f"{s}", f"a size of {label}'s body that may change "
                                     "from one iteration to the next (the data decide it "
                                     "at each)")
        sizes[s] = n0 if n0 is not None else Dim(changing[s])
    own = _outer(scope, node, label, sub, "body", sizes, more)
    if count is None:
        symbol = DataSymbol(f"{base_name(label)}_runs", f"how many times {label!r} runs "
                            "its body (the data decide it)")
        count = Dim(symbol)
        symbol.bounds = (Condition(count, ">=", 0),)
    start = _first(scope, node, label, sub, count, sizes, first or {}, index, runs)
    j = changing.get(index) if index is not None else None
    own = tuple(x for c in own if (x := at_ends(c, j, count, frozenset(changing.values()))))
    if isinstance(count, int) or runs:  # (> 0: each holds at the first iteration)
        return (*start, *(x for c in own for x in ((c,) if isinstance(c, AnyOf) else c)))
    idle = Condition(count, "==", 0, Source(op=node.op_type, node=label))
    return (*start, *(AnyOf(((idle,), *((c,) if not isinstance(c, AnyOf) else c.cases)),
                       c.source if isinstance(c, AnyOf) else c[0].source) for c in own))


def _first(scope: Any, node: onnx.NodeProto, label: str, sub: Any, count: Any,
           sizes: dict, first: dict, index: str | None, runs: bool) -> tuple[Clause, ...]:
    """The conditions a Loop's body (``sub``) needs at its first iteration, which runs
    where ``count >= 1``, over the carried sizes that change: there they are their
    initial ones (``first``) and the iteration number (``index``) 0, where the body's
    other conditions see each a size the data decide (``sizes``). A body that refuses
    its carried value's initial size but takes the size it sets (``v + c2`` of ``v0``
    of size 3, ``c2`` of 2) fails there: onnxruntime refuses every run with a count >=
    1. One that holds nowhere there needs ``count == 0``; where the count is known (an
    int, >= 1) or the node runs its body (``runs``), it is refused."""
    if not first:
        return ()
    at = {**sizes, **first, **({index: 0} if index is not None else {})}
    out: list[Clause] = []
    for raw, c in zip(sub.conditions, _outer(scope, node, label, sub, "body", at),
                      strict=True):
        if not raw.symbols() & first.keys():
            continue  # (the others: body_conditions)
        if c.symbols():
            out.append(c if isinstance(count, int) or runs else
                       AnyOf(((Condition(count, "==", 0, c.source),),
                              *(((c,),) if isinstance(c, Condition) else c.cases)),
                             c.source))
        elif not c.holds({}):  # (a contradiction: the first iteration fails)
            if isinstance(count, int) or runs:
                raise TypeInferenceError(f"node {label!r} ({node.op_type}): its body fails "
                                         f"at its first iteration: {c}")
            out.append(Condition(count, "==", 0, c.source))
    return tuple(out)


def refused_index(node: onnx.NodeProto, label: str, count: Any,
                  refused: Exception | None, why: str = "its body, typed with the "
                  "iteration number a size, was refused") -> tuple[Clause, ...]:
    """What the Loop ``node`` needs where its body could not be typed with the iteration
    number a symbol (``refused``: the error; the body was then typed with the number
    unknown, so :func:`body_conditions` has none of the conditions over it). A
    :class:`TypeInferenceError` says the body's relations hold at no iteration number
    (``x[i + 5]`` of 2 rows): the Loop must run no iteration (``count == 0``; where
    ``count`` is an int >= 1, the Loop is refused: ``refused`` is raised). Any other
    refusal leaves each iteration's conditions to the data: ``<node>_fits == 1`` for a
    size the data decide in ``[0, 1]`` (1 where the body holds at every iteration), so
    ``holds`` decides no point where the Loop runs. None of them where the Loop runs no
    iteration (``count == 0``). ``why``: what was refused, in the condition's source (a
    body read as it runs, at the carried values' types, whose relations contradict the
    sizes around it, is refused alike)."""
    if refused is None or count == 0:
        return ()
    first = str(refused).splitlines()[0] if str(refused) else type(refused).__name__
    source = Source(op=node.op_type, node=label, detail=f"{why}: {first}")
    if count is None:
        symbol = DataSymbol(f"{base_name(label)}_runs", f"how many times {label!r} runs "
                            "its body (the data decide it)")
        count = Dim(symbol)
        symbol.bounds = (Condition(count, ">=", 0),)
    if isinstance(refused, TypeInferenceError):
        if isinstance(count, int):  # (>= 1: it runs a first iteration, which fails)
            raise refused
        return (Condition(count, "==", 0, source),)
    idle = Condition(count, "==", 0, source)
    symbol = DataSymbol(f"{base_name(label)}_fits", f"1 where the body of {label!r} holds "
                        "at every iteration number, else 0 (its conditions over the "
                        "number were not stated: a builder refused it as a size)")
    fits = Dim(symbol)
    symbol.bounds = (Condition(fits, ">=", 0), Condition(fits, "<=", 1))
    holds = Condition(fits, "==", 1, source)
    if isinstance(count, int):
        return (holds,)
    return (AnyOf(((idle,), (holds,)), source),)


#: The most iterations of a Loop of a known count at which a condition of its body over
#: the iteration number is stated one by one (:func:`at_ends`).
MAX_ENUMERATED = 64


def at_ends(c: Clause, j: Any, count: Any, changing: frozenset) -> Clause | tuple:
    """A body's condition ``c`` needed at every iteration number ``j`` in ``0 .. count -
    1`` (count >= 1): where ``c`` is a comparison affine in ``j`` (no ``!=``) and names no
    other size that changes between iterations, the values of ``j`` where it holds are
    an interval, so it holds at every ``j`` exactly where it holds at both ends: the
    conditions at ``j = 0`` and ``j = count - 1`` (a tuple, their conjunction, without
    those that hold at every size).
    Where ``count`` is an int of at most :data:`MAX_ENUMERATED`, ``c`` (a disjunction
    too) at each ``j`` in ``0 .. count - 1``, whatever its form (``x[i*i]``).
    Otherwise ``c`` itself (in a 1-tuple for a Condition), ``j`` left to the data (or no
    ``j``: None)."""
    if j is None or j not in c.symbols():
        return c if isinstance(c, AnyOf) else (c,)
    if (c.symbols() & changing) - {j}:
        return c if isinstance(c, AnyOf) else (c,)
    if _affine(c, j):
        at = (0, count - 1)
    elif isinstance(count, int) and 0 < count <= MAX_ENUMERATED:
        at = range(count)
    else:
        return c if isinstance(c, AnyOf) else (c,)
    each = (_at(c, j, k) for k in at)
    return tuple(dict.fromkeys(e for e in each if not _always(e)))


def _at(c: Clause, j: Any, k: Any) -> Clause:
    """``c`` at the iteration number ``j = k``; a condition that divides by a size
    that is 0 there has no value and does not hold (as :meth:`Condition.holds` says):
    ``(a*b) % j == 0`` at ``j = 0`` is a condition that holds at no size."""
    if isinstance(c, AnyOf):
        return AnyOf(tuple(tuple(_at(x, j, k) for x in case) for case in c.cases), c.source)
    try:
        return c.substitute({j: k})
    except ZeroDivisionError:
        return Condition(0, "!=", 0, c.source)


def _always(c: Clause) -> bool:
    """Whether ``c`` holds at every size by its form (``d*n == d*n``, ``3 <= 5``)."""
    if isinstance(c, Condition) and isinstance(c.key[0], int) or not c.symbols():
        return c.holds({})
    return False


def _affine(c: Clause, j: Any) -> bool:
    """Whether ``c`` is a comparison (not ``!=``) affine in ``j``."""
    if not isinstance(c, Condition):
        return False
    d, op = c.key
    try:
        slope = substitute(d, {j: 1}) - substitute(d, {j: 0})
    except ZeroDivisionError:  # (a division by ``j``: not affine)
        return False
    return op != "!=" and isinstance(slope, int) and \
        j not in free_symbols(d - slope * Dim(j))


def empty_shape(info: onnx.ValueInfoProto, t: TensorType) -> tuple[int, ...]:
    """A scan output's per-iteration shape after no iteration, as onnxruntime makes it:
    the sizes the body's output declares as ints, the others 0."""
    dims = info.type.tensor_type.shape.dim if info.type.HasField("tensor_type") else []
    if len(dims) != t.ndim:
        return (0,) * t.ndim
    return tuple(d.dim_value if d.HasField("dim_value") else 0 for d in dims)


def idle_scans(label: str, count: Any, scanned: Iterable[onnx.ValueInfoProto],
               types: Iterable[TensorType]) -> tuple[Condition, ...]:
    """What a Loop needs of its iteration count ``count`` where a scan output's shape is
    not declared by its body's output (``scanned``), or declared of another rank than
    its type's (``types``: an iteration's, as the body's typing gives them; onnxruntime
    warns of the mismatch and goes on). After no iteration, onnxruntime gives such an
    output its declared shape, or the shape its own inference of the body finds (rank 1,
    ``(0,)``, where it finds none), not the iteration axis beside the rank the body's
    typing gives. So the types stand where the Loop runs an iteration: ``count >= 1``, the
    build's choice (where it fails, the output has another rank: not covered, never
    invalid); where the count is 0 (or not a size), the rank is not known and the node is
    left untyped (NotKnown, with what it reaches)."""
    names = [o.name for o, t in zip(scanned, types, strict=True)
             if not o.type.HasField("tensor_type") or not o.type.tensor_type.HasField("shape")
             or len(o.type.tensor_type.shape.dim) != t.ndim]
    if not names or isinstance(count, int) and count >= 1 or \
            isinstance(count, Dim) and (interval(count)[0] or 0) >= 1:
        return ()
    why = (f"the body of {label!r} does not declare the shape of its scan output "
           f"{names[0]!r} (or of another rank), which onnxruntime gives after no iteration "
           "as declared, or as its own inference of the body finds it (rank 1 where it "
           "finds none)")
    if not isinstance(count, Dim):
        raise NotKnown(f"node {label!r} (Loop) runs no iteration (or a number not known): "
                       f"{why}")
    return (Condition(count, ">=", 1, Source(
        op="Loop", node=label, detail=why,
        otherwise="another rank: the shape onnxruntime's inference of the body finds")),)


def scan_conditions(label: str, count: Any, batch: Any = None) -> tuple[Condition, ...]:
    """What the Scan node ``label`` needs of its scan axis' size ``count`` (and, at opset
    8, of its batch axis' ``batch``; each an int or a Dim, None where no size applies):
    ``>= 1``, since onnxruntime refuses a scan over an empty axis (module docstring)."""
    source = Source(op="Scan", node=label, detail="onnxruntime refuses a Scan over an "
                    "empty axis")
    return tuple(Condition(n, ">=", 1, source) for n in (count, batch)
                 if n is not None and not (isinstance(n, int) and n >= 1))


def _outer(scope: Any, node: onnx.NodeProto, label: str, sub: Any, truth: bool | str,
           sizes: dict | None = None, more: tuple[Clause, ...] = ()) -> tuple[Clause, ...]:
    """The conditions of the subgraph ``sub`` (the branch ``truth``, or a loop's body)
    in the terms of the graph around it (the unknown axes of a captured value's
    stand-in, the outer value's; ``sizes``: the body's own symbols' sizes there), each
    naming its node and the subgraph; and ``more``, the node's own conditions over the
    subgraph's sizes, in those terms too."""
    if not (sub.conditions or more):
        return ()
    mapping: dict[Any, Any] = dict(sizes or {})
    for name, stand_in in sub.captured.items():
        outer = scope.var(name, node)
        for axis, d in enumerate(getattr(stand_in.type, "shape", ())):
            if d is None:
                mapping[VariableAxis(stand_in, axis)] = unknown(VariableAxis(outer, axis))
    where = f"{label}: body" if truth == "body" else \
        f"{label}: {'then' if truth else 'else'}_branch"

    def moved(c: Condition) -> Condition:
        c = c.substitute(mapping) if mapping and c.symbols() & mapping.keys() else c
        return c.with_source(_within(c.source, where))

    out: list[Clause] = []
    for c in sub.conditions:
        if isinstance(c, Condition):
            out.append(moved(c))
        else:
            out.append(AnyOf(tuple(tuple(moved(x) for x in case) for case in c.cases),
                             _within(c.source, where)))
    out += [c.substitute(mapping) if mapping and c.symbols() & mapping.keys() else c
            for c in more]
    return tuple(out)


def _within(source: Source | None, where: str) -> Source:
    """``source`` (a branch node's) saying which If's branch holds its node."""
    if source is None:
        return Source(node=where)
    return replace(source, node=f"{source.node} in {where}" if source.node else where)

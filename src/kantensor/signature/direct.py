"""Forward builds decided without search: the relation of a signature run directly on
input types whose sizes are ints, named sizes or unknown, where every step of the solve
is a check or a computation.

:func:`direct_build` walks a signature's alternatives in order as the forward solve does
(:mod:`.forward`), and per alternative does on the ground sizes what each constraint of
:mod:`.compile` and :mod:`.axes` would do there: match the axes of the layout the ranks
choose, compare the sizes one dim or group names, broadcast the loop dims and groups
(NumPy's rule), promote and check dtypes, check the where-clauses, and compute the
outputs. An alternative that certainly fails is skipped, as the relation skips it. Where
the relation would have to solve (a dim expression in an input, a ``broadcast(...)``
clause other than NumPy's rule on the inputs' sizes defining one of its own, an unknown
size in a where-clause or an output's expression, a divisor of either that may be 0,
an ``==`` where-clause the facts do not decide) or keep a condition other than a
broadcast's or a where-clause's (two named sizes one dim names that the facts do not
equate), it declines: None, and the kanren solve answers. A where-clause comparison the
facts leave open (a pool's ``out >= 1`` over a named size) is kept as the forward answer
keeps it (with a broadcast's open too, it declines). An unknown size met by a dim
declines too (the relation keeps the condition that it equals what it meets); one no dim
meets passes through unknown. A broadcast the sizes leave open (an unknown size against
another, two named sizes) keeps the condition the forward answer keeps
(:mod:`.broadcasts`), unless a later alternative could apply where it fails (a case
split: the relation's). So its answers are the relation's, exactly (the same
:class:`~.forward.Build`, conditions and their sources included); tests/test_direct.py
runs both by brute force on small domains and on the catalogue's examples retyped at
random. It exists for speed: where nodes all differ (no memo hit) the relation's
machinery costs two to three times a build this way (docs/performance.rst).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..logic.dims import COMPARE
from ..logic.dtypes import category_dtypes
from ..syntax import ast as A
from ..syntax.alternative import Overloads
from ..types.conditions import Clause, Condition, Source, is_choice
from ..types.dim import Dim
from ..types.dtypes import is_lossless_cast
from ..types.facts import Facts
from ..types.type import TensorType
from .broadcasts import Broadcasts
from .broadcasts import Fails as _Fails
from .compile import CompiledAlternative
from .directdtypes import DtypePlan, promote
from .expressions import Open as _Open
from .expressions import ceiling as _ceiling
from .expressions import constant_holds as _constant_holds
from .expressions import decided as _decide
from .expressions import divides_by_size, divisors_nonzero, nonzero_divisors
from .expressions import evaluated as _value
from .expressions import named as _named
from .expressions import output_size as _output_size
from .expressions import symbolic as _symbolic
from .layout import LOOP
from .overloads import compiled

__all__ = ["direct_build"]

_AT_LEAST = frozenset((">=", ">"))  # (the ops of a comparison keyed (left - right, op))


_UNSET = object()  # a dim no input has bound yet


def direct_build(sig: Overloads, types: tuple[TensorType, ...], wrapped: tuple[bool, ...],
                 facts: Facts) -> tuple[tuple[TensorType, ...], tuple[Clause, ...]] | None:
    """The output types the relation of ``sig`` gives ``types`` and the conditions they
    hold under, or None when that is not decided without search (the relation then
    answers; it also says why no alternative applies)."""
    for t in types:
        for x in t.shape:
            if type(x) is not int and x is not None and not _named(x):
                return None  # a size over another solve's unknowns
    found = None
    for c in _candidates(sig, len(types), tuple([t.dtype for t in types])):
        plan = _plan(c)
        if plan is None:
            return None
        try:
            answer = plan.apply(types, wrapped, facts)
        except _Fails:
            continue
        except _Open:
            return None
        if found is not None:  # a later alternative applies where the conditions fail:
            return None  # a case split, the relation's
        if not answer[1] or any(map(is_choice, answer[1])):
            return answer  # unconditional, or under a builder's choice (the relation's)
        found = answer  # it holds under conditions: the later alternatives must all fail
    return found


@lru_cache(maxsize=4096)
def _candidates(sig: Overloads, n: int, dtypes: tuple[str, ...]
                ) -> tuple[CompiledAlternative, ...]:
    """The alternatives of ``sig`` that ``n`` inputs of ``dtypes`` may apply to, in
    order (the arity and dtype guards), found once per signature and dtypes."""
    return tuple([c for c in compiled(sig) if c.n_in == n and not c.refuses_dtypes(dtypes)])


@lru_cache(maxsize=4096)
def _plan(c: CompiledAlternative) -> _Plan | None:
    """How to run ``c`` directly, or None when some step would need the solver: a dim
    expression in an input (an equation), a ``broadcast(...)`` clause, a size or dtype
    name that no input binds."""
    alt = c.alt
    bound: set[str] = set()
    for op in alt.inputs:
        for d in op.dims:
            if isinstance(d, A.BinOp | A.Call):
                return None
            if isinstance(d, A.DimVar | A.FlexDim):
                bound.add(d.name)
    used: set[str] = set()
    expressions = []
    for op in alt.outputs:
        for d in op.dims:
            if isinstance(d, A.FlexDim):
                used.add(d.name)
            elif isinstance(d, A.EXPR_TYPES):
                used.update(A.expr_names(d))
                expressions.append(d)
    dtypes_used: list[str] = []
    compared: set[str] = set()
    results: set[str] = set()  # the sizes broadcast(...) clauses define
    for clause in c.where_clauses:
        if isinstance(clause, A.Compare):
            compared.update(A.expr_names(clause.left))
            compared.update(A.expr_names(clause.right))
            expressions += [clause.left, clause.right]
        elif isinstance(clause, A.InCategory):
            dtypes_used += A.dtype_names(clause.dtype)
        elif isinstance(clause, A.DTypeEq | A.Compatible):
            dtypes_used += A.dtype_names(clause.left) + A.dtype_names(clause.right)
        elif not _plain_broadcast(clause, bound, results):
            return None  # a broadcast the solver must define or equate
        else:
            results.add(clause.result.name)
    if not used <= bound | results or not compared <= bound or \
            not all(map(_symbolic, expressions)):
        return None
    binders = {op.dtype.name for op in alt.inputs if isinstance(op.dtype, A.DTypeVar)}
    for op in alt.operands:
        if op.dtype is not None:
            dtypes_used += A.dtype_names(op.dtype)
    if not set(dtypes_used) <= binders:
        return None
    if alt.outputs and not alt.inputs and any(op.dtype is None for op in alt.outputs):
        return None  # an output dtype nothing determines
    return _Plan(c)


def _plain_broadcast(clause: A.Broadcasts, bound: set[str], results: set[str]) -> bool:
    """Whether a ``broadcast(...) == u`` clause is NumPy's rule on sizes the inputs give
    (names they bind, ints), defining a size ``u`` of its own that no input binds and no
    other clause defines: the rule of one broadcast axis (:class:`.Broadcasts`), whose
    result the outputs may name. Any other (an expression, a result an input binds: a
    size the broadcast must equal) is the solver's."""
    result = clause.result
    return type(result) is A.DimVar and result.name not in bound and \
        result.name not in results and all(
            type(a) is A.FixedDim or (type(a) is A.DimVar and a.name in bound)
            for a in clause.args)


def _same(a: Any, b: Any, facts: Facts) -> bool:
    """Whether sizes ``a`` (met first) and ``b`` unify, as ``unify_oc`` decides it for
    ground sizes: two ints by value, a named size by the facts (never merged); _Open
    when only a condition could say (the relation would keep it), as for an unknown
    size (the relation binds it, under the condition that it equals what it met)."""
    if a is None or b is None:
        raise _Open
    if type(a) is int:
        if type(b) is int:
            return a == b
        a, b = b, a  # the named size first, as logic.store._rigid orders them
    elif type(b) is not int and a == b:
        return True
    decided = facts.decide((a, "==", b))
    if decided is None:
        raise _Open
    return decided


class _Plan(DtypePlan):
    """One alternative, run directly on ground inputs (see :func:`_plan`)."""

    __slots__ = ("c", "inputs", "outputs", "binders", "cap", "clauses", "broadcasts", "_sources")

    def __init__(self, c: CompiledAlternative) -> None:
        self.c = c
        alt = c.alt
        self.inputs = alt.inputs
        self.outputs = alt.outputs
        self.binders = c._binders
        self.cap = alt.max_loop_dims
        # a comparison of constants that holds (a template's ``0 == 0``) is checked once;
        # each clause with its place among the compiled ones (a kept condition's source
        # says its text, made when first needed)
        # (and, for a comparison ``x >= min(n, 1)``, the int its right side never
        # exceeds: see :func:`.expressions.ceiling`)
        self.clauses = tuple([(clause, k, _ceiling(clause.right) if isinstance(
                                  clause, A.Compare) and clause.op in _AT_LEAST else None)
                              for k, clause in enumerate(c.where_clauses)
                              if not isinstance(clause, A.Broadcasts) and not (
                                  isinstance(clause, A.Compare) and not A.expr_names(clause.left)
                                  and not A.expr_names(clause.right) and _constant_holds(clause))])
        # each broadcast(...) clause, with its place (see :attr:`sources`)
        self.broadcasts = tuple([(clause, k) for k, clause in enumerate(c.where_clauses)
                                 if isinstance(clause, A.Broadcasts)])
        self._sources: tuple[Source, ...] | None = None

    @property
    def sources(self) -> tuple[Source, ...]:
        """Per broadcast(...) clause, the source of its condition as the relation's
        constraint says it (logic.answers.said_of a Broadcast posted by compile.py),
        made when first asked."""
        if self._sources is None:
            texts = self.c.clause_texts
            self._sources = tuple([Source(detail=f"where-clause {texts[k]}")
                                   for _, k in self.broadcasts])
        return self._sources

    def apply(self, types: tuple[TensorType, ...], wrapped: tuple[bool, ...], facts: Facts
              ) -> tuple[tuple[TensorType, ...], tuple[Clause, ...]]:
        c = self.c
        axes = c.axes
        n_in = c.n_in
        if axes.flex is None:
            layout = axes.fixed
        else:
            presence = axes.flex.presence({i: len(types[i].shape) for i in axes.flex.inputs})
            if presence is None:
                raise _Open
            layout = axes.layout(presence)
            if layout is None:
                raise _Fails
        dims: dict[str, Any] = {}
        shared: dict[Any, tuple] = {}  # a group's sizes (one term for every operand)
        parts: dict[tuple, tuple] = {}  # (group, input): its sizes there, under '+'
        starts: dict[tuple, int] = {}  # (group, input): its first axis there, under '+'
        broadcast = axes.broadcast
        singles = not layout.groups
        for i in range(n_in):
            shape = types[i].shape
            n_variables, fixed, variable = layout.counts[i]
            if n_variables > 1:
                raise _Open
            ndim = len(shape)
            rule = layout.rank_rules[i]
            if rule is not None and rule[0] != (ndim >= rule[1]):
                raise _Fails
            if ndim < fixed or (variable is None and ndim != fixed):
                raise _Fails
            glen = ndim - fixed
            if variable is not None and variable.node == LOOP and self.cap is not None \
                    and glen > self.cap:
                raise _Fails
            if singles:  # single axes only (most layouts): each item read as its pair
                row = layout.items[i]  # (as long as shape here: by index, no zip made)
                for k in range(ndim):
                    name, known = row[k].pair
                    size = shape[k]
                    if name is not None:
                        seen = dims.get(name, _UNSET)
                        if seen is _UNSET:
                            dims[name] = size
                        elif (seen is not size or seen is None) and \
                                not _same(seen, size, facts):
                            raise _Fails
                    elif known is None:
                        raise _Open
                    elif size != known if type(size) is int else not _same(size, known, facts):
                        raise _Fails
                continue
            axis = 0
            for it in layout.items[i]:
                g = it.group
                if g is not None:
                    n = it.length if it.length is not None else glen
                    part = shape[axis:axis + n]
                    axis += n
                    key = (g, i) if broadcast else g
                    table = parts if broadcast else shared
                    seen = table.get(key)
                    if seen is None:
                        table[key] = part
                        starts[key] = axis - n
                    elif broadcast:
                        raise _Open  # a group twice in an operand: the relation unifies
                    elif len(seen) != len(part) or not all(
                            _same(a, b, facts) for a, b in zip(seen, part, strict=True)):
                        raise _Fails
                    continue
                node, size = it.node, shape[axis]
                axis += 1
                if type(node) is A.DimVar:
                    seen = dims.get(node.name, _UNSET)
                    if seen is _UNSET:
                        dims[node.name] = size
                    elif (seen is not size or seen is None) and not _same(seen, size, facts):
                        raise _Fails
                elif type(node) is A.FixedDim:
                    if not _same(size, node.size, facts):
                        raise _Fails
                else:
                    raise _Open
        open_axes = Broadcasts(facts) if broadcast else None
        if broadcast:
            for g in layout.groups:
                holders = [i for i in layout.holders[g] if i < n_in]
                held = [parts[g, i] for i in holders]
                if len(held) == 1:  # one operand: each axis is its own size (NumPy's
                    shared[g] = held[0]  # rule of one size: Broadcasts.axis gives it)
                    continue
                width = max(map(len, held), default=0)
                # per input, (input, its first axis of g, how many axes it lacks): where
                # axis a of the broadcast is in it (a place for a condition's unknown)
                origins = [(i, starts[g, i], width - len(p)) for i, p in zip(holders, held,
                                                                            strict=True)]
                shared[g] = tuple([open_axes.axis(
                    [p[a + len(p) - width] for p in held if a + len(p) - width >= 0],
                    origins, a, width, g) for a in range(width)])
        env = self._dtypes(types, wrapped)
        values: dict[int, Any] = {}  # a dim expression's value, by the node (see _value)
        undecided = self._clauses(env, dims, values, facts, types, wrapped)
        # (the open comparisons, decided by their keys; most builds leave none: no list)
        asked = [c for c in undecided if c.op in _AT_LEAST] if undecided else undecided
        if self.broadcasts:
            if open_axes is not None and open_axes.opened():
                raise _Open  # two kinds of broadcast kept: the relation's order
            open_axes = self._broadcast_clauses(dims, facts)
        sizes_out, symbolic, unknowns, divided = [], False, False, [*self.c.dividing]
        for j in range(len(self.outputs)):
            sizes: list = []
            for it in layout.items[n_in + j]:
                g = it.group
                if g is not None:
                    part = shared.get(g)
                    if part is None:
                        raise _Open
                    sizes.extend(part)
                    if not unknowns:  # (by identity: ``None in part`` calls Dim.__eq__
                        for x in part:  # on each named size, to no effect)
                            if x is None:
                                unknowns = True
                                break
                    continue
                node = it.node
                if type(node) is A.DimVar:
                    value = dims.get(node.name, _UNSET)
                    if value is _UNSET:  # a flexible dim the variant dropped: unknown
                        raise _Open
                    unknowns = unknowns or value is None
                    sizes.append(value)
                elif type(node) is A.FixedDim:
                    sizes.append(node.size)
                else:
                    value = _output_size(node, dims, values, facts)
                    symbolic = symbolic or type(value) is not int
                    divided += [node] if divides_by_size(node) else []
                    sizes.append(value)
            sizes_out.append(sizes)
        conditions: tuple = ()
        opened = open_axes is not None and open_axes.opened()
        if opened and undecided:
            raise _Open  # the forward answer reduces both together, in its pending order
        if opened or undecided:  # kept as the forward answer keeps them, sizes simplified
            kept = open_axes.conditions() if opened else facts.reduce(undecided, asked)
            if kept is None:
                raise _Fails
            conditions = tuple(kept)
            facts = facts.with_(*kept)
        if symbolic:  # an output's size is one only where >= 0 and its divisors not 0
            for sizes in sizes_out:  # (the forward answer keeps that, unless implied)
                for x in sizes:
                    if isinstance(x, Dim) and not (_decide(facts, x, ">=") and (
                            not divided or nonzero_divisors(facts, x))):
                        raise _Open
        if divided and not divisors_nonzero(facts, divided, dims, values):
            raise _Open  # (one its value dropped: (n//m) % 1 is 0, undefined at m == 0)
        out = []  # simplified as forward_types: where it solved, kept or left a size open
        simplify = opened or bool(undecided) or bool(facts) or symbolic or unknowns
        for j, op in enumerate(self.outputs):
            dtype = self._dtype(op.dtype, env, types, wrapped) if op.dtype is not None \
                else promote(types, wrapped, range(n_in))
            sizes = sizes_out[j]
            if simplify:
                sizes = [facts.simplify(x) if isinstance(x, Dim) else x for x in sizes]
            try:
                out.append(TensorType(dtype, sizes))
            except ValueError:  # past the limits of a type: the relation says so
                raise _Open from None
        return tuple(out), conditions

    def _broadcast_clauses(self, dims: dict, facts: Facts) -> Broadcasts:
        """The sizes the ``broadcast(...)`` clauses define, each NumPy's rule of one axis
        (as the relation's constraint applies it), into ``dims``; the conditions they
        hold under are kept as a broadcast axis keeps them. An unknown argument
        declines: the relation searches whether it is 1 or the result."""
        axes = Broadcasts(facts)
        for (clause, _), source in zip(self.broadcasts, self.sources, strict=True):
            sizes = [a.size if type(a) is A.FixedDim else dims[a.name] for a in clause.args]
            if None in sizes:
                raise _Open
            dims[clause.result.name] = axes.axis(sizes, [], 0, 0, None, source)
        return axes

    # -- where-clauses ------------------------------------------------------------------
    def _clauses(self, env: dict, dims: dict, values: dict, facts: Facts, types: tuple,
                 wrapped: tuple) -> list[Condition]:
        """Check the where-clauses on the ground values (as their constraints do); the
        comparisons the facts leave open, as the forward answer keeps them (a condition
        over named sizes, its source the clause's text). An open ``==`` declines: the
        relation solves it as an equation."""
        undecided: list[Condition] = []
        for clause, k, high in self.clauses:
            if isinstance(clause, A.Compare):
                op = clause.op
                try:
                    left = _value(clause.left, dims, values)
                    if high is not None and (COMPARE[op](left - high, 0) if type(left) is int
                                             else facts.states(left, op, -high) or
                                             _decide(facts, left - high, op) is True):
                        continue  # left op high >= right: a pool's w >= min(n, 1) where the
                        # facts say w >= 1 (or w is an int >= 1), the min not evaluated
                    right = _value(clause.right, dims, values)
                    if type(right) is int and type(left) is Dim and op in _AT_LEAST and \
                            facts.states(left, op, -right):
                        continue  # what decide answers first (a fact says it), no sum made
                    diff = left - right
                except (ZeroDivisionError, KeyError):
                    raise _Open from None
                if type(diff) is int:
                    if not COMPARE[op](diff, 0):
                        raise _Fails
                    continue
                decided = _decide(facts, diff, op)
                if decided is None:
                    if op == "==" or not _named(diff):
                        raise _Open
                    source = Source(detail=self.c.clause_texts[k], otherwise=clause.otherwise)
                    undecided.append(Condition.at_least(left, op, right, diff, source)
                                     if op in _AT_LEAST else
                                     Condition(left, op, right, source))
                elif not decided:
                    raise _Fails
            elif isinstance(clause, A.InCategory):
                d = self._dtype(clause.dtype, env, types, wrapped)
                if d not in category_dtypes(clause.category):
                    raise _Fails
            elif isinstance(clause, A.Compatible):
                a = self._dtype(clause.left, env, types, wrapped)
                b = self._dtype(clause.right, env, types, wrapped)
                if not (is_lossless_cast(a, b) or is_lossless_cast(b, a)):
                    raise _Fails
            elif self._dtype(clause.left, env, types, wrapped) != \
                    self._dtype(clause.right, env, types, wrapped):  # DTypeEq
                raise _Fails
        return undecided

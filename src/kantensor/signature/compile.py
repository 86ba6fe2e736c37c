"""Compile one signature alternative into a kanren relation over type terms.

The relation ``goal(in_terms, out_terms, priorities)`` holds when the
input and output TensorTerms fit the alternative. It works in any
direction: with inputs known it computes outputs; with outputs known it
enumerates inputs. Structure (axes, groups) is matched by unification;
sizes, broadcasting, dtypes and where-clauses become constraints in the
store of :mod:`kantensor.logic.state` and are propagated.

Group semantics: every variable-length part of an operand is a *group*:
``...``, ``*name``, the j-th ``.k.`` group, and the implicit group of loop
dims placed first when the alternative has a loop prefix. Under ``+``
groups broadcast (NumPy rules, right-aligned); otherwise they are equal.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from unification import isvar, var

from ..logic.dims import ArithEq, Broadcast, Compare
from ..logic.dtypes import Compatible, DTypeMap, InCategory, Promote
from ..logic.state import KState, fail_because, post, propagate, unify_oc, walk
from ..logic.terms import TensorTerm
from ..types.dtypes import Priority
from . import ast as A

#: Reason recorded when a flexible-dims variant does not apply (not an error itself).
GUARD = "flexible dims variant does not apply"
#: Largest number of axes tried when a group's length is unknown (queries).
MAX_RANK = 8
LOOP = "loop dims"


@dataclass(frozen=True)
class Item:
    """One position of an operand pattern: a single axis or a group."""

    kind: str  # "dim" | "group"
    node: Any  # AST dim item, or group name
    length: int | None = None  # fixed length for .k. groups


def _expr(node: Any, env: Env) -> Any:
    """AST size expression -> expression tree over logic variables."""
    if isinstance(node, A.FixedDim):
        return node.size
    if isinstance(node, A.DimVar):
        return env.dim(node.name)
    if isinstance(node, A.BinOp):
        return (node.op, _expr(node.left, env), _expr(node.right, env))
    if isinstance(node, A.Call):
        return (node.fn, *(_expr(a, env) for a in node.args))
    raise TypeError(f"not a size expression: {node!r}")  # pragma: no cover


class Env:
    """Fresh logic variables of one application of the relation."""

    def __init__(self) -> None:
        self.dims: dict[str, Any] = {}
        self.dtypes: dict[str, Any] = {}
        self.groups: dict[str, Any] = {}
        self.occurrences: dict[tuple[str, int], Any] = {}
        self.origin: dict[str, str] = {}

    def dim(self, name: str) -> Any:
        v = self.dims.get(name)
        if v is None:
            v = self.dims[name] = var(prefix=name)
        return v

    def dtype(self, name: str) -> Any:
        v = self.dtypes.get(name)
        if v is None:
            v = self.dtypes[name] = var(prefix=name)
        return v


class CompiledAlternative:
    """An alternative (flexible dims already decided) ready to run as a relation."""

    def __init__(self, alt: A.Alternative, signature_text: str, guards: dict[int, bool]):
        self.alt = alt
        self.text = signature_text
        #: input index -> (flexible dims present?, core length with them): NumPy's rule
        #: is that they are present iff the input has at least that many axes.
        self.guards = guards
        operands = [*alt.inputs, *alt.outputs]
        self.n_in = len(alt.inputs)
        self.has_var_group = any(isinstance(d, A.AnyGroup | A.NamedGroup)
                                 for op in operands for d in op.dims)
        self.mode = "broadcast" if alt.loop == "+" else "equal"
        self.loop = alt.loop is not None and not self.has_var_group
        self._anon_k: dict[str, int] = {}
        self.items: list[list[Item]] = [self._items(op) for op in operands]
        self._check_output_groups()
        #: Groups that broadcast (all of them under "+"), and the inputs holding each.
        groups = [] if self.mode == "equal" else list(dict.fromkeys(
            it.node for items in self.items for it in items if it.kind == "group"))
        self.broadcast_groups = groups
        self.group_inputs = [(g, i) for g in groups for i in range(self.n_in)
                             if any(it.node == g for it in self.items[i])]

    def _items(self, pattern: A.TensorPattern) -> list[Item]:
        items = [Item("group", LOOP)] if self.loop else []
        anon = 0
        for d in pattern.dims:
            if isinstance(d, A.AnonGroup):
                name = f"#{anon + 1} of the .k. groups"
                if self._anon_k.setdefault(name, d.k) != d.k:
                    raise ValueError(f"anonymous group {name} has {self._anon_k[name]} dims in "
                                     f"one operand but {d.k} in {pattern}")
                items.append(Item("group", name, d.k))
                anon += 1
            elif isinstance(d, A.AnyGroup):
                items.append(Item("group", "..."))
            elif isinstance(d, A.NamedGroup):
                items.append(Item("group", "*" + d.name))
            else:
                items.append(Item("dim", d))
        return items

    def _check_output_groups(self) -> None:
        in_groups = {it.node for items in self.items[:self.n_in] for it in items
                     if it.kind == "group"}
        for items in self.items[self.n_in:]:
            for it in items:
                if it.kind == "group" and it.length is None and it.node not in in_groups:
                    raise ValueError(f"group {it.node} appears in an output but in no input, "
                                     "so its length cannot be known")

    # -- the relation ---------------------------------------------------------
    def goal(self, in_terms: list, out_terms: list, priorities: tuple | None):
        terms = [*in_terms, *out_terms]

        def relation(s: Any) -> Iterator[KState]:
            if not isinstance(s, KState):
                s = KState(s)
            env = Env()
            yield from self._solve(s, env, terms, priorities)

        return relation

    def _where(self, i: int) -> str:
        return f"input {i}" if i < self.n_in else f"output {i - self.n_in}"

    def _solve(self, s: KState, env: Env, terms: list, priorities: tuple | None
               ) -> Iterator[KState]:
        shapes, dtypes = [], []
        for t in terms:
            if isvar(walk(t, s)):  # a whole type unknown: a dtype and a shape unknown
                t_new = TensorTerm(var(), var())
                s = unify_oc(t, t_new, s)
                t = t_new
            t = walk(t, s)
            if not isinstance(t, TensorTerm):
                return
            shapes.append(t.shape)
            dtypes.append(t.dtype)
        known = [i for i in range(len(terms)) if isinstance(walk(shapes[i], s), tuple)]
        unknown = [i for i in range(len(terms)) if i not in known]
        # Matching known shapes is deterministic; do it first.
        for i in known:
            s = self._match(s, env, i, walk(shapes[i], s))
            if s is None:
                return
        for s1 in self._combine_groups(s, env):
            yield from self._finish(s1, env, unknown, shapes, dtypes, priorities)

    def _finish(self, s: KState, env: Env, unknown: list, shapes: list, dtypes: list,
                priorities: tuple | None) -> Iterator[KState]:
        for s1 in self._construct_all(s, env, unknown, shapes):
            s2 = self._post_dtypes_and_clauses(s1, env, dtypes, priorities)
            if s2 is not None:
                yield s2

    # -- structure ----------------------------------------------------------------
    def _occurrence(self, env: Env, group: str, i: int) -> Any:
        """The term standing for ``group`` in operand ``i``."""
        if self.mode == "equal" or i >= self.n_in:  # outputs get the combined group
            return env.groups.setdefault(group, var(prefix=group))
        return env.occurrences.setdefault((group, i), var(prefix=f"{group}@{i}"))

    def _lengths(self, items: list[Item]) -> tuple[int, Item | None]:
        fixed, variable = 0, None
        for it in items:
            if it.kind == "dim":
                fixed += 1
            elif it.length is not None:
                fixed += it.length
            else:
                variable = it
        return fixed, variable

    def _match(self, s: KState, env: Env, i: int, shape: tuple) -> KState | None:
        """Match a known-length ``shape`` against operand ``i``'s items."""
        items = self.items[i]
        where = self._where(i)
        fixed, variable = self._lengths(items)
        ndim = len(shape)
        guard = self.guards.get(i)
        if guard is not None:
            present, full = guard
            if present != (ndim >= full):
                fail_because(lambda: GUARD)
                return None
        if ndim < fixed or (variable is None and ndim != fixed):
            fail_because(lambda: self._ndim_message(where, i, ndim, fixed, variable))
            return None
        glen = ndim - fixed
        if variable is not None and variable.node == LOOP and \
                self.alt.max_loop_dims is not None and glen > self.alt.max_loop_dims:
            fail_because(lambda: f"{where} has {glen} loop dim{'s' * (glen != 1)} but at most "
                         f"{self.alt.max_loop_dims} are allowed")
            return None
        axis = 0
        for it in items:
            if it.kind == "group":
                n = it.length if it.length is not None else glen
                part = tuple(shape[axis:axis + n])
                target = self._occurrence(env, it.node, i)
                new = unify_oc(target, part, s)
                if new is False:
                    fail_because(lambda it=it, part=part, target=target, s=s, axis=axis:
                                 self._group_message(it.node, where, axis, part,
                                                     walk(target, s)))
                    return None
                s = new
                axis += n
            else:
                s = self._match_dim(s, env, it.node, shape[axis], where, axis, i)
                if s is None:
                    return None
                axis += 1
        return s

    def _ndim_message(self, where: str, i: int, ndim: int, fixed: int,
                      variable: Item | None) -> str:
        pattern = [*self.alt.inputs, *self.alt.outputs][i]
        need = f"at least {fixed}" if variable is not None else f"exactly {fixed}"
        return f"{where} has {ndim} dimension{'s' * (ndim != 1)} but {pattern} needs {need}"

    def _group_message(self, group: str, where: str, axis: int, part: tuple,
                       other: Any) -> str:
        name = _group_label(group)
        shown = _show_tuple(other)
        return f"{name} are {_show_tuple(part)} in {where} (from axis {axis}) but " \
               f"{shown} elsewhere"

    def _match_dim(self, s: KState, env: Env, node: Any, size: Any, where: str, axis: int,
                   i: int) -> KState | None:
        if isinstance(node, A.DimVar):
            v = env.dim(node.name)
            new = unify_oc(v, size, s)
            if new is False:
                fail_because(lambda: f"dimension {node.name} is {_show(walk(v, s))} in "
                             f"{env.origin.get(node.name, 'another operand')} but "
                             f"{_show(walk(size, s))} in {where} (axis {axis})")
                return None
            env.origin.setdefault(node.name, f"{where} (axis {axis})")
            return propagate(new) if new is not s else s
        if isinstance(node, A.FixedDim):
            new = unify_oc(size, node.size, s)
            if new is False:
                fail_because(lambda: f"{where} axis {axis} must have size {node.size}, "
                             f"got {_show(walk(size, s))}")
                return None
            return propagate(new) if new is not s else s
        return post(s, ArithEq(size, _expr(node, env), str(node), f"{where} axis {axis}"))

    def _combine_groups(self, s: KState, env: Env) -> Iterator[KState]:
        """Broadcast each group's input occurrences into the output occurrence."""
        groups = self.broadcast_groups
        if not groups:
            yield s
            return
        # Occurrences of operands whose shape is still unknown: enumerate lengths.
        for g, i in self.group_inputs:
            self._occurrence(env, g, i)
        unknown = [(k, v) for k, v in env.occurrences.items() if isvar(walk(v, s))]
        if not unknown:
            out = self._broadcast_all(s, env, groups)
            if out is not None:
                yield out
            return
        for lengths in itertools.product(range(MAX_RANK + 1), repeat=len(unknown)):
            s1 = s
            for ((g, _), v), n in zip(unknown, lengths, strict=True):
                out_len = walk(env.groups.get(g), s1) if g in env.groups else None
                if isinstance(out_len, tuple) and n > len(out_len):
                    s1 = None
                    break
                s1 = unify_oc(v, _fresh(n), s1)
            if s1:
                out = self._broadcast_all(s1, env, groups)
                if out is not None:
                    yield out

    def _broadcast_all(self, s: KState, env: Env, groups: list[str]) -> KState | None:
        constraints = []
        for g in groups:
            parts = [walk(v, s) for (name, _), v in env.occurrences.items() if name == g]
            width = max((len(p) for p in parts), default=0)
            out = walk(env.groups.setdefault(g, var(prefix=g)), s)
            if isvar(out):
                out_t = _fresh(width)
                s = unify_oc(out, out_t, s)
            else:
                out_t = out
                if len(out_t) != width:
                    fail_because(lambda g=g, out_t=out_t, width=width:
                                 f"{_group_label(g)} of the output "
                                 f"have {len(out_t)} axes but the inputs broadcast to {width}")
                    return None
            for axis in range(width):
                sizes = tuple(p[len(p) - width + axis] for p in parts
                              if len(p) - width + axis >= 0)
                name = _group_label(g)
                constraints.append(Broadcast(sizes, out_t[axis],
                                             f"{name}, axis {axis - width} (from the right)"))
        return post(s, *constraints)

    def _construct_all(self, s: KState, env: Env, unknown: list, shapes: list
                       ) -> Iterator[KState]:
        if not unknown:
            yield s
            return
        i, rest = unknown[0], unknown[1:]
        for s1 in self._construct(s, env, i, shapes[i]):
            yield from self._construct_all(s1, env, rest, shapes)

    def _construct(self, s: KState, env: Env, i: int, shape_term: Any) -> Iterator[KState]:
        """Build operand ``i``'s shape from the pattern (enumerating unknown group lengths)."""
        items = self.items[i]
        unknown_groups = [it for it in items if it.kind == "group" and it.length is None
                          and isvar(walk(self._occurrence(env, it.node, i), s))]
        ranges = [range(MAX_RANK + 1)] * len(unknown_groups)
        for lengths in itertools.product(*ranges):
            s1 = s
            for it, n in zip(unknown_groups, lengths, strict=True):
                s1 = unify_oc(self._occurrence(env, it.node, i), _fresh(n), s1)
                if s1 is False:
                    break
            if s1 is False:
                continue
            parts: list = []
            constraints = []
            for axis_item in items:
                if axis_item.kind == "group":
                    occ = walk(self._occurrence(env, axis_item.node, i), s1)
                    if isvar(occ):
                        occ = _fresh(axis_item.length)
                        s1 = unify_oc(self._occurrence(env, axis_item.node, i), occ, s1)
                    parts.extend(occ)
                    continue
                node = axis_item.node
                if isinstance(node, A.DimVar):
                    parts.append(env.dim(node.name))
                elif isinstance(node, A.FixedDim):
                    parts.append(node.size)
                else:
                    v = var()
                    parts.append(v)
                    constraints.append(ArithEq(v, _expr(node, env), str(node),
                                               f"{self._where(i)} axis {len(parts) - 1}"))
            s1 = unify_oc(shape_term, tuple(parts), s1)
            if s1 is False:
                continue
            s1 = post(s1, *constraints)
            if s1 is not None:
                yield s1

    # -- dtypes and where-clauses -------------------------------------------------
    def _dtype_term(self, node: Any, env: Env, constraints: list, prio_of: dict) -> Any:
        if isinstance(node, A.DTypeName):
            return node.name
        if isinstance(node, A.DTypeVar):
            return env.dtype(node.name)
        out = var()
        if isinstance(node, A.Promote):
            args = tuple((self._dtype_term(a, env, constraints, prio_of),
                          prio_of.get(_dtype_key(a), Priority.TENSOR)) for a in node.args)
            constraints.append(Promote(out, args, f"dtype {node}"))
        else:
            constraints.append(DTypeMap(out, self._dtype_term(node.arg, env, constraints,
                                                              prio_of),
                                        node.function, f"dtype {node}"))
        return out

    def _post_dtypes_and_clauses(self, s: KState, env: Env, dtypes: list,
                                 priorities: tuple | None) -> KState | None:
        alt = self.alt
        prios = priorities or (Priority.TENSOR,) * self.n_in
        prio_of: dict = {}
        for pattern, prio in zip(alt.inputs, prios, strict=True):
            if isinstance(pattern.dtype, A.DTypeVar):
                key = _dtype_key(pattern.dtype)
                prio_of[key] = max(prio_of.get(key, prio), prio)
        constraints: list = []
        for i, pattern in enumerate([*alt.inputs, *alt.outputs]):
            if pattern.dtype is None:
                if i >= self.n_in and self.n_in:  # no inputs: nothing to promote
                    constraints.append(Promote(dtypes[i], tuple(zip(dtypes[:self.n_in], prios,
                                                                    strict=True)),
                                               f"{self._where(i)} dtype"))
                continue
            term = self._dtype_term(pattern.dtype, env, constraints, prio_of)
            new = unify_oc(term, dtypes[i], s)
            if new is False:
                fail_because(lambda i=i, term=term, pattern=pattern, s=s:
                             self._dtype_message(i, pattern, walk(term, s),
                                                 walk(dtypes[i], s), env))
                return None
            s = new
            if isinstance(pattern.dtype, A.DTypeVar):
                env.origin.setdefault(":" + pattern.dtype.name, self._where(i))
        for clause in alt.where:
            if isinstance(clause, A.Compare):
                constraints.append(Compare(clause.op, _expr(clause.left, env),
                                           _expr(clause.right, env), str(clause)))
            elif isinstance(clause, A.InCategory):
                constraints.append(InCategory(self._dtype_term(clause.dtype, env, constraints,
                                                               prio_of),
                                              clause.category, str(clause.dtype)))
            elif isinstance(clause, A.Compatible):
                constraints.append(Compatible(
                    self._dtype_term(clause.left, env, constraints, prio_of),
                    self._dtype_term(clause.right, env, constraints, prio_of), str(clause)))
            else:  # DTypeEq
                left = self._dtype_term(clause.left, env, constraints, prio_of)
                right = self._dtype_term(clause.right, env, constraints, prio_of)
                new = unify_oc(left, right, s)
                if new is False:
                    fail_because(lambda c=clause, l=left, r=right, s=s:
                                 f"where-clause {c} fails: {walk(l, s)} != {walk(r, s)}")
                    return None
                s = new
        return post(s, *constraints)

    def _dtype_message(self, i: int, pattern: A.TensorPattern, want: Any, got: Any,
                       env: Env) -> str:
        where = self._where(i)
        if isinstance(pattern.dtype, A.DTypeVar):
            name = pattern.dtype.name
            first = env.origin.get(":" + name, "another operand")
            return f"dtype {name} is {want} in {first} but {got} in {where}"
        return f"{where} must have dtype {pattern.dtype}, got {got}"


def _fresh(n: int) -> tuple:
    """A tuple of ``n`` fresh logic variables (axes of a group of known length)."""
    return tuple(var() for _ in range(n))


def _group_label(group: str) -> str:
    return "loop dims" if group == LOOP else f"group {group}"


def _dtype_key(node: Any) -> Any:
    return node.name if isinstance(node, A.DTypeVar) else node


def _show(value: Any) -> str:
    return "?" if isvar(value) else str(value)


def _show_tuple(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_show, value)) + ("," if len(value) == 1 else "") + ")"
    return "?"


def expand_flexible(alt: A.Alternative) -> list[tuple[A.Alternative, dict]]:
    """Desugar ``NAME?`` dims: one alternative per presence pattern, with guards.

    A flexible dim is present in an input iff that input has at least the
    full number of core dims (NumPy's rule); outputs follow the inputs.
    """
    operands = [*alt.inputs, *alt.outputs]
    n_in = len(alt.inputs)
    flex = sorted({d.name for op in operands for d in op.dims if isinstance(d, A.FlexDim)})
    if not flex:
        return [(alt, {})]
    flex_in = {i: [d.name for d in op.dims if isinstance(d, A.FlexDim)]
               for i, op in enumerate(alt.inputs)}
    result = []
    for present in itertools.product((True, False), repeat=len(flex)):
        on = dict(zip(flex, present, strict=True))
        guards = {}
        for i, fl in flex_in.items():
            if fl:
                states = {on[n] for n in fl}
                if len(states) > 1:
                    break
                core = sum(1 if not isinstance(d, A.AnonGroup) else d.k
                           for d in alt.inputs[i].dims
                           if not isinstance(d, A.AnyGroup | A.NamedGroup))
                guards[i] = (states.pop(), core)
        else:
            new_ops = [
                A.TensorPattern(tuple(A.DimVar(d.name) if isinstance(d, A.FlexDim) else d
                                      for d in op.dims
                                      if not isinstance(d, A.FlexDim) or on[d.name]),
                                op.dtype)
                for op in operands
            ]
            new_alt = A.Alternative(tuple(new_ops[:n_in]), tuple(new_ops[n_in:]), alt.where,
                                    alt.loop, alt.max_loop_dims)
            result.append((new_alt, guards))
    return result


def compile_alternative(alt: A.Alternative, text: str) -> list[CompiledAlternative]:
    """All compiled variants of one alternative (several when it has ``NAME?`` dims)."""
    return [CompiledAlternative(new_alt, text, guards)
            for new_alt, guards in expand_flexible(alt)]

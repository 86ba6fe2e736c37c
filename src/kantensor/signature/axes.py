"""The :class:`Structure` constraint: matches, builds and broadcasts an alternative's
shapes by its layout (:mod:`kantensor.signature.layout`).

Groups (the variable-length parts of operands, :class:`~kantensor.signature.layout.Group`):
under ``+`` the input
occurrences of a group broadcast (NumPy rules, right-aligned) into the one the outputs
use; otherwise all occurrences are one term.

Flexible dims: the layouts are those of the alternative's variants
(:mod:`kantensor.signature.flex`, an AST rewrite); :class:`Structure` picks the variant
once the inputs' ranks decide it, so only that one is ever laid out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from ..logic.broadcast import Broadcast
from ..logic.dims import Equation, Expr
from ..logic.store import (
    Beyond,
    Constraint,
    Progress,
    bind_choices,
    fail_because,
    said,
    unify_oc,
)
from ..logic.terms import fresh, isvar, walk
from ..syntax import ast as A
from ..syntax.alternative import Place
from .layout import LOOP, Axes, Group, Item, Layout
from .mismatch import Seen, core_mismatch
from .mismatch import show as _show

__all__ = ["GUARD", "Env", "Structure"]


class _Guard(str):
    """A failure reason that is no error of its own (a sentinel: compared by identity)."""


#: Why a flexible-dims variant does not apply: the reason an explanation skips.
GUARD = _Guard("flexible dims variant does not apply")


class Env:
    """The fresh logic variables of one application of an alternative."""

    def __init__(self, dtype_origin: dict[str, Place] | None = None) -> None:
        self.dims: dict[str, Any] = {}
        self.dtypes: dict[str, Any] = {}
        self.groups: dict[Group, Any] = {}
        self.occurrences: dict[tuple[Group, int], Any] = {}
        #: where each dim and each dtype variable was first seen (for messages; the
        #: dtypes' is the alternative's own, made once per compiled alternative: read only)
        self.dim_origin: dict[str, Seen] = {}
        self.dtype_origin: dict[str, Place] = {} if dtype_origin is None else dtype_origin

    def dim(self, name: str) -> Any:
        v = self.dims.get(name)
        if v is None:
            v = self.dims[name] = fresh(prefix=name)
        return v

    def dtype(self, name: str) -> Any:
        v = self.dtypes.get(name)
        if v is None:
            v = self.dtypes[name] = fresh(prefix=name)
        return v

    def expr(self, node: Any) -> Expr:
        return Expr(node, {n: self.dim(n) for n in A.expr_names(node)})




def _show_tuple(value: Any, s: dict | None = None) -> str:
    if isinstance(value, tuple):
        if s is not None:
            value = tuple(walk(x, s) for x in value)
        return "(" + ", ".join(map(_show, value)) + ("," if len(value) == 1 else "") + ")"
    return "?"


def _fresh(n: int) -> tuple:
    return tuple(fresh() for _ in range(n))


@dataclass(frozen=True, eq=False)
class Structure(Constraint):
    """The axes of every operand: matches known shapes, builds unknown ones once their
    groups' lengths are known, and broadcasts groups. Replaced by an updated copy as
    operands get matched (``matched``) and groups broadcast (``posted``)."""

    plan: Axes
    env: Env
    shapes: tuple
    variant: Any
    max_rank: int
    matched: frozenset = frozenset()
    posted: frozenset = frozenset()

    def __init__(self, plan: Axes, env: Env, shapes: tuple, variant: Any, max_rank: int,
                 matched: frozenset = frozenset(), posted: frozenset = frozenset()) -> None:
        # written once into the instance, as TensorTerm's (one per solve: see there)
        self.__dict__.update(plan=plan, env=env, shapes=shapes, variant=variant,
                             max_rank=max_rank, matched=matched, posted=posted)

    # -- progress ----------------------------------------------------------------------
    def check(self, s: dict, pending: tuple) -> Progress:
        layout, s, decided = self._layout(s)
        if layout is None:
            return None if s is None else (s, False)
        s0 = s
        matched, posted = set(self.matched), set(self.posted)
        n = len(self.shapes)
        groups = layout.groups if self.plan.broadcast else ()  # the groups to broadcast
        extra: list[Constraint] = []
        changed, done = True, False
        while changed and not done:
            changed = False
            for i in range(n):
                if i in matched:
                    continue
                shape = walk(self.shapes[i], s)
                if isinstance(shape, tuple):
                    out = self._match(s, layout, i, shape)
                else:
                    out = self._build(s, layout, i)
                if out is True:
                    continue
                if out is None:
                    return None
                s, cs = out
                extra += cs
                matched.add(i)
                changed = True
            for g in groups:
                if g in posted:
                    continue
                out = self._broadcast(s, layout, g)
                if out is None:
                    return None
                if out is not True:
                    s, cs = out
                    extra += cs
                    posted.add(g)
                    changed = True
            done = len(matched) == n and posted.issuperset(groups)  # no pass more
        if done:
            return s, True, extra
        unchanged = s is s0 and not extra and matched == set(self.matched)
        if decided is not None:  # the variant the ranks chose, kept for the next checks
            s = unify_oc(self.variant, decided, s)
        if unchanged:
            return s, False
        return s, True, [*extra, replace(self, matched=frozenset(matched),
                                         posted=frozenset(posted))]

    def _layout(self, s: dict) -> tuple[Layout | None, dict | None, tuple | None]:
        """The variant's layout, and the variant if the ranks decide it now (not yet
        bound: :meth:`check` binds it unless it completes, when nothing reads it again);
        (None, s, None) while undecided, (None, None, None) if the variant cannot apply."""
        flex = self.plan.flex
        if flex is None:
            return self.plan.fixed, s, None
        chosen = decided = walk(self.variant, s)
        if isvar(chosen):
            ranks = {i: len(sh) for i in flex.inputs
                     if isinstance(sh := walk(self.shapes[i], s), tuple)}
            chosen = decided = flex.presence(ranks)
            if chosen is None:
                return None, s, None
        else:
            decided = None
        layout = self.plan.layout(chosen)
        if layout is None:
            fail_because(lambda: GUARD)
            return None, None, None
        return layout, s, decided

    def _occurrence(self, layout: Layout, group: Group, i: int) -> Any:
        """The term standing for ``group`` in operand ``i`` (outputs: the combined one)."""
        env = self.env
        k = group.length
        if not self.plan.broadcast or i >= self.plan.n_in:
            v = env.groups.get(group)
            if v is None:
                v = env.groups[group] = fresh(prefix="group") if k is None else _fresh(k)
            return v
        v = env.occurrences.get((group, i))
        if v is None:
            v = env.occurrences[group, i] = fresh(prefix="group") if k is None else _fresh(k)
        return v

    def _match(self, s: dict, layout: Layout, i: int, shape: tuple) -> tuple | bool | None:
        """Match a known-rank shape (True: not yet, an output's groups are unknown)."""
        alt, items, where = self.plan.alt, layout.items[i], self.plan.places[i]
        n_variables, fixed, variable = layout.counts[i]
        if n_variables > 1:  # an output with several groups of any length: known from inputs
            lengths = {}
            for it in items:
                if it.group and it.length is None:
                    occ = walk(self._occurrence(layout, it.group, i), s)
                    if not isinstance(occ, tuple):
                        return True
                    lengths[it.group] = len(occ)
            items = tuple(Item(it.node, lengths.get(it.node, it.length)) for it in items)
            fixed = sum(1 if it.group is None else (it.length or 0) for it in items)
            variable = None
        ndim = len(shape)
        if not self._guard(layout, i, ndim):
            return None
        if ndim < fixed or (variable is None and ndim != fixed):
            need = f"at least {fixed}" if variable is not None else f"exactly {fixed}"
            fail_because(lambda: said(where, f" has {ndim} dimension{'s' * (ndim != 1)} but ",
                                      alt.operands[i], f" needs {need}"))
            return None
        glen = ndim - fixed
        cap = alt.max_loop_dims
        if variable is not None and variable.node == LOOP and cap is not None and glen > cap:
            fail_because(lambda: said(where, f" has {glen} loop dim{'s' * (glen != 1)} but "
                                      f"at most {cap} are allowed"))
            return None
        constraints: list[Constraint] = []
        axis, loop = 0, glen if variable is not None and variable.node == LOOP else 0
        for it in items:
            if it.group:
                n = it.length if it.length is not None else glen
                part = tuple(shape[axis:axis + n])
                target = self._occurrence(layout, it.group, i)
                new = unify_oc(target, part, s)
                if new is False:
                    fail_because(lambda it=it, part=part, target=target, s=s, axis=axis: said(
                        f"{it.node} are {_show_tuple(part)} in ", where, f" (from axis {axis}) "
                        f"but {_show_tuple(walk(target, s), s)} elsewhere"))
                    return None
                s, axis = new, axis + n
                continue
            s = self._match_dim(s, it.node, shape[axis], (where, axis, axis - loop),
                                constraints)
            if s is None:
                return None
            axis += 1
        return s, constraints

    @staticmethod
    def _guard(layout: Layout, i: int, ndim: int) -> bool:
        """NumPy's rule for input ``i`` of the chosen variant (``layout``'s): its flexible
        dims are present iff it has at least its full number of core dims."""
        rule = layout.rank_rules[i]
        if rule is not None and rule[0] != (ndim >= rule[1]):
            fail_because(lambda: GUARD)
            return False
        return True

    def _match_dim(self, s: dict, node: Any, size: Any, seen: Seen, constraints: list
                   ) -> dict | None:
        env, (where, axis, _) = self.env, seen
        if isinstance(node, A.DimVar):
            name = node.name
            v = env.dims.get(name)
            if v is None:  # its first occurrence: a new variable, nothing to unify with
                v = env.dims[name] = fresh(prefix=name)
                env.dim_origin[name] = seen  # formatted only for a message
                new = s.copy()
                new[v] = walk(size, s)
                return new
            new = unify_oc(v, size, s)
            if new is False:
                fail_because(lambda: core_mismatch(
                    self.plan.alt, name, env.dim_origin.get(name), walk(v, s), seen,
                    walk(size, s)))
                return None
            env.dim_origin.setdefault(name, seen)
            return new
        if isinstance(node, A.FixedDim):
            new = unify_oc(size, node.size, s)
            if new is False:
                fail_because(lambda: said(where, f" axis {axis} must have size {node.size}, "
                                          f"got {_show(walk(size, s))}"))
                return None
            return new
        constraints.append(Equation(Expr(size), env.expr(node), str(node),
                                    f"{where} axis {axis}", (where, axis)))
        return s

    def _build(self, s: dict, layout: Layout, i: int) -> tuple | bool | None:
        """Build operand ``i``'s shape once its groups' lengths are known (True: not
        yet)."""
        parts: list = []
        constraints: list[Constraint] = []
        for it in layout.items[i]:
            if it.group:
                occ = walk(self._occurrence(layout, it.group, i), s)
                if not isinstance(occ, tuple):
                    return True
                parts.extend(occ)
            elif isinstance(it.node, A.DimVar):
                parts.append(self.env.dim(it.node.name))
            elif isinstance(it.node, A.FixedDim):
                parts.append(it.node.size)
            else:
                v = fresh()
                parts.append(v)
                where, axis = self.plan.where(i), len(parts) - 1
                constraints.append(Equation(Expr(v), self.env.expr(it.node), str(it.node),
                                            f"{where} axis {axis}", (where, axis)))
        if not self._guard(layout, i, len(parts)):
            return None
        new = unify_oc(self.shapes[i], tuple(parts), s)
        return None if new is False else (new, constraints)

    def _broadcast(self, s: dict, layout: Layout, g: Group) -> tuple | bool | None:
        """Broadcast group ``g``'s input occurrences into its output occurrence once
        their lengths are known (True: not yet)."""
        holders = [i for i in layout.holders[g] if i < self.plan.n_in]
        parts = [walk(self._occurrence(layout, g, i), s) for i in holders]
        out_term = self._occurrence(layout, g, self.plan.n_in)
        out = walk(out_term, s)
        if isinstance(out, tuple) and any(isinstance(p, tuple) and len(p) > len(out)
                                          for p in parts):
            fail_because(lambda: f"{g} of an input have more axes than the "
                         f"output's {_show_tuple(out)}")
            return None
        if not all(isinstance(p, tuple) for p in parts):
            return True
        width = max(map(len, parts), default=0)
        if isvar(out):
            out = _fresh(width)
            s = unify_oc(out_term, out, s)
        elif len(out) != width:
            fail_because(lambda: f"{g} of the output have {len(out)} axes but the "
                         f"inputs broadcast to {width}")
            return None
        if not width:  # no axes (2-d matmul's loop dims): nothing to broadcast
            return s, []
        constraints = []
        label = str(g)
        offsets = [len(p) - width for p in parts]  # where each part's axes start
        for a in range(width):
            constraints.append(Broadcast(
                tuple([p[a + o] for p, o in zip(parts, offsets, strict=True) if a + o >= 0]),
                out[a],
                f"{label}, axis {a - width} (from the right)",
                partial(self._operands, s, layout, g, holders, offsets, a)))
        return s, constraints

    def _operands(self, s: dict, layout: Layout, g: Group, holders: list, offsets: list,
                  a: int) -> tuple:
        """Per size of axis ``a`` of group ``g``'s broadcast, ``(input, axis)`` in that
        operand's own numbering as ``s`` knew it: made only for a message."""
        out = []
        for i, o in zip(holders, offsets, strict=True):
            if a + o >= 0:
                start = self._start(s, layout, g, i)
                out.append((i, None if start is None else start + a + o))
        return tuple(out)

    def _start(self, s: dict, layout: Layout, group: Any, i: int) -> int | None:
        """The axis of operand ``i`` where its occurrence of ``group`` starts (None while
        an earlier group's length is unknown): for messages in the operand's numbering."""
        start, before = layout.starts[i, group]
        for g in before:
            occ = walk(self._occurrence(layout, g, i), s)
            if not isinstance(occ, tuple):
                return None
            start += len(occ)
        return start

    # -- labeling ------------------------------------------------------------------------
    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        layout, _, _ = self._layout(s)
        if layout is None:
            flex = self.plan.flex
            if flex is None or not isvar(walk(self.variant, s)):
                return None
            return bind_choices(walk(self.variant, s),
                                itertools.product((True, False), repeat=len(flex.names)))
        for i in range(len(self.shapes)):
            for it in layout.items[i]:
                if it.group is None:
                    continue
                occ = walk(self._occurrence(layout, it.group, i), s)
                if isvar(occ):
                    bound = self._bound(s, layout, it.group, i)
                    options = [lambda st, occ=occ, n=n: unify_oc(occ, _fresh(n), st) or None
                               for n in range(int(min(bound, self.max_rank + 1)) + 1)]
                    if bound > self.max_rank:  # more axes would fit: the bound cuts
                        top = self.max_rank + 1 if bound == float("inf") else int(bound)
                        options[-1] = Beyond(*options[-1:], *(
                            lambda st, occ=occ, n=n: unify_oc(occ, _fresh(n), st) or None
                            for n in range(self.max_rank + 2, top + 1)))
                    return options
        return None

    def _bound(self, s: dict, layout: Layout, group: Group, i: int) -> float:
        """The most axes occurrence ``i`` of ``group`` can have, max_rank aside."""
        bound = float("inf")
        if group == LOOP and self.plan.alt.max_loop_dims is not None:
            bound = self.plan.alt.max_loop_dims
        if self.plan.broadcast and i < self.plan.n_in:
            out = walk(self._occurrence(layout, group, self.plan.n_in), s)
            if isinstance(out, tuple):
                bound = min(bound, len(out))
        return bound

    def terms(self) -> tuple:
        return (*self.shapes, self.variant, *self.env.groups.values(),
                *self.env.occurrences.values())

    def explain(self, s: dict) -> str:
        return f"the axes of {self.plan.alt} do not fit"

"""What the random signatures of the tests reach: the grammar features (each kind of dim,
operator, function, group, dtype term and clause, on each side, where-clauses that
define or declare a name an output then uses, loops and caps, counts) that the
``alternatives()`` strategy of ``tests/test_signature_parse.py`` draws, counted over N
signatures, and the CPU seconds the drawing took (invalid draws included).

Run ``PYTHONPATH=tests python benchmarks/strategy_features.py [--examples N]
[--tests DIR]``; ``--tests`` takes the strategy from another tree's tests (a base tree
unpacked elsewhere), to compare a strategy before and after a change: a feature the
old strategy reaches and the new one does not is listed as lost.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kantensor.syntax.alternative import Alternative
from kantensor.syntax.ast import (
    AnonGroup,
    BinOp,
    Call,
    Compare,
    DimVar,
    DTypeFunction,
    DTypeVar,
    InCategory,
    Promote,
    expr_names,
)
from kantensor.syntax.ast.dtypes import dtype_names


def _expr(x: object, side: str, found: set[str], depth: int = 0) -> int:
    """Add the features of a dim expression; its depth."""
    found.add(f"{side}:{type(x).__name__}")
    if isinstance(x, BinOp):
        found.add(f"{side}:op {x.op}")
        return 1 + max(_expr(x.left, side, found), _expr(x.right, side, found))
    if isinstance(x, Call):
        found.add(f"{side}:{x.fn}() of {min(len(x.args), 3)}")
        return 1 + max(_expr(a, side, found) for a in x.args)
    return 0


def _dtype(x: object, side: str, found: set[str]) -> None:
    found.add(f"{side}:dtype {type(x).__name__}")
    if isinstance(x, Promote):
        found.add(f"{side}:promote of {len(x.args)}")
        for a in x.args:
            _dtype(a, side, found)
    elif isinstance(x, DTypeFunction):
        found.add(f"{side}:dtype {x.word.text}()")
        _dtype(x.arg, side, found)


def features(alt: Alternative) -> set[str]:
    """The grammar features of one alternative."""
    found = {f"loop {alt.loop and alt.loop.value}", f"cap {alt.max_loop_dims is not None}",
             f"inputs {len(alt.inputs)}", f"outputs {len(alt.outputs)}",
             f"clauses {len(alt.where)}"}
    inputs = {n for op in alt.inputs for d in op.dims for n in _item_names(d)} | \
        {n for op in alt.inputs if op.dtype is not None for n in dtype_names(op.dtype)}
    for side, ops in (("in", alt.inputs), ("out", alt.outputs)):
        for op in ops:
            found.add(f"{side}:rank {min(len(op.dims), 5)}")
            groups = 0
            for d in op.dims:
                if isinstance(d, AnonGroup):
                    found.add(f"{side}:.{d.k}.")
                if type(d).__name__ in ("AnyGroup", "NamedGroup"):
                    groups += 1
                if type(d).__name__ in ("AnonGroup", "AnyGroup", "NamedGroup", "FlexDim"):
                    found.add(f"{side}:{type(d).__name__}")
                else:
                    found.add(f"{side}:depth {min(_expr(d, side, found), 3)}")
            found.add(f"{side}:groups of any length {groups}")
            if op.dtype is None:
                found.add(f"{side}:no dtype")
            else:
                _dtype(op.dtype, side, found)
            if side == "out" and any(n not in inputs for d in op.dims for n in _item_names(d)):
                found.add("out:a size the where-clauses bind")
            if side == "out" and op.dtype is not None and \
                    any(n not in inputs for n in dtype_names(op.dtype)):
                found.add("out:a dtype the where-clauses bind")
    for c in alt.where:
        kind = type(c).__name__
        found.add(f"where:{kind}")
        if isinstance(c, Compare):
            found.add(f"where:{c.op}")
            names = expr_names(c.left) + expr_names(c.right)
            new = [n for n in names if n not in inputs]
            if new and c.op == "==" and any(isinstance(s, DimVar) and s.name in new
                                            for s in (c.left, c.right)):
                found.add("where:defines a size")
            elif new:
                alone = "alone" if set(names) == set(new) else "beside a bound one"
                found.add(f"where:declares a size ({alone})")
            for s in (c.left, c.right):
                _expr(s, "where", found)
        elif isinstance(c, InCategory):
            found.add(f"where:in {c.category}")
            _dtype(c.dtype, "where", found)
        else:
            bare = all(isinstance(s, DTypeVar) or type(s).__name__ == "DTypeName"
                       for s in (c.left, c.right))
            found.add(f"where:{kind} {'bare' if bare else 'of terms'}")
            new = [n for s in (c.left, c.right) for n in dtype_names(s) if n not in inputs]
            if new:
                found.add(f"where:{kind} names a dtype no input has")
            for s in (c.left, c.right):
                _dtype(s, "where", found)
    return found


def _item_names(d: object) -> list[str]:
    name = getattr(d, "name", None)
    if type(d).__name__ in ("FlexDim", "NamedGroup"):
        return [name]
    if type(d).__name__ in ("AnonGroup", "AnyGroup"):
        return []
    return expr_names(d)


def measure(strategy: st.SearchStrategy, examples: int) -> tuple[Counter, float]:
    """Feature counts over ``examples`` signatures drawn, and the CPU seconds taken."""
    counts: Counter = Counter()

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(strategy, min_size=1, max_size=3))
    def draw(alts: list[Alternative]) -> None:
        counts["signatures"] += 1
        counts[f"alternatives {len(alts)}"] += 1
        for alt in alts:
            counts.update(features(alt))

    start = time.process_time()
    draw()
    return counts, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--tests", help="the tests folder whose strategy is measured "
                                        "(default: this tree's, on PYTHONPATH)")
    parser.add_argument("--compare", help="a second tests folder, measured alike")
    args = parser.parse_args()
    results = []
    for folder in [f for f in (args.tests, args.compare) if f] or [None]:
        if folder:
            sys.path.insert(0, folder)
            sys.modules.pop("test_signature_parse", None)
        module = importlib.import_module("test_signature_parse")
        if folder:
            sys.path.remove(folder)
        results.append((folder or "tests", *measure(module.alternatives(), args.examples)))
    names = sorted(set().union(*(c for _, c, _ in results)))
    print(f"{'feature':60}" + "".join(f"{label[-24:]:>26}" for label, _, _ in results))
    for name in names:
        print(f"{name:60}" + "".join(f"{c[name]:>26}" for _, c, _ in results))
    for label, counts, cpu in results:
        print(f"{label}: {len(counts)} features, {counts['signatures']} signatures, "
              f"{cpu:.1f} s CPU")
    if len(results) == 2:
        lost = set(results[0][1]) - set(results[1][1])
        print("reached by the first only:", sorted(lost) or "none")
        print("reached by the second only:", sorted(set(results[1][1]) - set(results[0][1]))
              or "none")


if __name__ == "__main__":
    main()

"""refine given the sizes of a forward build that fails fails, and the other way round
(issue 38), over random graphs of catalogue Ops (tests/refine_graphs.py).

A random program is built with most input sizes unknown (``?``); then its inputs are
given sizes around the true ones (the true size, one more or less, 0, 1, or another size
of the program) and the program is built forwards at those sizes. ``kt.refine`` of the
graph with unknown sizes, given those input types, must fail exactly when the forward
build fails, and otherwise give every Variable the forward build's type. Where the
forward build at some sizes makes another graph (``squeeze(axis=None)`` dropping an axis
the graph with unknown sizes keeps under ``size != 1``) the two are not the same graph;
such sizes are counted apart (refine must refuse them: the graph excludes them).

``KANTENSOR_REFINE_FORWARD_GRAPHS`` (default 150) sets the number of graphs and
``KANTENSOR_REFINE_FORWARD_SEED`` (default 38) the seed; figures in the summary.
"""

from __future__ import annotations

import os
import random

import kantensor as kt
import sizing
from differential import REFUSALS, count
from refine_graphs import BROADCASTING, INDEXING, PLAIN, SHAPING, random_program

GRAPHS = sizing.size("REFINE_FORWARD_GRAPHS", 150, 3000)
SEED = int(os.environ.get("KANTENSOR_REFINE_FORWARD_SEED", "38"))
KINDS = PLAIN + BROADCASTING + SHAPING + INDEXING


def _given(prog, erased, rng):
    """Input shapes: the kept sizes as they are, each erased one moved (or not)."""
    sizes = sorted({n for s in prog.shapes for n in s})
    out = []
    for true, loose in zip(prog.shapes, erased, strict=True):
        shape = []
        for n, e in zip(true, loose, strict=True):
            if e is not None or rng.random() < 0.5:
                shape.append(n)
            else:
                shape.append(rng.choice([max(n - 1, 0), n + 1, 0, 1, *sizes]))
        out.append(tuple(shape))
    return out


def test_refine_fails_exactly_where_the_forward_build_fails():
    rng = random.Random(SEED)
    problems = []
    graphs = 0
    while graphs < GRAPHS:
        prog = random_program(rng, KINDS, rng.randint(1, 6))
        erased = [tuple(None if rng.random() < 0.7 else n for n in s) for s in prog.shapes]
        try:
            loose = prog.build(erased)
        except REFUSALS:
            continue
        graphs += 1
        inputs = loose[:len(prog.shapes)]
        for _ in range(3):
            shapes = _given(prog, erased, rng)
            count("refine vs forward: sizes")
            try:
                forward = [v.type for v in prog.build(shapes)]
            except REFUSALS:
                forward = None
            given = {v: kt.TensorType("float64", s) for v, s in zip(inputs, shapes,
                                                                     strict=True)}
            try:
                refined = kt.refine(loose, given=given)
                refined = [refined[v] for v in loose]
            except kt.RefinementError:
                refined = None
            where = f"{prog.steps} on {shapes} (graph built on {erased})"
            if forward is not None and [t.ndim for t in forward] != [v.type.ndim
                                                                     for v in loose]:
                count("refine vs forward: another graph forwards")
                if refined is not None:
                    problems.append(f"{where}: the forward build makes another graph, "
                                    f"refine accepts it as {refined}")
            elif (forward is None) != (refined is None):
                problems.append(f"{where}: forward {'refuses' if forward is None else 'types'},"
                                f" refine {'refuses' if refined is None else 'accepts'}")
            elif forward is not None and forward != refined:
                problems.append(f"{where}: forward {forward}, refine {refined}")
            else:
                count("refine vs forward: agreed" + (", refused" if forward is None else ""))
    count("refine vs forward: graphs", graphs)
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:10])

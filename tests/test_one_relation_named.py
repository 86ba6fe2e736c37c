"""One relation with named sizes (DESIGN §7, §13): ``make_node``, ``query``, ``relation``
in ``kanren.run`` and ``refine(given=)`` give one answer for inputs whose sizes are named
(``float32[a]``, ``float32[b]``), conditions included: each is judged at every assignment
of the names in 0..3 against ``make_node`` on those sizes (brute force). A broadcast's
size ``max(a,b)*min(1,a,b)`` and its condition ``a == b or a == 1 or b == 1`` were lost by
query (``Z = float32[n]``, any n), by a required output (``{}``, unconditionally), by
``relation`` under ``eq``/``membero`` and by a given type in ``refine``.
"""

from __future__ import annotations

import itertools

import pytest
from kanren import membero, run
from unification import var

import kantensor as kt
from kantensor.types.symbols import free_symbols, substitute
from test_one_relation import SIZES, forward


def _symbolic_types(ranks, choices):
    """Every list of input types of ``ranks`` whose axes are each a fresh named size or
    one of the ints ``choices``."""
    axes = sum(ranks)
    for picks in itertools.product(("name", *choices), repeat=axes):
        it, k, types = iter(picks), 0, []
        for r in ranks:
            shape = []
            for _ in range(r):
                p = next(it)
                if p == "name":
                    shape.append(kt.Dim("abcd"[k]))
                    k += 1
                else:
                    shape.append(p)
            types.append(kt.TensorType("float32", tuple(shape)))
        yield types


def _at(t, env):
    return kt.TensorType(t.dtype, tuple(substitute(d, env) if isinstance(d, kt.Dim) else d
                                        for d in t.shape))


def _instances(answer, names, zs):
    """Each instance of a query answer over the sizes 0..3: (the sizes of the input
    names, the output types) for every assignment of the symbols it mentions at which
    its ``where`` holds."""
    values = [answer[z] for z in zs] if zs else []
    symbols = sorted({s for t in values for d in t.shape if isinstance(d, kt.Dim)
                      for s in free_symbols(d)} | {s for c in answer.where
                                                  for s in c.symbols()} | set(names), key=str)
    for choice in itertools.product(SIZES, repeat=len(symbols)):
        env = dict(zip(symbols, choice, strict=True))
        if all(c.holds(env) for c in answer.where):
            outs = tuple(_at(t, env) for t in values)
            if all(isinstance(d, int) and d >= 0 for t in outs for d in t.shape):
                yield tuple(env[n] for n in names), outs


NAMED_OPS = [
    ("add", lambda: kt.add, ((0, 1), (1, 1), (2, 1), (1, 2), (2, 2))),
    ("mul", lambda: kt.mul, ((1, 1), (2, 1))),
    ("maximum", lambda: kt.maximum, ((1, 1), (1, 2))),
    ("matmul", lambda: kt.matmul, ((1, 1), (2, 1), (2, 2), (1, 2))),
    ("where", lambda: kt.where, ((1, 1, 1), (0, 1, 1))),
    ("concatenate", lambda: kt.concatenate.bind(axis=0), ((1, 1), (2, 2))),
    ("sum", lambda: kt.sum.bind(axis=0), ((1,), (2,))),
]
NAMED_FIGURES = {"instances": 0, "queries": 0, "relations": 0, "refines": 0, "wrong": []}


@pytest.mark.parametrize(("name", "make", "ranks"), NAMED_OPS, ids=[o[0] for o in NAMED_OPS])
def test_named_sizes_every_front_end_gives_make_nodes_answer(name, make, ranks):
    """Inputs whose sizes are named (``float32[a]``, ``float32[b]``) or ints, ranks 0..2:
    at every assignment of the names in 0..3, (1) make_node's type at its conditions is
    what make_node builds on those sizes (or it refuses where they fail); (2) the answers
    of ``query(op, types, [Z])`` (each instance over its symbols where its ``where``
    holds) are exactly make_node's, where it builds, and nothing where it refuses: an
    output size left free (``Z = float32[n]``), or a broadcast condition dropped, is
    caught; (3) ``query(op, types, [make_node's output types])`` holds exactly where
    make_node builds those types; (4) ``refine(out, given={out: float32[c...]})``'s
    contract holds exactly where the output has the sizes ``c...``; (5) in ``kanren.run``,
    ``relation(op)`` beside ``membero`` grounds the output's sizes to exactly those some
    assignment of the names gives (the names are rigid: its pending broadcast keeps them
    as constraints, never grounds a size no assignment gives)."""
    op = make()
    wrong = NAMED_FIGURES["wrong"]
    before = len(wrong)
    for rank in ranks:
        for types in _symbolic_types(rank, (1, 3)):
            names = sorted({d.name for t in types for d in t.shape if isinstance(d, kt.Dim)})
            inputs = [kt.tensor(f"x{i}", t.dtype, t.shape) for i, t in enumerate(types)]
            try:
                built = op(*inputs)
            except (TypeError, ValueError, IndexError):
                continue  # refused whatever the names are: not this test's
            outs = built if isinstance(built, list | tuple) else [built]
            conditions = outs[0].owner.conditions
            truth = {}
            for choice in itertools.product(SIZES, repeat=len(names)):
                env = dict(zip(names, choice, strict=True))
                concrete = forward(op, [_at(t, env) for t in types])
                truth[choice] = concrete
                NAMED_FIGURES["instances"] += 1
                said = tuple(_at(v.type, env) for v in outs) \
                    if all(c.holds(env) for c in conditions) else None
                if said != concrete:
                    wrong.append(f"make_node {name} {list(map(str, types))} at {env}: "
                                 f"{said} != {concrete}")
            zs = [f"Z{i}" for i in range(len(outs))]
            got: dict = {}
            for answer in kt.query(op, types, [var(z) for z in zs]):
                for key, value in _instances(answer, names, zs):
                    got.setdefault(key, set()).add(value)
            NAMED_FIGURES["queries"] += 1
            for key, concrete in truth.items():
                want = set() if concrete is None else {concrete}
                if got.get(key, set()) != want:
                    wrong.append(f"query {name} {list(map(str, types))} -> Z at "
                                 f"{dict(zip(names, key, strict=True))}: "
                                 f"{got.get(key)} != {want}")
            if len(outs) == 1:  # (5) relation in kanren.run, its sizes ground by membero
                ns = [var() for _ in range(outs[0].ndim)]
                found = set(run(0, tuple(ns), kt.relation(op)(
                    *types, kt.pattern("float32", tuple(ns))), *(membero(n, SIZES) for n in ns)))
                want = {c[0].shape for c in truth.values()
                        if c is not None and set(c[0].shape) <= set(SIZES)}
                NAMED_FIGURES["relations"] += 1
                if found != want:
                    wrong.append(f"relation {name} {list(map(str, types))}: {found} != {want}")
            types_out = [v.type for v in outs]
            holds = set()
            for answer in kt.query(op, types, types_out):
                holds |= {key for key, _ in _instances(answer, names, [])}
            for key, concrete in truth.items():
                env = dict(zip(names, key, strict=True))
                want = concrete == tuple(_at(t, env) for t in types_out) \
                    and all(c.holds(env) for c in conditions)
                if (key in holds) != want:
                    wrong.append(f"query {name} {list(map(str, types))} -> "
                                 f"{list(map(str, types_out))} at {env}: {key in holds}")
            shape = outs[0].type.shape if len(outs) == 1 else ()
            exprs = [k for k, d in enumerate(shape) if isinstance(d, kt.Dim) and d.name is None]
            if exprs:  # each size of names given a name of its own (a lone name or an
                # int stays: refine binds a given name to it)
                given = kt.TensorType("float32", tuple(
                    kt.Dim(f"c{k}") if k in exprs else d for k, d in enumerate(shape)))
                try:
                    r = kt.refine(outs[0], given={outs[0]: given})
                except kt.TypeInferenceError:
                    r = None
                NAMED_FIGURES["refines"] += 1
                for key, concrete in truth.items():
                    for cs in itertools.product(SIZES, repeat=len(exprs)):
                        env = dict(zip(names, key, strict=True))
                        env |= {f"c{k}": c for k, c in zip(exprs, cs, strict=True)}
                        want = concrete is not None and concrete[0] == _at(given, env)
                        ok = r is not None and (r.contract is None or r.contract.holds(
                            **{k: v for k, v in env.items()
                               if k in {n for n, _ in r.contract.sizes}})) and all(
                            _at(r[v], env) == _at(v.type, env) for v in inputs)  # (bound)
                        if ok != want:
                            wrong.append(f"refine {name} {list(map(str, types))} given "
                                         f"{given} at {env}: {ok}")
    print(f"\nnamed sizes after {name}: " + ", ".join(
        f"{k} {len(v) if isinstance(v, list) else v}" for k, v in NAMED_FIGURES.items()))
    assert len(wrong) == before, wrong[before:][:5]


GIVEN_OPS = [
    ("add", lambda: kt.add, ((1, 1), (2, 1), (1, 2))),
    ("matmul", lambda: kt.matmul, ((1, 1), (2, 1), (1, 2))),
    ("where", lambda: kt.where, ((0, 1, 1),)),
    ("concatenate", lambda: kt.concatenate.bind(axis=0), ((1, 1),)),
    ("sum", lambda: kt.sum.bind(axis=0), ((2,),)),
]
GIVEN_FIGURES = {"graphs": 0, "points": 0, "wrong": []}


@pytest.mark.parametrize(("name", "make", "ranks"), GIVEN_OPS, ids=[o[0] for o in GIVEN_OPS])
def test_refine_given_names_every_output_size(name, make, ranks):
    """``refine(out, given={out: float32[c...]})`` with a given name for every output size
    that is no int: a lone name (``float32[a]`` given ``float32[c]``, where refine binds
    ``c := a``) and a size left unknown by an input's unknown size (``x[a] + w[?]``);
    inputs' axes each a name, 1, 3 or unknown. At every assignment of the names, the
    inputs' unknown sizes and the ``c``'s in 0..3, the contract holds exactly where
    building the graph forwards at those sizes gives the output those sizes (brute
    force). On main 0cf98d8 the contract held at ``a=3, c=2`` (``c := a`` fixed away, or
    ``c`` no size of it) and without ``c == max(a, w.shape[0])*min(1, a, w.shape[0])``."""
    op = make()
    wrong = GIVEN_FIGURES["wrong"]
    before = len(wrong)
    for rank in ranks:
        for types in _symbolic_types(rank, (1, 3, None)):
            inputs = [kt.tensor(f"x{i}", t.dtype, t.shape) for i, t in enumerate(types)]
            try:
                out = op(*inputs)
            except (TypeError, ValueError, IndexError):
                continue
            shape = out.type.shape
            free = [k for k, d in enumerate(shape) if not isinstance(d, int)]
            if not free:
                continue
            given = kt.TensorType("float32", tuple(
                kt.Dim(f"c{k}") if k in free else d for k, d in enumerate(shape)))
            try:
                r = kt.refine(out, given={out: given})
            except kt.TypeInferenceError:
                r = None
            GIVEN_FIGURES["graphs"] += 1
            sizes = [(f"x{i}.shape[{k}]", (i, k)) if d is None else (d.name, None)
                     for i, t in enumerate(types) for k, d in enumerate(t.shape)
                     if not isinstance(d, int)]
            keys = list(dict.fromkeys(n for n, _ in sizes)) + [f"c{k}" for k in free]
            for choice in itertools.product(SIZES, repeat=len(keys)):
                env = dict(zip(keys, choice, strict=True))
                concrete = [kt.TensorType(t.dtype, tuple(
                    env[f"x{i}.shape[{k}]"] if d is None else env[d.name]
                    if isinstance(d, kt.Dim) else d for k, d in enumerate(t.shape)))
                    for i, t in enumerate(types)]
                built = forward(op, concrete)
                want = built is not None and built[0].shape == tuple(
                    env[f"c{k}"] if k in free else d for k, d in enumerate(shape))
                GIVEN_FIGURES["points"] += 1
                if r is None:
                    said = False
                elif r.contract is None:
                    said = True
                elif any(type(v) is int and env.get(k, v) != v
                         for k, v in r.contract.fixed.items()):
                    said = False  # a size the contract left one value of, bound by refine
                else:
                    named = {n for n, _ in r.contract.sizes}
                    verdict = r.contract.holds({k: v for k, v in env.items() if k in named})
                    said = verdict.value  # (None: undecided, never right here)
                if said != want:
                    wrong.append(f"refine {name} {list(map(str, types))} given {given} at "
                                 f"{env}: {said}")
    print(f"\nrefine given after {name}: graphs {GIVEN_FIGURES['graphs']}, points "
          f"{GIVEN_FIGURES['points']}, wrong {len(GIVEN_FIGURES['wrong'])}")
    assert len(wrong) == before, wrong[before:][:5]

"""Random graphs of catalogue Ops judged by one relation (DESIGN §7, §13); a tool, not a
test (``python tests/relgraphs.py N SEED [STEPS]`` builds N graphs and prints what
disagrees).

A graph is drawn from the catalogue's examples: each step takes an example's Op (its
parameters bound) and feeds it earlier values of the example's ranks, or new inputs of
random dtypes (now and then) and random sizes: 0..3 or a named size ``a``, ``b``, ``c``.
Steps make_node refuses are drawn again. Then every front end is asked about the graph:

Now and then a step is a size used as a number (``size_number`` of ``a - 3``, ``60*a``...)
or arithmetic with a 0-d operand (such a number: a wrapped Python int that must fit the
dtype the Op computes in, as NumPy 2 requires), judged as every other step.

* per node, with all input sizes known: ``query`` forwards and ``relation`` in
  ``kanren.run`` give exactly make_node's types, ``refine`` of the node too, and a
  backward query (inputs of unknown sizes, the node's output types) is sound and
  complete against brute force (the checks of tests/test_one_relation.py);
* per node with named sizes: at every assignment of the names in 0..3, make_node's
  symbolic types under its conditions are make_node's on those sizes (or it refuses
  where the conditions fail), and the instances of ``query(op, types, [Z])`` are those;
* the whole graph: ``refine`` gives every variable its built type (or a size bound where
  the contract leaves it one value: at every assignment the contract holds at, the two
  agree); the graph's
  ``contract`` holds at an assignment of the names exactly where the graph rebuilt on
  those sizes builds, and then every variable's type is the built one at those sizes;
  ``refine(given=sizes)`` gives those types (and refuses where the contract fails);
* the graph with its named sizes erased (unknowns): refine's ints are the rebuilt sizes
  at every assignment where the graph builds, and refine given an output's rebuilt type
  (backwards) does not refuse and keeps the inputs' sizes there.

Any disagreement is a finding: it is printed with the graph's steps.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from unification import var

import kantensor as kt
import test_one_relation as one
from kantensor.ops.pyints import number_value
from kantensor.types.conditions import has_choice, is_choice
from kantensor.types.symbols import free_symbols, substitute
from kantensor.types.variable import SizeNumber

DTYPES = ("bool", "int8", "int64", "uint8", "float32", "float64", "complex64")
NAMES = ("a", "b", "c")
SIZES = (0, 1, 2, 3)
#: At most this many assignments of the names are tried per graph.
MAX_ENVS = 64
#: ... and this many with refine(given=sizes).
GIVEN_ENVS = 6
REFUSED = (TypeError, ValueError, IndexError)


def _examples() -> list[tuple[str, Any, list]]:
    found = []
    for entry in one.ENTRIES:
        for example in entry.examples:
            if "in" not in example or "error" in example:
                continue
            bound = one._bound(entry, example)
            if bound is not None and bound[1]:
                found.append((entry.name, *bound))
    return found


#: The mark of the steps drawn only where a size used as a number can be their operand.
_TAKES_NUMBER = "(a number)"


def _numbers() -> list[tuple[str, Any, list]]:
    """Steps of sizes used as numbers (``x + (a - 3)`` in NumPy code): ``size_number``
    of a size (its input the size's carrier, a ``bool`` vector; the value is read from
    its length), and arithmetic with a 0-d operand, which takes such a number (a wrapped
    Python int: it must fit the dtype the Op computes in)."""
    a = kt.Dim("a")
    carrier = kt.TensorType("bool", (a,))
    found: list[tuple[str, Any, list]] = [
        ("size_number", kt.size_number.bind(size=size), [carrier])
        for size in (a - 3, a, 60 * a, 1 - a)]
    for name in ("add", "sub", "mul"):
        for dtype in ("int8", "uint8", "float32"):
            found.append((f"{name} {_TAKES_NUMBER}", getattr(kt, name),
                          [kt.TensorType(dtype, (3,)), kt.TensorType("int64", ())]))
    return found


EXAMPLES = _examples() + _numbers() * 8  # (drawn now and then)


@dataclass
class Graph:
    """Input types and steps ``(name, op, operand indices)``; values are numbered inputs
    first, then each step's outputs."""

    inputs: list[kt.TensorType] = field(default_factory=list)
    steps: list[tuple[str, Any, list[int]]] = field(default_factory=list)

    def build(self, types: list[kt.TensorType] | None = None) -> list[kt.Variable]:
        """Every value, built from ``types`` (the graph's own by default); raises where a
        step refuses."""
        values: list = [t(f"x{i}") for i, t in enumerate(types or self.inputs)]
        ins = list(values)
        outs: list = []
        for _, op, args in self.steps:
            made = op(*[(ins + outs)[i] for i in args])
            made = made if isinstance(made, list | tuple) else [made]
            made = made[0].owner.outputs  # every output of the node, used or not
            outs.extend(made)
        return ins + outs

    def text(self) -> str:
        """The inputs and steps, each value by its number (#i)."""
        lines = [f"#{i}: {t}" for i, t in enumerate(self.inputs)]
        values = self.build()
        n = len(self.inputs)
        for name, op, args in self.steps:
            k = len(values[n].owner.outputs)
            made = ", ".join(f"#{j}: {values[j].type}" for j in range(n, n + k))
            lines.append(f"{made} = {op}({', '.join(f'#{i}' for i in args)})  [{name}]")
            n += k
        return "\n".join(lines)


def _new_type(rng: random.Random, like: kt.TensorType, named: bool = True) -> kt.TensorType:
    """A type of ``like``'s rank: its dtype (or now and then another), each size its own
    (if an int), a name (if ``named``) or 0..3."""
    dtype = rng.choice(DTYPES) if rng.random() < 0.2 else like.dtype
    shape = []
    for d in like.shape:  # the example's size (if an int), a name, or 0..3
        r = rng.random()
        shape.append(d if r < 0.3 and isinstance(d, int) else kt.Dim(rng.choice(NAMES))
                     if r < 0.6 and named else rng.choice(SIZES))
    return kt.TensorType(dtype, tuple(shape))


def random_graph(rng: random.Random, steps: int, named: bool = True) -> Graph:
    """A graph of ``steps`` steps (see the module); ``named``: new inputs may have named
    sizes."""
    g = Graph()
    values: list[kt.Variable] = []
    for _ in range(steps):
        for _attempt in range(30):
            name, op, types = rng.choice(EXAMPLES)
            if name.endswith(_TAKES_NUMBER) and not any(isinstance(v, SizeNumber)
                                                        for v in values):
                continue
            args, new = [], []
            for t in types:
                fits = [i for i, v in enumerate(values) if v.type.ndim == t.ndim]
                numbers = [i for i in fits if isinstance(values[i], SizeNumber)]
                if numbers and rng.random() < 0.8:  # a 0-d operand: a size as a number
                    args.append(("old", rng.choice(numbers)))
                elif fits and rng.random() < 0.6:
                    args.append(("old", rng.choice(fits)))
                else:
                    new.append(_new_type(rng, t, named))
                    args.append(("new", len(new) - 1))
            # old values are numbered inputs first: shift the step outputs by the new inputs
            shifted = [len(g.inputs) + i if kind == "new" else
                       (i if i < len(g.inputs) else i + len(new)) for kind, i in args]
            steps_shifted = [(s, o, [a if a < len(g.inputs) else a + len(new) for a in aa])
                             for s, o, aa in g.steps]
            trial = Graph(g.inputs + new, [*steps_shifted, (name, op, shifted)])
            try:
                values = trial.build()
            except REFUSED:
                continue
            g = trial
            break
    return g


def _at(t: kt.TensorType, env: dict) -> kt.TensorType:
    return kt.TensorType(t.dtype, tuple(substitute(d, env) if isinstance(d, kt.Dim) else d
                                        for d in t.shape))


def _names(types: list[kt.TensorType]) -> list[str]:
    return sorted({str(s) for t in types for d in t.shape if isinstance(d, kt.Dim)
                   for s in free_symbols(d)})


def _symbols(value: Any) -> set:
    """The named sizes of a size number's value (an int: none)."""
    return {s for s in free_symbols(value) if isinstance(s, str)} \
        if isinstance(value, kt.Dim) else set()


def _instances(answer: Any, names: list[str], zs: list[str]) -> Any:
    """tests/test_one_relation_named's instances of a query answer, where the sizes of
    its types are >= 0 (a size ``2*c - 1`` of an input is -1 at c = 0: no instance)."""
    values = [answer[z] for z in zs]
    symbols = sorted({s for t in values for d in t.shape if isinstance(d, kt.Dim)
                      for s in free_symbols(d)} | {s for c in answer.where
                                                  for s in c.symbols()} | set(names), key=str)
    for choice in itertools.product(SIZES, repeat=len(symbols)):
        env = dict(zip(symbols, choice, strict=True))
        sizes = [[substitute(d, env) if isinstance(d, kt.Dim) else d for d in t.shape]
                 for t in values]
        if any(isinstance(d, int) and d < 0 for row in sizes for d in row):
            continue
        if all(c.holds(env) for c in answer.where):
            yield tuple(env[n] for n in names), tuple(
                kt.TensorType(t.dtype, tuple(row)) for t, row in zip(values, sizes, strict=True))


def _chosen(conditions: Any, env: dict) -> bool:
    """Whether a condition of an overload's choice fails at ``env`` (squeeze's ``n != 1``
    on an axis of unknown size): other types apply there, a documented choice."""
    return any(is_choice(c) and not c.holds(env) for c in conditions)


def _envs(names: list[str], rng: random.Random) -> list[dict]:
    every = list(itertools.product(SIZES, repeat=len(names)))
    if len(every) > MAX_ENVS:
        every = rng.sample(every, MAX_ENVS)
    return [dict(zip(names, c, strict=True)) for c in every]


def _types(values: list) -> tuple:
    return tuple(v.type for v in values)


def check_nodes(g: Graph, values: list, rng: random.Random, wrong: list) -> None:
    """The per-node checks (see the module). A node's types are simplified under the
    facts of the nodes before it (``x.item()`` makes ``x``'s size 1, so ``x * 2`` is
    ``[1]``): with named sizes, a node is judged at the assignments where the graph's
    contract holds."""
    valid = _valid(values[len(g.inputs):])
    n = len(g.inputs)
    for name, op, args in g.steps:
        ins = [values[i].type for i in args]
        node = values[n].owner
        k = len(node.outputs)
        outs = _types(values[n:n + k])
        n += k
        if one._concrete(ins):
            before = {key: len(one.FIGURES[key]) for key in ("disagree", "unsound", "missing")}
            one.check_all_known(op, ins, outs)
            if one._concrete(outs):
                one.check_backwards(op, ins, outs)
            for key, count in before.items():
                for text in one.FIGURES[key][count:]:
                    wrong.append((f"node-{key}", name, text))
            continue
        names = sorted({*_names(ins), *(str(x) for i in args
                                         if isinstance(values[i], SizeNumber)
                                         for x in _symbols(number_value(values[i])))})
        zs = [f"Z{i}" for i in range(k)]
        got: dict = {}
        # a wrapped number is itself (its term carries its value), a value its type
        terms = [values[i] if values[i].wrapped else t for i, t in zip(args, ins, strict=True)]
        try:
            for answer in itertools.islice(kt.query(op, terms, [var(z) for z in zs]), 50):
                for key, value in _instances(answer, names, zs):
                    got.setdefault(key, set()).add(value)
        except Exception as exc:  # noqa: BLE001 - a crash is a finding
            wrong.append(("query-crash", name, f"{op} {list(map(str, ins))}: "
                                              f"{type(exc).__name__}: {exc}"))
            continue
        for env in _envs(names, rng):
            if not valid(env):
                continue
            concrete = _forward(op, [values[i] for i in args], env)
            try:
                holds = all(c.holds(env) for c in node.conditions)
            except Exception as exc:  # noqa: BLE001
                wrong.append(("holds-crash", name, f"{op} {env}: {exc}"))
                continue
            said = tuple(_at(t, env) for t in outs) if holds else None
            if _chosen(node.conditions, env):
                continue  # other types apply there (the query has them too)
            if said != concrete:
                wrong.append(("node-named", name, f"{op} {list(map(str, ins))} at {env}: "
                                                  f"{said} != {concrete}"))
            want = set() if concrete is None else {concrete}
            queried = got.get(tuple(env[x] for x in names), set())
            if queried != want:
                wrong.append(("query-named", name, f"{op} {list(map(str, ins))} at {env}: "
                                                   f"{queried} != {want}"))


def _forward(op: Any, args: list, env: dict) -> Any:
    """make_node's output types on ``args`` at the sizes ``env`` (None if it refuses): a
    value by its type at ``env``; a size used as a number by the Python int it is there
    (see :func:`kantensor.ops.pyints.number_value`), or its type where it is not one."""
    made = []
    for v in args:
        if isinstance(v, SizeNumber):
            value = number_value(v)
            value = substitute(value, env) if isinstance(value, kt.Dim) else value
            if type(value) is int:
                made.append(value)
                continue
        made.append(_at(v.type, env))
    try:
        out = op(*[x if type(x) is int else x() for x in made])
    except REFUSED:
        return None
    return tuple(v.type for v in (out if isinstance(out, list | tuple) else [out]))


def _valid(outputs: list) -> Any:
    """A test of an assignment of (some) names: the graph's contract holds there."""
    contract = kt.contract(outputs)
    wanted = {str(s) for _, s in contract.sizes}

    def valid(env: dict) -> bool:
        wide = {**{n: 0 for n in wanted}, **env}  # the names a node does not read: any
        try:
            verdict = contract.holds({n: wide[n] for n in wanted})
        except (ValueError, KeyError):
            return False
        return verdict.decided and bool(verdict)
    return valid


def check_graph(g: Graph, values: list, rng: random.Random, wrong: list,
                stats: Counter) -> None:
    """The whole-graph checks (see the module)."""
    outputs = [v for v in values[len(g.inputs):]]
    names = _names(g.inputs)
    try:
        refined = kt.refine(outputs)
    except kt.TypeInferenceError as exc:  # the graph valid nowhere: nothing builds
        stats["valid nowhere"] += 1
        for env in _envs(names, rng):
            try:
                g.build([_at(t, env) for t in g.inputs])
            except REFUSED:
                continue
            wrong.append(("refine-refuses", "graph", f"builds at {env}; refine: {exc}"))
            break
        return
    except Exception as exc:  # noqa: BLE001
        wrong.append(("refine-crash", "graph", f"{type(exc).__name__}: {exc}"))
        return
    try:
        contract = kt.contract(outputs)
    except Exception as exc:  # noqa: BLE001
        wrong.append(("contract-crash", "graph", f"{type(exc).__name__}: {exc}"))
        return
    for env in _envs(names, rng):
        try:
            rebuilt = g.build([_at(t, env) for t in g.inputs])
        except REFUSED:
            rebuilt = None
        try:
            verdict = contract.holds(env)
        except Exception as exc:  # noqa: BLE001
            wrong.append(("contract-holds-crash", "graph", f"{env}: {exc}"))
            continue
        if not verdict.decided:
            stats["undecided"] += 1
            continue
        holds = bool(verdict)
        if holds != (rebuilt is not None):
            wrong.append(("contract", "graph", f"at {env}: holds={holds} "
                                               f"({verdict}), builds={rebuilt is not None}"))
            continue
        if rebuilt is None:
            continue
        for i, (v, w) in enumerate(zip(values, rebuilt, strict=True)):
            if _at(v.type, env) != w.type:
                wrong.append(("substituted", "graph", f"#{i} at {env}: {v.type} -> "
                                                      f"{_at(v.type, env)}, rebuilt {w.type}"))
                break
        for i, (v, w) in enumerate(zip(values, rebuilt, strict=True)):
            if _at(refined[v], env) != w.type:  # refine may bind a size the contract fixes
                wrong.append(("refine", "graph", f"#{i} at {env}: built {v.type}, refined "
                                                 f"{refined[v]}, rebuilt {w.type}"))
                break
    for env in _envs(names, rng)[:GIVEN_ENVS]:
        try:
            rebuilt = g.build([_at(t, env) for t in g.inputs])
        except REFUSED:
            rebuilt = None
        if not contract.holds(env).decided:
            continue  # an overload's choice fails there: refine keeps the built types
        try:
            given = kt.refine(outputs, given=env)
        except kt.TypeInferenceError:
            given = None
        except Exception as exc:  # noqa: BLE001
            wrong.append(("refine-given-crash", "graph", f"{env}: {type(exc).__name__}: {exc}"))
            continue
        if (given is None) != (rebuilt is None):
            wrong.append(("refine-given", "graph", f"at {env}: refine "
                          f"{'refuses' if given is None else 'gives types'}, rebuilt "
                          f"{'refuses' if rebuilt is None else 'builds'}"))
            continue
        for i, (v, w) in enumerate(zip(values, rebuilt or (), strict=False)):
            if given[v] != w.type:
                wrong.append(("refine-given", "graph", f"#{i} at {env}: refined {given[v]}, "
                                                       f"rebuilt {w.type}"))
                break


def check_unknowns(g: Graph, rng: random.Random, wrong: list, stats: Counter) -> None:
    """The graph with every named size of its inputs erased (each axis an unknown of its
    own), refined: at every assignment of the names where the named graph builds, a
    size refine says is an int is the size the rebuilt graph has (refine narrows the
    unknowns only to what every node's relation implies); and refine given an output's
    rebuilt type there (the type required backwards) does not refuse, and gives the
    inputs' sizes where it says ints."""
    erased = Graph([kt.TensorType(t.dtype, tuple(None if isinstance(d, kt.Dim) else d
                                                  for d in t.shape)) for t in g.inputs],
                   g.steps)
    try:
        values = erased.build()
    except REFUSED:
        return
    outputs = values[len(g.inputs):]
    if any(has_choice(c) for v in outputs if v.owner for c in v.owner.conditions):
        return  # squeeze of an unknown axis chose rank: other sizes are not covered
    try:
        refined = kt.refine(outputs)
    except kt.TypeInferenceError:
        refined = None
    except Exception as exc:  # noqa: BLE001
        wrong.append(("refine-unknown-crash", "graph", f"{type(exc).__name__}: {exc}"))
        return
    names = _names(g.inputs)
    for k, env in enumerate(_envs(names, rng)):
        try:
            rebuilt = g.build([_at(t, env) for t in g.inputs])
        except REFUSED:
            continue
        stats["unknown checks"] += 1
        if refined is None:
            wrong.append(("refine-unknown", "graph", f"refine refuses the erased graph; "
                                                    f"it builds at {env}"))
            return
        for i, (v, w) in enumerate(zip(values, rebuilt, strict=True)):
            if not _covers(refined[v], w.type):
                wrong.append(("refine-unknown", "graph", f"#{i} at {env}: refined "
                                                         f"{refined[v]}, rebuilt {w.type}"))
                return
        if k >= GIVEN_ENVS:
            continue
        last = rebuilt[-1]
        try:
            back = kt.refine(outputs, given={outputs[-1]: last.type})
        except kt.TypeInferenceError as exc:
            wrong.append(("refine-back", "graph", f"at {env}: refine given #{len(values) - 1}"
                                                  f" = {last.type} refuses: {exc}"))
            return
        for i, (v, w) in enumerate(zip(values, rebuilt, strict=True)):
            if not _covers(back[v], w.type):
                wrong.append(("refine-back", "graph", f"#{i} at {env} given #{len(values)-1}"
                                                      f" = {last.type}: refined {back[v]}, "
                                                      f"rebuilt {w.type}"))
                return


def _covers(refined: kt.TensorType, t: kt.TensorType) -> bool:
    """Whether ``t`` (known sizes) may be an instance of ``refined``: same dtype and rank,
    equal where refined has an int."""
    return refined.dtype == t.dtype and refined.ndim == t.ndim and all(
        not isinstance(r, int) or r == d for r, d in zip(refined.shape, t.shape, strict=True))


def main(count: int, seed: int, steps: int = 4) -> None:
    stats: Counter = Counter()
    rng = random.Random(seed)
    for i in range(count):
        g = random_graph(rng, rng.randint(1, steps))
        try:
            values = g.build()
        except REFUSED:
            continue
        wrong: list = []
        check_nodes(g, values, rng, wrong)
        check_graph(g, values, rng, wrong, stats)
        check_unknowns(g, rng, wrong, stats)
        stats["graphs"] += 1
        stats["nodes"] += len(g.steps)
        stats["sizes as numbers taken"] += sum(
            any(isinstance(x, SizeNumber) for x in v.owner.inputs)
            for v in values[len(g.inputs):] if v.owner is not None)
        if wrong:
            stats["wrong"] += 1
            for kind in {w[0] for w in wrong}:
                stats["wrong:" + kind] += 1
            print(f"=== #{i}\n{g.text()}")
            for w in wrong[:4]:
                print("   ", w)
            sys.stdout.flush()
    print(dict(stats))


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))

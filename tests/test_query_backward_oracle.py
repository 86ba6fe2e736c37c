"""Backward answers judged by brute force over a small finite domain (one relation, DESIGN
§7): ``kt.query`` and ``kanren.run`` over ``kt.relation`` against ``make_node``.

Each case is an Op (from the catalogue, or signature text), given types whose sizes may be
named and composite (``a//2``, ``2*a``, ``a + 1``) and logic variables for whole types.
Every value of the named sizes (``SIZES``) and every type of the domain for each variable
(``DTYPES``, ranks up to ``MAX_RANK``, sizes in ``SIZES``) is built forwards: the points
where the build gives the outputs asked for (a variable output: any). The answers of the
query, each instantiated at every value of its sizes (the named ones and its own) where
its ``where`` holds, must be exactly those points: each instance builds (sound), each point
is an instance (complete), no point is an instance of two answers (no duplicate), and
every answer has an instance (its conditions are satisfiable, searched wider where the
domain has none). No two answers share a point: not the same types twice (an
overlapping later alternative restating an earlier one's answer), nor different types
that coincide there (broadcasting's ``X = [1]`` and ``X = [a]`` at ``a == 1``: the
second says ``a != 1``), so counting answers counts points once. ``kanren.run`` of the
same relation, where the query has no answer, answers ``()`` (it refused such outputs).

``KANTENSOR_BACKWARD_SIZES`` sizes the run: the named sizes and the domain's sizes are
``0 .. N-1`` (default 4: about 6 s of CPU; the long size 6).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from kanren import run
from unification import var

import kantensor as kt
import sizing
from kantensor.onnx.registry import lookup
from kantensor.query.opendtypes import OpenDType
from kantensor.types.symbols import free_symbols, substitute

DTYPES = ("bool", "int8", "float32")
MAX_RANK = 2
#: The values of the named sizes and the domain's sizes.
SIZES = tuple(range(sizing.size("BACKWARD_SIZES", 4, 6)))
#: The values an answer's own sizes take (a size of a domain type is at most max(SIZES), and an
#: answer's own sizes here are never larger than a sum of three of those).
OWN = tuple(range(3 * max(SIZES) + 4))
#: Where an answer has no instance in the domain, its conditions are searched up to here.
WIDE = tuple(range(16))

a, b = kt.Dim("a"), kt.Dim("b")
S = tuple(kt.Dim(f"s{i}") for i in range(4))


def _types(max_rank: int, sizes: Sequence[int], dtypes: Sequence[str] = DTYPES
           ) -> list[kt.TensorType]:
    return [kt.TensorType(d, s) for d in dtypes for r in range(max_rank + 1)
            for s in itertools.product(sizes, repeat=r)]


class Case:
    """A query: ``op``, its inputs and outputs (types, text, or logic variables, named by
    their tokens); ``forward(env)``: the Op make_node builds at those values of the
    named sizes (``op`` itself unless its parameters hold named sizes); ``rank``: the
    variables' domain's ranks."""

    def __init__(self, label: str, op: Any, inputs: Sequence[Any], outputs: Sequence[Any],
                 forward: Callable[[dict], Any] | None = None, rank: int = MAX_RANK,
                 sizes: Sequence[int] | None = None, names: Sequence[str] = (),
                 dtypes: Sequence[str] = DTYPES):
        self.label, self.op = label, op
        self.extra_names = tuple(names)  # named sizes of the Op's parameters
        self.inputs, self.outputs = list(inputs), list(outputs)
        self.forward = forward or (lambda env: op)
        self.rank = rank
        self.dtypes = tuple(dtypes)
        self.domain = _types(rank, sizes or SIZES, dtypes)

    def __repr__(self) -> str:
        return self.label


def _names(case: Case) -> list[str]:
    found = set()
    for t in [*case.inputs, *case.outputs]:
        if isinstance(t, kt.TensorType):
            found |= {s for d in t.shape if isinstance(d, kt.Dim) for s in free_symbols(d)}
    return sorted(found | set(getattr(case, "extra_names", ())))


def _at(t: kt.TensorType, env: dict) -> kt.TensorType | None:
    shape = tuple(substitute(d, env) if isinstance(d, kt.Dim) else d for d in t.shape)
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        return None
    return kt.TensorType(t.dtype, shape)


def _built(op: Any, types: Sequence[kt.TensorType]) -> tuple | None:
    try:
        node = op.make_node(*[t() for t in types])
    except (TypeError, ValueError):
        return None
    return tuple(o.type for o in node.outputs)


def points(case: Case) -> set[tuple]:
    """Every ``(named values, variables' types)`` make_node builds to the outputs."""
    names = _names(case)
    xs = [x for x in case.inputs if not isinstance(x, kt.TensorType)]
    found = set()
    for values in itertools.product(SIZES, repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        given = {i: _at(x, env) for i, x in enumerate(case.inputs)
                 if isinstance(x, kt.TensorType)}
        wanted = [_at(x, env) if isinstance(x, kt.TensorType) else None for x in case.outputs]
        if any(t is None for t in given.values()) or \
                any(w is None for w, x in zip(wanted, case.outputs, strict=True)
                    if isinstance(x, kt.TensorType)):
            continue  # (a composite size that is negative there: no such types)
        op = case.forward(env)
        for combo in itertools.product(case.domain, repeat=len(xs)):
            it = iter(combo)
            types = [given[i] if i in given else next(it) for i in range(len(case.inputs))]
            outs = _built(op, types)
            if outs is None or len(outs) != len(wanted):
                continue
            if all(w is None or w == o for w, o in zip(wanted, outs, strict=True)):
                found.add((values, combo + tuple(o for o, x in zip(outs, case.outputs,
                                                                    strict=True)
                                                  if not isinstance(x, kt.TensorType))))
    return found


def _variables(case: Case) -> list[str]:
    return [str(x.token) for x in [*case.inputs, *case.outputs]
            if not isinstance(x, kt.TensorType)]


def instances(case: Case, answer: Any, own: Sequence[int]) -> list[tuple]:
    """The points an answer states: its sizes given every value (the named ones in
    ``SIZES``, its own in ``own``) where its ``where`` holds, its open dtypes each of
    the domain's they allow."""
    names = _names(case)
    xs = _variables(case)
    types = [answer[x] for x in xs]
    syms = {s for t in types for d in t.shape if isinstance(d, kt.Dim) for s in free_symbols(d)}
    syms |= {s for c in answer.where for s in c.symbols()}
    mine = sorted(syms - set(names))
    out = []
    for values in itertools.product(*[SIZES] * len(names), *[own] * len(mine)):
        env = dict(zip(names + mine, values, strict=True))
        if not all(c.holds(env) for c in answer.where):
            continue
        shapes = [tuple(substitute(d, env) if isinstance(d, kt.Dim) else d for d in t.shape)
                  for t in types]
        assert all(isinstance(d, int) and d >= 0 for s in shapes for d in s), \
            (case, answer, env, shapes)  # a size where the conditions hold is a size
        opened = {t.dtype.name: t.dtype for t in types if isinstance(t.dtype, OpenDType)}
        for dtypes in itertools.product(*[sorted(set(d.dtypes) & set(case.dtypes))
                                          for d in opened.values()]):
            at = dict(zip(opened, dtypes, strict=True))  # (one open dtype: one value)
            out.append((tuple(env[n] for n in names), tuple(
                kt.TensorType(at[t.dtype.name] if isinstance(t.dtype, OpenDType) else t.dtype,
                              s) for t, s in zip(types, shapes, strict=True))))
    return out


def _satisfiable(case: Case, answer: Any) -> bool:
    names = _names(case)
    syms = sorted({s for c in answer.where for s in c.symbols()} | set(names))
    return any(all(c.holds(dict(zip(syms, v, strict=True))) for c in answer.where)
               for v in itertools.product(WIDE, repeat=len(syms)))


def check_query(case: Case) -> dict:
    """The query's answers against the points (module docstring); returns figures."""
    want = points(case)
    n_in = sum(1 for x in case.inputs if not isinstance(x, kt.TensorType))
    answers = list(kt.query(case.op, case.inputs, case.outputs, max_rank=case.rank))
    covered: dict[tuple, int] = {}
    overlaps: list[tuple] = []
    for k, answer in enumerate(answers):
        found = instances(case, answer, OWN)
        if not found:
            assert _satisfiable(case, answer), f"{case}: an answer that holds nowhere: {answer}"
        for values, types in found:
            point = (values, types)
            if all(t in case.domain for t in types[:n_in]):
                assert point in want, f"{case}: unsound answer {answer} at {point}"
                j = covered.setdefault(point, k)
                if j != k:
                    overlaps.append((j, k, point))
    missing = want - covered.keys()
    assert not missing, f"{case}: no answer gives {sorted(missing, key=str)[:3]}: {answers}"
    assert not overlaps, f"{case}: answers {overlaps[0][:2]} both give {overlaps[0][2]}: " \
        f"{[answers[k] for k in overlaps[0][:2]]}"
    return {"points": len(want), "answers": len(answers)}


def check_run(case: Case) -> None:
    """Where no type builds and the query has no answer, run answers ``()``."""
    xs = [x for x in [*case.inputs, *case.outputs] if not isinstance(x, kt.TensorType)]
    goal = kt.relation(case.op, max_rank=case.rank)(*case.inputs, *case.outputs)
    got = run(0, tuple(xs) if xs else var(), goal, kt.labelo(*xs))
    assert got == (), f"{case}: run gave {got}"


def _case(label: str, op: Any, inputs: Sequence[Any], outputs: Sequence[Any], **kw: Any
          ) -> Case:
    if isinstance(op, str):
        op = kt.SignatureOp("sig", kt.Signature.parse(op), lambda *x: x[0])
    return Case(label, op, inputs, outputs, **kw)


def T(*shape: Any, dtype: str = "float32") -> kt.TensorType:
    return kt.TensorType(dtype, shape)


def _ranged(**params: Any) -> Callable[[dict], Any]:
    """make_node's ``arange`` at values of the named sizes of its parameters."""
    def at(env: dict) -> Any:
        return kt.arange.bind(**{k: substitute(v, env) if isinstance(v, kt.Dim) else v
                                 for k, v in params.items()})
    return at


X, Y, Z = var("X"), var("Y"), var("Z")
#: overloads whose alternatives overlap: the later one applies where the earlier refuses
FIRST = "(n),(n)->(n) | (a),(b)->(1)"
HALVES = "(n)->(n//2) where n % 2 == 0 | (n)->(n)"
ONTO = "(a),(b)->(c) where broadcast(a, b) == c | (a),(b)->(1)"
FLOATS = "(n):T->(n):T where T in floating | (n):T->(n):float32"
ABOVE = "(n)->(n) where n > 2 | (n)->(n+1)"
POOL = "(b,c,h)->(b,c,(h-3)//2+1)"


def _equal19() -> Any:
    """ONNX's Equal of opset 19: ``T in (..., string) | T in string, ...``, overlapping
    alternatives (the later one never applies)."""
    return lookup("Equal", "", 19, "Equal").op


CASES = [
    # named dims, composite sizes (a//2, 2*a, a + 1)
    _case("matmul [a//2,3] @ Y -> [2,2]", kt.matmul, [T(a // 2, 3), Y], [T(2, 2)]),
    _case("matmul [2a,3] @ Y -> Z", kt.matmul, [T(2 * a, 3), Y], [Z], rank=1),
    _case("matmul [a+1,b] @ Y -> [2,2]", kt.matmul, [T(a + 1, b), Y], [T(2, 2)]),
    _case("dot [a,b] . X -> [a]", kt.dot, [T(a, b), X], [T(a)], sizes=(0, 1, 2)),
    _case("einsum ij,jk X,[a,b] -> [2,b]", kt.einsum.bind(subscripts="ij,jk->ik"),
          [X, T(a, b)], [T(2, b)], sizes=(0, 1, 2)),
    _case("vecdot X,[a,b] -> [a]", kt.vecdot, [X, T(a, b)], [T(a)], sizes=(0, 1, 2)),
    # broadcasting
    _case("add [a//2] + Y -> [b]", kt.add, [T(a // 2), Y], [T(b)]),
    _case("add [2a] + [a+1] -> Z", kt.add, [T(2 * a), T(a + 1)], [Z]),
    _case("add X + Y -> [a+1]", kt.add, [X, Y], [T(a + 1)], rank=1),
    _case("add X + [a] -> [2a]", kt.add, [X, T(a)], [T(2 * a)]),
    _case("add [a] + [b] -> [a+b+1]", kt.add, [T(a), T(b)], [T(a + b + 1)]),
    _case("add X + [2b] -> [2b+1]", kt.add, [X, T(2 * b)], [T(2 * b + 1)], rank=1),
    _case("floor_divide X // [a] -> [a]", kt.floor_divide, [X, T(a)], [T(a)], rank=1),
    # a broadcast of named sizes onto a size that grows with them (s0 must be 1)
    _case("broadcast [s0..s3] -> [2*s0+1]", "+(),(),(),()->()", [T(s) for s in S],
          [T(2 * S[0] + 1)]),
    _case("where broadcast [s0..s3] -> Z", "(s0),(s1),(s2),(s3)->(2*s0+1) where "
          "broadcast(s0, s1, s2, s3) == 2*s0+1", [T(s) for s in S], [Z]),
    _case("broadcast_to(3,2) X -> [a,2]", kt.broadcast_to.bind(shape=(3, 2)), [X], [T(a, 2)]),
    # dim expressions
    _case("concatenate [a//2],X -> [b]", kt.concatenate.bind(axis=0), [T(a // 2), X], [T(b)]),
    _case("concatenate [2a],X -> [a+1]", kt.concatenate.bind(axis=0), [T(2 * a), X],
          [T(a + 1)]),
    _case("reshape(-1) [a//2,2] -> Z", kt.reshape.bind(shape=(-1,)), [T(a // 2, 2)], [Z]),
    _case("reshape(-1,2) X -> [a+1,2]", kt.reshape.bind(shape=(-1, 2)), [X], [T(a + 1, 2)]),
    _case("diff X -> [a//2]", kt.diff, [X], [T(a // 2)], rank=1),
    _case("convolve valid [a],[b] -> Z", kt.convolve.bind(mode="valid"), [T(a), T(b)], [Z]),
    _case("tile(2) X -> [2a]", kt.tile.bind(reps=(2,)), [X], [T(2 * a)], rank=1),
    _case("pool X -> [1,1,a]", POOL, [X], [T(1, 1, a)], rank=3, sizes=(1, 2, 3, 4, 5)),
    _case("pool [1,1,2a] -> Z", POOL, [T(1, 1, 2 * a)], [Z]),
    _case("(n)->(n//2),(n//2) X -> [a],[a]", "(n)->(n//2),(n//2)", [X], [T(a), T(a)]),
    _case("(n),(n)->(2*n) X,Y -> [a+1]", "(n),(n)->(2*n)", [X, Y], [T(a + 1)], rank=1),
    _case("arange(a) -> Z", kt.arange.bind(start=a), [], [Z], names="a",
          forward=_ranged(start=a)),
    _case("arange(a, 2a) -> int64[b]", kt.arange.bind(start=a, stop=2 * a), [],
          [T(b, dtype="int64")], names="a", forward=_ranged(start=a, stop=2 * a)),
    _case("arange(0, a, 2) -> int64[b]", kt.arange.bind(start=0, stop=a, step=2), [],
          [T(b, dtype="int64")], names="a", forward=_ranged(start=0, stop=a, step=2)),
    # .k., ..., fixed sizes
    _case(".1. sum(axis=1) X -> int64[a//2]", kt.sum.bind(axis=1), [X],
          [T(a // 2, dtype="int64")]),
    _case(".1. sum(axis=-1) X -> int64[a+1]", kt.sum.bind(axis=-1), [X],
          [T(a + 1, dtype="int64")]),
    _case("... (n,...)->(...,n) X -> [a,2]", "(n,...)->(...,n)", [X], [T(a, 2)]),
    _case("fixed (n,3)->(n) [a,b] -> Z", "(n,3)->(n)", [T(a, b)], [Z]),
    _case("squeeze [a,b] -> Z", kt.squeeze, [T(a, b)], [Z]),
    # overloads whose alternatives overlap
    _case("first [a],[b] -> Z", FIRST, [T(a), T(b)], [Z], rank=1),
    _case("first [a],[b] -> [1]", FIRST, [T(a), T(b)], [T(1)], rank=1),
    _case("first X,Y -> [a]", FIRST, [X, Y], [T(a)], rank=1),
    _case("first [a],Y -> Z", FIRST, [T(a), Y], [Z], rank=1),
    # a product equal to an int bounds its factors (a*b == 1: a == b == 1, a + b == 2)
    _case("first [a*b],[a+b] -> [1]", FIRST, [T(a * b), T(a + b)], [T(1)]),
    _case("first [a*b],[a+b] -> Z", FIRST, [T(a * b), T(a + b)], [Z], rank=1),
    _case("halves [2a] -> [b]", HALVES, [T(2 * a)], [T(b)], rank=1),
    _case("halves X -> [a]", HALVES, [X], [T(a)], rank=1),
    _case("onto [a],[b] -> Z", ONTO, [T(a), T(b)], [Z], rank=1),
    _case("onto X,Y -> [a]", ONTO, [X, Y], [T(a)], rank=1),
    _case("onto [3],Y -> Z", ONTO, [T(3), Y], [Z], rank=1),
    _case("floats X -> Z", FLOATS, [X], [Z], rank=1),
    _case("above [a//2] -> Z", ABOVE, [T(a // 2)], [Z], rank=1),
    _case("above X -> [a+1]", ABOVE, [X], [T(a + 1)], rank=1),
    _case("Equal-19 [a],[b] -> Z", _equal19(), [T(a, dtype="string"), T(b, dtype="string")],
          [Z], rank=1),
    _case("Equal-19 [a],[b] -> [a+b+1]", _equal19(),
          [T(a, dtype="string"), T(b, dtype="string")], [T(a + b + 1, dtype="bool")]),
    _case("Equal-19 X,[b] -> [b+1]", _equal19(), [X, T(b, dtype="string")],
          [T(b + 1, dtype="bool")], rank=1, dtypes=("string", "int8")),
]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_query_answers_are_the_forward_points(case):
    FIGURES[case.label] = check_query(case)
    if not FIGURES[case.label]["answers"]:
        check_run(case)


FIGURES: dict[str, dict] = {}


def test_report_figures():
    """Runs last in this module: the points and answers compared (``-s`` prints them)."""
    print(f"\nbackward oracle: {len(FIGURES)} queries, "
          f"{sum(f['points'] for f in FIGURES.values())} forward points, "
          f"{sum(f['answers'] for f in FIGURES.values())} answers")

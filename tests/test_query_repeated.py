"""Queries whose logic variables repeat among a variadic Op's inputs
(``concatenate([Y, Y])``, ``stack([Y, Y, X])``), checked by brute force: on a finite
domain of types, every answer (its sizes instantiated) builds forwards to the target
(sound), and every domain choice of the variables that builds forwards to it is an
instance of an answer (complete). The same for an unknown output Z. Also the bound on
``max_rank``."""

from __future__ import annotations

import itertools
import re

import pytest
from unification import var

import kantensor as kt
from kantensor import cli
from kantensor.onnx.registry import lookup
from kantensor.types.symbols import free_symbols, substitute
from test_bruteforce import CASES, instances

DTYPES = ["bool", "int8", "float32"]
SIZES = (1, 2, 3)
MAX_RANK = 2
DOMAIN = [kt.TensorType(d, s) for d in DTYPES for r in range(MAX_RANK + 1)
          for s in itertools.product(SIZES, repeat=r)]


def _onnx(op_type, **params):
    op = lookup(op_type, "", 17, op_type).op
    return op.bind(**params) if params else op


OPS = {
    "concatenate axis=0": kt.concatenate.bind(axis=0),
    "concatenate axis=-1": kt.concatenate.bind(axis=-1),
    "stack axis=0": kt.stack.bind(axis=0),
    "stack axis=1": kt.stack.bind(axis=1),
    "vstack": kt.vstack,
    "hstack": kt.hstack,
    "einsum i,i->i": kt.einsum.bind(subscripts="i,i->i"),
    "einsum ij,j,j->i": kt.einsum.bind(subscripts="ij,j,j->i"),
    "ONNX Concat axis=0": _onnx("Concat", axis=0),
    "ONNX Sum": _onnx("Sum"),
    "ONNX Max": _onnx("Max"),
    "ONNX Mean": _onnx("Mean"),
}

#: The Ops that take their tensors as one list.
LISTS = (OPS["vstack"], OPS["hstack"])

#: Each pattern: the inputs as variable names (a name repeated is one variable).
PATTERNS = [("Y", "Y"), ("Y", "Y", "X"), ("Y", "X", "Y"), ("X", "Y", "Y")]


def matches(types, concrete, where) -> bool:
    """Whether the concrete types are an instance of an answer's types (its sizes given
    some values where its constraints hold): plain size names take the sizes they meet,
    any other name is tried from 0 to 9."""
    env: dict[str, int] = {}
    for t, c in zip(types, concrete, strict=True):
        if t.dtype != c.dtype or t.ndim != c.ndim:
            return False
        for d, size in zip(t.shape, c.shape, strict=True):
            if isinstance(d, kt.Dim) and d.name is not None:
                if env.setdefault(d.name, size) != size:
                    return False
            elif isinstance(d, int) and d != size:
                return False
    rest = sorted(({n for t in types for d in t.shape if isinstance(d, kt.Dim)
                    for n in free_symbols(d)}
                   | {n for c in where for n in free_symbols(c.left) | free_symbols(c.right)})
                  - set(env))
    for values in itertools.product(range(10), repeat=len(rest)):
        full = {**env, **dict(zip(rest, values, strict=True))}
        if all(c.holds(full) for c in where) and all(
                substitute(d, full) == size for t, c in zip(types, concrete, strict=True)
                for d, size in zip(t.shape, c.shape, strict=True)
                if isinstance(d, kt.Dim)):
            return True
    return False


def forward(op, types):
    """What make_node builds (None if it refuses); a list for Ops that take one."""
    args = [t() for t in types]
    try:
        return (op(args) if op in LISTS else op(*args)).type
    except (TypeError, ValueError):
        return None


def _built(op, pattern):
    """Per choice of the pattern's distinct variables, what make_node builds."""
    names = sorted(set(pattern))
    out = {}
    for combo in itertools.product(DOMAIN, repeat=len(names)):
        env = dict(zip(names, combo, strict=True))
        out[combo] = forward(op, [env[n] for n in pattern])
    return names, out


def _sound(op, pattern, names, answers, target) -> None:
    """Every instance of every answer builds forwards to the target (or to the answer's
    Z, instantiated with it)."""
    for answer in answers:
        types = [answer[n] for n in names] + ([answer["Z"]] if target is None else [])
        for combo in instances(*types, where=answer.where):
            env = dict(zip(names, combo, strict=False))
            want = combo[-1] if target is None else target
            assert forward(op, [env[n] for n in pattern]) == want, (pattern, combo, target)


def _complete(names, answers, built, target) -> int:
    """Every domain choice that builds to the target (or builds at all, with Z unknown)
    is an instance of an answer; the number of such choices."""
    by_shape: dict[tuple, list] = {}
    for answer in answers:
        types = [answer[n] for n in names] + ([answer["Z"]] if target is None else [])
        key = tuple((t.dtype, t.ndim) for t in types)
        by_shape.setdefault(key, []).append((types, answer.where))
    count = 0
    for combo, out in built.items():
        if out is None or target is not None and out != target:
            continue
        count += 1
        concrete = (*combo, out) if target is None else combo
        key = tuple((t.dtype, t.ndim) for t in concrete)
        assert any(matches(types, concrete, where) for types, where in by_shape.get(key, ())
                   ), (names, concrete, target)
    return count


def _check(name, pattern, targets):
    op = OPS[name]
    names, built = _built(op, pattern)
    cases = len(built)
    if _miscounted(op, pattern, built):
        CASES[f"repeated variables, {name} {''.join(pattern)}"] = cases
        return
    variables = {n: var(n) for n in names}
    for text in targets:  # a bare logic variable per name, repeated
        target = kt.TensorType.parse(text)
        answers = list(kt.query(op, [variables[n] for n in pattern], [target],
                                max_rank=MAX_RANK))
        _sound(op, pattern, names, answers, target)
        cases += _complete(names, answers, built, target)
    # Z unknown: each name a pattern of one dtype whose shape variable repeats with it
    for dtypes in itertools.product(DTYPES, repeat=len(names)):
        terms = {n: kt.pattern(d, var(f"shape_{n}")) for n, d in zip(names, dtypes,
                                                                            strict=True)}
        found = list(kt.query(op, [terms[n] for n in pattern], [var("Z")],
                              max_rank=MAX_RANK))
        answers = [_Named({n: kt.TensorType(d, a[f"shape_{n}"]) for n, d in
                           zip(names, dtypes, strict=True)} | {"Z": a["Z"]}, a.where)
                   for a in found]
        _sound(op, pattern, names, answers, None)
        picked = {c: t for c, t in built.items()
                  if tuple(x.dtype for x in c) == dtypes}
        cases += _complete(names, answers, picked, None)
    CASES[f"repeated variables, {name} {''.join(pattern)}"] = cases


def _miscounted(op, pattern, built) -> bool:
    """Whether the Op never takes as many inputs as ``pattern`` has (einsum{i,i->i} given
    three): then make_node refuses every choice with the arity error, and the query
    refuses the count with the same words (it answered 'no solutions')."""
    args = [DOMAIN[0]() for _ in pattern]
    try:
        op(args) if op in LISTS else op(*args)
    except (TypeError, ValueError) as exc:
        said = re.search(rf"takes \d+ inputs?, got {len(pattern)}", str(exc))
        if said is None or not isinstance(exc, kt.TypeInferenceError):
            return False
    else:
        return False
    assert all(out is None for out in built.values()), pattern
    with pytest.raises(kt.TypeInferenceError, match=said.group(0)):
        kt.query(op, [var(n) for n in pattern], [var("Z")])
    return True


class _Named(dict):
    """An answer rebuilt from patterns' parts: its types by name, and its ``where``."""

    def __init__(self, types, where):
        super().__init__(types)
        self.where = where


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: ",".join(p))
@pytest.mark.parametrize("name", list(OPS))
def test_repeated_variables_are_answered_exactly(name, pattern):
    targets = {1: ["float32[6]", "int8[2,3]", "bool[3,2]", "float32[4]"],
               2: ["float32[2,3]", "int8[3]", "bool[2,2]", "float32[2]", "int8[]"]}
    _check(name, pattern, targets[1] if len(pattern) == 2 else targets[2])


def test_the_reported_cases():
    """The issue's cases, with their answers spelled out."""
    Y, X, Z = var("Y"), var("X"), var("Z")
    cat = kt.concatenate.bind(axis=0)
    assert [a["Y"] for a in kt.query(cat, [Y, Y], ["float32[6]"])] == \
        [kt.TensorType("float32", (3,))]
    stack = kt.stack.bind(axis=0)
    assert [a["Y"] for a in kt.query(stack, [Y, Y], ["float32[2,3]"])] == \
        [kt.TensorType("float32", (3,))]
    answers = list(kt.query(stack, [Y, Y, X], [Z], max_rank=3))
    assert answers and all(a["Z"].shape[0] == 3 and a["Y"].shape == a["X"].shape
                           for a in answers)


@pytest.mark.parametrize("bad", [65, 10_000, -1, 2.0, True])
def test_max_rank_has_an_upper_bound(bad):
    with pytest.raises(ValueError, match="max_rank must be an int from 0 to 64"):
        kt.query(kt.take, [var("X"), var("I")], ["bool[2,3]"], max_rank=bad)


def test_the_command_refuses_a_rank_bound_past_it_at_once(capsys):
    assert cli.main(["query", "take", "--in", "X", "--out", "bool[?,k]",
                     "--max-rank", "10000"]) == 1
    err = capsys.readouterr().err
    assert err == "error: max_rank must be an int from 0 to 64 (NumPy's limit on axes), " \
        "got 10000\n"


@pytest.mark.parametrize(("op", "names"), [(kt.stack.bind(axis=0), "YYX"),
                                           (kt.sum, "X"), (kt.concatenate.bind(axis=0), "YY")])
def test_an_all_unknown_query_of_an_op_with_parameters_says_the_bound_cut(op, names):
    """Every type unknown: no input gives a shape, and telling whether the rank bound cut
    answers raised a TypeError (max() of one int)."""
    terms = {n: var(n) for n in names}
    sols = kt.query(op, [terms[n] for n in names], [var("Z")], max_rank=1)
    assert sols.truncated_by_rank is True
    assert "the rank bound cut answers" in repr(sols)


def test_the_command_reads_a_name_repeated_as_one_unknown(capsys):
    assert cli.main(["query", "concatenate", "--in", "Y", "Y", "axis=0", "--out",
                     "float32[6]"]) == 0
    assert capsys.readouterr().out == "Y = float32[3]\n1 solution\n"
    assert cli.main(["query", "stack", "--in", "Y", "Y", "X", "axis=0", "--out", "Z",
                     "--max-rank", "1", "--limit", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Y = bool[], X = bool[], Z = bool[3]\n"
                           "Y = bool[n], X = bool[n], Z = bool[3,n]\n")
    assert "the rank bound cut answers" in text

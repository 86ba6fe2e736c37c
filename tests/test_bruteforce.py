"""One relation, checked by brute force: on a finite domain of types, every query answer
(its unknown sizes instantiated) builds forwards to the target (sound), every domain type
that builds forwards to the target is covered by an answer (complete), and with every
input known the only answer is make_node's."""

import itertools

import pytest
from unification import var

import kantensor as kt
from kantensor.types.symbols import free_symbols, substitute

DTYPES = ["bool", "int8", "uint8", "int64", "float16", "float32", "complex64"]
SIZES = (1, 2, 3)
#: Python numbers standing for each dtype a wrapped operand can have.
PYTHON = {"bool": True, "int64": 1, "float32": 1.0, "complex64": 1j}


def shapes(max_rank: int) -> list[tuple[int, ...]]:
    return [s for r in range(max_rank + 1) for s in itertools.product(SIZES, repeat=r)]


def domain(max_rank: int) -> list[kt.TensorType]:
    return [kt.TensorType(d, s) for d in DTYPES for s in shapes(max_rank)]


def forward(op, types) -> kt.TensorType | None:
    """What make_node builds (None if it refuses)."""
    try:
        return op(*[t if not isinstance(t, kt.TensorType) else t() for t in types]).type
    except (TypeError, ValueError):
        return None


def instances(*types: kt.TensorType, where: tuple = ()) -> list[tuple[kt.TensorType, ...]]:
    """An answer's types with its symbolic sizes (shared by all of them) given every value
    in SIZES, where the answer's constraints ``where`` hold."""
    names = sorted({n for t in types for d in t.shape if isinstance(d, kt.Dim)
                    for n in free_symbols(d)}
                   | {n for c in where for n in free_symbols(c.left) | free_symbols(c.right)})
    out = []
    for values in itertools.product(SIZES, repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        if not all(c.holds(env) for c in where):
            continue
        shapes = [tuple(substitute(d, env) if isinstance(d, kt.Dim) else d for d in t.shape)
                  for t in types]
        if all(isinstance(d, int) and d >= 0 for shape in shapes for d in shape):
            out.append(tuple(kt.TensorType(t.dtype, sh) for t, sh in zip(types, shapes,
                                                                            strict=True)))
    return out


def check_backwards(op, arity: int, max_rank: int, targets: list[str]) -> int:
    """Soundness and completeness of ``query(op, [X...], [target])``; returns the number of
    (input types, target) cases compared."""
    types = domain(max_rank)
    built = {combo: forward(op, combo) for combo in itertools.product(types, repeat=arity)}
    cases = len(built)
    for text in targets:
        target = kt.TensorType.parse(text)
        xs = [var(f"X{i}") for i in range(arity)]
        covered = set()
        for answer in kt.query(op, xs, [target], max_rank=max_rank):
            for combo in instances(*(answer[f"X{i}"] for i in range(arity)),
                                   where=answer.where):
                assert forward(op, combo) == target, (combo, target)  # sound
                covered.add(combo)
        want = {c for c, out in built.items() if out == target}
        assert want <= covered, sorted(map(str, want - covered))[:5]  # complete
        cases += len(want)
    return cases


def check_forwards(op, arity: int, max_rank: int, limit: int = 400) -> int:
    """With every input known, the one answer is make_node's (or none when it refuses)."""
    combos = list(itertools.product(domain(max_rank), repeat=arity))[::7][:limit]
    for combo in combos:
        want = forward(op, combo)
        got = [s["Z"] for s in kt.query(op, list(combo), [var("Z")])]
        assert got == ([] if want is None else [want]), combo
    return len(combos)


CASES = {}


@pytest.mark.parametrize(("name", "op", "arity", "max_rank", "targets"), [
    ("add", kt.add, 2, 2, ["float32[2,3]", "int8[3]", "bool[]", "complex64[1,2]"]),
    ("matmul", kt.matmul, 2, 2, ["float32[2,3]", "int64[3]", "uint8[]"]),
    ("plain (m,n),(n,p)->(m,p)", kt.Signature.parse("(m,n),(n,p)->(m,p)"), 2, 2,
     ["float32[2,3]", "int8[1,1]"]),
    ("sum axis=1", kt.sum.bind(axis=1), 1, 3, ["int64[2,3]", "float32[3]", "complex64[1]"]),
    ("concatenate axis=0", kt.concatenate.bind(axis=0), 2, 2,
     ["int8[3]", "float32[4,2]", "uint8[2,1]"]),
    # overloads: an answer of a later alternative holds where the earlier ones refuse
    ("first match (n),(n)->(n) | (a),(b)->(1)",
     kt.Signature.parse("(n),(n)->(n) | (a),(b)->(1)"), 2, 1, ["float32[1]", "int8[2]"]),
    ("first match broadcast(a, b) == c | (a),(b)->(1)",
     kt.Signature.parse("(a),(b)->(c) where broadcast(a, b) == c | (a),(b)->(1)"), 2, 1,
     ["float32[1]", "int8[3]"]),
])
def test_query_is_sound_and_complete(name, op, arity, max_rank, targets):
    if isinstance(op, kt.Signature):
        op = kt.SignatureOp("plain", op, lambda a, b: a @ b)
    CASES[name] = check_backwards(op, arity, max_rank, targets) + \
        check_forwards(op, arity, max_rank)


def test_wrapped_operands_of_add_are_sound_and_complete():
    """A Python number as the second operand: its priority comes from its term."""
    cases = 0
    for text in ["int8[3]", "float32[2]", "uint8[]", "complex64[2]"]:
        target = kt.TensorType.parse(text)
        X, D = var("X"), var("D")
        covered = set()
        answers = kt.query(kt.add, [X, kt.pattern(D, (), wrapped=True)], [target], max_rank=2)
        for answer in answers:
            for (t,) in instances(answer["X"], where=answer.where):
                built = forward(kt.add, [t, kt.constant(PYTHON[answer["D"]])])
                assert built == target, (t, answer["D"])
                covered.add((t, answer["D"]))
        for t in domain(2):
            for d, value in PYTHON.items():
                cases += 1
                if forward(kt.add, [t, kt.constant(value)]) == target:
                    assert (t, d) in covered, (t, d)
    CASES["add, wrapped"] = cases


def test_report_case_counts():
    """Runs last in this module: the numbers of cases compared (also in the summary)."""
    assert sum(CASES.values()) > 10_000, CASES


# --------------------------------------------------------------- answers with constraints

#: Sizes tried for the input and for the target's symbolic size m.
RANGE = range(13)


def _ops_with_constraints() -> list:
    def identity(x):
        return x

    def halve(x):
        return x[: len(x) // 2]

    return [
        ("where n > 2", kt.op("(n)->(n) where n > 2")(identity), ["float32[m]"]),
        ("where n > 2 | (n)->(1), to [m]", kt.op("(n)->(n) where n > 2 | (n)->(1)")(identity),
         ["float32[m]"]),
        ("where n > 2 | (n)->(1), to [1]", kt.op("(n)->(n) where n > 2 | (n)->(1)")(identity),
         ["float32[1]"]),
        ("where n < 9 | (n)->(n//2)", kt.op("(n)->(n) where n < 9 | (n)->(n//2)")(identity),
         ["float32[m]"]),
        ("(n)->(n//2)", kt.op("(n)->(n//2)")(halve), ["float32[m]"]),
        ("split at [1, 3]", kt.split.bind(indices_or_sections=[1, 3]),
         ["float32[1]", "float32[2]", "float32[m]"]),
        ("split at [1, 3], two unknown", kt.split.bind(indices_or_sections=[1, 3]),
         ["float32[1]", "float32[m]", "float32[0]"]),
    ]


@pytest.mark.parametrize(("name", "op", "targets"), _ops_with_constraints(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_answers_with_constraints_are_sound_and_complete(name, op, targets):
    """Outputs with a symbolic size m: each answer's input, its sizes given every value
    and kept where its ``where`` constraints hold, builds forwards to the targets with
    that m (sound), and every input that builds to them for some m is such an instance
    (complete). An answer that dropped a constraint (``X = float32[m]`` without ``m >
    2``) fails soundness."""
    X = var("X")
    answers = list(kt.query(op, [X], targets, max_rank=1))
    got = set()
    for answer in answers:
        (size,) = answer["X"].shape
        names = sorted(free_symbols(size) | {n for c in answer.where
                                             for n in free_symbols(c.left) | free_symbols(c.right)}
                       | {"m"})
        for values in itertools.product(RANGE, repeat=len(names)):
            env = dict(zip(names, values, strict=True))
            if all(c.holds(env) for c in answer.where):
                a = substitute(size, env)
                if a in RANGE:
                    got.add((env["m"], a))
    want = set()
    for a in RANGE:
        outs = forward_all(op, kt.TensorType("float32", (a,)))
        for m in RANGE:
            wanted = [kt.TensorType.parse(t.replace("m", str(m))) for t in targets]
            if outs == wanted:
                want.add((m, a))
    assert got == want, (sorted(got - want)[:5], sorted(want - got)[:5])
    CASES[f"constraints, {name}"] = len(RANGE) ** 2


def forward_all(op, t: kt.TensorType) -> list | None:
    """Every output type make_node builds (None if it refuses)."""
    try:
        out = op(t())
    except (TypeError, ValueError):
        return None
    return [v.type for v in (out if isinstance(out, list | tuple) else [out])]

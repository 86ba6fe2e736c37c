"""Large queries: the rank bound says when it cuts answers (checked against make_node on
every small type), and ``len`` counts exactly what iteration gives, once."""

import itertools

import pytest
from unification import var

import kantensor as kt
from test_bruteforce import forward, instances

DTYPES = ["bool", "int8", "float32"]
SIZES = (1, 2)


def domain(max_rank: int) -> list[kt.TensorType]:
    return [kt.TensorType(d, s) for d in DTYPES for r in range(max_rank + 1)
            for s in itertools.product(SIZES, repeat=r)]


def hidden_by_bound(op, arity: int, target: kt.TensorType | None, max_rank: int,
                    domain_rank: int) -> list:
    """Input types (ranks up to ``domain_rank``) that make_node builds (to ``target``,
    if given) but no answer of the query with ``max_rank`` covers."""
    xs = [var(f"X{i}") for i in range(arity)]
    out = target if target is not None else var("Z")
    covered = set()
    for answer in kt.query(op, xs, [out], max_rank=max_rank):
        covered.update(instances(*(answer[f"X{i}"] for i in range(arity)),
                                 where=answer.where))
    return [combo for combo in itertools.product(domain(domain_rank), repeat=arity)
            if (built := forward(op, combo)) is not None
            and (target is None or built == target) and combo not in covered]


CASES = [  # (name, op, arity, target, max_rank); types tried have up to max_rank + 2 axes
    ("add to a known output", kt.add, 2, "float32[2]", 1),
    ("add to a known output, bound 0", kt.add, 2, "float32[2]", 0),
    ("add to a known matrix, bound 1", kt.add, 2, "float32[2,1]", 1),
    ("add, all unknown", kt.add, 2, None, 1),
    ("sum of every axis", kt.sum, 1, "float32[]", 1),
    ("sum(axis=-1), bound below the input's rank", kt.sum.bind(axis=-1), 1, "int64[2]", 1),
    ("sum(axis=-1), bound at the input's rank", kt.sum.bind(axis=-1), 1, "int64[2]", 2),
    ("concatenate to a vector, bound 0", kt.concatenate.bind(axis=0), 2, "int8[2]", 0),
    ("concatenate to a vector, bound 1", kt.concatenate.bind(axis=0), 2, "int8[2]", 1),
    ("matmul to a matrix, bound 0", kt.matmul, 2, "float32[1,2]", 0),
    ("matmul to a matrix, bound 1", kt.matmul, 2, "float32[1,2]", 1),
]


@pytest.mark.parametrize(("name", "op", "arity", "target", "max_rank"), CASES,
                         ids=[c[0] for c in CASES])
def test_truncated_by_rank_says_exactly_when_types_are_left_out(name, op, arity, target,
                                                                max_rank):
    target = None if target is None else kt.TensorType.parse(target)
    xs = [var(f"X{i}") for i in range(arity)]
    sols = kt.query(op, xs, [target if target is not None else var("Z")], max_rank=max_rank)
    ranks = max(max_rank + 2, 3)  # of the types tried
    left_out = hidden_by_bound(op, arity, target, max_rank, ranks)
    assert sols.truncated_by_rank is bool(left_out), left_out[:3]
    note = f"max_rank={max_rank} axes; max_rank={max_rank + 1} or more lists them"
    assert (note in repr(sols)) is bool(left_out)
    assert (note in sols._repr_html_()) is bool(left_out)
    if left_out and target is not None:  # a larger bound lists them
        bigger = max(len(t.shape) for combo in left_out for t in combo)
        assert not hidden_by_bound(op, arity, target, bigger, ranks)


def test_known_ranks_are_never_said_to_be_cut():
    sols = kt.query(kt.matmul, ["float32[2,3]", "float32[3,4]"], [var("Z")], max_rank=0)
    assert [str(s["Z"]) for s in sols] == ["float32[2,4]"]
    assert sols.truncated_by_rank is False and "max_rank" not in repr(sols)
    none = kt.query(kt.add, ["float32[2]", "float32[3]"], [var("Z")], max_rank=0)
    assert not none and not none.truncated_by_rank and repr(none) == "no solutions"


def test_a_cut_with_no_answer_at_all_is_named():
    # sum over the last axis to a matrix needs 3 axes; the bound stops at 2
    op = kt.sum.bind(axis=-1)
    sols = kt.query(op, [var("X")], ["int64[2,2]"], max_rank=2)
    assert not sols and sols.truncated_by_rank
    assert repr(sols).startswith("no solutions\n(the rank bound cut answers")
    assert "the rank bound cut answers" in sols._repr_html_()
    wider = kt.query(op, [var("X")], ["int64[2,2]"], max_rank=3)
    assert [str(s["X"]) for s in wider if s["X"].dtype == "int64"] == ["int64[2,2,n]"]
    # given ranks decide a signature's groups: nothing to cut
    sols = kt.query("(*a)->(*a,1)", [var("X")], ["float32[2,2,2,1]"], max_rank=2)
    assert [str(s["X"]) for s in sols] == ["float32[2,2,2]"] and not sols.truncated_by_rank


def test_the_default_bound_is_ten_and_shows_in_the_answer():
    assert kt.query(kt.add, [var("X"), var("Y")], [var("Z")]).max_rank == 10
    sols = kt.query("(*a)->()", [var("X")], ["float32[]"])
    assert sols.truncated_by_rank and sorted(len(s["X"].shape) for s in sols) == \
        list(range(11))
    assert "max_rank=10 axes; max_rank=11 or more lists them" in repr(sols)
    # the all-unknown add is cut at once, without reading its answers
    big = kt.query(kt.add, [var("X"), var("Y")], [var("Z")])
    assert big.truncated_by_rank and big._count < 50


def test_variables_that_show_no_shape_are_cut_only_by_new_answers():
    D, E = var("D"), var("E")
    # no rank-0 input adds to a vector: every answer needs an axis, past max_rank=0
    sols = kt.query(kt.add, [kt.pattern(D), kt.pattern(E)], ["float32[2]"], max_rank=0)
    assert not sols and sols.truncated_by_rank
    # with one axis allowed every dtype pair is found; more axes add none
    one = kt.query(kt.add, [kt.pattern(D), kt.pattern(E)], ["float32[2]"], max_rank=1)
    wider = kt.query(kt.add, [kt.pattern(D), kt.pattern(E)], ["float32[2]"], max_rank=2)
    assert sorted(map(repr, one)) == sorted(map(repr, wider))
    assert not one.truncated_by_rank and "max_rank" not in repr(one)
    assert ("float32", "float32") in {(s["D"], s["E"]) for s in one}


# -- len ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("op", "ins", "outs", "max_rank"), [
    (kt.add, [var("X"), var("Y")], [var("Z")], 1),
    (kt.add, [var("X"), "int8[2]"], ["int16[2,2]"], 2),
    (kt.sum, [var("X")], ["float32[]"], 2),
    (kt.concatenate.bind(axis=0), [var("X"), var("Y")], ["int8[2]"], 1),
])
def test_len_counts_the_distinct_answers_iteration_gives(op, ins, outs, max_rank):
    sols = kt.query(op, ins, outs, max_rank=max_rank)
    n = len(sols)
    fresh = list(kt.query(op, ins, outs, max_rank=max_rank))
    assert n == len(fresh) == len({repr(sorted(a.items())) for a in fresh}) > 0
    assert list(sols) == fresh and len(sols) == n  # read once, kept


def test_len_against_brute_force():
    # every input type that builds float32[2] from bool[] by add, counted by make_node
    X = var("X")
    sols = kt.query(kt.add, [X, "bool[]"], ["float32[2]"], max_rank=1)
    want = [t for t in domain(1) + [kt.TensorType(d, (2,)) for d in kt.DTYPES]
            if forward(kt.add, (t, kt.TensorType("bool", ()))) == kt.TensorType("float32",
                                                                                  (2,))]
    assert len(sols) == len({str(t) for t in want}) == 1
    assert str(sols[0]["X"]) == "float32[2]"


def test_len_is_known_without_enumerating():
    calls = []

    def counted(sols):
        stream = sols._stream

        def spy():
            for answer in stream:
                calls.append(answer)
                yield answer
        sols._stream = spy()
        return sols

    # a limit reached: no more reading
    sols = counted(kt.query(kt.add, [var("X"), var("Y")], [var("Z")], limit=5))
    assert sols[4] and len(calls) == 5 and len(sols) == 5 and len(calls) == 5
    # no logic variable: at most one answer, {}, found by reading one
    calls.clear()
    sols = counted(kt.query(kt.add, [kt.pattern("float32"), kt.pattern("float32")],
                            ["float32[2,2]"]))
    assert len(sols) == 1 and list(sols) == [{}] and len(calls) == 1
    calls.clear()
    sols = counted(kt.query(kt.add, ["float32[2]", "float32[2]"], ["float32[2]"]))
    assert len(sols) == len(sols) == 1 and len(calls) == 1
    assert len(kt.query(kt.add, ["float32[2]", "float32[3]"], ["float32[2]"])) == 0
    # limit 0
    assert len(kt.query(kt.add, [var("X"), var("Y")], [var("Z")], limit=0)) == 0


def test_truncated_by_rank_reads_past_the_limit_but_keeps_the_limit():
    sols = kt.query(kt.add, [var("X"), "float32[2]"], ["float32[2,2]"], limit=1)
    assert sols.truncated_by_rank is False  # every answer read to know
    assert len(sols) == 1 and len(list(sols)) == 1
    assert sols.truncated_by_rank is False

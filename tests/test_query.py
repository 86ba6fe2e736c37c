"""Relational use of signatures: the same relation run backwards and both ways."""

import itertools

import numpy as np
import pytest

import kantensor as kt
from kantensor.commands import COMMANDS
from kantensor.ops.catalogue import catalogue_files, load_file
from kantensor.query import Solutions, pattern, query, var
from kantensor.types.dtypes import (
    CATEGORIES,
    DEFAULT_RANGE,
    DTYPES,
    PromotionError,
    promote_types,
)


def promoted(a: str, b: str) -> str | None:
    """promote_types, or None for a pair it refuses (a low-precision dtype's)."""
    try:
        return promote_types(a, b)
    except PromotionError:
        return None


def test_backward_dtype_of_add_against_promotion_table():
    d = var("d")
    sols = query(kt.add, [pattern(d, (3,)), "float32[3]"], ["float64[3]"])
    expected = sorted(x for x in DTYPES if promoted(x, "float32") == "float64")
    assert sorted(s["d"] for s in sols) == expected == ["float64"]
    # every dtype whose promotion with int8 is int16
    sols = query(kt.add, [pattern(d, (2,)), "int8[2]"], ["int16[2]"])
    assert sorted(s["d"] for s in sols) == sorted(
        x for x in DTYPES if promoted(x, "int8") == "int16")


def test_backward_shape_of_matmul_input():
    s0 = var("s0")
    sols = list(query("+(m,n),(n,p)->(m,p)", [pattern("float64", s0), "float64[4,2]"],
                      ["float64[5,3,2]"], limit=10))
    assert sols == [{"s0": (5, 3, 4)}]


def test_backward_arithmetic_and_promotion_together():
    a, y = var("a"), var("y")
    sols = query("(a):x,(b):y->(a+b):promote(x,y)",
                 [pattern("int32", (a,)), pattern(y, (3,))], ["float64[10]"])
    answers = {(s["a"], s["y"]) for s in sols}
    assert answers == {(7, d) for d in DTYPES if promoted("int32", d) == "float64"}
    assert len(query("(n+1)->(n)", [pattern("float32", (var("k"),))], ["float32[4]"])) == 1
    assert query("(n+1)->(n)", [pattern("float32", (var("k"),))],
                 ["float32[4]"])[0] == {"k": 5}


def test_backward_broadcasting_enumerates_every_input_shape():
    s = var("s")
    sols = query(kt.add, [pattern("float32", s), "float32[3]"], [pattern("float32", (2, 3))])
    got = sorted(x["s"] for x in sols)
    assert got == [(2, 1), (2, 3)]
    # oracle: each answer broadcasts with (3,) to exactly (2, 3) in NumPy
    for shape in got:
        assert np.broadcast_shapes(shape, (3,)) == (2, 3)


def test_forward_query_equals_infer():
    out = var("out")
    sols = query("+(m,n),(n,p)->(m,p)", ["float32[2,3]", "float32[3,4]"], [out])
    assert list(sols) == [{"out": kt.TensorType("float32", (2, 4))}]


def test_both_directions_with_dims_unknown():
    n, m = var("n"), var("m")
    sols = query("(n),(n)->()", [pattern("float32", (n,)), pattern("float32", (m,))],
                 [pattern("float32", ())])
    (answer,) = list(sols)
    assert answer == {"n": kt.Dim("n"), "m": kt.Dim("n")}  # unknown, but n == m


def test_no_solution_and_solutions_object():
    sols = query(kt.add, ["float32[3]", "float32[4]"], [var("o")])
    assert not sols and len(sols) == 0
    assert repr(sols) == "no solutions"
    d = var("d")
    sols = query(kt.add, [pattern(d, ()), "int8[]"], ["int16[]"], limit=2)
    assert isinstance(sols, Solutions) and len(sols) == 2
    html = sols._repr_html_()
    assert "<table" in html and ">d</th>" in html  # tests/test_display.py parses it
    with pytest.raises(TypeError, match="expected an Op"):
        query(3, [], [])


def test_where_clause_labeling():
    t = var("t")
    sols = query("():T->():T where T in floating", [pattern(t, ())], [var("o")])
    assert sorted(s["t"] for s in sols) == sorted(CATEGORIES["floating"])
    assert {"float16", "float32", "float64", "bfloat16"} <= CATEGORIES["floating"]


@pytest.mark.parametrize("shape", [(1,), (3,), (2, 3), (2, 1), (1, 3)])
def test_query_answers_run_in_numpy(shape):
    """Every input shape a query proposes is accepted by NumPy with the same output."""
    s = var("s")
    target = np.broadcast_shapes(shape, (3,))
    for answer in itertools.islice(query(kt.add, [pattern("float64", s), "float64[3]"],
                                         [pattern("float64", target)]), 20):
        got = np.add(np.zeros(answer["s"]), np.zeros(3)).shape
        assert got == target


def test_a_whole_input_type_can_be_unknown():
    """Regression: an input given as one logic variable gave no solutions."""
    sols = query("(n)->()", [var("X")], ["float32[]"])
    assert [str(s["X"]) for s in sols] == ["float32[n]"]  # n: the signature's unknown
    sols = query("(m,n),(n,p)->(m,p)", [pattern("float32", (var("m"), 4)), var("B")],
                 ["float32[2,5]"])
    assert {str(s["B"]) for s in sols} == {f"{d}[4,5]" for d in DEFAULT_RANGE
                                           if kt.promote_types("float32", d) == "float32"}
    assert {s["m"] for s in sols} == {2}


@pytest.mark.parametrize("sig, out, sizes", [
    ("(n)->(max(n-1,0))", "float32[4]", [5]),   # a slice x[1:]
    ("(n)->(max(n-1,0))", "float32[0]", [0, 1]),
    ("(n)->(n//2) where n%2 == 0", "float32[3]", [6]),  # split in two
    ("(n)->(n//2)", "float32[3]", [6, 7]),
    ("(n)->((n+1)//2)", "float32[4]", [7, 8]),  # x[::2]
    ("(n)->(min(n,3))", "float32[5]", []),
    ("(n)->(max(n-min(3,n),0))", "float32[4]", [7]),  # the last part of a split at 3
    ("(n)->(min(n,3)+n)", "float32[8]", [5]),  # min is 3 (n = 5) or n (n = 4, but 4 > 3)
])
def test_sizes_inside_max_and_floor_division_are_solved(sig, out, sizes):
    """Answers are exactly the sizes NumPy's rules (the signature forwards) allow."""
    s = kt.Signature.parse(sig)
    got = [a["n"] for a in kt.query(s, [pattern("float32", (var("n"),))], [out])]
    assert got == sizes
    forwards = [n for n in range(12) if _builds_to(s, n, out)]
    assert forwards == sizes


def _builds_to(sig, n, out):
    try:
        return sig.infer([kt.TensorType("float32", (n,))]) == (kt.TensorType.parse(out),)
    except kt.TypeInferenceError:
        return False


def test_an_op_whose_outputs_come_from_its_parameters_runs_backwards():
    """split's outputs are one placeholder of its template: their number comes from a
    rendered signature (2 sections, 2 outputs), so the query takes 2 output terms."""
    halves = kt.split.bind(indices_or_sections=2)
    assert halves.n_outputs == 2 and kt.split.bind(indices_or_sections=3).n_outputs == 3
    assert kt.sum.n_outputs == 1
    (answer,) = kt.query(halves, [var("X")], ["int8[3]", "int8[3]"])
    assert answer["X"] == kt.TensorType.parse("int8[6]")
    with pytest.raises(TypeError, match="gives 2 outputs for 1 input, got 1"):
        kt.query(halves, [var("X")], ["int8[3]"])


def test_every_op_with_parameters_counts_the_outputs_its_examples_build():
    """n_outputs (what relations and queries split their terms by) against the number
    of outputs each catalogue example builds forwards."""
    checked = 0
    for name, text in catalogue_files():
        for entry in load_file(name, text):
            if not entry.is_template:
                continue
            family = kt.CATALOGUE[entry.name]
            for example in entry.examples:
                if "out" not in example:
                    continue
                params = {k: v for k, v in example.items() if k not in ("in", "out")}
                try:
                    op = family.bind(**params)
                except (TypeError, ValueError):
                    continue  # a parameter the example spells as the call does
                out = example["out"]
                assert op.n_outputs == (len(out) if isinstance(out, list) else 1), \
                    (entry.name, params)
                checked += 1
    assert checked > 50


def test_an_answer_says_what_its_symbolic_sizes_must_still_meet():
    """A where-clause on a size the answer leaves symbolic, or an equation the solver
    cannot solve, is part of the answer: X = float32[m] alone would claim every m."""
    sols = kt.query("(n)->(n) where n > 2", [var("X")], ["float32[m]"])
    (answer,) = sols
    assert answer == {"X": kt.TensorType.parse("float32[m]")}
    assert [str(c) for c in answer.where] == ["m > 2"]
    assert [answer.where[0].holds({"m": m}) for m in (2, 3)] == [False, True]
    assert repr(sols) == "X = float32[m], where m > 2\n1 solution"
    text = str(COMMANDS["query"]("'(n)->(n//2) where n > 2' X -> float32[m]"))
    assert text == "X = float32[n], where m == n//2 and n > 2\n1 solution"  # not "m = m"
    assert repr(kt.query("(n)->(n)", [var("X")], ["float32[5]"])) == "X = float32[5]\n1 solution"
    with pytest.raises(ValueError, match="m > 2 needs a value for m"):
        answer.where[0].holds({})


def test_dtype_answers_come_in_the_tables_order_not_alphabetical():
    """A category's dtypes are tried (so listed) as the dtype table orders them: the
    unsigned sums of ``sum D[2,3] axis=1 -> uint64[2]`` read uint16, uint2, uint32, uint4,
    uint64, uint8 (sorted as text). Oracle: NumPy's item sizes of the standard dtypes
    answered never decrease, and every dtype NumPy sums to uint64 is an answer."""
    answers = [a["D"] for a in query(kt.sum.bind(axis=1), [pattern(var("D"), (2, 3))],
                                     ["uint64[2]"])]
    standard = [d for d in answers if d in np.sctypeDict and np.dtype(d).kind in "biufc"]
    sizes = [np.dtype(d).itemsize for d in standard]
    assert sizes == sorted(sizes) and len(standard) == 4, answers
    assert set(standard) == {d for d in ("uint8", "uint16", "uint32", "uint64")
                             if np.sum(np.ones((2, 3), d), axis=1).dtype == np.uint64}


def test_an_op_holding_symbolic_sizes_counts_the_inputs_that_carry_them():
    """``zeros{shape=(n, 3)}``'s node takes the input that carries n (a ``bool[n]``),
    which the call ``kt.zeros((n, 3))`` adds: a query given the inputs the call names
    (none) answers the call's type (it answered 'no solutions', a false claim: such a
    zeros exists), one given the node's inputs answers as NumPy makes the array, and a
    count that is neither raises make_node's arity error. Oracle: np.zeros((5, 3)) and
    the node the call builds (tests/test_query_sizes.py checks every such Op by brute
    force)."""
    n = kt.Dim("n")
    op = kt.zeros.bind(shape=(n, 3))
    assert list(query(op, [], [var("X")])) == [{"X": kt.zeros((n, 3)).type}]
    with pytest.raises(kt.TypeInferenceError, match="takes 1 input, got 2") as made:
        op(kt.tensor("s", "bool", (n,)), kt.tensor("t", "bool", (n,)))
    with pytest.raises(kt.TypeInferenceError, match="takes 1 input, got 2") as asked:
        query(op, ["bool[n]", "bool[n]"], [var("X")])
    assert str(asked.value).splitlines()[0].endswith(str(made.value).split(": ")[-1])
    (answer,) = query(op, ["bool[5]"], [var("X")])
    assert kt.TensorType.parse(str(answer["X"])).shape == np.zeros((5, 3)).shape
    assert str(query(op, [pattern("bool", (var("s"),))], [var("X")])[0]["X"]) == \
        "float64[s,3]"
    assert kt.zeros((n, 3)).type == kt.TensorType.parse("float64[n,3]")

"""Contracts of graphs (issue 33): ``kt.contract``, ``eval_shape(...).contract`` and
``refine`` under the contract, judged by brute force: at every point of a box of small
sizes (0 and 1 included) the contract says "valid" exactly where building the same graph
forwards at those sizes (ints in the input types) succeeds.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
from differential import count

# -- graphs, each built at any sizes: Dims (for the contract) or ints (forwards) ---------


def matmul(N, D, K):
    x, w = kt.tensor("x", "float32", (N, D)), kt.tensor("w", "float32", (K, 3))
    return x @ w


def broadcast(N, K, M):
    a, b = kt.tensor("a", "float32", (N,)), kt.tensor("b", "float32", (K, 1))
    c = kt.tensor("c", "float32", (M, 1, 1))
    return a + b + c


def table(S, T):
    t = kt.tensor("t", "float32", (S,))
    u = kt.tensor("u", "float32", (T,))
    buf = kt.tensor("table", "float32", (4,))
    return t + buf[:S] + u[:3]


def reshape(N, D):
    return kt.tensor("x", "float32", (N, D)).reshape((2, -1))


def reshape3(N, D, K):
    x = kt.tensor("x", "float32", (N, D))
    y = kt.tensor("y", "float32", (K,))
    return x.reshape((-1, 3)) @ kt.tensor("w", "float32", (3, 2)) + y[:, None]


WINDOW = kt.op("(n),(k)->((n - k)//2 + 1) where n >= k", name="window")(lambda x, w: x)
EVEN = kt.op("(n)->(n//2) where n % 2 == 0", name="halve")(lambda x: x)


def windows(H, K):
    x = kt.tensor("x", "float32", (H,))
    w = kt.tensor("w", "float32", (K,))
    return EVEN(WINDOW(WINDOW(x, w), w)) + kt.tensor("b", "float32", (2,))


GRAPHS = {"matmul": (matmul, "N D K", 5), "broadcast": (broadcast, "N K M", 4),
          "table": (table, "S T", 7), "reshape": (reshape, "N D", 7),
          "reshape3": (reshape3, "N D K", 5), "windows": (windows, "H K", 14)}


def _forward(build, point) -> bool:
    try:
        build(*point)
    except (TypeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_the_contract_is_what_forward_typing_accepts(name):
    build, names, top = GRAPHS[name]
    names = names.split()
    out = build(*kt.dims(" ".join(names)))
    contract = kt.contract(out)
    inner, outer = contract.inner, contract.outer
    assert (inner.label, outer.label) == (("exact", "exact") if contract.exact else
                                          ("sufficient", "necessary"))
    valid = 0
    for point in itertools.product(range(top), repeat=len(names)):
        sizes = dict(zip(names, point, strict=True))
        claim = contract.holds(sizes).value
        assert claim == _forward(build, point), (sizes, contract.holds(sizes))
        assert not inner.holds(sizes).value or claim, sizes
        assert outer.holds(sizes).value or not claim, sizes
        valid += claim
        count("contracts by brute force: points")
    count("contracts by brute force: exact contracts", int(contract.exact))
    box = {n: range(top) for n in names}
    assert len(contract.solutions(box)) == valid  # the cells, checked by the atoms
    sample = contract.sample(seed=1)
    assert sample is not None and _forward(build, [sample[n] for n in names])


def test_holds_names_the_violated_atom_and_its_op():
    N, D, K = kt.dims("N D K")
    contract = kt.contract(matmul(N, D, K))
    assert str(contract.dsl()) == "where D == K"
    verdict = contract.holds(N=2, D=3, K=4)
    assert verdict.value is False and not verdict
    assert verdict.atom.nodes == ("matmul",)
    assert str(verdict) == "False: D == K fails at N=2, D=3, K=4 (matmul)"
    assert contract.holds(N=2, D=3, K=3)
    with pytest.raises(ValueError, match="not a size of the contract"):
        contract.holds(N=1, D=1, K=1, Q=2)
    with pytest.raises(ValueError, match="int >= 0"):
        contract.holds(N=-1, D=1, K=1)


def test_sets_fix_and_what_empties_a_contract():
    S, T = kt.dims("S T")
    contract = kt.contract(table(S, T))
    sets = contract.sets()
    assert sets["S"].text("S") == "S in [0, 4]"
    assert sets["T"].text("T") == "T >= 0"
    assert contract.fix(S=2).sets()["T"].text("T") == "T in [1, 2]"
    assert contract.fix(S=3).sets()["T"].text("T") == "T == 1 or T >= 3"
    empty = contract.fix(S=5)
    assert empty.empty
    assert "S <= 4" in str(empty.emptied_by().clause) or \
        "4 >= S" in str(empty.emptied_by().clause)


def _branching(x, w, table):
    h = x[:4] @ w if x.shape[0] > 4 else x
    return h + table[:h.shape[0], :h.shape[1]]


def test_eval_shape_s_contract_is_where_numpy_runs_the_code():
    """Code that branches on a size: its contract (one of its cases, each with its
    assumptions and their lines) holds exactly where NumPy runs the code on arrays of
    those sizes, at every point of a small box."""
    result = kt.eval_shape(_branching, "float32[N,D]", "float32[K,2]", "float32[3,2]")
    contract = result.contract
    assert contract.exact
    lines = {s.location.rsplit(":", 1)[-1] for a in contract.atoms for s in a.sources}
    assert len(lines) >= 2, contract  # the branch's line and the matmul's
    for n, d, k in itertools.product(range(7), range(4), range(4)):
        try:
            _branching(np.zeros((n, d)), np.zeros((k, 2)), np.zeros((3, 2)))
            runs = True
        except ValueError:
            runs = False
        assert bool(contract.holds(N=n, D=d, K=k).value) == runs, (n, d, k)
        count("eval_shape contracts: points run by NumPy")


def _outer_rows(x, y, w):
    return np.concatenate([np.outer(y, x), w]).reshape((y[:, None] * w).shape[0], -1)


def test_a_reshape_by_a_broadcast_size_is_judged_by_numpy():
    """``reshape(r, -1)`` where ``r`` is a broadcast's size ``max(A,C)*min(1,A,C)``: its
    condition divides by a size that is 0 in some cases; tidying it, and solving it into
    boxes, raised ZeroDivisionError. Where it divides by 0 it fails, as NumPy does."""
    result = kt.eval_shape(_outer_rows, "float64[A,B]", "float64[A]", "float64[C,B]")
    contract = result.contract
    seen = set()
    for a, b, c in itertools.product(range(4), repeat=3):
        try:
            got = _outer_rows(np.zeros((a, b)), np.zeros(a), np.zeros((c, b))).shape
        except ValueError:
            got = None
        verdict = contract.holds(A=a, B=b, C=c).value
        assert verdict is (got is not None), (a, b, c)
        assert result.holds({"A": a, "B": b, "C": c}) is (got is not None), (a, b, c)
        seen.add(verdict)
    assert seen == {True, False}


def test_eval_shape_has_the_contract_of_its_graph():
    result = kt.eval_shape(lambda x, w: (x @ w)[:, :4], "float32[N,D]", "float32[K,8]")
    contract = result.contract
    assert contract.names == ("N", "D", "K")
    assert contract.dsl() == "where D == K"
    assert contract.holds(N=3, D=2, K=2) and not contract.holds(N=3, D=2, K=3)


# -- refine: named sizes rigid, the contract carried -----------------------------------


def test_refine_keeps_named_sizes_and_carries_their_conditions():
    """x @ x needs D == N: refine keeps both names (it never merges them) and its
    contract says it; given N = 3, the contract leaves D one value, which refine binds."""
    N, D = kt.dims("N D")
    x = kt.tensor("x", "float32", (N, D))
    y = x @ x
    r = kt.refine(y)
    assert r[x] == kt.TensorType("float32", (N, D))
    assert r.contract.dsl() == "where D == N"
    assert kt.refine(y, given={"N": 3})[x] == kt.TensorType("float32", (3, 3))  # decided
    with pytest.raises(kt.RefinementError, match="matmul"):
        kt.refine(y, given={"N": 3, "D": 4})


def test_refine_at_a_size_refuses_what_forward_typing_refuses():
    """At every S, refine(given={"S": s}) succeeds exactly where a forward build at S
    does for some T; where it succeeds its sets of T are the contract's at that S."""
    S, T = kt.dims("S T")
    out = table(S, T)
    contract = kt.contract(out)
    for s in range(8):
        forward = any(_forward(table, (s, t)) for t in range(8))
        try:
            r = kt.refine(out, given={"S": s})
        except kt.RefinementError as exc:
            assert not forward, s
            assert "add" in str(exc) or "getitem" in str(exc), str(exc)
            continue
        assert forward, s
        assert r.sets()["T"] == contract.fix(S=s).sets()["T"]


def _gemm_model():
    """A flatten against a weight (``Reshape [1, -1]`` then a 4 x 12 Gemm, as AlexNet):
    ``N*H*W == 12`` after ``x: [N, 1, H, W]``."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["flat"], name="flatten"),
             helper.make_node("Gemm", ["flat", "w"], ["out"], transB=1, name="fc")]
    inits = [helper.make_tensor("shape", TensorProto.INT64, [2], [1, -1]),
             helper.make_tensor("w", TensorProto.FLOAT, [4, 12], [0.0] * 48)]
    graph = helper.make_graph(
        nodes, "gemm", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                      ["N", 1, "H", "W"])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_refine_narrows_a_size_to_its_set_or_names_the_atom_that_empties_it():
    model = _gemm_model()
    contract = ko.contract(model)
    assert len(contract.solutions(N=(1, 12), H=(1, 12), W=(1, 12))) == 18  # 12's triples
    _, outs = ko.from_onnx(model)
    r = kt.refine(outs, given={"N": 1, "H": 3})
    x = ko.from_onnx(model)[0][0]
    assert str(r[outs[0]]) == "float32[1,4]"
    assert {str(t) for v, t in r.items() if v.name == "x"} == {"float32[1,1,3,4]"}
    r = kt.refine(outs, given={"N": 1})
    assert r.sets()["H"] == contract.fix(N=1).sets()["H"]
    assert sorted(r.sets()["H"].within(0, 20)) == [1, 2, 3, 4, 6, 12]
    with pytest.raises(kt.RefinementError, match="fc|flatten") as info:
        kt.refine(outs, given={"N": 1, "H": 5})
    assert "leaves no sizes" in str(info.value) or "contradict" in str(info.value)
    assert x.type.shape[2] == kt.Dim("H")
    np.testing.assert_equal(contract.holds(N=2, H=2, W=3).value, True)


SAME = kt.op("(n),(n)->(n)", name="same")(lambda a, b: a)


def test_refine_decides_the_conditions_its_relations_leave_to_the_contract():
    """``x: [N]`` against a 3 and a 4 in two nodes: each relation alone holds (N is
    rigid, so N == 3 and N == 4 are conditions), the contract has no sizes, and refine
    refuses it naming the node, as forward typing refuses every N."""
    N = kt.Dim("N")
    x = kt.tensor("x", "float32", (N,))
    a = SAME(x, kt.tensor("w3", "float32", (3,)))
    b = SAME(x, kt.tensor("w4", "float32", (4,)))
    contract = kt.contract([a, b])
    assert contract.empty and contract.emptied_by().where() == "same"
    for n in range(6):
        with pytest.raises(TypeError):
            y = kt.tensor("y", "float32", (n,))
            SAME(y, kt.tensor("w3", "float32", (3,))), SAME(y, kt.tensor("w4", "float32",
                                                                          (4,)))
    with pytest.raises(kt.RefinementError, match="same fails: N == 4 leaves no sizes"):
        kt.refine([a, b])


# -- what the words say: implied bounds pruned, the DSL parsing back ------------------

STRIDED = kt.op("(n)->((n - 3)//2 + 1) where n >= 3", name="strided")(lambda x: x)


def test_a_window_a_later_window_implies_is_pruned():
    """A stack of strided windows: each node needs its window to fit, and the last one's
    condition implies the others' (the prover shows it), so the contract has that one
    atom; at every H it holds exactly where the stack builds forwards."""
    x = kt.tensor("x", "float32", (kt.Dim("H"),))
    out = STRIDED(STRIDED(STRIDED(x)))
    nodes = [out.owner, out.owner.inputs[0].owner, out.owner.inputs[0].owner.inputs[0].owner]
    assert all(len(n.conditions) == 1 for n in nodes)  # each node keeps its own
    contract = kt.contract(out)
    assert [str(a.clause) for a in contract.atoms] == ["(H + 1)//4 - 1 >= 3"]
    assert contract.dsl() == "where H >= 15"
    for h in range(40):
        try:
            STRIDED(STRIDED(STRIDED(kt.tensor("x", "float32", (h,)))))
            builds = True
        except (TypeError, ValueError):
            builds = False
        assert bool(contract.holds(H=h).value) == builds, h


def test_bounds_the_prover_does_not_relate_are_kept():
    """``D >= 3`` and ``N >= 3`` (two sizes): neither implies the other; both stay."""
    N, D = kt.dims("N D")
    out = STRIDED(kt.tensor("a", "float32", (N,))) + STRIDED(kt.tensor("b", "float32", (D,)))
    texts = {str(a.clause) for a in kt.contract(out).atoms}
    assert {"N >= 3", "D >= 3"} <= texts, texts


def test_a_bound_over_a_data_dependent_count_prunes_no_input_bound():
    """``N >= 1`` (argmax) beside ``N >= k + 1`` (indexing ``x`` by the count ``k`` of a
    mask, which is no input): the prover shows the second implies the first, but ``holds``
    can only leave an atom over ``k`` undecided, so pruning ``N >= 1`` would turn N = 0
    from invalid (NumPy's argmax refuses an empty array) into undecided."""
    N = kt.Dim("N")
    x = kt.tensor("x", "float32", (N,))
    outs = [x[x[x > 0].shape[0]], kt.argmax(x)]
    contract = kt.contract(outs)
    assert "N >= 1" in {str(a.clause) for a in contract.atoms}
    verdict = contract.holds(N=0)
    assert verdict.value is False and "argmax" in verdict.atom.where(), verdict
    with pytest.raises(ValueError):
        np.argmax(np.zeros(0, np.float32))
    sets = contract.sets()
    assert sets["N"].text("N") == "N >= 1" and "N" in sets.necessary, sets
    assert contract.holds(N=1).value is None  # the count decides


SHORTER = kt.op("(n + 1)->(n)", name="shorter")(lambda x: x)


@pytest.mark.parametrize("shape", [(kt.Dim("N"),), (None,)])
def test_a_size_an_input_s_expression_defines_is_a_size_only_where_it_is_not_negative(shape):
    """``(n + 1)->(n)`` on ``[N]`` defines ``n = N - 1``, a size only where ``N >= 1``: the
    build keeps that condition (it said every N was valid, and typed N = 0 as ``[-1]``);
    at every size the contract holds exactly where the build at that int succeeds."""
    out = SHORTER(kt.tensor("x", "float32", shape))
    contract = kt.contract(out)
    name = contract.names[0]
    ident = name.replace(".shape[0]", "_shape_0")
    assert contract.exact and contract.dsl() == f"where {ident} >= 1"
    for v in range(6):
        try:
            SHORTER(kt.tensor("x", "float32", (v,)))
            builds = True
        except (TypeError, ValueError):
            builds = False
        assert bool(contract.holds({name: v}).value) == builds == (v >= 1), v


def _parses(dsl: str, names) -> None:
    for line in dsl.splitlines():
        kt.Signature.parse(f"({','.join(names)})->() {line}")


def test_the_dsl_parses_back_and_says_nothing_where_every_size_is_valid():
    assert kt.contract(kt.tensor("z", "float32", (2,)) + 1).dsl() == ""
    N, D, K = kt.dims("N D K")
    assert kt.contract(kt.tensor("y", "float32", (N,)) + 1).dsl() == ""
    for out, names in ((matmul(N, D, K), "N D K"), (windows(N, K), "N K"),
                       (table(N, D), "N D"), (reshape3(N, D, K), "N D K")):
        dsl = kt.contract(out).dsl()
        assert dsl.startswith("where "), dsl
        _parses(dsl, names.split())
    a = kt.tensor("a", "float32", (5, None))
    dsl = kt.contract(a @ kt.tensor("b", "float32", (3, 4))).dsl()
    _parses(dsl, ["a_shape_1"])


@pytest.mark.parametrize("members", [
    [1, 2, 3, 4, 6, 9, 12, 18, 36],  # the divisors of 36 (AlexNet's N)
    list(range(0, 65, 2)),           # 33 even sizes: one congruence says it shorter
    [0, 2, 4, 6],
    [5, 6, 7, 20],
])
def test_a_finite_size_set_is_written_the_shorter_way(members):
    """The divisors of 36 read 'N % 35 in {1..4, 6, 9, 12, 18} and N in [1, 36]' (a
    congruence no user would think of); a few members are listed, a long run that one
    congruence states is that. Oracle: brute force: the text, read back as Python over
    every N of 0..100, holds exactly at the members."""
    from kantensor.types.contracts.sizeset import SizeSet
    text = SizeSet.points(members).text("N")
    assert len(text) <= len(f"N in {{{', '.join(map(str, members))}}}"), text
    python = re.sub(r"N in \[(\d+), (\d+)\]", r"(\1 <= N <= \2)", text)
    python = re.sub(r"(\d+)\.\.(\d+)", lambda m: f"*range({m[1]}, {int(m[2]) + 1})", python)
    held = {n for n in range(101) if eval(python, {"N": n})}
    assert held == set(members), (text, python)

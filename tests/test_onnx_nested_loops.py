"""A Loop inside a Loop's body whose number of iterations the data decide: the inner
count may differ at every outer iteration, so it is never one named size (a name would
say one size for all of them: ``float32[inner_loop_iters*n+m]`` claimed 14 entries are
``4*X`` for some X at n = 4). The outer loop's own count, decided once per run, is a
DataSymbol, no input size of the contract. Judged by onnxruntime (tests/ortrun.py) at
three size assignments each, with tests/test_onnx_loops.py's check (every stated size is
the run's, a loop's count solved from the run agrees with every other size).
"""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
import kantensor.onnx as ko
from kantensor.types.symbols import DataSymbol, free_symbols
from test_onnx_loops import (
    AXES,
    I64,
    B,
    F,
    const,
    graph,
    model,
    node,
    run_and_check,
    size_of,
    t,
    untyped,
)


def _inner(trips: str, cond: str) -> tuple[list, object]:
    """An inner Loop adding one entry per iteration while ``j + 1 < lim_in`` (or for
    ``trips`` iterations), with its body."""
    body = graph([node("Concat", ["iacc_in", "one_f"], ["iacc_out"], axis=0),
                  node("Add", ["j", "one"], ["j1"]),
                  node("Less", ["j1", "lim_in"], ["ic_out"])],
                 [t("j", I64, []), t("ic_in", B, []), *untyped("iacc_in")],
                 [*untyped("ic_out", "iacc_out")], "inner")
    return [node("Less", ["zero", "lim_in"], ["go"]),
            node("Loop", [trips, cond, "acc_in"], ["acc_out"], body=body,
                 name="inner_loop")], body


def _outer_carrying_lim(inner: list, next_lim, extra_inputs: list):
    """The outer loop (n iterations) running ``inner`` and carrying ``lim`` (made by
    ``next_lim``) and the accumulator; ``extra_inputs``: more graph inputs."""
    outer = graph([*inner, next_lim, node("Identity", ["c_in"], ["c_out"])],
                  [t("i", I64, []), t("c_in", B, []), *untyped("lim_in", "acc_in")],
                  [*untyped("c_out", "lim_out", "acc_out")], "outer")
    nodes = [*size_of("x", 0, "n"),
             node("Loop", ["n", "true", "lim0", "a"], ["lim", "acc"], body=outer,
                  name="outer_loop")]
    return model(graph(nodes, [t("x", F, ["n"]), t("a", F, ["m"]), t("lim0", I64, []),
                               *extra_inputs],
                       untyped("lim", "acc"), inits=_INITS))


def varying():
    """The outer loop (n iterations) carries ``lim`` (one more each iteration): the inner
    loop runs while ``j < lim``, another count at every outer iteration."""
    inner, _ = _inner("", "go")
    return _outer_carrying_lim(inner, node("Add", ["lim_in", "one"], ["lim_out"]), [])


def constant_data():
    """The inner loop runs ``k`` times, ``k`` a value the data give (the same at every
    outer iteration, which the reader does not know)."""
    inner, _ = _inner("k", "true")
    return _outer_carrying_lim(inner, node("Identity", ["lim_in"], ["lim_out"]),
                               [t("k", I64, [])])


def outer_by_data():
    """The outer loop runs while its condition input holds (up to n times), each
    iteration an inner loop of ``Shape(y)[0]`` = q iterations: ``m + q*outer_iters``."""
    inner = graph([node("Concat", ["iacc_in", "one_f"], ["iacc_out"], axis=0),
                   node("Identity", ["ic_in"], ["ic_out"])],
                  [t("j", I64, []), t("ic_in", B, []), *untyped("iacc_in")],
                  [*untyped("ic_out", "iacc_out")], "inner")
    outer = graph([node("Loop", ["q", "true", "acc_in"], ["acc_out"], body=inner,
                        name="inner_loop"),
                   node("Identity", ["c_in"], ["c_out"])],
                  [t("i", I64, []), t("c_in", B, []), *untyped("acc_in")],
                  [*untyped("c_out", "acc_out")], "outer")
    nodes = [*size_of("x", 0, "n"), *size_of("y", 0, "q"),
             node("Loop", ["n", "cond", "a"], ["acc"], body=outer, name="outer_loop")]
    return model(graph(nodes, [t("x", F, ["n"]), t("y", F, ["q"]), t("a", F, ["m"]),
                               t("cond", B, [])],
                       untyped("acc"), inits=_INITS))


_INITS = [*AXES, const("one_f", [1.0], np.float32), const("one", 1), const("zero", 0)]

CASES = {
    "a count that changes at every outer iteration": (varying, ["int64[]", "float32[?]"]),
    "a count the data give once": (constant_data, ["int64[]", "float32[?]"]),
    "an outer count by data": (outer_by_data, ["float32[outer_loop_iters*q+m]"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_nested_loops_counts_are_stated_as_onnxruntime_runs_them(case):
    build, want = CASES[case]
    m = build()
    ins, outs = ko.from_onnx(m)
    assert [str(o.type) for o in outs] == want
    rng = np.random.default_rng(7)
    for draw in range(3):  # three assignments of sizes and data
        sizes = {"n": int(rng.integers(0, 5)), "m": int(rng.integers(0, 4)),
                 "q": int(rng.integers(1, 4))}  # (q = 0 leaves the outer count open)
        feeds = {"x": np.zeros(sizes["n"], np.float32), "a": np.zeros(sizes["m"], np.float32)}
        names = {v.name for v in ins}
        for name, value in (("lim0", np.array(draw, np.int64)),
                            ("k", np.array(int(rng.integers(0, 4)), np.int64)),
                            ("y", np.zeros(sizes["q"], np.float32)),
                            ("cond", np.array(draw != 1))):
            if name in names:
                feeds[name] = value
        run_and_check(m, outs, sizes, feeds)


def test_the_outer_count_is_a_data_decided_size_and_no_input_size():
    m = outer_by_data()
    _, outs = ko.from_onnx(m)
    (count,) = [s for s in free_symbols(outs[0].type.shape[0]) if type(s) is DataSymbol]
    assert str(count) == "outer_loop_iters"
    contract = ko.contract(m)
    assert set(contract.names) == {"n", "q", "m"}
    graph_contract = kt.contract(outs)
    assert "outer_loop_iters" not in graph_contract.names


def test_an_inner_count_in_a_loops_body_leaves_the_outer_size_unknown_with_a_note():
    for build in (varying, constant_data):
        _, outs = ko.from_onnx(build())
        assert [str(n) for n in ko.size_notes(outs)] == [
            "axis 0 of acc (outer_loop) is not known: the body gives it an unknown size"]

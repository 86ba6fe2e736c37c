"""Contracts of models built with onnx.helper the way exporters build them (issue 33),
judged by onnxruntime at every size of a small domain: index bounds (GPT-2's position
table read by ``Gather(wpe, Range(0, seq))``, BERT's ``position_ids[:, :seq]`` buffer) and
minimum window sizes (a strided conv/pool stem). ``refine`` with a size given by name
agrees with forward typing at that size: it refuses exactly the sizes the contract
refuses, naming the node.

onnxruntime runs in a worker process (tests/ortrun.py; a crash is a refusal). A run whose
output has an empty axis counts as refused, and so does one through a window that
differs from ONNX's output-size formula (the window sizes' test watches the windows, as
tests/test_contracts_light.py does: tests/ortwindows.py): kantensor, as PyTorch, calls a
window that does not fit its input invalid (DESIGN 13), where onnxruntime computes an
empty map, or, where a strided window overhangs its input by less than a stride, one
position from the partial window (its division truncates where ONNX's formula floors;
onnx.reference, the cross-check, gives the formula's empty map there).
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from onnx import ModelProto, TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
import kantensor.onnx as ko
import ortrun
import ortwindows
from differential import count
from kantensor.cli import main
from kantensor.onnx.contract import with_input_dims
from kantensor.types.productsign import factors
from kantensor.types.symbols import substitute
from test_onnx_loops import accumulate

I64, F = TensorProto.INT64, TensorProto.FLOAT


def _init(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def _model(nodes, inputs, inits, name: str):
    graph = helper.make_graph(nodes, name, inputs,
                              [helper.make_tensor_value_info("out", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def gpt2_embeddings(positions: int = 16):
    """GPT-2's embeddings: token ids ``[B, seq]``; positions ``Range(0, seq)`` read from a
    ``positions``-row table."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "one"], ["seqlen"], axis=0, name="seq_of"),
        helper.make_node("Range", ["zero", "seqlen", "one"], ["pos"], name="positions"),
        helper.make_node("Gather", ["wpe", "pos"], ["pe"], axis=0, name="wpe_lookup"),
        helper.make_node("Gather", ["wte", "ids"], ["te"], axis=0, name="wte_lookup"),
        helper.make_node("Add", ["te", "pe"], ["out"], name="embed"),
    ]
    inits = [_init("zero", np.int64(0)), _init("one", np.int64(1)),
             _init("wpe", np.zeros((positions, 4), np.float32)),
             _init("wte", np.zeros((10, 4), np.float32))]
    return _model(nodes, [helper.make_tensor_value_info("ids", I64, ["B", "seq"])], inits,
                  "gpt2")


def bert_embeddings(positions: int = 16):
    """BERT's embeddings: a ``position_ids`` buffer ``[1, positions]`` sliced to ``[:, :seq]``
    (the slice's end read from the input's shape), its rows added to the tokens'."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"], name="shape"),
        helper.make_node("Slice", ["shape", "one1", "two1"], ["seqlen"], name="seq_of"),
        helper.make_node("Slice", ["position_ids", "zero1", "seqlen", "one1"], ["pos"],
                         name="position_slice"),
        helper.make_node("Gather", ["wpe", "pos"], ["pe"], axis=0, name="wpe_lookup"),
        helper.make_node("Gather", ["wte", "ids"], ["te"], axis=0, name="wte_lookup"),
        helper.make_node("Add", ["te", "pe"], ["out"], name="embed"),
    ]
    inits = [_init("zero1", np.array([0], np.int64)), _init("one1", np.array([1], np.int64)),
             _init("two1", np.array([2], np.int64)),
             _init("position_ids", np.arange(positions, dtype=np.int64)[None]),
             _init("wpe", np.zeros((positions, 4), np.float32)),
             _init("wte", np.zeros((10, 4), np.float32))]
    return _model(nodes, [helper.make_tensor_value_info("ids", I64, ["B", "seq"])], inits,
                  "bert")


def stem():
    """A strided conv/pool stem: Conv 5x5 stride 2 pad 1, MaxPool 3x3 stride 2 (ceil
    mode), Conv 3x3 without padding, AveragePool 2x2 stride 2."""
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[5, 5], strides=[2, 2],
                         pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("MaxPool", ["c1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2],
                         ceil_mode=1, name="pool1"),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], kernel_shape=[3, 3], name="conv2"),
        helper.make_node("AveragePool", ["c2"], ["out"], kernel_shape=[2, 2], strides=[2, 2],
                         name="pool2"),
    ]
    inits = [_init("w1", np.zeros((2, 1, 5, 5), np.float32)),
             _init("w2", np.zeros((2, 2, 3, 3), np.float32))]
    return _model(nodes, [helper.make_tensor_value_info("x", F, [1, 1, "H", "W"])], inits,
                  "stem")


def _runs(model, feeds) -> bool:
    out = ortrun.run(model, feeds)
    return isinstance(out, list) and all(0 not in shape for shape in out)


def _ids(seq: int) -> dict:
    return {"ids": np.zeros((1, seq), np.int64)}


@pytest.mark.parametrize("build", [gpt2_embeddings, bert_embeddings])
def test_index_bounds_are_the_contract(build):
    """seq <= 16 (the table's rows), imposed by the node that reads the table; at every
    seq in 0..24 the contract says what onnxruntime does."""
    model = build(16)
    contract = ko.contract(model)
    assert contract.exact
    assert contract.sets()["seq"].text("seq") == "seq in [0, 16]"
    verdict = contract.holds(B=1, seq=17)
    assert verdict.value is False
    assert {"wpe_lookup", "embed"} & set(" ".join(verdict.atom.nodes).split()), verdict
    for seq in range(1, 25):  # onnxruntime refuses empty inputs' Range for both alike
        claim = contract.holds(B=1, seq=seq).value
        assert claim == _runs(model, _ids(seq)), seq
        count("index bounds: sizes judged by onnxruntime")


def test_shifted_positions_of_int64_state_their_bound_plainly():
    """OPT's learned positions: ``Range(0, seq) + 2`` read from an 18-row table. The
    positions' int64 interval ends at ``min(2**63, seq + 2)`` (the sum wraps past int64's
    max), and the condition the table needs said ``min(9223372036854775808, seq + 2) <=
    18``; a min at most an int below its other (int) argument is that argument's bound.
    The contract is onnxruntime's at every seq in 1..24."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "one"], ["seqlen"], axis=0, name="seq_of"),
        helper.make_node("Range", ["zero", "seqlen", "one"], ["pos"], name="positions"),
        helper.make_node("Add", ["pos", "two"], ["shifted"], name="offset"),
        helper.make_node("Gather", ["wpe", "shifted"], ["out"], axis=0, name="wpe_lookup"),
    ]
    inits = [_init("zero", np.int64(0)), _init("one", np.int64(1)), _init("two", np.int64(2)),
             _init("wpe", np.zeros((18, 4), np.float32))]
    model = _model(nodes, [helper.make_tensor_value_info("ids", I64, ["B", "seq"])], inits,
                   "opt")
    contract = ko.contract(model)
    assert contract.sets()["seq"].text("seq") == "seq in [0, 16]"
    assert str(contract.holds(B=1, seq=17)) == \
        "False: seq + 2 <= 18 fails at B=1, seq=17 (Gather wpe_lookup)"
    for seq in range(1, 25):
        assert contract.holds(B=1, seq=seq).value == _runs(model, _ids(seq)), seq
        count("index bounds: sizes judged by onnxruntime")


@pytest.mark.parametrize("build", [gpt2_embeddings, bert_embeddings])
def test_refine_at_a_size_agrees_with_forward_typing(build):
    """refine(given={"seq": s}) accepts seq = 16 and refuses 17, as a forward build of the
    model at that size does (the issue's BERT at 65)."""
    model = build(16)
    for seq, valid in ((16, True), (17, False)):
        fixed = with_input_dims(model, {"ids": (1, seq)})
        forward = True
        try:
            ko.from_onnx(fixed)
        except Exception:
            forward = False
        ins, outs = ko.from_onnx(model)
        try:
            r = kt.refine(outs, given={"seq": seq})
        except kt.RefinementError as exc:
            refined = False
            last = str(exc).splitlines()[-1]
            assert "wpe_lookup" in last or "embed" in last, str(exc)
            if build is gpt2_embeddings:  # the index bound, in its words
                assert "17 <= 16 is false" in last, last
        else:
            refined = True
            assert r[outs[0]] == kt.TensorType("float32", (kt.Dim("B"), seq, 4))
        assert refined == forward == valid, (seq, refined, forward)


def test_window_sizes_are_the_contract():
    """The stem's output is non-empty exactly where the contract says, at every H in
    0..40 (W fixed at a valid 20), judged by onnxruntime; the least valid H is named by
    the window that needs it."""
    model = stem()
    contract = ko.contract(model)
    assert contract.exact
    hs = contract.sets()["H"]
    watched = ortwindows.Watched(model)
    truncated = 0
    for h in range(0, 41):
        p = {"H": h, "W": 20}
        claim = bool(contract.holds(p).value)
        assert claim == (h in hs)
        run = ortwindows.judge(watched, {"x": np.zeros((1, 1, h, 20), np.float32)})
        count("window sizes: sizes judged by onnxruntime")
        ran = isinstance(run, list) and all(0 not in shape for shape in run)
        assert claim == ran, (h, contract.holds(p), run)
        if isinstance(run, ortwindows.Window):
            assert run.why == "truncated" and run.agreed, run  # onnx.reference: the formula's
            truncated += 1
    count("window sizes: claimed invalid, run only through a truncated window", truncated)
    least = hs.min
    verdict = contract.holds(H=least - 1, W=least)
    assert verdict.value is False
    assert any(re.fullmatch(r"(Conv|MaxPool|AveragePool) (conv1|pool1|conv2|pool2)",
                            node) for node in verdict.atom.nodes), verdict.atom.nodes


def test_the_contract_command(tmp_path, capsys):
    """``kantensor contract MODEL``: the conditions with their nodes, the sets, the DSL;
    ``--trt`` a profile whose min, opt and max shapes onnxruntime runs; bad words are
    clear errors."""
    path = tmp_path / "gpt2.onnx"
    path.write_bytes(gpt2_embeddings(16).SerializeToString())
    assert main(["contract", str(path)]) == 0
    text = capsys.readouterr().out
    assert "seq in [0, 16]  Gather wpe_lookup" in text
    assert "DSL: where seq <= 16" in text
    assert main(["contract", str(path), "--fix", "B=2", "--trt", "--opt", "seq=8"]) == 0
    text = capsys.readouterr().out
    assert "ids: min 2x1  opt 2x8  max 2x16" in text, text
    assert "--minShapes=ids:2x1 --optShapes=ids:2x8 --maxShapes=ids:2x16" in text
    for seq in (1, 8, 16):
        assert _runs(gpt2_embeddings(16), {"ids": np.zeros((2, seq), np.int64)})
    assert main(["contract", str(path), "--fix", "B"]) == 1
    assert "--fix takes NAME=VALUE" in capsys.readouterr().err
    assert main(["contract", str(path), "--fix", "Q=1"]) == 1
    assert "Q is not a size of the contract (its sizes: B, seq)" in capsys.readouterr().err


def test_a_loop_count_is_no_input_size():
    """A Loop's iteration count is a size the model makes (data decide it): a condition
    over it leaves the contract inexact; ``holds`` says True where it holds at every count
    the Loop can make (``0 <= iters <= n``), False where at none, else undecided; its
    labelled outer approximation holds wherever onnxruntime runs the model (cond true: n
    iterations; false: none)."""
    model = accumulate(True)
    model.graph.node.append(helper.make_node("Add", ["acc", "y"], ["z"], name="add_y"))
    model.graph.input.append(helper.make_tensor_value_info("y", F, ["k", "d"]))
    model.graph.output.append(helper.make_tensor_value_info("z", F, None))
    contract = ko.contract(model)
    assert contract.names == ("n", "d", "m", "k")
    assert not contract.exact and contract.outer.label == "necessary"
    # the body's x[i] at every iteration i < iters: decided by its two ends (main dropped
    # it: the Gather's builder refused the iteration number's interval)
    assert "acc_loop_iters == 0 or (1 <= n and acc_loop_iters <= n)" in {
        str(a.clause) for a in contract.atoms}
    verdict = contract.holds(n=3, d=2, m=1, k=4)  # 3 iterations fit, none do not
    assert verdict.value is None and "add_y" in verdict.atom.where()
    assert contract.holds(n=3, d=2, m=2, k=9).value is False  # no count in [0, 3] fits
    assert contract.holds(n=3, d=2, m=1, k=1).value is True
    ran = 0
    for n, m, k in itertools.product(range(3), range(3), range(4)):
        claim = contract.holds(n=n, d=2, m=m, k=k).value
        for cond in (True, False):
            feeds = {"x": np.zeros((n, 2), np.float32), "a": np.zeros((m, 2), np.float32),
                     "cond": np.array(cond), "y": np.zeros((k, 2), np.float32)}
            runs = isinstance(ortrun.run(model, feeds), list)
            assert claim is None or claim == runs, (n, m, k, cond, claim)
            if runs:
                ran += 1
                assert contract.outer.holds(n=n, d=2, m=m, k=k).value, (n, m, k, cond)
    count("loop contract: runs inside the outer approximation", ran)


def test_a_pool_before_a_weight_states_its_condition():
    """The issue's example: ``AveragePool(k=32, s=32)`` then a MatMul with a 6-row weight
    types ``x: [n, 1, h]`` as ``[n, 1, 3]``, under ``h//32 == 6``: h in [192, 223], exactly
    where onnxruntime runs it (h in 150..260)."""
    nodes = [helper.make_node("AveragePool", ["x"], ["p"], kernel_shape=[32], strides=[32],
                              name="pool"),
             helper.make_node("MatMul", ["p", "w"], ["out"], name="proj")]
    model = _model(nodes, [helper.make_tensor_value_info("x", F, ["n", 1, "h"])],
                   [_init("w", np.zeros((6, 3), np.float32))], "pool")
    _, outs = ko.from_onnx(model)
    assert str(outs[0].type) == "float32[n,1,3]"
    contract = ko.contract(model)
    assert contract.sets()["h"].text("h") == "h in [192, 223]"
    assert "MatMul proj" in contract.holds(n=1, h=224).atom.where()
    for h in range(150, 261):
        runs = _runs(model, {"x": np.zeros((1, 1, h), np.float32)})
        assert bool(contract.holds(n=1, h=h).value) == runs, h


def test_sizes_defined_by_sizes_no_input_gives_do_not_break_sampling():
    """Two data-dependent sizes tied by a broadcast (``Add(NonZero(x), NonZero(y))``; the
    exported BERTs had such sizes): a cell defines one by the other, which no input gives
    a value. ``sample`` and ``solutions`` evaluate the input sizes only (they
    raised KeyError), and claim a point valid only where it is whatever the data: at
    N, M <= 1 each count is 0 or 1, and [a] + [b] broadcasts for every such a, b (what
    NonZero guarantees, count <= N, is the counts' bound); elsewhere the data decide."""
    nodes = [helper.make_node("NonZero", ["x"], ["nx"], name="nonzero_x"),
             helper.make_node("NonZero", ["y"], ["ny"], name="nonzero_y"),
             helper.make_node("Add", ["nx", "ny"], ["s"], name="add")]
    model = helper.make_model(helper.make_graph(
        nodes, "hidden", [helper.make_tensor_value_info("x", F, ["N"]),
                          helper.make_tensor_value_info("y", F, ["M"])],
        [helper.make_tensor_value_info("s", I64, None)]),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    assert any(cell.defined for cell in contract.cells)
    small = [{"N": n, "M": m} for n in range(2) for m in range(2)]
    assert contract.solutions(N=range(3), M=range(3)) == small
    assert contract.sample(seed=1) in small
    assert contract.holds(N=2, M=2).value is None
    (cell,) = [c for c in contract.cells if c.defined and
               all(not isinstance(e, int) for e in c.defined.values())]
    assert cell.values({}) == {}


@pytest.mark.parametrize("allowzero", [0, 1])
def test_reshape_to_sizes_read_from_the_input_with_a_minus_one_at_zero_sizes(allowzero):
    """``Reshape(x, [batch, seq, -1])`` with the sizes read by Shape, as exporters write
    a view: where batch*seq is 0 the -1 is ambiguous. With allowzero 0 (a 0 means
    "copy") onnxruntime refuses, and the contract says valid exactly where it runs, with
    the run's type. With allowzero 1 ONNX calls a 0 beside a -1 invalid (as NumPy does)
    and the contract refuses what forward typing refuses at those sizes; onnxruntime runs
    those points (it divides the sizes that are not 0), as with "one short" windows."""
    nodes = [helper.make_node("Shape", ["x"], ["bs"], start=0, end=2),
             helper.make_node("Concat", ["bs", "minus_one"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="view",
                              allowzero=allowzero)]
    model = helper.make_model(helper.make_graph(
        nodes, "view", [helper.make_tensor_value_info("x", F, ["B", "S", 8])],
        [helper.make_tensor_value_info("y", F, None)], [_init("minus_one", [-1])]),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    for b, s in itertools.product(range(3), range(3)):
        claim = contract.holds(B=b, S=s).value
        ran = ortrun.run(model, {"x": np.zeros((b, s, 8), np.float32)})
        assert claim == (b * s > 0), (b, s)
        assert claim == isinstance(ran, list) or (allowzero and not claim), (b, s, ran)
        sized = with_input_dims(model, {"x": (b, s, 8)})
        if claim:
            _, (y,) = ko.from_onnx(sized)
            assert y.type.shape == ran[0] == (b, s, 8), (b, s)
        else:
            with pytest.raises(kt.TypeInferenceError, match="Reshape"):
                ko.from_onnx(sized)
    assert str(contract.holds(B=0, S=2)) == "False: B >= 1 fails at B=0, S=2 (Reshape view)"


def test_expand_of_a_cut_table_to_the_sequence_keeps_the_broadcast_condition():
    """BERT's ``Expand(position_ids[:, :seq], (batch, seq))``: the table's 64 rows cut to
    ``min(64, seq)`` broadcast against ``seq`` only up to 64, so the contract refuses
    seq = 65 as onnxruntime does (it claimed seq = 65 valid while build_expand left the
    size unknown and dropped the condition)."""
    nodes = [helper.make_node("Shape", ["ids"], ["seq"], start=1, end=2),
             helper.make_node("Slice", ["pos", "zero", "seq", "one"], ["cut"]),
             helper.make_node("Shape", ["ids"], ["bs"]),
             helper.make_node("Expand", ["cut", "bs"], ["out"], name="expand")]
    model = helper.make_model(helper.make_graph(
        nodes, "positions", [helper.make_tensor_value_info("ids", I64, ["B", "S"])],
        [helper.make_tensor_value_info("out", I64, None)],
        [_init("pos", np.arange(64).reshape(1, 64)), _init("zero", [0]), _init("one", [1])]),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    for b, s in itertools.product((1, 2), (0, 1, 2, 63, 64, 65, 66)):
        ran = ortrun.run(model, {"ids": np.zeros((b, s), np.int64)})
        assert contract.holds(B=b, S=s).value == isinstance(ran, list), (b, s, ran)
        if isinstance(ran, list):
            _, (out,) = ko.from_onnx(model)
            assert kt.refine(out, given={"B": b, "S": s})[out].shape == ran[0]
    assert "(Expand expand)" in str(contract.holds(B=1, S=65))


def test_reshape_to_a_size_read_from_another_axis_holds_where_its_type_is_the_run_s():
    """``Reshape(x, [S, -1])`` with x of shape (B, S, 8) and allowzero 0: where S is 0
    its entry copies B, so the type is ``S`` where S >= 1 and B where S == 0 (one exact
    size, ``B + S - B*min(1, S)``); the -1 refuses B = S = 0. The contract holds exactly
    where onnxruntime runs, with the run's type (it claimed S >= 1 necessary)."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], start=1, end=2),
             helper.make_node("Concat", ["s", "minus_one"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="view")]
    model = helper.make_model(helper.make_graph(
        nodes, "view", [helper.make_tensor_value_info("x", F, ["B", "S", 8])],
        [helper.make_tensor_value_info("y", F, None)], [_init("minus_one", [-1])]),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    _, (y,) = ko.from_onnx(model)
    for b, s in itertools.product(range(3), range(3)):
        ran = ortrun.run(model, {"x": np.zeros((b, s, 8), np.float32)})
        assert contract.holds(B=b, S=s).value == isinstance(ran, list), (b, s, ran)
        if isinstance(ran, list):
            assert kt.refine(y, given={"B": b, "S": s})[y].shape == ran[0], (b, s)
    assert [s for s in range(3) if contract.holds(B=2, S=s)] == [0, 1, 2]
    assert not contract.holds(B=0, S=0)


def test_data_dependent_sizes_are_named_by_their_nodes_and_labelled():
    """Two NonZero nodes: each count is its own size, named after its node (one symbol
    for both would merge two unrelated counts). What NonZero guarantees of its count
    (``nz_a <= 5``) is a fact, not a condition the inputs must meet; what the Concat
    needs of the two counts is, over sizes no input decides, so the contract says it is
    approximate, which of its approximations is sufficient and which necessary, and its
    DSL, over identifiers, parses back."""
    nodes = [helper.make_node("NonZero", ["a"], ["ia"], name="nz_a"),
             helper.make_node("NonZero", ["b"], ["ib"], name="nz_b"),
             helper.make_node("Concat", ["ia", "ib"], ["out"], axis=0, name="cat")]
    model = helper.make_model(helper.make_graph(
        nodes, "counts", [helper.make_tensor_value_info("a", F, [5]),
                          helper.make_tensor_value_info("b", F, ["N"])],
        [helper.make_tensor_value_info("out", I64, None)]),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    hidden = {str(s) for a in contract.atoms for s in a.symbols() if s in contract.hidden}
    assert hidden == {"nz_a", "nz_b"}, hidden
    assert (contract.label, contract.inner.label, contract.outer.label) == (
        "approximate", "sufficient", "necessary")
    text = str(contract)
    assert "nz_a == nz_b  Concat cat" in text and "<= 5" not in text, text
    assert "approximate: 1 condition names sizes the data decide, checked when the " \
        "model runs" in text, text
    assert "nz_a is decided when the model runs, at NonZero node 'nz_a'" in text, text
    assert "contract.inner is sufficient: valid whatever the data; contract.outer " \
        "necessary" in text, text
    assert contract.holds(N=3).value is None  # undecided, never a guess
    dsl = contract.dsl()
    assert dsl == "where nz_a == nz_b", dsl
    kt.Signature.parse("(N,nz_a,nz_b)->() " + dsl)


def test_a_count_alone_asks_nothing_of_the_inputs():
    """A NonZero's count bounded by its input's size is what NonZero guarantees, not a
    condition: a model whose only data-decided size flows through Transpose and GatherND
    accepts every size (its contract is exact)."""
    nodes = [helper.make_node("NonZero", ["x"], ["i"], name="nz"),
             helper.make_node("Transpose", ["i"], ["t"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "t"], ["out"])]
    model = helper.make_model(helper.make_graph(
        nodes, "count", [helper.make_tensor_value_info("x", F, ["N", 3])],
        [helper.make_tensor_value_info("out", F, None)]),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    assert contract.label == "exact" and contract.atoms == () and not contract.hidden
    assert contract.holds(N=0).value is True


WINDOW_NODES = [("MaxPool", {"kernel_shape": [3], "strides": [2], "ceil_mode": 1}),
                ("MaxPool", {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1}),
                ("AveragePool", {"kernel_shape": [2], "strides": [2], "ceil_mode": 1}),
                ("MaxPool", {"kernel_shape": [3], "strides": [1], "dilations": [2]}),
                ("MaxPool", {"kernel_shape": [3], "strides": [2], "auto_pad": "SAME_UPPER"}),
                ("AveragePool", {"kernel_shape": [3], "strides": [3], "auto_pad": "VALID"}),
                ("MaxPool", {"kernel_shape": [4], "strides": [3], "pads": [2, 1]})]


@pytest.mark.parametrize(("op", "attrs"), WINDOW_NODES, ids=[str(a) for _, a in WINDOW_NODES])
def test_the_window_oracle_s_formula_is_onnx_reference_s_and_onnxruntime_s(op, attrs):
    """tests/ortwindows.py's output-size formula (the oracle's second half) gives the
    sizes onnx.reference and onnxruntime give wherever a window fits (ceil mode, pads,
    dilations, auto_pad), at every input size 1..15."""
    node = helper.make_node(op, ["x"], ["out"], **attrs)
    for size in range(1, 16):
        spec = ortwindows.spec_sizes(node, (1, 1, size), {})
        if spec[0] < 1:
            continue
        model = _model([node], [helper.make_tensor_value_info("x", F, [1, 1, size])], [], op)
        x = np.zeros((1, 1, size), np.float32)
        assert ReferenceEvaluator(model).run(None, {"x": x})[0].shape[2:] == spec, size
        assert ortrun.run(model, {"x": x})[0][2:] == spec, size
        count("window formula: sizes agreeing with onnx.reference and onnxruntime")


def rankless_relu() -> ModelProto:
    """``Relu(x)`` of an input ``x`` of unknown rank (no shape)."""
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "rankless",
        [helper.make_tensor_value_info("x", F, None)],
        [helper.make_tensor_value_info("y", F, None)]),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_an_input_of_unknown_rank_is_refused_naming_how_to_give_its_dims(tmp_path, capsys):
    """An input with no shape (ONNX allows a tensor of unknown rank; onnxruntime runs
    ``Relu`` of it at any shape) is refused by name, with the way to give its dims: the
    contract's ``inputs=`` (and ``--input``) gave such an input none ("input 'x' has 0
    axes, 2 dims given"); now it takes the dims given, and the model's types there are
    onnxruntime's."""
    model = rankless_relu()
    for read in (ko.from_onnx, ko.infer_shapes, ko.contract):
        with pytest.raises(ko.OnnxImportError, match=r"value 'x': its rank is not given "
                           r"\(ONNX allows .*contract's inputs="):
            read(model)
    assert str(ko.contract(model, inputs={"x": ("N", 3)})).splitlines()[1] == \
        "  every size is valid"
    inputs, (y,) = ko.from_onnx(with_input_dims(model, {"x": ("N", 3)}))
    assert str(y.type) == "float32[N,3]"
    for n in range(3):
        x = np.full((n, 3), -1.0, np.float32)
        assert ortrun.run(model, {"x": x}) == [kt.function(inputs, y)(x).shape]
    path = tmp_path / "rankless.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["contract", str(path), "--input", "x=N,3"]) == 0
    assert "every size is valid" in capsys.readouterr().out


def squeeze(shape: list) -> ModelProto:
    """``Squeeze(x, a)`` of ``x`` of ``shape`` by one axis ``a`` the data give."""
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Squeeze", ["x", "a"], ["y"])], "squeeze",
        [helper.make_tensor_value_info("x", F, shape),
         helper.make_tensor_value_info("a", I64, [1])],
        [helper.make_tensor_value_info("y", F, None)]),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_a_squeeze_of_an_axis_the_data_pick_needs_some_axis_of_size_one():
    """Squeeze of ``x[n, m]`` (and ``x[n, 3]``) by one axis the data give: the contract
    said every size is valid (exact), though onnxruntime fails at every axis where none
    is 1 ('Dimension of input 0 must be 1'); it needs ``(n - 1)*(m - 1) == 0`` now, which
    holds exactly where some axis value runs (judged by onnxruntime at n, m in 0..3, every
    axis -2..1); with no axis of size 1 (``x[2, 3]``) the model is refused."""
    for shape in (["n", "m"], ["n", 3]):
        model = squeeze(shape)
        contract = ko.contract(model)
        for n, m in itertools.product(range(4), repeat=2):
            m = m if shape[1] == "m" else 3
            x = np.zeros((n, m), np.float32)
            runs = any(not isinstance(ortrun.run(model, {"x": x, "a": np.array([k])}),
                                      ortrun.Refusal) for k in range(-2, 2))
            sizes = {"n": n, "m": m} if shape[1] == "m" else {"n": n}
            assert contract.holds(**sizes).value is runs, (shape, n, m)
    with pytest.raises(kt.TypeInferenceError):
        ko.from_onnx(squeeze([2, 3]))
    assert all(isinstance(ortrun.run(squeeze([2, 3]), {"x": np.zeros((2, 3), np.float32),
                                                      "a": np.array([k])}), ortrun.Refusal)
               for k in range(-2, 2))


def test_a_squeeze_of_an_axis_the_data_pick_past_six_axes_is_left_untyped():
    """Past six axes the condition above (of degree the rank) is not stated: the node is
    left untyped, so the contract is approximate and ``holds`` undecided where it said
    every size valid (exact), though onnxruntime fails at every axis where none is 1
    (``x[2, 2, 2, 2, 2, 2, 2]``)."""
    names = [f"d{k}" for k in range(7)]
    model = squeeze(names)
    contract = ko.contract(model)
    assert "(approximate)" in str(contract).splitlines()[0]
    assert any("stated for at most 6" in note for note in contract.notes)
    x = np.zeros((2,) * 7, np.float32)
    assert all(isinstance(ortrun.run(model, {"x": x, "a": np.array([k])}), ortrun.Refusal)
               for k in range(-7, 7))
    assert contract.holds(**dict.fromkeys(names, 2)).value is None


def test_an_input_of_unknown_rank_given_no_dims_is_a_scalar():
    """``inputs={"x": ()}`` gives an input of unknown rank rank 0 (a shape of no dims):
    it was left with no shape, and refused as of unknown rank, naming the way just
    taken; onnxruntime runs the Relu of a scalar."""
    model = rankless_relu()
    assert "every size is valid" in str(ko.contract(model, inputs={"x": ()}))
    inputs, (y,) = ko.from_onnx(with_input_dims(model, {"x": ()}))
    x = np.array(-1.0, np.float32)
    assert ortrun.run(model, {"x": x}) == [kt.function(inputs, y)(x).shape] == [()]
    assert str(y.type) == "float32[]"


def _after_conv_pool(tail: list, inits: list, name: str) -> ModelProto:
    """``tail`` (nodes reading ``p``) after a strided 3x3 conv and a 2x2 pool of
    ``x: float[N, 3, H, W]``."""
    w = _init("w", np.ones((3, 3, 3, 3), np.float32))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], strides=[2, 2], name="conv"),
             helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2],
                              name="pool"), *tail]
    x = helper.make_tensor_value_info("x", F, ["N", 3, "H", "W"])
    return _model(nodes, [x], [w, *inits], name)


def conv_pool_flatten() -> ModelProto:
    """A strided conv, a pool, then Flatten: the Flatten's size is a product of the two
    windows' output sizes, ``3*((H + 3)//4 - 1)*((W + 3)//4 - 1)``."""
    return _after_conv_pool([helper.make_node("Flatten", ["p"], ["out"], name="flat")], [],
                            "conv_pool_flatten")


def test_a_product_of_window_sizes_is_decided_by_its_factors():
    """Flatten's condition on the product of two windows' sizes holds wherever the windows
    fit (each factor is then at least 1): the contract is exact (it was approximate, with
    the product a condition no box states), says only the windows' bounds, and holds where
    onnxruntime runs the model through windows that follow ONNX's formula, at every H, W
    in 0..11."""
    model = conv_pool_flatten()
    contract = ko.contract(model)
    assert contract.exact
    # the product's bound is implied by the windows' two, so it is no atom of its own
    assert [sorted(map(str, a.clause.symbols())) for a in contract.atoms] == [["H"], ["W"]]
    assert str(contract.sets()["H"]) == "SizeSet(x >= 5)"
    watched = ortwindows.Watched(model)
    for h, w in itertools.product(range(12), repeat=2):
        claim = bool(contract.holds(N=1, H=h, W=w).value)
        run = ortwindows.judge(watched, {"x": np.zeros((1, 3, h, w), np.float32)})
        count("product of window sizes: sizes judged by onnxruntime")
        ran = isinstance(run, list) and all(0 not in shape for shape in run)
        assert claim == ran, (h, w, run)


def test_a_flatten_after_windows_prints_one_form_of_the_size_onnxruntime_gives():
    """from_onnx types the Flatten ``3*((H+3)//4)*((W+3)//4)-3*((H+3)//4)-3*((W+3)//4)+3``,
    the product ``3*((H+3)//4 - 1)*((W+3)//4 - 1)`` multiplied out (the canonical form
    of a size is expanded; the factored one is shorter): the text reads back as the same
    size, the factors multiply to it, and at every H, W in 0..11 where onnxruntime runs
    the model (N = 2) it is the size of its output."""
    model = conv_pool_flatten()
    _, (out,) = ko.from_onnx(model)
    size = out.type.shape[1]
    assert kt.TensorType.parse(str(out.type)) == out.type
    k, fs, r = factors(size)
    assert (k, sorted(map(str, fs)), r) == (3, ["(H + 3)//4 - 1", "(W + 3)//4 - 1"], 0)
    assert k * fs[0] * fs[1] + r == size
    watched = ortwindows.Watched(model)
    ran_at = 0
    for h, w in itertools.product(range(12), repeat=2):
        run = ortwindows.judge(watched, {"x": np.zeros((2, 3, h, w), np.float32)})
        if isinstance(run, list) and all(0 not in shape for shape in run):
            ran_at += 1
            assert run[0] == (2, substitute(size, {"H": h, "W": w})), (h, w, run)
    assert ran_at == 49  # H, W in 5..11


def conv_pool_view() -> ModelProto:
    """torch's ``x.view(x.size(0), -1)`` after a conv and a pool, as exporters write it:
    the flattened size read from the shape (``ReduceProd`` of its tail), so Reshape's
    entry is a size the build cannot see is never negative (an overload's choice)."""
    tail = [helper.make_node("Shape", ["p"], ["s"], name="shape"),
            helper.make_node("Slice", ["s", "i0", "i1"], ["n"], name="batch"),
            helper.make_node("Slice", ["s", "i1", "i4"], ["tail"], name="tail"),
            helper.make_node("ReduceProd", ["tail"], ["flat"], keepdims=1, name="prod"),
            helper.make_node("Concat", ["n", "flat"], ["target"], axis=0, name="target"),
            helper.make_node("Reshape", ["p", "target"], ["out"], name="view")]
    return _after_conv_pool(tail, [_init("i0", [0]), _init("i1", [1]), _init("i4", [4])],
                            "conv_pool_view")


def test_a_view_s_equality_the_windows_imply_is_no_atom_of_its_own():
    """The view's size check, ``N*(min(1, P) - 1) == 0`` with P the windows' product
    ``3*((H + 3)//4 - 1)*((W + 3)//4 - 1)``, holds wherever the windows fit (P >= 3
    there): the contract says only the windows' bounds (it kept the equality, which the
    prover leaves open: its factors' bounds decide it, the min's through its argument's
    factors), and holds exactly where onnxruntime runs the model, at every H, W in 0..11
    and N in 0..2."""
    model = conv_pool_view()
    contract = ko.contract(model)
    assert [sorted(map(str, a.clause.symbols())) for a in contract.atoms] == [["H"], ["W"]]
    watched = ortwindows.Watched(model)
    for n, h, w in itertools.product(range(3), range(12), range(12)):
        claim = bool(contract.holds(N=n, H=h, W=w).value)
        run = ortwindows.judge(watched, {"x": np.zeros((n, 3, h, w), np.float32)})
        count("view after windows: sizes judged by onnxruntime")
        ran = isinstance(run, list) and all(0 not in shape[1:] for shape in run)
        assert claim == ran, (n, h, w, run)


def test_a_view_after_windows_is_typed_as_the_flatten():
    """The view's flattened size kept ``min(1, P)`` (``...-3*min(1,P)+6``), which the
    windows' conditions make 1 (P >= 3 where they fit): Facts decide ``P >= 1`` by its
    factors' bounds (the prover leaves a product open), so it is the Flatten's size, and
    onnxruntime's at every H, W in 0..11 where it runs (N = 2)."""
    _, (view,) = ko.from_onnx(conv_pool_view())
    _, (flat,) = ko.from_onnx(conv_pool_flatten())
    assert view.type == flat.type and "min" not in str(view.type)
    watched = ortwindows.Watched(conv_pool_view())
    for h, w in itertools.product(range(12), repeat=2):
        run = ortwindows.judge(watched, {"x": np.zeros((2, 3, h, w), np.float32)})
        if isinstance(run, list) and all(0 not in shape for shape in run):
            assert run[0] == tuple(substitute(d, {"N": 2, "H": h, "W": w})
                                   for d in view.type.shape), (h, w, run)


def test_a_choice_every_valid_size_meets_is_not_called_approximate():
    """The Reshape's choice (its entry ``>= 0``) holds wherever the windows fit, so no
    sizes are left uncovered: the words say nothing is approximate (they said the sizes
    where the choice fails were not covered, under an 'exact' heading), and the contract
    holds where onnxruntime runs it, at every H, W in 0..11 (N = 2)."""
    model = conv_pool_view()
    contract = ko.contract(model)
    assert contract.exact and all(c.covered for c in contract.cells)
    assert "approximate" not in str(contract) and "not covered" not in str(contract)
    watched = ortwindows.Watched(model)
    for h, w in itertools.product(range(12), repeat=2):
        claim = bool(contract.holds(N=2, H=h, W=w).value)
        run = ortwindows.judge(watched, {"x": np.zeros((2, 3, h, w), np.float32)})
        count("view after windows: sizes judged by onnxruntime")
        ran = isinstance(run, list) and all(0 not in shape for shape in run)
        assert claim == ran, (h, w, run)

"""Sizes the data decides, named after their nodes (kantensor.onnx.datasizes): NonZero's,
Compress's and Unique's counts, TopK's ``min(K, count)``, through the ops exporters put
after them, typed exactly in terms of those names. Judged by onnxruntime at several input
sizes and, at one of them, at several data masks (tests/dataprobe.py): every value whose
size the data decides is data-dependent (never guessed), every other one exact, and no
name stands for two sizes in one run (the judge checks the names inside expressions too:
``min(4, NonZero_nonzero3)``). The graph from_onnx builds runs with ``check=True``, which
binds each name per call and checks every value against its type."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import dataprobe
import exported_models as em
import kantensor as kt
import ortrun
import shapejudge as sj
from kantensor.onnx import from_onnx, infer_shapes, size_conditions, size_notes
from kantensor.onnx.importer import read_types

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs, inits=()):
    model = helper.make_model(helper.make_graph(nodes, "counts", inputs, outputs, list(inits)),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # (what onnxruntime reads)
    return model


def _types(model) -> dict[str, str]:
    reader = read_types(model)
    return {n: str(t) for n, t in reader.types.items()}


def _judged(model, sizes):
    decided, probes = dataprobe.data_dependent(model, sizes[0])
    runs = sj.runtime_shapes(model, sizes)
    return decided, sj.judge(infer_shapes(model), runs, sizes, sj.kantensor_size, decided,
                             (probes, sizes[0]))


def test_a_count_flows_through_what_exporters_build_on_it():
    model, _ = em.counted_chain()
    types = _types(model)
    by_op: dict[str, list[str]] = {}
    for node in model.graph.node:
        by_op.setdefault(node.op_type, []).append(types[node.output[0]])
    count = "NonZero_nonzero3"
    assert by_op["NonZero"] == [f"int64[1,{count}]"]
    assert by_op["Transpose"] == [f"int64[{count},1]"]
    assert by_op["GatherND"] == [f"float32[{count}]", f"float32[{count},4]"]
    assert by_op["TopK"] == [f"float32[min(4,{count})]"]
    assert by_op["Gather"] == [f"float32[min(4,{count}),4]"]
    assert by_op["ConstantOfShape"] == [f"float32[min(4,{count}),4]"]
    assert by_op["If"] == [f"float32[min(4,{count}),4]"]
    assert by_op["Compress"] == ["float32[Compress_compress27]"]
    assert by_op["Concat"][1:] == [f"float32[2*min(4,{count}),4]",
                                   f"float32[Compress_compress27+{count}]"]
    unique = [types[o] for o in model.graph.node[-1].output]
    assert unique == ["float32[Unique_unique29]", "int64[Unique_unique29]",
                      f"int64[{count}]", "int64[Unique_unique29]"]


def test_every_value_after_a_count_is_data_dependent_never_guessed_nor_wrong():
    """onnxruntime at three input sizes and four masks of what the counts count: the
    values the data decides are typed by their names (judged data-dependent: never
    guessed, and no name stands for two sizes in a run), every other value exactly."""
    model, sizes = em.counted_chain()
    decided, judgement = _judged(model, sizes)
    assert len(decided) == 16
    assert judgement.counts == {sj.DATA: len(decided),
                                sj.EXACT: len(sj.values_of(model)) - len(decided)}


def test_two_different_counts_never_share_a_name():
    """Two NonZeros of different masks are two sizes: two names, and their sum where
    the values meet; two NonZeros of one mask count the same elements: one name."""
    nodes = [helper.make_node("Greater", ["x", "zero"], ["up"]),
             helper.make_node("Less", ["x", "zero"], ["down"]),
             helper.make_node("NonZero", ["up"], ["iu"], name="/NonZero"),
             helper.make_node("NonZero", ["down"], ["id"], name="/NonZero_1"),
             helper.make_node("NonZero", ["up"], ["iu2"], name="/again/NonZero"),
             helper.make_node("Concat", ["iu", "id"], ["both"], axis=1),
             helper.make_node("Concat", ["iu", "iu2"], ["same"], axis=0)]
    model = _model(nodes, [helper.make_tensor_value_info("x", F, ["n"])],
                   [helper.make_tensor_value_info(o, I64, None) for o in ("both", "same")],
                   [helper.make_tensor("zero", F, [], [0.0])])
    types = _types(model)
    assert types["iu"] == types["iu2"] == "int64[1,NonZero]"
    assert types["id"] == "int64[1,NonZero_1]"
    assert types["both"] == "int64[1,NonZero+NonZero_1]"
    assert types["same"] == "int64[2,NonZero]"
    assert read_types(model).conditions == []  # concatenated along the counts: no need
    sizes = [{"n": 40}, {"n": 6}, {"n": 1}]  # (the probe masks at the first)
    decided, judgement = _judged(model, sizes)
    assert set(decided) == {"iu", "id", "iu2", "both", "same"}
    assert judgement.counts == {sj.DATA: 5, sj.EXACT: 2}  # (the masks: exact)


def test_each_fact_about_a_count_is_listed_once():
    """Two NonZeros of one mask (as TorchScript exports SSDlite's post-processing: each
    count read twice) count one size; each states its bound, and size_conditions lists
    it once, naming the first; a count read by two consumers is one fact too. A count of
    another mask is another fact, though spelled alike but for its suffix."""
    nodes = [helper.make_node("Greater", ["x", "zero"], ["up"]),
             helper.make_node("Less", ["x", "zero"], ["down"]),
             helper.make_node("NonZero", ["up"], ["iu"], name="/NonZero"),
             helper.make_node("NonZero", ["up"], ["iu2"], name="/NonZero_1"),
             helper.make_node("NonZero", ["down"], ["id"], name="/NonZero_2"),
             helper.make_node("Transpose", ["iu"], ["a"]),
             helper.make_node("Cast", ["iu"], ["b"], to=TensorProto.FLOAT),
             helper.make_node("Concat", ["iu2", "id"], ["c"], axis=1)]
    model = _model(nodes, [helper.make_tensor_value_info("x", F, ["n"])],
                   [helper.make_tensor_value_info(o, I64 if o != "b" else F, None)
                    for o in ("a", "b", "c")],
                   [helper.make_tensor("zero", F, [], [0.0])])
    _, outs = from_onnx(model)
    assert [(str(c), c.node) for c in size_conditions(outs)] == [
        ("NonZero <= n", "/NonZero"), ("NonZero_2 <= n", "/NonZero_2")]


def _counting_if(name, op, src, out):
    """An If whose branches both count the nonzeros of ``y = op(src)``: ``y`` is a name of
    each branch's own."""
    def branch(side):
        nodes = [helper.make_node(op, [src], ["y"]),
                 helper.make_node("NonZero", ["y"], [f"{side}_{out}"])]
        return helper.make_graph(nodes, f"{name}_{side}", [], [
            helper.make_tensor_value_info(f"{side}_{out}", I64, [1, None])])
    return helper.make_node("If", ["c"], [out], name=name, then_branch=branch("t"),
                            else_branch=branch("e"))


def test_one_input_name_in_two_subgraphs_is_two_values():
    """Two Ifs whose branches count ``y``, a name each branch defines (Relu(a) in one,
    Neg(b) in the other): two counts, so concatenating them needs them equal. They
    shared one name (the key held the input's name only): typed [2, NonZero_t_o1] with
    no condition, which onnxruntime refuses."""
    nodes = [_counting_if("if1", "Relu", "a", "o1"), _counting_if("if2", "Neg", "b", "o2"),
             helper.make_node("Concat", ["o1", "o2"], ["z"], axis=0, name="cat")]
    model = _model(nodes, [helper.make_tensor_value_info("a", F, [4]),
                           helper.make_tensor_value_info("b", F, [4]),
                           helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                   [helper.make_tensor_value_info("z", I64, [2, None])])
    types = _types(model)
    assert types["o1"] != types["o2"], types
    feeds = {"a": np.array([1, 2, 3, 4], np.float32), "b": np.array([1, -2, 0, 0], np.float32),
             "c": np.array(True)}
    assert isinstance(ortrun.run(model, feeds), ortrun.Refusal)
    assert [str(c) for c in read_types(model).conditions] == ["if1 == if2"]


def test_a_name_that_stood_for_two_counts_would_be_judged_wrong():
    """The judge's check of the names: where kantensor's two counts were written as one
    name, the runs that mask them apart make every value typed with it wrong."""
    model, sizes = em.counted_chain()
    decided, probes = dataprobe.data_dependent(model, sizes[0])
    runs = sj.runtime_shapes(model, sizes)
    typed = infer_shapes(model)
    for info in typed.graph.value_info:
        for d in info.type.tensor_type.shape.dim:
            if d.dim_param == "Compress_compress27":
                d.dim_param = "NonZero_nonzero3"  # the failing scores named as the passing
    judgement = sj.judge(typed, runs, sizes, sj.kantensor_size, decided, (probes, sizes[0]))
    assert judgement.counts[sj.WRONG] >= 10


def test_the_graph_from_onnx_has_the_types_infer_shapes_writes():
    model, _ = em.counted_chain()
    _, outputs = from_onnx(model)
    types = _types(model)
    assert {v.name: str(v.type) for v in outputs} == {v.name: types[v.name] for v in outputs}


@pytest.mark.parametrize("passing", [0, 1, 3, 9])
def test_the_graph_runs_with_each_name_one_size_per_call(passing):
    """kantensor runs the model from_onnx builds with check=True (every value against its
    type, each name bound once per call) at scores of which ``passing`` are positive; its
    shapes are onnxruntime's."""
    model, _ = em.counted_chain()
    inputs, outputs = from_onnx(model)
    f = kt.function(inputs, outputs, check=True)
    rng = np.random.default_rng(passing)
    scores = -rng.random(9).astype(np.float32) - 0.5
    scores[rng.choice(9, passing, replace=False)] = rng.random(passing) + 0.5
    feeds = {"scores": scores, "boxes": rng.random((9, 4)).astype(np.float32)}
    got = f(**feeds)
    want = ortrun.run(sj.with_every_value(model, [o.name for o in model.graph.output]),
                      feeds)
    assert [np.shape(g) for g in got] == want
    np.testing.assert_allclose(got[0], np.sort(scores[scores > 0])[::-1][:4])


def test_why_a_size_is_what_it_is_names_the_node_that_decides_it():
    model, _ = em.counted_chain()
    _, outputs = from_onnx(model)
    notes = [str(n) for n in size_notes(outputs) if "decided by the data" in n.reason]
    assert "axis 1 of nonzero3 (NonZero -> nonzero3) is not known: decided by the data at " \
        "NonZero node 'NonZero -> nonzero3' (how many elements of its input are not zero): " \
        "the size NonZero_nonzero3" in notes
    assert len(notes) == 5  # NonZero's axis, Compress's, Unique's three outputs' axes
    sizes = read_types(model).counts.sizes
    assert str(sizes["Compress_compress27"]) == (
        "Compress_compress27 is decided when the model runs, at Compress node 'Compress -> "
        "compress27': how many elements of its condition are true")


def test_a_count_in_a_loop_body_stays_unknown():
    """A loop's body counts again at every iteration: one name cannot stand for them."""
    body = helper.make_graph(
        [helper.make_node("Greater", ["x", "zero"], ["up"]),
         helper.make_node("NonZero", ["up"], ["idx"]),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [helper.make_tensor_value_info("i", I64, []),
                 helper.make_tensor_value_info("c_in", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("idx", I64, None)])
    model = _model([helper.make_node("Loop", ["m", ""], ["scan"], body=body)],
                   [helper.make_tensor_value_info("x", F, ["n"]),
                    helper.make_tensor_value_info("m", I64, [])],
                   [helper.make_tensor_value_info("scan", I64, None)],
                   [helper.make_tensor("zero", F, [], [0.0])])
    assert _types(model)["scan"] == "int64[Loop_scan_iters,min(1,Loop_scan_iters),?]"


def _picked_model():
    """An If whose condition is an input: its then branch gives the passing scores (a
    NonZero of its own, in the branch), its else branch the failing ones (a Compress of
    the graph around it); the sizes differ, and the condition's value picks one."""
    then = helper.make_graph(
        [helper.make_node("NonZero", ["up"], ["where"], name="/then/NonZero"),
         helper.make_node("Transpose", ["where"], ["idx"], perm=[1, 0]),
         helper.make_node("GatherND", ["x", "idx"], ["got"])], "then", [],
        [helper.make_tensor_value_info("got", F, None)])
    other = helper.make_graph([helper.make_node("Identity", ["failing"], ["other"])],
                              "else", [], [helper.make_tensor_value_info("other", F, None)])
    nodes = [helper.make_node("Greater", ["x", "zero"], ["up"]),
             helper.make_node("Less", ["x", "zero"], ["down"]),
             helper.make_node("Compress", ["x", "down"], ["failing"], axis=0,
                              name="/Compress"),
             helper.make_node("If", ["pick"], ["picked"], then_branch=then,
                              else_branch=other, name="/If"),
             helper.make_node("Concat", ["picked", "failing"], ["both"], axis=0)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["n"]),
                          helper.make_tensor_value_info("pick", TensorProto.BOOL, [])],
                  [helper.make_tensor_value_info("both", F, None)],
                  [helper.make_tensor("zero", F, [], [0.0])])


def test_an_if_whose_branches_give_different_counts_names_what_its_condition_picks():
    model = _picked_model()
    types = _types(model)
    assert types["failing"] == "float32[Compress]"
    assert types["picked"] == "float32[If]"
    assert types["both"] == "float32[Compress+If]"
    sizes = read_types(model).counts.sizes
    assert str(sizes["If"]) == ("If is decided when the model runs, at If node '/If': the "
                                "branch its condition picks: then_NonZero if pick, "
                                "Compress if not pick")
    inputs, outputs = from_onnx(model)
    f = kt.function(inputs, outputs, check=True)
    x = np.array([1.0, -2.0, 3.0, -4.0, -5.0], np.float32)
    for pick, want in ((True, [1, 3, -2, -4, -5]), (False, [-2, -4, -5, -2, -4, -5])):
        np.testing.assert_array_equal(f(x, np.array(pick))[0], np.array(want, np.float32))

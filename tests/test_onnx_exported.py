"""Models as PyTorch's exporters write them are typed exactly (issue #32): every value's
symbolic type, evaluated at the sizes of an onnxruntime run, is the shape onnxruntime
computed, at three assignments of the named sizes (tests/shapejudge.py). The models are
built here with onnx.helper (tests/exported_models.py) and the small CNNs of the onnx
wheel are given symbolic batch, height and width."""

from __future__ import annotations

from pathlib import Path

import onnx
import onnx.version_converter
import pytest

import dataprobe
import exported_models as em
import shapejudge as sj
from kantensor.onnx import infer_shapes
from kantensor.onnx.importer import read_types


def judged(model: onnx.ModelProto, sizes: list[dict[str, int]]) -> sj.Judgement:
    return sj.judge(infer_shapes(model), sj.runtime_shapes(model, sizes), sizes)


@pytest.mark.parametrize("name", sorted(em.PATTERNS))
def test_every_value_of_an_exporter_pattern_is_exact(name):
    model, sizes = em.PATTERNS[name]()
    judgement = judged(model, sizes)
    assert judgement.of(sj.WRONG) == {}
    assert judgement.of(sj.UNKNOWN) == {}
    assert judgement.counts[sj.EXACT] == len(sj.values_of(model))


def types_of(model: onnx.ModelProto) -> dict[str, str]:
    reader = read_types(model)
    return {n: str(t) for n, t in reader.types.items()}


def test_positions_of_a_range_over_a_size_are_that_size():
    """``Range(0, seq, 1)`` is ``seq`` long (sizes are >= 0: ``max(0, seq)`` is
    ``seq``), so the sum with a ``(seq,)`` vector and the positions' embedding keep it."""
    model, _ = em.position_ids()
    types = types_of(model)
    ranges = [types[n.output[0]] for n in model.graph.node if n.op_type == "Range"]
    assert ranges == ["int64[seq]", "int64[seq]"]
    outputs = [types[o.name] for o in model.graph.output]
    assert outputs == ["float32[batch,seq,16]", "float32[seq]"]


def test_a_causal_mask_is_batch_by_seq_by_seq():
    model, _ = em.causal_mask()
    types = types_of(model)
    by_op = {n.op_type: types[n.output[0]] for n in model.graph.node}
    assert by_op["LessOrEqual"] == "bool[seq,seq]"
    assert by_op["Expand"] == "float32[batch,1,seq,seq]"
    assert by_op["Trilu"] == "float32[seq,seq]"
    assert read_types(model).conditions == []


def test_a_position_table_slice_is_the_sequence_under_its_condition():
    """``buffer[:, :seq]`` of a 64-column buffer is ``min(64, seq)`` columns; added to
    the word embeddings it needs ``seq <= 64``, under which the sum is ``seq`` long."""
    model, _ = em.position_table()
    reader = read_types(model)
    slices = [str(reader.types[n.output[0]]) for n in model.graph.node
              if n.op_type == "Slice"]
    assert slices == ["int64[1,min(64,seq)]", "int64[1,min(64,seq)]", "float32[seq,16]"]
    # the token types' buffer expanded to (batch, seq): the broadcast of min(64, seq)
    # with seq is seq where seq <= 64, the one condition of the model
    (expand,) = [n for n in model.graph.node if n.op_type == "Expand"]
    assert str(reader.types[expand.output[0]]) == "int64[batch,seq]"
    assert [str(c) for c in reader.conditions] == ["seq <= 64"]
    assert reader.conditions[0].source.node == f"Expand -> {expand.output[0]}"
    assert str(reader.types[model.graph.output[0].name]) == "float32[batch,seq,16]"


def test_strided_convs_and_ceil_mode_pools_have_one_floor_each():
    """wav2vec2's seven strided convs end at ``(samples + 240)//320 - 1`` frames, no
    ``max(0, ...)`` left; each ceil-mode 3x3/2 pool of SqueezeNet's stack is one floor of
    the input size, whatever the depth."""
    model, _ = em.feature_extractor()
    types = types_of(model)
    assert types[model.graph.output[0].name] == \
        "float32[batch,(samples+240)//320-1,24]"
    model, sizes = em.pool_stack(pools=6)  # a 7x7/2 conv, then x//2 per pool
    pools = [types_of(model)[n.output[0]] for n in model.graph.node
             if n.op_type == "MaxPool"]
    assert pools[-1] == "float32[batch,8,(height+123)//128-1,(width+123)//128-1]"
    assert all(len(p) < 60 for p in pools)
    assert judged(model, sizes).counts[sj.EXACT] == len(sj.values_of(model))


LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"

#: model -> three (batch, height, width) onnxruntime runs it at: a model whose Reshape
#: or fully connected layer fixes the batch or the feature map runs only at those sizes
LIGHT_SIZES = {
    "bvlc_alexnet": [(1, 224, 224), (1, 231, 225), (1, 227, 229)],
    "densenet121": [(1, 224, 224), (2, 193, 210), (3, 97, 131)],
    "inception_v1": [(1, 224, 224), (1, 231, 225), (1, 227, 229)],
    "inception_v2": [(1, 224, 224), (1, 227, 229), (1, 229, 224)],
    "resnet50": [(1, 224, 224), (1, 200, 210), (1, 193, 217)],
    "shufflenet": [(1, 224, 224)] * 3,
    "squeezenet": [(1, 224, 224), (2, 193, 210), (3, 97, 131)],
    "vgg19": [(1, 224, 224), (1, 231, 225), (1, 227, 229)],
    "zfnet512": [(1, 224, 224), (1, 231, 225), (1, 227, 229)],
}


def light(name: str) -> onnx.ModelProto:
    """The light model, converted to opset 17 (kantensor types opsets 10 and later of
    the pools, 15 and later of BatchNormalization), its image input's batch, height and
    width named."""
    model = onnx.version_converter.convert_version(
        onnx.load(str(LIGHT / f"light_{name}.onnx")), 17)
    initialized = {t.name for t in model.graph.initializer}
    (x,) = [i for i in model.graph.input if i.name not in initialized]
    dims = x.type.tensor_type.shape.dim
    for i, size in ((0, "batch"), (2, "height"), (3, "width")):
        dims[i].Clear()
        dims[i].dim_param = size
    return model


@pytest.mark.parametrize("name", sorted(LIGHT_SIZES))
def test_the_light_cnns_of_the_onnx_wheel_are_exact_at_every_value(name):
    model = light(name)
    sizes = [dict(zip(("batch", "height", "width"), s, strict=True))
             for s in LIGHT_SIZES[name]]
    judgement = judged(model, sizes)
    assert judgement.of(sj.WRONG) == {}
    assert judgement.of(sj.UNKNOWN) == {}
    assert judgement.counts[sj.EXACT] == len(sj.values_of(model))


def test_the_judge_tells_wrong_from_unknown():
    """The oracle itself: a wrong size, a wrong rank, a made-up name and no shape."""
    sizes = [{"n": 2}, {"n": 5}]
    shapes = [(2, 3), (5, 3)]
    assert sj.verdict(["n", 3], shapes, sizes, sj.kantensor_size) == sj.EXACT
    assert sj.verdict(["2*n-n", 3], shapes, sizes, sj.kantensor_size) == sj.EXACT
    assert sj.verdict(["max(n,2)", 3], shapes, sizes, sj.kantensor_size) == sj.EXACT
    assert sj.verdict(["max(n,3)", 3], shapes, sizes, sj.kantensor_size) == sj.WRONG
    assert sj.verdict([2, 3], shapes, sizes, sj.kantensor_size) == sj.WRONG
    assert sj.verdict(["n"], shapes, sizes, sj.kantensor_size) == sj.WRONG
    assert sj.verdict(["unk__0", 3], shapes, sizes, sj.kantensor_size) == sj.UNKNOWN
    assert sj.verdict([None, 3], shapes, sizes, sj.kantensor_size) == sj.UNKNOWN
    assert sj.verdict(None, shapes, sizes, sj.kantensor_size) == sj.UNKNOWN


def test_the_judge_counts_a_size_the_data_decides_apart():
    """A typed size of an axis the data decides: left open is *data-dependent* (when the
    other axes are exact), a number the runs happened to give is *guessed*."""
    sizes = [{"n": 2}, {"n": 5}]
    shapes = [(4, 3), (4, 3)]
    assert sj.verdict([None, 3], shapes, sizes, sj.kantensor_size, {0}) == sj.DATA
    assert sj.verdict(["u_0", 3], shapes, sizes, sj.kantensor_size, {0}) == sj.DATA
    assert sj.verdict([4, 3], shapes, sizes, sj.kantensor_size, {0}) == sj.GUESSED
    assert sj.verdict([None, None], shapes, sizes, sj.kantensor_size, {0}) == sj.UNKNOWN
    assert sj.verdict([None, 2], shapes, sizes, sj.kantensor_size, {0}) == sj.WRONG
    assert sj.verdict([5, 3], shapes, sizes, sj.kantensor_size, {0}) == sj.WRONG
    assert sj.verdict([None, 3], shapes, sizes, sj.kantensor_size) == sj.UNKNOWN


def _retyped(model: onnx.ModelProto, dims: dict[str, list]) -> onnx.ModelProto:
    """``model`` with the values of ``dims`` typed as given (a tool's output made up)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    for info in [*out.graph.value_info, *out.graph.output]:
        if info.name in dims:
            shape = info.type.tensor_type.shape
            del shape.dim[:]
            for d in dims[info.name]:
                dim = shape.dim.add()
                if isinstance(d, int):
                    dim.dim_value = d
                elif d is not None:
                    dim.dim_param = d
    return out


def test_the_data_dependent_counts_of_a_detector_are_found_and_left_open():
    """SSDlite's post-processing (NonZero of the passing scores, TopK of the best
    ``min(5, kept)``): the probe, masking what NonZero counts at fixed input sizes,
    finds exactly the values after the counts, on the axes they count (onnxruntime's
    shapes change); kantensor types every other value exactly and those by the names of
    the counts (kantensor.onnx.datasizes), which the judge checks stand for one size
    per run."""
    model, sizes = em.detections()
    decided, probes = dataprobe.data_dependent(model, sizes[0])
    ops = {o: n.op_type for n in model.graph.node for o in n.output}
    assert sorted(ops[v] for v in decided) == ["Gather", "GatherND", "GatherND", "NonZero",
                                               "NonZero", "TopK", "TopK", "Transpose",
                                               "Transpose"]
    assert all(axes == ({1} if ops[v] == "NonZero" else {0}) for v, axes in decided.items())
    assert len(probes) == 1 + len(dataprobe.KEEP)
    assert len({run[next(iter(decided))] for run in probes}) > 1
    runs = sj.runtime_shapes(model, sizes)
    typed = infer_shapes(model)
    judgement = sj.judge(typed, runs, sizes, sj.kantensor_size, decided, (probes, sizes[0]))
    topk_out, chosen = (o.name for o in model.graph.output)
    assert judgement.counts == {sj.DATA: len(decided),
                                sj.EXACT: len(sj.values_of(model)) - len(decided)}
    assert judgement.named == len(decided)  # each count by a name (not ?): NonZero's
    dims = sj.typed_shapes(typed)  # (one for both of one mask) and TopK's min(5, it)
    assert dims[topk_out] == ["min(5, NonZero_nonzero3)"]
    assert dims[chosen] == ["min(5, NonZero_nonzero3)", 4]
    # without the probe the same values are unknown: the judge only moves a value
    # from unknown to data-dependent with onnxruntime's evidence
    assert set(sj.judge(typed, runs, sizes).of(sj.UNKNOWN)) == set(decided)
    # a tool that writes the count the runs happened to give guesses; one that names
    # two counts (NonZero's and TopK's, which differ where more than 5 pass) by one name
    # of its own is wrong at every value typed with it
    (nonzero, *_) = [v for v in decided if ops[v] == "NonZero"]
    (topk, *_) = [v for v in decided if ops[v] == "TopK"]
    n = runs[0][nonzero][1]
    guess = sj.judge(_retyped(typed, {nonzero: [1, n]}), runs[:1], sizes[:1],
                     sj.kantensor_size, decided, (probes, sizes[0]))
    assert guess.verdicts[nonzero] == sj.GUESSED
    merged = _retyped(typed, {nonzero: [1, "u"], topk: ["u"]})
    clash = sj.judge(merged, runs, sizes, sj.kantensor_size, decided, (probes, sizes[0]))
    assert clash.verdicts[nonzero] == clash.verdicts[topk] == sj.WRONG
    named = _retyped(typed, {nonzero: [1, "u"]})
    fine = sj.judge(named, runs, sizes, sj.kantensor_size, decided, (probes, sizes[0]))
    assert fine.verdicts[nonzero] == sj.DATA

"""Every builder's signature is an object whose text parses back to it (issue 36).

Each catalogue entry with a builder (NumPy's and ONNX's) runs its examples while the
renderer of templates is watched: every signature rendered is an equal object after
``str`` and parsing. Builders fill placeholders with objects only: the text protocol
(text filled in and parsed at every new rank) is gone, and a builder that returns text
is refused with the placeholder it filled wrongly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kantensor as kt
import kantensor.ops.templateop as op_module
from kantensor import Signature, TensorType
from kantensor.onnx.registry import registry
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily


def _path(fn: object) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _flat(value: list) -> list:
    return [t for v in value for t in (_flat(v) if isinstance(v, list) else [v])]


def _render_examples(op: object, examples: tuple) -> None:
    """Render ``op``'s signature for each example's inputs and parameters (through
    ``signature_for``, which no build memo answers)."""
    for example in examples:
        if "in" not in example:
            continue
        params = _as_given(op, {k: v for k, v in example.items()
                                if k not in ("in", "out", "error")})
        types = tuple(TensorType.parse(t) for t in _flat(example["in"]))
        try:
            bound = op.bind(**params) if isinstance(op, OpFamily) else op
            if hasattr(bound, "signature_for"):
                bound.signature_for(types)
        except (TypeError, ValueError, IndexError):
            continue  # an example of an error


@pytest.fixture(scope="module")
def rendered() -> Iterator[dict]:
    """Every example of every entry run with the renderer watched: builder path ->
    [signature]."""
    seen: dict[str, list] = {}
    render = op_module._rendered

    def watched(op, types):
        sig, resolved = render(op, types)
        if op.builder is not None:
            seen.setdefault(_path(op.builder), []).append(sig)
        return sig, resolved

    op_module._rendered = watched
    op_module._render.cache_clear()
    op_module._render_ranks.cache_clear()
    try:
        for entry in load_all():
            _render_examples(kt.ops.CATALOGUE[entry.name], entry.examples)
        for ops in registry().values():
            for o in ops:
                _render_examples(o.op, o.entry.examples)
        yield seen
    finally:
        op_module._rendered = render
        op_module._render.cache_clear()
        op_module._render_ranks.cache_clear()


def test_every_rendered_signature_parses_back_to_an_equal_object(rendered) -> None:
    count = 0
    for path, made in rendered.items():
        for sig in made:
            assert Signature.parse(str(sig)).alternatives == sig.alternatives, (path, str(sig))
            count += 1
    assert len(rendered) >= 130 and count >= 300


def test_the_builders_once_rendering_text_build_objects(rendered) -> None:
    for moved in ("kantensor.onnx.nn.conv.build_pool", "kantensor.onnx.nn.conv.build_global_pool",
                  "kantensor.onnx.nn.unpool.build_conv_transpose",
                  "kantensor.onnx.nn.unpool.build_max_unpool",
                  "kantensor.onnx.nn.normalization.build_layer_norm",
                  "kantensor.onnx.nn.normalization.build_group_norm",
                  "kantensor.onnx.tensor.indexing.build_gather",
                  "kantensor.onnx.tensor.slicing.build_slice",
                  "kantensor.ops.families.indexing.basic_index",
                  "kantensor.ops.families.indexing.take",
                  "kantensor.ops.families.indexing.take_along_axis",
                  "kantensor.ops.families.shape.reshaped",
                  "kantensor.onnx.quantization.build_quantize",
                  "kantensor.onnx.tensor.shape.build_split",
                  "kantensor.ops.families.updates.basic_update",
                  # the last 31 (the text path is gone with them)
                  "kantensor.onnx.image.build_image_decoder",
                  "kantensor.onnx.math.linalg.build_einsum",
                  "kantensor.onnx.math.spectral.build_dft",
                  "kantensor.onnx.math.spectral.build_dft17",
                  "kantensor.onnx.math.spectral.build_mel_weight_matrix",
                  "kantensor.onnx.math.spectral.build_stft",
                  "kantensor.onnx.math.spectral.build_window",
                  "kantensor.onnx.nn.attention.build",
                  "kantensor.onnx.nn.attention.build_linear",
                  "kantensor.onnx.object_detection.build_nms",
                  "kantensor.onnx.object_detection.build_roi_align",
                  "kantensor.onnx.rnn.build_simple_rnn", "kantensor.onnx.rnn.build_gru",
                  "kantensor.onnx.rnn.build_lstm",
                  "kantensor.onnx.tensor.grid.build_affine_grid",
                  "kantensor.onnx.tensor.grid.build_grid_sample",
                  "kantensor.onnx.tensor.resize.build",
                  "kantensor.onnx.tensor.resize.build_upsample",
                  "kantensor.onnx.tensor.padding.build_center_crop_pad",
                  "kantensor.onnx.tensor.padding.build_pad",
                  "kantensor.onnx.text.build_string_normalizer",
                  "kantensor.onnx.text.build_string_split",
                  "kantensor.onnx.traditionalml.build_array_feature_extractor",
                  "kantensor.onnx.traditionalml.build_label_encoder",
                  "kantensor.onnx.traditionalml.build_tree_ensemble",
                  "kantensor.onnx.training.build_adagrad",
                  "kantensor.onnx.training.build_adam",
                  "kantensor.onnx.training.build_momentum",
                  "kantensor.ops.families.linalg.build_einsum",
                  "kantensor.ops.families.shape.padded",
                  "kantensor.ops.families.shape.sections",
                  "kantensor.ops.families.shape.single"):
        assert rendered.get(moved), moved


@pytest.mark.parametrize(("made", "message"), [
    ({"x": "(a,b)", "y": []}, r"\{x\} is an operand: give its dims \(a list\), got '\(a,b\)'"),
    ({"x": ["a"], "y": []}, r"\{x\}: not a dim: 'a'"),
])
def test_a_builder_that_returns_text_is_refused(made, message) -> None:
    op = kt.op("{x}:t->{y}:t", call="x", builder=lambda types, **_: made)(lambda x: x.sum())
    with pytest.raises(TypeError, match=message):
        op(kt.fvector())

"""Every builder's signature is an object whose text parses back to it (issue 36).

Each catalogue entry with a builder (NumPy's and ONNX's) runs its examples while the
renderer of templates is watched: every signature rendered is an equal object after
``str`` and parsing, and the builders that still fill placeholders with text (the old
protocol, which parses the rendered text at every new rank) are the listed ones only:
the list shrinks as builders move to objects, and never grows.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kantensor as kt
import kantensor.ops.op as op_module
from kantensor import Signature, TensorType
from kantensor.onnx.registry import registry
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily

#: Builders that still fill their templates with text (module.function).
OLD_PROTOCOL = frozenset({
})


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
    [(signature, whether it was text)]."""
    seen: dict[str, list] = {}
    render, text_fills = op_module._rendered, op_module._text_fills

    def watched(op, types):
        used = []

        def fills(template, made):
            used.append(text_fills(template, made))
            return used[-1]
        op_module._text_fills = fills
        try:
            sig, resolved = render(op, types)
        finally:
            op_module._text_fills = text_fills
        if op.builder is not None:
            seen.setdefault(_path(op.builder), []).append((sig, any(used)))
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
        for sig, _ in made:
            assert Signature.parse(str(sig)).alternatives == sig.alternatives, (path, str(sig))
            count += 1
    assert len(rendered) >= 130 and count >= 300


def test_only_the_listed_builders_still_render_text(rendered) -> None:
    text = {path for path, made in rendered.items() if any(t for _, t in made)}
    assert text <= OLD_PROTOCOL, sorted(text - OLD_PROTOCOL)
    for moved in ("kantensor.onnx.nn.conv.build_pool", "kantensor.onnx.nn.conv.build_global_pool",
                  "kantensor.onnx.nn.unpool.build_conv_transpose",
                  "kantensor.onnx.nn.unpool.build_max_unpool",
                  "kantensor.onnx.nn.normalization.build_layer_norm",
                  "kantensor.onnx.nn.normalization.build_group_norm",
                  "kantensor.onnx.tensor.indexing.build_gather",
                  "kantensor.onnx.tensor.shape.build_slice",
                  "kantensor.ops.families.indexing.basic_index",
                  "kantensor.ops.families.indexing.take",
                  "kantensor.ops.families.indexing.take_along_axis",
                  "kantensor.ops.families.shape.reshaped",
                  "kantensor.onnx.quantization.build_quantize",
                  "kantensor.onnx.tensor.shape.build_split",
                  "kantensor.ops.families.updates.basic_update"):
        assert moved in rendered and not any(t for _, t in rendered[moved]), moved

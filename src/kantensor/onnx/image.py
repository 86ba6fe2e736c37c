"""ONNX's image family (``onnx/defs/image``): ImageDecoder, typed, not computed
(``signatures/onnx/image.toml``).
"""

from __future__ import annotations

from typing import Any

from ..ops.templates import reads_ranks


@reads_ranks
def build_image_decoder(types: tuple, pixel_format: str = "RGB", **_: Any) -> dict[str, Any]:
    return {"c": 1 if pixel_format == "Grayscale" else 3}

"""Builders of further ONNX ops: quantized products, image and signal ops (see
:mod:`.builders`)."""

from __future__ import annotations

from typing import Any

from ..ops.params import ParamError
from ..ops.sizes import SizeNames
from ..ops.templates import builder, names, operand, reads_ranks, where
from .dtypes import dtype_of
from .nn_builders import pool


def _any(n: int, start: int = 0) -> str:
    return "".join(f",(*z{i})" for i in range(start, start + n))


@builder
def conv_integer(types: tuple, **params: Any) -> dict[str, Any]:
    """ConvInteger: Conv's sizes; the zero points as they come; int32 out."""
    made = pool(types[:2], **params)
    k = types[0].ndim - 2
    return {"x": made["x"], "w": operand(names("w", 2 + k)),
            "rest": _any(len(types) - 2), "y": made["outs"].split(":")[0],
            "fits": made["fits"], "params": made["params"]}


@builder
def qlinear_conv(types: tuple, **params: Any) -> dict[str, Any]:
    """QLinearConv: x, its scale and zero point, w, its scale and zero point, y's scale
    and zero point (whose dtype the output has), and a bias."""
    made = pool((types[0], types[3]), **params)
    k = types[0].ndim - 2
    return {"x": made["x"], "w": operand(names("w", 2 + k)),
            "bias": _any(len(types) - 8, 8), "y": made["outs"].split(":")[0],
            "fits": made["fits"], "params": made["params"]}


@builder
def affine_grid(types: tuple, size_value: Any, **_: Any) -> dict[str, Any]:
    """AffineGrid: (N, H, W, 2) or (N, D, H, W, 3) from the size (N, C, spatial...)."""
    if size_value is None:
        raise ParamError("AffineGrid needs a constant size")
    sizes = SizeNames(size_value)
    spatial = [sizes.text(v) if v is not None else None for v in size_value[2:]]
    if None in spatial:
        raise ParamError("AffineGrid needs every size known")
    k = len(spatial)
    return {"theta": f"(n,{k},{k + 1})", "sizes": sizes.operands(after=True),
            "y": operand(["n", *spatial, k])}


@reads_ranks
def roi_align(types: tuple, output_height: int = 1, output_width: int = 1, **_: Any
              ) -> dict[str, Any]:
    return {"y": f"(r,c,{output_height},{output_width})"}


@reads_ranks
def deform_conv(types: tuple, **_: Any) -> dict[str, Any]:
    """DeformConv: the output's spatial sizes are the offset's."""
    k = types[0].ndim - 2
    out = names("o", k)
    return {"x": operand(["n", "c", *names("a", k)]),
            "w": operand(["m", "cg", *names("k", k)]), "offset": operand(["n", "q", *out]),
            "rest": _any(len(types) - 3), "y": operand(["n", "m", *out])}


@builder
def max_unpool(types: tuple, given: tuple, kernel_shape: tuple, output_shape_value: Any = None,
               strides: tuple | None = None, pads: tuple | None = None, **_: Any
               ) -> dict[str, Any]:
    x = types[0]
    k = x.ndim - 2
    dims = names("a", x.ndim)
    strides = strides or (1,) * k
    pads = pads or (0,) * (2 * k)
    sizes = SizeNames(output_shape_value)
    clauses: list[str] = []
    if 2 in given:
        if output_shape_value is None:
            out = [f"u{i}" for i in range(x.ndim)]
            clauses = [f"{o} >= 0" for o in out]
        else:
            out = [sizes.text(v) if v is not None else f"u{i}"
                   for i, v in enumerate(output_shape_value)]
            clauses = [f"u{i} >= 0" for i, v in enumerate(output_shape_value) if v is None]
    else:
        out = [*dims[:2], *(f"({dims[2 + i]}-1)*{strides[i]}-{pads[i] + pads[i + k]}"
                            f"+{kernel_shape[i]}" for i in range(k))]
    more = len(types) - 2 - len(sizes.dims)
    return {"x": operand(dims), "rest": _any(more) + sizes.operands(after=True),
            "y": operand(out), "fits": where(clauses),
            "params": {"strides": tuple(strides), "pads": tuple(pads)}}


@builder
def stft(types: tuple, given: tuple, frame_step_value: Any = None,
         frame_length_value: Any = None, onesided: int = 1, **_: Any) -> dict[str, Any]:
    """STFT: (batch, frames, bins, 2), frames = (length - frame_length)//step + 1."""
    step = frame_step_value[0] if frame_step_value else None
    if 3 in given:
        length = frame_length_value[0] if frame_length_value else None
        window = None
    else:
        length, window = None, "w"
    if not isinstance(step, int):
        raise ParamError("STFT needs a constant frame_step")
    if length is None and window is None:
        raise ParamError("STFT needs a constant frame_length or a window")
    fl = str(length) if length is not None else window
    bins = f"({fl})//2+1" if onesided else fl
    operands = ["(b,l,c):T", "():I"]
    if 2 in given:
        operands.append(f"({fl}):T" if window is None else "(w):T")
    if 3 in given:
        operands.append("():I")
    return {"inputs": ",".join(operands),
            "y": operand(["b", f"(l-{fl})//{step}+1", bins, 2]),
            "fits": f" where l >= {fl}"}


@builder
def mel_weight_matrix(types: tuple, num_mel_bins_value: Any = None,
                      dft_length_value: Any = None, output_datatype: int = 1, **_: Any
                      ) -> dict[str, Any]:
    mel = num_mel_bins_value[0] if num_mel_bins_value else None
    dft = dft_length_value[0] if dft_length_value else None
    if not isinstance(mel, int) or not isinstance(dft, int):
        raise ParamError("MelWeightMatrix needs constant num_mel_bins and dft_length")
    return {"y": f"({dft // 2 + 1},{mel})", "dt": dtype_of(output_datatype, "MelWeightMatrix")}


@reads_ranks
def tfidf(types: tuple, ngram_indexes: tuple = (), **_: Any) -> dict[str, Any]:
    """TfIdfVectorizer: one count per n-gram index (the largest index + 1)."""
    n = max(ngram_indexes, default=-1) + 1
    x = types[0]
    if x.ndim == 1:
        return {"x": "(s)", "y": f"({n})"}
    if x.ndim == 2:
        return {"x": "(b,s)", "y": f"(b,{n})"}
    raise ParamError("TfIdfVectorizer takes 1-d or 2-d input")


@reads_ranks
def image_decoder(types: tuple, pixel_format: str = "RGB", **_: Any) -> dict[str, Any]:
    return {"c": "1" if pixel_format == "Grayscale" else "3"}


@reads_ranks
def qlinear_matmul(types: tuple, **_: Any) -> dict[str, Any]:
    """QLinearMatMul: NumPy's matmul of a and b (batch axes named alike, so equal or
    broadcast by the loop), the scales and zero points of any shape."""
    a, b = types[0], types[3]
    if a.ndim < 1 or b.ndim < 1:
        raise ParamError("a and b need at least one axis")
    lead = max(a.ndim, b.ndim) - 2
    batch = names("l", max(lead, 0))
    am = [*batch[len(batch) - max(a.ndim - 2, 0):], "m", "n"] if a.ndim >= 2 else ["n"]
    bm = [*batch[len(batch) - max(b.ndim - 2, 0):], "n", "p"] if b.ndim >= 2 else ["n"]
    y = [*batch, *(["m"] if a.ndim >= 2 else []), *(["p"] if b.ndim >= 2 else [])]
    return {"a": operand(am), "b": operand(bm), "y": operand(y)}

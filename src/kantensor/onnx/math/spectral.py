"""ONNX's signal ops (in its math family): the windows, DFT, STFT and
MelWeightMatrix (typed, not computed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axis
from ...ops.sizes import SizeNames, dim_expr
from ...ops.templates import builder, checked, dims, signed, size_of, typed
from ...syntax.ast import Clause, DimExpr, DimVar, dim_max, dim_min
from ..dtypes import dtype_of
from ..shared import NotKnown, rest_operands


@builder
def build_window(types: tuple, size_value: Any, output_datatype: int = 1, **_: Any
                 ) -> dict[str, Any]:
    """HannWindow and the like: as many values as the size input's value. A size known
    to be 0 leaves the node untyped, its contract undecided: onnx's inference, which
    onnxruntime runs as it loads a model, refuses a constant one ("size input must be
    greater than 0"), while its kernel runs a computed one (an empty window); the value
    does not tell the two apart."""
    n = size_value[0] if size_value else None
    if isinstance(n, int) and n == 0:
        raise NotKnown("a window of size 0: onnxruntime refuses a constant one, runs one "
                       "that is computed")
    sizes = SizeNames(size_value)
    (u,) = dims("u")
    return {"sizes": sizes.patterns(), "dt": dtype_of(output_datatype, "window"),
            "y": [u] if n is None else [signed(sizes.expr(n))],
            "fits": [u >= 0] if n is None else []}


def _window(n: int, periodic: int, terms: tuple) -> np.ndarray:
    span = n if periodic else n - 1
    k = np.arange(n, dtype=np.float64)
    out = np.zeros(n)
    for j, a in enumerate(terms):
        out = out + a * np.cos(2 * np.pi * j * k / span) * (-1) ** j
    return out


def hann(size: np.ndarray, *sizes: np.ndarray, periodic: int = 1, **_: Any) -> np.ndarray:
    return _window(int(size), periodic, (0.5, 0.5))


def hamming(size: np.ndarray, *sizes: np.ndarray, periodic: int = 1, **_: Any) -> np.ndarray:
    return _window(int(size), periodic, (25 / 46, 21 / 46))


def blackman(size: np.ndarray, *sizes: np.ndarray, periodic: int = 1, **_: Any) -> np.ndarray:
    return _window(int(size), periodic, (0.42, 0.5, 0.08))


@builder
def build_dft(types: tuple, given: tuple, dft_length_value: Any = None, axis_value: Any = None,
              onesided: int = 0, inverse: int = 0, **_: Any) -> dict[str, Any]:
    """DFT (opset 20): the axis from the input ``axis`` (default -2)."""
    if 2 in given:
        if not axis_value or not isinstance(axis_value[0], int):
            raise NotKnown("DFT's axis must be constant")
        return _dft(types, given, dft_length_value, axis_value[0], onesided, inverse)
    return _dft(types, given, dft_length_value, -2, onesided, inverse)


@builder
def build_dft17(types: tuple, given: tuple, dft_length_value: Any = None, axis: int = 1,
                onesided: int = 0, inverse: int = 0, **_: Any) -> dict[str, Any]:
    """DFT (opsets 17 to 19): the axis an attribute (default 1)."""
    return _dft(types, given, dft_length_value, axis, onesided, inverse)


def _dft(types: tuple, given: tuple, dft_length_value: Any, axis: int, onesided: int,
         inverse: int) -> dict[str, Any]:
    """The signal axis becomes ``dft_length`` (half plus one if ``onesided``), the last
    axis (real, imaginary) 2; the input's last axis is 1 (real) or 2 (complex), 1 for a
    one-sided transform and 2 for its inverse (onnx's shape inference, which onnxruntime
    runs, refuses the others)."""
    x = types[0]
    a = dims("a", x.ndim)
    ax = normalize_axis(axis, x.ndim)
    if ax == x.ndim - 1:
        raise ParamError("DFT's axis cannot be the last (the complex) axis")
    sizes = SizeNames(dft_length_value)
    (u,) = dims("u")
    n: DimExpr = a[ax]
    clauses: list[Clause] = []
    if 1 in given:
        length = dft_length_value[0] if dft_length_value else None
        if length is None:
            n = u
            clauses.append(u >= 0)
        else:
            n = signed(sizes.expr(length))
    if onesided and not inverse and clauses:
        n = u
    out: list[Any] = list(a)
    if onesided and inverse:  # a half spectrum in, the whole real signal out
        out[ax] = n if 1 in given else 2 * (a[ax] - 1)
        out[-1] = 1
    else:
        out[ax] = n // 2 + 1 if onesided and not clauses else n
        out[-1] = 2
    if onesided:  # a one-sided transform takes a real signal, its inverse a half spectrum
        clauses.append(a[-1].eq(2 if inverse else 1))
    else:  # real (1) or complex (2)
        clauses += [a[-1] >= 1, a[-1] <= 2]
    # onnxruntime: "DFT input signal dimension must be greater than zero when the output
    # is non-empty" (an empty signal axis, its one-sided or dft_length output not empty)
    clauses.append(checked(size_of(out) * a[ax] >= size_of(out), lambda v, types, ax=ax: (
        f"DFT of an empty signal axis {ax} of {types[0]} to an output that is not empty "
        "(onnxruntime refuses it)")))
    return {"x": a, "rest": rest_operands(types, 1, sizes), "y": out,
            "fits": clauses, "params": {"axis": ax}}


def dft(x: np.ndarray, *rest: np.ndarray, axis: int, given: tuple = (0,),
        inverse: int = 0, onesided: int = 0, **_: Any) -> np.ndarray:
    more = dict(zip(given[1:], rest, strict=False))
    signal = x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]
    n = int(more[1]) if 1 in more and more[1].size else signal.shape[axis]
    if inverse and onesided:
        m = int(more[1]) if 1 in more and more[1].size else 2 * (signal.shape[axis] - 1)
        return np.fft.irfft(signal, n=m, axis=axis)[..., None]
    if inverse:
        y = np.fft.ifft(signal, n=n, axis=axis)
    elif onesided:
        y = np.fft.rfft(signal.real if x.shape[-1] == 1 else signal, n=n, axis=axis) \
            if x.shape[-1] == 1 else np.take(np.fft.fft(signal, n=n, axis=axis),
                                             np.arange(n // 2 + 1), axis=axis)
    else:
        y = np.fft.fft(signal, n=n, axis=axis)
    return np.stack([y.real, y.imag], axis=-1)


@builder
def build_stft(types: tuple, given: tuple, frame_step_value: Any = None,
               frame_length_value: Any = None, onesided: int = 1, **_: Any) -> dict[str, Any]:
    """STFT: (batch, frames, bins, 2), frames = (length - frame_length)//step + 1; the
    signal's last axis 1 (real) or 2 (complex), as the spec and onnxruntime say; a frame
    of no sample (a frame_length of 0 or less) only over no batch (onnxruntime's process
    dies of SIGFPE otherwise; a negative one it runs over no batch where the bins, ``fl //
    2 + 1`` onesided, else ``fl``, are not negative: refused where they are)."""
    step = frame_step_value[0] if frame_step_value else None
    if 3 in given:
        length = frame_length_value[0] if frame_length_value else None
        window = None
    else:
        length, window = None, "w"
    if not isinstance(step, int):
        raise NotKnown("STFT needs a constant frame_step")
    if length is None and window is None:
        raise NotKnown("STFT needs a constant frame_length or a window")
    b, l, c = dims("b l c")
    fl = DimVar(window) if length is None else signed(length) if isinstance(length, int) \
        else dim_expr(length)
    bins = fl // 2 + 1 if onesided else fl
    if isinstance(length, int) and (length // 2 + 1 if onesided else length) < 0:
        raise ParamError(f"a frame_length of {length} makes a negative number of bins "
                         f"({'onesided ' if onesided else ''}frame_length // 2 + 1 or "
                         "frame_length): onnxruntime refuses it at every size")
    operands = [typed([b, l, c], "T"), typed([], "I")]
    if 2 in given:
        operands.append(typed([fl], "T"))
    if 3 in given:
        operands.append(typed([], "I"))
    framed = checked(dim_min(dim_max(fl, 0), 1) >= dim_min(b, 1), lambda v, types: (
        f"a frame_length below 1 over a batch of {types[0]} that is not empty: onnxruntime "
        "runs an STFT of no sample per frame over no batch only"))
    return {"inputs": operands, "y": [b, (l - fl) // step + 1, bins, 2],
            "fits": [l >= fl, ((c - 1) * (c - 2)).eq(0), framed, bins >= 0]}


def stft(signal: np.ndarray, step: np.ndarray, *rest: np.ndarray, given: tuple = (0, 1),
         onesided: int = 1, **_: Any) -> np.ndarray:
    more = dict(zip(given[2:], rest, strict=False))
    window = more.get(2)
    length = int(more[3]) if 3 in more else len(window)
    s = int(step)
    x = signal[..., 0] + (1j * signal[..., 1] if signal.shape[-1] == 2 else 0)
    frames = (x.shape[1] - length) // s + 1
    chunks = np.stack([x[:, f * s:f * s + length] for f in range(frames)], axis=1)
    if window is not None:
        chunks = chunks * window
    y = np.fft.fft(chunks, axis=-1)
    if onesided:
        y = y[..., :length // 2 + 1]
    return np.stack([y.real, y.imag], axis=-1).astype(signal.dtype)


@builder
def build_mel_weight_matrix(types: tuple, num_mel_bins_value: Any = None,
                            dft_length_value: Any = None, output_datatype: int = 1, **_: Any
                            ) -> dict[str, Any]:
    mel = num_mel_bins_value[0] if num_mel_bins_value else None
    dft = dft_length_value[0] if dft_length_value else None
    if not isinstance(mel, int) or not isinstance(dft, int):
        raise NotKnown("MelWeightMatrix needs constant num_mel_bins and dft_length")
    return {"y": [dft // 2 + 1, mel], "dt": dtype_of(output_datatype, "MelWeightMatrix")}

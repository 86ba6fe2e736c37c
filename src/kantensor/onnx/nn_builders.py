"""Builders of ONNX convolution, pooling and normalisation (see :mod:`.builders`)."""

from __future__ import annotations

from typing import Any

from ..ops.params import ParamError, normalize_axis
from ..ops.templates import builder, names, operand, reads_ranks, where
from .dtypes import dtype_of


@reads_ranks
def layer_norm(types: tuple, axis: int, outputs: int = 1, stash_type: int = 1, **_: Any
               ) -> dict[str, Any]:
    """LayerNormalization: Y like X; Mean and InvStdDev keep the axes before ``axis``
    and have 1 from it on. Scale and B broadcast to the normalised axes."""
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    dims = names("a", x.ndim)
    stat = operand([*dims[:ax], *[1] * (x.ndim - ax)]) + ":" + (
        dtype_of(stash_type, "LayerNormalization"))
    outs = [f"{operand(dims)}:T", stat, stat][:outputs]
    return {"x": operand(dims), "rest": "".join(f",(*r{i}):T" for i in range(len(types) - 1)),
            "outs": ",".join(outs), "params": {"axis": ax}}


@reads_ranks
def same_shape(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """The output(s) of X's shape and dtype; any other inputs of any shape."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "rest": "".join(f",(*r{i})" for i in range(len(types) - 1)),
            "outs": ",".join([f"{dims}:T"] * outputs)}


@reads_ranks
def global_pool(types: tuple, **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    return {"x": operand(dims), "y": operand([*dims[:2], *[1] * (x.ndim - 2)])}


def _window(n: str, k: int | str, s: int, d: int, pb: int, pe: int, auto_pad: str,
            ceil_mode: int) -> str:
    """The output size of a sliding window over an axis of size ``n`` (``k``: the
    kernel's size, or the name of the weight's axis that has it)."""
    eff = (k - 1) * d + 1 if isinstance(k, int) else f"(({k}-1)*{d}+1)"
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return f"({n}+{s - 1})//{s}"
    if auto_pad == "VALID":
        return f"({n}-{eff})//{s}+1"
    if ceil_mode:  # the last window must start inside the input or its left pad
        return f"min(({n}+{pb + pe + s - 1}-{eff})//{s}+1,({n}{pb - 1:+d})//{s}+1)"
    return f"({n}+{pb + pe}-{eff})//{s}+1"


@builder
def pool(types: tuple, kernel_shape: tuple | None = None, strides: tuple | None = None,
         pads: tuple | None = None, dilations: tuple | None = None,
         auto_pad: str = "NOTSET", ceil_mode: int = 0, outputs: int = 1, **_: Any
         ) -> dict[str, Any]:
    """Conv and the pools: (N, C, spatial...) -> (N, C or M, windows...). The kernel is
    the attribute or the weight's spatial sizes (Conv)."""
    x = types[0]
    k = x.ndim - 2
    dims = names("a", x.ndim)
    conv = len(types) > 1 and kernel_shape is None or len(types) > 1 and types[1].ndim == x.ndim
    if conv:
        w = types[1]
        wd = names("w", w.ndim)
        kernel = kernel_shape or tuple(v if isinstance(v, int) else wd[2 + i]
                                       for i, v in enumerate(w.shape[2:]))
    else:
        kernel = kernel_shape
    if kernel is None:
        raise ParamError("the kernel's spatial sizes must be known")
    strides = strides or (1,) * k
    dilations = dilations or (1,) * k
    pads = pads or (0,) * (2 * k)
    out, clauses = [], []
    for i in range(k):
        n = x.shape[2 + i]
        if ceil_mode and auto_pad == "NOTSET" and isinstance(n, int) and \
                isinstance(kernel[i], int):
            eff = (kernel[i] - 1) * dilations[i] + 1
            size = -(-(n + pads[i] + pads[i + k] - eff) // strides[i]) + 1
            if (size - 1) * strides[i] >= n + pads[i]:
                size -= 1
            out.append(str(size))
            continue
        out.append(_window(dims[2 + i], kernel[i], strides[i], dilations[i], pads[i],
                           pads[i + k], auto_pad, ceil_mode))
    if conv:
        y = operand([dims[0], wd[0], *out])
        operands = f",{operand(wd)}:T" + ",(*b):T" * (len(types) - 2)
    else:
        y = operand([dims[0], dims[1], *out])
        operands = ""
    outs = f"{y}:T" + (f",{y}:int64" if outputs > 1 else "")
    return {"x": operand(dims), "rest": operands, "outs": outs, "fits": where(clauses),
            "params": {"kernel_shape": tuple(kernel) if all(isinstance(v, int) for v in kernel)
                       else None, "strides": tuple(strides),
                       "pads": tuple(pads), "dilations": tuple(dilations)}}


@reads_ranks
def same_shape_stats(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """BatchNormalization: Y like X; in training, the running mean and variance like
    the input mean and variance (of X's channels)."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "rest": ",(c):T" * (len(types) - 1),
            "outs": ",".join([f"{dims}:T", "(c):T", "(c):T"][:outputs])}


@reads_ranks
def loss(types: tuple, reduction: str, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: scores (N, C, d...),
    targets (N, d...), weights (C); the loss per target (``none``) or a scalar; the log
    probabilities like the scores."""
    x = types[0]
    if x.ndim < 2:
        raise ParamError("the scores need a batch and a class axis")
    rest = names("d", x.ndim - 2)
    scores = operand(["n", "c", *rest])
    target = operand(["n", *rest])
    weights = ",(c):T" if len(types) > 2 else ""
    y = target if reduction == "none" else "()"
    outs = [f"{y}:T", f"{scores}:T"][:outputs]
    return {"inputs": f"{scores}:T,{target}:I{weights}", "outs": ",".join(outs)}


@reads_ranks
def typed_like(types: tuple, dtype: int | None = None, **_: Any) -> dict[str, Any]:
    """Bernoulli: X's shape; the ``dtype`` attribute's dtype, else X's."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "dt": dtype_of(dtype, "Bernoulli") if dtype is not None else "T"}


@reads_ranks
def causal_conv(types: tuple, given: tuple, outputs: int = 2, **_: Any) -> dict[str, Any]:
    """CausalConvWithState: the output like the input, the state (batch, channels, k-1);
    the bias is (channels), a past state like the present one."""
    rest = "".join(",(c):T" if p == 2 else ",(b,c,k-1):T" for p in given[2:])
    return {"rest": rest, "outs": ",".join(["(b,c,l):T", "(b,c,k-1):T"][:outputs])}

"""xarray DataArrays in and out of a Dask Function, never loaded.

A DataArray passed in gives its data (a Dask array stays one; a NumPy one is split by
``chunks=``) and its dims: an input axis whose type is a named Dim takes the DataArray
dim of that name (the DataArray is transposed lazily to the type's order), any other
axis the dim at its position. When a DataArray went in, every output comes out as one:
an output axis whose type is a named Dim gets that name as its dim, with the coordinate
of the input dim of that name where one went in with the same size; any other axis gets
a dim ``<output name>_dim<k>`` of its own. xarray is not imported here: a value is a
DataArray only if xarray was imported by whoever made it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import dask.array as da

from ...graph.basic import Variable
from ...types.dim import Dim
from ...types.symbols import free_symbols, substitute
from ...types.type import TensorType

__all__ = ["XarrayIO", "is_dataarray", "xarray_template", "xarray_type"]


def is_dataarray(value: Any) -> bool:
    xr = sys.modules.get("xarray")
    return xr is not None and isinstance(value, xr.DataArray)


def dim_name(size: Any) -> str | None:
    """The name of a size that is a plain named Dim (not an expression), else None."""
    if isinstance(size, Dim) and size.name is not None and str(size) == size.name:
        return size.name
    return None


class XarrayIO:
    """The dims of a Function's inputs and outputs, for DataArrays in and out."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]):
        self.in_names = [[dim_name(s) for s in v.type.shape] for v in inputs]
        self.out_names = [[dim_name(s) for s in v.type.shape] for v in outputs]
        self.labels = [v.name or f"output{j}" for j, v in enumerate(outputs)]
        self.inputs = list(inputs)

    def take(self, values: list[Any]) -> tuple[list[Any], list[Any] | None]:
        """The values with every DataArray replaced by its data (transposed to the
        type's order where its dims are named), and the DataArrays (None if none)."""
        if not any(is_dataarray(x) for x in values):
            return values, None
        frames: list[Any] = []
        out = []
        for i, x in enumerate(values):
            if not is_dataarray(x):
                frames.append(None)
                out.append(x)
                continue
            x = self._ordered(i, x)
            frames.append(x)
            out.append(x.data)  # a Dask array stays lazy; nothing is loaded
        return out, frames

    def _ordered(self, i: int, x: Any) -> Any:
        names = self.in_names[i]
        var = self.inputs[i]
        if len(names) != x.ndim:
            raise TypeError(f"bad value for input {i} ({var}): a DataArray of dims "
                            f"{x.dims}, its type {var.type} has {len(names)} axes")
        wanted = [n for n in names if n is not None]
        missing = [n for n in wanted if n not in x.dims]
        if missing:
            raise TypeError(f"bad value for input {i} ({var}): the DataArray has dims "
                            f"{x.dims}, no {', '.join(map(repr, missing))} that its type "
                            f"{var.type} names")
        if all(n is not None for n in names) and tuple(names) != tuple(x.dims):
            return x.transpose(*names)
        for a, n in enumerate(names):
            if n is not None and x.dims[a] != n:
                raise TypeError(f"bad value for input {i} ({var}): axis {a} of the "
                                f"DataArray is {x.dims[a]!r}, its type names it {n!r}")
        return x

    def give(self, outs: list[Any], frames: list[Any] | None) -> list[Any]:
        """The outputs as DataArrays if a DataArray went in (else as they are)."""
        if frames is None:
            return outs
        xr = sys.modules["xarray"]
        coords: dict[str, Any] = {}
        sizes: dict[str, int] = {}
        for x in frames:
            if x is None:
                continue
            for d in x.dims:
                sizes.setdefault(d, x.sizes[d])
                if d in x.coords and d not in coords:
                    coords[d] = x.coords[d].variable
        given = []
        for j, y in enumerate(outs):
            dims = []
            for k, n in enumerate(self.out_names[j]):
                dims.append(n if n is not None and n not in dims
                            else f"{self.labels[j]}_dim{k}")
            kept = {d: coords[d] for d in dims if d in coords
                    and sizes.get(d) == (y.shape[dims.index(d)])}
            given.append(xr.DataArray(y, dims=dims, coords=kept, name=self.labels[j]))
        return given


def xarray_type(array: Any) -> TensorType:
    """The type of a DataArray, its dims as named sizes: ``float64[time,lat]`` (what
    ``kt.eval_shape`` takes to run NumPy code on it symbolically)."""
    if not is_dataarray(array):
        raise TypeError(f"xarray_type takes an xarray.DataArray, got {type(array).__name__}")
    return TensorType(array.dtype.name, tuple(Dim(str(d)) for d in array.dims))


def xarray_template(result: Any, *arrays: Any) -> Any:
    """The ``template`` of ``xarray.map_blocks`` for a function, from its
    ``kt.eval_shape`` result on :func:`xarray_type` of ``arrays``: for each output, a
    lazy DataArray of its dtype whose dims are its named sizes, sized and chunked as the
    input dims of those names, with their coordinates (nothing is computed or loaded).
    A size that is an expression of the dims (``2*time``) is computed from them, one
    chunk; one that no dim decides is a ValueError."""
    xr = sys.modules["xarray"]
    sizes: dict[str, int] = {}
    chunks: dict[str, tuple] = {}
    coords: dict[str, Any] = {}
    for a in arrays:
        for k, d in enumerate(a.dims):
            sizes.setdefault(str(d), a.sizes[d])
            if a.chunks is not None:
                chunks.setdefault(str(d), a.chunks[k])
            if d in a.coords:
                coords.setdefault(str(d), a.coords[d].variable)
    types = result.type if isinstance(result.type, tuple) else (result.type,)
    made = []
    for j, t in enumerate(types):
        dims, shape, parts = [], [], []
        for k, size in enumerate(t.shape):
            name = dim_name(size)
            if name is not None and name in sizes:
                dims.append(name)
                shape.append(sizes[name])
                parts.append(chunks.get(name, (sizes[name],)))
                continue
            if isinstance(size, int):
                n = size
            elif size is not None and free_symbols(size) <= set(sizes):
                n = int(substitute(size, sizes))
            else:
                raise ValueError(f"output {j} axis {k} has size {size}, which the dims of "
                                 f"the inputs ({', '.join(sizes)}) do not decide")
            dims.append(f"dim_{j}_{k}")
            shape.append(n)
            parts.append((n,))
        data = da.empty(tuple(shape), chunks=tuple(parts), dtype=t.numpy_dtype)
        kept = {d: coords[d] for d in dims if d in coords}
        made.append(xr.DataArray(data, dims=dims, coords=kept))
    return made[0] if len(made) == 1 else tuple(made)

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

from ...graph.basic import Variable
from ...types.dim import Dim

__all__ = ["XarrayIO", "is_dataarray"]


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

"""The Dask lowering of graphs (DESIGN §12); needs the ``dask`` extra."""

from .function import DaskFunction, DaskMemory, TaskTooLargeError
from .lower import RechunkError, UnknownChunksError
from .xarray import xarray_template, xarray_type

__all__ = ["DaskFunction", "DaskMemory", "RechunkError", "TaskTooLargeError",
           "UnknownChunksError", "xarray_template", "xarray_type"]

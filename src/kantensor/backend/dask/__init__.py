"""The Dask lowering of graphs (DESIGN §12); needs the ``dask`` extra."""

from .function import DaskFunction, DaskMemory, TaskTooLargeError
from .lower import RechunkError, UnknownChunksError

__all__ = ["DaskFunction", "DaskMemory", "RechunkError", "TaskTooLargeError",
           "UnknownChunksError"]

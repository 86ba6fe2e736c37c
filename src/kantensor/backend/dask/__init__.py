"""The Dask lowering of graphs (DESIGN §12); needs the ``dask`` extra."""

from .function import DaskFunction

__all__ = ["DaskFunction"]

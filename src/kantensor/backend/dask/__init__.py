"""The Dask lowering of graphs (DESIGN §12); needs the ``dask`` extra.

Its names load on first use (PEP 562: :data:`LOWERING` names each one's module), so that
a Dask worker, which imports this package to unpickle a task's kernel
(:mod:`.kernels`), does not import the lowering, which only the process that builds the
Dask arrays needs (``tests/test_dask_cluster.py`` checks what a worker imports).
"""

from importlib import import_module
from typing import Any

#: Each public name of the lowering, by the module of this package that defines it.
LOWERING: dict[str, str] = {
    "DaskFunction": "function", "DaskMemory": "memory", "TaskTooLargeError": "function",
    "RechunkError": "lower", "UnknownChunksError": "lower",
    "xarray_template": "xarray", "xarray_type": "xarray",
}

__all__ = ["DaskFunction", "DaskMemory", "RechunkError", "TaskTooLargeError",
           "UnknownChunksError", "xarray_template", "xarray_type"]


def __getattr__(name: str) -> Any:
    """A name of the lowering, from its module (imported now, kept as an attribute)."""
    module = LOWERING.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

"""The backends ``kt.function(..., backend=NAME)`` compiles for, registered by name.

A backend is a compiler ``make(inputs, outputs, **options)`` and the options of
:func:`function` it takes. Adding one is registering it: ``register_backend("name",
make, options=(...))``. A backend that needs an optional extra is registered by the
dotted path of its compiler (``"package.module:Name"``), imported the first time it is
asked for, so that kantensor imports without the extra.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ..graph.basic import Variable
from .compiled import Function

__all__ = ["BACKENDS", "Backend", "function", "register_backend"]

#: Options every backend takes (each backend reads the inputs it is given by its types).
COMMON_OPTIONS = ("allow_input_downcast",)


@dataclass(frozen=True)
class Backend:
    """A registered backend: its compiler (or the dotted path to import it from), the
    options of :func:`function` it takes beyond :data:`COMMON_OPTIONS`, and the pip extra
    that installs what it needs (for the error when it is missing)."""

    name: str
    make: Callable[..., Any] | str
    options: tuple[str, ...] = ()
    extra: str | None = None

    def compiler(self) -> Callable[..., Any]:
        """The compiler, imported first if the backend was registered by path."""
        if callable(self.make):
            return self.make
        module, _, attr = self.make.partition(":")
        try:
            return getattr(import_module(module), attr)
        except ImportError as exc:
            hint = f": pip install 'kantensor[{self.extra}]'" if self.extra else ""
            raise ImportError(f"backend={self.name!r} needs what its extra installs "
                              f"({exc}){hint}") from exc


#: The backends by name, in the order they were registered.
BACKENDS: dict[str, Backend] = {}


def register_backend(name: str, make: Callable[..., Any] | str, *,
                     options: Sequence[str] = (), extra: str | None = None) -> Backend:
    """Register (or replace) the backend ``name``; returns its record."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a backend's name is an identifier, got {name!r}")
    if not (callable(make) or isinstance(make, str) and ":" in make):
        raise TypeError(f"backend {name!r}: make must be a compiler or 'module:Name', "
                        f"got {make!r}")
    backend = BACKENDS[name] = Backend(name, make, tuple(options), extra)
    return backend


register_backend("numpy", Function, options=("trust_input", "check"))
register_backend("dask", "kantensor.backend.dask:DaskFunction",
                 options=("allow_rechunk", "max_task_bytes", "compute_chunk_sizes"),
                 extra="dask")


def function(inputs: Sequence[Variable], outputs: Variable | Sequence[Variable],
             allow_input_downcast: bool | None = None, *, backend: str = "numpy",
             **options: Any) -> Any:
    """Compile ``outputs`` as a function of ``inputs`` for ``backend`` (NumPy by default).

    Every call checks each input against its type (dtype, rank, static sizes) and binds
    its symbolic sizes: a Dim named twice must have one size, and an axis typed by an
    expression (``2*n``) must have a length some size ``n >= 0`` gives.

    The NumPy backend's options: ``trust_input=True`` skips the per-input checks and
    conversions: values are used as given, and a value that does not fit its type gives
    NumPy's error or a wrong result, never a kantensor one, except that symbolic sizes
    are still bound (a wrong rank is then a TypeError). ``check=True`` also verifies
    every node's outputs against their inferred types (dtype, static sizes, named Dims
    and Dim expressions) and raises OutputTypeError at the first that does not match.

    ``backend="dask"`` (the ``dask`` extra) returns a Function that takes Dask arrays
    (or NumPy arrays and ``chunks=``) and returns Dask arrays without computing them;
    its options are ``allow_rechunk``, ``max_task_bytes`` and ``compute_chunk_sizes``
    (``docs/dask.rst``). Other backends are those registered with
    :func:`register_backend`.
    """
    found = BACKENDS.get(backend) if isinstance(backend, str) else None
    if found is None:
        names = ", ".join(repr(n) for n in BACKENDS)
        raise ValueError(f"backend must be one of {names}, got {backend!r}")
    wrong = sorted(k for k in options if k not in found.options)
    if wrong:
        owners = [f"{k} is an option of the {b.name} backend" for k in wrong
                  for b in BACKENDS.values() if k in b.options]
        said = "; ".join(owners) if owners else f"unknown option {', '.join(wrong)}"
        raise TypeError(f"backend={backend!r} takes "
                        f"{', '.join((*COMMON_OPTIONS, *found.options))}: {said}")
    return found.compiler()(inputs, outputs, allow_input_downcast=allow_input_downcast,
                            **options)

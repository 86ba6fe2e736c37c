"""The backends ``kt.function(..., backend=NAME)`` compiles for, registered by name.

A backend is a compiler ``make(inputs, outputs, **options)`` and the options of
``kt.function`` it takes. Adding one is registering it: ``register_backend("name",
make, options=(...))``. A backend that needs an optional extra is registered by the
dotted path of its compiler (``"package.module:Name"``), imported the first time it is
asked for, so that kantensor imports without the extra. The NumPy and Dask backends are
registered where ``kt.function`` is defined (:mod:`.compiled`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any

__all__ = ["BACKENDS", "Backend", "backend_named", "register_backend"]

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


def backend_named(backend: Any, options: dict[str, Any]) -> Backend:
    """The backend registered as ``backend``; ValueError naming the registered ones if
    there is none, TypeError naming the backend an option belongs to if ``options`` has
    one this backend does not take."""
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
    return found

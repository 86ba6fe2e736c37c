"""What a catalogue file may run and read: imports within numpy, kantensor and the
packages the caller allows (never from the current directory, never a private module),
builders only from the registry, and files only regular and of bounded size.

See ``docs/catalogue.rst`` (What a catalogue file may run).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .templates import BUILDERS

__all__ = ["MAX_FILE_BYTES", "TRUSTED", "TrustError", "read_text", "resolve",
           "resolve_builder"]


class TrustError(ValueError):
    """A catalogue file names something it may not run or import, or is not a file that
    may be read (:mod:`kantensor.ops.catalogue` reports it as a TrustError)."""


#: The packages a catalogue file may import without the caller's leave: NumPy and
#: kantensor itself. Anything else must be allowed (``load_file(path, allow=(...))``,
#: ``kantensor check --allow PKG``).
TRUSTED = ("numpy", "kantensor")


def _allowed(path: str, allow: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root + ".") for root in (*TRUSTED, *allow))


def _outside_cwd(entry: str) -> bool:
    """False for a ``sys.path`` entry that means the current directory."""
    try:
        return entry not in ("", ".") and Path(entry).resolve() != Path.cwd().resolve()
    except (OSError, ValueError):
        return False


def _import(name: str) -> Any:
    """``importlib.import_module(name)``, except that a top-level module not imported yet is
    looked up without the current directory: a file there is never imported by accident."""
    top = name.partition(".")[0]
    if top not in sys.modules:
        path = [p for p in sys.path if isinstance(p, str) and _outside_cwd(p)]
        for finder in sys.meta_path:
            spec = (finder.find_spec(top, path) if finder is importlib.machinery.PathFinder
                    else getattr(finder, "find_spec", lambda *a: None)(top, None))
            if spec is not None:
                break
        else:
            raise ImportError(f"no module named {top!r} (the current directory is not "
                              "searched)")
        module = importlib.util.module_from_spec(spec)
        sys.modules[top] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(top, None)
            raise
    return importlib.import_module(name)


def resolve(path: str, allow: Sequence[str] = ()) -> Any:
    """Import ``package.module.attr`` (the longest importable module prefix), when the
    path lies in numpy, kantensor or a package of ``allow``; no private or ``__main__``
    module is imported."""
    parts = path.split(".")
    if len(parts) > 16 or not all(p.isidentifier() for p in parts):
        raise TrustError(f"cannot import {path[:80]!r}: expected a dotted path of at "
                             "most 16 Python names")
    if not _allowed(path, tuple(allow)):
        roots = ", ".join(f"{r}.*" for r in (*TRUSTED, *allow))
        raise TrustError(f"{path!r} is not imported: a catalogue file may name only "
                             f"{roots} (allow another package with allow=... or --allow)")
    if any(p.startswith("_") for p in parts):
        raise TrustError(f"{path!r} is not imported: a catalogue file may not name a "
                             "private module or attribute (one starting with '_')")
    reason = ""
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = _import(".".join(parts[:cut]))
        except ImportError as exc:
            reason = f": {exc}"
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise TrustError(f"cannot import {path!r}{reason}")


def resolve_builder(path: str, allow: Sequence[str] = ()) -> Any:
    """The registered builder (see :func:`kantensor.ops.templates.builder`) of dotted path
    ``path``; its module is imported (as :func:`resolve` would) only to register it."""
    found = BUILDERS.get(path)
    if found is None:
        resolve(path, allow)  # imports the module, whose decorators register its builders
        found = BUILDERS.get(path)
    if found is None:
        raise TrustError(f"{path!r} is not a registered builder (a builder is a "
                             "function decorated with kantensor.ops.builder)")
    return found


#: The largest catalogue file read, in bytes (the shipped ones are under 100 kB).
MAX_FILE_BYTES = 1 << 20


def read_text(path: str | Path) -> str:
    """The text of a catalogue file: a regular file of at most :data:`MAX_FILE_BYTES`
    bytes, in UTF-8 (so ``/dev/zero`` or a FIFO is refused, not read forever);
    TrustError otherwise, OSError if it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without a writer
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise TrustError(f"{path}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise TrustError(f"{path}: too large (at most {MAX_FILE_BYTES} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrustError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                             ) from None

"""Whose code is it: the traced user's, or a library's.

``eval_shape`` reaches into the *user's* code (the traced function, what it calls, the
modules those live in: :mod:`.namespaces`), names the user's line in errors and
assumptions (:mod:`.located`), and splits the user's branches on sizes
(:mod:`.branches`). Everything else is a library's: kantensor's own code, NumPy's (its
Python and its compiled modules), Python's standard library, and the packages installed
in the environment (site-packages) other than the one the traced function comes from (a
wrapper library such as autograd's tracer is not the user's line).
"""

from __future__ import annotations

import functools
import os
import site
import sys
import sysconfig
from types import FrameType
from typing import Any

#: Top-level packages whose code is never the user's.
_OWN = ("kantensor", "numpy")
#: How the file names of kantensor's generated code begin (``<kantensor _fast_call_3>``).
GENERATED = "<kantensor "


def _folders() -> tuple[str, ...]:
    """The folders of installed packages (site-packages, dist-packages)."""
    found = set()
    for key in ("purelib", "platlib"):
        found.add(sysconfig.get_paths().get(key, ""))
    found.update(getattr(site, "getsitepackages", list)())
    found.add(getattr(site, "getusersitepackages", str)())
    return tuple(os.path.realpath(f) + os.sep for f in found if f)


_INSTALLED = _folders()
_STDLIB = tuple(os.path.realpath(sysconfig.get_paths()[key]) + os.sep
                for key in ("stdlib", "platstdlib"))


def top_level(module: str | None) -> str:
    """``a`` of the module name ``a.b.c`` ("" for None)."""
    return (module or "").partition(".")[0]


@functools.lru_cache(maxsize=4096)
def _installed(filename: str) -> bool:
    path = os.path.realpath(filename)
    return path.startswith(_INSTALLED)


@functools.lru_cache(maxsize=4096)
def _stdlib_file(filename: str) -> bool:
    path = os.path.realpath(filename)
    return path.startswith(_STDLIB) and not path.startswith(_INSTALLED)


def is_library(module: str | None, filename: str | None, own: str = "") -> bool:
    """Whether code of module ``module`` (its ``__name__``; None if unknown) in file
    ``filename`` is a library's: kantensor, NumPy, the standard library, or an installed
    package other than ``own`` (the top-level package of the traced function)."""
    top = top_level(module)
    if top in _OWN or top in sys.stdlib_module_names:
        return True
    if top and top == own:
        return False
    if filename and filename.startswith(GENERATED):
        return True  # kantensor's generated code (kantensor.graph.codegen)
    if not filename or filename.startswith("<"):
        return False  # code made by exec, a doctest, the REPL: the user's
    return _installed(filename) or _stdlib_file(filename)


def frame_is_library(frame: FrameType, own: str = "") -> bool:
    """:func:`is_library` of the code a frame runs."""
    return is_library(frame.f_globals.get("__name__"), frame.f_code.co_filename, own)


def function_is_library(fn: Any, own: str = "") -> bool:
    """:func:`is_library` of a Python function's code."""
    code = getattr(fn, "__code__", None)
    return is_library(getattr(fn, "__module__", None),
                      getattr(code, "co_filename", None), own)


def own_package(fn: Any) -> str:
    """The top-level package of the traced callable's module: its modules are the user's
    even when it is installed."""
    for _ in range(8):
        inner = getattr(fn, "__func__", None) or getattr(fn, "func", None)
        if inner is None:
            break
        fn = inner
    module = getattr(fn, "__module__", None) or getattr(type(fn), "__module__", None)
    top = top_level(module)
    return "" if top in _OWN or top == "builtins" else top

"""Names of the DSL: reserved words, dtype and category names, and the rule for an
identifier (shared by the dim and dtype nodes)."""

from __future__ import annotations

import re

from ...types.dtypes import CATEGORIES as _CATEGORY_SETS
from ...types.dtypes import DTYPES

__all__ = ["CATEGORIES", "CMP_OPS", "DTYPE_NAMES", "RESERVED", "check_name", "set_field"]

DTYPE_NAMES = frozenset(DTYPES)
CATEGORIES = frozenset(_CATEGORY_SETS)
RESERVED = frozenset("where in min max promote join float real compatible".split())
CMP_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_name(name: object, what: str, *, dtype_ok: bool = False) -> None:
    """ValueError unless ``name`` may name a ``what`` (an identifier, not reserved)."""
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise ValueError(f"{what} name must be an identifier, got {name!r}")
    if name in RESERVED:
        raise ValueError(f"{name!r} is a reserved word and cannot name a {what}")
    if name in DTYPE_NAMES and not dtype_ok:
        raise ValueError(f"{name!r} is a dtype name and cannot name a {what}")


def set_field(obj: object, name: str, value: object) -> None:
    """Set a field of a frozen node while it normalises itself in ``__post_init__``."""
    object.__setattr__(obj, name, value)

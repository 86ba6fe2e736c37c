"""Limits on sizes and on the compact type text, so hostile input fails fast and clearly.

Every limit is a module constant; each check raises ``ValueError`` saying which limit was
exceeded and by what. ``MAX_SIZE`` bounds every size a type may state (NumPy's own bound on
an axis length), so a static size always prints and always fits an ``intp``.
"""

from __future__ import annotations

from typing import Final

from .dim import Dim
from .poly import MAX_TERMS

__all__ = [
    "MAX_ARGS", "MAX_NDIM", "MAX_NESTING", "MAX_SIZE", "MAX_TERMS",
    "MAX_TYPE_TEXT", "check_size", "check_terms", "check_text",
]

MAX_SIZE: Final = 2**63 - 1
"""Largest size (and largest coefficient of a size expression) a type may state."""
MAX_TYPE_TEXT: Final = 10_000
"""Longest text ``TensorType.parse`` reads."""
MAX_NDIM: Final = 64
"""Most axes a type text may give (NumPy's own maximum)."""
MAX_NESTING: Final = 32
"""Deepest nesting of ``( )``, ``min( )``/``max( )`` and ``**`` in one size expression."""
MAX_ARGS: Final = 64
"""Most arguments of one ``min( )``/``max( )``."""


def check_text(text: str, limit: int, what: str) -> None:
    """ValueError if ``text`` is longer than ``limit`` characters."""
    if len(text) > limit:
        raise ValueError(f"{what} is too long: {len(text)} characters (at most {limit})")


def check_size(value: int, what: str) -> int:
    """``value`` if ``|value| <= MAX_SIZE``, else ValueError (checked without printing it)."""
    if -MAX_SIZE <= value <= MAX_SIZE:
        return value
    raise ValueError(f"{what} is too large: a size of about 2**{value.bit_length() - 1} "
                     f"(sizes are at most 2**63 - 1)")


def check_terms(x: int | Dim, what: str) -> int | Dim:
    """``x`` if it is a size within the limits: an int within ``MAX_SIZE``, or a Dim with at
    most ``MAX_TERMS`` terms whose coefficients are within ``MAX_SIZE``."""
    if isinstance(x, int):
        return check_size(x, what)
    terms = x._terms
    if len(terms) > MAX_TERMS:
        raise ValueError(f"{what} is too large: it expands to {len(terms)} terms "
                         f"(at most {MAX_TERMS})")
    for _, coeff in terms:
        check_size(coeff, what)
    return x

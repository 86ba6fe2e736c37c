"""Names of the DSL: reserved words and comparison operators (read from
:mod:`kantensor.syntax.vocabulary`), dtype and category names, and the rule for an
identifier (shared by the dim and dtype nodes).

Which words name dtypes and dtype categories is a fact of the types layer
(:mod:`kantensor.types.dtypes`, the one home of every dtype fact), which sits above the
syntax. The syntax reads those words through two :class:`WordSet` objects that the dtype
module defines when it is imported (importing any part of kantensor imports it first).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Iterator, Set

from ..vocabulary import COMPARISONS, RESERVED_WORDS

__all__ = ["CATEGORIES", "CMP_OPS", "DTYPE_NAMES", "RESERVED", "WordSet", "check_name",
           "hashed_once", "near_dtype", "set_field"]


class WordSet(Set[str]):
    """A read-only set of words that a higher layer defines once (:meth:`define`)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._words: frozenset[str] = frozenset()

    def define(self, words: Iterable[str]) -> None:
        """Give the set its words; a second definition is an error (one home per fact)."""
        if self._words:
            raise RuntimeError(f"the {self.what} are defined already")
        self._words = frozenset(words)

    @classmethod
    def _from_iterable(cls, it: Iterable[str]) -> set[str]:
        return set(it)  # what ``set(...) | words`` gives, as with a plain set

    def __contains__(self, word: object) -> bool:
        return word in self._words

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __len__(self) -> int:
        return len(self._words)

    def __repr__(self) -> str:
        return f"WordSet({self.what}: {sorted(self._words)})"


DTYPE_NAMES = WordSet("dtype names")
CATEGORIES = WordSet("dtype category names")
RESERVED = RESERVED_WORDS
CMP_OPS = frozenset(w.text for w in COMPARISONS)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def near_dtype(name: str) -> str | None:
    """The dtype name ``name`` is one edit away from (a letter changed, added, dropped,
    or two neighbours swapped: ``flaot32`` -> ``float32``), or None: the one rule for
    "did you mean" wherever text names a dtype (signatures, types, query terms). Of
    several, the most alike (as difflib sees it)."""
    if name in DTYPE_NAMES or len(name) > 64 or not DTYPE_NAMES:
        return None
    return _near_defined(name)


@functools.lru_cache(maxsize=1024)
def _near_defined(name: str) -> str | None:
    """:func:`near_dtype` once the dtype names are defined (they never change then):
    remembered, as every alternative a template fills asks it of each dtype name (``t``
    at every new rank)."""
    near = [d for d in DTYPE_NAMES if abs(len(d) - len(name)) <= 1 and _one_edit(name, d)]
    if not near:
        return None
    return max(sorted(near), key=lambda d: difflib.SequenceMatcher(None, name, d).ratio())


def _one_edit(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` (different) one edit apart, a swap of neighbours included?"""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1:]


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


#: Where a node made by :func:`hashed_once` keeps its hash (never pickled: a string's
#: hash differs between processes).
_HASH = "_hash"


def hashed_once(cls: type) -> type:
    """Make a frozen dataclass node hash by its fields once: the hash the dataclass wrote
    (the same fields, the same value), found when first asked and kept on the node,
    which is immutable. An alternative is hashed whole by each cache it keys (its
    signature, its compiled form, its flexible dims), and every hash walked all its
    nodes again; now each node is walked once. A pickled node leaves its hash behind
    (string hashes differ between processes), and its copy finds it again."""
    by_fields = cls.__hash__

    def __hash__(self: object) -> int:
        found = self.__dict__.get(_HASH)
        if found is None:
            found = by_fields(self)
            object.__setattr__(self, _HASH, found)
        return found

    def __getstate__(self: object) -> dict:
        state = self.__dict__
        if _HASH in state:
            state = dict(state)
            del state[_HASH]
        return state

    cls.__hash__ = __hash__  # type: ignore[method-assign]
    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
    return cls

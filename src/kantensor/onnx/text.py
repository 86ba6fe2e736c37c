"""ONNX's text family (``onnx/defs/text``): StringConcat, RegexFullMatch, StringSplit and
StringNormalizer on STRING tensors (``signatures/onnx/text.toml``), each op's builder
beside its kernel. Values are NumPy's StringDType arrays (see :doc:`types`, "Strings").

StringSplit's substrings have a last axis as long as the most pieces an element splits
into, and StringNormalizer without stopwords keeps its input's shape, with stopwords an
unknown size (both decided by the data): a fresh unknown size, except that an input of
no elements splits into none. RegexFullMatch runs Python's ``re`` (ONNX names RE2, whose
syntax the common patterns share; a pattern that backtracks badly in ``re`` takes ``re``'s
time).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.templates import builder, dims, reads_ranks
from ..syntax.ast import FixedDim
from ..types.dtypes import NUMPY_STRING


def string_concat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.strings.add(x.astype(NUMPY_STRING), y.astype(NUMPY_STRING))


def regex_full_match(x: np.ndarray, *, pattern: str) -> np.ndarray:
    compiled = re.compile(pattern)
    flat = [compiled.fullmatch(s) is not None for s in x.ravel().tolist()]
    return np.array(flat, dtype=bool).reshape(x.shape)


@builder
def build_string_split(types: tuple, maxsplit: int | None = None, **_: Any) -> dict[str, Any]:
    """StringSplit: the substrings (the input's shape and the most pieces, at most
    ``maxsplit + 1``; none when the input has no element) and their counts."""
    x = types[0]
    empty = any(d == 0 for d in x.shape)
    given = [FixedDim(0) if d == 0 else n for d, n in zip(x.shape, dims("a", x.ndim),
                                                          strict=True)]
    (u,) = dims("u")
    pieces = FixedDim(0) if empty else u
    clauses = [] if empty else [u >= 0] if maxsplit is None else [u <= maxsplit + 1]
    return {"x": given, "y": [*given, pieces], "z": given, "fits": clauses}


def _pieces(s: str, delimiter: str, maxsplit: int | None) -> list[str]:
    limit = -1 if maxsplit is None else maxsplit
    return s.split(None, limit) if not delimiter else s.split(delimiter, limit)


def string_split(x: np.ndarray, *, delimiter: str = "", maxsplit: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    split = [_pieces(s, delimiter, maxsplit) for s in x.ravel().tolist()]
    width = max((len(p) for p in split), default=0)
    out = np.array([p + [""] * (width - len(p)) for p in split] or np.empty((0, 0)),
                   dtype=object).reshape(*x.shape, width)
    counts = np.array([len(p) for p in split], dtype=np.int64).reshape(x.shape)
    return out.astype(NUMPY_STRING), counts


@reads_ranks
def build_string_normalizer(types: tuple, stopwords: tuple = (), **_: Any) -> dict[str, Any]:
    """StringNormalizer: (C) or (1, C); stopwords removed leave an unknown number (one
    empty string when none is left)."""
    x = types[0]
    if x.ndim not in (1, 2):
        raise ParamError(f"the input must be of shape (C) or (1, C), got rank {x.ndim}")
    u, c = dims("u c")
    kept = u if stopwords else c
    lead = [1] if x.ndim == 2 else []
    return {"x": [*lead, c], "y": [*lead, kept], "fits": [u >= 0] if stopwords else []}


def string_normalizer(x: np.ndarray, *, case_change_action: str = "NONE",
                      is_case_sensitive: int = 0, locale: str = "",
                      stopwords: tuple = ()) -> np.ndarray:
    words = x.ravel().tolist()
    if stopwords:
        stop = set(stopwords) if is_case_sensitive else {w.lower() for w in stopwords}
        words = [w for w in words if (w if is_case_sensitive else w.lower()) not in stop]
    if case_change_action == "LOWER":
        words = [w.lower() for w in words]
    elif case_change_action == "UPPER":
        words = [w.upper() for w in words]
    if not words:
        words = [""]
    out = np.array(words, dtype=object)
    return (out.reshape(1, -1) if x.ndim == 2 else out).astype(NUMPY_STRING)

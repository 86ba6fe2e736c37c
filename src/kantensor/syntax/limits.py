"""Limits on signature texts and ASTs, so a hostile signature fails fast and clearly.

Printing, hashing, comparing and compiling a signature walk its expressions recursively;
bounding their nesting (:data:`MAX_NESTING`) keeps every one of those walks far from
Python's recursion limit, and bounding the text (:data:`MAX_SIGNATURE_TEXT`) keeps parsing
time bounded. Long sums stay possible: a sum of many terms nests only as deep as it is
written (``a+b+(c+d)`` is two levels), see :func:`balanced_join`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Final

from lark import Tree

from .errors import SignatureSyntaxError
from .vocabulary import NESTING_RULES, Word

__all__ = ["MAX_EXPONENT", "MAX_NESTING", "MAX_POWER_BITS", "MAX_SIGNATURE_TEXT",
           "NESTING_LEVELS", "balanced_join",
           "check_ast_nesting", "check_text", "check_tree_nesting"]

MAX_SIGNATURE_TEXT: Final = 100_000
"""Longest signature text that is parsed."""
MAX_EXPONENT: Final = 64
"""Largest exponent of ``**`` in a size expression (``n**64``)."""
MAX_POWER_BITS: Final = 4096
"""Most bits a power of ints may have when a size expression is evaluated: powers of
powers (``((9**64)**64)**64``) would otherwise make an int of millions of bits before any
size limit sees it."""
MAX_NESTING: Final = 64
"""Deepest nesting of dim and dtype expressions (each operator and each function call
is one level: the words of :mod:`~kantensor.syntax.vocabulary` that nest)."""


def _too_deep(depth_text: str) -> str:
    return f"expression nested more than {MAX_NESTING} levels deep{depth_text}"


def check_text(text: str) -> None:
    """SignatureSyntaxError if ``text`` is longer than :data:`MAX_SIGNATURE_TEXT`."""
    if len(text) > MAX_SIGNATURE_TEXT:
        raise SignatureSyntaxError(
            f"signature too long: {len(text)} characters (at most {MAX_SIGNATURE_TEXT}) "
            f"at position {MAX_SIGNATURE_TEXT}", text, MAX_SIGNATURE_TEXT, "a shorter signature"
        )


def check_tree_nesting(tree: Tree, text: str) -> None:
    """SignatureSyntaxError at the first expression nested deeper than :data:`MAX_NESTING`
    in a parse tree (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        if node.data in NESTING_RULES:
            depth += 1
            if depth > MAX_NESTING:
                pos = getattr(node.meta, "start_pos", 0) if not node.meta.empty else 0
                raise SignatureSyntaxError(_too_deep(f" at position {pos}"), text, pos,
                                           f"at most {MAX_NESTING} levels")  # fmt: skip
        stack.extend((child, depth) for child in node.children)


def check_ast_nesting(alternative: object, levels_above: int = 2) -> None:
    """ValueError if an Alternative nests expressions deeper than :data:`MAX_NESTING`.

    Every AST node that holds other nodes counts one level; an Alternative and its operand
    or clause are the two levels above any expression (``levels_above``; 0 for a tuple
    of dim expressions, such as a tensor type's sizes).
    """
    limit = MAX_NESTING + levels_above
    if _levels(alternative, limit) > limit:
        raise ValueError(_too_deep(""))


def _levels(node: object, budget: int) -> int:
    """How many levels ``node`` nests (a node holding nodes is one more than the deepest
    it holds; a tuple is as deep as its deepest item; a leaf none), or ``budget + 1`` as
    soon as it is known to be more than ``budget``. Each node's own levels are found once
    and remembered on it (nodes are immutable): the alternatives a template fills share
    their operands and their clauses without placeholders, and an output's size is often
    a clause's side too. The walk goes no deeper than ``budget`` nodes (a hostile
    expression is refused at its first levels past it), so its recursion is bounded."""
    own = getattr(node, "__dict__", None)
    if type(own) is dict:  # (an instance's: a class's is a mappingproxy)
        found = own.get(_LEVELS)
        if found is not None:
            return found
    if isinstance(node, tuple):
        known = [getattr(x, "__dict__", _NO_DICT).get(_LEVELS) for x in node]
        if None not in known:  # (every item's remembered: an alternative's operands and
            return max(known, default=0)  # most of its clauses, made by builders)
        deepest = 0
        for x in node:  # (an item's remembered levels read here: most items have them)
            held = getattr(x, "__dict__", None)
            found = held.get(_LEVELS) if type(held) is dict else None
            if found is None:
                if not (isinstance(x, tuple) or hasattr(x, _DATACLASS)):
                    continue
                found = _levels(x, budget)
            if found > deepest:
                deepest = found
                if deepest > budget:
                    return deepest
        return deepest
    names = _FIELD_NAMES.get(type(node))
    if names is None:
        names = _FIELD_NAMES[type(node)] = _field_names(type(node))
    if not names:
        return 0  # a leaf
    inner = -1  # the deepest of its children that hold nodes or are nodes (none: -1)
    for c in map(node.__getattribute__, names):
        if isinstance(c, tuple) or hasattr(c, _DATACLASS):
            if budget <= 0:
                return budget + 1  # (one level at least, past the budget)
            inner = max(inner, _levels(c, budget - 1))
            if inner >= budget:
                return budget + 1
    levels = inner + 1 if inner >= 0 else 0
    if type(own) is dict:
        object.__setattr__(node, _LEVELS, levels)
    return levels


#: The attribute a node's levels are remembered in (see :func:`_levels`); an operand of
#: names and fixed sizes sets it (1) when it is made.
NESTING_LEVELS = _LEVELS = "_nesting_levels"


#: What :func:`_levels` reads of an item without a ``__dict__`` (a name, a size).
_NO_DICT: dict[str, int] = {}

#: What makes a class, and its instances, a dataclass (as dataclasses.is_dataclass asks).
_DATACLASS = "__dataclass_fields__"

#: The class of an AST item -> the names of its fields, () for a leaf (see
#: :func:`_field_names`); filled as check_ast_nesting meets classes.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The fields check_ast_nesting walks in an instance of ``cls``: none unless it is a
    dataclass; a class (an instance of a metaclass) and a word of the vocabulary (a
    call's row) are leaves."""
    if not dataclasses.is_dataclass(cls) or issubclass(cls, type | Word):
        return ()
    return tuple(f.name for f in dataclasses.fields(cls))


def balanced_join(terms: Sequence[str], op: str = "+") -> str:
    """``terms`` joined by an associative ``op`` (``+`` or ``*``) as a balanced tree, so
    the expression nests ``log2(len(terms))`` levels deep instead of ``len(terms)``:
    ``a+b+(c+d)``. Its value is the plain ``a+b+c+d``."""
    if op not in ("+", "*"):
        raise ValueError(f"balanced_join needs an associative operator, got {op!r}")
    if not terms:
        raise ValueError("balanced_join needs at least one term")
    if len(terms) == 1:
        return terms[0]
    mid = (len(terms) + 1) // 2
    left, right = balanced_join(terms[:mid], op), balanced_join(terms[mid:], op)
    return f"{left}{op}({right})" if len(terms) - mid > 1 else f"{left}{op}{right}"

"""What a syntax error expects: "expected X or Y at position N", the terminals the LALR
parser accepts where it failed, named for humans (phrases of the grammar for the
terminals that start them)."""

from __future__ import annotations

import functools
from typing import Any

from lark import Lark, Token
from lark.common import ParserConf
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.grammar import NonTerminal
from lark.lexer import PatternStr
from lark.parsers.grammar_analysis import GrammarAnalyzer

from . import vocabulary as V
from .errors import SignatureSyntaxError

__all__ = ["A_DTYPE", "syntax_error"]


def syntax_error(lark: Lark, text: str, e: UnexpectedInput) -> SignatureSyntaxError:
    """The SignatureSyntaxError of Lark's error ``e`` parsing ``text`` with ``lark``."""
    if isinstance(e, UnexpectedCharacters):
        return _expected_error(lark, text, e.pos_in_stream, e)
    if isinstance(e, UnexpectedToken):
        at_end = e.token.type == "$END"
        pos = len(text.rstrip()) if at_end else e.token.start_pos
        return _expected_error(lark, text, pos, e)
    pos = getattr(e, "pos_in_stream", None) or 0  # pragma: no cover - not raised by LALR
    return SignatureSyntaxError(f"invalid signature at position {pos}", text, pos)


#: A template's placeholder: never offered (a signature has none; see template.py).
_HOLE = "HOLE"
_DESCRIBE = {"NAME": "a name", "INT": "an integer", "CMP": "a comparison operator",
             "$END": "end of input"}  # fmt: skip
_ORDER = ["')'", "','", "'->'", "'where'", "'|'"]
A_DTYPE = "a dtype (a dtype name or variable, " + \
    ", ".join(w.call for w in V.DTYPE_FUNCTIONS[:-1]) + f" or {V.DTYPE_FUNCTIONS[-1].call})"
#: How messages name a phrase of the grammar (a rule), widest first: when every terminal
#: that can start the phrase is accepted, the phrase stands for them all.
_PHRASES = {"clause": "a where-clause", "dim": "a dimension", "side": "an expression or a dtype",
            "sum": "an expression", "product": "an expression",  # after '-' no '-'
            "dtype": A_DTYPE}  # fmt: skip


@functools.cache
def _first(lark: Lark) -> dict[str, frozenset[str]]:
    """The terminals that can start each phrase of :data:`_PHRASES` (and a dtype call),
    as Lark's analysis of the grammar finds them."""
    analysis = GrammarAnalyzer(ParserConf(lark.rules, {}, ["start", "tensor_type"]))
    return {rule: frozenset(t.name for t in analysis.FIRST[NonTerminal(rule)]) - {_HOLE}
            for rule in (*_PHRASES, "dtype_call")}


@functools.cache
def _terminal(lark: Lark, word: V.Word) -> str:
    """The name Lark gives the terminal of ``word``'s text."""
    return next(t.name for t in lark.terminals
                if isinstance(t.pattern, PatternStr) and t.pattern.value == word.text)


def _parse_state(e: UnexpectedInput) -> tuple[set[str], Any]:
    """The terminals the parser accepts where it failed (the lexer's sets miss keywords),
    and the token before that place (None at the start)."""
    ip = getattr(e, "interactive_parser", None)
    if ip is None:  # pragma: no cover - Lark's LALR errors carry their parser
        return set(getattr(e, "expected", None) or getattr(e, "allowed", None) or ()), None
    stack = ip.parser_state.value_stack
    return set(ip.accepts()), stack[-1] if stack else None


def _describe(lark: Lark, name: str) -> str:
    if name in _DESCRIBE:
        return _DESCRIBE[name]
    pattern = lark.get_terminal(name).pattern
    return f"'{pattern.value}'" if isinstance(pattern, PatternStr) else name


def _expected_error(lark: Lark, text: str, pos: int, e: UnexpectedInput
                    ) -> SignatureSyntaxError:
    """'expected X or Y at position N': only what may stand there, phrases of the grammar
    summarized for humans."""
    accepted, before = _parse_state(e)
    names = {n for n in accepted if not n.startswith("__IGNORE") and n != _HOLE}
    first = _first(lark)
    if isinstance(before, Token) and before.type == "CMP" and before != V.EQ.text:
        names -= first["dtype_call"]  # dtypes compare only with '=='
    words: set[str] = set()
    for rule, phrase in _PHRASES.items():
        if first[rule] <= names:
            words.add(phrase)
            names -= first[rule]
    if names == {"INT"} and isinstance(before, Token) and before.type == _terminal(lark, V.ANON):
        words.add("an integer (the size k >= 1 of a '.k.' group, as in '.2.')")
        names = set()
    operators = {_terminal(lark, w) for w in V.DIM_OPERATORS if w.precedence is not None}
    if operators <= names:  # after an expression: it could go on; not worth listing
        names -= operators | {_terminal(lark, w) for w in V.DIM_OPERATORS} | \
            {_terminal(lark, V.FLEX)}
    words |= {_describe(lark, n) for n in names}
    ranked = sorted(words, key=lambda w: (_ORDER.index(w) if w in _ORDER else len(_ORDER), w))
    desc = ranked[0] if len(ranked) == 1 else ", ".join(ranked[:-1]) + " or " + ranked[-1]
    return SignatureSyntaxError(f"expected {desc} at position {pos}", text, pos, desc)

"""The DSL's vocabulary: every word and symbol of ``grammar.lark``, once, with its role.

Everything that lists the DSL's words reads them here: the reserved words
(:data:`kantensor.syntax.ast.names.RESERVED`), the comparison and dim operators of the AST,
the grammar rules that nest one expression in another (:mod:`kantensor.syntax.limits`),
the parser's builders of function calls, and the dtype functions the types layer
implements (:data:`kantensor.types.dtypes.DTYPE_FUNCTIONS`, keyed by these rows). The AST
node of a call names its row (``DTypeFunction(FLOAT, "T").word is FLOAT``).
``tests/test_vocabulary.py`` checks that the grammar's string literals are exactly this
table's words, and that each call takes the arguments the table says.

A word is a :class:`Word` object, compared by identity: the same spelling may have
several rows (``-`` subtracts and negates, ``*`` multiplies and starts a named group).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = [
    "COMPARISONS", "DIM_FUNCTIONS", "DIM_OPERATORS", "DTYPE_FUNCTIONS", "FUNCTIONS",
    "KEYWORDS", "NESTING_RULES", "RESERVED_WORDS", "VOCABULARY", "Role", "Word", "by_rule",
    "ADD", "SUB", "NEG", "MUL", "FLOORDIV", "MOD", "POW",
    "EQ", "NE", "LT", "LE", "GT", "GE",
    "ANON", "FLEX", "WHERE", "IN", "COMPATIBLE", "BROADCAST", "MIN", "MAX", "PROMOTE", "JOIN",
    "FLOAT", "REAL", "LOOPFLOAT",
]  # fmt: skip


class Role(Enum):
    """What a word does in the DSL."""

    PUNCTUATION = "punctuation"  # ( ) , -> | : [ ] and the markers ? . ... *name
    LOOP = "loop prefix"  # + and = before the inputs
    DIM_OPERATOR = "dim operator"  # + - * // % ** in size expressions
    COMPARISON = "comparison"  # == != < <= > >= in where-clauses
    KEYWORD = "keyword"  # where, in
    CLAUSE_FUNCTION = "clause function"  # compatible(T, U), broadcast(a, b) == c
    DIM_FUNCTION = "dim function"  # min(...), max(...)
    DTYPE_FUNCTION = "dtype function"  # promote(...), join(...), float(T), real(T), ...


@dataclass(frozen=True, eq=False)
class Word:
    """One row of the vocabulary.

    ``rule`` is the grammar rule (alias) the word builds, if it builds one; ``nests``
    says that rule holds an expression inside another (it counts towards
    :data:`~kantensor.syntax.limits.MAX_NESTING`); ``arity`` is ``(least, most)``
    arguments of a call (``most`` None: any number); ``precedence`` orders the binary dim
    operators (higher binds tighter).
    """

    text: str
    role: Role
    rule: str | None = None
    nests: bool = False
    arity: tuple[int, int | None] | None = None
    precedence: int | None = None

    @property
    def call(self) -> str:
        """How messages show a call of this word: ``promote(...)``."""
        return f"{self.text}(...)"

    def __repr__(self) -> str:
        return f"<{self.role.value} {self.text!r}>"

    def __reduce__(self) -> tuple:
        """Pickled as its row of the table: unpickled, it is the same object."""
        return (_row, (VOCABULARY.index(self),))


def _p(text: str) -> Word:
    return Word(text, Role.PUNCTUATION)


_ANY = (1, None)

FLEX = Word("?", Role.PUNCTUATION, "flex_dim")
ANON = Word(".", Role.PUNCTUATION, "anon_group")

ADD = Word("+", Role.DIM_OPERATOR, "add", nests=True, precedence=1)
SUB = Word("-", Role.DIM_OPERATOR, "sub", nests=True, precedence=1)
NEG = Word("-", Role.DIM_OPERATOR, "neg", nests=True)
MUL = Word("*", Role.DIM_OPERATOR, "mul", nests=True, precedence=2)
FLOORDIV = Word("//", Role.DIM_OPERATOR, "floordiv", nests=True, precedence=2)
MOD = Word("%", Role.DIM_OPERATOR, "mod", nests=True, precedence=2)
POW = Word("**", Role.DIM_OPERATOR, "pow", nests=True, precedence=3)

EQ, NE, LT, LE, GT, GE = (Word(op, Role.COMPARISON) for op in ("==", "!=", "<", "<=", ">", ">="))

WHERE = Word("where", Role.KEYWORD, "where")
IN = Word("in", Role.KEYWORD, "in_category")
COMPATIBLE = Word("compatible", Role.CLAUSE_FUNCTION, "compatible", arity=(2, 2))
BROADCAST = Word("broadcast", Role.CLAUSE_FUNCTION, "broadcasts", arity=_ANY)
MIN = Word("min", Role.DIM_FUNCTION, "min", nests=True, arity=_ANY)
MAX = Word("max", Role.DIM_FUNCTION, "max", nests=True, arity=_ANY)
PROMOTE = Word("promote", Role.DTYPE_FUNCTION, "promote", nests=True, arity=_ANY)
JOIN = Word("join", Role.DTYPE_FUNCTION, "join", nests=True, arity=_ANY)
FLOAT = Word("float", Role.DTYPE_FUNCTION, "float_of", nests=True, arity=(1, 1))
REAL = Word("real", Role.DTYPE_FUNCTION, "real_of", nests=True, arity=(1, 1))
LOOPFLOAT = Word("loopfloat", Role.DTYPE_FUNCTION, "loopfloat", nests=True, arity=_ANY)

#: Every row: each string literal of the grammar is the text of one or more of them.
VOCABULARY: tuple[Word, ...] = (
    _p(")"), _p(","), _p("->"), WHERE, _p("|"),
    _p("("), _p(":"), _p("["), _p("]"),
    FLEX, ANON, _p("..."), Word("*", Role.PUNCTUATION, "named_group"),  # n? .k. ... *name
    Word("?", Role.PUNCTUATION, "unknown_size"),  # float32[?]
    Word("+", Role.LOOP, "broadcast_loop"), Word("=", Role.LOOP, "equal_loop"),
    ADD, SUB, NEG, MUL, FLOORDIV, MOD, POW,
    EQ, NE, LT, LE, GT, GE,
    IN, COMPATIBLE, BROADCAST, MIN, MAX, PROMOTE, JOIN, FLOAT, REAL, LOOPFLOAT,
)  # fmt: skip


def _row(index: int) -> Word:
    return VOCABULARY[index]


def _with(*roles: Role) -> tuple[Word, ...]:
    return tuple(w for w in VOCABULARY if w.role in roles)


DIM_OPERATORS = _with(Role.DIM_OPERATOR)
COMPARISONS = _with(Role.COMPARISON)
DIM_FUNCTIONS = _with(Role.DIM_FUNCTION)
DTYPE_FUNCTIONS = _with(Role.DTYPE_FUNCTION)
FUNCTIONS = _with(Role.CLAUSE_FUNCTION, Role.DIM_FUNCTION, Role.DTYPE_FUNCTION)
KEYWORDS = _with(Role.KEYWORD, Role.CLAUSE_FUNCTION, Role.DIM_FUNCTION, Role.DTYPE_FUNCTION)
#: The words that can never be a name.
RESERVED_WORDS = frozenset(w.text for w in KEYWORDS)
#: The grammar rules that hold an expression inside another.
NESTING_RULES = frozenset(w.rule for w in VOCABULARY if w.nests)
_BY_RULE = {w.rule: w for w in VOCABULARY if w.rule is not None}


def by_rule(rule: str) -> Word:
    """The word that builds grammar rule ``rule`` (KeyError if none)."""
    return _BY_RULE[rule]

"""The grammar in ``grammar.lark``, LALR via Lark: signatures and tensor types.

``parse_alternatives(text)`` gives a signature's alternatives, ``parse_tensor_type(text)``
the parts of a compact tensor type, as the AST of :mod:`.ast`. Lexical problems the
grammar cannot express (``.0.``, two ``...`` in an operand, reserved words, categories,
whether ``a == b`` compares dims or dtypes) are reported here; the well-formedness of a
whole alternative is checked once, by :func:`kantensor.syntax.alternative.check`, and its
errors are mapped to positions. Every problem is a :class:`SignatureSyntaxError` with a
position.

Two passes of the one grammar: the LALR parser builds the AST as it reduces (Lark's
inline transformer: no tree, no positions), all a well-formed text needs. A text it
refuses but for a syntax error is parsed again to a tree with positions, checked for
nesting, then made the AST: the first problem, in the messages' order, and where it is.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer_NonRecursive, Tree, v_args
from lark.exceptions import UnexpectedInput, VisitError

from . import ast as A
from . import forms, tables
from . import vocabulary as V
from .alternative import Alternative, IllFormed, Kind, Loop, resolve_dtype_names
from .ast import (
    CATEGORIES,
    DTYPE_NAMES,
    RESERVED,
    AnonGroup,
    AnyGroup,
    BinOp,
    Broadcasts,
    Call,
    Compare,
    Compatible,
    DimExpr,
    DimVar,
    DType,
    DTypeEq,
    DTypeName,
    DTypeVar,
    FixedDim,
    FlexDim,
    InCategory,
    NamedGroup,
    TensorPattern,
)
from .errors import SignatureSyntaxError, placeholder_error
from .expected import A_DTYPE, syntax_error
from .limits import (
    MAX_EXPONENT,
    MAX_NESTING,
    check_ast_nesting,
    check_text,
    check_tree_nesting,
)
from .template import Spliced, Template, TemplateRules

__all__ = ["parse_alternatives", "parse_fresh", "parse_template", "parse_tensor_type"]


@functools.cache
def _lark() -> Lark:
    """The LALR parser that builds the AST as it reduces (:data:`_INLINE`), loaded from
    the shipped tables on first use; its grammar's rules and terminals also name what a
    syntax error expects."""
    return tables.lark(transformer=_INLINE)


@functools.cache
def _positioned() -> Lark:
    """The same grammar's parser to a tree with positions (for a text _lark refuses)."""
    return tables.lark(propagate_positions=True)


def parse_alternatives(text: str) -> tuple[Alternative, ...]:
    """The alternatives of a signature's text form; raises :class:`SignatureSyntaxError`."""
    return _parse(text, "start", "a signature")


def parse_template(text: str) -> Template:
    """A signature template: the DSL with placeholders ``{name}`` (see
    :mod:`kantensor.syntax.template`), parsed once; SignatureSyntaxError as for a
    signature (its parts without placeholders are checked as alternatives)."""
    return Template(_parse(text, "start", "a signature template", template=True))


def parse_tensor_type(text: str) -> tuple[str, tuple[DimExpr | None, ...] | None]:
    """``(head, sizes)`` of a compact tensor type such as ``float32[n,3,?]``: the name
    before the brackets, and the sizes as dim expressions (``None`` for ``?``); sizes
    is None when there are no brackets. SignatureSyntaxError on a syntax error."""
    return _parse(text, "tensor_type", "a tensor type")


def parse_fresh(text: str, template: bool = False) -> tuple[Any, ...]:
    """The alternatives of a signature's text (or of a template, ``template``), parsed
    now, never taken from a shipped form (:mod:`kantensor.syntax.forms`): what the
    shipped forms are made from, and compared with."""
    return _parse(text, "start", "a signature", template, shipped=False)


def _parse(text: str, start: str, what: str, template: bool = False,
           shipped: bool = True) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be given as a str, got {type(text).__name__}")
    check_text(text)
    if not template and "{" in text:
        raise placeholder_error(text, text.index("{"))
    if shipped and start == "start":  # (a form parsed when the catalogue was indexed)
        found = forms.known(text, template)
        if found is not None:
            return found
    try:
        with _INLINE_LOCK:
            _INLINE.begin(text, template)
            result = _lark().parse(text, start=start)
        if start == "tensor_type" and result[1] is not None:  # (an Alternative checks its own)
            check_ast_nesting(result[1], levels_above=0)
        hash(result)  # the AST is hashed as a cache key
        return result
    except UnexpectedInput as e:  # a syntax error: the same in both passes
        raise syntax_error(_lark(), text, e) from None
    except Exception:  # any other problem: found again, with its position
        pass
    return _parse_positioned(text, start, template)


def _parse_positioned(text: str, start: str, template: bool = False) -> Any:
    """The positioned pass: parse to a tree with positions, bound its nesting, then
    build the AST; raises the text's first problem."""
    if not template and "{" in text:
        raise placeholder_error(text, text.index("{"))
    try:
        tree = _positioned().parse(text, start=start)
    except UnexpectedInput as e:
        raise syntax_error(_lark(), text, e) from None  # (the same grammar)
    check_tree_nesting(tree, text)
    try:
        result = _Positioned(text, template).transform(tree)
        hash(result)  # the AST is hashed as a cache key: too deep must fail here, cleanly
        return result
    except VisitError as e:
        if isinstance(e.orig_exc, SignatureSyntaxError):
            raise e.orig_exc from None
        if isinstance(e.orig_exc, RecursionError):
            raise _too_deep(text) from None
        raise
    except RecursionError:
        raise _too_deep(text) from None


def _too_deep(text: str) -> SignatureSyntaxError:
    return SignatureSyntaxError("expression too long or nested too deeply at position 0",
                                text, 0, "a smaller expression")  # fmt: skip


# --------------------------------------------------------------------------- tree -> AST


@dataclass(frozen=True)
class _Name:
    """A bare NAME in an expression: a dim, or a dtype in a ``a == b`` clause."""

    name: str
    pos: int


@dataclass(frozen=True)
class _AmbiguousEq:
    """``a == b`` between bare names, resolved when its alternative is complete."""

    left: _Name
    right: _Name


_DTYPE_CALLS = tuple(A.DTYPE_CALLS.values())


class _ToAst(TemplateRules, Transformer_NonRecursive):
    """Builds the AST; collects name uses per alternative to check and resolve them. The
    inline transformer (:data:`_INLINE`: :meth:`begin` starts each text) and the tree's."""

    def __init__(self, text: str = "", template: bool = False) -> None:
        super().__init__(visit_tokens=False)
        self.begin(text, template)

    def begin(self, text: str, template: bool = False) -> None:
        """Start on ``text`` (forget what an earlier text left); ``template``: it may have
        placeholders (see :mod:`kantensor.syntax.template`)."""
        self.text = text
        self.template = template
        self.uses: list[tuple[int, str, Kind]] = []  # (position, name, kind)
        self.pairs: list[_AmbiguousEq] = []
        self.depths: dict[int, int] = {}  # id of an expression made -> its nesting

    def _error(self, message: str, pos: int, expected: str) -> SignatureSyntaxError:
        return SignatureSyntaxError(message, self.text, pos, expected)

    def _int(self, tok: Token) -> int:
        try:
            return int(tok)
        except ValueError:  # beyond Python's int-from-str digit limit
            raise self._error(f"integer too large at position {tok.start_pos}",
                              tok.start_pos, "a smaller integer") from None  # fmt: skip

    def _var(self, name: str, pos: int, kind: Kind) -> str:
        """Check a name used as ``kind`` and record the use."""
        if name in RESERVED:
            raise self._error(f"'{name}' is a reserved word at position {pos}", pos, "a name")
        if name in DTYPE_NAMES:
            if kind is not Kind.DTYPE:
                raise self._error(f"'{name}' is a dtype name, not a {kind.value}, "
                                  f"at position {pos}", pos, f"a {kind.value}")  # fmt: skip
        else:
            self.uses.append((pos, name, kind))
        return name

    def _nest(self, node: Any, children: list[Any]) -> Any:
        """``node``, an expression one level above ``children``. The inline pass gives
        up a text nested too deeply as soon as it is seen (the positioned pass then says
        where), instead of making its whole AST first."""
        depth = 1 + max([self.depths.get(id(x), 0) for x in children])
        if depth > MAX_NESTING:
            raise ValueError("nested too deeply")
        self.depths[id(node)] = depth
        return node

    def _dim(self, x: Any) -> DimExpr:
        if isinstance(x, _Name):
            return DimVar(self._var(x.name, x.pos, Kind.DIM))
        return x

    def _dtype(self, x: Any, pos: int) -> DType:
        if isinstance(x, _Name):
            name = self._var(x.name, x.pos, Kind.DTYPE)
            return DTypeName(name) if name in DTYPE_NAMES else DTypeVar(name)
        if not isinstance(x, _DTYPE_CALLS) and not isinstance(x, A.DTypeHole):
            raise self._error(f"expected {A_DTYPE} at position {pos}", pos, A_DTYPE)
        return x

    # -- signature, alternatives, operands

    def start(self, alts: list[Alternative]) -> tuple[Alternative, ...]:
        return tuple(alts)

    def alternative(self, c: list[Any], start: int = 0) -> Alternative:
        """``start``: where an ill-formed alternative is reported when no use of a name
        is to blame (the positioned pass's position of the alternative)."""
        loop, inputs, outputs, where = c
        kind, cap = loop or (None, None)
        clauses = self._resolve(where or [])
        uses, self.uses = self.uses, []
        try:
            if self.template:
                return self._alternative_template(inputs, outputs, clauses, kind, cap)
            return Alternative(tuple(inputs), tuple(outputs), tuple(clauses), kind, cap)
        except IllFormed as exc:
            pos = next((p for p, name, k in uses if name == exc.name
                        and exc.kind in (None, k)), start)
            raise self._error(f"{exc} at position {pos}", pos, exc.expected) from None

    # -- tensor types

    def tensor_type(self, c: list[Any]) -> tuple[str, tuple[DimExpr | None, ...] | None]:
        head, shape = c
        self.uses.clear()
        return str(head), shape

    def shape(self, c: list[Any]) -> tuple[DimExpr | None, ...]:
        return tuple(c[0] or ())

    def sizes(self, c: list[Any]) -> list[DimExpr | None]:
        return [None if x is None else self._dim(x) for x in c]

    def unknown_size(self, c: list[Any]) -> None:
        return None

    def broadcast_loop(self, c: list[Token | None]) -> tuple[Loop, int | None]:
        return Loop.BROADCAST, None if c[0] is None else self._int(c[0])

    def equal_loop(self, c: list[Token | None]) -> tuple[Loop, int | None]:
        return Loop.EQUAL, None if c[0] is None else self._int(c[0])

    def inputs(self, c: list[TensorPattern | None]) -> list[TensorPattern]:
        return [x for x in c if x is not None]

    def outputs(self, c: list[TensorPattern]) -> list[TensorPattern]:
        return c

    def operand(self, c: list[Any]) -> TensorPattern:
        return TensorPattern(tuple(c[0] or ()), c[1])

    def dims(self, c: list[Any]) -> list[Any]:
        items, seen = [], False
        for x in c:
            if isinstance(x, Token):  # ELLIPSIS
                if seen:
                    raise self._error(f"second '...' in one operand at position {x.start_pos}",
                                      x.start_pos, "at most one '...' per operand")  # fmt: skip
                seen = True
                items.append(AnyGroup())
            else:
                items.append(self._dim(x))
        return items

    def flex_dim(self, c: list[Token]) -> FlexDim:
        return FlexDim(self._var(str(c[0]), c[0].start_pos, Kind.FLEX))

    def anon_group(self, c: list[Token]) -> AnonGroup:
        k = self._int(c[0])
        if k < 1:
            raise self._error(f"a '.k.' group needs k >= 1 at position {c[0].start_pos}",
                              c[0].start_pos, "an integer >= 1")  # fmt: skip
        return AnonGroup(k)

    def named_group(self, c: list[Token]) -> NamedGroup:
        return NamedGroup(self._var(str(c[0]), c[0].start_pos, Kind.GROUP))

    # -- dim expressions

    def add(self, c: list[Any]) -> BinOp:
        return self._nest(BinOp("+", self._dim(c[0]), self._dim(c[1])), c)

    def sub(self, c: list[Any]) -> BinOp:
        return self._nest(BinOp("-", self._dim(c[0]), self._dim(c[1])), c)

    def neg(self, c: list[Any]) -> BinOp:
        return self._nest(BinOp("-", FixedDim(0), self._dim(c[0])), c)

    def mul(self, c: list[Any]) -> BinOp:
        return self._nest(BinOp("*", self._dim(c[0]), self._dim(c[1])), c)

    def floordiv(self, c: list[Any]) -> BinOp:
        return self._nest(BinOp("//", self._dim(c[0]), self._dim(c[1])), c)

    def mod(self, c: list[Any]) -> BinOp:
        return self._nest(BinOp("%", self._dim(c[0]), self._dim(c[1])), c)

    def pow(self, c: list[Any]) -> BinOp:
        k = self._int(c[1])
        if k > MAX_EXPONENT:
            raise self._error(f"exponent {k} too large at position {c[1].start_pos} (at "
                              f"most {MAX_EXPONENT})", c[1].start_pos, "a smaller exponent")
        return self._nest(BinOp("**", self._dim(c[0]), FixedDim(k)), c)

    def name(self, c: list[Token]) -> _Name:
        return _Name(str(c[0]), c[0].start_pos)

    def fixed(self, c: list[Token]) -> FixedDim:
        return FixedDim(self._int(c[0]))

    def __default__(self, data: str, children: list[Any], meta: Any) -> Any:
        """A call of a function of the vocabulary (the rule its row names); inline, also
        the rules Lark makes for repetitions (``__dims_star_2``): their tree, whose
        children Lark splices into the rule that holds them."""
        if data[0] == "_":
            return Tree(data, children)
        word = V.by_rule(data)
        if word.role is V.Role.DIM_FUNCTION:
            return self._nest(Call(word.text, tuple(map(self._dim, children))), children)
        return self._nest(A.dtype_call(word, children), children)

    # -- dtypes

    def dtype_name(self, c: list[Token]) -> DType:
        return self._dtype(_Name(str(c[0]), c[0].start_pos), c[0].start_pos)

    # -- where-clauses

    def where(self, c: list[Any]) -> list[Any]:
        return c

    def compare(self, c: list[Any], start: int = 0) -> Any:
        """``start``: the position of the left side (the positioned pass's)."""
        left, op, right = c
        if op == "==" and isinstance(left, _Name) and isinstance(right, _Name):
            pair = _AmbiguousEq(left, right)
            self.pairs.append(pair)
            return pair
        if isinstance(left, _DTYPE_CALLS) or isinstance(right, _DTYPE_CALLS):
            if op != "==":
                raise self._error(f"dtypes can only be compared with '==' at position "
                                  f"{op.start_pos}", op.start_pos, "'=='")  # fmt: skip
            right_pos = len(self.text) - len(self.text[op.end_pos :].lstrip())
            return DTypeEq(self._dtype(left, start), self._dtype(right, right_pos))
        return Compare(str(op), self._dim(left), self._dim(right))

    def in_category(self, c: list[Any]) -> InCategory:
        dtype, cat = c
        if cat not in CATEGORIES:
            expected = "one of " + ", ".join(sorted(CATEGORIES))
            raise self._error(f"unknown dtype category '{cat}' at position {cat.start_pos} "
                              f"(expected {expected})", cat.start_pos, expected)  # fmt: skip
        return InCategory(dtype, str(cat))

    def in_dtypes(self, c: list[Any]) -> InCategory:
        """``T in (float16, float32)``: a set of dtype names."""
        dtype, *names = c
        for name in names:
            if name not in DTYPE_NAMES:
                near = A.near_dtype(str(name))
                hint = f" (did you mean '{near}'?)" if near else ""
                raise self._error(f"unknown dtype '{name}' at position {name.start_pos}{hint}",
                                  name.start_pos, "a dtype name")  # fmt: skip
        return InCategory(dtype, tuple(str(n) for n in names))

    def compatible(self, c: list[DType]) -> Compatible:
        return Compatible(c[0], c[1])

    def broadcasts(self, c: list[Any]) -> Broadcasts:
        return Broadcasts(tuple(self._dim(x) for x in c[:-1]), self._dim(c[-1]))

    def _resolve(self, where: list[Any]) -> list[Any]:
        """Decide each ``a == b``, then check that no name is used as two kinds."""
        known = resolve_dtype_names(
            {name for _, name, kind in self.uses if kind is Kind.DTYPE},
            [(p.left.name, p.right.name) for p in self.pairs],
        )
        clauses = []
        for c in where:
            if isinstance(c, Spliced) and isinstance(c.item, _AmbiguousEq):
                c = Spliced(self._resolve_one(c.item, known), c.names)
            elif isinstance(c, _AmbiguousEq):
                c = self._resolve_one(c, known)
            clauses.append(c)
        self.pairs.clear()
        return clauses

    def _resolve_one(self, c: _AmbiguousEq, known: set[str]) -> Any:
        if c.left.name in known:
            return DTypeEq(self._dtype(c.left, 0), self._dtype(c.right, 0))
        return Compare("==", self._dim(c.left), self._dim(c.right))


class _Positioned(_ToAst):
    """The positioned pass's walk of the tree: :class:`_ToAst` with the positions of
    alternatives and comparisons that Lark's tree carries (its nesting checked before)."""

    def _nest(self, node: Any, children: list[Any]) -> Any:
        return node

    @v_args(meta=True)
    def alternative(self, meta: Any, c: list[Any]) -> Alternative:  # type: ignore[override]
        return super().alternative(c, meta.start_pos)

    @v_args(meta=True)
    def compare(self, meta: Any, c: list[Any]) -> Any:  # type: ignore[override]
        return super().compare(c, meta.start_pos)


#: The inline pass's transformer, and the lock that gives it to one text at a time.
_INLINE = _ToAst()
_INLINE_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    """A process forked while another thread parsed inherits the lock held: the child
    (that thread gone) starts with a free one."""
    global _INLINE_LOCK
    _INLINE_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_new_lock_in_child)

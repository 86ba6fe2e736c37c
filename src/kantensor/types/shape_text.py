"""Read the compact type notation ``float32[3,?,n,2*n+1]`` without evaluating Python.

A small tokenizer and a recursive-descent reader of size expressions::

    entry  := "?" | sum
    sum    := prod (("+" | "-") prod)*
    prod   := unary (("*" | "//" | "%") unary)*
    unary  := ("-" | "+")* power
    power  := atom ("**" unary)?
    atom   := INT | NAME | ("min" | "max") "(" sum ("," sum)* ")" | "(" sum ")"

which is the notation ``str(Dim)`` prints (``2*n + 1``, ``(n + 1)//2``, ``n % 2``,
``min(m, n)``, ``n**2``). Sums and runs of signs are read in loops; only ``( )``,
``min``/``max`` and ``**`` nest, and at most :data:`~kantensor.types.limits.MAX_NESTING`
deep. Every intermediate result is checked against :mod:`kantensor.types.limits` *before*
a costly step (a product's or power's term count, an int power's magnitude), so any text
is read, or refused with a ValueError, in time linear in its length times the limits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from .dim import Dim, dim_max, dim_min
from .limits import (
    MAX_ARGS,
    MAX_EXPONENT,
    MAX_NDIM,
    MAX_NESTING,
    MAX_TERMS,
    MAX_TYPE_TEXT,
    check_terms,
    check_text,
)

__all__ = ["parse_shape_entries"]

Size = int | Dim | None
_TOKEN = re.compile(r"\s*(?:([0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|//|[-+*%(),?]))")


class _Reader:
    """Tokens of one type text's shape body, read left to right."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, value, position)
        pos = start
        while True:
            while pos < end and text[pos].isspace():
                pos += 1
            if pos >= end:
                break
            match = _TOKEN.match(text, pos, end)
            if not match:
                raise self.error(f"unexpected character {text[pos]!r}", pos)
            kind = "int" if match.group(1) else "name" if match.group(2) else match.group(3)
            self.tokens.append((kind, match.group(match.lastindex), match.start(match.lastindex)))
            pos = match.end()
        self.tokens.append(("end", "", end))
        self.i = 0
        self.depth = 0

    def error(self, message: str, pos: int) -> ValueError:
        return ValueError(f"bad tensor type {self.text!r}: {message} at position {pos}")

    def peek(self) -> str:
        return self.tokens[self.i][0]

    def take(self, kind: str) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        if tok[0] != kind:
            found = "the end" if tok[0] == "end" else repr(tok[1])
            raise self.error(f"expected {kind!r}, found {found}", tok[2])
        self.i += 1
        return tok

    def nest(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"size expression nested more than {MAX_NESTING} levels deep", pos)

    # -- grammar -------------------------------------------------------------------------

    def entries(self) -> list[Size]:
        out: list[Size] = []
        if self.peek() == "end":
            return out
        while True:
            if len(out) == MAX_NDIM:
                raise self.error(f"more than {MAX_NDIM} axes", self.tokens[self.i][2])
            if self.peek() == "?":
                self.i += 1
                out.append(None)
            else:
                out.append(self.sum())
            if self.peek() == "end":
                return out
            self.take(",")

    def sum(self) -> int | Dim:
        value = self.prod()
        while self.peek() in ("+", "-"):
            op, _, pos = self.tokens[self.i]
            self.i += 1
            right = self.prod()
            value = self.checked(value + right if op == "+" else value - right, pos)
        return value

    def prod(self) -> int | Dim:
        value = self.unary()
        while self.peek() in ("*", "//", "%"):
            op, _, pos = self.tokens[self.i]
            self.i += 1
            right = self.unary()
            value = self.apply(op, value, right, pos)
        return value

    def unary(self) -> int | Dim:
        negate = False
        while self.peek() in ("-", "+"):
            negate ^= self.peek() == "-"
            self.i += 1
        value = self.power()
        return -value if negate else value

    def power(self) -> int | Dim:
        base = self.atom()
        if self.peek() != "**":
            return base
        pos = self.tokens[self.i][2]
        self.i += 1
        self.nest(pos)
        exponent = self.unary()
        self.depth -= 1
        return self.apply("**", base, exponent, pos)

    def atom(self) -> int | Dim:
        kind, value, pos = self.tokens[self.i]
        if kind == "int":
            self.i += 1
            if len(value) > 19:  # more digits than MAX_SIZE: never convert the text
                raise self.error(f"size {value[:20]}... is too large (at most 2**63 - 1)", pos)
            return self.checked(int(value), pos)
        if kind == "name":
            self.i += 1
            if value in ("min", "max") and self.peek() == "(":
                return self.call(value, pos)
            try:
                return Dim(value)
            except ValueError as exc:
                raise self.error(str(exc), pos) from None
        if kind == "(":
            self.i += 1
            self.nest(pos)
            inner = self.sum()
            self.take(")")
            self.depth -= 1
            return inner
        found = "the end" if kind == "end" else repr(value)
        raise self.error(f"expected a size (an int, a name, '?' or an expression), "
                         f"found {found}", pos)

    def call(self, fn: str, pos: int) -> int | Dim:
        self.take("(")
        self.nest(pos)
        args = [self.sum()]
        while self.peek() == ",":
            self.i += 1
            if len(args) == MAX_ARGS:
                raise self.error(f"{fn}() with more than {MAX_ARGS} arguments", pos)
            args.append(self.sum())
        self.take(")")
        self.depth -= 1
        return self.checked((dim_min if fn == "min" else dim_max)(*args), pos)

    # -- arithmetic within the limits ----------------------------------------------------

    def checked(self, value: int | Dim, pos: int) -> int | Dim:
        try:
            return check_terms(value, "size expression")
        except ValueError as exc:
            raise self.error(str(exc), pos) from None

    def apply(self, op: str, a: int | Dim, b: int | Dim, pos: int) -> int | Dim:
        try:
            if op == "**":
                return _power(a, b)
            if op == "*" and _terms(a) * _terms(b) > MAX_TERMS:
                raise ValueError(f"size expression is too large: a product of "
                                 f"{_terms(a)} and {_terms(b)} terms (at most {MAX_TERMS})")
            result = _BINARY[op](a, b)
        except ZeroDivisionError as exc:
            raise self.error(str(exc), pos) from None
        except (ValueError, TypeError) as exc:
            raise self.error(str(exc), pos) from None
        return self.checked(result, pos)


def _terms(x: int | Dim) -> int:
    return 1 if isinstance(x, int) else len(x._terms)


def _power(base: int | Dim, exponent: int | Dim) -> int | Dim:
    """``base ** exponent`` for an int exponent >= 0, refused before it gets too large."""
    if not isinstance(exponent, int):
        raise ValueError(f"the exponent of a size must be an int, got {exponent}")
    if exponent < 0:
        raise ValueError(f"negative exponent for a size: ({base})**{exponent}")
    if isinstance(base, int):
        if abs(base) > 1 and exponent * math.log2(abs(base)) > 63:
            raise ValueError(f"size {base}**{exponent} is too large (at most 2**63 - 1)")
        return base**exponent
    if exponent > MAX_EXPONENT:
        raise ValueError(f"exponent {exponent} of a symbolic size is too large "
                         f"(at most {MAX_EXPONENT})")
    result: int | Dim = 1
    for _ in range(exponent):
        if _terms(result) * _terms(base) > MAX_TERMS:
            raise ValueError(f"size expression is too large: ({base})**{exponent} expands "
                             f"to more than {MAX_TERMS} terms")
        result = check_terms(result * base, "size expression")
    return result


_BINARY: dict[str, Callable[[int | Dim, int | Dim], int | Dim]] = {
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def parse_shape_entries(text: str, start: int, end: int) -> list[Size]:
    """The shape entries written in ``text[start:end]`` (the part between ``[`` and ``]``);
    ValueError naming the position of the first problem."""
    check_text(text, MAX_TYPE_TEXT, "tensor type text")
    return _Reader(text, start, end).entries()


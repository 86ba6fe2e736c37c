"""Reading a command line: its words, and the types, Ops, parameters and options they
name; the errors a command reports with a caret under the word at fault.

Types are written in the compact notation (``float32[3,?]``). In queries, a bare name
(``X``) stands for an unknown type, a name in dtype position (``D[3]``) for an unknown
dtype and a name in a shape (``float32[n,3]``) for an unknown size; ``?`` is an anonymous
unknown size. Parameters (``axis=1``) are Python literals. Words are separated by
spaces; quotes group a signature that contains spaces.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ops import op_named
from ..ops.sizeparams import SIZES_ONLY_KINDS
from ..query import pattern, var
from ..signature.signature import Signature
from ..syntax.ast import DimVar, FixedDim, near_dtype
from ..syntax.errors import COMMAND_ERRORS, SignatureSyntaxError
from ..syntax.parser import parse_tensor_type
from ..types.dtypes import DTYPES
from ..types.type import TensorType

__all__ = ["ERRORS", "MAX_PARAM_TEXT", "TYPED", "CommandError", "Word", "error",
           "format_error", "joined", "limit_option", "lookup", "query_term", "read_target",
           "read_type", "split", "split_params"]

_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
#: ``NAME:TYPE`` in ``refine``: a type for a name of the graph (never a slice ``a:b]``).
TYPED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?)$")
#: Longest ``name=value`` parameter value read as a Python literal (never evaluated).
MAX_PARAM_TEXT = 1_000

#: The errors a command reports as a message (anything else is a bug, with a traceback).
ERRORS = COMMAND_ERRORS


class CommandError(ValueError):
    """A command that cannot be read: the message, and a caret under ``line[position]``."""

    # Named where users import it (a traceback says kantensor.commands.CommandError).
    __module__ = "kantensor.commands"

    def __init__(self, message: str, line: str = "", position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.position = position

    def within(self, prefix: str) -> CommandError:
        """The same error in the line ``prefix + line`` (the command's name before its
        arguments), the caret moved along."""
        if self.position is None:
            return self
        return CommandError(self.message, prefix + self.line, self.position + len(prefix))

    def __str__(self) -> str:
        if self.position is None or not self.line:
            return self.message
        return f"{self.message}\n  {self.line}\n  {' ' * self.position}^"


@dataclass(frozen=True)
class Word:
    """One word of a command line, where it starts and where it ends in the line (None:
    not from a line); its text has the quotes that grouped it removed."""

    text: str
    start: int | None = None
    end: int | None = None


def split(line: str) -> list[Word]:
    """The words of ``line``: runs of non-spaces, quotes grouping (and removed)."""
    words: list[Word] = []
    i, n = 0, len(line)
    while i < n:
        if line[i].isspace():
            i += 1
            continue
        start, text = i, []
        while i < n and not line[i].isspace():
            if line[i] in "'\"":
                end = line.find(line[i], i + 1)
                if end < 0:
                    raise CommandError(f"unbalanced {line[i]} quote", line, i)
                text.append(line[i + 1:end])
                i = end + 1
            else:
                text.append(line[i])
                i += 1
        words.append(Word("".join(text), start, i))
    return words


def error(message: str, word: Word, line: str) -> CommandError:
    return CommandError(message, line, word.start)


def split_params(words: Sequence[Word], line: str) -> tuple[list[Word], dict[str, Any]]:
    """Separate ``name=value`` parameters (Python literals, else strings) from types
    (``line``: the words' line, where an error's caret points)."""
    rest: list[Word] = []
    params: dict[str, Any] = {}
    for word in words:
        match = _PARAM.match(word.text)
        if not match:
            rest.append(word)
            continue
        name, value = match.groups()
        if len(value) > MAX_PARAM_TEXT:
            raise error(f"parameter value too long: {len(value)} characters (at most "
                         f"{MAX_PARAM_TEXT})", word, line)
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            params[name] = value
    return rest, params


def lookup(word: Word, line: str = "") -> Any:
    """The catalogue Op named by ``word``, or None when the word is signature text.

    A bare name that is no Op is an error suggesting the nearest names (see
    :func:`kantensor.ops.op_named`)."""
    try:
        return op_named(word.text)
    except ValueError as exc:
        raise error(str(exc), word, line) from None


def read_target(word: Word, params: dict[str, Any], line: str) -> Any:
    """What to run: a catalogue Op (an Op with parameters bound to ``params``) or the
    Signature of signature text."""
    found = lookup(word, line)
    if found is None:
        if params:
            raise error("parameters (name=value) need a catalogue Op, not signature text",
                         word, line)
        try:
            return Signature.parse(word.text)
        except SignatureSyntaxError as exc:
            verbatim = word.start is not None and \
                line[word.start:word.start + len(word.text)] == word.text
            if not verbatim or "\n" in word.text:
                raise
            # The caret goes under the culprit in the whole command line.
            raise CommandError(f"bad signature: {exc.message}", line,
                               word.start + exc.position) from None
    if hasattr(found, "bind"):
        return found.bind(**_sizes_named(found, params))
    if params:
        raise error(f"{word.text} takes no parameters, got {', '.join(params)}", word, line)
    return found


def _sizes_named(op: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with each size parameter of ``op`` (its kind one of
    :data:`~kantensor.ops.sizeparams.SIZES_ONLY_KINDS`) that is no Python literal (its text
    kept by :func:`split_params`) read as sizes: ``(n,3)`` is ``(Dim("n"), 3)``, ``2*n``
    one Dim; Python's syntax says what is a tuple, the DSL's what each size is (the size
    expressions of a type: ``float32[2*n,3]``). Text that is neither stays as it is (the
    parameter's own check words the error)."""
    spec = getattr(op, "spec", None)
    kinds = {p.name: p.kind for p in spec.params} if spec is not None else {}
    out = dict(params)
    for name, value in params.items():
        if isinstance(value, str) and kinds.get(name) in SIZES_ONLY_KINDS:
            sizes = _read_sizes(value)
            if sizes is not None:
                out[name] = sizes
    return out


def _read_sizes(text: str) -> Any:
    """The sizes ``text`` writes (see :func:`_sizes_named`), or None."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    entries = tree.elts if isinstance(tree, ast.Tuple | ast.List) else [tree]
    sizes = []
    for entry in entries:
        part = ast.get_source_segment(text.strip(), entry)
        try:
            (size,) = [ast.literal_eval(entry)] if isinstance(entry, ast.Constant | ast.UnaryOp) \
                else TensorType.parse(f"bool[{part}]").shape
        except (ValueError, TypeError):
            return None
        sizes.append(size)
    return tuple(sizes) if isinstance(tree, ast.Tuple | ast.List) else sizes[0]


def read_type(word: Word, line: str) -> TensorType:
    try:
        return TensorType.parse(word.text)
    except SignatureSyntaxError as exc:  # one caret, in the command line
        verbatim = word.start is not None and \
            line[word.start:word.start + len(word.text)] == word.text
        raise CommandError(f"cannot read type {word.text!r}: {exc.message}", line,
                           word.start + exc.position if verbatim else word.start) from None
    except ValueError as exc:
        raise error(str(exc), word, line) from None


def query_term(word: Word, line: str) -> Any:
    """A type in the compact notation, read with the DSL's grammar, where names are
    logic variables (see the module docstring)."""
    try:
        head, sizes = parse_tensor_type(word.text)
    except SignatureSyntaxError as exc:
        raise error(f"cannot read type {word.text!r}: {exc.message}", word, line) from None
    near = near_dtype(head)
    if near:  # a logic variable's name one typo from a dtype is the dtype, mistyped
        raise error(f"unknown dtype {head!r} in {word.text!r} (did you mean {near}?)",
                     word, line)
    if sizes is None:
        return var(head)
    entries: list[Any] = []
    for size in sizes:
        if size is not None and not isinstance(size, FixedDim | DimVar):
            raise error(f"bad size {size} in {word.text!r}: expected an int, ? or a name",
                         word, line)
        entries.append(size.size if isinstance(size, FixedDim) else
                       var(size.name) if isinstance(size, DimVar) else None)
    return pattern(head if head in DTYPES else var(head), entries)


def limit_option(words: list[Word], line: str) -> tuple[list[Word], int | None]:
    """The words without ``--limit N``, and N (None when not given)."""
    for i, w in enumerate(words):
        if w.text == "--limit":
            if i + 1 >= len(words) or not words[i + 1].text.isdigit() or \
                    len(words[i + 1].text) > 9:
                raise error("--limit takes a number of answers, e.g. --limit 50",
                             words[min(i + 1, len(words) - 1)], line)
            return words[:i] + words[i + 2:], int(words[i + 1].text)
    return words, None


def joined(words: Sequence[Word], line: str) -> tuple[str, int | None]:
    """The text the words were read from, as typed (spaces and quotes kept: a graph's
    strings are Python's, ``einsum('ij,jk->ik', x, y)``), and where it starts in
    ``line``; one word quoted whole (``"tanh(x @ W)"``) is its text. Words not from a
    line are joined by spaces."""
    first, last = words[0], words[-1]
    if first.start is None or last.end is None:
        return " ".join(w.text for w in words), None
    text = line[first.start:last.end]
    if len(words) == 1 and len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" \
            and text[1:-1] == first.text:
        return first.text, first.start + 1
    return text, first.start


def format_error(exc: BaseException, prefix: str = "") -> str:
    """An error as the REPL and the magics show it: one message, carets kept. The caret
    of a CommandError points into ``prefix`` + its line (``prefix``: say ``"%infer "``)."""
    if isinstance(exc, CommandError):
        return str(exc.within(prefix))
    return f"{type(exc).__name__}: {exc}"

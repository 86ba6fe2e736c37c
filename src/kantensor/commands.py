"""The command language shared by the terminal REPL, the CLI and the IPython magics.

    infer OP|SIGNATURE TYPE... [NAME=VALUE...]
    query OP|SIGNATURE IN... [NAME=VALUE...] -> OUT...
    refine GRAPH [NAME:TYPE...] [-> TYPE...]

Types are written in the compact notation (``float32[3,?]``). In queries, a bare name
(``X``) stands for an unknown type, a name in dtype position (``D[3]``) for an unknown
dtype and a name in a shape (``float32[n,3]``) for an unknown size; ``?`` is an anonymous
unknown size. Parameters (``axis=1``) are Python literals. Words are separated by
spaces; quotes group a signature that contains spaces. A graph is written in Python's
syntax and read, never evaluated, by :mod:`kantensor.graphtext` (``tanh(x @ W)``).

:data:`COMMANDS` is the table the REPL and the magics are built from: a new command is
one entry there.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .graph.basic import Variable
from .graph.display import block, code, table
from .graphtext import GraphTextError, read_graph
from .ops import op_named
from .query import Solutions, pattern, query, var
from .refinement import Refinement, refine
from .signature.display import SHOW, readable
from .signature.forward import build
from .signature.signature import Signature
from .signature.solve import DEFAULT_MAX_RANK
from .syntax.ast import DimVar, FixedDim, near_dtype
from .syntax.errors import COMMAND_ERRORS, SignatureSyntaxError
from .syntax.parser import parse_tensor_type
from .types.display import type_inline
from .types.dtypes import DTYPES
from .types.type import TensorType

__all__ = ["COMMANDS", "Command", "CommandError", "InferResult", "Option", "Word",
           "format_error", "infer_words", "query_words", "refine_words", "split"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
#: ``NAME:TYPE`` in ``refine``: a type for a name of the graph (never a slice ``a:b]``).
_TYPED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?)$")
#: Longest ``name=value`` parameter value read as a Python literal (never evaluated).
MAX_PARAM_TEXT = 1_000

#: The errors a command reports as a message (anything else is a bug, with a traceback).
ERRORS = COMMAND_ERRORS


class CommandError(ValueError):
    """A command that cannot be read: the message, and a caret under ``line[position]``."""

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
    """One word of a command line and where it starts (None: not from a line)."""

    text: str
    start: int | None = None


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
        words.append(Word("".join(text), start))
    return words


def _error(message: str, word: Word, line: str) -> CommandError:
    return CommandError(message, line, word.start)


def _split_params(words: Sequence[Word], line: str) -> tuple[list[Word], dict[str, Any]]:
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
            raise _error(f"parameter value too long: {len(value)} characters (at most "
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
        raise _error(str(exc), word, line) from None


def _target(word: Word, params: dict[str, Any], line: str) -> Any:
    """What to run: a catalogue Op (an Op with parameters bound to ``params``) or the
    Signature of signature text."""
    found = lookup(word, line)
    if found is None:
        if params:
            raise _error("parameters (name=value) need a catalogue Op, not signature text",
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
        return found.bind(**params)
    if params:
        raise _error(f"{word.text} takes no parameters, got {', '.join(params)}", word, line)
    return found


def _type(word: Word, line: str) -> TensorType:
    try:
        return TensorType.parse(word.text)
    except SignatureSyntaxError as exc:  # one caret, in the command line
        verbatim = word.start is not None and \
            line[word.start:word.start + len(word.text)] == word.text
        raise CommandError(f"cannot read type {word.text!r}: {exc.message}", line,
                           word.start + exc.position if verbatim else word.start) from None
    except ValueError as exc:
        raise _error(str(exc), word, line) from None


def _query_term(word: Word, line: str) -> Any:
    """A type in the compact notation, read with the DSL's grammar, where names are
    logic variables (see the module docstring)."""
    try:
        head, sizes = parse_tensor_type(word.text)
    except SignatureSyntaxError as exc:
        raise _error(f"cannot read type {word.text!r}: {exc.message}", word, line) from None
    near = near_dtype(head)
    if near:  # a logic variable's name one typo from a dtype is the dtype, mistyped
        raise _error(f"unknown dtype {head!r} in {word.text!r} (did you mean {near}?)",
                     word, line)
    if sizes is None:
        return var(head)
    entries: list[Any] = []
    for size in sizes:
        if size is not None and not isinstance(size, FixedDim | DimVar):
            raise _error(f"bad size {size} in {word.text!r}: expected an int, ? or a name",
                         word, line)
        entries.append(size.size if isinstance(size, FixedDim) else
                       var(size.name) if isinstance(size, DimVar) else None)
    return pattern(head if head in DTYPES else var(head), entries)


@dataclass(frozen=True)
class InferResult:
    """The output types of an Op or signature for some input types."""

    op: str | None  # the Op (with its parameters), None for signature text
    signature: Signature
    inputs: tuple[TensorType, ...]
    outputs: tuple[TensorType, ...]
    #: The conditions on the inputs' sizes the outputs hold under (``n == m or n == 1 or
    #: m == 1`` for ``add float32[n] float32[m]``): never dropped from the answer.
    conditions: tuple = ()

    @property
    def label(self) -> str:
        """How the CLI names what ran: the Op and its signature, or the signature."""
        return f"{self.op} {readable(self.signature)}" if self.op else str(self.signature)

    def __str__(self) -> str:
        return f"{self.label}: ({', '.join(map(str, self.inputs))}) -> " \
               f"({', '.join(map(str, self.outputs))})" + \
               (f" where {', '.join(map(str, self.conditions))}" if self.conditions else "")

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = [["input", str(i), type_inline(t)] for i, t in enumerate(self.inputs)]
        rows += [["output", str(i), type_inline(t)] for i, t in enumerate(self.outputs)]
        sig = f"signature {code(readable(self.signature))}" if self.op else ""
        where = "where " + ", ".join(code(c) for c in self.conditions) \
            if self.conditions else ""
        return block("infer", code(self.op or self.signature),
                     table(["", "#", "type"], rows), where, sig)


def infer_words(words: Sequence[Word], line: str = "") -> InferResult:
    """``infer OP|SIGNATURE TYPE... [NAME=VALUE...]`` (the words after ``infer``)."""
    if not words:
        raise CommandError(f"usage: {COMMANDS['infer'].usage}")
    rest, params = _split_params(words[1:], line)
    types = [_type(w, line) for w in rest]
    target = _target(words[0], params, line)
    if isinstance(target, Signature):
        sig, name = target, None
    else:
        sig, op = target.signature_for(tuple(types))
        name = str(op)
    built = build(sig, types, name=name if isinstance(target, Signature) else op)
    return InferResult(name, sig, tuple(types), built.types, built.conditions)


class Answers:
    """A page of a query's answers: ``show`` of them from ``start``, saying how many it
    shows of how many. Iterating, ``len`` and indexing reach every answer (the
    :class:`~kantensor.query.Solutions`); :func:`more_words` gives the next page."""

    def __init__(self, solutions: Solutions, show: int | None = None, start: int = 0):
        self.solutions = solutions
        self.show = show
        self.start = start

    def __iter__(self) -> Any:
        return iter(self.solutions)

    def __len__(self) -> int:
        return len(self.solutions)

    def __bool__(self) -> bool:
        return bool(self.solutions)

    def __getitem__(self, i: int) -> dict:
        return self.solutions[i]

    def __repr__(self) -> str:
        return self.solutions.text(self.show, self.start)

    def _repr_html_(self) -> str:
        return self.solutions.html(self.show, self.start)

    def next_page(self) -> Answers:
        """The page after this one (as long: 20 rows in text when no limit was given)."""
        show = SHOW if self.show is None else self.show
        return Answers(self.solutions, show, self.start + show)


#: The last answers a query command showed in this process: what ``more`` pages on.
_LAST: list[Answers] = []


def _limit(words: list[Word], line: str) -> tuple[list[Word], int | None]:
    """The words without ``--limit N``, and N (None when not given)."""
    for i, w in enumerate(words):
        if w.text == "--limit":
            if i + 1 >= len(words) or not words[i + 1].text.isdigit() or \
                    len(words[i + 1].text) > 9:
                raise _error("--limit takes a number of answers, e.g. --limit 50",
                             words[min(i + 1, len(words) - 1)], line)
            return words[:i] + words[i + 2:], int(words[i + 1].text)
    return words, None


def query_words(words: Sequence[Word], line: str = "", limit: int | None = None,
                max_rank: int = DEFAULT_MAX_RANK) -> Answers:
    """``query OP|SIGNATURE IN... [NAME=VALUE...] -> OUT... [--limit N]`` (the words after
    ``query``): a page of N answers (``limit``, or 20 in text and 50 in HTML), saying how
    many it shows of how many; ``max_rank`` bounds the axes an unknown rank takes (see
    :func:`kantensor.query`)."""
    words, given = _limit(list(words), line)
    limit = given if given is not None else limit
    arrows = [i for i, w in enumerate(words) if w.text == "->"]
    if not words or len(arrows) != 1 or arrows[0] == 0:
        raise CommandError(f"usage: {COMMANDS['query'].usage}", line,
                           words[arrows[1]].start if len(arrows) > 1 else None)
    k = arrows[0]
    rest, params = _split_params(words[1:k], line)
    ins = [_query_term(w, line) for w in rest]
    outs = [_query_term(w, line) for w in words[k + 1:]]
    target = _target(words[0], params, line)
    page = Answers(query(target, ins, outs, max_rank=max_rank), limit)
    _LAST[:] = [page]
    return page


def more_words(words: Sequence[Word], line: str = "") -> Answers:
    """``more``: the next page of the answers the last query showed."""
    if words:
        raise _error("more takes no arguments", words[0], line)
    if not _LAST:
        raise CommandError("no answers to page: run a query first")
    _LAST[:] = [_LAST[0].next_page()]
    return _LAST[0]


def refine_words(words: Sequence[Word], line: str = "",
                 namespace: dict[str, Any] | None = None) -> Refinement:
    """``refine GRAPH [NAME:TYPE...] [-> TYPE...]`` (the words after ``refine``).

    GRAPH is graph text (:mod:`kantensor.graphtext`), up to the first ``NAME:TYPE`` or
    ``->``. ``NAME:TYPE`` types an input of the graph, or requires a type of a name the
    graph assigns (or, in a notebook, of a Variable of ``namespace``); the types after
    ``->`` are required of the outputs."""
    k = next((i for i, w in enumerate(words) if w.text == "->" or _TYPED.match(w.text)),
             len(words))
    if k == 0:
        raise CommandError(f"usage: {COMMANDS['refine'].usage}", line,
                           words[0].start if words else None)
    text, start = _joined(words[:k], line)
    arrow = next((i for i in range(k, len(words)) if words[i].text == "->"), len(words))
    typed: dict[str, tuple[Word, TensorType]] = {}
    for w in words[k:arrow]:
        match = _TYPED.match(w.text)
        if match is None:
            raise _error(f"expected NAME:TYPE or ->, got {w.text!r}", w, line)
        name, type_text = match.groups()
        typed[name] = (w, _type(Word(type_text, None if w.start is None else
                                     w.start + len(name) + 1), line))
    wanted = [_type(w, line) for w in words[arrow + 1:]]
    try:
        graph = read_graph(text, {n: t for n, (_, t) in typed.items()}, namespace)
    except GraphTextError as exc:
        position = None if start is None or exc.position is None else start + exc.position
        raise CommandError(exc.message, line, position) from None
    given: dict[Variable, TensorType] = {}
    for name, (w, t) in typed.items():
        v = graph.names.get(name)
        if v is None and isinstance((namespace or {}).get(name), Variable):
            v = namespace[name]  # a variable of the notebook's graph, not named in the text
        if v is None:
            raise _error(f"{name} is not a name of the graph", w, line)
        if v.owner is not None or (namespace or {}).get(name) is v:
            given[v] = t
    if wanted and len(wanted) != len(graph.outputs):
        raise CommandError(f"the graph has {len(graph.outputs)} output"
                           f"{'s' * (len(graph.outputs) != 1)} but -> gives {len(wanted)} types")
    given.update(zip(graph.outputs, wanted, strict=False))
    return refine(graph.outputs, given)


def _joined(words: Sequence[Word], line: str) -> tuple[str, int | None]:
    """The text the words were read from (spaces kept), and where it starts in ``line``."""
    first, last = words[0], words[-1]
    if first.start is not None and last.start is not None:
        end = last.start + len(last.text)
        text = line[first.start:end]
        if " ".join(w.text for w in words) == " ".join(text.split()) and \
                "'" not in text and '"' not in text:
            return text, first.start
    return " ".join(w.text for w in words), None


def format_error(exc: BaseException, prefix: str = "") -> str:
    """An error as the REPL and the magics show it: one message, carets kept. The caret
    of a CommandError points into ``prefix`` + its line (``prefix``: say ``"%infer "``)."""
    if isinstance(exc, CommandError):
        return str(exc.within(prefix))
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class Option:
    """One argument of a command's form on the ``kantensor`` command line: the flags (or
    the positional name) and the keyword arguments of ``argparse.add_argument``."""

    flags: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Command:
    """A command of the REPL, a magic of IPython (``%name line``) and a subcommand of the
    ``kantensor`` program; this entry is all three need."""

    name: str
    usage: str
    summary: str
    run: Callable[..., Any]
    #: run takes the caller's namespace (a notebook's variables) as a third argument
    takes_namespace: bool = False
    #: The command-line form: its arguments, and how they map back to this command's
    #: words (``words``) and to keyword arguments of ``run`` (``settings``).
    options: tuple[Option, ...] = ()
    words: Callable[[Any], list[str]] = lambda args: []
    settings: Callable[[Any], dict[str, Any]] = lambda args: {}
    #: a subcommand of the ``kantensor`` program too (``more`` pages within a session)
    cli: bool = True

    def __call__(self, line: str, namespace: dict[str, Any] | None = None) -> Any:
        """Run the command on the rest of its line (its arguments)."""
        if self.takes_namespace:
            return self.run(split(line), line, namespace)
        return self.run(split(line), line)

    def run_args(self, args: Any, namespace: dict[str, Any] | None = None) -> Any:
        """Run the command on parsed command-line arguments (see :attr:`options`)."""
        texts = self.words(args)
        words = [Word(t) for t in texts]
        extra = self.settings(args)
        if self.takes_namespace:
            return self.run(words, " ".join(texts), namespace, **extra)
        return self.run(words, " ".join(texts), **extra)


_LIMIT = Option(("--limit",), {"type": int, "default": 20, "metavar": "N",
                               "help": "answers to show (default 20); the list says how "
                                       "many there are"})
_MAX_RANK = Option(("--max-rank",), {
    "type": int, "default": DEFAULT_MAX_RANK, "metavar": "N",
    "help": f"most axes an unknown rank takes (default {DEFAULT_MAX_RANK}); the answer "
            "says when this bound cut answers"})

#: The commands by name: the REPL's commands, the IPython magics and the subcommands of the
#: ``kantensor`` program are made from this table.
COMMANDS: dict[str, Command] = {
    c.name: c for c in (
        Command("infer", "infer OP|SIGNATURE TYPE... [NAME=VALUE...]",
                "output types, e.g. infer add float32[3] int8[]  or  "
                "infer sum float32[2,3] axis=1", infer_words,
                options=(Option(("signature",), {"help": "signature text or a catalogue "
                                                         "Op name"}),
                         Option(("types",), {"nargs": "*", "help": "input types, e.g. "
                                             "float32[3,?], and parameters, e.g. axis=1"})),
                words=lambda a: [a.signature, *a.types]),
        Command("query", "query OP|SIGNATURE IN... [NAME=VALUE...] -> OUT... [--limit N]",
                "solve for the names, in any direction, e.g. "
                "query add D[3] float32[3] -> float64[3]; shows N answers (20 by "
                "default) and how many there are", query_words,
                options=(Option(("signature",), {"help": "signature text or a catalogue "
                                                         "Op name"}),
                         Option(("--in",), {"dest": "inputs", "nargs": "*", "default": [],
                                            "metavar": "TYPE", "help": "input types (names "
                                            "are unknowns) and parameters NAME=VALUE"}),
                         Option(("--out",), {"dest": "outputs", "nargs": "+",
                                             "required": True, "metavar": "TYPE",
                                             "help": "output types (names are unknowns)"}),
                         _LIMIT, _MAX_RANK),
                words=lambda a: [a.signature, *a.inputs, "->", *a.outputs],
                settings=lambda a: {"limit": a.limit, "max_rank": a.max_rank}),
        Command("more", "more", "the next page of the last query's answers", more_words,
                cli=False),
        Command("refine", "refine GRAPH [NAME:TYPE...] [-> TYPE...]",
                "the types of every variable of a graph, solved jointly, e.g. "
                "refine tanh(x @ W) x:float32[?,?] W:float32[?,4] -> float32[5,4]",
                refine_words, takes_namespace=True,
                options=(Option(("graph",), {"nargs": "+", "metavar": "WORD", "help":
                                             "graph text such as 'tanh(x @ W)', then "
                                             "NAME:TYPE words typing its inputs or "
                                             "requiring types of its assigned names"}),
                         Option(("--out",), {"dest": "outputs", "nargs": "+", "default": [],
                                             "metavar": "TYPE",
                                             "help": "types required of the outputs"}),
                         Option(("--file",), {"metavar": "FILE.py", "help": "a Python file "
                                              "whose variables the graph text may use (it "
                                              "is run)"})),
                words=lambda a: [*a.graph, *(["->", *a.outputs] if a.outputs else [])]),
    )
}

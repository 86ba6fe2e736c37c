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

The package: reading a command line (:mod:`~kantensor.commands.words`), what each
command does (:mod:`~kantensor.commands.run`), and here the table of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..signature.solve import DEFAULT_MAX_RANK
from .run import USAGE, Answers, InferResult, infer_words, more_words, query_words, refine_words
from .words import ERRORS, MAX_PARAM_TEXT, CommandError, Word, format_error, lookup, split

__all__ = ["COMMANDS", "ERRORS", "MAX_PARAM_TEXT", "Answers", "Command", "CommandError",
           "InferResult", "Option", "Word", "format_error", "infer_words", "lookup",
           "more_words", "query_words", "refine_words", "split"]


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
        Command("infer", USAGE["infer"],
                "output types, e.g. infer add float32[3] int8[]  or  "
                "infer sum float32[2,3] axis=1", infer_words,
                options=(Option(("signature",), {"help": "signature text or a catalogue "
                                                         "Op name"}),
                         Option(("types",), {"nargs": "*", "help": "input types, e.g. "
                                             "float32[3,?], and parameters, e.g. axis=1"})),
                words=lambda a: [a.signature, *a.types]),
        Command("query", USAGE["query"],
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
        Command("more", USAGE["more"], "the next page of the last query's answers", more_words,
                cli=False),
        Command("refine", USAGE["refine"],
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

"""What the commands do: ``infer`` (:class:`InferResult`), ``query`` and ``more`` (a
page of answers, :class:`Answers`) and ``refine`` (a :class:`~kantensor.refinement.
Refinement`), each on the words after its name (:mod:`kantensor.commands.words`).

A graph is written in Python's syntax and read, never evaluated, by
:mod:`kantensor.graphtext` (``tanh(x @ W)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..graph.basic import Variable
from ..graph.display import block, code, table, value_text
from ..graphtext import GraphTextError, read_graph
from ..query import Solutions, query
from ..query.hidden import with_hidden
from ..refinement import Refinement, refine
from ..signature.display import SHOW, readable
from ..signature.forward import build
from ..signature.signature import Signature
from ..signature.solve import DEFAULT_MAX_RANK
from ..types.display import type_inline
from ..types.type import TensorType
from .words import (
    TYPED,
    CommandError,
    Word,
    error,
    joined,
    limit_option,
    query_term,
    read_target,
    read_type,
    split_params,
)

__all__ = ["USAGE", "Answers", "InferResult", "infer_words", "more_words", "query_words",
           "refine_words"]

#: How each command is written (its usage line, in errors and in help).
USAGE = {"infer": "infer OP|SIGNATURE TYPE... [NAME=VALUE...]",
         "query": "query OP|SIGNATURE IN... [NAME=VALUE...] -> OUT... [--limit N]",
         "more": "more",
         "refine": "refine GRAPH [NAME:TYPE...] [-> TYPE...]"}


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
        raise CommandError(f"usage: {USAGE['infer']}")
    rest, params = split_params(words[1:], line)
    types = [read_type(w, line) for w in rest]
    target = read_target(words[0], params, line)
    if isinstance(target, Signature):
        sig, name = target, None
    else:  # (the inputs that carry its size parameters added, as the call adds them)
        types = with_hidden(target, types)
        sig, op = target.signature_for(tuple(types))
        name = _op_text(op)
    built = build(sig, types, name=name if isinstance(target, Signature) else op)
    return InferResult(name, sig, tuple(types), built.types, built.conditions)


def _op_text(op: Any) -> str:
    """The Op and its parameters as the user wrote them (:meth:`~kantensor.ops.templateop.
    TemplateOp.written`: ``sum{axis=-1}``, not its resolved ``axis=(2,)`` and defaults;
    ``reshape{shape=(n, -1)}``, a size by its name or expression as
    :func:`~kantensor.graph.display.value_text` writes it, where the Op's own text has
    ``Dim('n')`` and the builder's ``axes_of``)."""
    written = getattr(op, "written", None)
    if written is None:
        return str(op)
    name, params = written()
    return f"{name}{{{', '.join(f'{k}={value_text(v)}' for k, v in params)}}}" \
        if params else name


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



def query_words(words: Sequence[Word], line: str = "", limit: int | None = None,
                max_rank: int = DEFAULT_MAX_RANK) -> Answers:
    """``query OP|SIGNATURE IN... [NAME=VALUE...] -> OUT... [--limit N]`` (the words after
    ``query``): a page of N answers (``limit``, or 20 in text and 50 in HTML), saying how
    many it shows of how many; ``max_rank`` bounds the axes an unknown rank takes (see
    :func:`kantensor.query`)."""
    words, given = limit_option(list(words), line)
    limit = given if given is not None else limit
    arrows = [i for i, w in enumerate(words) if w.text == "->"]
    if not words or len(arrows) != 1 or arrows[0] == 0:
        raise CommandError(f"usage: {USAGE['query']}", line,
                           words[arrows[1]].start if len(arrows) > 1 else None)
    k = arrows[0]
    rest, params = split_params(words[1:k], line)
    ins = [query_term(w, line) for w in rest]
    outs = [query_term(w, line) for w in words[k + 1:]]
    target = read_target(words[0], params, line)
    page = Answers(query(target, ins, outs, max_rank=max_rank), limit)
    _LAST[:] = [page]
    return page


def more_words(words: Sequence[Word], line: str = "") -> Answers:
    """``more``: the next page of the answers the last query showed."""
    if words:
        raise error("more takes no arguments", words[0], line)
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
    k = next((i for i, w in enumerate(words) if w.text == "->" or TYPED.match(w.text)),
             len(words))
    if k == 0:
        raise CommandError(f"usage: {USAGE['refine']}", line,
                           words[0].start if words else None)
    text, start = joined(words[:k], line)
    arrow = next((i for i in range(k, len(words)) if words[i].text == "->"), len(words))
    typed: dict[str, tuple[Word, TensorType]] = {}
    for w in words[k:arrow]:
        match = TYPED.match(w.text)
        if match is None:
            raise error(f"expected NAME:TYPE or ->, got {w.text!r}", w, line)
        name, type_text = match.groups()
        typed[name] = (w, read_type(Word(type_text, None if w.start is None else
                                     w.start + len(name) + 1), line))
    wanted = [read_type(w, line) for w in words[arrow + 1:]]
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
            raise error(f"{name} is not a name of the graph", w, line)
        if v.owner is not None or (namespace or {}).get(name) is v:
            given[v] = t
    if wanted and len(wanted) != len(graph.outputs):
        raise CommandError(f"the graph has {len(graph.outputs)} output"
                           f"{'s' * (len(graph.outputs) != 1)} but -> gives {len(wanted)} types")
    given.update(zip(graph.outputs, wanted, strict=False))
    return refine(graph.outputs, given)

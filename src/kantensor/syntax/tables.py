"""The LALR tables of ``grammar.lark``, shipped in ``grammar_tables.json``: Lark loads them
in a few milliseconds, where analysing the grammar at every start-up took ~35.

The grammar file stays the one home of the grammar; the tables are derived from it by
``python -m kantensor.syntax.tables`` (``make grammar-tables``), and a test regenerates
them and compares. The file records the SHA-256 of the grammar it was made from and the
Lark version that made it: when either differs from what is installed, :func:`lark` builds
the parser from the grammar instead (slower, never wrong).

Why not Lark's ``cache=`` option: it pickles, to a path in the temporary directory (or
one given); unpickling a file another user of the machine could plant runs their code.
The tables here are plain JSON in the package's own directory, read with ``json``, and
turned into Lark's objects by Lark's own deserializer (which instantiates only its parser
classes): nothing read is executed.

JSON has no integer keys and Lark numbers its parser states in an order that changes
from run to run, so the file is written canonically (states numbered in the order they
are reached from the start symbols, tokens by name) and integer keys restored on load.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections import deque
from collections.abc import Iterator
from importlib import resources
from typing import Any

import lark as _lark_package
from lark import Lark, Token
from lark.grammar import Rule
from lark.lark import PostLex
from lark.lexer import TerminalDef

__all__ = ["GRAMMAR", "TABLES", "build", "grammar_digest", "lark", "serialized"]

GRAMMAR = "grammar.lark"
TABLES = "grammar_tables.json"
#: What the parser is built with (the grammar's start symbols; Lark's options).
_OPTIONS: dict[str, Any] = {"parser": "lalr", "maybe_placeholders": True,
                            "start": ["start", "tensor_type"]}  # fmt: skip
#: Options that are Python objects, given again when the tables are loaded.
_OBJECTS = ("postlex", "transformer")


class _AlwaysLex(PostLex):
    """Let the contextual lexer see '->' and NAME in every state, so that 'n->' is never
    lexed as 'n', '-', '>' and 'wherex' never as 'where', 'x'."""

    always_accept = ("_ARROW", "NAME")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return stream


def _text(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _digest(grammar: str) -> str:
    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


@functools.cache
def grammar_digest() -> str:
    """The SHA-256 of the grammar file (what shipped data derived from it records)."""
    return _digest(_text(GRAMMAR))


def build(**options: Any) -> Lark:
    """The parser analysed from the grammar file (``options``: Lark's, added)."""
    return Lark(_text(GRAMMAR), postlex=_AlwaysLex(), **_OPTIONS, **options)


def lark(**options: Any) -> Lark:
    """The parser from the shipped tables when they were made from this grammar by this
    Lark, else built from the grammar. ``options``: those Lark accepts on loading
    (``transformer``, ``propagate_positions`` ...)."""
    grammar = _text(GRAMMAR)
    try:
        shipped = json.loads(_text(TABLES), object_pairs_hook=_int_keys)
    except FileNotFoundError:
        shipped = None
    if (shipped is None or shipped["grammar_sha256"] != _digest(grammar)
            or shipped["lark"] != _lark_package.__version__):  # fmt: skip
        return Lark(grammar, postlex=_AlwaysLex(), **_OPTIONS, **options)
    return Lark._load_from_dict(shipped["data"], shipped["memo"], postlex=_AlwaysLex(),
                                **options)  # fmt: skip


def serialized(parser: Lark) -> str:
    """The canonical JSON text of ``parser``'s tables (what :data:`TABLES` holds)."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k not in _OBJECTS}
    data["parser"]["parser"] = _canonical(data["parser"]["parser"])
    document = {"grammar_sha256": _digest(_text(GRAMMAR)), "lark": _lark_package.__version__,
                "data": data, "memo": memo}  # fmt: skip
    return json.dumps(document, sort_keys=True, indent=0) + "\n"


def _canonical(table: dict[str, Any]) -> dict[str, Any]:
    """Lark's parse table with tokens numbered by name and states in the order a
    breadth-first walk from the start states (by name) reaches them."""
    names = table["tokens"]
    token = {old: new for new, old in enumerate(sorted(names, key=names.__getitem__))}
    states = table["states"]
    order: dict[int, int] = {}
    queue = deque(table["start_states"][s] for s in sorted(table["start_states"]))
    while queue:
        state = queue.popleft()
        if state in order:
            continue
        order[state] = len(order)
        for t in sorted(states[state], key=names.__getitem__):
            action, arg = states[state][t]
            if action == 0:  # a shift (or a goto): arg is the next state
                queue.append(arg)
    if len(order) != len(states):
        raise AssertionError("a parser state is not reachable from a start state")

    def actions(old: int) -> dict[int, Any]:
        row = states[old]
        return {token[t]: (0, order[arg]) if action == 0 else (action, arg)
                for t, (action, arg) in sorted(row.items(), key=lambda kv: token[kv[0]])}

    return {"tokens": {token[t]: name for t, name in names.items()},
            "states": {order[s]: actions(s) for s in sorted(states, key=order.__getitem__)},
            "start_states": {k: order[v] for k, v in table["start_states"].items()},
            "end_states": {k: order[v] for k, v in table["end_states"].items()}}


def _int_keys(pairs: list[tuple[str, Any]]) -> dict[Any, Any]:
    """A JSON object with its integer keys (Lark's states, tokens, memo) as ints: no
    other key of Lark's tables is a string of digits."""
    return {int(k) if k.isdigit() else k: v for k, v in pairs}


def main() -> None:
    """Write :data:`TABLES` beside the grammar (in the source tree this runs from)."""
    path = resources.files(__package__).joinpath(TABLES)
    path.write_text(serialized(build()), encoding="utf-8")  # type: ignore[attr-defined]
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""The parser's shipped LALR tables (kantensor/syntax/tables.py): made from the grammar
file as it is now, loaded (not rebuilt) at start-up, and parsing every text exactly as
the parser analysed from the grammar does; stale tables are never used."""

from __future__ import annotations

import json

import pytest

from kantensor.syntax import parser, tables
from kantensor.syntax.errors import SignatureSyntaxError
from test_syntax_passes import _texts

DESERIALIZED = "<deserialized>"  # Lark's source_path of a parser loaded from tables


def _shipped() -> str:
    return tables._text(tables.TABLES)


def test_the_shipped_tables_are_the_grammars():
    """Regenerated from grammar.lark, the tables are the shipped file, byte for byte (if
    this fails: ``make grammar-tables`` and commit the file)."""
    assert tables.serialized(tables.build()) == _shipped()


def test_the_tables_are_canonical():
    """Lark numbers its states differently from run to run; the written form does not
    depend on it (a loaded parser writes back the same text)."""
    assert tables.serialized(tables.lark()) == _shipped()


def test_start_up_loads_the_tables():
    assert parser._lark().source_path == DESERIALIZED
    assert parser._positioned().source_path == DESERIALIZED
    assert tables.build().source_path != DESERIALIZED


@pytest.mark.parametrize("changed", ["grammar", "lark"])
def test_stale_tables_are_not_used(monkeypatch: pytest.MonkeyPatch, changed: str):
    """Tables made from another grammar, or by another Lark, give way to the grammar."""
    shipped = json.loads(_shipped())
    shipped["grammar_sha256" if changed == "grammar" else "lark"] = "other"
    text = json.dumps(shipped)
    real = tables._text
    monkeypatch.setattr(tables, "_text", lambda n: text if n == tables.TABLES else real(n))
    made = tables.lark()
    assert made.source_path != DESERIALIZED
    assert made.parse("(m,n)->(n)", start="start") is not None


def _outcome(text: str, start: str) -> tuple:
    try:
        return "ok", parser._parse(text, start, "a text")
    except SignatureSyntaxError as e:
        return "error", str(e), e.position, e.expected


def test_loaded_and_analysed_parsers_agree(monkeypatch: pytest.MonkeyPatch):
    """Every catalogue signature, fuzz seed and mutant: the same AST, or the same error
    at the same position, from the loaded tables as from the grammar analysed anew."""
    texts = _texts()
    loaded = [_outcome(t, s) for t, s in texts]
    inline, positioned = tables.build(transformer=parser._INLINE), \
        tables.build(propagate_positions=True)
    assert inline.source_path != DESERIALIZED
    monkeypatch.setattr(parser, "_lark", lambda: inline)
    monkeypatch.setattr(parser, "_positioned", lambda: positioned)
    for (text, start), got in zip(texts, loaded, strict=True):
        assert got == _outcome(text, start), text
    assert {o[0] for o in loaded} == {"ok", "error"}

"""The shipped catalogue files, and their tables precompiled as JSON.

The catalogue's one home is its TOML files (``signatures/*.toml``). Reading them with
``tomllib`` at every ``import kantensor`` cost about 15-25 ms (a pure-Python parser over
90 kB); ``json`` reads the same tables in about 2. So ``tables.jsonl`` beside them holds,
for each file, the tables TOML gives and the SHA-256 of the text they were read from,
made by ``python -m kantensor.ops.shipped`` (``make catalogue-index``); a test makes them
again and compares. Its first line is the index (each file's digest, the
:data:`HEAD_KEYS` of its tables and the line of its first table), each further line one
table's JSON: reading it (:func:`precompiled`) decodes the index alone (a table's line is
decoded when the table is used). The ONNX Ops' folder (``signatures/onnx``) has its own
``tables.jsonl`` of the same form, whose lines the registry reads one at a time, when a
model first needs their entries, by the rows of that folder's index by key
(:mod:`.keyed`, which is made from this file's index line). A file
whose text no longer has the recorded digest (edited since) is read from its TOML:
slower, never stale. JSON holds every value the catalogue uses
(strings, numbers, booleans, arrays, tables); a value it cannot hold (a TOML date) makes
writing the file fail, not the tables differ.

``forms.json`` at the root holds the parsed forms of every signature text of the
catalogue files (:mod:`kantensor.syntax.forms`) and of every call text
(:func:`~kantensor.ops.callspec.call_form`), by text, made by the same command; they are
registered when precompiled tables are first read (:func:`precompiled`): a form answers
the parse of its own text only, and forms of another :func:`forms_version` are not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..syntax import forms
from ..syntax.parser import parse_fresh
from .callspec import FORMAT as CALL_FORMAT
from .callspec import call_form, default_call, register_calls
from .params import ParamError

#: The precompiled tables, in each folder of catalogue files.
TABLES = "tables.jsonl"

#: The parsed forms of the catalogue's signature and call texts, at the root.
FORMS = "forms.json"

#: The folders of catalogue files that have precompiled tables (None: the root).
FOLDERS = (None, "onnx")


@cache
def catalogue_root() -> Any:
    """The folder of catalogue files: the installed data package, or the checkout's
    ``signatures/`` when kantensor runs from a source tree without installing (found
    once a process)."""
    try:
        return resources.files("kantensor._catalogue")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[3] / "signatures"


def catalogue_files(folder: str | None = None) -> Iterator[tuple[str, str]]:
    """(name, text) of every shipped catalogue file, in a stable order; those of a
    subfolder (``onnx``: the ONNX Ops) with ``folder``."""
    for name, data in catalogue_data(folder):  # (TOML is UTF-8, whatever the locale says)
        yield name, data.decode("utf-8")


def catalogue_data(folder: str | None = None) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of every shipped catalogue file, as :func:`catalogue_files` lists
    them: what a digest is taken of (a file's text is decoded only where it is read)."""
    root = catalogue_root()
    where = root / folder if folder else root
    if isinstance(where, Path):  # a folder of files: listed and read by os, without a
        for name in sorted(os.listdir(where)):  # path object per file, unbuffered: read
            if name.endswith(".toml"):  # whole at once, no buffer to copy through
                with open(os.path.join(where, name), "rb", buffering=0) as readable:
                    yield name, readable.readall()
        return
    for item in sorted(where.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            yield item.name, item.read_bytes()


def digest(text: str | bytes) -> str:
    """The SHA-256 of a file's text (of its UTF-8 bytes, which may be given as read)."""
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text
                          ).hexdigest()


def _index(folder: str | None) -> Any:
    root = catalogue_root()
    return (root / folder if folder else root) / TABLES


def precompiled() -> dict[str, Any]:
    """The shipped :data:`TABLES` of the root folder, the NumPy Ops' (file name -> its
    digest and tables); empty when there is none, or it is not one :func:`serialized`
    wrote. The shipped :data:`FORMS` are registered the first time
    (:func:`register_forms`). (The ONNX folder's are read by rows of its own index, line
    by line: :mod:`.keyed`.)"""
    if not _FORMS_READ:
        _FORMS_READ.append(True)
        register_forms()
    try:
        lines = _index(None).read_text(encoding="utf-8").split("\n")
        heads = json.loads(lines[0])
    except (OSError, ValueError, RecursionError):  # (none, unreadable, not JSON)
        return {}
    return _joined(heads, lines) if isinstance(heads, dict) else {}


def _joined(heads: dict[str, Any], lines: list[str]) -> dict[str, Any]:
    """Each file's digest and ``(head, text)`` tables, from the first line's index (file
    name -> its digest, the heads of its tables and the line of its first table) and the
    lines of :data:`TABLES`; none when the files' lines do not follow one another to the
    last line (a file cut short or a line lost would give tables another's lines)."""
    shipped, line = {}, 1
    for name, entry in sorted(heads.items(), key=lambda item: _start(item[1])):
        tables = entry.get("heads") if isinstance(entry, dict) else None
        if _start(entry) != line or not isinstance(tables, list):
            return {}
        texts = lines[line:line + len(tables)]
        if len(texts) != len(tables):
            return {}
        shipped[name] = {"sha256": entry.get("sha256"),
                         "tables": list(zip(tables, texts, strict=True))}
        line += len(tables)
    return shipped if lines[line:] == [""] else {}


def _start(entry: Any) -> int:
    """The line of a file's first table in :data:`TABLES` (-1: none given)."""
    start = entry.get("line") if isinstance(entry, dict) else None
    return start if isinstance(start, int) and not isinstance(start, bool) else -1


#: The keys of a table written beside it in :data:`TABLES`, so that an index of the
#: tables by them (the ONNX registry's, by op type and domain) decodes none of them.
HEAD_KEYS = ("name", "onnx", "domain")


class ShippedTable:
    """One precompiled table: ``head``, its values of :data:`HEAD_KEYS`, and
    :meth:`data`, its TOML data, decoded from its JSON text when asked for (a new
    object each time: nothing shipped is shared)."""

    __slots__ = ("head", "text")

    def __init__(self, head: dict[str, Any], text: str):
        self.head = head
        self.text = text

    def data(self) -> Any:
        """The table as TOML gives it; ValueError if its text is not JSON."""
        return json.loads(self.text)


def shipped_tables(name: str, text: str, shipped: dict[str, Any]
                   ) -> list[ShippedTable] | None:
    """The ``[[op]]`` tables of the file ``name`` whose text is ``text``, from ``shipped``
    (:func:`precompiled`) when they were made from this very text; None otherwise (the
    caller reads the TOML)."""
    entry = shipped.get(name)
    if not isinstance(entry, dict) or entry.get("sha256") != digest(text) or \
            not isinstance(entry.get("tables"), list):
        return None
    tables = []
    for item in entry["tables"]:
        if not (isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[0], dict)
                and isinstance(item[1], str)):
            return None
        tables.append(ShippedTable(*item))
    return tables


def tables_of(name: str, text: str, shipped: dict[str, Any]) -> list[Any] | None:
    """The TOML data of the tables :func:`shipped_tables` gives, or None as it does (or
    when one does not decode)."""
    tables = shipped_tables(name, text, shipped)
    try:
        return None if tables is None else [table.data() for table in tables]
    except (ValueError, RecursionError):  # (not JSON, or nested deeper than it decodes)
        return None


#: Whether :func:`precompiled` registered the shipped forms (once a process).
_FORMS_READ: list[bool] = []


def forms_version() -> str:
    """What the shipped forms were made by: the encodings and the grammar's words."""
    return f"{forms.version()};calls {CALL_FORMAT}"


def register_forms() -> None:
    """Register the shipped :data:`FORMS` (nothing when there are none, or they are of
    another :func:`forms_version`)."""
    try:
        made = json.loads((catalogue_root() / FORMS).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # (none, unreadable, not JSON)
        return
    if not isinstance(made, dict) or made.get("version") != forms_version():
        return
    for key, template in (("signatures", False), ("templates", True)):
        if isinstance(made.get(key), dict):
            forms.register(made[key], template)
    if isinstance(made.get("calls"), dict):
        register_calls(made["calls"])


def serialized_forms() -> str:
    """The canonical JSON text of :data:`FORMS`: the forms of the signature texts of every
    shipped file's tables (as a signature where a text has no placeholder, as a template
    always: an entry with parameters parses its text as one) and of their call texts.
    A text that does not parse has none (it is parsed, and its error reported, when it
    is used)."""
    made: dict[str, Any] = {"signatures": {}, "templates": {}, "calls": {}}
    for folder in FOLDERS:
        for _, text in catalogue_files(folder):
            try:
                tables = tomllib.loads(text).get("op")
            except (tomllib.TOMLDecodeError, RecursionError):
                continue
            for table in tables if isinstance(tables, list) else ():
                if isinstance(table, dict):
                    _add_forms(table, made)
    return json.dumps({"version": forms_version(), **made}, sort_keys=True, indent=0,
                      ensure_ascii=False) + "\n"


def _add_forms(table: dict[str, Any], made: dict[str, Any]) -> None:
    """Add the forms of ``table``'s texts to ``made``: its signature's, its call's, or
    where it has no call the one its entry takes (:func:`~.callspec.default_call`)."""
    text, call = table.get("signature"), table.get("call")
    for key, template in (("signatures", False), ("templates", True)):
        if isinstance(text, str) and (template or "{" not in text):
            try:
                parsed = parse_fresh(text, template)
            except (ValueError, TypeError):
                continue
            made[key][text] = json.dumps(forms.encode(parsed), separators=(",", ":"))
            if not template and "call" not in table:
                call = default_call(len(parsed[0].inputs))
    if isinstance(call, str):
        try:
            found = call_form(call)
        except ParamError:
            found = None
        if found is not None:
            made["calls"][call] = found


def serialized(folder: str | None = None) -> str:
    """The canonical JSON text of the tables of every shipped file of ``folder`` (what its
    :data:`TABLES` holds). A file that is not only ``[[op]]`` tables is left out (it is
    read, and its error reported, from its TOML)."""
    heads: dict[str, Any] = {}
    lines: list[str] = []
    for name, text in catalogue_files(folder):
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
        if set(data) == {"op"} and isinstance(data["op"], list):
            heads[name] = {"sha256": digest(text), "line": len(lines) + 1, "heads": [
                {k: t[k] for k in HEAD_KEYS if k in t} if isinstance(t, dict) else {}
                for t in data["op"]]}
            lines.extend(json.dumps(t, sort_keys=True, ensure_ascii=False, allow_nan=False)
                         for t in data["op"])
    first = json.dumps(heads, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return "\n".join([first, *lines]) + "\n"


def main() -> None:
    """Write :data:`TABLES` in each of :data:`FOLDERS`, and :data:`FORMS` (of the tree
    this runs from)."""
    for folder in FOLDERS:
        path = _index(folder)
        path.write_text(serialized(folder), encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    path = catalogue_root() / FORMS
    path.write_text(serialized_forms(), encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

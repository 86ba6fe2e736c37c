"""The ONNX catalogue's tables, shipped already read: ``signatures/onnx/tables.json``.

The TOML files stay the one home of the entries; this index is derived from them by
``make catalogue-index`` (:func:`main`), and a test
regenerates it and compares. It holds, per file, each ``[[op]]`` table's key (domain, op
type), its name and its data as JSON text (read with ``json`` when a model first uses
its op type: ten times quicker than TOML's reader, and nothing in it is executed), and
the SHA-256 of the files it was made from: when the files read differ from those,
:func:`stored` answers None and :mod:`.registry` reads the files themselves (slower,
never wrong).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from typing import Any

from ..ops.catalogue import catalogue_files, catalogue_root, read_tables

__all__ = ["INDEX", "StoredTable", "digest", "index_text", "serialized", "stored", "table_key"]

#: The index's file, in the catalogue's ONNX folder.
INDEX = "tables.json"


class StoredTable(str):
    """One table's data as JSON text (from the index), told apart from a table's TOML
    text by its class."""

    __slots__ = ()

    def data(self) -> Any:
        return json.loads(self)


def table_key(raw: Any) -> tuple[str, str]:
    """The (domain, op type) a table names; a table too malformed to name them is kept
    under a key no node has, so that loading it reports the problem."""
    if not isinstance(raw, dict):
        return "", "?"
    domain, op_type = raw.get("domain", ""), raw.get("onnx", raw.get("name"))
    if not isinstance(domain, str) or not isinstance(op_type, str):
        return "", "?"
    return domain, op_type


def digest(files: Iterable[tuple[str, str]]) -> str:
    """The SHA-256 of the files (name, text), in their order."""
    h = hashlib.sha256()
    for name, text in files:
        h.update(name.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return h.hexdigest()


def serialized(files: list[tuple[str, str]], folder: str) -> str:
    """The index's text for the files (name, text) of ``folder``: each file's tables as
    TOML reads them."""
    tables = {}
    for name, text in files:
        rows = []
        for raw in read_tables(f"{folder}/{name}", text):
            entry_name = raw.get("name") if isinstance(raw, dict) else None
            data = json.dumps(raw, allow_nan=False)  # keys in the TOML's order
            rows.append([*table_key(raw), entry_name, data])
        tables[name] = rows
    return json.dumps({"toml_sha256": digest(files), "files": tables}, indent=0,
                      sort_keys=True) + "\n"


def stored(files: list[tuple[str, str]], text: str | None
           ) -> dict[str, list[tuple[tuple[str, str], Any, StoredTable]]] | None:
    """Per file name, its tables as (key, name, data) from the index ``text``; None when
    there is no index, or it was made from other files than ``files``."""
    if text is None:
        return None
    try:
        index = json.loads(text)
        if index["toml_sha256"] != digest(files) or set(index["files"]) != \
                {name for name, _ in files}:
            return None
        return {name: [((domain, op_type), entry_name, StoredTable(data))
                       for domain, op_type, entry_name, data in rows]
                for name, rows in index["files"].items()}
    except (ValueError, KeyError, TypeError):  # not an index this code wrote
        return None


def index_text(folder: str) -> str | None:
    """The shipped index of ``folder``, or None when there is none."""
    try:
        return (catalogue_root() / folder / INDEX).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None


def main(folder: str = "onnx") -> None:
    """Write the index of the catalogue's ``folder`` (in the tree this runs from)."""
    path = catalogue_root() / folder / INDEX
    path.write_text(serialized(list(catalogue_files(folder)), folder),  # type: ignore
                    encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)

"""The shipped catalogue files, and their tables precompiled as JSON.

The catalogue's one home is its TOML files (``signatures/*.toml``). Reading them with
``tomllib`` at every ``import kantensor`` cost about 15-25 ms (a pure-Python parser over
90 kB); ``json`` reads the same tables in about 2. So ``tables.json`` beside them holds,
for each file, the tables TOML gives and the SHA-256 of the text they were read from,
made by ``python -m kantensor.ops.shipped`` (``make catalogue-index``); a test makes them
again and compares. A file whose text no longer has the recorded digest (edited since) is
read from its TOML: slower, never stale. JSON holds every value the catalogue uses
(strings, numbers, booleans, arrays, tables); a value it cannot hold (a TOML date) makes
writing the file fail, not the tables differ.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

#: The precompiled tables, in the folder of the catalogue files.
TABLES = "tables.json"


def catalogue_root() -> Any:
    """The folder of catalogue files: the installed data package, or the checkout's
    ``signatures/`` when kantensor runs from a source tree without installing."""
    try:
        return resources.files("kantensor._catalogue")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[3] / "signatures"


def catalogue_files(folder: str | None = None) -> Iterator[tuple[str, str]]:
    """(name, text) of every shipped catalogue file, in a stable order; those of a
    subfolder (``onnx``: the ONNX Ops) with ``folder``."""
    root = catalogue_root()
    for item in sorted((root / folder if folder else root).iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            yield item.name, item.read_text()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def precompiled() -> dict[str, Any]:
    """The shipped :data:`TABLES` (file name -> its digest and tables); empty when there
    is none."""
    try:
        text = (catalogue_root() / TABLES).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return json.loads(text)


def tables_of(name: str, text: str, shipped: dict[str, Any]) -> list[Any] | None:
    """The TOML data of the ``[[op]]`` tables of the file ``name`` whose text is ``text``,
    from ``shipped`` (:func:`precompiled`) when they were made from this very text; None
    otherwise (the caller reads the TOML)."""
    entry = shipped.get(name)
    if entry is None or entry["sha256"] != digest(text):
        return None
    return entry["tables"]


def serialized() -> str:
    """The canonical JSON text of every shipped file's tables (what :data:`TABLES` holds).
    A file that is not only ``[[op]]`` tables is left out (it is read, and its error
    reported, from its TOML)."""
    document = {}
    for name, text in catalogue_files():
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
        if set(data) == {"op"} and isinstance(data["op"], list):
            document[name] = {"sha256": digest(text), "tables": data["op"]}
    return json.dumps(document, sort_keys=True, indent=0, ensure_ascii=False,
                      allow_nan=False) + "\n"


def main() -> None:
    """Write :data:`TABLES` beside the catalogue files (of the tree this runs from)."""
    path = catalogue_root() / TABLES
    path.write_text(serialized(), encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

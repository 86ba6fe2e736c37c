"""The tables of a folder of catalogue files by key, shipped: ``keys.json``.

The ONNX registry finds an op type's tables by (domain, op type). Indexing the folder
at a process's first ``infer_shapes`` read the heads of every precompiled table
(:mod:`.shipped`: the index line of ``tables.jsonl``, all its lines split) and filed
each by its key, a Python step per table (221 of them). ``keys.json`` beside
:data:`~.shipped.TABLES` (made by ``make catalogue-index``, checked current by a test)
holds that index made: each file's :func:`fingerprint`, and per key one string of its
tables' rows (the file, the table's place in the file, the place of its line in
:data:`~.shipped.TABLES`, a check of that line and the opsets the table types), split
only when a model uses the key; so the index is one small JSON decode and a table one
slice of the bytes of :data:`~.shipped.TABLES`, decoded alone.

The staleness rule: every file is read and its fingerprint (its length and CRC-32)
compared with the recorded one; the rows of a file whose fingerprint differs (edited,
added or removed since) are dropped, and the file is read from its TOML. A row's line
is used only where :data:`~.shipped.TABLES` has, at that place, a whole line of that
check (:func:`shipped_table`: an older or another table has another); else the file's
TOML gives the table. A file with two tables of one name, or a name or key holding a
row's separators, has no rows (the registry reads it, and reports what is wrong). A
row's table is checked as any table is, and must be of its key.

Why a CRC, not SHA-256 (which this index recorded until issue 32): what the check
guards against is a file edited after ``make catalogue-index`` (a stale index), and
any edit changes a file's length or CRC-32 but for one in 2**32 (every edit of up to
32 consecutive bits changes the CRC). It vouches for nothing against someone who can
write the package's files, whatever the digest: they can write ``keys.json`` and
``tables.jsonl`` as well. And a table a row gives is only ever one of the shipped
tables, read as data (JSON, never executed) and checked as any table is, so a
collision forged on purpose makes the registry read the table shipped for that place
instead of the edited file's: no other outcome. SHA-256 of the folder's 177 kB was
about 5 million instructions at a process's first ``infer_shapes`` (the processor's
own SHA instructions are not always there); the CRC is about 0.7 million.

A row's opsets (``since until``, ``-`` for a table that names no last one, ``?`` where
the table's values are not plain opset numbers) let the registry pass over the tables
of other opsets without decoding them (:func:`covers`); the table it takes is decoded
and built, and its entry decides (a row that says it covers an opset it does not is
only a table decoded for nothing).
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from functools import cache
from itertools import repeat
from typing import Any

from .catalogue import CatalogueError, read_tables
from .shipped import TABLES, catalogue_files, catalogue_root, serialized
from .shipped import main as write_tables

#: The index of a folder's tables by key, beside its :data:`~.shipped.TABLES`.
KEYS = "keys.json"

#: The folders with a :data:`KEYS` file.
KEYED = ("onnx",)


def table_key(raw: Any) -> tuple[str, str]:
    """The (domain, op type) a table names; a table too malformed to name them is kept
    under a key no node has, so that loading it reports the problem."""
    if not isinstance(raw, dict):
        return "", "?"
    domain, op_type = raw.get("domain", ""), raw.get("onnx", raw.get("name"))
    if not isinstance(domain, str) or not isinstance(op_type, str):
        return "", "?"
    return domain, op_type


def serialized_keys(folder: str) -> str:
    """The canonical JSON text of ``folder``'s :data:`KEYS`, for the
    :data:`~.shipped.TABLES` that :func:`~.shipped.serialized` writes: the files whose
    tables it holds, those with unique names filed (each with its :func:`fingerprint`),
    each table's row ``name index start end check since until`` (its line's place in
    that text, :func:`_check` of it, and its opsets: :func:`_opset_text`) in the rows
    of its key, joined by ``;`` (one string a key, split when used), by domain and op
    type (two levels of tables: the registry's keys made without splitting text)."""
    text = serialized(folder)
    heads = json.loads(text[:text.index("\n")])
    lines = text.split("\n")
    starts = [0]  # (places in the file's bytes, which a row's table is sliced from)
    for line in lines:
        starts.append(starts[-1] + len(line.encode("utf-8")) + 1)
    data = {name: file.encode("utf-8") for name, file in catalogue_files(folder)}
    files: dict[str, str] = {}
    keys: dict[str, dict[str, list[str]]] = {}
    for name, head in sorted(heads.items()):
        tables = [json.loads(lines[head["line"] + k]) for k in range(len(head["heads"]))]
        found = [table_key(t) for t in tables]
        names = [t.get("name") if isinstance(t, dict) else None for t in tables]
        if len(set(names)) != len(names) or _SEPARATORS.intersection(
                "".join([name, *(part for key in found for part in key)])):
            continue  # (read from its TOML, which says what is wrong)
        files[name] = fingerprint(data[name])
        for index, (key, table) in enumerate(zip(found, tables, strict=True)):
            k = head["line"] + index
            opsets = " ".join(_opset_text(table, o) for o in ("since", "until"))
            keys.setdefault(key[0], {}).setdefault(key[1], []).append(
                f"{name} {index} {starts[k]} {starts[k + 1] - 1} {_check(lines[k])} {opsets}")
    return json.dumps({"files": files, "keys": {domain: {t: ";".join(rows) for t, rows in
                                                         ops.items()}
                                                for domain, ops in keys.items()}},
                      sort_keys=True, ensure_ascii=False) + "\n"


def fingerprint(data: bytes) -> str:
    """What :data:`KEYS` records of a file's bytes, to tell a file edited since: its
    length and CRC-32 (why not a digest: the module's doc)."""
    return f"{len(data)} {zlib.crc32(data):08x}"


def _opset_text(table: Any, key: str) -> str:
    """A table's ``since`` or ``until`` as its row writes it: the opset number, ``-``
    where the table has none, ``?`` where it is not an opset number (an int >= 1)."""
    if not isinstance(table, dict) or key not in table:
        return "-"
    value = table[key]
    return str(value) if type(value) is int and value >= 1 else "?"


#: A table's header line, or one of its one-line name keys, as the shipped files write
#: them; each match starts at the newline before the line (a pattern that starts with a
#: literal is searched for fast: scanning every file costs about 0.1 ms).
_LINE = re.compile(r'\n(?:(\[\[op\]\])|(name|onnx|domain)[ \t]*=[ \t]*"([^"\\\n]*)")'
                   r"[ \t]*$", re.M)


def split_tables(text: str) -> list[tuple[tuple[str, str], str, str]] | None:
    """The ``[[op]]`` tables of a file as (key, name, text), found without parsing the
    TOML (parsing every file costs more than building the entries a model uses); None
    when the file is not written so that they can be (it is then parsed whole)."""
    heads: list[int] = []
    found: list[dict[str, str]] = []
    for m in _LINE.finditer("\n" + text):  # positions in text are one less
        if m.group(1):
            heads.append(m.start())
            found.append({})
        elif found:
            keys = found[-1]
            if m.group(2) in keys:
                return None
            keys[m.group(2)] = m.group(3)
    if not heads or any(line.strip() and not line.lstrip().startswith("#")
                        for line in text[:heads[0]].splitlines()):
        return None
    out = []
    for start, end, keys in zip(heads, [*heads[1:], len(text)], found, strict=True):
        if "name" not in keys:
            return None
        out.append(((keys.get("domain", ""), keys.get("onnx", keys["name"])), keys["name"],
                    text[start:end]))
    return out


#: What no name, op type or domain of a keyed file holds (the rows' separators).
_SEPARATORS = frozenset(" ;")


def _check(line: str) -> str:
    """What a row records of its table's line: its CRC-32, 8 hex digits (a line of
    another text, an older table or another table, has another but for one in 2**32;
    its length is the row's place)."""
    return f"{zlib.crc32(line.encode('utf-8')):08x}"


def keyed(folder: str) -> tuple[dict[str, str], dict[tuple[str, str], Any]] | None:
    """``folder``'s :data:`KEYS`: each file's recorded :func:`fingerprint` by name, and
    by (domain, op type) its rows, one string (:func:`rows` reads them); None when there
    is none or it is not one :func:`serialized_keys` wrote (a row is checked when read),
    or cannot be read (OSError: a folder of that name, no permission) or decoded
    (RecursionError: nested deeper than json decodes)."""
    try:
        made = json.loads((catalogue_root() / folder / KEYS).read_text(encoding="utf-8"))
        files, keys = made["files"], made["keys"]
        packed: dict[tuple[str, str], Any] = {}
        for domain, ops in keys.items():  # (a domain's keys filed at once, in C: 208)
            packed.update(zip(zip(repeat(domain), ops), ops.values(), strict=True))
        files = dict(files) if isinstance(files, dict) else None
    except (OSError, ValueError, RecursionError, KeyError, TypeError, AttributeError):
        return None
    if files is None or not _STRINGS.issuperset(map(type, files.values())) or \
            not _STRINGS.issuperset(map(type, packed.values())):
        return None
    return files, packed


#: The one type :func:`keyed` accepts for a fingerprint or a key's rows.
_STRINGS = frozenset({str})


#: A row's place: its line's start and end in the bytes of :data:`~.shipped.TABLES`,
#: the line's check, and the opsets its table types (``since``, ``until``; None where
#: the table has none) or None where they are not known (see :func:`covers`).
Place = tuple[int, int, str, "tuple[int | None, int | None] | None"]


def rows(folder: str, packed: str) -> list[tuple[str, int, Place]]:
    """The rows of one key's string: (file, index, its line's :data:`Place`), file as
    ``folder/name``; CatalogueError where one is not ``name index start end check
    since until``."""
    try:
        return [(f"{folder}/{name}", int(index),
                 (int(start), int(end), check, _opsets(since, until)))
                for name, index, start, end, check, since, until in
                (r.split(" ") for r in packed.split(";"))]
    except ValueError:
        raise CatalogueError(f"{folder}/{KEYS}: a row is not 'name index start end check "
                             "since until' (make catalogue-index)") from None


def _opsets(since: str, until: str) -> tuple[int | None, int | None] | None:
    """A row's opsets as :func:`_opset_text` wrote them (ValueError where it did not)."""
    if since == "?" or until == "?":
        return None
    return (None if since == "-" else _number(since),
            None if until == "-" else _number(until))


def _number(text: str) -> int:
    if not text.isdigit():  # (int() would take " 1", "+1", "1_0")
        raise ValueError(text)
    return int(text)


def covers(place: Place, opset: int, first: int) -> bool:
    """Whether the table of a row's ``place`` may type ``opset`` (``first``: the first
    opset of a table that names none), read off the row, without decoding the table:
    False only where its recorded opsets exclude ``opset``."""
    opsets = place[3]
    if opsets is None:
        return True
    since, until = opsets
    return (first if since is None else since) <= opset and (until is None or opset <= until)


@cache
def _shipped(folder: str) -> bytes:
    """The bytes of ``folder``'s :data:`~.shipped.TABLES` (empty where there is none, or
    it cannot be read: then every table is read from its TOML). Kept as bytes: a row's
    line is decoded when its table is used, not the whole file (220 kB, of which a
    model's first call uses a few lines)."""
    try:
        return (catalogue_root() / folder / TABLES).read_bytes()
    except (OSError, ValueError):
        return b""


def shipped_table(folder: str, place: Place) -> str | None:
    """The JSON text of the table a row's place (``start, end, check``, ...: places in
    the file's bytes) names in :data:`~.shipped.TABLES`: the whole line there, whose
    :func:`_check` is the recorded one; else None (the caller reads the file's TOML)."""
    data = _shipped(folder)
    start, end, check = place[:3]
    if not (0 < start <= end < len(data) and data[start - 1] == _NEWLINE == data[end]):
        return None
    line = data[start:end]
    if b"\n" in line or f"{zlib.crc32(line):08x}" != check:  # (_check of its text)
        return None
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return None


_NEWLINE = ord("\n")


def dropped(out: dict[tuple[str, str], Any], folder: str, file: str) -> None:
    """Take every shipped row of ``file`` out of the index ``out`` (its rows are not
    current), and each key left with no row."""
    for key, found in list(out.items()):
        if isinstance(found, str):
            kept = [row for row in rows(folder, found) if row[0] != file]
            if kept:
                out[key] = kept
            else:
                del out[key]


def toml_table(folder: str, file: str, index: int) -> Any:
    """The ``index``-th table of ``file`` (``folder/name``) as its TOML gives it, where
    a shipped row's line does not hold it; CatalogueError when there is none."""
    for name, text in catalogue_files(folder):
        if f"{folder}/{name}" == file:
            raws = read_tables(file, text)
            if type(index) is int and 0 <= index < len(raws):
                return raws[index]
    raise CatalogueError(f"{file}: op #{index}: no such table (make catalogue-index)")


def main() -> None:
    """Write the precompiled tables and forms (:func:`~.shipped.main`), then each keyed
    folder's :data:`KEYS` (``make catalogue-index``)."""
    write_tables()
    for folder in KEYED:
        path = catalogue_root() / folder / KEYS
        path.write_text(serialized_keys(folder), encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

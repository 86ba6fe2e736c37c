"""The ONNX Ops: catalogue entries of ``signatures/onnx/*.toml``, by op type and opset.

An entry is a catalogue entry (see :mod:`kantensor.ops.catalogue`) with these keys more:

``onnx``    the op type (default: the entry's name)
``domain``  the operator set domain (default ``""``, the default domain ``ai.onnx``)
``since``, ``until``  the first and last opsets of that domain it types (default 13, the newest)
``inputs``  the names of the ONNX inputs in order (default: the call's tensors); a trailing
            ``?`` marks an optional input, a leading ``*`` one or more (``*name?``: any)
``outputs`` its outputs' names, so marked (default: one required output; :mod:`.entrykeys`)
``reads_only``  ``"shapes"`` when the kernel reads its inputs' shapes only, never their
            values (Shape, Size): the importer runs it on the inputs' types (see
            :class:`~.values.TypeStandIn`), so its output's value holds their sizes (Dims)
``containers``  the dotted path of a :class:`~.structured.Structured` handler that types
            the node when one of its inputs is a sequence or an optional (Identity)
``values``, ``compares``, ``counts``  what size analyses read of it (:mod:`.declared`)

An op whose values are not all tensors (sequences, optionals) or that holds subgraphs
(If, Loop, Scan) has no signature over tensors: its table names, instead of ``signature``
and ``impl``, the handler that types and builds it (``op``: the dotted path of a
:class:`~.structured.Structured` class), beside ``name``, ``onnx``, ``domain``, ``since``,
``until``, ``inputs``, ``outputs`` and ``doc``; its attributes are the handler's.

The node's inputs are the Op's tensor inputs, in order (absent optional ones left out;
a call parameter named ``given``, if any, receives the positions of those present). A
call parameter ``<input>_value`` receives the value of that input when it is known when
the model is read (a constant, or folded from constants and ``Shape``), else None. Every
other keyword-only parameter of ``call`` (after ``*``) is an ONNX attribute of the same
name; an attribute the node lacks takes the default of the call. Each file is read on its
own, so a family of ops is added by adding a file. The tables are taken from the
precompiled tables shipped beside the files (:mod:`kantensor.ops.shipped`) when they
were made from them, else found in the files without parsing them; an entry is built
(its table read, its signature parsed, its code imported, its examples checked as data)
when a model first uses its op type.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ..ops.catalogue import CatalogueError, Entry, catalogue_root, load_entry, read_tables
from ..ops.keyed import covers, dropped, fingerprint, keyed, rows, shipped_table, toml_table
from ..ops.keyed import split_tables as _split
from ..ops.keyed import table_key as _key
from ..ops.shipped import ShippedTable, catalogue_data
from .onnxop import (
    FIRST_OPSET,
    KEYS,
    OnnxOp,
    StructuredEntry,
    is_opset,
    is_structured,
    load_structured,
    onnx_op,
)

#: The catalogue's folder of ONNX entries.
FOLDER = "onnx"


def load_onnx_file(path: str | Path, text: str | None = None, allow: Sequence[str] = ()
                   ) -> list[Entry | StructuredEntry]:
    """Validate one file of ONNX entries as :func:`registry` reads it (catalogue entries
    with :data:`~.onnxop.KEYS` and structured ops' tables, valid opset ranges, no two entries of
    one op type whose ranges overlap); CatalogueError listing every problem, its
    ``entries`` the valid ones (the ``kantensor check`` of ONNX files)."""
    allow = (allow,) if isinstance(allow, str) else allow
    name = str(path)
    try:
        tables = read_tables(path, text)
    except CatalogueError as exc:
        exc.entries = []
        raise
    entries: list[Entry | StructuredEntry] = []
    errors: list[str] = []
    for i, raw in enumerate(tables):  # every entry is checked: all the errors reported
        try:
            entries.append(load_structured(name, i, raw) if is_structured(raw) else
                           load_entry(name, i, raw, allow, KEYS))
        except CatalogueError as exc:
            errors.append(str(exc))
    seen: dict[str, int] = {}
    valid: list[Entry | StructuredEntry] = []
    ops: dict[tuple[str, str], list[OnnxOp]] = {}
    for entry in entries:
        if entry.name in seen:
            errors.append(f"{name}: op #{entry.index + 1} ({entry.name}): duplicate name "
                          f"(first defined as op #{seen[entry.name] + 1})")
        seen[entry.name] = entry.index
        try:
            op = onnx_op(entry)
        except CatalogueError as exc:
            errors.append(str(exc))
            continue
        for other in ops.get((op.domain, op.op_type), []):
            if other.covers(op.since) or op.covers(other.since):
                errors.append(f"{entry.where}: opsets {op.since} to {op.until or 'the newest'}"
                              f" overlap those of {other.entry.where}")
        ops.setdefault((op.domain, op.op_type), []).append(op)
        valid.append(entry)
    if errors:
        exc = CatalogueError("\n".join(errors))
        exc.errors, exc.entries = errors, valid
        raise exc
    return entries


def is_onnx_file(path: str | Path) -> bool:
    """Whether ``path`` is a file of the catalogue's ONNX folder (the one
    :func:`registry` reads), by where it is, not by its name."""
    folder = Path(str(catalogue_root() / FOLDER)).resolve()
    return Path(path).resolve().parent == folder


class Tables(dict):
    """:func:`_tables`' index: the rows of each (domain, op type), and ``verified``, the
    files whose shipped rows it kept (their fingerprint the recorded one): a shipped row's
    line is used for these only (:func:`_table`), any other file's TOML is read."""

    __slots__ = ("verified",)

    def __init__(self, rows: dict[tuple[str, str], Any], verified: frozenset[str]) -> None:
        super().__init__(rows)
        self.verified = verified


@cache
def _tables() -> Tables:
    """The tables of every file of ``signatures/onnx`` by (domain, op type), in the
    files' order: each its shipped row's line (:mod:`kantensor.ops.keyed`: the index
    made by ``make catalogue-index``, kept where the file's length and CRC-32 are the
    recorded ones, the table read when used), else its text, or its TOML data when the
    file could not be split: an entry is built when a model first uses its op type."""
    files, out = keyed(FOLDER) or ({}, {})
    verified: set[str] = set()
    for name, data in catalogue_data(FOLDER):
        file = f"{FOLDER}/{name}"
        if files.pop(name, None) == fingerprint(data):
            verified.add(file)
            continue
        dropped(out, FOLDER, file)
        text = data.decode("utf-8")
        split = _split(text) or [(_key(raw), raw.get("name") if isinstance(raw, dict)
                                  else None, raw) for raw in read_tables(file, text)]
        seen: dict[Any, int] = {}
        for index, (key, entry_name, table) in enumerate(split):
            if isinstance(entry_name, str) and entry_name in seen:
                raise CatalogueError(f"{file}: op #{index + 1} ({entry_name}): duplicate "
                                     f"name (first defined as op #{seen[entry_name] + 1})")
            seen[entry_name] = index
            found = out.get(key, [])
            out[key] = [*(rows(FOLDER, found) if isinstance(found, str) else found),
                        (file, index, table)]
            out[key].sort(key=lambda row: (row[0], row[1]))  # (in the files' order)
    for name in files:  # (recorded, but no file of the folder now)
        dropped(out, FOLDER, f"{FOLDER}/{name}")
    return Tables(out, frozenset(verified))


def _table(file: str, index: int, table: Any, key: tuple[str, str],
           verified: frozenset[str]) -> Any:
    """The TOML data of a table (read now if it is a shipped row's, its TOML text or
    precompiled), which must be a table of ``key`` (``verified``: :class:`Tables`)."""
    if type(table) is tuple:  # a shipped row's place, else the file's own table
        table = (shipped_table(FOLDER, table) if file in verified else None) or \
            toml_table(FOLDER, file, index)
        table = ShippedTable({}, table) if isinstance(table, str) else table
    if isinstance(table, ShippedTable):
        try:
            table = table.data()
        except (ValueError, RecursionError):
            raise CatalogueError(f"{file}: op #{index + 1}: its precompiled table is not "
                                 "JSON (make catalogue-index)") from None
    if not isinstance(table, str):
        if _key(table) != key:
            raise CatalogueError(f"{file}: op #{index + 1}: its table does not name "
                                 f"{key[1]} (make catalogue-index)")
        return table
    raws = read_tables(file, table)
    if len(raws) != 1 or _key(raws[0]) != key:
        raise CatalogueError(f"{file}: op #{index + 1}: its table is not one [[op]] "
                             f"table naming {key[1]} on its own lines")
    return raws[0]


@cache
def entries(domain: str, op_type: str) -> tuple[OnnxOp, ...]:
    """The entries of an op type of a domain, built (and checked) on first use."""
    return tuple(_entry(domain, op_type, i) for i in range(len(_rows(domain, op_type))))


@cache
def _rows(domain: str, op_type: str) -> tuple[tuple[str, int, Any], ...]:
    found = _tables().get((domain, op_type), ())
    return tuple(rows(FOLDER, found) if isinstance(found, str) else found)


@cache
def _raw(domain: str, op_type: str, i: int) -> Any:
    file, index, table = _rows(domain, op_type)[i]
    return _table(file, index, table, (domain, op_type), _tables().verified)


@cache
def _entry(domain: str, op_type: str, i: int) -> OnnxOp:
    """The i-th entry of an op type, built (and checked) on first use."""
    file, index, _ = _rows(domain, op_type)[i]
    return onnx_op(_load(file, index, _raw(domain, op_type, i)))


def _may_cover(raw: Any, opset: int) -> bool:
    """Whether an entry's table may type ``opset``, read before it is built (so other
    opsets' entries are never built): False only where ``since`` and ``until`` are
    opset numbers that exclude it (else the built entry decides, and checks them)."""
    since, until = raw.get("since", FIRST_OPSET), raw.get("until")
    if not (is_opset(since) and (until is None or is_opset(until))):
        return True
    return since <= opset and (until is None or opset <= until)


def _load(file: str, index: int, raw: Any) -> Entry | StructuredEntry:
    return load_structured(file, index, raw) if is_structured(raw) else \
        load_entry(file, index, raw, extra=KEYS)


def registry() -> dict[tuple[str, str], list[OnnxOp]]:
    """Every ONNX entry, by (domain, op type), from every file of ``signatures/onnx``."""
    return {key: list(entries(*key)) for key in _tables()}


def supported() -> list[str]:
    """The op types with an entry (domain-qualified outside the default domain)."""
    return sorted(t if d == "" else f"{d}.{t}" for d, t in _tables() if t != "?" or d)


class UnsupportedOp(ValueError):
    """A node whose op type, domain or opset has no entry (or an attribute that the
    entry does not take). A model with such a node is still typed wherever the node
    does not reach (see :func:`kantensor.onnx.from_onnx`)."""


#: Where a message sends the reader for the op types kantensor types.
WHERE_SUPPORTED = ("the op types and opsets kantensor types are listed by "
                   "kantensor.onnx.supported() and in the docs (onnx.rst, 'Supported ops')")


def lookup(op_type: str, domain: str, opset: int | None, node: str) -> OnnxOp:
    """The entry typing ``op_type`` of ``domain`` at ``opset`` (the version of that
    domain the model imports); UnsupportedOp naming the node, its op type, domain and
    opset, and where to read what is supported."""
    domain = "" if domain == "ai.onnx" else domain
    for i, (_, _, table) in enumerate(_rows(domain, op_type) if opset is not None else ()):
        if type(table) is tuple and not covers(table, opset, FIRST_OPSET):
            continue  # (a shipped row of other opsets: its table not decoded)
        raw = _raw(domain, op_type, i)
        if not isinstance(raw, dict) or _may_cover(raw, opset):
            op = _entry(domain, op_type, i)
            if op.covers(opset):
                return op
    found = entries(domain, op_type)
    named = f"{op_type} (domain {domain or 'ai.onnx'!r}"
    named += f", opset {opset})" if opset is not None else \
        ", of which the model imports no opset)"
    if found:
        ranges = ", ".join(f"{o.since} to {o.until or 'the newest'}" for o in found)
        raise UnsupportedOp(f"node {node!r}: {named} is supported in opsets {ranges} "
                            f"only; {WHERE_SUPPORTED}")
    raise UnsupportedOp(f"node {node!r}: {named} is not supported; {WHERE_SUPPORTED}")

"""The ONNX Ops: catalogue entries of ``signatures/onnx/*.toml``, by op type and opset.

An entry is a catalogue entry (see :mod:`kantensor.ops.catalogue`) with these keys more:

``onnx``    the op type (default: the entry's name)
``domain``  the operator set domain (default ``""``, the default domain ``ai.onnx``)
``since``   the first opset of that domain the entry types (default 13)
``until``   the last one (default: every later opset)
``inputs``  the names of the ONNX inputs in order (default: the call's tensors); a trailing
            ``?`` marks an optional input, a leading ``*`` a variadic one

The node's inputs are the Op's tensor inputs, in order (absent optional ones left out;
a call parameter named ``given``, if any, receives the positions of those present). A
call parameter ``<input>_value`` receives the value of that input when it is known when
the model is read (a constant, or folded from constants and ``Shape``), else None. Every
other keyword-only parameter of ``call`` (after ``*``) is an ONNX attribute of the same
name; an attribute the node lacks takes the default of the call. Each file is read on its
own, so a family of ops is added by adding a file. The files are parsed once; an entry is
built (its signature parsed, its code imported, its examples checked as data) when a model
first uses its op type.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from ..ops.catalogue import (
    CatalogueError,
    Entry,
    catalogue_files,
    catalogue_root,
    load_entry,
    load_file,
    read_tables,
)
from ..ops.family import OpFamily
from ..ops.op import SignatureOp
from ..signature.overloads import compiled
from ..syntax.alternative import Overloads
from ..types.dtypes import DEFAULT_RANGE

#: The keys ONNX entries add to a catalogue entry.
KEYS = ("onnx", "domain", "since", "until", "inputs")

#: What an input whose dtype names no category takes (no string).
_NUMBERS = frozenset(DEFAULT_RANGE)

#: The catalogue's folder of ONNX entries.
FOLDER = "onnx"

#: The first opset of the default domain an entry types unless it says otherwise.
FIRST_OPSET = 13


@dataclass(frozen=True, eq=False)
class OnnxOp:
    """One entry: the op type and opsets it types, its ONNX inputs, and the Op (equal
    to itself only: a key of the node memo)."""

    op_type: str
    domain: str
    since: int
    until: int | None
    inputs: tuple[str, ...]
    entry: Entry
    op: SignatureOp | OpFamily

    def covers(self, opset: int) -> bool:
        return self.since <= opset and (self.until is None or opset <= self.until)

    @cached_property
    def takes_strings(self) -> bool:
        """Whether an input may be a string: an alternative of its signature admits one
        (``T in string``); an Op with parameters renders no such signature."""
        sig = getattr(self.op, "signature", None)
        return isinstance(sig, Overloads) and any(
            not allowed <= _NUMBERS for c in compiled(sig) for allowed in c.input_dtypes)

    @cached_property
    def attributes(self) -> dict[str, Any]:
        """The attribute parameters (the call's keyword-only ones), by name."""
        return {p.name: p for p in self.entry.spec.params if p.keyword_only}

    @cached_property
    def reads(self) -> tuple[int, ...]:
        """The positions of the inputs whose values the entry reads (a ``<name>_value``
        parameter of the call)."""
        params = {p.name for p in self.entry.spec.params}
        return tuple(k for k, s in enumerate(self.inputs) if not s.startswith("*")
                     and f"{s.strip('*?')}_value" in params)


def _onnx_op(entry: Entry) -> OnnxOp:
    extra = dict(entry.extra)
    where = entry.where
    since, until = extra.get("since", FIRST_OPSET), extra.get("until")
    if not _opset(since) or not (until is None or _opset(until)):
        raise CatalogueError(f"{where}: since and until must be opset numbers (ints >= 1)")
    if until is not None and until < since:
        raise CatalogueError(f"{where}: until ({until}) is before since ({since})")
    for key in ("onnx", "domain"):
        if not isinstance(extra.get(key, ""), str):
            raise CatalogueError(f"{where}: {key} must be a string")
    inputs = extra.get("inputs")
    if inputs is None:
        inputs = [p.name if p.kind != "*tensors" else "*" + p.name
                  for p in entry.spec.params if p.is_tensor]
    if not isinstance(inputs, list) or not all(isinstance(i, str) for i in inputs):
        raise CatalogueError(f"{where}: inputs must be a list of names")
    return OnnxOp(extra.get("onnx", entry.name), extra.get("domain", ""), since, until,
                  tuple(inputs), entry, entry.make_op())


def _key(raw: Any) -> tuple[str, str]:
    """The (domain, op type) a table names; a table too malformed to name them is kept
    under a key no node has, so that loading it reports the problem."""
    if not isinstance(raw, dict):
        return "", "?"
    domain, op_type = raw.get("domain", ""), raw.get("onnx", raw.get("name"))
    if not isinstance(domain, str) or not isinstance(op_type, str):
        return "", "?"
    return domain, op_type


#: A table's header line, or one of its one-line name keys, as the shipped files write
#: them; each match starts at the newline before the line (a pattern that starts with a
#: literal is searched for fast: scanning every file costs about 0.1 ms).
_LINE = re.compile(r'\n(?:(\[\[op\]\])|(name|onnx|domain)[ \t]*=[ \t]*"([^"\\\n]*)")'
                   r"[ \t]*$", re.M)


def _split(text: str) -> list[tuple[tuple[str, str], str, str]] | None:
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


def _opset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def load_onnx_file(path: str | Path, text: str | None = None, allow: Sequence[str] = ()
                   ) -> list[Entry]:
    """Validate one file of ONNX entries as :func:`registry` reads it (catalogue entries
    with :data:`KEYS`, valid opset ranges, no two entries of one op type whose ranges
    overlap); CatalogueError listing every problem, its ``entries`` the valid ones (the
    ``kantensor check`` of ONNX files)."""
    try:
        entries, errors = load_file(path, text, allow, extra=KEYS), []
    except CatalogueError as exc:
        entries, errors = exc.entries, list(exc.errors)
    valid: list[Entry] = []
    ops: dict[tuple[str, str], list[OnnxOp]] = {}
    for entry in entries:
        try:
            op = _onnx_op(entry)
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


@cache
def _tables() -> dict[tuple[str, str], list[tuple[str, int, Any]]]:
    """The tables of every file of ``signatures/onnx`` by (domain, op type): each its
    text, or its TOML data when the file could not be split: an entry is parsed and
    built when a model first uses its op type (:func:`entries`)."""
    out: dict[tuple[str, str], list[tuple[str, int, Any]]] = {}
    for name, text in catalogue_files(FOLDER):
        file = f"{FOLDER}/{name}"
        split = _split(text)
        if split is None:
            raws = read_tables(file, text)
            split = [(_key(raw), raw.get("name") if isinstance(raw, dict) else None, raw)
                     for raw in raws]
        seen: dict[Any, int] = {}
        for index, (key, entry_name, table) in enumerate(split):
            if isinstance(entry_name, str) and entry_name in seen:
                raise CatalogueError(f"{file}: op #{index + 1} ({entry_name}): duplicate "
                                     f"name (first defined as op #{seen[entry_name] + 1})")
            seen[entry_name] = index
            out.setdefault(key, []).append((file, index, table))
    return out


def _table(file: str, index: int, table: Any, key: tuple[str, str]) -> Any:
    """The TOML data of a table (parsed now if it is text)."""
    if not isinstance(table, str):
        return table
    raws = read_tables(file, table)
    if len(raws) != 1 or _key(raws[0]) != key:
        raise CatalogueError(f"{file}: op #{index + 1}: its table is not one [[op]] "
                             f"table naming {key[1]} on its own lines")
    return raws[0]


@cache
def entries(domain: str, op_type: str) -> tuple[OnnxOp, ...]:
    """The entries of an op type of a domain, built (and checked) on first use."""
    key = (domain, op_type)
    return tuple(_onnx_op(load_entry(file, index, _table(file, index, table, key),
                                     extra=KEYS))
                 for file, index, table in _tables().get(key, ()))


def registry() -> dict[tuple[str, str], list[OnnxOp]]:
    """Every ONNX entry, by (domain, op type), from every file of ``signatures/onnx``."""
    return {key: list(entries(*key)) for key in _tables()}


def supported() -> list[str]:
    """The op types with an entry (domain-qualified outside the default domain)."""
    return sorted(t if d == "" else f"{d}.{t}" for d, t in _tables() if t != "?" or d)


class UnsupportedOp(ValueError):
    """A node whose op type, domain or opset has no entry (or an attribute that the
    entry does not take)."""


def lookup(op_type: str, domain: str, opset: int, node: str) -> OnnxOp:
    """The entry typing ``op_type`` of ``domain`` at ``opset``; UnsupportedOp naming the
    node, its op type and domain, and what is supported."""
    domain = "" if domain == "ai.onnx" else domain
    found = entries(domain, op_type)
    if found:
        for op in found:
            if op.covers(opset):
                return op
        ranges = ", ".join(f"{o.since} to {o.until or 'the newest'}" for o in found)
        raise UnsupportedOp(f"node {node!r}: {op_type} (domain {domain or 'ai.onnx'!r}) "
                            f"is supported in opsets {ranges}, not in opset {opset}")
    raise UnsupportedOp(f"node {node!r}: op type {op_type} of domain "
                        f"{domain or 'ai.onnx'!r} is not supported; supported op types: "
                        f"{', '.join(supported())}")

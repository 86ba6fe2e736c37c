"""The ONNX catalogue's index by key, shipped (kantensor.ops.keyed: signatures/onnx/
keys.json): current, and never stale. An edited, added or removed file, a row moved to
another table's line, a line changed since, a garbled or hostile index: each table is
then what TOML reads in the file (the oracle), or the registry refuses the table by
name; no table is ever another's."""

from __future__ import annotations

import json
import tomllib

import pytest

from kantensor.onnx import onnxop, registry
from kantensor.ops import keyed, shipped
from kantensor.ops.catalogue import CatalogueError, catalogue_root
from test_onnx_lazy import _read, toml_index


def _built(registry, op_type):
    """``op_type``'s entries built afresh from ``registry._tables()`` (as swapped in by a
    test), its caches emptied before and after."""
    caches = (registry.entries, registry._rows, registry._raw, registry._entry)
    for cached in caches:
        cached.cache_clear()
    try:
        return registry.entries("", op_type)
    finally:
        for cached in caches:
            cached.cache_clear()

def test_the_shipped_index_is_current():
    """keys.json is what ``make catalogue-index`` makes of the files now (if this fails:
    make catalogue-index, and commit it), and gives every table as TOML reads it."""
    assert (catalogue_root() / "onnx" / keyed.KEYS).read_text(encoding="utf-8") == \
        keyed.serialized_keys("onnx")
    assert _read(registry._tables.__wrapped__()) == toml_index()


def _index(monkeypatch: pytest.MonkeyPatch, made: tuple | None) -> dict:
    """``registry._tables()`` made afresh from the index ``made`` (as keyed() gives it)."""
    monkeypatch.setattr(registry, "keyed", lambda folder: made)
    return registry._tables.__wrapped__()


def _rows(packed: str) -> list[list[str]]:
    return [row.split(" ") for row in packed.split(";")]


def _packed(rows: list[list[str]]) -> str:
    return ";".join(" ".join(row) for row in rows)


@pytest.mark.parametrize("change", ["edited", "added", "removed", "none"])
def test_a_file_whose_digest_differs_is_read_from_its_toml(monkeypatch, change: str):
    """A file edited since (its digest another), one the index does not name (added
    since) or names but the folder no longer has (removed since), or no index at all:
    the tables are still TOML's, every key in the files' order."""
    files, packed = keyed.keyed("onnx")
    if change == "edited":
        files["math.toml"] = "36907 00000000"
    elif change == "added":
        del files["nn.toml"]
        packed = {k: _packed([r for r in _rows(v) if r[0] != "nn.toml"]) for k, v in
                  packed.items() if any(r[0] != "nn.toml" for r in _rows(v))}
    elif change == "removed":
        files["gone.toml"] = "12 01234567"
        packed[("", "Gone")] = "gone.toml 0 1 2 01234567 - -"
        packed[("", "Softmax")] += ";gone.toml 1 1 2 01234567 13 -"
    made = None if change == "none" else (files, packed)
    fresh = _index(monkeypatch, made)
    if change == "edited":  # (its keys' rows: the other files' still one string)
        assert not isinstance(fresh[("", "Softmax")], str)
    assert ("", "Gone") not in fresh
    assert _read(fresh) == toml_index()


@pytest.mark.parametrize("change", ["moved", "check", "outside", "line"])
def test_a_row_whose_line_is_not_its_table_is_read_from_the_toml(monkeypatch, change: str):
    """A row placed on another table's line (its check not that line's), a check that
    is not its line's, a place outside the text or not one whole line: the table is
    the file's own, read from its TOML."""
    files, packed = keyed.keyed("onnx")
    (add, *others), (sub, *_) = _rows(packed[("", "Softmax")]), _rows(packed[("", "LogSoftmax")])
    if change == "moved":
        add[2:4] = sub[2:4]
    elif change == "check":
        add[4] = "01234567"
    elif change == "outside":
        add[2:4] = ["999999999", "1000000000"]
    else:
        add[2] = str(int(add[2]) + 1)  # (not the start of a line)
    packed[("", "Softmax")] = _packed([add, *others])
    fresh = _index(monkeypatch, (files, packed))
    assert _read(fresh) == toml_index()


def test_a_row_of_a_file_the_index_records_no_digest_of_is_not_used(monkeypatch):
    """A hostile row of a file the index does not record (so no digest vouches for it),
    placed on a table's line with that line's own check: its table is not the shipped
    line but the file's TOML, and there is no such file."""
    files, packed = keyed.keyed("onnx")
    add, *others = _rows(packed[("", "Softmax")])
    packed[("", "Softmax")] = _packed([add, ["unrecorded.toml", "0", *add[2:]], *others])
    fresh = _index(monkeypatch, (files, packed))
    monkeypatch.setattr(registry, "_tables", lambda: fresh)
    with pytest.raises(CatalogueError, match="unrecorded.toml: op #0: no such table"):
        _built(registry, "Softmax")


def test_a_row_that_places_another_tables_line_is_refused_by_name(monkeypatch):
    """A hostile row naming another table's line with that line's own check (so the
    line is a table shipped for the file as it is): that table is not of the row's key,
    and the registry refuses it, naming what it should be."""
    files, packed = keyed.keyed("onnx")
    (add, *others), (sub, *_) = _rows(packed[("", "Softmax")]), _rows(packed[("", "LogSoftmax")])
    add[2:] = sub[2:]
    packed[("", "Softmax")] = _packed([add, *others])
    fresh = _index(monkeypatch, (files, packed))
    monkeypatch.setattr(registry, "_tables", lambda: fresh)
    with pytest.raises(CatalogueError, match="does not name Softmax"):
        _built(registry, "Softmax")


@pytest.mark.parametrize("text", ["{", "[]", '{"files": {}}', '{"files": [], "keys": {}}',
                                  '{"files": {"a.toml": 1}, "keys": {}}',
                                  '{"files": {}, "keys": {"Add": "x"}}',
                                  '{"files": {}, "keys": {"": {"Add": 3}}}',
                                  '{"files": {}, "keys": {"": ["Add"]}}'])
def test_an_index_not_written_by_make_catalogue_index_is_not_used(monkeypatch, text: str):
    class Folder:
        def __truediv__(self, name: str) -> Folder:
            return self

        def read_text(self, encoding: str) -> str:
            return text

    monkeypatch.setattr(keyed, "catalogue_root", Folder)
    assert keyed.keyed("onnx") is None


@pytest.mark.parametrize("text", ["[" * 100_000, '{"files": ' * 100_000,
                                  IsADirectoryError, PermissionError])
def test_an_index_too_deep_to_decode_or_unreadable_is_not_used(monkeypatch, text):
    """A keys.json nested deeper than json decodes (RecursionError), or one (or a
    tables.jsonl) that cannot be read (a folder of that name, no permission): no index,
    the tables read from the files, not an error at a model's first infer_shapes."""
    class Folder:
        def __truediv__(self, name: str) -> Folder:
            return self

        def read_text(self, encoding: str) -> str:
            if isinstance(text, str):
                return text
            raise text(f"keys.json: {text.__name__}")

        def read_bytes(self) -> bytes:
            if isinstance(text, str):
                return text.encode()
            raise text(f"tables.jsonl: {text.__name__}")

    monkeypatch.setattr(keyed, "catalogue_root", Folder)
    assert keyed.keyed("onnx") is None  # (then the "none" case above: TOML's tables)
    if not isinstance(text, str):  # an unreadable tables.jsonl: each row's table is
        assert keyed._shipped.__wrapped__("onnx") == b""  # read from its TOML


@pytest.mark.parametrize("row", ["math.toml 0 12", "math.toml 0 1 2 01234567",
                                 "math.toml zero 1 2 01234567 - -",
                                 "math.toml 0 1 2 01234567 +13 -", "math.toml 0 1 2 01234567 1_3 -",
                                 "math.toml 0 1 2 01234567 13 - 1"])
def test_a_row_that_is_not_seven_fields_is_refused(row: str):
    with pytest.raises(CatalogueError, match="make catalogue-index"):
        keyed.rows("onnx", row)


def test_a_file_with_a_separator_or_two_tables_of_one_name_has_no_rows(monkeypatch):
    """Such a file is left to the registry's reading of it (which refuses the duplicate
    by name): the index holds none of its rows."""
    doubled = '[[op]]\nname = "Twice"\nsignature = "():T->():T"\nimpl = "numpy.abs"\n' * 2
    spaced = '[[op]]\nname = "A b"\nsignature = "():T->():T"\nimpl = "numpy.abs"\n'
    files = [("doubled.toml", doubled), ("spaced.toml", spaced)]
    monkeypatch.setattr(keyed, "catalogue_files", lambda folder: iter(files))
    monkeypatch.setattr(keyed, "serialized", lambda folder: _tables_text(files))
    made = json.loads(keyed.serialized_keys("onnx"))
    assert made == {"files": {}, "keys": {}}


def _tables_text(files: list[tuple[str, str]]) -> str:
    """What shipped.serialized writes for ``files``."""
    heads, lines = {}, []
    for name, text in files:
        tables = tomllib.loads(text)["op"]
        heads[name] = {"sha256": shipped.digest(text), "line": len(lines) + 1,
                       "heads": [{"name": t["name"]} for t in tables]}
        lines += [json.dumps(t, sort_keys=True) for t in tables]
    return "\n".join([json.dumps(heads, sort_keys=True), *lines]) + "\n"


def test_lookup_builds_only_the_entry_of_the_models_opset():
    """An op type's entry for an opset is the one of its entries (all built) that covers
    it, at every op type and opset 1..30, and lookup builds no entry of another opset
    (Relu's three tables, split where ONNX's type constraints change: one built)."""
    _built(registry, "Relu")  # (caches emptied)
    op = registry.lookup("Relu", "", 21, "n")
    assert registry._entry.cache_info().currsize == 1 and op.covers(21)
    for domain, op_type in registry._tables():
        every = registry.entries(domain, op_type)
        for opset in range(1, 31):
            want = next((o for o in every if o.covers(opset)), None)
            if want is None:
                with pytest.raises(registry.UnsupportedOp, match=op_type):
                    registry.lookup(op_type, domain, opset, "n")
            else:
                assert registry.lookup(op_type, domain, opset, "n") is want


def test_a_file_edited_to_the_same_length_is_read_from_its_toml(monkeypatch):
    """An edit that keeps a file's length (Add-7's ``until = 12`` made 11) changes its
    CRC-32: the file is not verified, its tables are TOML's reading of the edited text
    (the oracle), never the shipped ones."""
    texts = dict(shipped.catalogue_data("onnx"))
    text = texts["math.toml"].decode("utf-8")
    edited = text.replace("until = 12", "until = 11", 1)
    assert edited != text
    assert len(edited.encode()) == len(texts["math.toml"])
    texts["math.toml"] = edited.encode("utf-8")
    monkeypatch.setattr(registry, "catalogue_data", lambda folder: iter(sorted(texts.items())))
    fresh = registry._tables.__wrapped__()
    assert "onnx/math.toml" not in fresh.verified and len(fresh.verified) == len(texts) - 1
    want: dict = {}
    for name, data in sorted(texts.items()):
        for index, raw in enumerate(tomllib.loads(data.decode("utf-8"))["op"]):
            want.setdefault(keyed.table_key(raw), []).append((f"onnx/{name}", index, raw))
    assert _read(fresh) == want


def test_each_rows_opsets_are_its_tables():
    """A shipped row's opsets (read without decoding its table) say of every opset what
    TOML's reading of the table says (since, until, the first opset by default)."""
    files, packed = keyed.keyed("onnx")
    tables = {f"onnx/{name}": tomllib.loads(text)["op"]
              for name, text in shipped.catalogue_files("onnx")}
    for found in packed.values():
        for file, index, place in keyed.rows("onnx", found):
            raw = tables[file][index]
            assert place[3] is not None
            for opset in range(1, 31):
                assert keyed.covers(place, opset, onnxop.FIRST_OPSET) == \
                    registry._may_cover(raw, opset), (file, index, opset)


@pytest.mark.parametrize("since", [7, None, "7", 0, True])
@pytest.mark.parametrize("until", [12, None, "x", -1])
def test_a_rows_opsets_as_written_say_what_the_table_says(since, until):
    """A row's opsets, written by ``_opset_text`` for a table whose ``since`` or
    ``until`` is absent or not an opset number (``-``, ``?``: either one alone) and
    read back, cover each opset where the registry's reading of the table may."""
    raw = {k: v for k, v in (("since", since), ("until", until)) if v is not None}
    text = " ".join(keyed._opset_text(raw, key) for key in ("since", "until"))
    [(_, _, place)] = keyed.rows("onnx", f"nn.toml 0 1 2 0000abcd {text}")
    for opset in range(1, 31):
        assert keyed.covers(place, opset, onnxop.FIRST_OPSET) == \
            registry._may_cover(raw, opset), (text, opset)


def test_lookup_decodes_only_the_table_of_the_models_opset():
    _built(registry, "Relu")  # (caches emptied)
    try:
        registry.lookup("Relu", "", 21, "n")
        assert registry._raw.cache_info().currsize == 1
    finally:
        _built(registry, "Relu")


def test_a_row_whose_opsets_lie_never_gives_another_entry(monkeypatch):
    """A hostile row of Relu's opset-14 table saying it types opset 1 only: lookup at 21
    finds no entry (UnsupportedOp), not another; its earlier tables saying they type
    every opset are decoded, and their entries refuse 21 (their since and until)."""
    files, packed = keyed.keyed("onnx")
    found = _rows(packed[("", "Relu")])
    for row in found[:-1]:
        row[5:] = ["1", "-"]
    found[-1][5:] = ["1", "1"]
    packed[("", "Relu")] = _packed(found)
    fresh = _index(monkeypatch, (files, packed))
    monkeypatch.setattr(registry, "_tables", lambda: fresh)
    _built(registry, "Relu")
    try:
        with pytest.raises(registry.UnsupportedOp, match="Relu"):
            registry.lookup("Relu", "", 21, "n")
        assert registry.lookup("Relu", "", 13, "n").since == 13
    finally:
        _built(registry, "Relu")

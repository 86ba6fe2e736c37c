"""Load the catalogue of built-in Ops from ``signatures/*.toml``.

Each file holds ``[[op]]`` tables::

    [[op]]
    name = "add"                    # the Op's name, also kantensor.add
    signature = "+(),()->()"        # the DSL text
    impl = "numpy.add"              # dotted path of the NumPy implementation
    compute = "output"              # output | promote | none (see SignatureOp)
    operator = "add"                # optional: the TensorVariable operator it backs
    doc = "Elementwise sum."

Validation errors name the file, the entry and (for signatures) the
position, so ``kantensor check FILE`` can point at them.
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .ast import Signature
from .errors import SignatureSyntaxError
from .op import COMPUTE_MODES, SignatureOp

REQUIRED = ("name", "signature", "impl")
OPTIONAL = ("compute", "operator", "doc")


class CatalogueError(ValueError):
    """A catalogue file or entry is invalid."""


@dataclass(frozen=True)
class Entry:
    """One validated catalogue entry."""

    file: str
    index: int
    name: str
    signature: Signature
    impl: Any
    compute: str
    operator: str | None
    doc: str

    def make_op(self) -> SignatureOp:
        return SignatureOp(self.name, self.signature, self.impl, compute=self.compute,
                           doc=self.doc)


def resolve(path: str) -> Any:
    """Import ``package.module.attr`` (the longest importable module prefix)."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise CatalogueError(f"cannot import {path!r}")


def _entry(file: str, index: int, raw: dict) -> Entry:
    where = f"{file}: op #{index + 1}" + (f" ({raw['name']})" if "name" in raw else "")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise CatalogueError(f"{where}: missing {', '.join(missing)}")
    unknown = sorted(set(raw) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise CatalogueError(f"{where}: unknown key{'s' * (len(unknown) > 1)} "
                             f"{', '.join(unknown)}; expected {', '.join(REQUIRED + OPTIONAL)}")
    try:
        sig = Signature.parse(raw["signature"])
    except SignatureSyntaxError as exc:
        raise CatalogueError(f"{where}: signature: {exc}") from None
    compute = raw.get("compute", "none")
    if compute not in COMPUTE_MODES:
        raise CatalogueError(f"{where}: compute must be one of {', '.join(COMPUTE_MODES)}, "
                             f"got {compute!r}")
    try:
        impl = resolve(raw["impl"])
    except CatalogueError as exc:
        raise CatalogueError(f"{where}: impl: {exc}") from None
    if not callable(impl):
        raise CatalogueError(f"{where}: impl {raw['impl']!r} is not callable")
    return Entry(file, index, raw["name"], sig, impl, compute, raw.get("operator"),
                 raw.get("doc", ""))


def load_file(path: str | Path, text: str | None = None) -> list[Entry]:
    """Parse and validate one catalogue file; CatalogueError on the first problem."""
    name = str(path)
    try:
        data = tomllib.loads(text if text is not None else Path(path).read_text())
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{name}: {exc}") from None
    ops = data.get("op")
    if not isinstance(ops, list) or set(data) - {"op"}:
        raise CatalogueError(f"{name}: expected only [[op]] tables")
    entries = [_entry(name, i, raw) for i, raw in enumerate(ops)]
    seen: dict[str, int] = {}
    for e in entries:
        if e.name in seen:
            raise CatalogueError(f"{name}: op #{e.index + 1} ({e.name}): duplicate name "
                                 f"(first defined as op #{seen[e.name] + 1})")
        seen[e.name] = e.index
    return entries


def catalogue_root() -> Any:
    """The folder of catalogue files: the installed data package, or the checkout's
    ``signatures/`` when kantensor runs from a source tree without installing."""
    try:
        return resources.files("kantensor._catalogue")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[3] / "signatures"


def catalogue_files() -> Iterator[tuple[str, str]]:
    """(name, text) of every shipped catalogue file, in a stable order."""
    for item in sorted(catalogue_root().iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            yield item.name, item.read_text()


def load_all() -> list[Entry]:
    entries: list[Entry] = []
    for name, text in catalogue_files():
        entries.extend(load_file(name, text))
    return entries

"""Lower layers never import higher ones (DESIGN.md, Layout): checked on the source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "kantensor"
#: The layers, lowest first: each a folder (a subpackage) or a top-level module of the
#: package, as DESIGN.md's Layout lists them. A module may import its own layer and the
#: ones before it, never one after it.
ORDER = ["graph", "syntax", "types", "logic", "signature", "ops", "backend", "query",
         "evalshape", "refinement", "graphtext", "onnx", "commands", "printing",
         "ipython", "cli", "__main__", "__init__"]


def layer(module: str) -> int | None:
    """The index in ORDER of the folder or top-level module that holds ``module``."""
    top = module.split(".")[0]
    return ORDER.index(top) if top in ORDER else None


def upward_imports(module: str, source: str) -> list[str]:
    """The relative imports of ``module`` (dotted, under kantensor) that reach a higher
    layer, anywhere in its source (functions included)."""
    package = module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ImportFrom) and node.level):
            continue
        base = package[: len(package) - node.level + 1]
        target = ".".join([*base, *([node.module] if node.module else [])])
        mine, theirs = layer(module), layer(target)
        if target and mine is not None and theirs is not None and theirs > mine:
            found.append(f"{module} imports {target} (line {node.lineno})")
    return found


def test_the_check_sees_an_upward_import():
    assert upward_imports("types.display", "from ..ops import CATALOGUE") == \
        ["types.display imports ops (line 1)"]
    assert upward_imports("ops.display", "from ..signature.display import x") == []


def test_every_folder_and_module_has_a_layer():
    tops = {p.stem for p in ROOT.glob("*.py")} | \
        {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert tops - set(ORDER) == set(), "place these in ORDER"


def test_no_module_imports_a_higher_layer():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found += upward_imports(".".join(parts), path.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)


def test_the_architecture_page_lists_the_layers_in_order():
    """docs/architecture.rst's table names every layer, in ORDER's order."""
    page = (ROOT.parents[1] / "docs" / "architecture.rst").read_text(encoding="utf-8")
    listed = re.findall(r"^   \* - ``([a-z_]+)/?``$", page, re.M)
    assert listed == ORDER

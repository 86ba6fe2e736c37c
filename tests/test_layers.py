"""Lower layers never import higher ones (DESIGN.md, Layout): checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "kantensor"
#: From the lowest layer up; a module may import its own layer and the ones before it.
#: A module belongs to the longest entry that prefixes its name: the dtype facts and the
#: Dim algebra (over its polynomials) come first, then the DSL's syntax (TensorType.parse
#: reads types with it),
#: then the rest of types/, the kanren side, the DSL's semantics (compile, solve), ...
ORDER = ["graph", "types.dtypes", "types.poly", "types.dim", "types.limits", "signature.errors",
         "signature.limits", "signature.ast", "signature.alternative", "signature.parser",
         "types", "logic", "signature", "ops", "backend", "query", "evalshape", "refinement",
         "graphtext",
         "commands", "printing", "ipython", "cli", "__main__", "__init__"]


def layer(module: str) -> int | None:
    best = None
    for i, entry in enumerate(ORDER):
        if (module == entry or module.startswith(entry + ".")) and \
                (best is None or len(entry) > len(ORDER[best])):
            best = i
    return best


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


def test_no_module_imports_a_higher_layer():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found += upward_imports(".".join(parts), path.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)

"""Lower layers never import higher ones (DESIGN.md, Layout): checked on the source."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import kantensor as kt
import kantensor.evalshape  # noqa: F401 - fills its hooks
from kantensor.graph.hooks import HOOKS, Hook

ROOT = Path(__file__).resolve().parents[1] / "src" / "kantensor"
#: The layers, lowest first: each a folder (a subpackage) or a top-level module of the
#: package, as DESIGN.md's Layout lists them. A module may import its own layer and the
#: ones before it, never one after it.
ORDER = ["graph", "syntax", "types", "logic", "signature", "ops", "backend", "query",
         "evalshape", "refinement", "graphtext", "onnx", "commands", "printing",
         "ipython", "onnxcommands", "repl", "cli", "__main__", "__init__"]


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


def one_slot_hooks(module: str, source: str) -> list[str]:
    """Assignments ``NAME[0] = ...`` (or ``module.NAME[0] = ...``) to a shared upper-case
    name: a hook as an anonymous one-slot list, which :class:`Hook` replaces."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for target in getattr(node, "targets", []) if isinstance(node, ast.Assign) else []:
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                    and target.slice.value == 0:
                name = target.value.attr if isinstance(target.value, ast.Attribute) else \
                    getattr(target.value, "id", "")
                if name.isupper() and not name.startswith("_"):
                    found.append(f"{module}: {name}[0] = ... (line {node.lineno})")
    return found


def test_the_check_sees_a_one_slot_hook():
    assert one_slot_hooks("ops", "AS_TENSOR[0] = f\nbasic.NEW_NODE[0] = g\ncell[0] = 1") == \
        ["ops: AS_TENSOR[0] = ... (line 1)", "ops: NEW_NODE[0] = ... (line 2)"]


def test_every_upward_call_is_a_named_hook_filled_by_its_owner():
    """Each Hook is declared once in a module, listed in HOOKS by its name, and filled by
    its owner, which is in the same layer or a higher one (the hook is how the lower layer
    calls it); new_node and compare_sizes only while eval_shape traces. No one-slot list
    stands in for one."""
    declared = {v.name: name for name, module in list(sys.modules.items())
                if name.startswith("kantensor.") for v in vars(module).values()
                if isinstance(v, Hook)}
    assert set(declared) == set(HOOKS) and len(HOOKS) >= 7
    while_tracing = {"new_node", "compare_sizes"}
    for name, hook in HOOKS.items():
        where, owner = declared[name].split(".", 1)[1], hook.owner.split(".", 1)[1]
        assert layer(owner) >= layer(where), (name, where, owner)
        assert hook.filled == (name not in while_tracing), hook
    seen = []
    kt.eval_shape(lambda x: seen.append([HOOKS[n].filled for n in sorted(while_tracing)])
                  or x + 1, "float32[3]")
    assert seen == [[True, True]] and not any(HOOKS[n].filled for n in while_tracing)
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        found += one_slot_hooks(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)

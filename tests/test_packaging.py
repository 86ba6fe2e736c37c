"""The wheel: built from a copy of the tree, installed into a fresh venv, it loads the
catalogue (and the ONNX catalogue's index), the grammar and its parser tables from the
installed package, not from the checkout."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

import kantensor as kt

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, numpy as np, kantensor as kt
from kantensor.ops.catalogue import catalogue_root
from kantensor.syntax.parser import _lark
from kantensor.onnx.registry import _tables
from kantensor.syntax import forms
x = kt.matrix("x", "float32", shape=(2, 3))
f = kt.function([x], [kt.sum(x @ np.ones((3, 2), "float32"), axis=-1)], check=True)
print(json.dumps({
    "file": kt.__file__,
    "catalogue": str(catalogue_root()),
    "ops": sorted(kt.ops.CATALOGUE),
    "value": f(np.ones((2, 3), "float32"))[0].tolist(),
    "parser": _lark().source_path,
    "onnx_index": all(isinstance(rows, str) for rows in _tables().values()),
    "forms": len(forms._SHIPPED),
}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; dependencies come from this env."""
    tmp = tmp_path_factory.mktemp("wheel")
    tree = tmp / "tree"
    for name in ("src", "signatures"):
        shutil.copytree(ROOT / name, tree / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    run = [sys.executable, "-m", "pip"]
    subprocess.run([*run, "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp / "dist"), str(tree)], check=True)
    env = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # numpy, kanren, lark...: this environment's site-packages, without processing its
    # .pth files (so the editable kantensor of the checkout stays invisible).
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(site, "deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    (wheel,) = (tmp / "dist").glob("kantensor-*.whl")
    subprocess.run([*run, "--python", str(python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    return env


def test_every_package_of_the_tree_is_declared() -> None:
    """A package under src/ that pyproject.toml does not list is left out of the wheel
    (the installed kantensor then fails to import it)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = set(setuptools["packages"])
    tree = {".".join(init.parent.relative_to(ROOT / "src").parts)
            for init in (ROOT / "src" / "kantensor").rglob("__init__.py")}
    assert tree - declared == set()
    assert declared - tree == {"kantensor._catalogue", "kantensor._catalogue.onnx"}


def _run(*command: object, cwd: Path | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_wheel_loads_the_installed_catalogue(installed: Path) -> None:
    probe = json.loads(_run(installed / "bin" / "python", "-c", PROBE, cwd=installed))
    assert Path(probe["file"]).is_relative_to(installed)
    assert Path(probe["catalogue"]).is_relative_to(installed)
    assert probe["ops"] == sorted(kt.ops.CATALOGUE)
    assert probe["value"] == [6.0, 6.0]
    assert probe["parser"] == "<deserialized>"  # the shipped tables, not the grammar analysed
    assert probe["onnx_index"]  # the ONNX catalogue's shipped index (keys.json), every key
    assert probe["forms"] > 150  # the signatures shipped parsed (signatures/forms.json)


def test_wheel_command_line(installed: Path) -> None:
    out = _run(installed / "bin" / "kantensor", "infer", "sum", "int8[2,3]", "axis=-1")
    assert out.endswith("(int8[2,3]) -> (int64[2])\n")

"""Every notebook in ``notebooks/`` runs in a real Jupyter kernel without a cell error, and
its saved outputs are up to date (``python notebooks/run_notebooks.py --update`` refreshes
them). The kernel runs and the comparison are ``notebooks/run_notebooks.py``'s."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
_spec = importlib.util.spec_from_file_location("run_notebooks",
                                               NOTEBOOKS_DIR / "run_notebooks.py")
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)
NOTEBOOKS = runner.notebooks()


ROOT = NOTEBOOKS_DIR.parent
_COUNTS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def test_the_docs_name_every_notebook():
    """README.md and the docs' notebook paragraphs name each notebook and say how many
    there are (they said "three" while six were there)."""
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOKS_DIR}"
    for page in ("README.md", "docs/index.rst", "docs/interactive.rst"):
        text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
        for path in NOTEBOOKS:
            assert path.stem in text, f"{page} does not name {path.name}"
        assert f"{_COUNTS[len(NOTEBOOKS)]} notebooks" in text.lower(), page


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_its_outputs_are_fresh(path: Path):
    saved = nbformat.read(path, as_version=4)
    nbformat.validate(saved)
    for cell in saved.cells:  # no saved error output hides a broken cell
        assert all(o["output_type"] != "error" for o in cell.get("outputs", [])), cell.source
    fresh = runner.execute(path)  # raises CellExecutionError on any cell error
    stale = runner.differences(saved, fresh)
    assert not stale, ("saved outputs out of date (refresh: python notebooks/run_notebooks.py"
                       " --update):\n" + "\n".join(stale))

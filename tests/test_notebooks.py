"""Re-run every notebook in ``notebooks/`` and compare with its saved outputs.

The code cells of a notebook run in order in one namespace (``exec``), with the notebook's
folder as the working directory.  For each cell, the text it prints must equal its saved
``stream`` outputs, and when its last statement is an expression whose value is not
``None``, ``repr`` of that value must equal its saved ``execute_result`` (as in Jupyter,
which displays the last expression's value).

``notebooks/run_notebooks.py`` uses :func:`execute_notebook` below to (re)write the saved
outputs, so both always agree on how a cell is run.
"""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import nbformat
import pytest

import kantensor as kt

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


def run_cell(source: str, namespace: dict, filename: str = "<cell>") -> tuple[str, str | None]:
    """Run one cell's code; return (printed text, repr of the last expression or None)."""
    tree = ast.parse(source, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, filename, "exec"), namespace)
        value = eval(compile(last, filename, "eval"), namespace) if last is not None else None
    return out.getvalue(), None if value is None else repr(value)


def execute_notebook(nb: nbformat.NotebookNode, workdir: Path) -> list[tuple[str, str | None]]:
    """Run the code cells of ``nb`` in order in one fresh namespace; one result per cell.

    The default float dtype is restored afterwards, so a notebook cannot leak it.
    """
    namespace: dict = {"__name__": "__main__"}
    results = []
    old_dtype = kt.get_default_dtype()
    try:
        with contextlib.chdir(workdir):
            for i, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    results.append(run_cell(cell.source, namespace, f"<cell {i}>"))
    finally:
        kt.set_default_dtype(old_dtype)
    return results


def saved_outputs(cell: nbformat.NotebookNode) -> tuple[str, str | None]:
    """The (stdout text, execute_result text) saved in a code cell."""
    stream, result = [], None
    for out in cell.get("outputs", []):
        kind = out["output_type"]
        if kind == "stream":
            assert out["name"] == "stdout", f"unexpected {out['name']} output"
            stream.append(out["text"])
        elif kind == "execute_result":
            assert result is None, "two execute_result outputs"
            result = out["data"]["text/plain"]
        else:
            raise AssertionError(f"unexpected {kind} output (saved errors are not allowed)")
    return "".join(stream), result


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOKS_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code_cells = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    fresh = execute_notebook(nb, path.parent)
    assert len(fresh) == len(code_cells)
    for (i, cell), (printed, result) in zip(code_cells, fresh, strict=True):
        saved_printed, saved_result = saved_outputs(cell)
        where = f"{path.name}, cell {i}:\n{cell.source}"
        assert printed == saved_printed, f"printed text differs in {where}"
        assert result == saved_result, f"result differs in {where}"

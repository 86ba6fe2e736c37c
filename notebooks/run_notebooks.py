"""Run the notebooks of this folder in a real Jupyter kernel; check or refresh their outputs.

    python notebooks/run_notebooks.py [NOTEBOOK ...]            # check (default: all)
    python notebooks/run_notebooks.py --update [NOTEBOOK ...]   # rewrite the saved outputs

Each notebook runs top to bottom in a fresh IPython kernel (nbclient + ipykernel, the
``notebook`` extra), in this folder; a cell that raises fails the run. The check compares
what each cell printed and the plain-text form of what it displayed with the saved outputs
(HTML and SVG are rendered forms of the same objects and are not compared; memory
addresses are ignored). ``tests/test_notebooks.py`` uses this module, so the test and the
refresh run notebooks the same way.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
#: Seconds one cell may take.
CELL_TIMEOUT = 120
#: Kernels keep no history: the runs share nothing with each other or with the user's
#: IPython (whose history database, locked by another kernel, would print warnings).
KERNEL_ARGUMENTS = ["--HistoryManager.enabled=False"]
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def notebooks() -> list[Path]:
    """Every notebook of this folder, in name order."""
    return sorted(HERE.glob("*.ipynb"))


def execute(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` after running it in a fresh kernel; raises
    ``nbclient.exceptions.CellExecutionError`` at the first cell that fails."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                   extra_arguments=KERNEL_ARGUMENTS,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def text_outputs(nb: nbformat.NotebookNode) -> list[list[tuple[str, str]]]:
    """For each code cell: its outputs as (kind, plain text), what the check compares;
    consecutive chunks of one stream are joined."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outs = []
        for out in cell.get("outputs", []):
            kind = out["output_type"]
            if kind == "stream":
                text = out["text"]
                kind = f"stream:{out['name']}"
            elif kind == "error":
                text = f"{out['ename']}: {out['evalue']}"
            else:
                text = out.get("data", {}).get("text/plain", "")
            text = _ADDRESS.sub("", "".join(text))
            if outs and kind.startswith("stream") and outs[-1][0] == kind:
                # A kernel may send one print in several chunks, as timing goes.
                outs[-1] = (kind, outs[-1][1] + text)
            else:
                outs.append((kind, text))
        cells.append(outs)
    return cells


def differences(saved: nbformat.NotebookNode, fresh: nbformat.NotebookNode) -> list[str]:
    """The cells whose saved outputs differ from a fresh run, each with both versions."""
    found = []
    code = [c for c in saved.cells if c.cell_type == "code"]
    for cell, old, new in zip(code, text_outputs(saved), text_outputs(fresh), strict=True):
        if old != new:
            found.append(f"cell {cell.source!r}:\n  saved: {old!r}\n  fresh: {new!r}")
    return found


def process(path: Path, update: bool) -> list[str]:
    """Run one notebook; with ``update`` save its fresh outputs. Its stale cells."""
    fresh = execute(path)
    stale = differences(nbformat.read(path, as_version=4), fresh)
    if update:
        nbformat.validate(fresh)
        nbformat.write(fresh, path)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the saved outputs")
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every *.ipynb in this folder)")
    args = parser.parse_args(argv)
    status = 0
    for path in args.notebooks or notebooks():
        stale = process(path, args.update)
        if stale and not args.update:
            status = 1
            print(f"{path}: outputs out of date in {len(stale)} cells", *stale, sep="\n")
        elif stale:
            print(f"{path}: outputs of {len(stale)} cells updated")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Check or refresh the saved outputs of the notebooks in this folder.

    python notebooks/run_notebooks.py [NOTEBOOK ...]            # check (default: all)
    python notebooks/run_notebooks.py --update [NOTEBOOK ...]   # rewrite the outputs

Cells are run exactly as ``tests/test_notebooks.py`` runs them (its ``execute_notebook`` is
used): code cells in order, in one namespace, capturing what they print and the ``repr`` of
a last expression.  ``--update`` stores those as the cells' ``stream`` and
``execute_result`` outputs, so the test passes by construction; Jupyter's own outputs may
differ in details (IPython pretty-prints long lists over several lines), so refresh the
outputs with this script after editing a notebook.  Needs nbformat and pytest (the
``notebook`` and ``dev`` extras).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
TEST_MODULE = HERE.parent / "tests" / "test_notebooks.py"


def _executor():
    spec = importlib.util.spec_from_file_location("_kantensor_test_notebooks", TEST_MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outputs_for(printed: str, result: str | None, count: int) -> list:
    outputs = []
    if printed:
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=printed))
    if result is not None:
        outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": result},
                                              execution_count=count))
    return outputs


def process(path: Path, update: bool) -> bool:
    """Run one notebook; with ``update`` save fresh outputs. True if it was up to date."""
    tn = _executor()
    nb = nbformat.read(path, as_version=4)
    fresh = tn.execute_notebook(nb, path.parent)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    same = all(tn.saved_outputs(c) == r for c, r in zip(code_cells, fresh, strict=True))
    if update:
        for count, (cell, (printed, result)) in enumerate(zip(code_cells, fresh, strict=True),
                                                          start=1):
            cell.outputs = outputs_for(printed, result, count)
            cell.execution_count = count
        nbformat.validate(nb)
        nbformat.write(nb, path)
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the saved outputs")
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every *.ipynb in this folder)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(HERE.glob("*.ipynb"))
    stale = [p for p in paths if not process(p, args.update)]
    for p in stale:
        print(f"{p}: outputs {'updated' if args.update else 'out of date'}")
    return 0 if args.update or not stale else 1


if __name__ == "__main__":
    sys.exit(main())

"""The README's Python examples run, in order, in one IPython shell (its notebook block
uses magics), and every value a comment states is the value the code gives.

A comment states a value when it reads like one (``# TensorType(int8, (3,))``,
``# float64[2,?]``, ``# ((2500, 2500, 2500, 2500), (4,))``); prose comments
(``# the graph, as indented text``) are left alone. A comment on a line of its own
states the value of the expression just before it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
from IPython.core.interactiveshell import InteractiveShell

import kantensor as kt

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
VALUE = re.compile(r"^(TensorType\(|\(\(|\(TensorType|[a-z]+\d*\[)")

# What the Dask block takes from the reader's own session: a Dask array for x
# (float32[?,?] in the refine block before it) and a NumPy array for W.
DASK_INPUTS = (
    "import dask.array as da\n"
    "dask_x = da.ones((10000, 3), chunks=(2500, 3), dtype='float32')\n"
    "W_array = np.ones((3, 4), 'float32')\n"
)


def blocks() -> list[str]:
    return BLOCK.findall(README.read_text(encoding="utf-8"))


def _checks(block: str) -> list[tuple[str, str]]:
    """(expression, stated value) pairs of a block."""
    checks, previous = [], None
    for line in block.splitlines():
        code, _, comment = line.partition("#")
        code, comment = code.rstrip(), comment.strip()
        if code and not code.startswith("%"):
            previous = code
        if not VALUE.match(comment) or previous is None:
            continue
        expression = previous
        if expression.startswith("print(") and expression.endswith(")"):
            expression = f"str({expression[len('print('):-1]})"
        try:
            ast.parse(expression, mode="eval")
        except SyntaxError:
            continue
        checks.append((expression, comment))
    return checks


def test_the_readme_has_its_examples() -> None:
    found = blocks()
    assert len(found) >= 6
    assert sum(len(_checks(block)) for block in found) >= 8


def test_readme_examples_run_and_state_their_values(capsys) -> None:
    old = kt.get_default_dtype()
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("import numpy as np\nimport kantensor as kt\n")
        for block in blocks():
            if "dask_x" in block:
                assert shell.run_cell(DASK_INPUTS).success
            result = shell.run_cell(block)
            assert result.success, f"README block failed:\n{block}\n{result.error_in_exec!r}"
            for expression, stated in _checks(block):
                value = shell.ev(expression)
                shown = value if isinstance(value, str) else repr(value)
                assert shown == stated, f"README says {expression} is {stated}; it is {shown}"
        computed = shell.ev("y.compute()")
        np.testing.assert_allclose(computed, np.tanh(np.ones((10000, 3)) @ np.ones((3, 4))),
                                   rtol=1e-6)
    finally:
        InteractiveShell.clear_instance()
        kt.set_default_dtype(old)
    capsys.readouterr()

"""``infer`` names the Op with its parameters as the user wrote them.

``kantensor infer zeros shape=(n,3)`` printed ``zeros{shape=(Dim('n'), 3),
dtype='float64'}`` and ``infer sum int8[2,n,4] axis=-1`` printed ``sum{axis=(2,),
keepdims=False, dtype=None}``: the Op's own text, with a size's repr, the builder's
resolved values and the defaults. Oracle: the user's own words. Each parameter printed
is one the user wrote, and its value reads (Python's syntax) as the same expression the
user wrote (``(n, 3)`` and ``(n,3)``; ``2*n``), through the ``kantensor`` program (a
subprocess) and the REPL (a pseudo-terminal).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect

KANTENSOR = str(Path(sys.executable).with_name("kantensor"))

#: (the words after ``infer``: the Op, its input types, its parameters as written)
CASES = [
    ("zeros", [], {"shape": "(n,3)"}),
    ("ones", [], {"shape": "(2*n,n+1)"}),
    ("broadcast_to", ["float32[3]"], {"shape": "(n,3)"}),
    ("reshape", ["float32[n,6]"], {"shape": "(m,-1)"}),
    ("tile", ["float32[2]"], {"reps": "(n,)"}),
    ("arange", [], {"start": "n"}),
    ("sum", ["int8[2,n,4]"], {"axis": "-1", "keepdims": "True"}),
]


def _words(op, types, params):
    return [op, *types, *(f"{k}={v}" for k, v in params.items())]


def _said(line):
    """The parameters of the Op a line of ``infer`` names: ``{name: value text}``."""
    found = re.match(r"(\w+)(\{(.*?)\})? ", line)
    assert found, line
    call = ast.parse(f"f({found.group(3) or ''})", mode="eval").body
    source = f"f({found.group(3) or ''})"
    return {k.arg: ast.get_source_segment(source, k.value) for k in call.keywords}


def _same(said, params, line):
    assert set(said) == set(params), (line, params)
    for k, v in params.items():
        assert ast.dump(ast.parse(said[k], mode="eval")) == \
            ast.dump(ast.parse(v, mode="eval")), (line, k, v)


def test_the_program_names_the_parameters_as_written():
    env = dict(os.environ, COLUMNS="400")
    for op, types, params in CASES:
        done = subprocess.run([KANTENSOR, "infer", *_words(op, types, params)],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        line = done.stdout.strip()
        _same(_said(line), params, line)


def test_the_repl_names_the_parameters_as_written(tmp_path):
    env = dict(os.environ, KANTENSOR_HISTORY=str(tmp_path / "history"), TERM="dumb")
    child = pexpect.spawn(KANTENSOR, ["repl"], env=env, encoding="utf-8", timeout=60,
                          dimensions=(40, 400))
    child.expect_exact("kt> ")
    for op, types, params in CASES:
        child.sendline(" ".join(_words(op, types, params)).join(["infer ", ""]))
        child.expect(rf"\r\n({op}\b[^\r\n]*\) -> \([^\r\n]*)\r\n")
        line = child.match.group(1)
        _same(_said(line), params, line)
        child.expect_exact("kt> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

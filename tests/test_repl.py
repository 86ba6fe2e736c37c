"""The terminal REPL, driven as a person would through a pseudo-terminal (pexpect)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

import kantensor as kt
from kantensor import cli
from kantensor.query import var as qvar

KANTENSOR = str(Path(sys.executable).with_name("kantensor"))
PROMPT = "kt> "


@pytest.fixture
def history(tmp_path) -> Path:
    return tmp_path / "history"


def repl(history: Path) -> pexpect.spawn:
    env = dict(os.environ, KANTENSOR_HISTORY=str(history), TERM="dumb")
    child = pexpect.spawn(KANTENSOR, ["repl"], env=env, encoding="utf-8", timeout=30,
                          dimensions=(40, 200))
    child.expect_exact(PROMPT)
    return child


def leave(child: pexpect.spawn) -> str:
    """Ctrl-D: the REPL ends the line it leaves and exits with status 0."""
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return child.before


def test_completes_commands_op_names_and_dtypes(history):
    child = repl(history)
    child.send("inf\t")
    child.expect_exact("infer ")
    child.send("matm\t")
    child.expect_exact("matmul ")
    child.send("float3\t")
    child.expect_exact("float32")
    child.send("[2,3] float64[3,4]\r")
    child.expect_exact("matmul")
    child.expect_exact("-> (float64[2,4])")
    child.expect_exact(PROMPT)
    child.send("query add D[3] float32[3] -")  # `->` completes in queries
    child.send("\t")
    child.expect_exact("->")
    child.send(" float64[3]\r")
    child.expect_exact("D = float64")
    child.expect_exact(PROMPT)
    child.send("help cums\t")
    child.expect_exact("cumsum ")
    child.send("\r")
    child.expect_exact("cumsum(")
    child.expect_exact("signature:")
    child.expect_exact(PROMPT)
    assert leave(child) == "\r\n"


def test_infer_says_what_named_sizes_must_meet(history):
    """The answer of ``infer`` on named sizes holds under a condition, shown after it (it
    was dropped: ``add float32[n] float32[m]`` looked unconditional)."""
    child = repl(history)
    child.sendline("infer add float32[n] float32[m]")
    child.expect_exact("-> (float32[max(m,n)*min(1,m,n)]) where n == m or n == 1 or m == 1")
    child.expect_exact(PROMPT)
    child.sendline("infer add float32[n] float32[n]")  # no condition: nothing after it
    child.expect_exact("-> (float32[n])\r\n")
    child.expect_exact(PROMPT)
    leave(child)


def test_a_size_parameter_holds_named_sizes(history):
    """``infer zeros shape=(n,3)`` types the call ``kt.zeros((n, 3))`` makes (it was
    refused: "expected an int or a Dim, got '(n,3)'"); a query of it too (NumPy's
    shapes at each n: tests/test_command_sizes.py), whose answer of an open dtype shows
    its sizes."""
    n = kt.Dim("n")
    child = repl(history)
    child.sendline("infer zeros shape=(n,3)")
    child.expect_exact(f"-> ({kt.zeros((n, 3)).type})")
    child.expect_exact(PROMPT)
    child.sendline("query broadcast_to float32[] shape=(2*n,3) -> Y")
    child.expect_exact(f"Y = {kt.broadcast_to(kt.scalar(), (2 * n, 3)).type}")
    child.expect_exact(PROMPT)
    child.sendline("query broadcast_to X shape=(2*n,3) -> Y --limit 1")  # (a dtype left
    # open is named, one name wherever it is, and its set is said: tests/test_query_open_dtypes)
    child.expect_exact("X = T[], Y = T[2*n,3], where T != string")  # (its sizes were ?)
    child.expect_exact(PROMPT)
    leave(child)


def test_history_is_kept_across_sessions(history):
    child = repl(history)
    child.sendline("infer add float32[3] int8[]")
    child.expect_exact("-> (float32[3])")
    child.expect_exact(PROMPT)
    leave(child)
    assert history.read_text().splitlines()[-1] == "infer add float32[3] int8[]"
    child = repl(history)
    child.send("\x10")  # Ctrl-P (previous-history, like the up arrow) recalls it
    child.expect_exact("infer add float32[3] int8[]")
    child.send("\r")
    child.expect_exact("add +(),()->(): (float32[3], int8[]) -> (float32[3])")
    child.expect_exact(PROMPT)
    leave(child)


def test_ctrl_c_cancels_the_line_not_the_session(history):
    child = repl(history)
    child.send("query add X Y -> float32[3")
    child.expect_exact("float32[3")  # the line is being edited when Ctrl-C comes
    child.sendintr()
    child.expect_exact("^C")
    child.expect_exact(PROMPT)
    child.sendline("infer add int8[] int8[]")
    child.expect_exact("-> (int8[])")
    child.expect_exact(PROMPT)
    leave(child)
    assert "query add" not in history.read_text()  # the cancelled line is not run


def test_ctrl_c_cancels_the_line_where_sigint_was_ignored(history):
    """Started with SIGINT ignored (``nohup``; a pytest-xdist worker after a test that
    ignored it), Python installs no KeyboardInterrupt handler, and Ctrl-C did nothing:
    the REPL sets its own for the session."""
    env = dict(os.environ, KANTENSOR_HISTORY=str(history), TERM="dumb")
    child = pexpect.spawn(KANTENSOR, ["repl"], env=env, encoding="utf-8", timeout=30,
                          dimensions=(40, 200),
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    child.expect_exact(PROMPT)
    child.send("query add X Y -> float32[3")
    child.expect_exact("float32[3")
    child.sendintr()
    child.expect_exact("^C")
    child.expect_exact(PROMPT)
    leave(child)
    assert "query add" not in history.read_text()


def test_help_ops_and_errors_keep_the_session(history):
    child = repl(history)
    child.sendline("help sum")
    child.expect_exact("sum(x, axis: axis_tuple = None, keepdims: bool = False, *, "
                       "dtype: maybe_dtype = None)")
    child.expect_exact("keepdims: bool = False")
    child.expect_exact(kt.sum.__doc__.splitlines()[0])
    child.expect_exact(PROMPT)
    child.sendline("ops")
    child.expect_exact("linalg:")
    child.expect_exact("matmul")
    child.expect_exact(PROMPT)
    child.sendline("ops linalg")  # one family (the word was ignored: every family)
    child.expect_exact("linalg:")
    child.expect_exact(PROMPT)
    assert "matmul" in child.before and "shape:" not in child.before
    child.sendline("ops lnalg")
    child.expect_exact("error: no family 'lnalg'; the families: arrange, creation")
    child.expect_exact(PROMPT)
    child.sendline("infer ad float32[3] int8[]")
    child.expect_exact("unknown Op 'ad' (did you mean add?)")
    child.expect_exact(PROMPT)
    child.sendline("help ad")
    child.expect_exact("unknown Op 'ad' (did you mean add?)")
    child.expect_exact(PROMPT)
    child.sendline("infer \"(n)->() float32[3]")
    child.expect_exact("unbalanced \" quote")
    child.expect_exact(PROMPT)
    child.sendline("query add float32[3] -> X")
    child.expect_exact("add +(),()->(): takes 2 inputs, got 1")
    child.expect_exact(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_errors_point_at_the_word():
    out = []
    repl = cli.Repl(stdout=_Writer(out))
    repl.onecmd("infer add float32[3] float33[2]")
    text = "".join(out)
    assert "unknown dtype 'float33'" in text
    line, caret = text.splitlines()[-2:]
    assert line == "  infer add float32[3] float33[2]"
    assert caret.index("^") == line.index("float33")


def test_a_too_long_parameter_points_at_it():
    """The caret of a parameter too long to read stands under the parameter (it stood
    past the end of a line cut to ``infer``)."""
    out = []
    repl = cli.Repl(stdout=_Writer(out))
    repl.onecmd("infer sum float32[2,3] axis=(" + "0," * 600 + ")")
    text = "".join(out)
    assert "parameter value too long: 1202 characters (at most 1000)" in text
    line, caret = text.splitlines()[-2:]
    assert line.startswith("  infer sum float32[2,3] axis=(0,0,")
    assert caret.index("^") == line.index("axis=")


class _Writer:
    def __init__(self, out: list) -> None:
        self.out = out

    def write(self, text: str) -> None:
        self.out.append(text)

    def flush(self) -> None:
        pass


def test_version_and_history_location(monkeypatch, tmp_path):
    done = subprocess.run([KANTENSOR, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"kantensor {kt.__version__}"
    monkeypatch.delenv(cli.HISTORY_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cli.history_path() == tmp_path / ".kantensor_history"
    monkeypatch.setenv(cli.HISTORY_ENV, str(tmp_path / "h"))
    assert cli.history_path() == tmp_path / "h"


def test_refine_a_graph_written_at_the_prompt(history):
    child = repl(history)
    child.sendline("refine h = x @ W; y = tanh(h) x:float32[?,?] W:float32[?,4] -> float32[5,4]")
    child.expect_exact("<Refinement of 4 variables, 3 refined>")
    child.expect(r"x\s+float32\[5,\?\]\s+\(was float32\[\?,\?\]\)")
    child.expect(r"h\s+float32\[5,4\]\s+\(was float32\[\?,4\]\)")
    child.expect_exact(PROMPT)
    child.sendline("refine y = x @ W; z = x + v; y, z x:float32[?,?] W:float32[3,4] v:float32[5]")
    child.expect_exact("x axis 1 is 3 because of y = matmul(x, W) (W axis 0 is 3)")
    child.expect_exact("z = add(x, v) fails with x axis 1 = 3")
    child.expect_exact(PROMPT)
    child.sendline("refine tanh(x @ Q) x:float32[?,3]")
    child.expect_exact("Q has no type")
    child.expect_exact(PROMPT)
    leave(child)


def test_answers_say_how_many_and_page(history):
    """A query shows --limit N answers (20 by default) and how many exist, a whole list
    too; ``more`` shows the next page. The count is the Solutions' own (every answer
    listed)."""
    total = len(list(kt.query(kt.matmul, [qvar("X"), qvar("Y")], ["float32[2,5]"])))
    assert total > 6
    child = repl(history)
    child.sendline("query matmul X Y -> float32[2,5] --limit 3")
    child.expect_exact(f"... showing 3 of {total} solutions")
    child.expect_exact(PROMPT)
    child.sendline("more")
    child.expect_exact(f"... showing 4-6 of {total} solutions")
    child.expect_exact(PROMPT)
    child.sendline(f"query matmul X Y -> float32[2,5] --limit {total + 5}")
    child.expect_exact(f"\r\n{total} solutions\r\n")  # a whole list says how long it is
    child.expect_exact(PROMPT)
    for _ in range(2):  # past the last page: no page "106-105 of 105"
        child.sendline("more")
        child.expect_exact(f"no more solutions ({total} in all)\r\n")
        child.expect_exact(PROMPT)
    child.sendline("query matmul X Y -> float32[2,5] --limit x")
    child.expect_exact("--limit takes a number of answers")
    child.expect_exact(PROMPT)
    leave(child)


def test_a_dtype_typo_is_an_error_with_a_suggestion(history):
    child = repl(history)
    child.sendline("query add flaot32[3] Y -> float32[3]")
    child.expect_exact("unknown dtype 'flaot32' in 'flaot32[3]' (did you mean float32?)")
    child.expect_exact(PROMPT)
    leave(child)


def test_help_lists_commands_only(history):
    child = repl(history)
    child.sendline("help")
    child.expect_exact("Documented commands")
    child.expect_exact(PROMPT)
    assert "EOF" not in child.before and "Undocumented" not in child.before
    leave(child)

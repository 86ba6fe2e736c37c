"""The kantensor command."""

import gc
import io
import re
from pathlib import Path

import numpy as np
import pytest

import kantensor as kt
from kantensor import cli, repl
from kantensor.query import var as qvar
from kantensor.types.dtypes import DEFAULT_RANGE, is_low_precision


def run(argv, capsys):
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_demo(capsys):
    code, out, _ = run(["demo"], capsys)
    assert code == 0
    assert "sub [id A] <float64[2,?]>" in out
    assert "types: (float64[2,?], float64[?]) -> (float64[2,?])" in out
    assert "D = float64" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == "kantensor 0.1.0"


def test_errors_keep_the_op_name(capsys):
    code, _, err = run(["infer", "matmul", "float32[2,3]", "float32[4,5]"], capsys)
    assert code == 1
    with pytest.raises(ValueError) as numpy_error:  # NumPy's sentence, our signature in it
        np.zeros((2, 3), np.float32) @ np.zeros((4, 5), np.float32)
    said = str(numpy_error.value).replace("(n?,k),(k,m?)->(n?,m?)", "(m?,n),(n,p?)->(m?,p?)")
    assert err.splitlines()[:2] == [f"error: {said}",
                                    "  dimension n is 3 in input 0 (axis 1) but 4 in input 1 "
                                    "(axis 0)"]
    assert "\n  in matmul +(m?,n),(n,p?)->(m?,p?), on float32[2,3] and float32[4,5]" in err
    code, _, err = run(["query", "add", "--in", "float32[3]", "--out", "X"], capsys)
    assert code == 1 and "error: add +(),()->(): takes 2 inputs, got 1" in err
    code, _, err = run(["infer", "ad", "float32[3]"], capsys)
    assert code == 1 and "unknown Op 'ad' (did you mean add?)" in err


def test_infer(capsys):
    code, out, _ = run(["infer", "+(m,n),(n,p)->(m,p)", "float64[5,3,4]", "float32[4,2]"],
                       capsys)
    assert code == 0
    assert out.strip() == "+(m,n),(n,p)->(m,p): (float64[5,3,4], float32[4,2]) -> " \
                          "(float64[5,3,2])"
    code, out, _ = run(["infer", "add", "uint8[3]", "int64[]"], capsys)
    assert code == 0
    assert out.strip() == "add +(),()->(): (uint8[3], int64[]) -> (uint8[3])"
    code, _, err = run(["infer", "(m,n),(n,p)->(m,p)", "float32[2,3]", "float32[4,5]"],
                       capsys)
    assert code == 1
    assert "dimension n is 3 in input 0 (axis 1) but 4 in input 1 (axis 0)" in err
    code, _, err = run(["infer", "(m,n->()", "float32[2,3]"], capsys)
    assert code == 1 and "^" in err


def test_query(capsys):
    code, out, _ = run(["query", "add", "--in", "D[n,m]", "float32[3]", "--out",
                        "float64[2,3]"], capsys)
    assert code == 0
    assert out.splitlines() == ["D = float64, n = 2, m = 3", "D = float64, n = 2, m = 1",
                                "2 solutions"]
    code, out, _ = run(["query", "add", "--in", "float32[3]", "float32[4]", "--out", "X"],
                       capsys)
    assert code == 1 and out.strip() == "no solutions"


def test_check(capsys, tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('[[op]]\nname = "f"\nsignature = "(n)->()"\nimpl = "numpy.sum"\n')
    code, out, _ = run(["check", str(good)], capsys)
    assert code == 0 and "ok, 1 ops" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[[op]]\nname = "f"\nsignature = "(n)->()"\nimpl = "numpy.sum"\n'
                   '[[op]]\nname = "g"\nsignature = "(n,,m)->()"\nimpl = "numpy.sum"\n')
    code, out, _ = run(["check", str(bad)], capsys)
    assert code == 1
    assert f"{bad}: op #2 (g): signature:" in out and "position 3" in out
    assert out.splitlines()[-1].strip() == "^"


def test_repl_session():
    stdin = io.StringIO("infer add float32[3] int8[]\nquery add D[3] float32[3] -> float64[3]\n"
                        "infer (n)->( float32[3]\nquit\n")
    stdout = io.StringIO()
    repl = cli.Repl(stdin=stdin, stdout=stdout)
    repl.use_rawinput = False
    repl.cmdloop()
    text = stdout.getvalue()
    assert "add +(),()->(): (float32[3], int8[]) -> (float32[3])" in text
    assert "D = float64" in text
    assert "error: bad signature: expected" in text
    line, caret = text.splitlines()[-3:-1]  # the caret is under the culprit in the line
    assert line == "  infer (n)->( float32[3]" and caret.index("^") == line.index(" float32")


SHIPPED = sorted(p.name for p in (Path(__file__).parents[1] / "signatures").glob("*.toml"))


@pytest.mark.parametrize("file", SHIPPED)
def test_shipped_catalogue_checks(capsys, file):
    """Every shipped file validates and all its examples hold."""
    path = Path(__file__).parents[1] / "signatures" / file
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 0, out
    assert re.search(r"ok, \d+ ops, \d+ examples", out)


def test_infer_with_parameters(capsys):
    code, out, _ = run(["infer", "sum", "int8[2,n,4]", "axis=-1", "keepdims=True"], capsys)
    assert code == 0
    assert out.startswith("sum{axis=-1, keepdims=True} "  # (the parameters as written)
                          "(a0,a1,a2):t->(a0,a1,1):int64 ")
    assert out.strip().endswith("(int8[2,n,4]) -> (int64[2,n,1])")
    code, _, err = run(["infer", "sum", "int8[2,3]", "axis=2"], capsys)
    assert code == 1 and "sum: axis 2 is out of bounds for a tensor of dimension 2" in err
    code, _, err = run(["infer", "sum", "int8[2,3]", "axes=2"], capsys)
    assert code == 1 and "unknown parameter axes; expected axis, keepdims" in err
    code, _, err = run(["infer", "add", "int8[2,3]", "int8[3]", "axis=2"], capsys)
    assert code == 1 and "add takes no parameters, got axis" in err


def test_query_with_parameters(capsys):
    code, out, _ = run(["query", "sum", "--in", "D[2,3]", "axis=1", "--out", "uint64[2]"],
                       capsys)
    assert code == 0
    # one answer a line, each binding D to one dtype; NumPy says which dtypes sum to uint64
    *lines, count = out.splitlines()
    answers = [dict(b.split(" = ") for b in line.split(", ")) for line in lines]
    numpy_dtypes = [d for d in DEFAULT_RANGE if not is_low_precision(d)]
    expected = [d for d in numpy_dtypes
                if np.sum(np.zeros((2, 3), d), axis=1).dtype == np.uint64]
    assert all(set(a) == {"D"} for a in answers), answers
    assert sorted(a["D"] for a in answers if a["D"] in numpy_dtypes) == sorted(expected)
    assert len(expected) == 4  # the four unsigned ints: the oracle is not vacuous
    # uint4 and uint2 sum to uint64 as the other unsigned ints (ml_dtypes's own sum keeps
    # uint4; kantensor's sum widens small integers as NumPy does for its own)
    assert sorted(a["D"] for a in answers if a["D"] not in numpy_dtypes) == ["uint2", "uint4"]
    assert count == f"{len(answers)} solutions"  # a whole list says how long it is


def test_check_reports_every_error_of_a_file(tmp_path, capsys):
    from kantensor import cli

    path = tmp_path / "bad.toml"
    path.write_text('[[op]]\nname = "a"\nsignature = "(n)->(:flaot32)"\nimpl = "numpy.sum"\n'
                    '[[op]]\nname = "b"\nsignature = "(n)->(m)"\nimpl = "numpy.sum"\n'
                    '[[op]]\nname = "c"\nsignature = "(n)->()"\nimpl = "numpy.nothere"\n')
    assert cli.main(["check", str(path)]) == 1
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("error:")]
    assert len(lines) == 3, lines
    assert "op #1 (a): signature:" in lines[0] and "at position" in lines[0]
    assert "op #2 (b): signature: dimension m in output 0 is bound by no input" in lines[1]
    assert "op #3 (c): impl: cannot import 'numpy.nothere'" in lines[2]


def test_check_refuses_a_where_clause_size_bound_nowhere(tmp_path, capsys):
    """``where m > k`` with no ``k`` in any operand parses (a comparison declares a size
    known only at run time; builders render such clauses) but is a slip in a catalogue
    file: ``check`` names the size and the clause. A size an output has, or a clause
    ``k == ...`` defines, is bound."""
    body = {"f": "(m,n)->(m) where m > k", "g": "(n)->(m) where m <= n, m >= 0",
            "h": "(n)->(n) where k == n + 1, k > 2", "i": "(n)->() where n > j, j > 0"}
    path = tmp_path / "slips.toml"
    path.write_text("".join(f'[[op]]\nname = "{name}"\nsignature = "{sig}"\n'
                            f'impl = "numpy.sum"\n' for name, sig in body.items()))
    for sig in body.values():
        kt.Signature.parse(sig)  # each is a legal signature
    assert cli.main(["check", str(path)]) == 1
    errors = [x for x in capsys.readouterr().out.splitlines() if x.startswith("error:")]
    assert errors == [
        f"error: {path}: op #1 (f): signature: where-clause m > k uses size k, which is bound "
        "nowhere (no operand has it, no 'k == ...' clause defines it)",
        *(f"error: {path}: op #4 (i): signature: where-clause {clause} uses size j, which is "
          "bound nowhere (no operand has it, no 'j == ...' clause defines it)"
          for clause in ("n > j", "j > 0"))]


def test_query_takes_a_rank_bound_and_says_when_it_cuts(capsys):
    assert cli.main(["query", "sum", "--in", "X", "--out", "int64[]", "--max-rank", "1"]) == 0
    out = capsys.readouterr().out
    assert "X = bool[n]" in out and "X = bool[n,m]" not in out
    assert "takes at most max_rank=1 axes; max_rank=2 or more lists them" in out
    assert "kantensor query --max-rank" in out
    assert cli.main(["query", "add", "--in", "D[3]", "float32[3]", "--out", "float64[3]",
                     "--max-rank", "1"]) == 0
    assert "rank bound" not in capsys.readouterr().out  # every rank known: nothing cut


@pytest.mark.parametrize("limit", [5, 20, 100])
def test_query_limit_shows_that_many_and_says_how_many_exist(capsys, limit):
    """``--limit N`` shows N answers (every one when fewer exist) and a cut list says how
    many it shows of how many; the count is the query's own."""
    answers = list(kt.query(kt.matmul, [qvar("X"), qvar("Y")], ["float32[2,5]"]))
    code, out, _ = run(["query", "matmul", "--in", "X", "Y", "--out", "float32[2,5]",
                        "--limit", str(limit)], capsys)
    lines = out.splitlines()
    assert code == 0
    shown = min(limit, len(answers))
    assert len([x for x in lines if x.startswith("X = ")]) == shown
    if shown < len(answers):
        assert lines[-1] == f"... showing {shown} of {len(answers)} solutions"
    else:  # the whole list: it says how many it holds
        assert lines[-1] == f"{len(answers)} solutions"


def test_query_limit_has_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["query", "--help"])
    assert "answers to show" in capsys.readouterr().out


ONNX_FILES = sorted(p.name for p in (Path(__file__).parents[1] / "signatures" / "onnx")
                    .glob("*.toml"))


@pytest.mark.parametrize("file", ONNX_FILES)
def test_onnx_catalogue_files_check(capsys, file):
    """A file of signatures/onnx validates as the ONNX loader reads it (its keys since,
    until, inputs...), and its examples hold."""
    path = Path(__file__).parents[1] / "signatures" / "onnx" / file
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 0, out
    assert re.search(rf"{re.escape(str(path))}: ok, \d+ ops, \d+ examples", out)


def test_check_of_onnx_entries_reports_their_errors(tmp_path, capsys):
    good = '[[op]]\nname = "Neg"\nsince = 13\nsignature = "(*x):T->(*x):T"\n' \
           'impl = "numpy.negative"\n'
    path = tmp_path / "ops.toml"
    path.write_text(good)
    code, out, _ = run(["check", str(path)], capsys)  # not in signatures/onnx: plain
    assert code == 1 and "unknown key since" in out
    code, out, _ = run(["check", "--onnx", str(path)], capsys)
    assert code == 0 and "ok, 1 ops" in out
    path.write_text(
        good + '\n[[op]]\nname = "Neg2"\nonnx = "Neg"\nsince = 14\nsignature = "(*x):T->(*x):T"'
        '\nimpl = "numpy.negative"\n'
        '\n[[op]]\nname = "Abs"\nsince = 13\nuntil = 6\nsignature = "(*x):T->(*x):T"\n'
        'impl = "numpy.abs"\n\n[[op]]\nname = "Exp"\nsince = "13"\ninputs = "x"\n'
        'signature = "(*x):T->(*x):T"\nimpl = "numpy.exp"\n')
    code, out, _ = run(["check", "--onnx", str(path)], capsys)
    assert code == 1
    errors = out.splitlines()
    assert any("op #2 (Neg2): opsets 14 to the newest overlap those of" in e for e in errors)
    assert any("op #3 (Abs): until (6) is before since (13)" in e for e in errors)
    assert any("op #4 (Exp): since and until must be opset numbers" in e for e in errors)


@pytest.mark.parametrize("clause", ["m > k//0", "m > n//0", "m > k%0", "m > k//(n-4)"])
def test_a_where_clause_dividing_by_zero_is_a_one_line_error(capsys, clause):
    assert cli.main(["infer", f"(m,n)->(m) where {clause}", "float32[3,4]"]) == 1
    err = capsys.readouterr().err
    assert err == f"error: (m,n)->(m) where {clause}: where-clause {clause} fails: it " \
        "divides by zero\n"


def _help(parser, argv):
    """What ``kantensor ARGV --help`` prints with ``parser``."""
    out = io.StringIO()
    with pytest.raises(SystemExit), __import__("contextlib").redirect_stdout(out):
        parser.parse_args([*argv, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("argv", [["onnx", "m.onnx", "-o", "t.onnx"],
                                  ["contract", "m.onnx", "--fix", "N=1", "--trt",
                                   "--opset", "17", "--input", "x=N,3"]])
def test_the_onnx_commands_parse_alike_without_the_command_table(argv):
    """``kantensor onnx`` and ``kantensor contract`` are parsed without the command table
    (start-up time): the same arguments and the same help as with every subcommand."""
    lean, full = cli._parser(table=False), cli._parser(table=True)
    assert lean.parse_args(argv) == full.parse_args(argv)
    assert _help(lean, argv[:1]) == _help(full, argv[:1])


def test_the_onnx_command_loads_neither_the_command_table_nor_the_repl(tmp_path):
    """``kantensor onnx MODEL`` in a process of its own (what the console script runs)
    types the model without loading the command table, the front ends its commands run,
    the REPL or the line editor; ``kantensor infer`` loads the table. What the imports
    made, the subcommand's included, is frozen out of the collector's passes
    (``cli.run``), which stays enabled; ``cli.main`` in this process freezes nothing."""
    import subprocess
    import sys

    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    model = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph), str(model))
    lazy = ["kantensor.commands", "kantensor.repl", "kantensor.refinement",
            "kantensor.evalshape", "kantensor.graphtext", "readline", "cmd"]
    frozen = ("not any(o is sys.modules['kantensor.onnxcommands'].__dict__ "
              "for o in gc.get_objects())")  # (what the subcommand's imports made)
    code = ("import atexit, gc, sys\n"
            f"atexit.register(lambda: print([m for m in {lazy!r} if m in sys.modules], "
            f"gc.isenabled(), gc.get_freeze_count() > 0, {frozen}, file=sys.stderr))\n"
            "from kantensor.cli import run\n"
            "sys.argv[0] = 'kantensor'\n"
            "run()")
    done = subprocess.run([sys.executable, "-c", code, "onnx", str(model)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["input  x: float32[n,4]", "output y: float32[n,4]"]
    assert done.stderr.strip() == "[] True True True"  # the collector on, imports frozen
    done = subprocess.run([sys.executable, "-c", code, "infer", "exp", "float32[3]"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "kantensor.commands" in done.stderr, done.stderr
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    assert cli.main(["onnx", str(model)]) == 0
    assert (gc.get_freeze_count(), gc.isenabled()) == (frozen, enabled)


@pytest.mark.parametrize("argv", [["onnx", "m.onnx", "extra"],
                                  ["contract", "m.onnx", "--bogus"]])
def test_an_onnx_command_line_error_shows_the_usage_of_every_subcommand(argv, capsys):
    """A mistake on ``kantensor onnx``'s line (parsed without the command table) is
    reported as the whole program's parser reports it: its usage lists every subcommand,
    not only the two ONNX ones."""
    with pytest.raises(SystemExit) as lean:
        cli.main(argv)
    said = capsys.readouterr().err
    with pytest.raises(SystemExit) as full:
        cli._parser(table=True).parse_args(argv)
    assert lean.value.code == full.value.code == 2
    assert said == capsys.readouterr().err
    assert "infer" in said.split("error:")[0], said


def test_the_repls_names_are_reachable_from_the_cli():
    """``kantensor.cli.Repl`` and the other names of the REPL's ``__all__`` are the REPL's
    own (loaded on first use); a name it does not export, or a dunder the import system
    asks for, is missing."""
    assert all(getattr(cli, name) is getattr(repl, name) for name in repl.__all__)
    for name in ("no_such_name", "__path__"):
        with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
            getattr(cli, name)

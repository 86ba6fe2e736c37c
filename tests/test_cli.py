"""The kantensor command."""

import io

import pytest

from kantensor import cli


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


def test_infer(capsys):
    code, out, _ = run(["infer", "+(m,n),(n,p)->(m,p)", "float64[5,3,4]", "float32[4,2]"],
                       capsys)
    assert code == 0
    assert out.strip() == "+(m,n),(n,p)->(m,p): (float64[5,3,4], float32[4,2]) -> " \
                          "(float64[5,3,2])"
    code, out, _ = run(["infer", "add", "uint8[3]", "int64[]"], capsys)
    assert out.strip().endswith("-> (uint8[3])")
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
    assert out.splitlines() == ["D = float64, n = 2, m = 3", "D = float64, n = 2, m = 1"]
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
    assert "error: SignatureSyntaxError" in text


@pytest.mark.parametrize("file", ["elementwise.toml"])
def test_shipped_catalogue_checks(capsys, file):
    from pathlib import Path

    path = Path(__file__).parents[1] / "signatures" / file
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 0

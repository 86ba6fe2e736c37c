"""A catalogue file is data, not code (issue 27): it imports only numpy, kantensor and the
packages its reader allows, never from the current directory, names only registered
builders, and its examples' parameters are checked as data before anything is called."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kantensor import cli
from kantensor.ops.catalogue import CatalogueError, load_file
from kantensor.ops.templates import BUILDERS

#: The issue's file: before, ``kantensor check`` on it ran the shell command (which wrote
#: the marker file) and only then reported that the result was not a dict.
SHELL = textwrap.dedent('''\
    [[op]]
    name = "pwn"
    call = "executable: str, input: str, text: bool"
    signature = "()->{{y}}"
    builder = "subprocess.run"
    impl = "numpy.sum"
    examples = [{{ in = [], executable = "/bin/sh", input = "echo ran > {marker}", \
    text = true, out = "float32[]" }}]
    ''')


def _shell_file(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "ran.txt"
    path = tmp_path / "pwn.toml"
    path.write_text(SHELL.format(marker=marker))
    return path, marker


def test_the_shell_command_file_runs_nothing(tmp_path, capsys):
    path, marker = _shell_file(tmp_path)
    assert cli.main(["check", str(path)]) == 1
    assert "builder: 'subprocess.run' is not imported" in capsys.readouterr().out
    with pytest.raises(CatalogueError, match="may name only numpy"):
        load_file(path)
    repl = cli.Repl(stdout=io.StringIO())
    repl.onecmd(f"check {path}")
    assert "is not imported" in repl.stdout.getvalue()
    # allowed, subprocess.run is still no builder: only registered functions are
    assert cli.main(["check", "--allow", "subprocess", str(path)]) == 1
    assert "'subprocess.run' is not a registered builder" in capsys.readouterr().out
    assert not marker.exists()


def _python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", **env}, timeout=120)


def test_a_module_named_by_impl_is_not_imported(tmp_path):
    """``impl = "this.s"`` used to import ``this`` (which prints the Zen of Python)."""
    path = tmp_path / "zen.toml"
    path.write_text('[[op]]\nname = "z"\nsignature = "()->()"\nimpl = "this.s"\n')
    run = _python(textwrap.dedent(f'''\
        import sys
        from kantensor.ops.catalogue import CatalogueError, load_file
        try:
            load_file({str(path)!r})
        except CatalogueError as exc:
            print("refused:", exc)
        print("this" in sys.modules)
        '''), tmp_path)
    assert "refused:" in run.stdout and "'this.s' is not imported" in run.stdout
    assert run.stdout.splitlines()[-1] == "False"
    assert "Beautiful is better" not in run.stdout


def test_nothing_is_imported_from_the_current_directory(tmp_path):
    marker = tmp_path / "imported.txt"
    (tmp_path / "evilmod.py").write_text(f"open({str(marker)!r}, 'w').close()\n"
                                         "def f(x):\n    return x\n")
    path = tmp_path / "evil.toml"
    path.write_text('[[op]]\nname = "e"\nsignature = "()->()"\nimpl = "evilmod.f"\n')
    run = subprocess.run([sys.executable, "-m", "kantensor", "check", "--allow", "evilmod",
                          str(path)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1
    assert "no module named 'evilmod' (the current directory is not searched)" in run.stdout
    assert not marker.exists()


def test_a_private_module_is_never_imported(tmp_path):
    """``numpy.f2py.__main__`` runs f2py when imported."""
    path = tmp_path / "main.toml"
    path.write_text('[[op]]\nname = "m"\nsignature = "()->()"\n'
                    'impl = "numpy.f2py.__main__.main"\n')
    with pytest.raises(CatalogueError, match="private module"):
        load_file(path)
    assert "numpy.f2py.__main__" not in sys.modules


PACKAGE = textwrap.dedent('''\
    from kantensor.ops import builder
    from kantensor.ops.templates import dims

    CALLS = []

    @builder
    def first_axis(types, **params):
        CALLS.append(params)
        a = dims("a", types[0].ndim)
        return {"x": a, "y": a[:1]}

    def not_registered(types, **params):
        CALLS.append(params)
        return {"x": dims("a"), "y": dims("a")}
    ''')

ENTRY = textwrap.dedent('''\
    [[op]]
    name = "first"
    call = "x, n: int = 0"
    signature = "{{x}}->{{y}}"
    builder = "{builder}"
    impl = "numpy.sum"
    examples = [{{ in = ["float32[3,4]"], n = {n}, out = "float32[3]" }}]
    ''')


@pytest.fixture
def mypkg(tmp_path, monkeypatch):
    root = tmp_path / "lib"
    (root / "mypkg").mkdir(parents=True)
    (root / "mypkg" / "__init__.py").write_text(PACKAGE)
    monkeypatch.syspath_prepend(str(root))
    yield tmp_path
    for name in [m for m in sys.modules if m == "mypkg" or m.startswith("mypkg.")]:
        del sys.modules[name]
    for name in [b for b in BUILDERS if b.startswith("mypkg.")]:
        del BUILDERS[name]


def test_an_allowed_package_lends_its_registered_builders(mypkg):
    path = mypkg / "mine.toml"
    path.write_text(ENTRY.format(builder="mypkg.first_axis", n=1))
    with pytest.raises(CatalogueError, match="may name only numpy"):
        load_file(path)
    assert "mypkg" not in sys.modules  # refused before its import
    (entry,) = load_file(path, allow=("mypkg",))
    assert entry.run_examples() == 1
    assert sys.modules["mypkg"].CALLS == [{"n": 1}]
    path.write_text(ENTRY.format(builder="mypkg.not_registered", n=1))
    with pytest.raises(CatalogueError, match="not a registered builder"):
        load_file(path, allow=("mypkg",))
    assert cli.main(["check", "--allow", "mypkg", str(path)]) == 1


@pytest.mark.parametrize("n, message", [
    ('"os.system"', "parameter n: expected an int"),
    ("[1, 2]", "parameter n: expected an int"),
    ("{ a = 1 }", "parameter n: expected an int"),
])
def test_example_parameters_are_checked_before_any_call(mypkg, n, message):
    path = mypkg / "bad.toml"
    path.write_text(ENTRY.format(builder="mypkg.first_axis", n=n))
    with pytest.raises(CatalogueError, match=message):
        load_file(path, allow=("mypkg",))
    assert sys.modules["mypkg"].CALLS == []  # the builder never ran


def test_an_example_may_only_give_parameters_of_the_call(mypkg):
    path = mypkg / "extra.toml"
    path.write_text(ENTRY.format(builder="mypkg.first_axis", n=1).replace(
        "n = 1,", 'n = 1, executable = "/bin/sh",'))
    with pytest.raises(CatalogueError, match="'executable' is no parameter of the call"):
        load_file(path, allow=("mypkg",))
    assert sys.modules["mypkg"].CALLS == []

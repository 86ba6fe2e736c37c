"""Bounded work before costly steps (issue 27): every reproducer of the issue, and the
answers that stay right under the new bounds (checked against Python's own integers)."""

from __future__ import annotations

import io
import os

import pytest

import kantensor as kt
from kantensor import cli
from kantensor.graphtext import GraphTextError, read_graph
from kantensor.ops.catalogue import CatalogueError, load_file
from kantensor.ops.trust import MAX_FILE_BYTES
from kantensor.signature.signature import Signature
from kantensor.syntax.errors import TypeInferenceError
from kantensor.types import poly
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute
from kantensor.types.type import TensorType


@pytest.fixture
def no_expansion(monkeypatch):
    """Fails a test that expands a product to more than MAX_TERMS terms."""
    real = poly.mul

    def mul(a, b):
        out = real(a, b)
        assert len(out) <= poly.MAX_TERMS, "a product past the limit was expanded"
        return out
    monkeypatch.setattr("kantensor.types.dim._poly_mul", mul)


@pytest.mark.parametrize("text", ["float32[(a+b+c+1)**64]", "float32[(n+m+k+1)**40]",
                                  "float32[" + "*".join(["(a+b+c+d+e+1)"] * 12) + "]",
                                  "float32[((a+b+c+1)**8)**8]"])
def test_a_power_or_product_of_sums_is_refused_before_it_is_expanded(no_expansion, text):
    with pytest.raises(ValueError, match="too large"):
        TensorType.parse(text)


def test_a_power_whose_coefficients_pass_every_size_is_refused(no_expansion):
    with pytest.raises(ValueError, match="coefficients of about 2\\*\\*"):
        TensorType.parse("float32[((m+a)**9)**64]")


def test_the_bounds_keep_the_answers_that_fit():
    a, b, m, n = Dim("a"), Dim("b"), Dim("m"), Dim("n")
    assert ((a + b) ** 8) ** 8 == (a + b) ** 64  # 65 terms: within the limit
    assert substitute((a + b) ** 64, {"a": 2, "b": 3}) == 5 ** 64
    assert substitute((m + n + 1) ** 40, {"m": 3, "n": 5}) == 9 ** 40
    big = (m + n + 1) ** 12 * (m + 2 * n) ** 3
    assert substitute(big, {"m": 7, "n": -2}) == 6 ** 12 * 3 ** 3
    assert substitute(TensorType.parse("int8[(n+1)**64]").shape[0], {"n": 1}) == 2 ** 64


@pytest.mark.parametrize("text, dims", [("(n+m+k+1)**40", "n,m,k"),
                                        ("(a+b+c+1)**64", "a,b,c")])
def test_powers_of_sums_through_every_entry_point(text, dims, capsys):
    """Each of these ran past 60 s (or took 6.9 s to be refused)."""
    for sig in (f"({dims})->() where {text} >= 1", f"({dims})->({text})"):
        with pytest.raises((ValueError, TypeInferenceError), match="too large"):
            Signature.parse(sig).infer([TensorType.parse("float32[2,3,4]")])
    assert cli.main(["infer", "add", f"float32[{text}]", "float32[]"]) == 1
    assert "too large" in capsys.readouterr().err
    repl = cli.Repl(stdout=io.StringIO())
    repl.onecmd(f"infer add float32[{text}] float32[]")
    graph = text
    for i, name in enumerate(dims.split(",")):
        graph = graph.replace(name, f"x.shape[{i}]")
    repl.onecmd(f"refine zeros(({graph},)) x:float32[{dims}]")
    assert repl.stdout.getvalue().count("too large") == 2, repl.stdout.getvalue()


@pytest.mark.parametrize("text, message", [
    ("(n)->() where n//2**64 == 1", "n//2\\*\\*64 == 1 fails"),
    ("(n)->() where n//2**64 == 0 | (n)->(n)", None),
    ("(n)->(n*2**63)", "output 0: shape entry 0 is too large"),
    ("(n)->(n+2**64)", "output 0: shape entry 0 is too large"),
])
def test_solving_with_huge_integers_answers_or_raises_a_type_error(text, message):
    """n//2**64 == 1 raised OverflowError (a range of 2**64 candidates had no len)."""
    sig = Signature.parse(text)
    if message is None:
        assert sig.infer([TensorType.parse("float32[5]")]) == (TensorType("float32", ()),)
    else:
        with pytest.raises(TypeInferenceError, match=message):
            sig.infer([TensorType.parse("float32[5]")])
    assert cli.main(["infer", text, "float32[5]"]) in (0, 1)


@pytest.mark.parametrize("text", ["x.sum(axis=(0,)*10**10)", "x.sum(axis=(0,)*10**8)",
                                  "concatenate(10**9*[x])", "x.reshape(((1,)*10**4)*10**4)"])
def test_graph_text_bounds_repetition_before_allocating(text):
    with pytest.raises(GraphTextError, match="a sequence in a graph holds at most 1000"):
        read_graph(text, {"x": TensorType.parse("float32[3]")})
    repl = cli.Repl(stdout=io.StringIO())
    repl.onecmd(f"refine {text} x:float32[3]")
    assert "at most 1000 items" in repl.stdout.getvalue()


def test_repetition_within_the_bound_builds_what_numpy_builds():
    import numpy as np
    got = read_graph("x.sum(axis=(0,)*1) + concatenate([x]*4)",
                     {"x": TensorType.parse("float32[3]")}).outputs[0]
    x = np.arange(3, dtype=np.float32)
    f = kt.function([got.owner.inputs[0].owner.inputs[0]], got)
    np.testing.assert_array_equal(f(x), x.sum(axis=(0,)) + np.concatenate([x] * 4))


def test_check_reads_only_regular_files_of_bounded_size(tmp_path, capsys):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_FILE_BYTES + "\n")
    for path, message in (("/dev/zero", "not a regular file"), (fifo, "not a regular file"),
                          (tmp_path, "not a regular file"), (big, "too large")):
        assert cli.main(["check", str(path)]) == 1
        assert message in capsys.readouterr().out
        with pytest.raises(CatalogueError, match=message):
            load_file(path)

"""Fuzzing every entry point that reads text (see fuzzing.py for the harness).

Each entry point gets hypothesis-generated text and mutations of valid inputs
(deleted, duplicated, amplified and deeply nested spans, huge numbers, stray
characters). Every case must return or raise a documented error within the
per-case deadline. ``KANTENSOR_FUZZ_CASES`` sets the number of mutants per
entry point (default 300; ``KANTENSOR_FUZZ_CASES=20000 make test`` is a long run).
"""

from __future__ import annotations

import contextlib
import io
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sizing
from fuzzing import hostile_repetitions, hostile_sizes, mutants, run_case
from kantensor import cli
from kantensor.ops.catalogue import catalogue_files, load_file
from kantensor.signature.signature import Signature
from kantensor.types.type import TensorType

CASES = sizing.size("FUZZ_CASES", 300, 20000)
GENERATED = settings(max_examples=max(50, CASES // 2), deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])

SIGNATURES = [
    "(m,n),(n,p)->(m,p)", "+(m?,n),(n,p?)->(m?,p?)", "(.2.,d,...,k,.1.)->(.2.,...,.1.)",
    "(a):x,(b):y->(a+b):promote(x,y)", "(n):x->() where n >= 1, x in floating",
    "(n)->() | (m,n)->(m)", "+2(*b,n),(n)->(*b) where min(n,3) < 8, float(t) == real(u)",
    "=(n,n):t->(n):t where t in inexact, compatible(t, float64)", "->(3)",
    "(n//2,n%3,2*n-1)->(max(n,1))",
]
PIECES_SIG = ["(", ")", ",", "->", "|", "+", "-", "*", "//", "%", "?", "...", ".2.", "*g",
              "//0", "%0", "//(n-n)",
              "n", "3", "min(", "max(", "promote(", "float(", "real(", ":t", " where ",
              "==", ">=", " in ", "compatible(", "float32"]
TYPES = ["float32[3,?]", "int64[]", "float64[n,2*n]", "uint8[n, (n + 1)//2, n % 2]",
         "complex64[min(m, n), max(m, 2)]", "bool[n**2, 3*m + 1]", "int8[1,1,1,1]"]
PIECES_TYPE = ["[", "]", ",", "?", "n", "m", "3", "+", "-", "*", "//", "%", "**", "(",
               ")", "min(", "max(", "float32", "int8"]


def _signature_case(text: str) -> None:
    sig = Signature.parse(text)
    assert Signature.parse(str(sig)) == sig
    assert eval(repr(sig), {"Signature": Signature}) == sig
    hash(sig)


def _type_case(text: str) -> None:
    t = TensorType.parse(text)
    assert TensorType.parse(str(t)) == t
    repr(t)


def _catalogue_case(text: str) -> None:
    for entry in load_file("fuzz.toml", text):
        entry.run_examples()


def _quiet(fn, *args):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return fn(*args)


# --------------------------------------------------------------------------- Signature.parse

@GENERATED
@given(st.text(alphabet="()[],.:?*+-/%|<>=!_ 0123456789mnpxyTtwhereinmaxpromotefloat"
               "\n\t\u00e9", max_size=200))
def test_signature_parse_random_text(text):
    run_case("Signature.parse", _signature_case, text)


def test_signature_parse_mutants():
    for text in mutants(SIGNATURES, CASES, PIECES_SIG, seed=1):
        run_case("Signature.parse", _signature_case, text)


@pytest.mark.parametrize("depth", [10, 64, 65, 300, 5000])
def test_signature_parse_nesting(depth):
    for text in ("(" + "min(" * depth + "n" + ")" * depth + ")->()",
                 "(" + "+".join(["n"] * depth) + ")->()",
                 "(n):" + "promote(" * depth + "t" + ")" * depth + "->()",
                 "(" + "(" * depth + "n" + ")" * depth + ")->()"):
        run_case("Signature.parse", _signature_case, text)


# --------------------------------------------------------------------------- TensorType.parse

@GENERATED
@given(st.text(alphabet="float3264int8[]?,nm0123456789+-*/%() \u00e9", max_size=120))
def test_tensor_type_parse_random_text(text):
    run_case("TensorType.parse", _type_case, text)


@GENERATED
@given(st.recursive(st.one_of(st.integers(-10**30, 10**30).map(str), st.sampled_from("nm?")),
                    lambda inner: st.one_of(
                        st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%", "**"]),
                                  inner).map(lambda t: f"{t[0]}{t[1]}{t[2]}"),
                        inner.map(lambda t: f"({t})"),
                        st.lists(inner, min_size=1, max_size=4).map(
                            lambda a: f"min({','.join(a)})")),
                    max_leaves=40))
def test_tensor_type_parse_expressions(expr):
    run_case("TensorType.parse", _type_case, f"float32[{expr}]")


def test_tensor_type_parse_mutants():
    for text in mutants(TYPES, CASES, PIECES_TYPE, seed=2):
        run_case("TensorType.parse", _type_case, text)


# --------------------------------------------------------------------------- catalogue files

def test_catalogue_file_mutants():
    files = [text for _, text in catalogue_files()]
    # Mutate one entry at a time: a whole file's examples are slow to run for every case.
    entries = ["[[op]]" + part for text in files for part in text.split("[[op]]")[1:]]
    pieces = ["[[op]]\n", "name = ", '"x"', "signature = ", "impl = ", '"numpy.add"', "[",
              "]", "{", "}", "=", "\n", "examples = [{ in = [", '"float32[3]"', "out = ",
              "error = ", "call = ", "builder = ", "axis = ", "[[[[[[", "\"\"\"", "#"]
    for text in mutants(entries, CASES // 3, pieces, seed=3):
        run_case("catalogue load_file", _catalogue_case, text)


def test_catalogue_file_hostile():
    for text in ("a = " + "[" * 5000 + "]" * 5000, "[[op]]\nname = 3\nsignature = 4\n"
                 "impl = 5\n", '[[op]]\nname = "f"\nsignature = "(n)->()"\nimpl = "os"\n',
                 '[[op]]\nname = "f"\nsignature = "(n)->()"\nimpl = "numpy.sum"\n'
                 'examples = [{ in = ["float32[' + "9" * 5000 + ']"], out = "x" }]\n',
                 'op = 3', '[[op]]\nname = "f"\nsignature = "{x}->{y}"\nimpl = "numpy.sum"\n'
                 'call = "x, axis: axes = None"\nexamples = [{ in = [[[[]]]], out = "y" }]\n',
                 # an annotation or a default nested 1,000 deep (unparsing it recursed)
                 '[[op]]\nname = "f"\nsignature = "(n)->()"\nimpl = "numpy.sum"\n'
                 'call = "x, axis:' + "-" * 1000 + 'x = None"\n',
                 '[[op]]\nname = "f"\nsignature = "(n)->()"\nimpl = "numpy.sum"\n'
                 'call = "x, *, axis: int = ' + "-" * 1000 + '1"\n'):
        assert run_case("catalogue load_file", _catalogue_case, text) != "ok"


# --------------------------------------------------------------------------- the command line

def test_cli_mutants(tmp_path):
    argvs = [["infer", "add", "float32[3]", "int8[]"], ["infer", "sum", "float32[2,3]",
             "axis=1"], ["infer", "(m,n),(n,p)->(m,p)", "float64[2,3]", "float64[3,4]"],
             ["query", "add", "--in", "D[n]", "float32[3]", "--out", "float64[3]"],
             ["query", "matmul", "--in", "float32[2,3]", "X", "--out", "float32[2,5]",
              "--limit", "3"], ["infer", "reshape", "float32[6]", "shape=(2,-1)"],
             ["query", "stack", "--in", "Y", "Y", "X", "axis=0", "--out", "Z", "--max-rank",
              "1", "--limit", "3"],
             ["query", "concatenate", "--in", "Y", "Y", "axis=0", "--out", "float32[6]"],
             ["infer", "(m,n)->(m) where m > k//2", "float32[3,4]"]]
    pieces = ["float32[", "]", "?", "n", "X", "--in", "--out", "axis=", "(", ")", "-1",
              "9" * 40, "shape=", "D[", ",", "->", "matmul", "einsum", "subscripts='ij'",
              "Y", "--max-rank", "64", "65", "10000", "//0", "%0", "//(n-4)", "stack"]
    seeds = ["\x1f".join(a) for a in argvs]
    for text in mutants(seeds, CASES, pieces, seed=4):
        run_case("cli main (infer/query)", lambda t: _quiet(cli.main, t.split("\x1f")), text)
    files = [text for _, text in catalogue_files()]
    bad = tmp_path / "mutant.toml"
    for text in mutants([f.split("[[op]]")[1] for f in files], CASES // 10,
                        ["[[op]]", "name", "=", '"', "\n"], seed=5):
        bad.write_text("[[op]]" + text)
        run_case("cli main (check)", lambda p: _quiet(cli.main, ["check", p]), str(bad))


def test_the_repl_reports_a_check_of_a_path_with_a_nul():
    repl = cli.Repl(stdout=io.StringIO())
    assert run_case("repl line", repl.onecmd, "check /x\x00y") == "ok"
    assert repl.stdout.getvalue() == "error: '/x\\x00y': embedded null byte\n"


def test_repl_mutants():
    lines = ["infer add float32[3] int8[]", "query add D[3] float32[3] -> float64[3]",
             "infer sum float32[2,3] axis=1", "check /nonexistent.toml", "help infer"]
    pieces = ['"', "'", "\\", "->", " ", "float32[", "]", "axis=", "(", "\x00"]
    for text in mutants(lines, CASES, pieces, seed=6):
        repl = cli.Repl(stdout=io.StringIO())
        # The REPL reports every problem and carries on: even a documented error is a bug.
        assert run_case("repl line", repl.onecmd, text) == "ok", text


# --------------------------------------------------------------------------- refine's graph text

def test_refine_command_mutants():
    """The refine command reads graph text (Python syntax, never evaluated) and types."""
    lines = ["refine tanh(x @ W) x:float32[?,?] W:float32[?,4] -> float32[5,4]",
             "refine h = x @ W; y = tanh(h) x:float32[?,?] W:float32[3,4] h:float32[B,?]",
             "refine concatenate([x, z], axis=0)[1:, ::2].T x:int8[n,3] z:int8[?,3]",
             "refine (x + 1.0).sum(axis=-1) > 0, x.reshape(2, -1) x:float64[?,4]",
             "refine B, C = x.shape; zeros((B * 2, C)) + x.reshape(B, -1) x:float32[?,4]"]
    pieces = ["(", ")", "[", "]", ":", ";", "=", "@", "**", "~", ".T", ".sum(", "lambda",
              "__class__", "x", "W", "float32[", "?", "->", "9" * 30, ",", " ", "'", "\\",
              ".shape", "//0", "10.0**400", "**64", "B, C = "]
    for text in mutants(lines, CASES, pieces, seed=7):
        repl = cli.Repl(stdout=io.StringIO())
        assert run_case("refine command", repl.onecmd, text) == "ok", text
    for depth in (10, 100, 1000, 4000):
        for text in ("refine " + "tanh(" * depth + "x" + ")" * depth + " x:float32[3]",
                     "refine " + "-" * depth + "x x:float32[3]",
                     "refine x" + "[0]" * depth + " x:float32[3]",
                     "refine " + "+".join(["x"] * depth) + " x:float32[3]"):
            repl = cli.Repl(stdout=io.StringIO())
            assert run_case("refine command", repl.onecmd, text) == "ok", text[:80]


# --------------------------------------------------------------------------- hostile sizes
# Powers of sums, nested powers, products of sums, huge divisors and repeated sequences,
# through every entry point that reads sizes: each must be refused (or answered) quickly.

def _infer_case(text: str) -> None:
    Signature.parse(text).infer([TensorType.parse("float32[5,3]")])


def test_hostile_sizes_in_types():
    for expr in hostile_sizes(random.Random(8), CASES // 2):
        run_case("TensorType.parse", _type_case, f"float32[{expr}]")


def test_hostile_sizes_in_signatures():
    rng = random.Random(9)
    for expr in hostile_sizes(rng, CASES // 2, atoms="nm"):
        text = rng.choice((f"(n,m)->({expr})", f"(n,m)->() where {expr} == 1",
                           f"({expr},m)->(n)", f"(n,m)->() where {expr} <= n"))
        run_case("Signature.infer", _infer_case, text)
    run_case("Signature.infer", _infer_case, "(n,m)->() where n//2**64 == 1")
    # powers of powers of ints: an int of 53 million bits (47 s) before any size limit
    for text in ("(n,m)->((((((m+n+1))**64)**64)**64)**64)",
                 "(n,m)->(n) where ((((n+2)**64)**64)**64)**64 > m"):
        assert run_case("Signature.infer", _infer_case, text) == "ValueError"
    for clause in ("n > k//0", "n > m%0", "n == m//(m-3)", "n < k//(n-n)", "m%(n-5) == 0"):
        for text in (f"(n,m)->(n) where {clause}", f"(n,m)->(m//0) where {clause}"):
            run_case("Signature.infer", _infer_case, text)


def test_hostile_sizes_on_the_command_line():
    rng = random.Random(10)
    for expr in hostile_sizes(rng, CASES // 4, atoms="nm"):
        argv = rng.choice((["infer", f"(n,m)->({expr})", "float32[5,3]"],
                           ["infer", f"(n,m)->() where {expr} == 1", "float32[n,m]"],
                           ["infer", "add", f"float32[{expr}]", "float32[]"]))
        run_case("cli main (infer/query)", lambda a: _quiet(cli.main, a), argv)


def test_hostile_sizes_and_repetitions_in_graph_text():
    rng = random.Random(11)
    shape = "x.shape[0]", "x.shape[1]"
    texts = [f"zeros(({e},))" for e in hostile_sizes(rng, CASES // 4, atoms="ab")]
    texts = [t.replace("a", shape[0]).replace("b", shape[1]) for t in texts]
    texts += hostile_repetitions(rng, CASES // 4)
    for text in texts:
        repl = cli.Repl(stdout=io.StringIO())
        line = f"refine {text} x:float32[p,q]"
        assert run_case("refine command", repl.onecmd, line) == "ok", line

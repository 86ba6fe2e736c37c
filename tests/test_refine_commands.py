"""The refine command (REPL, magics, CLI) and the graph text it reads."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor import cli
from kantensor.commands import COMMANDS, CommandError
from kantensor.graphtext import MAX_GRAPH_NESTING, MAX_GRAPH_TEXT, GraphTextError, read_graph

F = kt.TensorType.parse


def rows(refinement) -> dict[str, str]:
    """``{variable as shown: refined type}`` from a refinement's text."""
    out = {}
    for line in str(refinement).splitlines():
        name, rest = line.split("  ", 1)
        out[name.strip()] = rest.split("(was")[0].strip()
    return out


# -- graph text -------------------------------------------------------------------------
def test_graph_text_builds_the_graph_numpy_would_compute():
    types = {"x": F("float64[2,3]"), "W": F("float64[3,4]"), "b": F("float64[4]")}
    g = read_graph("h = x @ W + b; y = tanh(h).sum(axis=1) * 2 - h[:, ::2].T.mean(axis=0)",
                   types)
    assert [v.name for v in g.outputs] == ["y"]
    assert set(g.names) == {"x", "W", "b", "h", "y"}
    f = kt.function([g.names["x"], g.names["W"], g.names["b"]], g.outputs[0])
    rng = np.random.default_rng(0)
    x, W, b = rng.random((2, 3)), rng.random((3, 4)), rng.random(4)
    h = x @ W + b
    np.testing.assert_allclose(f(x, W, b), np.tanh(h).sum(axis=1) * 2 - h[:, ::2].T.mean(axis=0))


def test_graph_text_reads_comparisons_unary_ops_lists_and_several_outputs():
    types = {"a": F("int8[3]"), "c": F("int8[3]")}
    g = read_graph("where(a > 0, -a, ~c), concatenate([a, c], axis=0), +a", types)
    assert [str(v.type) for v in g.outputs] == ["int8[3]", "int8[6]", "int8[3]"]


@pytest.mark.parametrize("text, message, culprit", [
    ("tanh(q)", "q has no type: give it one, as q:float32[3,?]", "q"),
    ("__import__('os')", "unknown Op '__import__'", "__import__"),
    ("x.__class__", ".__class__: only .T, .mT, .real, .imag, .shape", "x.__class__"),
    ("x.shape.__class__", ".__class__: only .T", "x.shape.__class__"),
    ("x + 3**10**8", "3 ** 10 ** 8 is too large: a Python int in a graph holds at most "
     "4096 bits", "3**"),
    ("x + ((2**64)**64)**64", "(2 ** 64) ** 64 is too large: a Python int", "(2**64)**"),
    ("x + 10.0**400", "10.0 ** 400: (34, 'Numerical result out of range')", "10.0"),
    ("x + 1 // 0", "1 // 0: integer division or modulo by zero", "1 //"),
    ("a, b = x.shape", "cannot unpack (3,) into 2 names", "a, b"),
    ("a = [x]", "a must be assigned a tensor or a size, got [x]", "a ="),
    ("x.sum.__globals__", "only .T, .mT", "x.sum.__globals__"),
    ("open('f')", "unknown Op 'open'", "open"),
    ("lambda: x", "lambda is not part of the graph language", "lambda"),
    ("x if x else x", "if-else is not part of the graph language", "x if"),
    ("x and x", "and/or is not part of the graph language", "x and"),
    ("1 < x < 2", "one comparison at a time", "1 <"),
    ("tanh(x, b'a')", "b'a' is neither a number nor a string", "b'a'"),
    ("x.astype(int8)", "int8 is a dtype: write it as a string, 'int8'", "int8"),
    ("import os", "expected an expression, NAME = expression or A, B = x.shape", "import"),
    ("concatenate([x, x], axis=2)", "concatenate([x, x], axis=2): ", "concatenate"),
    ("tnah(x)", "unknown Op 'tnah' (did you mean tanh?)", "tnah"),
    ("x +", "cannot read the graph: invalid syntax", None),
])
def test_graph_text_errors_name_the_culprit_and_never_evaluate(text, message, culprit):
    with pytest.raises(GraphTextError) as info:
        read_graph(text, {"x": F("float32[3]")})
    assert message in info.value.message
    if culprit is not None:
        assert info.value.position == text.index(culprit)


def test_graph_text_has_a_length_and_a_nesting_limit():
    with pytest.raises(GraphTextError, match=f"at most {MAX_GRAPH_TEXT}"):
        read_graph("x" + "+x" * MAX_GRAPH_TEXT, {"x": F("float32[3]")})
    with pytest.raises(GraphTextError, match="cannot read the graph"):
        read_graph("(" * 3000 + "x" + ")" * 3000, {"x": F("float32[3]")})
    with pytest.raises(GraphTextError, match=f"nested more than {MAX_GRAPH_NESTING} levels"):
        read_graph("-" * 1000 + "x", {"x": F("float32[3]")})
    deep = read_graph("tanh(" * 50 + "x" + ")" * 50, {"x": F("float32[3]")})
    assert str(deep.outputs[0].type) == "float32[3]"


def test_graph_text_reads_shapes_as_sizes():
    """x.shape entries (known, named or unknown) are sizes, as in NumPy code."""
    types = {"x": F("float32[?,n,2]"), "w": F("float32[2,3]")}
    g = read_graph("B, N, C = x.shape; zeros((x.shape[0], N * C)), "
                   "x.reshape(x.shape[0] * x.shape[1], x.shape[2]) @ w, "
                   "ones((x.size, x.ndim))", types)
    assert [str(v.type) for v in g.outputs] == ["float64[?,2*n]", "float32[?,3]",
                                                "float64[?,3]"]
    x = g.names["x"]
    r = kt.refine(g.outputs[0], given={g.outputs[0]: "float64[5,8]"})
    assert str(r[x]) == "float32[5,4,2]"
    plus = read_graph("B, N, C = x.shape; x + N", types)  # a size used as a number
    assert str(plus.outputs[0].type) == "float32[?,n,2]"
    got = kt.function([plus.names["x"]], plus.outputs[0])(np.zeros((2, 4, 2), "float32"))
    np.testing.assert_array_equal(got, np.full((2, 4, 2), 4, "float32"))

    def zeros_3x(data, w):  # the same graph run by NumPy gives the same values
        return np.zeros((data.shape[0], data.shape[1] * data.shape[2]))
    f = kt.function([x], g.outputs[0])
    data = np.ones((5, 4, 2), "float32")
    np.testing.assert_array_equal(f(data), zeros_3x(data, None))


def test_graph_text_uses_variables_of_a_namespace():
    x = kt.tensor("x", "float32", shape=(None, 3))
    g = read_graph("tanh(x)", {}, {"x": x, "np": np})
    assert g.outputs[0].owner.inputs[0] is x
    with pytest.raises(GraphTextError, match="np has no type"):
        read_graph("np", {}, {"np": np})


# -- the command ------------------------------------------------------------------------
def test_refine_command_types_inputs_and_requires_outputs():
    r = COMMANDS["refine"]("tanh(x @ W) x:float32[?,?] W:float32[?,4] -> float32[5,4]")
    assert rows(r) == {"x": "float32[5,?]", "W": "float32[?,4]",
                       "matmul(x, W)": "float32[5,4]", "tanh(matmul(x, W))": "float32[5,4]"}


def test_refine_command_requires_types_of_assigned_names():
    r = COMMANDS["refine"]("h = x @ W; y = tanh(h) x:float32[?,?] W:float32[?,4] h:float32[B,?]")
    assert rows(r) == {"x": "float32[B,?]", "W": "float32[?,4]", "h": "float32[B,4]",
                       "y": "float32[B,4]"}


def test_refine_command_in_a_namespace():
    x = kt.tensor("x", "float32", shape=(None, None))
    W = kt.tensor("W", "float32", shape=(3, 4))
    y = (x + 1.0) @ W
    r = COMMANDS["refine"]("y x:float32[5,?]", {"x": x, "W": W, "y": y})
    assert r[x] == F("float32[5,3]") and r[y] == F("float32[5,4]")


@pytest.mark.parametrize("line, message, culprit", [
    ("", "usage: refine GRAPH", None),
    ("tanh(x) x:float32[3] -> float32[3] float32[3]", "the graph has 1 output but -> gives 2",
     None),
    ("tanh(x @ Q) x:float32[?,3]", "Q has no type", "Q"),
    ("tanh(x) x:float33[3]", "unknown dtype 'float33'", "float33"),
    ("tanh(x) x:float32[3] z:float32[3]", "z is not a name of the graph", "z:"),
    ("tanh(x) x:float32[3] junk", "expected NAME:TYPE or ->, got 'junk'", "junk"),
    ('"tanh(x @ Q)" x:float32[?,3]', "Q has no type", "Q"),  # a graph quoted whole
    ("einsum('ij,jk->ik', x, Q) x:float32[2,3]", "Q has no type", "Q"),
])
def test_refine_command_errors_point_at_the_word(line, message, culprit):
    with pytest.raises(CommandError) as info:
        COMMANDS["refine"](line)
    assert message in info.value.message
    if culprit is not None:
        assert info.value.position == line.index(culprit)


def test_refine_command_reports_a_conflict_as_a_chain():
    with pytest.raises(kt.TypeInferenceError) as info:
        COMMANDS["refine"]("y = x @ W; z = x + v; y, z x:float32[?,?] W:float32[3,4] "
                           "v:float32[5]")
    assert str(info.value).splitlines()[1:] == [
        "  x axis 1 is 3 because of y = matmul(x, W) (W axis 0 is 3)",
        "  z = add(x, v) fails with x axis 1 = 3: x axis 1 is 3 and v axis 0 is 5 could not "
        "be broadcast"]


# -- the CLI --------------------------------------------------------------------------------
def test_cli_refine(capsys):
    assert cli.main(["refine", "concatenate([x, z])", "x:float32[?]", "z:float32[n]",
                     "--out", "float32[2*n]"]) == 0
    assert rows(capsys.readouterr().out) == {
        "x": "float32[n]", "z": "float32[n]", "concatenate(x, z)": "float32[2*n]"}


def test_cli_refine_a_graph_from_a_python_file(tmp_path, capsys):
    path = tmp_path / "graph.py"
    path.write_text("import kantensor as kt\n"
                    "x = kt.tensor('x', 'float64', shape=(None, None))\n"
                    "A = kt.tensor('A', 'float64', shape=(3, 2))\n"
                    "v = kt.tensor('v', 'float64', shape=(7,))\n"
                    "left, right = x @ A, v @ x\n")
    assert cli.main(["refine", "left, right", "--file", str(path)]) == 0
    assert rows(capsys.readouterr().out)["x"] == "float64[7,3]"
    assert cli.main(["refine", "left", "x:float64[?,4]", "--file", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the graph's sizes contradict each other:")
    assert "x axis 1 is 4 because of given x: float64[?,4]" in err
    assert cli.main(["refine", "y", "--file", str(tmp_path / "missing.py")]) == 1
    assert "cannot run" in capsys.readouterr().err


def test_refine_rows_are_the_programs_variables_each_told_apart():
    """A chain's rows read alike when cut at two calls: they are numbered in graph order
    (50 rows all 'add(add(add(…), x), x)' before); the input carrying x.shape[0] into a
    size parameter is no row of the user's (it showed as 'shape_of(x)  bool[4]')."""
    x = kt.vector("x", "float32")
    y = x
    for _ in range(49):
        y = y + x
    r = kt.refine(y, given={y: "float32[3]"})
    labels = [line.split("  ")[0] for line in str(r).splitlines()]
    assert len(labels) == len(set(labels)) == 50
    assert labels[-1] == "add(add(add(…), x), x) #47"
    assert "#" in r._repr_html_() and r[y] == kt.TensorType.parse("float32[3]")
    shown = COMMANDS["refine"]("B, C = x.shape; zeros((B * 2, C)) x:float32[?,3] -> float64[8,3]")
    assert str(shown).splitlines() == [
        "x                               float32[4,3]  (was float32[?,3])",
        "zeros(shape=(2*x.shape[0], 3))  float64[8,3]  (was float64[?,3])"]
    assert repr(shown).startswith("<Refinement of 2 variables, 2 refined>\n")


@pytest.mark.parametrize(("text", "given"), [
    ("zeros((x.shape[0] * 2, 3))", "float32[4,?]"),
    ("B, C = x.shape; ones((B * 2, C + 1))", "float32[5,3]"),
    ("B, C = x.shape; zeros((B * 2, C))", "float32[?,3]"),
    ("n = x.shape[0]; ones((n, n + 1)) * 2", "float32[?]"),
    ("zeros(x.shape[0] * 2)", "float32[3]"),
])
def test_refine_labels_a_size_parameter_as_written(text, given):
    """A call whose sizes are parameters is labelled by them, as the user wrote them:
    ``zeros((x.shape[0] * 2, 3))`` read 'zeros(x.shape[0])' (the input carrying the
    size, not the size) and ``zeros(6)`` read 'zeros()'. Oracle: each label of such a
    call, run by NumPy on an x of the refined type, makes an array of its row's shape."""
    r = COMMANDS["refine"](f"{text} x:{given}")
    rows = [(label, t) for label, _, t in r._rows()]
    x_type = dict(rows).get("x", kt.TensorType.parse(given))  # (no row when sizes fold)
    x = np.ones([4 if d is None else d for d in x_type.shape], dtype=x_type.dtype)
    calls = [(label, t) for label, t in rows if label.startswith(("zeros(", "ones("))]
    assert calls and all("shape=" in label for label, _ in calls), rows
    for label, t in calls:
        made = eval(label, {"zeros": np.zeros, "ones": np.ones, "x": x})  # NumPy's call
        assert made.ndim == t.ndim and all(
            m == d for m, d in zip(made.shape, t.shape, strict=True) if isinstance(d, int)), \
            (label, t)


@pytest.mark.parametrize("line, arrays", [
    ("einsum('ij,jk->ik', x, y) x:float32[2,?] y:float32[?,4] -> float32[?,4]",
     {"x": (2, 3), "y": (3, 4)}),
    ("einsum('ij, jk -> ik', x, y) x:float32[2,3] y:float32[3,?]", {"x": (2, 3), "y": (3, 5)}),
    ("zeros((2, 3), dtype='int16') + x.astype('int8') x:float32[?]", {"x": (3,)}),
    ('"x.astype(\'uint8\') * 2" x:float64[4]', {"x": (4,)}),
])
def test_graph_text_reads_strings_as_python_does(line, arrays):
    """The REPL's and the magics' graph text keeps Python's strings (the command line
    stripped their quotes: einsum('ij,jk->ik', x, y) read einsum(ij,jk->ik, x, y), an
    invalid syntax, and x.astype('int8') 'int8 has no type'). Oracle: the same text run
    by NumPy on arrays of the inputs' sizes makes the output's dtype and every size the
    refinement states."""
    r = COMMANDS["refine"](line)
    (out,) = r.outputs
    text = line.split(" x:")[0].strip('"').replace("\\'", "'")
    made = eval(text, {"einsum": np.einsum, "zeros": np.zeros},
                {name: np.ones(shape, "float32" if "float32" in line else "float64")
                 for name, shape in arrays.items()})
    got = out.type  # (the retyped graph's output)
    assert np.dtype(got.dtype) == made.dtype, (got, made.dtype)
    assert all(d == m for d, m in zip(got.shape, made.shape, strict=True)
               if isinstance(d, int)), (got, made.shape)


def test_a_size_carried_into_a_parameter_is_named_as_written_in_explanations():
    """The input carrying ``x.shape[0]`` into zeros's shape is that size in a conflict's
    words (it read '2*x.shape[0].shape[0] = 8'), and one carrying a named size B is B
    ('(B is 2)', not '(size{B}() axis 0 is 2)'). Oracle: the stated expression, run by
    NumPy on x of the given shape, is the stated value, and np.zeros of it is not the
    required shape."""
    x = kt.tensor("x", "float32", (None, 3))
    z = kt.zeros((x.shape[0] * 2, 3))
    with pytest.raises(kt.RefinementError) as err:
        kt.refine(z, given={x: "float32[4,3]", z: "float64[9,3]"})
    last = str(err.value).splitlines()[-1]
    expr, value = last.rsplit("does not equal ", 1)[1].split(" = ")
    assert expr == "2*x.shape[0]", last
    x_value = np.ones((4, 3), "float32")
    assert eval(expr, {"x": x_value}) == int(value)
    assert np.zeros((eval(expr, {"x": x_value}), 3)).shape != (9, 3)
    B, T = kt.dims("B T")
    u = kt.tensor("u", "float32", (B, T, 8))
    y = (u.reshape(B * T, 8) @ kt.tensor("W", "float32", (8, 16))).reshape(B, T, 16)
    with pytest.raises(kt.RefinementError) as err:
        kt.refine(y, given={u: "float32[2,3,8]", y: "float32[3,3,16]"})
    assert "(B is 2)" in str(err.value) and "size{" not in str(err.value), str(err.value)
    with pytest.raises(ValueError):  # NumPy: 2*3*8 values are no (3, 3, 16)
        np.ones((2, 3, 8)).reshape(6, 8).dot(np.ones((8, 16))).reshape(3, 3, 16)

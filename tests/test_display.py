"""Rich displays: every object a notebook user looks at has HTML whose key content is there.

The HTML is parsed (tests/htmltree.py, on the standard library's parser), so it must be
well formed; plain reprs stay as they were.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import kantensor as kt
from htmltree import parse
from kantensor.query import var
from kantensor.signature import display as sig_display


def _kind(root) -> str:
    """The bold label of a display (its kind)."""
    return root.find_all("b")[0].text()


def test_tensor_type_highlights_symbolic_sizes():
    n = kt.Dim("n")
    t = kt.TensorType("float32", (n, None, 3, 2 * n))
    root = parse(t._repr_html_())
    assert _kind(root) == "TensorType"
    assert root.find_all("code")[0].text() == "float32[n,?,3,2*n]" == str(t)
    symbolic = [s.text() for s in root.find_all("span")
                if "kantensor-symbolic" in s.attrs.get("class", "")]
    assert symbolic[:2] == ["n", "2*n"]
    unknown = [s for s in root.find_all("span") if s.text() == "?"]
    assert unknown and unknown[0].attrs["title"] == "unknown size"
    assert repr(t) == "TensorType(float32, (n, ?, 3, 2*n))"  # the plain repr is unchanged


def test_dim_display():
    n = kt.Dim("n")
    assert "the symbolic size n" in parse(n._repr_html_()).text()
    root = parse((n + 1)._repr_html_())
    assert _kind(root) == "Dim" and "n + 1" in root.text() and "expression" in root.text()
    assert repr(n) == "Dim('n')"


def test_signature_shows_each_alternative_and_its_where_clauses():
    sig = kt.Signature.parse("(n):x->():x where x in inexact | (n):x->():float64")
    root = parse(sig._repr_html_())
    assert _kind(root) == "Signature" and "2 alternatives" in root.text()
    (tab,) = root.find_all("table")
    rows = tab.rows()
    assert rows[0] == ["#", "loop dims", "inputs", "outputs", "where"]
    assert rows[1] == ["1", "none", "(n):x", "():x", "x in inexact"]
    assert rows[2][0] == "2" and rows[2][3] == "():float64"
    assert repr(sig) == f"Signature({str(sig)!r})"


def test_op_display_has_name_signature_doc_and_parameters():
    root = parse(kt.sum._repr_html_())
    assert _kind(root) == "Op with parameters"
    text = root.text()
    assert "sum(x, axis: axis_tuple = None, keepdims: bool = False, *, dtype: maybe_dtype = " \
        "None)" in text
    assert kt.sum.template.split()[0] in text
    assert "Sum over axis" in text  # the doc
    params = root.find_all("table")[-1].rows()
    assert params[0] == ["parameter", "kind", "default"]
    assert ["axis", "axis_tuple", "None"] in params and ["keepdims", "bool", "False"] in params
    root = parse(kt.matmul._repr_html_())
    assert _kind(root) == "Op" and str(kt.matmul.signature) in root.text()
    assert len(root.find_all("table")[0].rows()) == 1 + len(kt.matmul.signature.alternatives)
    bound = parse(kt.sum.bind(axis=1)._repr_html_()).find_all("table")[-1].rows()
    assert ["axis", "bound", "1"] in bound and bound[0][2] == "value"


def test_solutions_table_empty_and_cut():
    sols = kt.query(kt.add, [kt.pattern(var("D"), (3,)), "float32[3]"], ["float64[3]"])
    root = parse(sols._repr_html_())
    (tab,) = root.find_all("table")
    assert tab.rows() == [["D"], ["float64"]]
    assert "1 solution" in tab.find_all("caption")[0].text()
    empty = kt.query(kt.add, ["float32[4]", "float32[3]"], [var("X")])
    assert "no solutions" in parse(empty._repr_html_()).text()
    assert not parse(empty._repr_html_()).find_all("table")


def test_solutions_say_how_many_when_cut(monkeypatch):
    monkeypatch.setattr(sig_display, "MAX_ROWS", 3)
    sols = kt.query(kt.add, [var("X"), var("Y")], ["float32[3]"])
    total = len(list(kt.query(kt.add, [var("X"), var("Y")], ["float32[3]"])))
    assert total > 3
    tab = parse(sols._repr_html_()).find_all("table")[0]
    assert len(tab.rows()) == 1 + 3
    assert tab.find_all("caption")[0].text() == f"showing 3 of {total} solutions"
    monkeypatch.setattr(sig_display, "COUNT_CAP", 2)
    tab = parse(sols._repr_html_()).find_all("table")[0]
    assert tab.find_all("caption")[0].text() == "showing 3 of at least 5 solutions"


def test_variable_shows_type_and_a_picture():
    x = kt.matrix("x", "float64", shape=(2, kt.Dim("n")))
    z = (x * 2).sum(axis=0)
    root = parse(z._repr_html_())
    assert _kind(root) == "TensorVariable"
    assert root.find_all("code")[1].text() == str(z.type) == "float64[n]"
    (svg,) = root.find_all("svg")
    labels = {t.text() for t in svg.find_all("text")}
    assert {"x", "Apply", "mul", "sum", "float64[2,n]"} <= labels
    assert str(z) == "sum{axis=(0,), keepdims=False, dtype=None}.out"  # plain repr unchanged


def test_function_shows_its_signature_as_a_table():
    x = kt.matrix("x", "float64")
    y = kt.vector("y", "float64", shape=(3,))
    f = kt.function([x, y], [x + y, (x * y).sum()])
    root = parse(f._repr_html_())
    assert _kind(root) == "Function" and str(f.signature) in root.text()
    rows = root.find_all("table")[0].rows()
    assert rows[1] == ["input", "0", "x", "float64[?,?]"]
    assert rows[2] == ["input", "1", "y", "float64[3]"]
    assert [r[0] for r in rows[3:]] == ["output", "output"]
    assert rows[3][3] == str(f.signature.outputs[0]) == "float64[?,3]"
    xv, yv = np.ones((2, 3)), np.arange(3.0)
    np.testing.assert_allclose(f(xv, yv)[1], (xv * yv).sum())


def test_errors_show_their_explanation():
    a = kt.matrix("a", "float64", shape=(2, 3))
    b = kt.matrix("b", "float64", shape=(4, 5))
    with pytest.raises(kt.TypeInferenceError) as info:
        a @ b
    root = parse(info.value._repr_html_())
    assert _kind(root) == "TypeInferenceError"
    assert root.find_all("pre")[0].text() == str(info.value)
    assert re.search(r"dimension \w+ is 3 in input 0 .* but 4 in input 1", str(info.value))
    with pytest.raises(kt.SignatureSyntaxError) as info:
        kt.Signature.parse("(m,n)=>(m)")
    pre = parse(info.value._repr_html_()).find_all("pre")[0].text()
    assert pre.splitlines()[-1].strip() == "^" and "(m,n)=>(m)" in pre


def test_a_long_error_line_wraps_but_never_between_a_line_and_its_caret():
    """A syntax error shows up to 60 characters each side of its position: in a notebook
    that line and its caret must not wrap (the caret would land under another word), while
    the message wraps rather than run past the output's edge."""
    text = "(" + ",".join(f"d{i}" for i in range(40)) + ")=>(d0)"
    with pytest.raises(kt.SignatureSyntaxError) as info:
        kt.Signature.parse(text)
    root = parse(info.value._repr_html_())
    (pre,) = root.find_all("pre")
    assert pre.text() == str(info.value) and "white-space:pre-wrap" in pre.attrs["style"]
    (pair,) = [s for s in root.find_all("span") if s.attrs.get("style") == "white-space:pre"]
    line, caret = pair.text().split("\n")
    assert len(line) > 60 and line[caret.index("^"):].startswith("=>")


def test_a_bigger_variable_shows_the_compact_picture():
    x = kt.matrix("x", "float64", shape=(2, kt.Dim("n")))
    z = kt.exp((x * 2).sum(axis=-1) + 1)  # 3 Apply nodes: the compact picture
    (svg,) = parse(z._repr_html_()).find_all("svg")
    labels = [t.text() for t in svg.find_all("text")]
    assert {"mul", "sum", "add", "exp", "axis=-1", "x"} <= set(labels)
    assert "Apply" not in labels  # no separate Apply and Op nodes
    assert labels.count("n") >= 2  # float64[2,n] of x and of mul's result, n apart


def test_eval_shape_result_shows_its_types_inputs_and_outputs():
    """eval_shape's result: its types as the title, a row per input and output with its
    type (symbolic sizes highlighted, as a TensorType's), and a plain repr; the types
    are NumPy's shapes when the sizes are given values."""
    def fn(a, b):
        return np.tanh(a @ b), a.sum(axis=1)

    r = kt.eval_shape(fn, "float32[batch,3]", "float32[3,k]")
    assert repr(r) == f"ShapeResult({r.type[0]}, {r.type[1]})"
    root = parse(r._repr_html_())
    assert _kind(root) == "ShapeResult"
    assert [c.text() for c in root.find_all("code")[:2]] == [str(t) for t in r.type]
    rows = root.find_all("table")[0].rows()
    assert [row[:2] for row in rows[1:]] == [["input", "0"], ["input", "1"],
                                             ["output", "0"], ["output", "1"]]
    assert [row[3] for row in rows[1:]] == ["float32[batch,3]", "float32[3,k]",
                                            *map(str, r.type)]
    symbolic = {s.text() for s in root.find_all("span")
                if "kantensor-symbolic" in s.attrs.get("class", "")}
    assert symbolic == {"batch", "k"}
    values = fn(np.ones((7, 3), np.float32), np.ones((3, 2), np.float32))
    sizes = {"batch": 7, "k": 2}
    assert [tuple(sizes.get(str(d), d) for d in t.shape) for t in r.type] == \
        [v.shape for v in values]

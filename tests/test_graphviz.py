"""kt.graphviz: graphs drawn as in the seed's picture, rendered to SVG by Graphviz's dot."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import graphviz
import pytest

import kantensor as kt
from htmltree import parse
from kantensor.graph.display import SYMBOLIC_COLOR

SVG = "{http://www.w3.org/2000/svg}"
# The seed's colours: Variables red, Apply nodes blue, Ops green, Types purple.
SEED = {"variable": ("box", "red"), "apply": ("box", "blue"), "op": ("circle", "darkgreen"),
        "type": ("box", "purple")}


def nodes(svg: str) -> list[tuple[str, str, str, str]]:
    """Each drawn node of an SVG: (label, kind letter of its id, shape, stroke colour)."""
    root = ET.fromstring(svg)
    found = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "node":
            continue
        label = " ".join(t.text or "" for t in g.iter(f"{SVG}text"))
        polygon, ellipse = g.find(f"{SVG}polygon"), g.find(f"{SVG}ellipse")
        if ellipse is not None:
            shape, stroke = "circle", ellipse.get("stroke")
            assert ellipse.get("rx") == ellipse.get("ry"), label  # round, not an ellipse
        else:
            points = polygon.get("points").split()
            assert len(points) == 5, label  # four corners and the closing point: a box
            shape, stroke = "box", polygon.get("stroke")
        found.append((label, g.find(f"{SVG}title").text[0], shape, stroke))
    return found


def seed_graph():
    x = kt.dmatrix("x")
    y = kt.dmatrix("y")
    return x, y, x + y


def test_seed_picture_shapes_and_colours():
    _, _, z = seed_graph()
    picture = kt.graphviz(z)
    assert isinstance(picture, graphviz.Digraph)
    drawn = {label: rest for label, *rest in nodes(picture.pipe(format="svg", encoding="utf-8"))}
    kinds = {"v": "variable", "a": "apply", "o": "op", "t": "type"}
    assert set(drawn) == {"x", "y", "add.out", "Apply", "add", "float64[?,?]"}
    for label, (prefix, shape, stroke) in drawn.items():
        assert (shape, stroke) == SEED[kinds[prefix]], label
    assert {drawn[v][0] for v in ("x", "y", "add.out")} == {"v"}
    assert drawn["Apply"][0] == "a" and drawn["add"][0] == "o" and drawn["float64[?,?]"][0] == "t"


@pytest.mark.parametrize("style", ["seed", "compact"])
@pytest.mark.parametrize("name", ["x\\", "a\\b", "x\\n", "<b>", "<x>&y", 'say "hi"'])
def test_names_are_drawn_as_written(name, style):
    """Graphviz draws a Variable's name as written: a backslash is no DOT escape (a name
    ending in one made the seed's DOT text unreadable to dot; ``x\\n`` drew x and a line
    break) and ``<b>`` is no HTML-like label (it drew a bare b)."""
    x = kt.tensor(name, "float32", shape=(3,))
    y = x + 1
    y.name = name + "2"
    svg = kt.graphviz(y, style=style).pipe(format="svg", encoding="utf-8")
    texts = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert name in texts and name + "2" in texts, texts


def test_edges_follow_the_data_and_the_op():
    x, y, z = seed_graph()
    source = kt.graphviz(z).source
    # x and y are inputs 0 and 1 of the Apply, whose output is add.out and whose Op is add.
    assert "v0 -> a0 [label=0]" in source and "v1 -> a0 [label=1]" in source
    assert "a0 -> v2" in source and "a0 -> o0" in source
    assert 'v0 [label=x' in source and 'v1 [label=y' in source


def test_types_can_be_left_out_and_ops_keep_short_names():
    x = kt.matrix("x", "float64")
    z = ((x + 1) * x).sum(axis=0)
    drawn = nodes(kt.graphviz(z, types=False).pipe(format="svg", encoding="utf-8"))
    assert "purple" not in {stroke for *_, stroke in drawn}
    assert [label for label, kind, *_ in drawn if kind == "a"] == ["Apply"] * 3
    ops = [label for label, kind, *_ in drawn if kind == "o"]
    assert sorted(ops) == ["add", "mul", "sum {axis=(0,), keepdims=False, dtype=None}"]
    assert not [label for label, *_ in drawn if "float64" in label]
    with_types = nodes(kt.graphviz(z).pipe(format="svg", encoding="utf-8"))
    types = {label for label, kind, shape, stroke in with_types if kind == "t"}
    assert types == {"float64[?,?]", "float64[?]", "int64[]"}
    assert {stroke for _, kind, _, stroke in with_types if kind == "t"} == {"purple"}


def test_accepts_what_dprint_accepts():
    x, y, z = seed_graph()
    f = kt.function([x, y], z)
    assert "add" in kt.graphviz(f).source and "add" in kt.graphviz(z.owner).source
    with pytest.raises(TypeError, match="expected Variables"):
        kt.graphviz(3)


def test_without_dot_the_source_works_and_rendering_says_how(monkeypatch, tmp_path):
    _, _, z = seed_graph()
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` there
    assert shutil.which("dot") is None
    picture = kt.graphviz(z)
    assert picture.source.startswith("digraph")
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        picture.pipe(format="svg")
    with pytest.raises(RuntimeError, match=r"\.source"):
        picture.render(tmp_path / "g", format="svg")
    # A variable's rich display still shows its type, and says why there is no picture.
    root = parse(z._repr_html_())
    assert root.find_all("code")[1].text() == "float64[?,?]" and not root.find_all("svg")
    assert "needs Graphviz's `dot`" in root.find_all("pre")[0].text()


def test_the_docs_picture_is_drawn_by_the_code():
    """docs/_static/seed_x_plus_y.svg (on docs/interactive.rst) is what kt.graphviz draws."""
    saved = Path(__file__).parents[1] / "docs" / "_static" / "seed_x_plus_y.svg"
    _, _, z = seed_graph()
    assert nodes(saved.read_text()) == nodes(kt.graphviz(z).pipe(format="svg",
                                                                  encoding="utf-8"))


# -- the compact style ---------------------------------------------------------------
def _attention():
    n, d = kt.Dim("n"), kt.Dim("d")
    x = kt.tensor("x", "float32", (n, d))
    wq, wk, wv = (kt.tensor(k, "float32", (d, d)) for k in ("Wq", "Wk", "Wv"))
    s = (x @ wq) @ (x @ wk).T
    e = kt.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    out = kt.reshape(w @ (x @ wv), (x.shape[0], -1))
    out.name = "out"
    return out


def _labels(source: str) -> dict[str, str]:
    """Node id -> its HTML-like label with the tags removed, from DOT text."""
    found = {}
    for m in re.finditer(r"^\t(\w+) \[label=<(.*)> ", source, re.M):
        found[m.group(1)] = re.sub(r"<br/>", "\n", m.group(2))
    return {k: re.sub(r"<[^>]+>", "", v) for k, v in found.items()}


def test_compact_is_the_default_above_a_dozen_nodes():
    x = kt.tensor("x", "float32", (2, 3))
    small = kt.graphviz(kt.exp(x))
    assert "circle" in small.source  # the seed's picture: Ops in circles
    big = kt.graphviz(_attention())
    assert "circle" not in big.source and "purple" not in big.source


def test_compact_highlights_symbolic_sizes_as_the_html_does():
    from kantensor.graph.display import SYMBOLIC_STYLE
    color = SYMBOLIC_STYLE.split("color:")[1].split(";")[0]
    x = kt.tensor("x", "float32", (kt.Dim("n"), 3, None))
    source = kt.graphviz(kt.exp(x), style="compact").source
    assert f'float32[<font color="{color}"><b>n</b></font>,3,<font color="#888888">?' \
        in source


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_compact_renders_to_svg():
    from kantensor.graph.walk import toposort
    out = _attention()
    svg = kt.graphviz(out, style="compact").pipe(format="svg").decode()
    boxes = [g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") == "node"]
    applies = [g for g in boxes if g.find(f"{SVG}title").text.startswith("a")]
    assert len(applies) == len(toposort([out]))
    assert all(g.find(f"{SVG}path").get("stroke") == "blue" for g in applies)


@pytest.mark.parametrize("bad", ["x", b"x", 3])
def test_graphviz_of_a_non_graph_is_a_type_error(bad):
    with pytest.raises(TypeError, match="expected Variables, an Apply"):
        kt.graphviz(bad)
    with pytest.raises(ValueError, match="style must be"):
        kt.graphviz(kt.tensor("x", "float32", (2,)), style="fancy")

# The compact picture: one box per Apply with its Op inside, types on the Variables.

def svg_nodes(picture) -> dict[str, list[tuple[str, str | None, str | None]]]:
    """Each drawn node's id -> its text pieces as (text, fill colour, font weight)."""
    root = ET.fromstring(picture.pipe(format="svg", encoding="utf-8"))
    found = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "node":
            found[g.find(f"{SVG}title").text] = [
                (t.text, t.get("fill"), t.get("font-weight")) for t in g.iter(f"{SVG}text")]
    return found


def text_of(pieces) -> str:
    return "".join(t for t, *_ in pieces)


def head_graph():
    """An attention head: named scope "head/", a mask, a softmax, reshapes."""
    n, d = kt.dims("n d")
    x = kt.tensor("x", "float32", shape=(n, d))
    w = kt.tensor("w", "float32", shape=(d, d))
    mask = kt.tensor("mask", "bool", shape=(n, n))
    q = kt.matmul(x, w)
    q.name = "head/q"
    scores = kt.where(mask, kt.matmul(q, kt.transpose(x)), -1e9)
    scores.name = "head/scores"
    probs = kt.softmax(scores, axis=-1)
    probs.name = "head/probs"
    out = kt.matmul(probs, x).reshape((-1,)).sum(axis=-1, keepdims=True)
    return x, out


def test_compact_boxes_hold_the_op_its_parameters_as_written_and_types():
    x, out = head_graph()
    picture = kt.graphviz(out)  # more than a dozen nodes: compact by default
    assert picture.source == kt.graphviz(out, style="compact").source
    drawn = svg_nodes(picture)
    applies = {k: text_of(v) for k, v in drawn.items() if k.startswith("a")}
    ops = kt.toposort([out])
    assert len(applies) == len(ops)  # one box per Apply, no separate Op nodes
    for node in ops:
        name, params = node.op.written()
        assert any(text.startswith(name) for text in applies.values()), name
    texts = list(applies.values())
    # the user's spelling (axis=-1, shape=(-1,)), never the builder's (axes_of, (1,))
    assert any(t.startswith("sum") and "axis=-1" in t and "keepdims=True" in t for t in texts)
    assert any(t.startswith("reshape") and "shape=(-1,)" in t for t in texts)
    assert not any("axes_of" in t or "dtype=None" in t for t in texts)
    # an unnamed one-output result is the box's last line, its type
    (matmul_box,) = [t for t in texts if t.startswith("matmul") and t.count("n") >= 1
                     and t.endswith("[n,n]")]
    assert matmul_box.startswith("matmul") and "float32" in matmul_box
    # Variables: the name above its type; symbolic sizes in the HTML's highlight
    variables = {text_of(v): v for k, v in drawn.items() if k.startswith("v")}
    assert "xfloat32[n,d]" in variables and "head/probsfloat32[n,n]" in variables
    for text, fill, weight in variables["xfloat32[n,d]"]:
        symbolic = text in ("n", "d")
        assert (fill == SYMBOLIC_COLOR and weight == "bold") == symbolic, text


def test_compact_tells_several_outputs_and_results_apart():
    """Unnamed outputs are ``output 0``, ``output 1``, ... when there are several (they
    were all ``output``), and the edges of an Apply with several results say which
    result each is: Q and R of a QR factorisation are told apart."""
    a, b = kt.dims("a b")
    m = kt.tensor("m", "float64", shape=(a, b))
    q, r = kt.qr(m)
    picture = kt.graphviz([r, q], style="compact")
    root = ET.fromstring(picture.pipe(format="svg", encoding="utf-8"))
    titles = {g.find(f"{SVG}title").text: " ".join(t.text for t in g.iter(f"{SVG}text"))
              for g in root.iter(f"{SVG}g") if g.get("class") in ("node", "edge")}
    boxes = {k: v for k, v in titles.items() if "->" not in k}
    # r (output 0) is float64[min(a, b),b]; q (output 1) is float64[a,min(a, b)]
    out0 = next(t for t in boxes.values() if t.startswith("output 0"))
    out1 = next(t for t in boxes.values() if t.startswith("output 1"))
    assert out0.replace(" ", "").endswith("float64[min(a,b),b]"), out0
    assert out1.replace(" ", "").endswith("float64[a,min(a,b)]"), out1
    ids = {v: k for k, v in boxes.items()}
    edges = {k: v for k, v in titles.items() if "->" in k}
    (qr_box,) = [k for k, v in boxes.items() if v.strip() == "qr"]
    assert edges[f"{qr_box}->{ids[out0]}"] == "1"  # r is qr's result 1
    assert edges[f"{qr_box}->{ids[out1]}"] == "0"
    one = kt.graphviz(r, style="compact").pipe(format="svg", encoding="utf-8")
    assert "output 0" not in one and ">output<" in one  # one output: no number


def framed(source: str, cluster: str) -> list[str]:
    """The ids of the nodes a DOT source declares inside ``subgraph cluster``."""
    body = source.split(f"subgraph {cluster} {{", 1)[1].split("\n\t}", 1)[0]
    return [line.split()[0] for line in body.splitlines()[1:]
            if line.strip() and "->" not in line and "=" in line and "[" in line
            and not line.strip().startswith(("label=", "color=", "style="))]


def test_compact_scopes_frame_and_collapse():
    _, out = head_graph()
    picture = kt.graphviz(out)
    root = ET.fromstring(picture.pipe(format="svg", encoding="utf-8"))
    clusters = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]
    assert [g.find(f"{SVG}title").text for g in clusters] == ["cluster_head"]
    assert [t.text for t in clusters[0].iter(f"{SVG}text")] == ["head"]
    inside = framed(picture.source, "cluster_head")
    drawn = svg_nodes(picture)
    # the Applies of outputs named head/... and the Applies only they use are framed
    named = {text_of(drawn[k]) for k in inside if k.startswith("v")}
    assert named == {"head/qfloat32[n,d]", "head/scoresfloat32[n,n]",
                     "head/probsfloat32[n,n]"}
    boxes = [text_of(drawn[k]) for k in inside if k.startswith("a")]
    assert sorted(b.split("→")[0].split("axis")[0] for b in boxes) == \
        ["matmul", "matmul", "softmax", "transpose", "where"]
    folded = svg_nodes(kt.graphviz(out, collapse="head"))
    assert text_of(folded["c_head"]) == f"head{len(boxes)} Apply nodes"
    assert not any(text_of(v).startswith("head/") for v in folded.values())


def test_compact_depth_stops_and_says_what_is_cut():
    _, out = head_graph()
    drawn = svg_nodes(kt.graphviz(out, depth=1))
    assert [text_of(v) for k, v in drawn.items() if k.startswith("a")] == \
        [text_of(v) for k, v in svg_nodes(kt.graphviz(out)).items()
         if k.startswith("a") and text_of(v).startswith("sum")]
    (stub,) = [text_of(v) for k, v in drawn.items() if k.startswith("s")]
    hidden = len(kt.toposort([out.owner.inputs[0]]))
    assert stub.startswith(f"⋯ {hidden} Apply nodes")
    with pytest.raises(ValueError, match="depth"):
        kt.graphviz(out, depth=0)
    with pytest.raises(ValueError, match="style"):
        kt.graphviz(out, style="fancy")


def test_not_a_graph_is_a_type_error():
    with pytest.raises(TypeError, match="cannot print str"):
        kt.graphviz("x")
    with pytest.raises(TypeError, match="inside a list"):
        kt.graphviz([["x"]])
    with pytest.raises(TypeError, match="cannot print str"):
        kt.dprint("x")


def test_a_list_of_variables_is_drawn_and_printed():
    x, y, z = seed_graph()
    both = kt.graphviz([z, x * y], style="compact").source
    assert "<b>add</b>" in both and "<b>mul</b>" in both
    assert "add" in kt.dprint([z, x * y], file="str")


@pytest.mark.parametrize("style", ["seed", "compact"])
def test_parameters_are_drawn_as_python_writes_them(style):
    """An index's slices read ``1:6, ::2`` (they read ``('slice', 1, 6, None)``) and a
    size parameter ``2*?0`` (the seed picture said ``Dim<2*?0>``). Oracle: the drawn
    index, as a Python subscript, makes NumPy's array of the node's output shape."""
    np = pytest.importorskip("numpy")
    t = kt.tensor("t", "float32", shape=(7, 3))
    y = t[1:6, ::2]
    source = kt.graphviz(y, style=style).source
    (index,) = re.findall(r"index=\((.*?)\)[}<]", source)
    assert np.ones((7, 3))[eval(f"np.s_[{index}]")].shape == y.type.shape, index
    u = kt.tensor("u", "float32", shape=(None, 3))
    source = kt.graphviz(kt.zeros((u.shape[0] * 2, 3)), style=style).source
    assert "shape=(2*?0, 3)" in source and "Dim<" not in source, source

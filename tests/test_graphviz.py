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


def test_compact_boxes_hold_ops_types_and_given_parameters():
    out = _attention()
    labels = _labels(kt.graphviz(out, style="compact").source)
    from kantensor.graph.walk import toposort
    nodes = toposort([out])
    applies = [v for k, v in labels.items() if k.startswith("a")]
    assert [a.split("\n")[0] for a in applies] == [n.op.name for n in nodes]
    # parameters as passed: no defaults (keepdims=False), no internals (axes_of)
    text = "\n".join(applies)
    assert "axes_of" not in text and "keepdims=False" not in text
    assert "axis=1, keepdims=True" in text  # s.max(axis=-1, keepdims=True), resolved
    # every Variable's box ends with its type, as str() writes it
    variables = {id(v): v for n in nodes for v in (*n.inputs, *n.outputs)}
    shown = sorted(v.split("\n")[-1] for k, v in labels.items() if k.startswith("v"))
    assert shown == sorted(str(v.type) for v in variables.values())
    assert any(v.startswith("out\n") for v in labels.values())


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

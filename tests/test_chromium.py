"""Pictures and rich displays looked at in headless Chromium, as a user sees them.

A graph picture (Graphviz's SVG, embedded in a page as a notebook embeds it) and the
``_repr_html_`` of the main objects are loaded in Chromium (tests/chromium.py): its own
parser and renderer are the oracles. The DOM it built must hold the elements the display
wrote, no others (a ``<`` or ``&`` of a type, a name or a condition is text, not a tag),
and show each object's text as its ``str()`` says it; the screenshot must have the
window's size and show the picture where the DOM puts it, in the seed's colours.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import kantensor as kt
from chromium import look, page
from htmltree import Node, parse
from kantensor.graph.display import SYMBOLIC_COLOR
from kantensor.graph.picture import COLORS

#: The tags kantensor's displays and Graphviz's SVG write (a tag outside them in
#: Chromium's DOM is text that was read as markup).
HTML_TAGS = {"div", "b", "i", "code", "span", "pre", "br", "table", "caption", "thead",
             "tbody", "tr", "th", "td", "ul", "li"}
SVG_TAGS = {"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "a"}

#: CSS colour names Graphviz writes, as RGB.
RGB = {"red": (255, 0, 0), "blue": (0, 0, 255), "darkgreen": (0, 100, 0),
       "purple": (128, 0, 128), "white": (255, 255, 255)}


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    """One temporary directory for the module's pages, screenshots and profiles."""
    return tmp_path_factory.mktemp("chromium")


def by_id(root: Node, ident: str) -> Node:
    found = [n for n in walk(root) if n.attrs.get("id") == ident]
    assert len(found) == 1, (ident, len(found))
    return found[0]


def walk(root: Node):
    for c in root.children:
        if isinstance(c, Node):
            yield c
            yield from walk(c)


def tags(root: Node) -> list[str]:
    return [n.tag for n in walk(root)]


def near(pixels: np.ndarray, colour: tuple[int, int, int], tolerance: int = 60) -> np.ndarray:
    """Where ``pixels`` are within ``tolerance`` of ``colour`` in every channel."""
    return (np.abs(pixels.astype(int) - colour) <= tolerance).all(axis=-1)


def test_a_screenshot_is_read_as_chromium_drew_it(shots):
    """The PNG reader (tests/chromium.py) against a page of known rectangles."""
    boxes = {(30, 20, 100, 50): (255, 0, 0), (200, 90, 60, 80): (0, 128, 0),
             (50, 175, 250, 20): (18, 52, 200)}
    body = "".join(f'<div style="position:absolute;left:{x}px;top:{y}px;width:{w}px;'
                   f'height:{h}px;background:rgb{c}"></div>'
                   for (x, y, w, h), c in boxes.items())
    shown = look(page(body), shots, "boxes", (320, 200))
    assert shown.size == (320, 200)
    pixels = shown.pixels()
    assert pixels.shape == (200, 320, 3)
    painted = np.zeros((200, 320), bool)
    for (x, y, w, h), colour in boxes.items():
        assert (pixels[y:y + h, x:x + w] == colour).all(), colour
        painted[y:y + h, x:x + w] = True
    assert (pixels[~painted] == 255).all()


def svg_of(picture) -> str:
    """The SVG a notebook embeds (Graphviz's, from its ``<svg`` element)."""
    svg = picture.pipe(format="svg", encoding="utf-8")
    return svg[svg.find("<svg"):]


def test_graph_picture_in_a_page(shots):
    """The seed's picture of a graph whose names and sizes hold ``<``, ``&`` and
    ``min(64, seq)``: Chromium reads every label as text, each Variable, Apply, Op and
    Type box is drawn where the SVG says in the seed's colour, and the picture has the
    size the SVG gives."""
    seq, = kt.dims("seq")
    x = kt.tensor("<x>&y", "float32", (seq, 3))
    y = x[:64]
    y.name = "a<=b"
    svg = svg_of(kt.graphviz(y))
    width, height = (round(float(v) * 4 / 3) for v in  # pt to CSS px
                     re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    margin = 8  # the page's
    window = (width + 2 * margin + 40, height + 2 * margin + 40)
    shown = look(page(svg), shots, "graph", window)

    root = parse(shown.dom)
    (drawn,) = root.find_all("svg")
    assert set(tags(drawn)) <= SVG_TAGS
    nodes = [g for g in drawn.find_all("g") if g.attrs.get("class") == "node"]
    labels = {" ".join(t.text() for t in g.find_all("text")) for g in nodes}
    op = y.owner.op  # its name in the circle, its parameters beside it
    said = str(op)
    assert labels == {str(x), str(y), "Apply", f"{op.name} {said[len(op.name):]}",
                      str(x.type), str(y.type)}, labels
    assert "<x>&y" in labels and "float32[min(64,seq),3]" in labels

    assert shown.size == window
    pixels = shown.pixels()
    background = near(pixels, RGB["white"], 8)
    assert background[:, margin + width + 2:].all() and background[margin + height + 2:].all()
    (top, left), (bottom, right) = (ink := np.argwhere(~background)).min(0), ink.max(0)
    assert top >= margin and left >= margin  # the picture fills the SVG's box
    assert bottom >= margin + 0.9 * height and right >= margin + 0.9 * width
    # Every node's outline is in its seed colour where the SVG puts it: the midpoint of
    # a box's top edge, the top of an Op's circle.
    scale = width / float(drawn.attrs["viewbox"].split()[2])  # (the parser lowercases)
    (graph,) = [g for g in drawn.find_all("g") if g.attrs.get("class") == "graph"]
    dx, dy = map(float, re.search(r"translate\(([-\d.]+) ([-\d.]+)\)",
                                  graph.attrs["transform"]).groups())
    seen = {}
    for g in nodes:
        shape = (g.find_all("polygon") or g.find_all("ellipse"))[0]
        colour = shape.attrs["stroke"]
        if shape.tag == "polygon":
            xs, ys = zip(*(map(float, p.split(",")) for p in shape.attrs["points"].split()),
                         strict=True)
            top = (sum(set(xs)) / len(set(xs)), min(ys))
        else:
            top = (float(shape.attrs["cx"]), float(shape.attrs["cy"]) - float(shape.attrs["ry"]))
        col = round(margin + (top[0] + dx) * scale)
        row = round(margin + (top[1] + dy) * scale)
        patch = pixels[row - 2:row + 3, col - 2:col + 3]
        assert near(patch, RGB[colour], 90).any(), (g.text(), colour, patch.tolist())
        seen[colour] = seen.get(colour, 0) + 1
    assert seen == {COLORS["variable"]: 2, COLORS["apply"]: 1, COLORS["op"]: 1,
                    COLORS["type"]: 2}


def head(x, w):
    """NumPy code that branches on a size: its contract has ``>`` and ``<=``."""
    return x[:4] @ w if x.shape[0] > 4 else x


def displays() -> dict[str, tuple[object, str]]:
    """The objects a notebook shows, each with the HTML it displays."""
    batch, seq = kt.dims("batch seq")
    x = kt.tensor("<x>&y", "float32", (batch, seq, None))
    cut = x[:, :64]  # float32[batch,min(64,seq),?]
    z = kt.exp((cut * 2).sum(axis=-1) + 1)  # 4 Apply nodes: the compact picture
    z.name = "a<=b"
    try:
        kt.partition(kt.tensor("p", "float32", (2, 3)), kth=3)
    except kt.TypeInferenceError as exc:
        error = exc
    try:
        kt.Signature.parse("(n),(m)->(n) where n <= m & 1")
    except kt.SignatureSyntaxError as exc:
        syntax = exc
    v, w = kt.tensor("<v>", "float32", (None, None)), kt.tensor("W&", "float32", (3, 4))
    out = kt.tanh((v + 1.0) @ w)
    shown = {"type": cut.type, "input": x, "variable": z, "op": kt.lt, "family": kt.sum,
             "contract": kt.eval_shape(head, "float32[N,D]", "float32[K,2]").contract,
             "result": kt.eval_shape(lambda a: np.tanh(a[:64]), "float32[batch,seq]"),
             "error": error, "syntax": syntax, "dim": 2 * seq + 1,
             "signature": kt.Signature.parse("(n),(m)->(n) where n <= m | (n),(m)->(m)"),
             "function": kt.function([v, w], out), "refine": kt.refine(out, {v: "float32[5,?]"})}
    return {k: (v, v._repr_html_()) for k, v in shown.items()}


def codes(section: Node) -> list[str]:
    return [c.text() for c in section.find_all("code")]


def test_rich_displays_in_a_page(shots):
    """Each display as Chromium reads it: the elements it wrote and no others (every
    ``<`` and ``&`` of its text escaped), each text as the object's ``str`` says it."""
    shown = displays()
    body = "".join(f'<section id="{k}">{html}</section><hr>' for k, (_, html) in shown.items())
    window = (1000, 2400)
    seen = look(page(body), shots, "displays", window)
    root = parse(seen.dom)
    sections = {k: by_id(root, k) for k in shown}
    for k, (obj, html) in shown.items():
        written = parse(html)
        assert tags(sections[k]) == tags(written), k  # no tag added, dropped or moved
        assert set(tags(sections[k])) <= HTML_TAGS | SVG_TAGS, k
        kind = {"op": "Op", "family": "Op with parameters", "refine": "refine"}
        assert sections[k].find_all("b")[0].text() == kind.get(k, type(obj).__name__), k

    t = shown["type"][0]
    assert codes(sections["type"])[0] == str(t) == "float32[batch,min(64,seq),?]"
    highlighted = [s.text() for s in sections["type"].find_all("span")
                   if "kantensor-symbolic" in s.attrs.get("class", "")]
    assert highlighted == ["batch", "min(64,seq)", "batch", "min(64,seq)"]  # type, facts

    x = shown["input"][0]
    assert codes(sections["input"])[0] == str(x) == "<x>&y"
    assert codes(sections["input"])[1] == str(x.type)
    z = shown["variable"][0]
    assert codes(sections["variable"])[0] == str(z) == "a<=b"
    (svg,) = sections["variable"].find_all("svg")
    labels = {t.text() for t in svg.find_all("text")}
    assert {"<x>&y", "a<=b", "getitem", "mul", "sum", "add", "exp"} <= labels, labels
    assert "min(64,seq)" in labels  # the compact picture's highlighted size, as in str(t)

    for k in ("op", "family"):
        op = shown[k][0]
        text = sections[k].text()
        assert codes(sections[k])[0] == op.facts().call or op.facts().name
        assert op.facts().doc in text and " ".join(op.facts().signature.split()) in \
            " ".join(text.split())
    assert "Elementwise a < b." in sections["op"].text()

    contract = shown["contract"][0]
    said = str(contract).splitlines()
    conditions = said[said.index("valid where:") + 1:
                      next(i for i, s in enumerate(said) if s.startswith("solved:"))]
    (rows, boxes, sets) = (tab.rows()[1:] for tab in sections["contract"].find_all("table"))
    assert [" ".join(" ".join(r).split()) for r in rows] == \
        [" ".join(line.split()) for line in conditions]
    assert "(N > 4 and D == K) or N <= 4" in {r[0] for r in rows}
    assert [r[0] for r in boxes] == [str(c).strip() for c in said[
        len(conditions) + said.index("valid where:") + 2:][:len(boxes)]]

    result = shown["result"][0]
    assert codes(sections["result"])[0] == str(result.type) == "float32[min(64,batch),seq]"
    types = [r[3] for r in sections["result"].find_all("table")[0].rows()[1:]]
    assert types == [str(v.type) for v in (*result.inputs, *result.outputs)]

    for k in ("error", "syntax"):
        (message,) = sections[k].find_all("pre")
        assert message.text() == str(shown[k][0]), k
    assert "4 <= 3 is false" in str(shown["error"][0])
    assert "n <= m & 1" in str(shown["syntax"][0])
    assert codes(sections["dim"]) == [str(shown["dim"][0])]
    sig = shown["signature"][0]
    assert codes(sections["signature"])[0] == str(sig)
    assert [r[4] for r in sections["signature"].find_all("table")[0].rows()[1:]] == \
        ["n <= m", "–"]
    f = shown["function"][0]
    assert [r[2:] for r in sections["function"].find_all("table")[0].rows()[1:]] == \
        [[str(v), str(v.type)] for v in (*f.fgraph.inputs, *f.fgraph.outputs)]
    assert {"<v>", "W&"} <= {r[0] for r in sections["refine"].find_all("table")[0].rows()}

    assert seen.size == window
    pixels = seen.pixels()
    colour = tuple(int(SYMBOLIC_COLOR[i:i + 2], 16) for i in (1, 3, 5))
    assert near(pixels, colour, 40).sum() > 200  # the highlighted sizes, in their colour
    assert (~near(pixels, RGB["white"], 8)).mean() > 0.01

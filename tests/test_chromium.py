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

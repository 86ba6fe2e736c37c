"""Redraw the compact pictures of docs/interactive.rst and screenshot them in Chromium.

Run ``.venv/bin/python docs/make_pictures.py`` (needs Graphviz's ``dot`` and a
``chromium`` on the PATH): it writes the HTML pages showing them to a temporary
directory and their screenshots to ``docs/_static/compact_*.png``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import kantensor as kt

STATIC = Path(__file__).parent / "_static"


def small() -> kt.TensorVariable:
    """Five nodes: two inputs, add, mul, sum."""
    n, = kt.dims("n")
    x = kt.tensor("x", "float64", shape=(n, 3))
    y = kt.tensor("y", "float64", shape=(n, 3))
    return ((x + y) * 2).sum(axis=-1)


def attention() -> kt.TensorVariable:
    """An attention block: projections, heads, masked softmax, a residual and a norm."""
    b, s, d = kt.dims("b s d")
    x = kt.tensor("x", "float32", shape=(b, s, d))
    mask = kt.tensor("mask", "bool", shape=(s, s))
    w = {k: kt.tensor(f"w{k}", "float32", shape=(d, d)) for k in "qkvo"}

    def heads(k: str) -> kt.TensorVariable:
        t = kt.transpose(kt.matmul(x, w[k]).reshape((b, s, 4, -1)), axes=(0, 2, 1, 3))
        t.name = f"attn/{k}"
        return t

    q, k, v = heads("q"), heads("k"), heads("v")
    scores = kt.where(mask, kt.matmul(q, kt.swapaxes(k, -1, -2)) / 8.0, -1e9)
    scores.name = "attn/scores"
    weights = kt.softmax(scores, axis=-1)
    weights.name = "attn/weights"
    ctx = kt.transpose(kt.matmul(weights, v), axes=(0, 2, 1, 3)).reshape((b, s, -1))
    ctx.name = "attn/context"
    out = kt.matmul(ctx, w["o"]) + x
    out = out / kt.sqrt(kt.mean(out * out, axis=-1, keepdims=True) + 1e-6)
    out.name = "out"
    return out


def svg(picture: kt.graph.picture.GraphPicture) -> str:
    text = picture.pipe(format="svg", encoding="utf-8")
    return text[text.find("<svg"):]


def page(*columns: list[tuple[str, str]]) -> str:
    """An HTML page of pictures under their calls, in columns side by side."""
    cells = "".join("<div>" + "".join(f"<h3><code>{title}</code></h3>{body}"
                                      for title, body in column) + "</div>"
                    for column in columns)
    return ('<html><body style="font-family:sans-serif">'
            f'<div style="display:flex;gap:24px;align-items:flex-start">{cells}</div>'
            "</body></html>")


def main() -> None:
    z, out = small(), attention()
    pages = {
        "compact_small": (page([('kt.graphviz(z, style="compact")',
                                  svg(kt.graphviz(z, style="compact")))]), (420, 440)),
        "compact_attention": (page([
            ("kt.graphviz(out)", svg(kt.graphviz(out)))], [
            ('kt.graphviz(out, collapse="attn")', svg(kt.graphviz(out, collapse="attn"))),
            ("kt.graphviz(out, depth=4)", svg(kt.graphviz(out, depth=4)))]), (2000, 1960)),
    }
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("make_pictures.py needs chromium on the PATH")
    for name, (html, (width, height)) in pages.items():
        with tempfile.TemporaryDirectory() as profile:
            path = Path(profile) / f"{name}.html"
            path.write_text(html)
            subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--no-first-run", "--hide-scrollbars",
                            f"--user-data-dir={profile}",
                            f"--screenshot={STATIC / f'{name}.png'}",
                            f"--window-size={width},{height}", path.resolve().as_uri()],
                           check=True, capture_output=True, timeout=120)


if __name__ == "__main__":
    main()

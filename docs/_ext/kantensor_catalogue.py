"""Sphinx directive ``.. kantensor-catalogue::``: the built-in Ops, rendered from the
shipped ``signatures/*.toml`` files, so the reference cannot drift from the catalogue.

:func:`render` is plain Python (tests/test_docs.py checks it without Sphinx).
"""

from __future__ import annotations

import re

from kantensor.ops.catalogue import Entry, catalogue_files, load_file

OPERATOR_SYMBOLS = {
    "add": "a + b", "sub": "a - b", "mul": "a * b", "true_divide": "a / b",
    "floor_divide": "a // b", "mod": "a % b", "pow": "a ** b", "matmul": "a @ b",
    "lt": "a < b", "le": "a <= b", "gt": "a > b", "ge": "a >= b", "neg": "-a",
    "abs": "abs(a)", "getitem": "a[index]", "transpose": "a.T", "and": "a & b",
    "or": "a | b", "xor": "a ^ b", "invert": "~a", "pos": "+a", "real": "a.real",
    "imag": "a.imag", "matrix_transpose": "a.mT",
}


def _text(prose: str) -> str:
    """Plain text safe in reStructuredText (``|x|`` is not a substitution)."""
    return re.sub(r"([\\*|`]|_\b)", r"\\\1", prose)


def _example(entry: Entry, example: dict) -> str:
    example = dict(example)
    args = [str(a) for a in example.pop("in")]
    result = example.pop("out", None)
    error = example.pop("error", None)
    args += [f"{k}={v!r}" for k, v in example.items()]
    call = f"{entry.name}({', '.join(args)})"
    if result is None:
        return f"``{call}`` raises: *{_text(error)}*"
    return f"``{call}`` → ``{result if isinstance(result, str) else ', '.join(result)}``"


def render_entry(entry: Entry) -> list[str]:
    signature = " ".join(str(entry.signature).split())
    lines = [f"``{entry.name}({entry.spec.text})``", f"    {_text(entry.doc or '')}", "",
             f"    Signature{' template' if entry.is_template else ''}: ``{signature}``"]
    also = []
    if entry.operator:
        also.append(f"``{OPERATOR_SYMBOLS.get(entry.operator, entry.operator)}``")
    also += [f"``x.{method}(...)``" for method in entry.method]
    also += [f"``{fn.__module__}.{fn.__name__}``" for fn in entry.numpy]
    if also:
        lines += ["", f"    Also: {', '.join(also)}."]
    if entry.examples:
        lines += ["", "    Examples:", ""]
        lines += [f"    * {_example(entry, e)}" for e in entry.examples]
    return [*lines, ""]


def render() -> list[str]:
    """The reStructuredText of every shipped catalogue file, one section each."""
    lines: list[str] = []
    for name, text in catalogue_files():
        title = f"{name.removesuffix('.toml').capitalize()} (``{name}``)"
        lines += [title, "-" * len(title), ""]
        for entry in load_file(name, text):
            lines += render_entry(entry)
    return lines


def setup(app):  # pragma: no cover - needs Sphinx
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class CatalogueDirective(SphinxDirective):
        def run(self) -> list:
            container = nodes.section()
            nested_parse_with_titles(self.state, StringList(render(), "catalogue"),
                                     container)
            return container.children

    app.add_directive("kantensor-catalogue", CatalogueDirective)
    return {"parallel_read_safe": True}

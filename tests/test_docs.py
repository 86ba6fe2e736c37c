"""Run the examples of the documentation, and check every page is in the table of contents.

Each ``docs/*.rst`` page is run with the standard library's ``doctest.testfile`` (one test per
page, all examples of a page sharing one namespace), so the documentation is checked by
``make test`` without needing Sphinx.
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

import kantensor as kt

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.rst"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_there_are_pages():
    assert (DOCS / "index.rst") in PAGES
    assert len(PAGES) > 1


@pytest.fixture
def default_float32():
    """The pages assume the default float dtype float32, and must leave it so."""
    old = kt.get_default_dtype()
    kt.set_default_dtype("float32")
    yield
    changed = kt.get_default_dtype()
    kt.set_default_dtype(old)
    assert changed == "float32", f"the page left the default float dtype at {changed}"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_examples(page: Path, default_float32, capsys):
    failures, attempted = doctest.testfile(
        str(page), module_relative=False, optionflags=FLAGS, encoding="utf-8",
        name=page.name,
    )
    report = capsys.readouterr().out
    assert failures == 0, f"{failures} of {attempted} examples failed in {page.name}:\n{report}"


_TOCTREE = re.compile(r"^\.\. toctree::[^\n]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)", re.M)


def toctree_entries(text: str) -> list[str]:
    """The document names listed by the ``toctree`` directives of an rst text."""
    entries = []
    for block in _TOCTREE.findall(text):
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            match = re.fullmatch(r".*<(.+)>", line)  # "Title <name>"
            entries.append((match.group(1) if match else line).strip())
    return entries


def test_every_page_is_in_the_toctree():
    reachable, todo = {"index"}, ["index"]
    while todo:
        text = (DOCS / f"{todo.pop()}.rst").read_text(encoding="utf-8")
        for name in toctree_entries(text):
            name = name.removesuffix(".rst")
            assert (DOCS / f"{name}.rst").exists(), f"the toctree lists a missing page {name}"
            if name not in reachable:
                reachable.add(name)
                todo.append(name)
    missing = {p.stem for p in PAGES} - reachable
    assert not missing, f"pages not reachable from index.rst's toctree: {sorted(missing)}"


def test_catalogue_reference_lists_every_op():
    """docs/_ext renders the reference from the shipped TOML files."""
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from kantensor_catalogue import render
    finally:
        sys.path.pop(0)
    text = "\n".join(render())
    for name in kt.ops.CATALOGUE:
        assert f"``{name}(" in text, name
    assert "``sum(float32[2,3,4], axis=1)`` → ``float32[2,4]``" in text
    assert "Also: ``a @ b``, ``numpy.matmul``, ``numpy.linalg.matmul``." in text


def test_the_readme_counts_the_ops_as_the_catalogue_does():
    """README.md's "About N Ops" is the catalogue's size to within 5% (it said 140 where
    there were 176)."""
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    said = int(re.search(r"About (\d+) Ops", text).group(1))
    assert abs(said - len(kt.ops.CATALOGUE)) <= 0.05 * len(kt.ops.CATALOGUE), \
        (said, len(kt.ops.CATALOGUE))


def _modules_with_examples() -> list[str]:
    """The modules of the package whose docstrings hold examples (``>>>``)."""
    src = Path(kt.__file__).resolve().parent
    return sorted("kantensor." + ".".join(p.relative_to(src).with_suffix("").parts)
                  .removesuffix(".__init__")
                  for p in src.rglob("*.py") if ">>>" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples(name: str, default_float32):
    """The examples in src/ docstrings run too, so they cannot go stale."""
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, report=True)
    assert result.attempted > 0 and result.failed == 0, f"{result} in {name}"

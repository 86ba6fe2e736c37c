"""The documentation builds with Sphinx, warnings as errors (what ``make docs`` runs): a
malformed table or title breaks the HTML pages while their examples still pass
(tests/test_docs.py runs those with doctest alone). ``make test`` installs the ``docs``
extra for it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_docs_build_without_warnings(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-d",
         str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    assert (tmp_path / "html" / "index.html").is_file()
    # The attention picture, 2000 pixels wide, shows at a third of its size on the page:
    # it links to itself at full size (its text is unreadable otherwise).
    page = (tmp_path / "html" / "interactive.html").read_text(encoding="utf-8")
    assert re.search(r'<a [^>]*href="_static/compact_attention\.png"[^>]*>\s*<img [^>]*'
                     r'src="_images/compact_attention\.png"', page)

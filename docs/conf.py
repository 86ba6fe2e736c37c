"""Sphinx configuration for the kantensor documentation.

Build with ``sphinx-build -W -b html docs docs/_build/html``.  Every ``>>>`` example in the
``.rst`` pages is also run by ``tests/test_docs.py`` (standard-library ``doctest``), so the
test suite checks the documentation without needing Sphinx.
"""

import doctest
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "kantensor"
author = "the kantensor developers"
copyright = "2025, the kantensor developers"
release = version = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "kantensor_catalogue",
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# The examples are plain ``>>>`` blocks: the standard-library doctest runs them with
# ELLIPSIS and NORMALIZE_WHITESPACE (tests/test_docs.py).  ``sphinx-build -b doctest`` runs
# them with the same flags, plus the docstring examples that autodoc pulls into api.rst.
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
trim_doctest_flags = True

autodoc_member_order = "bysource"
autodoc_typehints = "none"

html_theme = "alabaster"
html_title = "kantensor"

"""Sphinx configuration for the sphinx-relocate documentation.

The docs are the extension's first user: ``relocations.toml`` records a page that moved
(``quickstart`` became ``getting-started``), and pages still link to the old name.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

from sphinx_relocate import __version__  # noqa: E402

project = "sphinx-relocate"
author = "sphinx-relocate developers"
copyright = "2026, sphinx-relocate developers"  # noqa: A001
version = release = __version__

extensions = ["myst_parser", "sphinx_relocate", "relocate_docs"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = "sphinx-relocate"

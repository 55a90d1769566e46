"""Dangling links on every line of multi-line blocks: each warning names the link's line."""

extensions = ["myst_parser", "sphinx_relocate"]
exclude_patterns = ["_build", "fragment.md"]
show_warning_types = True  # Sphinx 7.4 does not add "[relocate.x]" by default

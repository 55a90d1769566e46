extensions = ["myst_parser", "sphinx_relocate"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

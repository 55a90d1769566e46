extensions = ["myst_parser", "sphinx_relocate"]
exclude_patterns = ["_build"]

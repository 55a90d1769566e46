extensions = ["myst_parser", "sphinx_relocate"]
html_static_path = ["_static"]
html_extra_path = ["_extra"]
exclude_patterns = ["_build"]
show_warning_types = True

extensions = ["myst_parser", "sphinx_relocate"]
myst_heading_anchors = 2
show_warning_types = True  # Sphinx 7.4 does not add "[relocate.x]" by default

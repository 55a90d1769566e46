extensions = ["myst_parser", "sphinx_relocate"]
numfig = True
show_warning_types = True  # Sphinx 7.4 does not add "[relocate.x]" by default

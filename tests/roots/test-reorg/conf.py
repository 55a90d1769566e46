extensions = ["myst_parser", "sphinx_relocate"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
exclude_patterns = ["_build"]
show_warning_types = True  # Sphinx 7.4 does not add "[relocate.x]" by default
# The redirect writer warns that a case-only rename gets no stub (a separate concern).
suppress_warnings = ["relocate.case_rename"]

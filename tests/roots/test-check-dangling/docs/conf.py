extensions = ["myst_parser", "sphinx_relocate"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
exclude_patterns = ["_build"]
# the repository is the folder above docs/ (the test copies it without a .git folder)
relocate_repo_root = ".."
relocate_repo_url = "https://forge.example/org/repo/blob/main/"
# Sphinx 7.4 shows "[type.subtype]" only when asked (8.0 and newer always do)
show_warning_types = True

project = "rows"
extensions = ["myst_parser", "sphinx_relocate"]
myst_heading_anchors = 3
exclude_patterns = ["_build", "_snippets"]
relocate_repo_root = "../.."
relocate_repo_url = "https://forge.example/org/repo/blob/master/"
show_warning_types = True

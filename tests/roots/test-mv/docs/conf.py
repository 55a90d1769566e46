project = "mv"
extensions = ["myst_parser", "sphinx_relocate"]
relocate_table = "relocations.toml"
locale_dirs = ["locales"]
gettext_compact = False
exclude_patterns = ["_build"]
relocate_repo_root = ".."
myst_heading_anchors = 2

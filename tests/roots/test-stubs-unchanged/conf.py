project = "stubs-unchanged"
extensions = ["sphinx_relocate"]
html_theme = "basic"
exclude_patterns = ["_build"]

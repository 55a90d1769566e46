# The release before the reorganization of test-inventory, built with plain Sphinx.
project = "demo"
extensions = ["myst_parser"]
exclude_patterns = ["_build"]
html_theme = "basic"

# Version 1 of a versioned site, in its original layout (tests/test_exports_servers.py).
project = "versions"
extensions = ["myst_parser"]
exclude_patterns = ["_build"]
html_theme = "basic"

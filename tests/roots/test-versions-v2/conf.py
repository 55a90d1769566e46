# Version 2 of a versioned site, served under /v2/, after the move
# (tests/test_exports_servers.py): its reverse exports serve version 1's old names.
project = "versions"
extensions = ["myst_parser", "sphinx_relocate"]
exclude_patterns = ["_build"]
html_theme = "basic"
html_baseurl = "https://docs.example/v2/"
relocate_redirect_exports = ["nginx", "apache", "nginx-reverse", "apache-reverse",
                             "readthedocs-reverse"]

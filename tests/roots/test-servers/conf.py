project = "servers"
extensions = ["myst_parser", "sphinx_relocate"]
exclude_patterns = ["_build"]
html_theme = "basic"
relocate_redirect_exports = ["nginx", "apache"]

project = "stubs"
extensions = ["sphinx_relocate"]
html_theme = "basic"
templates_path = ["_templates"]
exclude_patterns = ["_build"]
smartquotes = False

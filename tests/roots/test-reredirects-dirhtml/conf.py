# sphinx-reredirects' dirhtml test project, switched: the extension line changed
extensions = ["sphinx_relocate"]
exclude_patterns = ["_build"]
html_theme = "basic"

redirects = {
    "index.html": "http://new.com/index",
    "install": "/installing/",
    "setup.html": "installing/",
    "guide/start": "../installing/#step-one",
}

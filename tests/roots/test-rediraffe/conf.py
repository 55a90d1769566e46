# sphinxext-rediraffe's test projects in one, switched: the extension line changed
extensions = ["sphinx_relocate"]
master_doc = "index"
exclude_patterns = ["_build"]
html_theme = "basic"

rediraffe_redirects = "redirects.txt"

project = "External ToC"
extensions = ["myst_parser", "sphinx_external_toc", "sphinx_relocate"]
exclude_patterns = ["_build"]
# files the site map does not name are left out: the moved pages, until it names them
external_toc_exclude_missing = True

# Another project that links to test-inventory through intersphinx, by old names only;
# the tests set intersphinx_mapping to the objects.inv they built.
project = "consumer"
extensions = ["myst_parser", "sphinx.ext.intersphinx"]
exclude_patterns = ["_build"]
html_theme = "basic"

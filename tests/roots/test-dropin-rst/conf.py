"""A healthy reST project with no relocation table and a generated page.

The test builds it as it is and with "sphinx_relocate" added to ``extensions``.
"""

import os

extensions: list[str] = ["sphinx.ext.intersphinx"]
# a local inventory: no network
intersphinx_mapping = {
    "other": ("https://other.example/", os.path.join(os.path.dirname(__file__), "objects.inv"))
}
html_baseurl = "https://example.org/"
templates_path = ["_templates"]
html_additional_pages = {"contents": "contents.html"}
html_extra_path = ["_extra"]
exclude_patterns = ["_build", "_extra"]

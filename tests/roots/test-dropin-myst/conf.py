"""A healthy MyST project with no relocation table, whose labels contain '/'.

The test builds it as it is and with "sphinx_relocate" added to ``extensions``.
"""

import os

extensions = ["myst_parser", "sphinx.ext.intersphinx"]
# a local inventory: no network
intersphinx_mapping = {
    "other": ("https://other.example/", os.path.join(os.path.dirname(__file__), "objects.inv"))
}
exclude_patterns = ["_build"]

"""A healthy reST project with no relocation table and a generated page.

The test builds it as it is and with "sphinx_relocate" added to ``extensions``.
"""

extensions: list[str] = []
templates_path = ["_templates"]
html_additional_pages = {"contents": "contents.html"}
html_extra_path = ["_extra"]
exclude_patterns = ["_build", "_extra"]

"""A healthy reST project with no relocation table and a generated page.

The test builds it as it is and with "sphinx_relocate" added to ``extensions``.
"""

import os

extensions: list[str] = ["sphinx.ext.intersphinx"]
# a local inventory: no network
intersphinx_mapping = {
    "other": ("https://other.example/", os.path.join(os.path.dirname(__file__), "objects.inv"))
}
# an unprefixed :doc: may name another project's page, as before Sphinx 5 (xarray's docs)
intersphinx_disabled_reftypes: list[str] = []
html_baseurl = "https://example.org/"
templates_path = ["_templates"]
html_additional_pages = {"contents": "contents.html"}
html_extra_path = ["_extra"]
exclude_patterns = ["_build", "_extra"]


def setup(app):  # type: ignore[no-untyped-def]
    """A directive that links a page by its URL with an inline as the link's text, as
    sphinx-design's cards write ``:link: page.html`` (Read the Docs' docs)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class LinkedCard(Directive):
        required_arguments = 1

        def run(self):  # type: ignore[no-untyped-def]
            url = self.arguments[0]
            link = nodes.reference("", "", nodes.inline(url, url), refuri=url,
                                   classes=["sd-stretched-link"])
            return [nodes.paragraph("", "", link)]

    app.add_directive("linked-card", LinkedCard)

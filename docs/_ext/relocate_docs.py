"""Docs-only helper: render the configuration reference from ``CONFIG_VALUES``.

So the page cannot drift from the code: a new option appears here by itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from sphinx_relocate.core.settings import CONFIG_VALUES, ConfigValue


def _type_name(types: tuple[type, ...]) -> str:
    return " | ".join("None" if t is type(None) else t.__name__ for t in types)


def confval_lines(values: Iterable[ConfigValue]) -> list[str]:
    """One MyST ``confval`` entry per value: its name, type, default and help."""
    lines: list[str] = []
    for value in values:
        lines += [
            f"```{{confval}} {value.name}",
            f":type: {value.accepts} (``{_type_name(value.types)}``)",
            f":default: ``{value.default!r}``",
            "",
            value.help,
        ]
        if value.rebuild:
            lines += ["", f"Changing it re-reads every document (rebuild `{value.rebuild}`)."]
        lines += ["```", ""]
    return lines


class ConfigTable(SphinxDirective):
    """``{relocate-config}`` in a MyST page: one ``confval`` entry per option."""

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        source = self.get_source_info()[0]
        lines = StringList(confval_lines(CONFIG_VALUES), source=source)
        self.state.nested_parse(lines, self.content_offset, container)
        return container.children


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("relocate-config", ConfigTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The least an extension like sphinx-relocate must do in a build: the yardstick of issue 27.

At ``doctree-read`` it walks each doctree once and does one dict lookup per
reference-like node (``reference``, ``pending_xref``, ``image``,
``download_reference``, and each entry of a ``toctree``), in a dict of the project's
document names.  It changes nothing.  ``build_once.py`` connects it to every build it
runs and times it the way it times sphinx-relocate's own code (``OwnTime``), so that
the ratio of the two is measured in the same process, on the same doctrees.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes

#: reference-like node -> the attribute that names its target
TARGETS: dict[type[nodes.Node], str] = {
    nodes.reference: "refuri",
    addnodes.pending_xref: "reftarget",
    nodes.image: "uri",
    addnodes.download_reference: "reftarget",
}


class NullExtension:
    """One walk and one lookup per reference; counts the lookups."""

    def __init__(self) -> None:
        self.lookups = 0
        self._names: dict[str, bool] | None = None

    def on_doctree_read(self, app: Any, doctree: nodes.document) -> None:
        if self._names is None:  # once per process, as an extension loads its table once
            self._names = dict.fromkeys(app.env.found_docs, True)
        names = self._names
        lookups = 0
        stack: list[nodes.Node] = [doctree]
        while stack:
            node = stack.pop()
            if isinstance(node, nodes.Element):
                kind = type(node)
                if kind is addnodes.toctree:
                    for _title, ref in node["entries"]:
                        names.get(ref)
                        lookups += 1
                else:
                    attribute = TARGETS.get(kind)
                    if attribute is not None:
                        names.get(node.get(attribute, ""))
                        lookups += 1
                stack.extend(node.children)
        self.lookups += lookups

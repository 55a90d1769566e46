"""Small adapters over Sphinx: APIs that moved between Sphinx 7.4 and 9, the settings
every module reads the same way, and one fast walk of a doctree."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, TypeVar, cast

from docutils import nodes

from sphinx_relocate.sphinx_ext.state import state_of

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

N = TypeVar("N", bound=nodes.Node)


def current_docname(env: BuildEnvironment) -> str:
    """The document being read (``env.docname`` is deprecated in newer Sphinx)."""
    current = getattr(env, "current_document", None)
    if current is not None and getattr(current, "docname", None):
        return cast(str, current.docname)
    return str(env.docname)


def app_of(env: BuildEnvironment) -> Sphinx:
    """The application of an environment (``env.app`` is deprecated in Sphinx 9)."""
    return cast("Sphinx", getattr(env, "_app", None) or env.app)


def source_suffixes(app: Sphinx) -> tuple[str, ...]:
    """The source suffixes, as the build's settings read them once at ``config-inited``."""
    return state_of(app).settings.source_suffixes


def elements(root: nodes.Element) -> Iterator[nodes.Element]:
    """Every element under ``root`` (itself included), in document order.

    An explicit stack rather than ``findall``, which nests one generator per tree level
    and checks its condition through a call per node.
    """
    stack: list[nodes.Node] = [root]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        if isinstance(node, nodes.Element):
            yield node
            push(reversed(node.children))


def nodes_of_class(root: nodes.Node, cls: type[N]) -> list[N]:
    """The nodes of the class ``cls`` under ``root``, in document order: one
    walk that, unlike :func:`elements`, makes no generator step and no call per node
    (it visits every node of a page for a few)."""
    found: list[N] = []
    stack: list[nodes.Node] = [root]
    pop, push, text = stack.pop, stack.extend, nodes.Text
    while stack:
        node = pop()
        if node.__class__ is text:
            continue
        if isinstance(node, cls):
            found.append(node)
        children = getattr(node, "children", None)
        if children:
            push(children[::-1])
    return found


def label_xref(node: nodes.Element) -> str:
    """How a cross-reference may name a label: ``"label"`` for ``:ref:`` and ``:numref:``
    (only a label), ``"any"`` for ``:any:`` and a MyST link that names no file (also a
    document, an object or an anchor of its page), ``""`` for other references."""
    attributes = node.attributes  # not node.get: asked of every cross-reference
    reftype, domain = attributes.get("reftype"), attributes.get("refdomain")
    if domain == "std" and reftype in ("ref", "numref"):
        return "label"
    if reftype == "any" or (reftype == "myst" and domain is None):
        return "any"
    return ""


def points_elsewhere(node: nodes.Node) -> bool:
    """Whether ``node`` is a hyperlink target that names another place (``.. _name:
    https://…``, `` `text <https://…>`_ ``, an alias): HTML writers write nothing for it,
    so its ids, which docutils keeps, are no anchors of the page."""
    return isinstance(node, nodes.target) and (
        "refuri" in node or "refid" in node or "refname" in node
    )


def line_of(node: nodes.Node) -> int:
    line = node.line
    if line is None and isinstance(node, nodes.Element) and node.children:
        line = node.children[0].line  # the link docutils puts around an image (:target:)
    if line is None:
        parent = node.parent
        while parent is not None and line is None:
            line = parent.line
            parent = parent.parent
    return line or 0

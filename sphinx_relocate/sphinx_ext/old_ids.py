"""Old ids carried on their new sections, so ``page.html#old-id`` still scrolls there.

A stub maps the old fragments of a page that moved; a page that did not move has no
stub, and a reader who follows ``faq.html#install-problems`` after the heading was
renamed would land at the top of the page.  So every ``[anchors]`` entry and every
``[labels]`` entry whose new section is a section of this project puts its old id on
that section too, as an extra id of the section node (HTML writers emit it as an
empty ``<span id="old-id">`` at the section's start, which the browser scrolls to
without JavaScript, in every HTML builder: html, dirhtml, singlehtml, epub).

* :func:`carried_ids` (no Sphinx) says, from the table, the documents and the labels,
  which old ids land on which section of which document: the landing rule of the
  table (``RelocationTable.locate_reference``, ``locate_label``), as the stubs use it.
* At ``env-updated`` (every build, once every document is read) the map is made and
  kept in the environment; documents whose carried ids changed since the last build
  are written again, though nothing of their own changed.  An old id that another
  element of the page (or its raw HTML) still uses, or that two entries put on two
  sections, is a ``relocate.anchor`` warning on every build, never a second element
  with that id: it is left out of the map.
* At ``doctree-resolved`` (each page as it is written, also in ``-j`` writers) the ids
  are added to the page's sections (under singlehtml, also checked against the other
  documents of the one page).

An old id that went to *another* page while its page stays (``"guide#tuning" =
"guide/advanced#tuning"``, or an object a release listed there and that now lives
elsewhere) has no stub to map it: :func:`departed_ids` lists them at ``env-updated``
(pages whose list changed are written again), and at ``html-page-context`` a small
script in the page's ``<head>`` sends such a fragment on (html and dirhtml).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from docutils import nodes

from sphinx_relocate.core.html import element_ids
from sphinx_relocate.core.ids import make_id
from sphinx_relocate.core.paths import decode
from sphinx_relocate.core.stubs import departed_script
from sphinx_relocate.core.table import RelocationTable, Target
from sphinx_relocate.sphinx_ext.adapters import elements, line_of, points_elsewhere
from sphinx_relocate.sphinx_ext.queries import label_places, table_of
from sphinx_relocate.sphinx_ext.record import EnvValue, anchors_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.stubs import html_output
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: what an id written into HTML may not hold: docutils writes extra ids unescaped
_UNSAFE_ID = re.compile(r"""[\s"'<>&]""")


class Carried(NamedTuple):
    """One old id that a section of a document carries."""

    #: the id (or MyST slug, or name) of the section that carries it
    anchor: str
    #: the old id, as a browser matches it (percent-decoded)
    old_id: str
    #: the table entry it comes from: ``"anchors"`` or ``"labels"`` and its key
    section: str
    key: str


class Clash(NamedTuple):
    """Two entries that would put one old id on two sections of one document."""

    docname: str
    kept: Carried
    dropped: Carried


def carried_ids(
    table: RelocationTable,
    is_document: Callable[[str], bool],
    labels: Mapping[str, tuple[str, str]],
) -> tuple[dict[str, tuple[Carried, ...]], list[Clash]]:
    """docname → the old ids its sections carry, from ``[anchors]`` and ``[labels]``;
    and the entries left out because an earlier one puts the same old id elsewhere on
    the page (pages merged into one that each had ``#installation``).

    An ``[anchors]`` key ``page#old-id`` lands where the table sends it (chains and
    moved pages followed); a ``[labels]`` key's old id is the one docutils gave the
    label (``Install_Label`` → ``install-label``) and lands on the section of the label
    it was renamed to (``labels``: every label → its page and anchor).  An old id that
    names the section's own anchor, holds characters an id cannot, or lands off the
    project (a URL, a missing page, no anchor) is not carried.
    """
    found: dict[str, dict[str, Carried]] = {}
    clashes: list[Clash] = []

    def carry(docname: str, anchor: str, old_id: str, section: str, key: str) -> None:
        if not old_id or old_id == anchor or _UNSAFE_ID.search(old_id):
            return
        item = Carried(anchor, old_id, section, key)
        kept = found.setdefault(docname, {}).setdefault(old_id, item)
        if kept.anchor != anchor:
            clashes.append(Clash(docname, kept, item))

    for page, fragment in table.anchors:
        target = table.locate_reference(page, fragment, is_document)
        if target is None or target.url or not target.anchor or not is_document(target.path):
            continue
        carry(target.path, decode(target.anchor), decode(fragment), "anchors",
              f"{page}#{fragment}")
    for old in table.labels:
        new = table.locate_label(old, labels.__contains__)
        place = labels.get(new) if new is not None else None
        if place is None or not place[1] or not is_document(place[0]):
            continue
        carry(place[0], place[1], make_id(old), "labels", old)
    carried = {
        docname: tuple(sorted(by_id.values(), key=lambda c: c.old_id))
        for docname, by_id in sorted(found.items())
    }
    return carried, clashes


def departed_ids(
    table: RelocationTable,
    is_document: Callable[[str], bool],
    followed: Mapping[str, Mapping[str, tuple[str, str]]],
    ids_of: Callable[[str], Collection[str]],
) -> dict[str, tuple[tuple[str, Target], ...]]:
    """docname of a page still there → its old fragments that went to another page or
    a URL, with where each went: ``[anchors]`` keys of the page (``guide#tuning`` =
    ``guide/advanced#tuning`` while ``guide`` stays), then what a release's inventory
    says of it (``followed``: ``core.published.followed_ids``).  A fragment the page
    still answers (``ids_of``: its ids, names and slugs now) stays on the page.

    An id carried on a section (:func:`carried_ids`) answers a fragment on the page it
    went to; this answers it on the page it left, where the reader opens it."""
    found: dict[str, dict[str, Target]] = {}
    for page, fragment in table.anchors:
        if not is_document(page):
            continue
        target = table.locate_reference(page, fragment, is_document)
        if target is not None and (target.url or (target.path != page
                                                  and is_document(target.path))):
            found.setdefault(page, {}).setdefault(fragment, target)
    for page, fragments in followed.items():
        if is_document(page):
            on_page = found.setdefault(page, {})
            for fragment, (docname, anchor) in fragments.items():
                on_page.setdefault(fragment, Target(docname, anchor))
    departed: dict[str, tuple[tuple[str, Target], ...]] = {}
    for page, on_page in sorted(found.items()):
        present = ids_of(page)
        kept = tuple(
            (fragment, target) for fragment, target in sorted(on_page.items())
            if fragment not in present and decode(fragment) not in present
        )
        if kept:
            departed[page] = kept
    return departed


def changed_documents(
    before: Mapping[str, object], after: Mapping[str, object]
) -> list[str]:
    """The documents whose entry differs between two maps."""
    return sorted(d for d in {*before, *after} if before.get(d, ()) != after.get(d, ()))


# -- the build ---------------------------------------------------------------------------


#: the map of this build (made at ``env-updated``): docname → the old ids its sections carry
carried_of: EnvValue[dict[str, tuple[Carried, ...]]] = EnvValue("relocate_carried_ids", dict)
#: and docname → its old fragments that went to other pages (:func:`departed_ids`)
departed_of: EnvValue[dict[str, tuple[tuple[str, Target], ...]]] = EnvValue(
    "relocate_departed_ids", dict
)


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Make this build's map, warn for each old id the page still uses (on every
    build), and return the documents whose carried ids changed, to be written again (a
    table edit changes the page, not its source)."""
    table = table_of(app)
    carried: dict[str, tuple[Carried, ...]] = {}
    if table.anchors or table.labels:
        labels = label_places(env) if table.labels else {}
        carried, clashes = carried_ids(table, env.found_docs.__contains__, labels)
        for clash in clashes:
            kept, dropped = clash.kept, clash.dropped
            warn(
                RelocateWarning.ANCHOR,
                f"old id {dropped.old_id!r} ([{dropped.section}] {dropped.key!r}) is not "
                f"carried on the section {dropped.anchor!r} of {clash.docname!r}: "
                f"[{kept.section}] {kept.key!r} puts it on the section {kept.anchor!r} "
                f"(readers of {clash.docname}#{kept.old_id} land there)",
                location=_entry_location(table, dropped, clash.docname),
            )
        # a page that still uses an old id (its ids, names, slugs, raw HTML ids hold
        # it): its doctree says whether the section itself or another element does
        anchors = anchors_of(env)
        for docname, items in carried.items():
            present = anchors.get(docname)
            if present and any(item.old_id in present for item in items):
                doctree = env.get_doctree(docname)
                parts = {docname: list(elements(doctree))}
                carried[docname] = tuple(item for item, _ in _placed(app, parts, carried))
        carried = {docname: items for docname, items in carried.items() if items}
    before = carried_of(env)
    carried_of.set(env, carried)
    changed = changed_documents(before, carried)
    followed = state_of(app).published_ids
    departed: dict[str, tuple[tuple[str, Target], ...]] = {}
    if table.anchors or followed:
        anchors = anchors_of(env)
        departed = departed_ids(table, env.found_docs.__contains__, followed,
                                lambda docname: anchors.get(docname, ()))
    departed_before = departed_of(env)
    departed_of.set(env, departed)
    changed += changed_documents(departed_before, departed)
    return [d for d in changed if d in env.found_docs]


def on_html_page_context(app: Sphinx, pagename: str, context: dict[str, Any]) -> None:
    """Put the script that sends a departed fragment on in the ``<head>`` of its page
    (html and dirhtml: the builders that get stubs)."""
    departed = departed_of(app.env).get(pagename)
    if not departed or app.builder is None:
        return
    site = html_output(app.builder)
    if site is None:
        return
    page = site.file(pagename)
    script = departed_script({fragment: site.href(page, target) for fragment, target in departed})
    context["metatags"] = context.get("metatags", "") + script


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Put the old ids on the sections of a page being written (HTML builders)."""
    builder = app.builder
    if builder is None or builder.format != "html":
        return
    carried = carried_of(app.env)
    if not carried or (docname not in carried and builder.name != "singlehtml"):
        return
    # singlehtml writes every document into one page: each part carries its own ids
    parts = _parts(doctree, docname)
    if not any(part in carried for part in parts):
        return
    for item, section in _placed(app, parts, carried):
        section["ids"].append(item.old_id)


def _parts(doctree: nodes.document, docname: str) -> dict[str, list[nodes.Element]]:
    """docname → the elements of the page that belong to that document."""
    from sphinx import addnodes

    parts: dict[str, list[nodes.Element]] = {}
    stack: list[tuple[nodes.Node, str]] = [(doctree, docname)]
    while stack:
        node, owner = stack.pop()
        if not isinstance(node, nodes.Element):
            continue
        if isinstance(node, addnodes.start_of_file):
            owner = node.get("docname", owner)
        parts.setdefault(owner, []).append(node)
        stack.extend((child, owner) for child in reversed(node.children))
    return parts


def _placed(
    app: Sphinx,
    parts: Mapping[str, list[nodes.Element]],
    carried: Mapping[str, tuple[Carried, ...]],
) -> Iterator[tuple[Carried, nodes.Element]]:
    """Each old id of the page's documents with the element that is to carry it; an
    old id that another element of the page (or its raw HTML) has is a warning."""
    # every id of the page, and who holds it (raw HTML holds its own)
    holders: dict[str, nodes.Element] = {}
    for elements_ in parts.values():
        for element in elements_:
            for id_ in _ids(element):
                holders.setdefault(id_, element)
            if isinstance(element, nodes.raw) and "html" in element.get("format", "").split():
                for value in element_ids(element.astext()):
                    holders.setdefault(value, element)
    table = table_of(app)
    exports = bool(state_of(app).settings.exports)
    metadata = app.env.metadata
    for docname, elements_ in parts.items():
        wanted = carried.get(docname)
        if not wanted:
            continue
        sections = _anchored(elements_, metadata.get(docname, {}).get("myst_slugs") or {})
        for item in wanted:
            section = sections.get(item.anchor)
            if section is None:  # no such anchor: the table check reports it
                continue
            holder = holders.get(item.old_id)
            if holder is section:
                continue
            if holder is not None:
                where = f"{_owner(parts, holder, docname)}:{line_of(holder)}"
                what = "raw HTML" if isinstance(holder, nodes.raw) else f"the {holder.tagname}"
                old_page = item.key.rpartition("#")[0] if item.section == "anchors" else docname
                if old_page == docname:  # links written to the page's old id meant it
                    warn(
                        RelocateWarning.ANCHOR,
                        f"old id {item.old_id!r} ([{item.section}] {item.key!r}) is not "
                        f"carried on the section {item.anchor!r} of {docname!r}: {what} at "
                        f"{where} still has that id (readers of {docname}#{item.old_id} land "
                        "there); rename one of them or drop the entry",
                        location=_entry_location(table, item, docname),
                    )
                elif exports:  # another page's id: only a redirect that keeps it misleads
                    warn(
                        RelocateWarning.ANCHOR,
                        f"old id {item.old_id!r} ([{item.section}] {item.key!r}) is not "
                        f"carried on the section {item.anchor!r} of {docname!r}: {what} at "
                        f"{where} has that id already; the redirect page of {old_page!r} "
                        f"sends #{item.old_id} to #{item.anchor}, but the server rules of "
                        "relocate_redirect_exports keep the fragment and land on "
                        f"{where}: rename one of them",
                        location=_entry_location(table, item, docname),
                    )
                continue
            holders[item.old_id] = section
            yield item, section


def _entry_location(table: RelocationTable, item: Carried, docname: str) -> str:
    location = table.location_of(item.key, "labels" if item.section == "labels" else "")
    return str(location) if location is not None else docname


def _owner(
    parts: Mapping[str, Iterable[nodes.Element]], element: nodes.Element, default: str
) -> str:
    """The document an element of the page comes from (singlehtml joins them all)."""
    if len(parts) > 1:
        for docname, elements in parts.items():
            if any(e is element for e in elements):
                return docname
    return default


def _anchored(
    elements: Iterable[nodes.Element], slugs: Mapping[str, tuple[object, str, str]]
) -> dict[str, nodes.Element]:
    """Anchor → the element it names: its ids, then its names, then MyST's slugs."""
    by_id: dict[str, nodes.Element] = {}
    by_name: dict[str, nodes.Element] = {}
    for element in elements:
        for id_ in _ids(element):
            by_id.setdefault(id_, element)
        for name in _ids(element, "names"):
            by_name.setdefault(name, element)
    for name, element in by_name.items():
        by_id.setdefault(name, element)
    for slug, value in slugs.items():
        if slug not in by_id and value[1] in by_id:
            by_id[slug] = by_id[value[1]]
    return by_id


def _ids(element: nodes.Element, attribute: str = "ids") -> list[str]:
    """The ids (or names) the page's HTML has for ``element``."""
    if points_elsewhere(element):
        return []
    found: list[str] = element.get(attribute) or []
    return found

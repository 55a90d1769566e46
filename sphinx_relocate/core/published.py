"""A release's published names (``relocate_published``): read them, and find those that
lost their way in.

* :func:`from_bytes` reads the ``objects.inv`` of a release, as
  :func:`sphinx_relocate.core.history.read_history` found it among the sources of the
  published history (a file, or an http(s) URL the build fetches through Sphinx's
  requests helper: :func:`sphinx_relocate.sphinx_ext.published.fetch_url`).  An
  inventory past the size limits is refused unread (:func:`check_size`).
* Each ``std:doc`` name in it that is no longer a document must be moved by the table to
  a page of the build or to a URL (which gives it a redirect stub and an inventory
  entry); each ``std:label`` that is no longer a label must have a table entry
  (:func:`label_moved`).  :func:`unredirected` lists each one without, with its
  published URL.

The build's side (the check on every build, its warnings) is
:mod:`sphinx_relocate.sphinx_ext.published`; ``sphinx-relocate check`` runs the same
check without a build.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sphinx_relocate.core.inventory import Inventory, InventoryEntry, InventoryError, parse
from sphinx_relocate.core.landing import document_label

if TYPE_CHECKING:
    from sphinx_relocate.core.table import RelocationTable

#: The most bytes a published inventory may have, fetched and once decompressed: a
#: few kilobytes that decompress to gigabytes are refused before they are read (an
#: inventory lists some 80 bytes a name, so this is some 800,000 names).
MAX_INVENTORY_BYTES = 64 * 2**20
#: The most lines it may have once decompressed: reading it takes memory per line, and
#: short lines would let 64 MiB hold 30 million.  At both limits, reading takes about
#: 500 MiB (measured: 850,000 entries of 75 bytes).
MAX_INVENTORY_LINES = 1_000_000


@dataclass(frozen=True)
class Published:
    """A release's inventory and the URL its locations are relative to (``""``: unknown)."""

    inventory: Inventory
    base: str = ""

    def url(self, entry: InventoryEntry) -> str:
        return self.base + entry.uri if self.base else entry.uri

    def pages(self) -> frozenset[str]:
        return frozenset(self.inventory.of_role("std:doc"))


@dataclass(frozen=True)
class Unredirected:
    """A published page or label that no longer exists and that nothing redirects."""

    name: str
    url: str
    message: str
    #: the table section an entry for it goes in
    section: str


def is_url(setting: str) -> bool:
    return setting.startswith(("http://", "https://"))


def from_bytes(data: bytes, setting: str, shown: str, base_url: str = "") -> Published:
    """The inventory in ``data``, read from ``setting`` (shown as ``shown``): its
    locations are relative to the folder of a URL, else to ``base_url``."""
    if is_url(setting):
        base = setting.rsplit("/", 1)[0] + "/"
    else:
        base = base_url if not base_url or base_url.endswith("/") else base_url + "/"
    try:
        check_size(data)
        return Published(parse(data), base)
    except InventoryError as err:
        raise InventoryError(f"{shown}: {err}") from None


def check_size(data: bytes) -> None:
    """Refuse an inventory whose compressed part decompresses past the limits, counted
    a chunk at a time, so that no more than a chunk is ever held (``parse`` inflates
    the whole at once)."""
    parts = data.split(b"\n", 4)
    if len(parts) < 5:
        return  # not an inventory: parse() says so
    inflater = zlib.decompressobj()
    pending = parts[4]
    size = lines = 0
    chunk_size = 2**20
    while True:
        try:
            chunk = inflater.decompress(pending, chunk_size)
        except zlib.error:
            return  # damaged: parse() says how
        size += len(chunk)
        lines += chunk.count(b"\n")
        if size > MAX_INVENTORY_BYTES or lines > MAX_INVENTORY_LINES:
            raise InventoryError(
                "the inventory decompresses to more than "
                + (f"{MAX_INVENTORY_BYTES // 2**20} MiB" if size > MAX_INVENTORY_BYTES
                   else f"{MAX_INVENTORY_LINES:,} lines")
                + " (a Sphinx inventory is far smaller): not read"
            )
        pending = inflater.unconsumed_tail
        if not pending and len(chunk) < chunk_size:
            return


# -- where a published id is now --------------------------------------------------------

#: where an entry of an inventory is now: ``(role, name)`` → ``(docname, anchor)``;
#: ``None``: no such entry in the build
PlaceOf = Callable[[str, str], "tuple[str, str] | None"]


def followed_ids(
    inventories: Iterable[Published], documents: Collection[str], place_of: PlaceOf
) -> dict[str, dict[str, tuple[str, str]]]:
    """Each published page → each fragment of it that an entry of a release names (a
    label, a Python function, any domain's object) and that left the page → the page
    and anchor where the same entry (role and name) is now (``place_of``).

    So the stub of ``details.html`` sends ``#hypothesis.given`` to the function on the
    page it went to, not to the top of the page the old page as a whole went to, and a
    page that is still there sends ``extras.html#hypothesis.extra.lark.from_lark`` to
    the page that documents the function now.  This is no guess: the release said which
    object the fragment stood for.  A fragment that two entries (or two releases) send
    to two places is left out: which one the reader meant, nothing says; so is one that
    an entry still has on its page (``documents``: the pages there now).
    """
    found: dict[str, dict[str, tuple[str, str]]] = {}
    torn: set[tuple[str, str]] = set()
    for published in inventories:
        pages = {entry.uri: name for name, entry in published.inventory.of_role("std:doc").items()}
        for entry in published.inventory.entries:
            if entry is None or entry.role == "std:doc":
                continue
            page_uri, _, fragment = entry.uri.partition("#")
            docname = pages.get(page_uri)
            if docname is None or not fragment or (docname, fragment) in torn:
                continue
            place = place_of(entry.role, entry.name)
            if place is None:
                continue
            on_page = found.setdefault(docname, {})
            stays = place[0] == docname and docname in documents
            if stays or on_page.setdefault(fragment, place) != place:
                torn.add((docname, fragment))
                on_page.pop(fragment, None)
    return {docname: on_page for docname, on_page in found.items() if on_page}


# -- the check ---------------------------------------------------------------------------


def label_moved(
    table: RelocationTable, label: str, labels: Collection[str] = (), by_document: bool = False,
) -> bool:
    """Whether the table sends the old label ``label`` to another one: a ``[labels]`` key,
    or (``by_document``: autosectionlabel's ``page:section``) a section of a page it moved
    whose new page has the section among ``labels`` (the build lists it in objects.inv).

    The one place a published label counts as redirected.
    """
    if label in table.labels:
        return True
    return by_document and document_label(table, label, labels.__contains__) in labels


def unredirected(
    published: Published,
    documents: set[str],
    labels: set[str] | None,
    table: RelocationTable,
    ids_of: Callable[[str], set[str]] | None = None,
    *,
    labels_from_sources: bool = False,
    followed: Mapping[str, Mapping[str, object]] | None = None,
    labels_by_document: bool = False,
) -> list[Unredirected]:
    """The published pages that are no longer documents and that the table does not move
    to a page or URL, then the labels (``None``: not checked) that are gone unmoved, then
    (with ``ids_of``, a page's section ids now) the sections of moved pages that land on
    no section.  ``labels_from_sources``: ``labels`` are those written in the sources
    (the command line), not a build's; ``followed``: the fragments of gone pages that
    their stubs send where their label is now (:func:`followed_ids`);
    ``labels_by_document``: see :func:`label_moved`."""
    found = unredirected_pages(published, documents, table)
    if labels is not None:
        found += unredirected_labels(published, labels, table, labels_from_sources,
                                     labels_by_document)
    if labels is not None and ids_of is not None:
        found += unredirected_sections(published, documents, labels, table, ids_of,
                                       followed or {})
    return found


def unredirected_sections(
    published: Published, documents: set[str], labels: set[str],
    table: RelocationTable, ids_of: Callable[[str], set[str]],
    followed: Mapping[str, Mapping[str, object]],
) -> list[Unredirected]:
    """The anchors of published labels on pages that are gone (moved, split, merged)
    that land on no section: no ``[anchors]`` entry, the page the table sends the old
    page to has no such id, and the stub does not follow the label (``followed``: two
    releases or two entries gave the fragment two meanings).  A label gone or renamed
    is a label finding, or carries its old id on its new section."""
    pages = {entry.uri: name for name, entry in published.inventory.of_role("std:doc").items()}
    exists = documents.__contains__
    found: list[Unredirected] = []
    seen: set[tuple[str, str]] = set()
    for name, entry in sorted(published.inventory.of_role("std:label").items()):
        if label_moved(table, name) or name not in labels:
            continue
        page_uri, _, anchor = entry.uri.partition("#")
        docname = pages.get(page_uri)
        if not anchor or docname is None or docname in documents or (docname, anchor) in seen:
            continue
        if anchor in followed.get(docname, ()):
            continue  # its stub sends it to the label
        seen.add((docname, anchor))
        target = table.locate_reference(docname, anchor, exists)
        if target is None or target.url or target.anchor != anchor:
            continue  # no entry (the page's own finding), or sent to an id or a URL
        if (docname, anchor) in table.anchors or anchor in ids_of(target.path):
            continue
        url = published.url(entry)
        message = (
            f"section {docname}#{anchor} was published at {url}; the table sends it to "
            f"{target.path}, which has no such section, and it has no [anchors] entry"
        )
        found.append(Unredirected(f"{docname}#{anchor}", url, message, "anchors"))
    return found


def unredirected_pages(
    published: Published, documents: set[str], table: RelocationTable
) -> list[Unredirected]:
    exists = documents.__contains__
    found: list[Unredirected] = []
    for name, entry in sorted(published.inventory.of_role("std:doc").items()):
        if name in documents:
            continue
        target = table.locate_reference(name, "", exists)
        if target is not None and (target.url or target.path in documents):
            continue
        url = published.url(entry)
        why = (
            "it has no entry"
            if target is None
            else f"the table sends it to {str(target)!r}, which is not a document either"
        )
        message = f"{name} was published at {url} and is no longer a page; {why}"
        found.append(Unredirected(name, url, message, "pages"))
    return found


def unredirected_labels(
    published: Published, labels: set[str], table: RelocationTable,
    from_sources: bool = False, by_document: bool = False,
) -> list[Unredirected]:
    found: list[Unredirected] = []
    for name, entry in sorted(published.inventory.of_role("std:label").items()):
        if name in labels or label_moved(table, name, labels, by_document):
            continue
        url = published.url(entry)
        message = (
            f"label {name} was published at {url} and is written in no source now; it has "
            "no [labels] entry (a label that an extension makes is seen by the build's check "
            "only)"
            if from_sources else
            f"label {name} was published at {url} and is no longer a label; it has no "
            "[labels] entry"
        )
        found.append(Unredirected(name, url, message, "labels"))
    return found


# -- labels of generated pages (the command line) -------------------------------------


def generated_labels(published: Published) -> set[str]:
    """The published labels of pages the build generates (``genindex``, ``search``,
    domain indices), which have no ``#fragment``: sources do not write them."""
    return {
        label
        for label, entry in published.inventory.of_role("std:label").items()
        if "#" not in entry.uri
    }

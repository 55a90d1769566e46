"""The published check: every page and label a release listed still has a way in.

How it works:

* ``relocate_published`` names the ``objects.inv`` of a release: a file relative to the
  conf dir (read offline), or an http(s) URL, fetched with Sphinx's requests helper.  It
  is read on every build, once the documents are read (:func:`on_env_updated`).
* Each ``std:doc`` name in it that is no longer a document must be moved by the table to
  a page of the build or to a URL (which gives it a redirect stub and an inventory
  entry); each ``std:label`` that is no longer a label must have a table entry
  (:func:`label_moved`).  Each one without is a ``relocate.unredirected`` warning that
  names its published URL, so ``sphinx-build -W`` fails until the table covers every URL
  the world has seen.
* The release's page names also go to the stubs and the inventory aliases
  (``BuildState.published_pages``): a page that ``[patterns]`` or ``[prefixes]`` moves
  gets its stub even when nothing else names it.
* ``sphinx-relocate check`` runs the same check without a build: the documents are the
  files Sphinx would find, the labels those written in the sources
  (:func:`labels_in_sources`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.sphinx_ext.config import entries_location, setting_location
from sphinx_relocate.sphinx_ext.inventory import Entry, Inventory, InventoryError, parse
from sphinx_relocate.sphinx_ext.queries import base_url, labels_of, table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.core.table import RelocationTable

#: Seconds the whole fetch of a published inventory may take (connection, redirects,
#: every byte): a server that trickles bytes cannot hold the build.
FETCH_TIMEOUT = 30
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

    def url(self, entry: Entry) -> str:
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


def read(
    setting: str,
    folder: Path,
    *,
    base_url: str = "",
    fetch: Callable[[str], bytes] | None = None,
) -> Published:
    """The inventory ``setting`` names: a URL, or a file relative to ``folder``.

    The locations of a fetched inventory are relative to its URL's folder; those of a
    file to ``base_url`` (``html_baseurl``), when there is one.  A file or URL that
    cannot be read is an :class:`InventoryError` with a one-line message.
    """
    if is_url(setting):
        shown = setting
        data = (fetch or fetch_url)(setting)
        base = setting.rsplit("/", 1)[0] + "/"
    else:
        path = folder / setting
        shown = str(path)
        try:
            data = path.read_bytes()
        except OSError as err:
            raise InventoryError(f"cannot read {shown}: {err.strerror or err}") from None
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


def fetch_url(url: str, **options: Any) -> bytes:
    """The bytes at ``url``, through Sphinx's requests helper (its user agent, its TLS
    settings in ``options``), within :data:`FETCH_TIMEOUT` seconds in all and
    :data:`MAX_INVENTORY_BYTES` bytes.

    requests' timeout bounds each read, not the whole: the download runs in a thread
    the build waits for until the deadline, then leaves, shutting its socket down (which
    ends a read under way; closing it would wait for that read).
    """
    import requests
    from sphinx.util import requests as sphinx_requests

    limit = MAX_INVENTORY_BYTES
    deadline = FETCH_TIMEOUT
    result: list[bytes] = []
    failure: list[str] = []
    sockets: list[socket.socket] = []
    lock = threading.Lock()
    abandoned = False

    def download() -> None:
        try:
            response = sphinx_requests.get(url, timeout=deadline, stream=True, **options)
            with contextlib.suppress(OSError, ValueError):  # its own handle on the socket
                sock = socket.socket(fileno=os.dup(response.raw.fileno()))
                with lock:
                    sockets.append(sock)
                    if abandoned:  # the deadline passed while the answer began
                        _shut(sockets)
                        return
            with response:
                response.raise_for_status()
                chunks, size = [], 0
                for chunk in response.iter_content(64 * 1024):
                    size += len(chunk)
                    if size > limit:
                        failure.append(f"more than {limit // 2**20} MiB (an inventory is far "
                                       "smaller): not read")
                        return
                    chunks.append(chunk)
                result.append(b"".join(chunks))
        except requests.RequestException as err:
            failure.append(str(err))
        except Exception as err:  # anything else is reported too, as one line
            failure.append(f"{type(err).__name__}: {err}")

    worker = threading.Thread(target=download, name=f"relocate_published {url}", daemon=True)
    worker.start()
    worker.join(deadline)
    with lock:
        alive = abandoned = worker.is_alive()
        if alive:
            _shut(sockets)
        else:
            for sock in sockets:
                sock.close()
    if alive:
        raise InventoryError(
            f"cannot fetch {url}: no complete answer within {deadline:g} s"
        )
    if failure or not result:
        raise InventoryError(f"cannot fetch {url}: {failure[0] if failure else 'no answer'}")
    return result[0]


def _shut(sockets: list[socket.socket]) -> None:
    """End the reads under way on ``sockets`` (a shutdown wakes them; a close does not)."""
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()


# -- the check (no Sphinx) ----------------------------------------------------------------


def label_moved(table: RelocationTable, label: str) -> bool:
    """Whether the table sends the old label ``label`` to another one: a ``[labels]`` key.

    The one place a published label counts as redirected; tables without a ``[labels]``
    section redirect none.
    """
    return label in table.labels


def unredirected(
    published: Published,
    documents: set[str],
    labels: set[str] | None,
    table: RelocationTable,
    ids_of: Callable[[str], set[str]] | None = None,
) -> list[Unredirected]:
    """The published pages that are no longer documents and that the table does not move
    to a page or URL, then the labels (``None``: not checked) that are gone unmoved, then
    (with ``ids_of``, a page's section ids now) the sections of moved pages that land on
    no section."""
    found = unredirected_pages(published, documents, table)
    if labels is not None:
        found += unredirected_labels(published, labels, table)
    if labels is not None and ids_of is not None:
        found += unredirected_sections(published, documents, labels, table, ids_of)
    return found


def unredirected_sections(
    published: Published, documents: set[str], labels: set[str],
    table: RelocationTable, ids_of: Callable[[str], set[str]],
) -> list[Unredirected]:
    """The anchors of published labels on pages that are gone (moved, split, merged)
    that land on no section: no ``[anchors]`` entry, and the page the table sends the
    old page to has no such id (``guide.html#tuning`` after ``tuning`` went to the other
    half of a split).  A label gone or renamed is a label finding, or carries its old
    id on its new section."""
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
    published: Published, labels: set[str], table: RelocationTable
) -> list[Unredirected]:
    found: list[Unredirected] = []
    for name, entry in sorted(published.inventory.of_role("std:label").items()):
        if name in labels or label_moved(table, name):
            continue
        url = published.url(entry)
        message = (
            f"label {name} was published at {url} and is no longer a label; it has no entry"
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


# -- Sphinx ------------------------------------------------------------------------------


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Warn for each published page or label that lost its way in, on every build."""
    state = state_of(app)
    state.published_pages = frozenset()
    setting = app.config.relocate_published
    if not setting:
        return []
    try:
        published = read(
            str(setting),
            Path(app.confdir),
            base_url=base_url(app.config),
            fetch=lambda url: fetch_url(
                url,
                _user_agent=getattr(app.config, "user_agent", None) or "",
                _tls_info=(app.config.tls_verify, app.config.tls_cacerts),
            ),
        )
    except InventoryError as err:
        where = setting_location(Path(app.confdir), "relocate_published")
        warn(RelocateWarning.UNREDIRECTED, f"relocate_published = {setting!r}: {err}",
             location=str(where))
        return []
    state.published_pages = published.pages()
    labels = labels_of(env)
    from sphinx_relocate.core.git import ids_now

    anchors = int(getattr(app.config, "myst_heading_anchors", 0) or 0)
    ids_of = ids_now(Path(app.srcdir), tuple(app.config.source_suffix), anchors)
    documents = set(env.found_docs)
    for finding in unredirected(published, documents, labels, table_of(app), ids_of):
        where = entries_location(
            Path(app.confdir), app.config.relocate_table, finding.section, "relocate_published"
        )
        warn(RelocateWarning.UNREDIRECTED, finding.message, location=str(where))
    return []


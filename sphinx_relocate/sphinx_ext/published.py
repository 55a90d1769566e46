"""The published check in the build: every URL, page and label the site published
still has a way in.

How it works (reading the sources and the check itself:
:mod:`sphinx_relocate.core.history` and :mod:`sphinx_relocate.core.published`):

* ``relocate_published`` names the published history: releases' ``objects.inv``,
  sitemaps, URL lists, previous output folders; files relative to the conf dir (read
  offline), or http(s) URLs fetched with Sphinx's requests helper (:func:`fetch_url`;
  a sitemap or list once, then kept in the doctree folder: :func:`cached_fetch`).  It
  is read on every build, once the documents are read (:func:`on_env_updated`).
* Each published URL nothing serves, and each page or label of an inventory gone
  without a table entry, is a ``relocate.unredirected`` warning that names its
  published URL, so ``sphinx-build -W`` fails until the table covers every URL the
  world has seen.
* The history's page names also go to the stubs and the inventory aliases
  (``BuildState.published_pages``): a page that ``[patterns]`` or ``[prefixes]`` moves
  gets its stub even when nothing else names it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sphinx_relocate.core.exports import moved_folders
from sphinx_relocate.core.history import moved_page, output_files, read_history, unserved
from sphinx_relocate.core.inventory import InventoryError
from sphinx_relocate.core.published import (
    MAX_INVENTORY_BYTES,
    Unredirected,
    followed_ids,
    unredirected,
)
from sphinx_relocate.sphinx_ext.config import entries_location, setting_location
from sphinx_relocate.sphinx_ext.queries import (
    base_url,
    labels_of,
    object_places,
    rendered_pages,
    table_of,
)
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, logger, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.core.table import RelocationTable

#: Seconds the whole fetch of a published inventory may take (connection, redirects,
#: every byte): a server that trickles bytes cannot hold the build.
FETCH_TIMEOUT = 30


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


def cached_fetch(app: Sphinx) -> Callable[[str], bytes]:
    """:func:`fetch_url` with the build's HTTP settings; a sitemap or URL list is kept
    next to the build (a release's history does not change), an inventory is fetched
    on every build."""
    cache = Path(app.doctreedir) / "relocate_published"

    def fetch(url: str) -> bytes:
        path = cache / hashlib.sha256(url.encode("utf-8")).hexdigest()[:24]
        if path.is_file():
            return path.read_bytes()
        data = fetch_url(
            url,
            _user_agent=getattr(app.config, "user_agent", None) or "",
            _tls_info=(app.config.tls_verify, app.config.tls_cacerts),
        )
        if not data.startswith(b"# Sphinx inventory"):
            cache.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return data

    return fetch


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Warn for each published URL, page or label that lost its way in, on every build."""
    state = state_of(app)
    state.published_pages = frozenset()
    state.published_ids = {}
    state.published_urls = None
    setting = app.config.relocate_published
    if not setting:
        return []
    # only with a published history: importing it costs more than the rest of a build
    # that changes nothing spends in the extension
    from sphinx_relocate.core.git import ids_now

    try:
        history = read_history(
            setting, Path(app.confdir), base_url=base_url(app.config), fetch=cached_fetch(app)
        )
    except InventoryError as err:
        where = setting_location(Path(app.confdir), "relocate_published")
        warn(RelocateWarning.UNREDIRECTED, f"relocate_published = {setting!r}: {err}",
             location=str(where))
        return []
    if history.urls:
        logger.info(history.summary())
    documents = set(env.found_docs)
    table = table_of(app)
    state.published_pages = frozenset(history.page_names(documents, table))
    state.published_ids = followed_ids(history.inventories, documents, object_places(env))
    labels = labels_of(env)
    ids_of = ids_now(Path(app.srcdir), state.settings.source_suffixes, state.settings.headings)
    findings = [
        finding
        for published in history.inventories
        for finding in unredirected(published, documents, labels, table, ids_of,
                                    followed=state.published_ids,
                                    labels_by_document=state.settings.labels_by_document)
        # a page a loaded peer redirects is served by its redirect page
        if finding.section != "pages"
        or not moved_page([finding.name], documents, state.peer_redirects)
    ]
    _warn(app, findings)
    # the URLs wait for the output: the files the build copies (images, downloads) and
    # the pages the builder renders without a document (sphinx-notfound-page's 404)
    state.published_urls = history if history.urls else None
    return []


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    """Warn for each published URL that nothing serves, now that the output is written."""
    state = state_of(app)
    history, state.published_urls = state.published_urls, None
    if exception is not None or history is None:
        return
    output = written_output(app)
    found = unserved(history, output.documents, output.table, is_file=output.is_file,
                     folders=output.folders)
    pages = rendered_pages(app)
    # a loaded peer's redirect page serves an old URL as a stub does (SymPy's reredirects)
    peers = state.peer_redirects
    _warn(app, [finding for finding in found if finding.name not in pages
                and not moved_page([finding.name], output.documents, peers)])


def _warn(app: Sphinx, findings: list[Unredirected]) -> None:
    said: set[str] = set()
    since_reported = state_of(app).since_reported
    for finding in findings:
        if finding.message in said:  # the same name in two versions' inventories
            continue
        if finding.section != "labels" and finding.name in since_reported:
            continue  # relocate_since said it, and one entry answers both
        said.add(finding.message)
        where = entries_location(
            Path(app.confdir), app.config.relocate_table, finding.section, "relocate_published"
        )
        warn(RelocateWarning.UNREDIRECTED, finding.message, location=str(where))


class WrittenOutput(NamedTuple):
    """What serves a URL of the output once the builder has written it."""

    documents: set[str]
    table: RelocationTable
    #: each document's output file, relative to the output folder
    outputs: set[str]
    #: the ``(old, new)`` folder rules of the server exports (none without exports)
    folders: list[tuple[str, str]]
    #: whether the output has a file at a path (``core.history.output_files``)
    is_file: Callable[[str], bool]


def written_output(app: Sphinx) -> WrittenOutput:
    """The output as a URL check sees it (the published URLs, extra files' links)."""
    documents = set(app.env.found_docs)
    table = table_of(app)
    outputs = {output_path(app, doc) for doc in documents}
    folders = moved_folders(table, outputs) if state_of(app).settings.exports else []
    is_file = output_files(
        Path(app.confdir), app.config.html_extra_path or (),
        app.config.html_static_path or (), Path(app.outdir),
    )
    return WrittenOutput(documents, table, outputs, list(folders), is_file)


def output_path(app: Sphinx, docname: str) -> str:
    """The output file of a document, relative to the output folder."""
    name = getattr(app.builder, "get_outfilename", None)
    if name is None:
        return docname + ".html"
    return Path(os.path.relpath(name(docname), app.outdir)).as_posix()

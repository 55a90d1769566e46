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

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._inventory import Entry, Inventory, InventoryError, parse

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from ._table import RelocationTable

#: Seconds to wait for a published inventory given as a URL.
FETCH_TIMEOUT = 30


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
        return Published(parse(data), base)
    except InventoryError as err:
        raise InventoryError(f"{shown}: {err}") from None


def fetch_url(url: str, **options: Any) -> bytes:
    """The bytes at ``url``, through Sphinx's requests helper (its user agent, its TLS
    settings in ``options``)."""
    import requests
    from sphinx.util import requests as sphinx_requests

    try:
        response = sphinx_requests.get(url, timeout=FETCH_TIMEOUT, **options)
        response.raise_for_status()
    except requests.RequestException as err:
        raise InventoryError(f"cannot fetch {url}: {err}") from None
    return response.content


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
) -> list[Unredirected]:
    """The published pages that are no longer documents and that the table does not move
    to a page or URL, then the labels (``None``: not checked) that are gone unmoved."""
    found = unredirected_pages(published, documents, table)
    if labels is not None:
        found += unredirected_labels(published, labels, table)
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
    from ._check import labels_of
    from ._config import entries_location, setting_location, table_of
    from ._state import state_of
    from ._stubs import base_url
    from ._warnings import RelocateWarning, warn

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
    for finding in unredirected(published, set(env.found_docs), labels, table_of(app)):
        where = entries_location(
            Path(app.confdir), app.config.relocate_table, finding.section, "relocate_published"
        )
        warn(RelocateWarning.UNREDIRECTED, finding.message, location=str(where))
    return []


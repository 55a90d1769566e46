"""The old names in the build's ``objects.inv``: aliases added after an HTML build wrote it.

Sphinx has no hook for the inventory; adding lines to the file it wrote changes nothing
that Sphinx or other extensions hold.  Reading and writing the format, and which aliases,
is :mod:`sphinx_relocate.core.inventory`.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.inventory import (
    FILENAME,
    InventoryError,
    label_moves,
    listable,
    page_moves,
    parse,
    section_label_moves,
    with_aliases,
)
from sphinx_relocate.core.table import collection_paused
from sphinx_relocate.sphinx_ext.queries import labels_of, table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.stubs import documents_token_of, landings_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx


#: the last ``objects.inv`` this extension wrote, in the doctree folder, after the keys of
#: what it was made from (:class:`_Kept`): a build that changed neither writes it again
#: as it is
CACHE_FILENAME = "relocate-objects.inv"


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    """List the old page names and labels in the ``objects.inv`` an HTML builder has
    just written."""
    from sphinx.builders.html import StandaloneHTMLBuilder

    if exception is not None or not isinstance(app.builder, StandaloneHTMLBuilder):
        return
    path = Path(app.outdir, FILENAME)
    if not path.is_file():
        return  # the epub builders write none
    try:
        data = path.read_bytes()
    except OSError as err:
        warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {err.strerror or err}")
        return
    with collection_paused():
        _add_aliases(app, path, data)


class _Kept(NamedTuple):
    """The cache file: the inventory the last build made, after its keys."""

    #: the key of what the aliases were worked out from (``""``: they warned)
    inputs: str
    #: the hash of the inventory Sphinx wrote, which they were added to
    source: str
    #: the key of Sphinx's inventory and the aliases
    aliases: str
    inventory: bytes


def _add_aliases(app: Sphinx, path: Path, data: bytes) -> None:
    # Sphinx writes its inventory on every build: what the aliases made of the same one
    # last time is written again.  A build with the same documents token (no title or
    # label changed since), table and published pages has the same aliases: it finds the
    # kept inventory without working them out; another finds it by the aliases.
    state = state_of(app)
    cache = Path(app.doctreedir, CACHE_FILENAME)
    inputs = _key(b"", (
        app.extensions["sphinx_relocate"].version, bool(app.config.relocate_inventory_aliases),
        state.settings.labels_by_document,
        documents_token_of(app.env), state.table_digest(), sorted(state.published_pages),
    ))
    source = _key(data, ())
    kept = _cached(cache)
    # Sphinx before 8.2 writes no inventory when nothing is out of date: ours is there
    if kept is not None and kept.inputs == inputs and data == kept.inventory:
        made = data
    elif kept is not None and kept.inputs == inputs and kept.source == source:
        made = kept.inventory
    else:
        documents = set(app.env.found_docs)
        labels = labels_of(app.env)
        moves, label_aliases, warned = _aliases(app, documents, labels)
        key = _key(data, (sorted(moves.items()), sorted(label_aliases.items())))
        if kept is not None and kept.aliases == key:
            made = kept.inventory
        elif not moves and not label_aliases:  # nothing to add: Sphinx's, as it is
            made = data
        else:
            try:
                inventory = parse(data)
            except InventoryError as err:
                warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {err}")
                return
            roles = {"std:doc": (documents, moves), "std:label": (labels, label_aliases)}
            body = "".join(with_aliases(inventory, roles))
            made = data if body == "".join(inventory.lines) else inventory.dump([body])
        with contextlib.suppress(OSError):  # only the next build's time depends on it
            lines = ("" if warned else inputs, source, key)
            write_atomically(cache, "\n".join(lines).encode("ascii") + b"\n" + made)
    if made != data:
        try:
            write_atomically(path, made)
        except OSError as err:
            warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {err}")


def _aliases(
    app: Sphinx, documents: set[str], labels: set[str]
) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]], bool]:
    """The old page names and labels to list, and whether one of them cannot be listed
    (each warned)."""
    moves: dict[str, tuple[str, str]] = {}
    label_aliases: dict[str, tuple[str, str]] = {}
    warned = False
    if app.config.relocate_inventory_aliases:
        table = table_of(app)
        moves = page_moves(landings_of(app), documents)
        label_aliases = label_moves(table, labels)
        if state_of(app).settings.labels_by_document:  # after [labels]: an entry wins
            label_aliases = section_label_moves(moves, labels, table.anchors) | label_aliases
        table_locations = table.location_of
        for role, names, section in (("std:doc", moves, ""), ("std:label", label_aliases,
                                                              "labels")):
            for name in names:
                if not listable(name, role):
                    warned = True
                    warn(RelocateWarning.STUB, f"{name!r} gets no {role} entry in objects.inv: "
                         "a reader would take its line for another entry",
                         table_locations(name, section))
    return moves, label_aliases, warned


def _key(data: bytes, made_from: object) -> str:
    key = hashlib.blake2b(data, digest_size=32)
    key.update(repr(made_from).encode("utf-8"))
    return key.hexdigest()


def _cached(cache: Path) -> _Kept | None:
    """The inventory the last build made, with its keys, if it kept one."""
    try:
        with cache.open("rb") as file:
            keys = [file.readline() for _ in range(3)]
            if not keys[-1].endswith(b"\n"):
                return None
            inputs, source, aliases = (k.rstrip(b"\n").decode("ascii", "replace") for k in keys)
            return _Kept(inputs, source, aliases, file.read())
    except OSError:
        return None

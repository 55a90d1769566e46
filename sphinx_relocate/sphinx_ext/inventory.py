"""The old names in the build's ``objects.inv``: aliases added after an HTML build wrote it.

Sphinx has no hook for the inventory; adding lines to the file it wrote changes nothing
that Sphinx or other extensions hold.  Reading and writing the format, and which aliases,
is :mod:`sphinx_relocate.core.inventory`.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.inventory import (
    FILENAME,
    InventoryError,
    label_moves,
    listable,
    page_moves,
    parse,
    with_aliases,
)
from sphinx_relocate.core.table import collection_paused
from sphinx_relocate.sphinx_ext.queries import labels_of, table_of
from sphinx_relocate.sphinx_ext.stubs import landings_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx


#: the last ``objects.inv`` this extension wrote, in the doctree folder, after the key of
#: what it was made from: a build that changed neither writes it again as it is
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


def _add_aliases(app: Sphinx, path: Path, data: bytes) -> None:
    documents = set(app.env.found_docs)
    labels = labels_of(app.env)
    moves: dict[str, tuple[str, str]] = {}
    label_aliases: dict[str, tuple[str, str]] = {}
    if app.config.relocate_inventory_aliases:
        table = table_of(app)
        moves = page_moves(landings_of(app), documents)
        label_aliases = label_moves(table, labels)
        table_locations = table.location_of
        for role, names, section in (("std:doc", moves, ""), ("std:label", label_aliases,
                                                              "labels")):
            for name in names:
                if not listable(name, role):
                    warn(RelocateWarning.STUB, f"{name!r} gets no {role} entry in objects.inv: "
                         "a reader would take its line for another entry",
                         table_locations(name, section))
    # Sphinx writes its inventory on every build: what the aliases made of the same one
    # last time is written again (an incremental build that changed nothing)
    key = hashlib.blake2b(data, digest_size=32)
    key.update(repr((sorted(moves.items()), sorted(label_aliases.items()))).encode("utf-8"))
    cache = Path(app.doctreedir, CACHE_FILENAME)
    made = _cached(cache, key.hexdigest())
    if made is None:
        try:
            inventory = parse(data)
        except InventoryError as err:
            warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {err}")
            return
        roles = {"std:doc": (documents, moves), "std:label": (labels, label_aliases)}
        body = "".join(with_aliases(inventory, roles))
        made = data if body == "".join(inventory.lines) else inventory.dump([body])
        with contextlib.suppress(OSError):  # only the next build's time depends on it
            write_atomically(cache, key.hexdigest().encode("ascii") + b"\n" + made)
    if made != data:
        try:
            write_atomically(path, made)
        except OSError as err:
            warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {err}")


def _cached(cache: Path, key: str) -> bytes | None:
    """The inventory the last build made from what has the key ``key``, if it kept one."""
    try:
        with cache.open("rb") as file:
            if file.readline() != key.encode("ascii") + b"\n":
                return None
            return file.read()
    except OSError:
        return None

"""The old names in the build's ``objects.inv``: aliases added after an HTML build wrote it.

Sphinx has no hook for the inventory; adding lines to the file it wrote changes nothing
that Sphinx or other extensions hold.  Reading and writing the format, and which aliases,
is :mod:`sphinx_relocate.core.inventory`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.inventory import (
    FILENAME,
    Inventory,
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
        inventory = parse(data)
    except (OSError, InventoryError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {reason}")
        return
    with collection_paused():
        _add_aliases(app, path, inventory)


def _add_aliases(app: Sphinx, path: Path, inventory: Inventory) -> None:
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
    roles = {"std:doc": (documents, moves), "std:label": (labels, label_aliases)}
    body = "".join(with_aliases(inventory, roles))
    if body != "".join(inventory.lines):
        try:
            write_atomically(path, inventory.dump([body]))
        except OSError as err:
            warn(RelocateWarning.STUB, f"{path}: cannot list the old names: {err}")

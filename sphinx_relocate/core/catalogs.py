"""Translations of moved pages: which catalog at an old name serves a moved page, and
moving catalogs to their pages' new names.

Sphinx picks a document's message catalog by its *text domain*: the docname with
``gettext_compact = False`` (``locale/de/LC_MESSAGES/help/faq.po``), its first path
segment with ``True`` (``help.po``), one fixed name when it is a string (:func:`domain_of`).
A page that moved has a new domain, so the catalog its translators wrote under the old
name no longer applies.

* :func:`borrowed_catalogs` finds, for each moved document with no catalog of its own,
  the catalog at an old name (the most recent one in a chain).  A page that has its own
  catalog is never touched, and a catalog only translates text whose message is exactly
  its ``msgid``, so borrowing one cannot mistranslate.
* ``sphinx-relocate rewrite`` moves such catalogs to the new name (:func:`plan_moves`,
  :func:`move_catalog`): ``git mv`` when git tracks the file, a rename otherwise, never
  over an existing catalog.

The build's side (serving a moved page from the catalog at its old name) is
:mod:`sphinx_relocate.sphinx_ext.catalogs`.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from sphinx_relocate.core.table import RelocationTable

#: The files of one catalog, the source first.
CATALOG_SUFFIXES = (".po", ".mo")


# -- the plan ---------------------------------------------------------------------------


def domain_of(docname: str, compact: bool | str) -> str:
    """The text domain (catalog name) of a document, as Sphinx's ``docname_to_domain``."""
    if isinstance(compact, str):
        return compact
    return docname.partition("/")[0] if compact else docname


@dataclass(frozen=True)
class Borrowed:
    """A moved document translated from the catalog at one of its old names."""

    docname: str
    #: the catalog that serves it (the old name's domain)
    domain: str
    #: the catalog it would have at its new name, where its messages belong now
    new_domain: str
    #: the old docname whose catalog that is
    old_name: str


def borrowed_catalogs(
    table: RelocationTable,
    documents: Collection[str],
    compact: bool | str,
    has_catalog: Callable[[str], bool],
) -> dict[str, Borrowed]:
    """For each moved document without a catalog of its own, the catalog at an old name.

    With ``gettext_compact = True`` only a page that changed top-level folder has a
    catalog elsewhere; with a string every page shares one catalog, so none has.  Of
    several old names with a catalog, the most recent in the chain wins (``b`` over
    ``a`` for ``a → b → c``), then the first by name.
    """
    if isinstance(compact, str) or not table:
        return {}
    found: dict[str, Borrowed] = {}
    for docname in documents:
        olds = [old for old in table.old_names(docname) if old not in documents]
        if not olds:
            continue
        new_domain = domain_of(docname, compact)
        candidates = [
            old for old in olds
            if (domain := domain_of(old, compact)) != new_domain and has_catalog(domain)
        ]
        if not candidates or has_catalog(new_domain):
            continue
        if len(candidates) > 1:
            # a later name in a chain has every earlier one among its own old names
            candidates.sort(key=lambda old: (-len(set(table.old_names(old)) & set(olds)), old))
        old = candidates[0]
        found[docname] = Borrowed(docname, domain_of(old, compact), new_domain, old)
    return found


@dataclass(frozen=True)
class CatalogMove:
    """One catalog that ``rewrite`` moves to the name its pages have now."""

    #: the folder of the catalogs of one language (``…/de/LC_MESSAGES``)
    folder: Path
    domain: str
    new_domain: str
    #: the moved pages it serves
    pages: tuple[str, ...]

    def files(self) -> list[tuple[Path, Path]]:
        """``(source, destination)`` of each file of the catalog that exists."""
        return [
            (self.folder / (self.domain + suffix), self.folder / (self.new_domain + suffix))
            for suffix in CATALOG_SUFFIXES
            if (self.folder / (self.domain + suffix)).is_file()
        ]


def catalog_folders(srcdir: Path, locale_dirs: Iterable[str]) -> list[Path]:
    """Every ``<locale dir>/<language>/LC_MESSAGES`` folder, for every language."""
    folders: list[Path] = []
    for locale_dir in locale_dirs:
        base = srcdir / locale_dir
        if base.is_dir():
            folders += sorted(
                p / "LC_MESSAGES" for p in base.iterdir() if (p / "LC_MESSAGES").is_dir()
            )
    return folders


def plan_moves(
    srcdir: Path,
    locale_dirs: Iterable[str],
    compact: bool | str,
    table: RelocationTable,
    documents: Collection[str],
) -> tuple[list[CatalogMove], list[tuple[Path, str]]]:
    """The catalogs to move to their pages' new names, in every language, and the ones
    that cannot move as a whole (``(catalog file, why)``).

    A per-folder catalog (``gettext_compact = True``) moves only when every page it
    serves went to one new folder and none stayed.
    """
    moves: list[CatalogMove] = []
    kept: list[tuple[Path, str]] = []
    current = {domain_of(docname, compact) for docname in documents}
    for folder in catalog_folders(srcdir, locale_dirs):

        def has_catalog(domain: str, folder: Path = folder) -> bool:
            return any((folder / (domain + s)).is_file() for s in CATALOG_SUFFIXES)

        by_domain: dict[str, list[Borrowed]] = {}
        sources: dict[str, set[str]] = {}  # new domain -> the old catalogs that serve it
        for borrowed in borrowed_catalogs(table, documents, compact, has_catalog).values():
            by_domain.setdefault(borrowed.domain, []).append(borrowed)
            sources.setdefault(borrowed.new_domain, set()).add(borrowed.domain)
        for domain, borrowers in sorted(by_domain.items()):
            pages = tuple(sorted(b.docname for b in borrowers))
            targets = sorted({b.new_domain for b in borrowers})
            others = sorted(sources[targets[0]] - {domain})
            source = CatalogMove(folder, domain, "", pages).files()[0][0]
            if domain in current:
                why = f"also serves pages still in {domain}/"
            elif len(targets) > 1:
                why = f"serves pages now in {_names(targets, '/')}"
            elif others:
                why = f"shares its new name with {_names(others, '.po')} (merge them: msgcat)"
            else:
                moves.append(CatalogMove(folder, domain, targets[0], pages))
                continue
            kept.append((source, f"{why}; the messages of {_names(pages)} belong in "
                         f"{_names(targets, '.po')}"))
    return moves, kept


def _names(names: Iterable[str], suffix: str = "") -> str:
    return ", ".join(repr(name + suffix) for name in names)


def move_catalog(
    move: CatalogMove,
    tracked: Callable[[Path], bool],
    git_mv: Callable[[Path, Path], None],
    shown: Callable[[Path], str] = str,
) -> str | None:
    """Move every file of a catalog (``git mv`` for tracked ones); an error, or ``None``.

    Nothing is moved when any destination exists: an existing catalog is never replaced.
    """
    files = move.files()
    taken = [destination for _, destination in files if destination.exists()]
    if taken:
        return f"{shown(taken[0])} exists; merge the two catalogs (msgcat) instead"
    for source, destination in files:
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            if tracked(source):
                git_mv(source, destination)
            else:
                os.rename(source, destination)
        except OSError as err:
            return f"cannot move it to {shown(destination)}: {err.strerror or err}"
    return None

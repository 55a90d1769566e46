"""Translations of moved pages: the catalog at a page's old name serves until it moves.

Sphinx picks a document's message catalog by its *text domain*: the docname with
``gettext_compact = False`` (``locale/de/LC_MESSAGES/help/faq.po``), its first path
segment with ``True`` (``help.po``), one fixed name when it is a string.  A page that
moved has a new domain, so the catalog its translators wrote under the old name no
longer applies and the page is silently shown untranslated.  How that is mended:

* :func:`~sphinx_relocate.core.catalogs.borrowed_catalogs` finds, for each moved document
  with no catalog of its own, the catalog at an old name (the most recent one in a
  chain).  A page that has its own catalog is never touched, and a catalog only
  translates text whose message is exactly its ``msgid``, so borrowing one cannot
  mistranslate.
* Before each build reads (``env-get-outdated``) the plan is made for this build's
  ``language``; an old catalog Sphinx did not compile (``sphinx-build`` given file
  names) is compiled as Sphinx would; and a moved page is re-read when the catalog
  that serves it, or that catalog's ``.mo``, changed since it was read (Sphinx tracks
  only the catalog of a page's own domain).  ``relocate_report_rewrites`` names each
  catalog to move (``relocate.outdated``); without it, one line counts them.
* :class:`CatalogAtOldName` runs Sphinx's own ``Locale`` transform just before Sphinx
  does, with ``gettext_compact`` set for that call to the old catalog's name (a string
  names the catalog of every document); Sphinx's run then finds no catalog for the new
  name and does nothing.
* ``sphinx-relocate rewrite`` moves such catalogs to the new name
  (:mod:`sphinx_relocate.core.catalogs`).
"""

from __future__ import annotations

import gettext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.transforms import SphinxTransform
from sphinx.transforms.i18n import Locale

from sphinx_relocate.core.catalogs import borrowed_catalogs
from sphinx_relocate.sphinx_ext.adapters import app_of, current_docname
from sphinx_relocate.sphinx_ext.record import PerDocument
from sphinx_relocate.sphinx_ext.state import Serving, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, logger, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment


#: per document read from a catalog at an old name: :meth:`Serving.stamp`
served_of: PerDocument[tuple[str, tuple[tuple[str, int], ...]]] = PerDocument(
    "relocate_catalogs"
)


class _Catalogs:
    """The catalogs of one language in ``locale_dirs``, each looked up once."""

    def __init__(self, srcdir: Path, config: Config) -> None:
        self.srcdir = srcdir
        self.language = str(config.language)
        self.dirs = [srcdir / d for d in config.locale_dirs]
        self.folders = [
            d / self.language / "LC_MESSAGES"
            for d in self.dirs
            if (d / self.language / "LC_MESSAGES").is_dir()
        ]
        self._known: dict[str, bool] = {}

    def has_catalog(self, domain: str) -> bool:
        """A ``.po`` or a ``.mo`` for ``domain`` (as gettext finds it for the language)."""
        known = self._known.get(domain)
        if known is None:
            known = self._known[domain] = bool(self.po_files(domain) or self.mo_files(domain))
        return known

    def po_files(self, domain: str) -> list[Path]:
        return [f / (domain + ".po") for f in self.folders if (f / (domain + ".po")).is_file()]

    def mo_files(self, domain: str) -> list[str]:
        """The ``.mo`` files Sphinx's ``Locale`` reads for ``domain``, as it finds them."""
        found = (gettext.find(domain, str(d), [self.language]) for d in self.dirs)
        return [f for f in found if f]

    def shown(self, path: Path) -> str:
        try:
            return path.relative_to(self.srcdir).as_posix()
        except ValueError:
            return str(path)


def plan_serving(app: Sphinx, env: BuildEnvironment) -> dict[str, Serving]:
    """Which moved pages this build translates from a catalog at an old name."""
    config = app.config
    builder = app.builder
    if not config.language or not getattr(builder, "use_message_catalog", True):
        return {}
    table = state_of(app).table
    if not table:
        return {}
    catalogs = _Catalogs(Path(app.srcdir), config)
    if not catalogs.folders:
        return {}
    borrowed = borrowed_catalogs(
        table, env.found_docs, config.gettext_compact, catalogs.has_catalog
    )
    plan: dict[str, Serving] = {}
    compiled: set[str] = set()
    for docname, item in sorted(borrowed.items()):
        sources = catalogs.po_files(item.domain)
        if config.gettext_auto_build and item.domain not in compiled:
            compiled.add(item.domain)
            _compile(sources, item.domain, config)
        mo_files = tuple(catalogs.mo_files(item.domain))
        if not mo_files:
            continue  # a .po that nothing compiles (gettext_auto_build = False)
        shown = sources[0] if sources else Path(mo_files[0])
        destination = shown.parent / (item.new_domain + shown.suffix)
        plan[docname] = Serving(item, mo_files, catalogs.shown(shown), catalogs.shown(destination))
    return plan


def _compile(sources: list[Path], domain: str, config: Config) -> None:
    """Compile an old catalog that Sphinx left out (it compiles only the catalogs of the
    documents named on the command line), exactly as Sphinx compiles its own."""
    from sphinx.util.i18n import CatalogInfo

    for po in sources:
        catalog = CatalogInfo(str(po.parent), domain, config.source_encoding)
        if catalog.is_outdated():
            catalog.write_mo(config.language, config.gettext_allow_fuzzy_translations)


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Plan this build's borrowed catalogs, report them, and re-read the moved pages
    whose catalog changed since they were read."""
    state = state_of(app)
    plan = state.catalogs = plan_serving(app, env)
    _report(app, plan)
    served = served_of(env)
    return sorted(
        docname
        for docname in (plan.keys() | served.keys()) & env.found_docs
        if docname not in added and docname not in changed
        and (plan[docname].stamp() if docname in plan else None) != served.get(docname)
    )


def _report(app: Sphinx, plan: dict[str, Serving]) -> None:
    if not plan:
        return
    if not app.config.relocate_report_rewrites:
        count = len(plan)
        logger.info(
            "%d moved page%s translated from the catalog at an old name "
            "(relocate_report_rewrites names each; sphinx-relocate rewrite --write moves them)",
            count, "s are" if count != 1 else " is",
        )
        return
    for docname, serving in sorted(plan.items()):
        borrowed = serving.borrowed
        if app.config.gettext_compact is False:
            where = f"move it to {serving.destination}"
        else:
            where = (
                f"the messages of this page belong in {serving.destination} "
                f"(gettext_compact: one catalog per top-level folder)"
            )
        warn(
            RelocateWarning.OUTDATED,
            f"translated from {serving.shown}, the catalog of its old name "
            f"{borrowed.old_name!r}; {where}",
            location=docname,
        )


class CatalogAtOldName(SphinxTransform):
    """Translate a moved page from the catalog at its old name, just before Sphinx's
    ``Locale`` transform (which then finds no catalog at the new name and does nothing)."""

    default_priority = Locale.default_priority - 1

    def apply(self, **kwargs: Any) -> None:
        catalogs = state_of(app_of(self.env)).catalogs
        serving = catalogs.get(current_docname(self.env)) if catalogs else None
        if serving is None:
            return
        config = self.config
        compact = config.gettext_compact
        # for this one call, as Sphinx clears rst_prolog while it parses a message
        config.gettext_compact = serving.borrowed.domain
        try:
            Locale(self.document, startnode=self.startnode).apply()
        finally:
            config.gettext_compact = compact
        served_of(self.env)[serving.borrowed.docname] = serving.stamp()

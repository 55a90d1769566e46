"""sphinx-external-toc's site map (``_toc.yml``), its entries mapped through the table.

sphinx-external-toc reads the site map at ``config-inited`` (priority 900) and makes
each page's toctree from it while the page is read, so an entry written against an
old name is mapped before any page is read: right after it, by the rule a
``toctree`` directive's entries follow (``resolve.RelocatingTocTree``), with the
documents found as Sphinx finds them.  ``rewrite`` rewrites the same entries in the
file (``core.spans.external_toc_targets``).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.util.matching import patmatch

from sphinx_relocate.core.landing import Project, Site, land, moved_glob
from sphinx_relocate.core.paths import strip_source_suffix
from sphinx_relocate.core.spans import external_toc_targets
from sphinx_relocate.core.table import Location, Target
from sphinx_relocate.sphinx_ext.discovery import discover_files
from sphinx_relocate.sphinx_ext.resolve import old_page_title
from sphinx_relocate.sphinx_ext.state import FileCache, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, logger, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


def note_exclude_patterns(app: Sphinx, config: Config) -> None:
    """``exclude_patterns`` before sphinx-external-toc adds the files its site map does
    not name (``external_toc_exclude_missing``): a moved page is one of them."""
    state_of(app).excluded_before_site_map = tuple(config.exclude_patterns)


def map_site_map(app: Sphinx, config: Config) -> None:
    """Replace the site map by one whose entries name documents as they are now."""
    site_map = getattr(config, "external_site_map", None)
    state = state_of(app)
    if site_map is None or not hasattr(site_map, "root") or not state.table:
        return
    before = state.excluded_before_site_map
    if before is None:
        before = tuple(config.exclude_patterns)
    sources = dict(discover_files(
        Path(app.srcdir), state.settings.source_suffixes, before,
        getattr(config, "include_patterns", ("**",)),
    ))
    mapper = _SiteMapper(app, site_map, sources)
    try:
        new = mapper.mapped()
    except (AttributeError, ImportError, KeyError, TypeError, ValueError) as err:
        # another version of sphinx-external-toc than those this knows: the build goes
        # on with the site map as written, which that extension checks itself
        warn(RelocateWarning.TOCTREE, f"the site map's entries are not mapped through the "
             f"table: its objects are not as this extension knows them ({err!r})",
             Location(str(mapper.path)))
        return
    if new is None:
        return
    config.external_site_map = new
    root = strip_source_suffix(new.root.docname, state.settings.source_suffixes)[0]
    if root != config.master_doc:
        config["master_doc"] = root
    if (getattr(config, "external_toc_exclude_missing", False)
            and tuple(config.exclude_patterns[: len(before)]) == before):
        # the files sphinx-external-toc added (after conf.py's) that the mapped site
        # map names
        suffixes = state.settings.source_suffixes
        added = list(config.exclude_patterns[len(before):])
        named = {strip_source_suffix(name, suffixes)[0] for name in new}
        globs = new.globs()
        kept = [
            path for path in added
            if (docname := strip_source_suffix(path, suffixes)[0]) not in named
            and not any(patmatch(docname, glob) for glob in globs)
        ]
        if len(kept) < len(added):
            config["exclude_patterns"] = [*before, *kept]


class _SiteMapper:
    """One site map's entries, each mapped once, and where each is written."""

    def __init__(self, app: Sphinx, site_map: Any, sources: dict[str, str]) -> None:
        self.app = app
        self.site_map = site_map
        self.sources = sources
        state = state_of(app)
        self.settings = state.settings
        files = FileCache(self.settings.files_root)
        self.project = Project(
            state.table, self.settings.source_suffixes, self.settings.docs_prefix,
            sources.__contains__, files.is_file, files.is_folder,
        )
        root = self.project.repo_folder("")
        self.site = Site((root,), root, 0)
        self.path = _site_map_path(app)
        self.lines: dict[str, int] = {}
        try:
            text = self.path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        for span in external_toc_targets(text):
            self.lines.setdefault(text[span.start : span.end], text.count("\n", 0, span.start) + 1)
        #: entries now pages of other sites, and what each entry became (noted once each)
        self.now_urls: set[str] = set()
        self.notes: dict[str, str] = {}
        self._targets: dict[str, Target | None] = {}

    def mapped(self) -> Any:
        """The mapped site map, ``None`` when no entry changed."""
        old = self.site_map
        subtrees = {key: self.subtrees(old[key]) for key in old}  # notes the URL entries
        root = old.root
        new = type(old)(
            root=dataclasses.replace(
                root, docname=self.name(root.docname), subtrees=subtrees[root.docname]
            ),
            meta=old.meta,
            file_format=old.file_format,
        )
        for key in old:
            if key == root.docname or key in self.now_urls:
                continue  # a page that is now a URL is no document of the site map
            name = self.name(key)
            if name in new:  # two old pages merged into one: one document, both toctrees
                merged = new[name]
                new[name] = dataclasses.replace(
                    merged, subtrees=[*merged.subtrees, *subtrees[key]]
                )
            else:
                new[name] = dataclasses.replace(old[key], docname=name, subtrees=subtrees[key])
        return new if self.notes else None

    def subtrees(self, document: Any) -> list[Any]:
        return [dataclasses.replace(tree, items=[self.item(item) for item in tree.items])
                for tree in document.subtrees]

    def item(self, item: Any) -> Any:
        from sphinx_external_toc.api import FileItem, GlobItem, UrlItem

        if isinstance(item, GlobItem):
            return self.glob(item)
        if not isinstance(item, FileItem):
            return item
        written = str(item)
        target = self.target(written)
        if target is None or not target.url:
            return FileItem(self.name(written))
        if self.has_children(written):
            return item  # a URL has no toctree: sphinx-external-toc warns the entry
        self.now_urls.add(written)
        return UrlItem(target.url, self.title_of(written, target.url))

    def has_children(self, name: str) -> bool:
        return name in self.site_map and bool(self.site_map[name].subtrees)

    def target(self, written: str) -> Target | None:
        """Where the table sends an entry: ``None`` when it stays as written."""
        if written not in self._targets:
            landing = land("/" + written, "page", self.site, self.project)
            found = None
            if landing is not None and landing.exists and landing.changed:
                if landing.lands_on == "url":
                    found = Target(path="", url=landing.target)
                elif landing.lands_on == "page":
                    found = Target(path=landing.target)
            self._targets[written] = found
        return self._targets[written]

    def name(self, written: str) -> str:
        """The entry ``written`` names now, with its source suffix if it had one."""
        target = self.target(written)
        if target is None or target.url:
            return written
        new = target.path
        if strip_source_suffix(written, self.settings.source_suffixes)[1]:
            new = self.sources.get(new, new)  # its source file, as the entry was written
        self.note(written, new)
        return new

    def glob(self, pattern: Any) -> Any:
        """A pattern that matches no document, with its folder moved by ``[prefixes]``."""
        moved = moved_glob(str(pattern), self.project.table, self.sources)
        if moved is None:
            return pattern
        self.note(str(pattern), moved)
        return type(pattern)(moved)

    def title_of(self, written: str, url: str) -> str | None:
        """The title a URL entry shows for the page ``written`` (its site map title,
        else the old page's, from git); ``None`` with a warning when neither is known."""
        self.note(written, url)
        if written in self.site_map and self.site_map[written].title:
            return str(self.site_map[written].title)
        docname = strip_source_suffix(written, self.settings.source_suffixes)[0]
        title = old_page_title(self.settings, str(self.app.srcdir), docname)
        if title is None:
            warn(
                RelocateWarning.TOCTREE,
                f"site map entry {written!r} goes to {url} now, and the old page's title "
                "is not known: the toctree shows the URL; write it as 'url: "
                f"{url}' with a 'title:'",
                self.location(written),
            )
        return title

    def note(self, written: str, new: str) -> None:
        if written in self.notes:
            return
        self.notes[written] = new
        location = self.location(written)
        if self.app.config.relocate_report_rewrites:
            warn(
                RelocateWarning.OUTDATED,
                f"{written!r} is written against an old path; it now points to {new!r}",
                location,
            )
        elif self.app.verbosity > 0:  # no environment yet: the file is part of the text
            logger.verbose("%s: relocated site map entry %r → %r", location, written, new)

    def location(self, written: str) -> Location:
        return Location(str(self.path), self.lines.get(written, 0))


def _site_map_path(app: Sphinx) -> Path:
    """The site map's file, as sphinx-external-toc finds it."""
    written = str(getattr(app.config, "external_toc_path", "_toc.yml"))
    return Path(written) if os.path.isabs(written) else Path(app.srcdir, written)

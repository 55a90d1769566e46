"""The docs folder a command works on, read as the build would read it.

:func:`read_project` finds the Sphinx source folder DOCS_DIR names
(:func:`~sphinx_relocate.cli.docs_folder.find_docs`) and reads its conf.py (running it as
sphinx-build does, or reading its literal settings when it cannot run here) into a
:class:`DocsProject`, which loads the relocation table as the extension would and says
where it looked (:class:`TableSources`).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.cli.docs_folder import find_docs
from sphinx_relocate.cli.output import UsageError, display_path, stop
from sphinx_relocate.core.gallery import EXTENSION as GALLERY_EXTENSION
from sphinx_relocate.core.settings import Settings, SettingsError, build_settings
from sphinx_relocate.core.table import Problem, RelocationTable, load_table

if TYPE_CHECKING:
    from sphinx_relocate.core.peers import Converted


@dataclass
class DocsProject:
    """What the command needs to know of a docs folder, read from its conf.py."""

    confdir: Path
    srcdir: Path
    #: conf.py's settings, checked as the build checks them
    settings: Settings
    #: the pages that declare old names (``relocated_from``), once the table is loaded
    declaring: frozenset[str] = frozenset()
    #: :meth:`_gallery_files`, once read
    _gallery: list[tuple[str, str, tuple[str, ...]]] | None = field(
        default=None, init=False, repr=False
    )

    @property
    def source_suffixes(self) -> tuple[str, ...]:
        return self.settings.source_suffixes

    @property
    def exclude_patterns(self) -> list[str]:
        return list(self.settings.get("exclude_patterns") or ())

    def docnames(self) -> set[str]:
        """The project's documents, discovered the way Sphinx does, and the pages
        sphinx-gallery makes of the example scripts."""
        from sphinx.project import Project

        project = Project(self.srcdir, dict.fromkeys(self.source_suffixes, "restructuredtext"))
        return set(project.discover(self.excludes())) | self.gallery_pages()[0]

    def site_map(self, root: Path) -> str:
        """sphinx-external-toc's site map (``external_toc_path``), relative to the
        repository ``root``, when conf.py loads it; ``""`` otherwise or outside it."""
        if "sphinx_external_toc" not in (self.settings.get("extensions") or ()):
            return ""
        written = self.settings.get("external_toc_path") or "_toc.yml"
        if not isinstance(written, str):
            return ""
        path = os.path.normpath(os.path.join(os.path.abspath(self.srcdir), written))
        inside = os.path.relpath(path, os.path.abspath(root)).replace(os.sep, "/")
        return "" if inside == ".." or inside.startswith("../") else inside

    def asset_folders(self) -> list[str]:
        """``html_static_path`` and ``html_extra_path``: folders whose files the HTML
        builders copy, which are never pages (and may be images a page shows)."""
        return [
            str(path) for name in ("html_static_path", "html_extra_path")
            if isinstance(paths := self.settings.get(name), (list, tuple))
            for path in paths if isinstance(path, (str, os.PathLike))
        ]

    def excludes(self) -> list[str]:
        """What discovery leaves out: conf.py's ``exclude_patterns``, the folders Sphinx
        leaves out as its HTML builders do (``templates_path``, ``html_static_path``,
        ``html_extra_path``: xarray's ``_templates/autosummary/base.rst`` is no page),
        the usual build folder and hidden files."""
        assets = [
            str(path) for name in ("templates_path", "html_static_path", "html_extra_path")
            if isinstance(paths := self.settings.get(name), (list, tuple))
            for path in paths if isinstance(path, (str, os.PathLike))
        ]
        return [*self.exclude_patterns, *assets, "_build", "**/.*"]

    def labels(self) -> tuple[set[str], bool]:
        """The labels written in the sources and those sphinx-gallery writes, and
        whether they are all the project's: not with ``sphinx.ext.autosectionlabel``
        (every section title is one) or sources that are not reST or Markdown text
        (notebooks)."""
        from sphinx_relocate.core.rewrite import project_labels, walk_repository
        from sphinx_relocate.core.spans import MARKDOWN_SUFFIXES, REST_SUFFIXES

        files, _ = walk_repository(self.srcdir)
        found = project_labels(self.srcdir, "", files, self.source_suffixes)
        found |= self.gallery_pages()[1]
        extensions = self.settings.get("extensions") or ()
        complete = "sphinx.ext.autosectionlabel" not in extensions and all(
            suffix in (*MARKDOWN_SUFFIXES, *REST_SUFFIXES, ".txt")
            for suffix in self.source_suffixes
        )
        return found, complete

    def gallery_conf(self) -> object:
        """conf.py's ``sphinx_gallery_conf`` when it loads sphinx-gallery (its default
        galleries where conf.py sets none), else ``None``; ``None`` too when conf.py
        sets it but could not be run and the value is no literal: never guessed."""
        from sphinx_relocate.core.settings import setting_line

        if GALLERY_EXTENSION not in (self.settings.get("extensions") or ()):
            return None
        conf = self.settings.get("sphinx_gallery_conf")
        if conf is None and setting_line(self.confdir / "conf.py", "sphinx_gallery_conf"):
            return None  # set, but not read: the note on conf.py names it
        return conf if conf is not None else {}

    def gallery_pages(self) -> tuple[set[str], set[str]]:
        """The documents and labels sphinx-gallery makes of the example scripts on
        disk, when conf.py loads it: a command sees no source of them."""
        documents = {docname for _, docname, _ in self._gallery_files()}
        labels = {label for _, _, made in self._gallery_files() for label in made}
        return documents, labels

    def gallery_scripts(self, root: Path) -> dict[str, str]:
        """sphinx-gallery's example scripts under ``root`` (relative to it) by the
        document each makes; folders' header files are left out."""
        from sphinx_relocate.core.gallery import HEADERS

        top = Path(os.path.abspath(root))
        scripts: dict[str, str] = {}
        for path, docname, _ in self._gallery_files():
            if os.path.basename(path) not in HEADERS:
                inside = os.path.relpath(path, top).replace(os.sep, "/")
                if not inside.startswith("../"):
                    scripts[inside] = docname
        return scripts

    def _gallery_files(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """``(absolute path, document, labels)`` of every file of the galleries on disk
        that makes a page, read once."""
        from sphinx_relocate.core.gallery import labels_of
        from sphinx_relocate.core.git import repository_galleries

        if self._gallery is not None:
            return self._gallery
        found: list[tuple[str, str, tuple[str, ...]]] = []
        conf = self.gallery_conf()
        root, galleries = repository_galleries(conf, self.srcdir) if conf is not None else (
            Path(), [])
        for gallery in galleries:
            top = root / gallery.examples
            for folder, _, names in os.walk(top):
                rel = os.path.relpath(folder, top).replace(os.sep, "/")
                for name in sorted(names):
                    path = gallery.examples + ("" if rel == "." else rel + "/") + name
                    docname = gallery.page_of(path)
                    if docname is not None:
                        made = labels_of(docname, path, gallery)
                        found.append((str(root / path), docname, made))
        self._gallery = found
        return found

    def template_files(self, root: Path) -> list[str]:
        """The HTML files of ``templates_path`` under ``root``, relative to it: the
        templates whose ``pathto('name')`` name pages."""
        top = Path(os.path.abspath(root))
        found: list[str] = []
        for folder in self.settings.get("templates_path") or ():
            if not isinstance(folder, str):
                continue
            base = Path(os.path.abspath(self.confdir / folder))
            for current, folders, names in os.walk(base):
                folders.sort()
                for name in sorted(names):
                    if name.endswith((".html", ".htm")):
                        inside = os.path.relpath(os.path.join(current, name), top)
                        if not inside.startswith(".."):
                            found.append(inside.replace(os.sep, "/"))
        return found

    def extra_html(self, root: Path) -> dict[str, str]:
        """The HTML files ``html_extra_path`` copies into the output (relative to
        ``root``, inside it), each with the output folder it is served from."""
        from sphinx.util.matching import Matcher

        from sphinx_relocate.core.history import extra_files

        found: dict[str, str] = {}
        files = extra_files(self.confdir, self.settings.get("html_extra_path") or (),
                            Matcher(self.exclude_patterns))
        top = os.path.abspath(root)
        for served, path in files.items():
            inside = os.path.relpath(os.path.abspath(path), top)
            if served.endswith((".html", ".htm")) and not inside.startswith(".."):
                found[inside.replace(os.sep, "/")] = posixpath.dirname(served)
        return found

    def conf_file(self, root: Path) -> str:
        """conf.py relative to ``root`` (whose ``html_sidebars`` keys name pages); ``""``
        when there is none inside it."""
        return _file_in(root, self.confdir / "conf.py")

    def redirects_file(self, root: Path) -> str:
        """sphinxext-rediraffe's redirects file (``rediraffe_redirects = "redirects.txt"``,
        from the source folder) relative to ``root``; ``""`` when there is none inside it."""
        setting = self.settings.get("rediraffe_redirects")
        if not isinstance(setting, str) or not setting:
            return ""
        return _file_in(root, self.srcdir / setting)

    def renders_docstrings(self) -> bool:
        """Whether the build makes docstrings part of pages (autodoc, autosummary,
        sphinx-autoapi): then ``rewrite`` reads the repository's Python files too."""
        extensions = self.settings.get("extensions") or ()
        return any(name in extensions for name in _DOCSTRING_EXTENSIONS)

    def autoapi(self) -> tuple[Path, str] | None:
        """conf.py and the folder sphinx-autoapi writes its pages into, when conf.py
        loads it (``autoapi_root``, ``autoapi`` by default)."""
        from sphinx_relocate.core.git import AUTOAPI_ROOT, autoapi_folder

        folder = autoapi_folder({"extensions": self.settings.get("extensions"),
                                 "autoapi_root": self.settings.get("autoapi_root", AUTOAPI_ROOT)})
        conf = self.confdir / "conf.py"
        return None if folder is None or not conf.is_file() else (conf, folder)

    def writes_autosummary_pages(self) -> bool:
        """Whether autosummary writes pages here, as conf.py's literals say."""
        from sphinx_relocate.core.git import autosummary_writes_pages

        return autosummary_writes_pages(self.settings.get("extensions") or (),
                                        self.settings.get("autosummary_generate", True))

    def generated_folders(self) -> dict[str, str]:
        """The folders autosummary and sphinx-autoapi write pages into when the docs are
        built (with a trailing ``/``), each with what writes it (``autosummary
        (api.rst:7)``, the ``:toctree:`` that names it): their pages are in no source a
        command can read."""
        from sphinx_relocate.core.git import generated_folder
        from sphinx_relocate.core.spans import autosummary_folders

        found: dict[str, str] = {}
        autoapi = self.autoapi()
        if autoapi is not None:
            found[autoapi[1]] = f"sphinx-autoapi ({display_path(autoapi[0])})"
        if not self.writes_autosummary_pages():
            return found
        for docname in sorted(self.docnames()):
            for suffix in self.source_suffixes:
                path = self.srcdir / f"{docname}{suffix}"
                if path.is_file():
                    text = path.read_text(encoding="utf-8", errors="replace")
                    for line, written in autosummary_folders(text, path.name):
                        folder = generated_folder(docname + suffix, written)
                        if folder is not None:
                            found.setdefault(folder, f"autosummary ({display_path(path)}:{line})")
                    break
        return found

    def generated_pages(self) -> set[str]:
        """The pages the HTML builders write without a source, as the build knows them
        (``queries.generated_pages``): the indices, search and ``html_additional_pages``
        (a domain's own indices besides Python's are known only to a build)."""
        from sphinx_relocate.core.landing import BUILT_PAGES

        additional = self.settings.get("html_additional_pages")
        return {*BUILT_PAGES, *(additional if isinstance(additional, dict) else ())}

    def peers(self, *, loaded_too: bool = False) -> Converted:
        """The peers' tables in conf.py as table rows, as the extension reads them: not the
        table of a peer that is still loaded (that one is the peer's), unless ``loaded_too``."""
        return self._peer_rows(loaded=None if loaded_too else False)

    def peer_redirects(self) -> RelocationTable:
        """The redirects of the peers conf.py still loads, as a table: their own stubs
        serve those old URLs (as the build reads them: ``config.read_loaded_peers``)."""
        converted = self._peer_rows(loaded=True)
        if not converted.rows:
            return RelocationTable()
        table, _problems = load_table(  # their problems are the peer's to report
            None, source_suffixes=self.source_suffixes, peer_rows=converted.rows
        )
        return table

    def _peer_rows(self, *, loaded: bool | None) -> Converted:
        """The rows of the peers' tables in conf.py: of the peers conf.py loads
        (``loaded``), of those it does not, or of both (``None``)."""
        from sphinx_relocate.core.peers import PEERS, Converted, convert, documents_on_disk

        extensions = set(self.settings.get("extensions") or ())
        values = {
            name: self.settings.get(name)
            for name, (_, module) in PEERS.items()
            if self.settings.get(name) and (loaded is None or (module in extensions) == loaded)
        }
        if not values:
            return Converted()
        conf_py = self.confdir / "conf.py"
        return convert(
            values,
            conf_file=display_path(conf_py),
            conf_text=conf_py.read_text("utf-8", "replace"),
            srcdir=self.srcdir,
            shown=display_path,
            html_suffix=self.settings.get("html_file_suffix") or ".html",
            is_document=documents_on_disk(self.srcdir, self.source_suffixes),
        )

    def table_sources(self, table_option: Path | None) -> TableSources:
        """Where the table is read from (as :meth:`load_table` reads it)."""
        from sphinx_relocate.core.peers import PEERS

        setting = self.settings.table
        path = table_option or (self.confdir / setting if setting else None)
        extensions = set(self.settings.get("extensions") or ())
        names = [
            name for name in ("relocate_map", *PEERS)
            if self.settings.get(name) and (name not in PEERS or PEERS[name][1] not in extensions)
        ]
        return TableSources(
            conf_py=display_path(self.confdir / "conf.py"),
            file=display_path(path) if path is not None else None,
            # a table named other than by default counts even when missing: its reader
            # says what is wrong with it
            file_found=table_option is not None or self.settings.table_path is not None,
            settings=tuple(names),
            peers_loaded=tuple(
                name for name in PEERS
                if self.settings.get(name) and PEERS[name][1] in extensions
            ),
            pages=len(self.declaring),
        )

    def say_read(self, table_option: Path | None, table: RelocationTable) -> TableSources:
        """One line on stderr: the folder, its conf.py and the table read (or where the
        command looked for one)."""
        sources = self.table_sources(table_option)
        what = f"table {sources.read(table)}" if sources else (
            f"no relocation table (looked for {sources.looked()})"
        )
        told = self.settings.repo_url_from
        if told and told != "relocate_repo_url":  # read from the theme's options: say so
            what += f"; repository URL {self.settings.repo_url} from {told}"
        print(f"read {sources.conf_py}; {what}", file=sys.stderr)
        return sources

    def load_table(
        self, table_option: Path | None, *, peers: Converted | None = None,
        table_text: str | None = None,
    ) -> tuple[RelocationTable, list[Problem]]:
        """The table as the extension would read it (``--table`` overrides conf.py).

        ``peers`` replaces the peers' rows it would read (:meth:`peers`); ``table_text``
        the table file's text (what a command is about to write there).
        """
        if table_option is not None:
            if table_text is None and not table_option.is_file():
                raise UsageError(f"{table_option}: no such table file")
            path: Path | None = table_option
        else:
            path = self.settings.table_path
        from sphinx_relocate.core.declared import declared_names
        from sphinx_relocate.sphinx_ext.discovery import pattern_matchers

        mapping = self.settings.get("relocate_map") or {}
        conf_py = self.confdir / "conf.py"
        converted = self.peers() if peers is None else peers
        declared = declared_names(
            self.srcdir, self.source_suffixes,
            *pattern_matchers(self.excludes(), self.settings.get("include_patterns") or ["**"]),
            shown=display_path,
        )
        self.declaring = frozenset(
            [row[3].file for row in declared.rows] + [p.location.file for p in declared.problems]
        )
        return load_table(
            path,
            mapping,
            mapping_file=display_path(conf_py),
            mapping_text=conf_py.read_text("utf-8", "replace") if conf_py.exists() else "",
            source_suffixes=self.source_suffixes,
            display_name=display_path(path) if path else None,
            peer_rows=[*converted.rows, *declared.rows],
            peer_problems=[*converted.problems, *declared.problems],
            table_bytes=None if table_text is None else table_text.encode("utf-8"),
        )


@dataclass(frozen=True)
class TableSources:
    """Where a command looked for the table and what it found there, to say so."""

    conf_py: str
    file: str | None
    file_found: bool
    settings: tuple[str, ...]
    #: peers' tables in conf.py left to the peer, which conf.py still loads
    peers_loaded: tuple[str, ...] = ()
    #: pages that declare old names (``relocated_from``)
    pages: int = 0

    def looked(self) -> str:
        """``docs/relocations.toml, relocate_map, redirects, rediraffe_redirects``."""
        names = [self.file or "relocate_table = None", "relocate_map", *_peer_names()]
        looked = f"{', '.join(names[:-1])} or {names[-1]} in {self.conf_py}"
        for name in self.peers_loaded:
            looked += f"; {name} is left to {_peer_names()[name]}, which conf.py loads"
        return looked

    def names(self) -> str:
        """``docs/relocations.toml and relocate_map in docs/conf.py``."""
        parts = [self.file] if self.file and self.file_found else []
        if self.settings:
            parts.append(f"{', '.join(self.settings)} in {self.conf_py}")
        if self.pages:
            parts.append(f"relocated_from in {self.pages} page{'s' if self.pages != 1 else ''}")
        return " and ".join(parts)

    def read(self, table: RelocationTable) -> str:
        """``docs/relocations.toml and relocate_map in docs/conf.py: 3 entries``."""
        count = len(table.entries)
        return f"{self.names()}: {count} entr{'y' if count == 1 else 'ies'}"

    def require(self, table: RelocationTable | None, doing: str) -> None:
        """Stop (exit 2) when there is no table, or one without entries: a gate that
        checks nothing must not pass."""
        if not self:
            raise UsageError(f"no relocation table (looked for {self.looked()}): {doing}")
        if table is not None and not table.entries:
            raise UsageError(f"no relocation entries in {self.names()}: {doing}")

    def __bool__(self) -> bool:
        return self.file_found or bool(self.settings) or bool(self.pages)


def _peer_names() -> dict[str, str]:
    """The peers' table settings, and the extension each belongs to."""
    from sphinx_relocate.core.peers import PEERS

    return {name: module for name, (_, module) in PEERS.items()}


#: the extensions that put docstrings on pages
_DOCSTRING_EXTENSIONS = ("sphinx.ext.autodoc", "sphinx.ext.autosummary", "autoapi.extension")


def read_project(docs_dir: Path) -> DocsProject:
    """Read conf.py the way sphinx-build does (it runs the file); when running it fails
    (an import of the project's own package, not installed here), read its literal
    settings instead (:mod:`sphinx_relocate.core.confpy`)."""
    docs_dir = find_docs(docs_dir)
    conf_py = docs_dir / "conf.py"
    try:
        values = _run_conf(conf_py.resolve())
    except Exception as err:  # a broken conf.py is the user's, not ours
        values = _literal_settings(conf_py, err)
    srcdir, values = _multiproject(docs_dir, values)
    try:
        settings = build_settings(
            values, confdir=docs_dir, srcdir=srcdir, shown=display_path(conf_py)
        )
    except SettingsError as err:
        stop([str(problem) for problem in err.problems])
        raise  # pragma: no cover - stop raised
    return DocsProject(confdir=docs_dir, srcdir=srcdir, settings=settings)


def _run_conf(conf_py: Path) -> dict[str, Any]:
    """The settings of ``conf_py``, run as sphinx-build runs it, with what it prints (and
    what the programs it starts print: Spack's runs ``spack commands``) sent to stderr:
    the commands' stdout is theirs (``from-git > relocations.toml``)."""
    from sphinx.config import eval_config_file

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            return eval_config_file(_conf_path_arg(conf_py), tags=_empty_tags())
    finally:
        os.dup2(saved, 1)
        os.close(saved)


#: sphinx-multiproject: one conf.py for several projects, each with its source folder
MULTIPROJECT = "multiproject"


def _multiproject(docs_dir: Path, values: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The source folder and the settings of the build: with sphinx-multiproject (Read
    the Docs' own docs), those of the project its environment variable picks (the first
    one by default), as the extension sets them when the build starts: the folder is
    its ``path`` (its name by default), its ``config`` and, unless ``use_config_file`` is
    false, that folder's conf.py add to the settings.  Says which project it read."""
    projects = values.get("multiproject_projects")
    if MULTIPROJECT not in (values.get("extensions") or ()) or not isinstance(projects, dict) \
            or not projects:
        return docs_dir, values
    variable = values.get("multiproject_env_var") or "PROJECT"
    name = os.environ.get(variable, next(iter(projects)))
    options = projects.get(name)
    if not isinstance(options, dict):
        raise UsageError(
            f"{variable}={name}: not a project of multiproject_projects in "
            f"{display_path(docs_dir / 'conf.py')} ({', '.join(map(str, projects))})"
        )
    srcdir = (docs_dir / str(options.get("path", name))).resolve()
    merged = {**values, **(options.get("config") or {})}
    own_conf = srcdir / "conf.py"
    if options.get("use_config_file", True) and own_conf.is_file():
        try:
            merged.update(_run_conf(own_conf))
        except Exception as err:  # the user's, not ours
            raise UsageError(_conf_error(own_conf, err)) from None
    print(f"sphinx-multiproject: project {name!r} ({variable}), source folder "
          f"{display_path(srcdir)}", file=sys.stderr)
    return srcdir, merged


def _file_in(root: Path, file: Path) -> str:
    """``file`` relative to ``root`` (``/``-separated); ``""`` when it is outside or no file."""
    path = Path(os.path.abspath(file))
    inside = os.path.relpath(path, os.path.abspath(root))
    if inside.startswith("..") or not path.is_file():
        return ""
    return inside.replace(os.sep, "/")


#: Settings that make up the table: read from a conf.py that cannot run only as literals.
_TABLE_SETTINGS = ("relocate_table", "relocate_map", "redirects", "rediraffe_redirects")


def _literal_settings(conf_py: Path, err: Exception) -> dict[str, Any]:
    """The settings of a conf.py that fails to run, read as literals, with one line
    saying so; a setting of the table that is no literal stops the command."""
    from sphinx_relocate.core.confpy import read_literals

    failure = _conf_error(conf_py, err)
    cause = err.__cause__ or err
    if isinstance(cause, SyntaxError):
        raise UsageError(failure)
    try:
        text = conf_py.read_text("utf-8")
        found = read_literals(text, str(conf_py))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        raise UsageError(failure) from None
    blocking = [(name, line, why) for name, line, why in found.unread if name in _TABLE_SETTINGS]
    if blocking:
        name, line, why = blocking[0]
        raise UsageError(
            f"{failure}; its {name} (line {line}) is {why}, so the table cannot be read "
            "without running it"
        )
    read = ", ".join(found.read_names()) or "none of the settings the commands need"
    unread = ", ".join(f"{name} (line {line}: {why})" for name, line, why in found.unread)
    unread = f"; not read: {unread}" if unread else ""
    where, why = _conf_failure(conf_py, err)
    print(f"note: {where}: cannot run it here ({why}); read as literals: {read}{unread}",
          file=sys.stderr)
    return found.values


def _conf_error(conf_py: Path, err: Exception) -> str:
    """One line for a conf.py that fails: its file, line and the Python error."""
    where, why = _conf_failure(conf_py, err)
    return f"{where}: cannot be read: {why}"


def _conf_failure(conf_py: Path, err: Exception) -> tuple[str, str]:
    """``file:line`` of a conf.py that fails (the line that raised), and why."""
    cause = err.__cause__ or err
    if isinstance(cause, SyntaxError):
        return f"{display_path(conf_py)}:{cause.lineno or 0}", str(cause.msg)
    line = 0
    for frame in traceback.extract_tb(cause.__traceback__):
        if Path(frame.filename).resolve() == conf_py.resolve():
            line = frame.lineno or 0
    return f"{display_path(conf_py)}:{line}", f"{type(cause).__name__}: {cause}"


def _conf_path_arg(conf_py: Path) -> Any:
    """Sphinx up to 8.1 wants a str here, Sphinx 9 a Path (8.2 takes both)."""
    import sphinx

    return str(conf_py) if sphinx.version_info < (8, 2) else conf_py


def _empty_tags() -> Any:
    from sphinx.util.tags import Tags

    return Tags()


def table_or_exit(project: DocsProject, table_option: Path | None) -> RelocationTable:
    """The project's table; fatal problems are usage errors (one line each)."""
    table, problems = project.load_table(table_option)
    fatal = [p for p in problems if p.fatal]
    if fatal:
        for problem in fatal[:-1]:
            print(problem, file=sys.stderr)
        raise UsageError(str(fatal[-1]))
    return table


def section_ids(project: DocsProject) -> Callable[[str], set[str]]:
    """The section ids of a page of the project now, for the sections of moved pages."""
    from sphinx_relocate.core.git import ids_now

    return ids_now(project.srcdir, project.source_suffixes, project.settings.headings)


def table_path(project: DocsProject, option: Path | None) -> Path:
    """The table file a command writes: ``--table``, else the one conf.py names.

    With sphinx-multiproject, a new table beside the shared conf.py would be every
    project's: it is made only where this project's settings name it."""
    setting = project.settings.table
    path = option or project.settings.table_path
    if path is None:
        if not setting:
            raise UsageError("conf.py sets relocate_table = None; pass --table FILE")
        path = project.confdir / setting
    shared = (
        option is None and "relocate_table" not in project.settings.values
        and MULTIPROJECT in (project.settings.get("extensions") or ())
        and project.srcdir != project.confdir and not path.exists()
    )
    if shared:
        inside = os.path.relpath(project.srcdir / "relocations.toml", project.confdir)
        raise UsageError(
            f"{display_path(path)}: every project of sphinx-multiproject would read a table "
            f"here; give this one its own, relocate_table = {inside.replace(os.sep, '/')!r} "
            "in its \"config\" in multiproject_projects (nothing was changed)"
        )
    return path


def write_merged(path: Path, merge: Callable[[str], str]) -> None:
    """Write ``merge(text)`` of the table file (created when missing), keeping its encoding.

    A table that is a symlink (one table shared by several docs folders) is written
    through to its target, atomically there: the link stays a link.
    """
    from sphinx_relocate.core.rewrite import SourceFile, read_source, write_source

    path = Path(os.path.realpath(path))
    source = (read_source(path) if path.exists() else None) or SourceFile("", "utf-8", b"")
    try:
        merged = merge(source.text)
    except ValueError as err:  # tomllib.TOMLDecodeError
        raise UsageError(f"{display_path(path)}: cannot merge the entries: {err}") from None
    if merged.strip() == source.text.strip():
        return
    if path.exists():
        write_source(path, source, merged)
    else:
        path.write_text(merged, encoding="utf-8")


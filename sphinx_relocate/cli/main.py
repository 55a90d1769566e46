"""The ``sphinx-relocate`` command: check a table, rewrite sources, derive a table from git.

Exit status: 0 clean, 1 findings (or, for ``rewrite --check``, changes to make),
2 usage errors.  Every finding is one line ``file:line: message``, or with
``--format github`` a GitHub Actions annotation (:func:`finding`, for every command).
"""

from __future__ import annotations

import argparse
import os
import reprlib
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.core.paths import DEFAULT_SOURCE_SUFFIXES
from sphinx_relocate.core.table import (
    Location,
    Problem,
    RelocationTable,
    check_against_project,
    check_labels,
    load_table,
)

if TYPE_CHECKING:
    from sphinx_relocate.core.git import Changes
    from sphinx_relocate.core.peers import Converted
    from sphinx_relocate.core.rewrite import FileChange

#: Trees with at least this many candidate files get a progress line on stderr.
PROGRESS_THRESHOLD = 2000


class UsageError(Exception):
    """A problem with the command line or the docs folder: exit status 2."""


@dataclass
class DocsProject:
    """What the command needs to know of a docs folder, read from its conf.py."""

    confdir: Path
    srcdir: Path
    settings: dict[str, Any]
    source_suffixes: tuple[str, ...]
    exclude_patterns: list[str]
    #: the pages that declare old names (``relocated_from``), once the table is loaded
    declaring: frozenset[str] = frozenset()

    def docnames(self) -> set[str]:
        """The project's documents, discovered the way Sphinx does."""
        from sphinx.project import Project

        project = Project(self.srcdir, dict.fromkeys(self.source_suffixes, "restructuredtext"))
        return set(project.discover(self.excludes()))

    def excludes(self) -> list[str]:
        """What discovery leaves out: conf.py's ``exclude_patterns``, the usual build
        folder and hidden files."""
        return [*self.exclude_patterns, "_build", "**/.*"]

    def labels(self) -> tuple[set[str], bool]:
        """The labels written in the sources, and whether they are all the project's:
        not with ``sphinx.ext.autosectionlabel`` (every section title is one) or sources
        that are not reST or Markdown text (notebooks)."""
        from sphinx_relocate.core.rewrite import project_labels, walk_repository
        from sphinx_relocate.core.spans import MARKDOWN_SUFFIXES, REST_SUFFIXES

        files, _ = walk_repository(self.srcdir)
        found = project_labels(self.srcdir, "", files, self.source_suffixes)
        extensions = self.settings.get("extensions") or ()
        complete = "sphinx.ext.autosectionlabel" not in extensions and all(
            suffix in (*MARKDOWN_SUFFIXES, *REST_SUFFIXES, ".txt")
            for suffix in self.source_suffixes
        )
        return found, complete

    def peers(self, *, loaded_too: bool = False) -> Converted:
        """The peers' tables in conf.py as table rows, as the extension reads them: not the
        table of a peer that is still loaded (that one is the peer's), unless ``loaded_too``."""
        from sphinx_relocate.core.peers import PEERS, Converted, convert, documents_on_disk

        extensions = set(self.settings.get("extensions") or ())
        values = {
            name: self.settings[name]
            for name, (_, module) in PEERS.items()
            if self.settings.get(name) and (loaded_too or module not in extensions)
        }
        if not values:
            return Converted()
        conf_py = self.confdir / "conf.py"
        return convert(
            values,
            conf_file=_shown(conf_py),
            conf_text=conf_py.read_text("utf-8", "replace"),
            srcdir=self.srcdir,
            shown=_shown,
            html_suffix=self.settings.get("html_file_suffix") or ".html",
            is_document=documents_on_disk(self.srcdir, self.source_suffixes),
        )

    def table_sources(self, table_option: Path | None) -> TableSources:
        """Where the table is read from (as :meth:`load_table` reads it)."""
        from sphinx_relocate.core.peers import PEERS
        from sphinx_relocate.sphinx_ext.config import table_file

        setting = self.settings.get("relocate_table", "relocations.toml")
        path = table_option or (self.confdir / setting if setting else None)
        extensions = set(self.settings.get("extensions") or ())
        names = [
            name for name in ("relocate_map", *PEERS)
            if self.settings.get(name) and (name not in PEERS or PEERS[name][1] not in extensions)
        ]
        return TableSources(
            conf_py=_shown(self.confdir / "conf.py"),
            file=_shown(path) if path is not None else None,
            # a table named other than by default counts even when missing: its reader
            # says what is wrong with it
            file_found=table_option is not None or table_file(self.confdir, setting) is not None,
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
        print(f"read {sources.conf_py}; {what}", file=sys.stderr)
        return sources

    def load_table(
        self, table_option: Path | None, *, peers: Converted | None = None
    ) -> tuple[RelocationTable, list[Problem]]:
        """The table as the extension would read it (``--table`` overrides conf.py).

        ``peers`` replaces the peers' rows it would read (:meth:`peers`).
        """
        from sphinx_relocate.sphinx_ext.config import table_file

        if table_option is not None:
            if not table_option.is_file():
                raise UsageError(f"{table_option}: no such table file")
            path: Path | None = table_option
        else:
            path = table_file(self.confdir, self.settings.get("relocate_table", "relocations.toml"))
        from sphinx_relocate.core.declared import declared_names

        mapping = self.settings.get("relocate_map") or {}
        conf_py = self.confdir / "conf.py"
        converted = self.peers() if peers is None else peers
        declared = declared_names(
            self.srcdir, self.source_suffixes, self.excludes(),
            self.settings.get("include_patterns") or ["**"], shown=_shown,
        )
        self.declaring = frozenset(
            [row[3].file for row in declared.rows] + [p.location.file for p in declared.problems]
        )
        return load_table(
            path,
            mapping,
            mapping_file=_shown(conf_py),
            mapping_text=conf_py.read_text("utf-8", "replace") if conf_py.exists() else "",
            source_suffixes=self.source_suffixes,
            display_name=_shown(path) if path else None,
            peer_rows=[*converted.rows, *declared.rows],
            peer_problems=[*converted.problems, *declared.problems],
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


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the current folder when below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


#: Where a docs folder usually is, looked at first when DOCS_DIR has no conf.py.
DOCS_FOLDERS = (
    "docs", "doc", "docs/source", "doc/source", "docs/src", "doc/src", "documentation",
    "Documentation", "source", "sphinx", "docs/sphinx",
)
#: How many folder levels below DOCS_DIR the search for conf.py goes, and how many
#: folders it looks into at most.
SEARCH_DEPTH = 3
SEARCH_FOLDERS = 5000
#: Folders the search never enters (besides dot-folders, virtual environments and
#: build output): tools' folders, which hold no docs of the project's own.
SEARCH_SKIPPED = frozenset(
    {"_build", "build", "dist", "node_modules", "site-packages", "__pycache__", "venv",
     "env"}
)
#: Files that make a folder with conf.py a Sphinx source folder to the search.
_PAGE_SUFFIXES = (".rst", ".md", ".txt", ".ipynb", ".myst")


def find_docs(path: Path) -> Path:
    """The Sphinx source folder DOCS_DIR names: itself when it has conf.py, else the one
    folder below it that does (said on stderr); none or several is a usage error."""
    if not path.is_dir():
        raise UsageError(f"{path}: not a folder")
    if (path / "conf.py").is_file():
        return path
    usual = [path / name for name in DOCS_FOLDERS if (path / name / "conf.py").is_file()]
    if len(usual) > 1:
        raise UsageError(_several(path, usual))
    found, bare = usual, list[Path]()
    if not found:
        found, bare = _search_conf_py(path)
        if len(found) > 1:
            raise UsageError(_several(path, found))
    if not found:
        without = ""
        if bare:
            names = ", ".join(_shown(folder / "conf.py") for folder in bare[:3])
            without = f"; {names} ha{'s' if len(bare) == 1 else 've'} no pages next to it"
        raise UsageError(
            f"{path}: no conf.py in it or below it (looked in {', '.join(DOCS_FOLDERS[:4])}, "
            f"…, {SEARCH_DEPTH} levels down){without}: give the folder with conf.py"
        )
    print(f"no conf.py in {path}: using {_shown(found[0] / 'conf.py')}", file=sys.stderr)
    return found[0]


def _several(path: Path, found: list[Path]) -> str:
    names = ", ".join(_shown(folder / "conf.py") for folder in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return f"{path}: no conf.py in it, {len(found)} below it ({names}{more}): give one folder"


def _search_conf_py(root: Path) -> tuple[list[Path], list[Path]]:
    """Folders below ``root`` (breadth first, bounded) with conf.py and pages next to it,
    and those with a conf.py but no pages (a package's settings module, not Sphinx's)."""
    found: list[Path] = []
    bare: list[Path] = []
    level = [root]
    visited = 0
    for _ in range(SEARCH_DEPTH):
        below: list[Path] = []
        for folder in level:
            try:
                entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False) or _not_searched(entry.name):
                    continue
                visited += 1
                if visited > SEARCH_FOLDERS:
                    return found, bare
                child = Path(entry.path)
                if (child / "pyvenv.cfg").exists() or (child / ".buildinfo").exists():
                    continue
                if (child / "conf.py").is_file():
                    (found if _has_pages(child) else bare).append(child)
                below.append(child)
        level = below
    return found, bare


def _not_searched(name: str) -> bool:
    return name.startswith(".") or name in SEARCH_SKIPPED


def _has_pages(folder: Path) -> bool:
    try:
        return any(entry.name.endswith(_PAGE_SUFFIXES) for entry in os.scandir(folder))
    except OSError:
        return False


def read_project(docs_dir: Path) -> DocsProject:
    """Read conf.py the way sphinx-build does (it runs the file); when running it fails
    (an import of the project's own package, not installed here), read its literal
    settings instead (:mod:`sphinx_relocate.core.confpy`)."""
    docs_dir = find_docs(docs_dir)
    conf_py = docs_dir / "conf.py"
    from sphinx.config import eval_config_file

    try:
        settings = eval_config_file(_conf_path_arg(conf_py.resolve()), tags=_empty_tags())
    except Exception as err:  # a broken conf.py is the user's, not ours
        settings = _literal_settings(conf_py, err)
    _check_settings(conf_py, settings)
    suffix = settings.get("source_suffix")
    suffixes: tuple[str, ...]
    if isinstance(suffix, str):
        suffixes = (suffix,)
    elif suffix:
        suffixes = tuple(suffix)
    else:
        extensions = settings.get("extensions") or ()
        suffixes = (".rst", ".md") if "myst_parser" in extensions else (".rst",)
    if "myst_parser" in (settings.get("extensions") or ()) and ".md" not in suffixes:
        suffixes = (*suffixes, ".md")
    return DocsProject(
        confdir=docs_dir,
        srcdir=docs_dir,
        settings=settings,
        source_suffixes=suffixes or DEFAULT_SOURCE_SUFFIXES,
        exclude_patterns=list(settings.get("exclude_patterns") or ()),
    )


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


#: The settings of Sphinx and myst-parser that the commands read, and the types they take.
_OTHER_SETTINGS: dict[str, tuple[type, ...]] = {
    "extensions": (list, tuple),
    "source_suffix": (str, list, tuple, dict),
    "exclude_patterns": (list, tuple),
    "myst_heading_anchors": (int,),
    "html_baseurl": (str,),
    "locale_dirs": (list, tuple),
    "gettext_compact": (bool, str),
}
#: Settings whose items (or keys) must be strings: the commands use each as a path.
_STRING_ITEMS = ("extensions", "source_suffix", "exclude_patterns", "locale_dirs")
#: The ``relocate_*`` settings the commands read (their types are in ``CONFIG_VALUES``).
_RELOCATE_SETTINGS = (
    "relocate_table", "relocate_map", "relocate_repo_root", "relocate_repo_url",
    "relocate_published",
)


def _check_settings(conf_py: Path, settings: dict[str, Any]) -> None:
    """Refuse a value of the wrong type that a command reads: one line each, exit 2."""
    from sphinx_relocate.sphinx_ext.config import setting_location, setting_problem

    wanted = {**dict.fromkeys(_RELOCATE_SETTINGS), **_OTHER_SETTINGS}
    problems: dict[str, str] = {}
    for name, types in wanted.items():
        if name in settings and (
            problem := setting_problem(conf_py, _shown(conf_py), name, settings[name], types)
        ):
            problems[name] = str(problem)
    for name in _STRING_ITEMS:
        value = settings.get(name)
        if name in problems or not isinstance(value, (list, tuple, dict)):
            continue
        bad = [item for item in value if not isinstance(item, str)]
        if isinstance(value, dict) and name == "source_suffix":
            bad += [kind for kind in value.values() if not isinstance(kind, (str, type(None)))]
        if bad:
            where = setting_location(conf_py.parent, name)
            problems[name] = (
                f"{_shown(conf_py)}:{where.line}: {name} must hold strings only, not "
                f"{type(bad[0]).__name__} {reprlib.repr(bad[0])}: {reprlib.repr(value)}"
            )
    _stop(list(problems.values()))


def _conf_error(conf_py: Path, err: Exception) -> str:
    """One line for a conf.py that fails: its file, line and the Python error."""
    where, why = _conf_failure(conf_py, err)
    return f"{where}: cannot be read: {why}"


def _conf_failure(conf_py: Path, err: Exception) -> tuple[str, str]:
    """``file:line`` of a conf.py that fails (the line that raised), and why."""
    cause = err.__cause__ or err
    if isinstance(cause, SyntaxError):
        return f"{_shown(conf_py)}:{cause.lineno or 0}", str(cause.msg)
    line = 0
    for frame in traceback.extract_tb(cause.__traceback__):
        if Path(frame.filename).resolve() == conf_py.resolve():
            line = frame.lineno or 0
    return f"{_shown(conf_py)}:{line}", f"{type(cause).__name__}: {cause}"


def _conf_path_arg(conf_py: Path) -> Any:
    """Sphinx up to 8.1 wants a str here, Sphinx 9 a Path (8.2 takes both)."""
    import sphinx

    return str(conf_py) if sphinx.version_info < (8, 2) else conf_py


def _empty_tags() -> Any:
    from sphinx.util.tags import Tags

    return Tags()


def finding(style: str, file: str, line: int, message: str, column: int = 0) -> str:
    """One finding of a gate: ``file:line[:column]: message``, or for ``--format github``
    an Actions annotation, so CI marks the line in the pull request."""
    if style != "github":
        where = f"{file}:{line}:{column}" if line and column else f"{file}:{line}"
        return f"{where}: {message}" if line else f"{file}: {message}"
    where = f"file={_escape(file, in_property=True)}" + (f",line={line}" if line else "")
    where += f",col={column}" if line and column else ""
    return f"::error {where}::{_escape(message)}"


def _escape(text: str, *, in_property: bool = False) -> str:
    """GitHub's escaping of a workflow command's message (and of ``:`` ``,`` in properties)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if in_property else text


# -- commands ------------------------------------------------------------------


def command_check(args: argparse.Namespace) -> int:
    """Validate the table against the docs folder without building."""
    project = read_project(args.docs_dir)
    table, problems = project.load_table(args.table)
    sources = project.table_sources(args.table)
    sources.require(None, "nothing to check")
    if not problems:
        sources.require(table, "nothing to check")
    if not any(p.fatal for p in problems):
        srcdir = project.srcdir
        documents = project.docnames()
        problems += check_against_project(
            table, documents, lambda p: (srcdir / p).exists(), project.source_suffixes
        )
        if table.labels:  # against the labels the sources write
            labels, complete = project.labels()
            problems += check_labels(table, labels, targets=complete)
        problems += _published_problems(args, project, table, documents)
    for problem in problems:
        print(finding(args.format, problem.location.file, problem.location.line, problem.message))
    if problems:
        count = len(problems)
        print(f"{count} problem{'s' if count > 1 else ''} found in {sources.read(table)}",
              file=sys.stderr)
        return 1
    print(f"relocation table OK: {sources.read(table)}", file=sys.stderr)
    return 0


def _published_problems(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, documents: set[str]
) -> list[Problem]:
    """The build's published check (``--published``, else ``relocate_published``) on the
    sources: the documents Sphinx would find, the labels written in the sources."""
    from sphinx_relocate.sphinx_ext.config import entries_location, setting_location
    from sphinx_relocate.sphinx_ext.inventory import InventoryError
    from sphinx_relocate.sphinx_ext.published import generated_labels, read, unredirected
    from sphinx_relocate.sphinx_ext.queries import base_url

    setting = args.published or project.settings.get("relocate_published")
    if not setting:
        return []
    try:  # --published is relative to the current folder, relocate_published to conf.py's
        published = read(
            str(setting), Path() if args.published else project.confdir,
            base_url=base_url(project.settings),
        )
    except InventoryError as err:
        if args.published:
            raise UsageError(str(err)) from None
        where = setting_location(project.confdir, "relocate_published")
        raise UsageError(
            f"{_shown(Path(where.file))}:{where.line}: relocate_published = {setting!r}: {err}"
        ) from None
    labels: set[str] | None = None
    if "sphinx.ext.autosectionlabel" in (project.settings.get("extensions") or ()):
        print("note: the published labels are not checked: sphinx.ext.autosectionlabel "
              "makes labels that only a build knows", file=sys.stderr)
    else:
        labels = project.labels()[0] | generated_labels(published)
    problems = []
    table_setting = project.settings.get("relocate_table", "relocations.toml")
    for found in unredirected(published, documents, labels, table, _ids_now(project)):
        where = entries_location(
            project.confdir, table_setting, found.section, "relocate_published", table=args.table
        )
        location = Location(_shown(Path(where.file)), where.line)
        problems.append(Problem(location, found.message, fatal=False, subtype="unredirected"))
    return problems


def _table_or_exit(project: DocsProject, table_option: Path | None) -> RelocationTable:
    """The project's table; fatal problems are usage errors (one line each)."""
    table, problems = project.load_table(table_option)
    fatal = [p for p in problems if p.fatal]
    if fatal:
        for problem in fatal[:-1]:
            print(problem, file=sys.stderr)
        raise UsageError(str(fatal[-1]))
    return table


def _repo_root(project: DocsProject, option: Path | None) -> Path:
    """``--repo-root``, else ``relocate_repo_root``, else the git top level, else the docs."""
    setting = project.settings.get("relocate_repo_root")
    if option is not None:
        root = option
    elif setting:
        root = project.confdir / setting
    else:
        root = next(
            (
                p
                for p in (project.confdir.resolve(), *project.confdir.resolve().parents)
                if (p / ".git").exists()
            ),
            project.confdir,
        )
    if not root.is_dir():
        raise UsageError(f"{root}: the repository root is not a folder")
    return root.resolve()


def _docs_prefix(root: Path, srcdir: Path) -> str:
    """The docs folder relative to the repository root: ``""`` or ``"docs/zh/"``."""
    try:
        rel = srcdir.resolve().relative_to(root).as_posix()
    except ValueError:
        raise UsageError(
            f"{srcdir}: the docs folder is not inside the repository root {root}"
        ) from None
    return "" if rel == "." else rel + "/"


def _progress(total: int) -> Callable[[int, int], None] | None:
    """A progress line on stderr for large trees or a terminal."""
    if total < PROGRESS_THRESHOLD and not sys.stderr.isatty():
        return None

    shown = [0]

    def show(done: int, total: int) -> None:
        if done // 500 > shown[0] // 500 or done == total:
            shown[0] = done
            end = "\n" if done == total else ""
            print(f"\rrewrite: {done}/{total} files", end=end, file=sys.stderr, flush=True)

    return show


def _kinds(kinds: Counter[str]) -> str:
    return ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))


def command_rewrite(args: argparse.Namespace) -> int:
    """Rewrite link targets in the sources (a diff by default, ``--check``, ``--write``)."""
    from sphinx_relocate.core.rewrite import (
        Rewriter,
        candidate_files,
        list_repository,
        rewrite_files,
    )

    project = read_project(args.docs_dir)
    table = _table_or_exit(project, args.table)
    project.say_read(args.table, table).require(table, "nothing to rewrite")
    root = _repo_root(project, args.repo_root)
    prefix = _docs_prefix(root, project.srcdir)
    files, folders = list_repository(root)
    documents = project.docnames()
    rewriter = Rewriter(
        table,
        docs_prefix=prefix,
        source_suffixes=project.source_suffixes,
        files=set(files),
        folders=folders,
        documents=documents,
        repo_url=args.repo_url or project.settings.get("relocate_repo_url"),
        mentions=args.mentions,
        heading_anchors=int(project.settings.get("myst_heading_anchors") or 0),
        root=root,
    )
    paths = candidate_files(files, prefix, project.source_suffixes, args.mentions)
    changed = ambiguous = refused = 0
    kinds: Counter[str] = Counter()
    changes = rewrite_files(
        rewriter,
        root,
        paths,
        _progress(len(paths)),
        write=args.write,
        with_text=not (args.write or args.check),
    )
    for change in changes:
        if change.error is not None:
            changes.close()  # files not started yet are left as they are
            raise UsageError(f"{change.path}: cannot write: {change.error}")
        # annotations name files from the current folder, as GitHub reads them
        shown = change.path if args.format == "text" else _shown(root / change.path)
        if change.refused is not None:
            refused += 1
            message = f"left as it is: rewriting it would add a parse error ({change.refused})"
            print(finding(args.format, shown, 0, message), file=sys.stderr)
        for written in change.ambiguous:
            ambiguous += 1
            message = (
                f"{written!r} is ambiguous: it lands on two targets, from the page's folder "
                "and from a folder it stood in, and nothing decides which is meant; left as "
                "written [relocate.ambiguous]"
            )
            print(finding(args.format, shown, 0, message), file=sys.stderr)
        for written in change.ambiguous_labels:
            ambiguous += 1
            message = (
                f"{written!r} names a renamed label and a document too; left as written: "
                "write the new label, or the document [relocate.label]"
            )
            print(finding(args.format, shown, 0, message), file=sys.stderr)
        for entry in change.untitled:
            ambiguous += 1
            message = (
                f"toctree entry {entry.written!r} goes to {entry.new} now, and the old page's "
                f"title is not known: left as written; write the title: "
                f"'Title <{entry.new}>' [relocate.toctree]"
            )
            print(finding(args.format, shown, entry.line, message, entry.column),
                  file=sys.stderr)
        if change.read_only:
            refused += 1
            count = sum(change.kinds.values())
            message = (
                f"left as it is: read-only ({count} link{'s' if count > 1 else ''} to "
                "rewrite); make it writable to rewrite it"
            )
            print(finding(args.format, shown, 0, message), file=sys.stderr)
            continue
        if not change.changed:
            continue
        changed += 1
        kinds += change.kinds
        if args.check:  # one line per link, where its target is written
            for link in change.links:
                message = f"{link.written} → {link.new}"
                print(finding(args.format, shown, link.line, message, link.column))
        elif not args.write:
            _print_patch(change, shown)
    links = sum(kinds.values())
    if not changed:
        print(f"nothing to rewrite ({len(paths)} files scanned)", file=sys.stderr)
    else:
        verb = "rewrote" if args.write else "would rewrite"
        print(
            f"{verb} {links} link{'s' if links > 1 else ''} in {changed} "
            f"file{'s' if changed > 1 else ''} ({_kinds(kinds)}); {len(paths)} files scanned",
            file=sys.stderr,
        )
    moved, failed = _move_catalogs(args, project, table, root, documents)
    if args.check and (changed or moved):
        return 1
    return 1 if ambiguous or refused or failed else 0


def _print_patch(change: FileChange, shown: str) -> None:
    """The file's patch on stdout, in its own bytes; a file no text patch can show is
    named on stderr, never left out silently."""
    from sphinx_relocate.core.rewrite import patch_of

    patch = patch_of(change)
    if patch is None:
        print(
            f"{shown}: not in the diff: a {change.encoding.upper()} file cannot be shown as "
            "a text patch; --check lists its links, --write rewrites it",
            file=sys.stderr,
        )
        return
    out = getattr(sys.stdout, "buffer", None)
    if out is None:
        sys.stdout.write(patch.decode("utf-8", "surrogateescape"))
        return
    sys.stdout.flush()
    out.write(patch)
    out.flush()


def _move_catalogs(
    args: argparse.Namespace,
    project: DocsProject,
    table: RelocationTable,
    root: Path,
    documents: set[str],
) -> tuple[int, int]:
    """Move the message catalogs of moved pages that are still at an old name, in every
    language of ``locale_dirs`` (``git mv`` for tracked files); return how many were (or
    would be) moved and how many moves failed.  A per-folder catalog that cannot move as
    a whole is named and left: the build keeps serving it."""
    from sphinx_relocate.core.git import GitError, git
    from sphinx_relocate.sphinx_ext.catalogs import move_catalog, plan_moves

    settings = project.settings
    moves, kept = plan_moves(
        project.srcdir.resolve(),
        settings.get("locale_dirs") or ["locales"],
        settings.get("gettext_compact", True),
        table,
        documents,
    )

    def shown(path: Path) -> str:
        if args.format != "text":
            return _shown(path)
        try:
            return path.resolve().relative_to(root).as_posix()
        except ValueError:
            return str(path)

    def tracked(path: Path) -> bool:
        try:
            git(["ls-files", "--error-unmatch", "--", path.name], path.parent)
        except GitError:
            return False
        return True

    def git_mv(source: Path, destination: Path) -> None:
        try:
            git(["mv", "--", str(source), str(destination)], source.parent)
        except GitError as err:
            raise OSError(str(err)) from None

    for path, why in kept:
        message = f"catalog of moved pages at an old name, not moved: it {why}"
        print(finding(args.format, shown(path), 0, message), file=sys.stderr)
    done = failed = 0
    for move in moves:
        pages = ", ".join(repr(page) for page in move.pages)
        for source, destination in move.files():
            if args.check:
                message = f"catalog of {pages} at an old name; move it to {shown(destination)}"
                print(finding(args.format, shown(source), 0, message))
            elif not args.write:
                print(f"would move {shown(source)} → {shown(destination)}", file=sys.stderr)
        if args.write:
            names = [(shown(s), shown(d)) for s, d in move.files()]
            error = move_catalog(move, tracked, git_mv, shown)
            if error is not None:
                failed += 1
                print(finding(args.format, names[0][0], 0, f"not moved: {error}"),
                      file=sys.stderr)
                continue
            for source_name, destination_name in names:
                print(f"moved {source_name} → {destination_name}", file=sys.stderr)
        done += 1
    return done, failed


def command_from_git(args: argparse.Namespace) -> int:
    """Derive table entries from git renames; print them or merge them into the table."""
    from sphinx_relocate.core.git import (
        GitError,
        derive,
        docs_changes,
        merge_into,
        render,
        without_known,
    )
    from sphinx_relocate.core.rewrite import walk_repository

    project = read_project(args.docs_dir)
    table = _table_or_exit(project, args.table)
    project.say_read(args.table, table)
    try:
        prefix, changes = docs_changes(
            project.srcdir, args.since, args.similarity, project.exclude_patterns,
            project.source_suffixes,
            int(project.settings.get("myst_heading_anchors") or 0),
        )
    except GitError as err:
        raise UsageError(str(err)) from None
    _say_unpaired(args, project, table, prefix, changes)
    if args.check:
        return _check_unredirected(args, project, table, prefix, changes)
    present, _ = walk_repository(project.srcdir)
    derived, known = without_known(
        derive(changes, prefix, project.source_suffixes, present), table,
        _ids_now(project),
    )
    for docname in derived.deleted:
        print(
            f"{prefix}{docname}: page deleted without a rename; give it a target in [pages] "
            "(a page or a URL), or confirm it is meant to go",
            file=sys.stderr,
        )
    for section in derived.removed:
        print(
            f"{prefix}{section}: section removed; give it a target in [anchors] (the "
            "section that holds its text now), or confirm it is meant to go",
            file=sys.stderr,
        )
    entries = (
        len(derived.pages) + len(derived.files) + len(derived.prefixes) + len(derived.anchors)
    )
    already = f" ({known} already in the table)" if known else ""
    if not args.write:
        sys.stdout.write(render(derived))
        print(f"{entries} entr{'ies' if entries != 1 else 'y'} derived{already}", file=sys.stderr)
        return 0
    path = _table_path(project, args.table)
    _write_merged(path, lambda text: merge_into(text, derived))
    print(
        f"{_shown(path)}: added {entries} entr{'ies' if entries != 1 else 'y'}{already}",
        file=sys.stderr,
    )
    return 0


def _ids_now(project: DocsProject) -> Callable[[str], set[str]]:
    """The section ids of a page of the project now, for the sections of moved pages."""
    from sphinx_relocate.core.git import ids_now

    anchors = int(project.settings.get("myst_heading_anchors") or 0)
    return ids_now(project.srcdir, project.source_suffixes, anchors)


def _say_unpaired(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, prefix: str,
    changes: Changes,
) -> None:
    """Name the deleted and added pages of the same name that git did not pair: a page
    rewritten as it moved is under git's similarity threshold and looks deleted."""
    from sphinx_relocate.core.git import unpaired

    for old, new in unpaired(changes, prefix, project.source_suffixes):
        if table.locate_page(old) is not None:
            continue
        print(
            f"{prefix}{old}: deleted, and {prefix}{new} added: git did not pair them (less "
            f"than {args.similarity}% alike); if the page moved, its entry is "
            f'"{old}" = "{new}"',
            file=sys.stderr,
        )


def _check_unredirected(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, prefix: str,
    changes: Changes,
) -> int:
    """``from-git --check``: exit 1 listing each renamed or deleted page with no entry."""
    from sphinx_relocate.core.git import heading_at, unredirected, unredirected_message
    from sphinx_relocate.sphinx_ext.config import findings_file

    setting = project.settings.get("relocate_table", "relocations.toml")
    shown = _shown(args.table or findings_file(project.confdir, setting))
    missing = unredirected(changes, prefix, project.source_suffixes, table, _ids_now(project))
    for old, new in missing:
        place, line = shown, 0
        heading = heading_at(changes, old)
        if heading is not None:  # a renamed heading: at its line in the page
            place, line = _shown(Path(heading.file)), heading.line
        print(finding(args.format, place, line, unredirected_message(old, new, args.since)))
    since = args.since or "HEAD"
    if missing:
        print(f"{_pages_and_headings(missing)} renamed or deleted since {since} "
              "without an entry", file=sys.stderr)
        return 1
    every = unredirected(changes, prefix, project.source_suffixes, RelocationTable())
    folder = _shown(project.srcdir)
    if not every:
        print(f"no page renamed or deleted since {since} in {folder}", file=sys.stderr)
        return 0
    what = "page and heading" if changes.sections else "page"
    print(f"every {what} renamed or deleted since {since} has an entry "
          f"({_pages_and_headings(every)} in {folder})", file=sys.stderr)
    return 0


def _pages_and_headings(found: list[tuple[str, str]]) -> str:
    """``2 pages and 1 heading``: headings are the ``page#id`` among ``found``."""
    headings = sum("#" in old for old, _ in found)
    counts = [(len(found) - headings, "page"), (headings, "heading")]
    return " and ".join(f"{n} {word}{'s' if n > 1 else ''}" for n, word in counts if n)


def command_import(args: argparse.Namespace) -> int:
    """Print the peers' tables as ``relocations.toml`` entries, or merge them into it."""
    from sphinx_relocate.core.declared import discover_files, peer_declarations
    from sphinx_relocate.core.git import merge_lines
    from sphinx_relocate.core.peers import table_lines

    project = read_project(args.docs_dir)
    converted = project.peers(loaded_too=True)
    files = discover_files(project.srcdir, project.source_suffixes, project.excludes())
    in_pages = peer_declarations(project.srcdir, files, shown=_shown)
    converted.rows += in_pages.rows
    converted.written += in_pages.written
    converted.problems += in_pages.problems
    if not converted.rows and not converted.problems:
        print("nothing to import: conf.py sets neither redirects (sphinx-reredirects) nor "
              "rediraffe_redirects (sphinxext-rediraffe), and no page declares old names "
              "(redirect-from, aliases, redirect_from)", file=sys.stderr)
        return 0
    own, problems = project.load_table(args.table, peers=_no_peers())
    _stop([str(p) for p in problems if p.fatal])
    imported = table_lines(converted, own, project.source_suffixes, project.docnames())
    _stop(imported.conflicts)
    whole, problems = project.load_table(args.table, peers=converted)
    _stop([str(p) for p in problems if p.fatal])
    for note in whole.notes:
        print(f"note: {note}", file=sys.stderr)
    added = f"{imported.added} entr{'ies' if imported.added != 1 else 'y'}"
    known = f" ({imported.known} already in the table)" if imported.known else ""
    if not args.write:
        sys.stdout.write(imported.text())
        print(f"{added} imported{known}", file=sys.stderr)
        return 0
    path = _table_path(project, args.table)
    _write_merged(path, lambda text: merge_lines(text, imported.sections))
    names = " and ".join(name for name in ("redirects", "rediraffe_redirects")
                         if name in project.settings)
    gone = [f"{names} can go from conf.py"] if names else []
    if in_pages.rows:
        gone.append("the pages' redirect-from directives, aliases and redirect_from keys "
                    "can go")
    print(f"{_shown(path)}: added {added}{known}; {' and '.join(gone)} now", file=sys.stderr)
    return 0


def _no_peers() -> Converted:
    from sphinx_relocate.core.peers import Converted

    return Converted()


def _stop(errors: list[str]) -> None:
    """Stop with one line per error (the last one through :class:`UsageError`), if any."""
    if not errors:
        return
    for line in errors[:-1]:
        print(f"sphinx-relocate: error: {line}", file=sys.stderr)
    raise UsageError(errors[-1])


def _table_path(project: DocsProject, option: Path | None) -> Path:
    """The table file a command writes: ``--table``, else the one conf.py names."""
    from sphinx_relocate.sphinx_ext.config import table_file

    setting = project.settings.get("relocate_table", "relocations.toml")
    path = option or table_file(project.confdir, setting)
    if path is None:
        if not setting:
            raise UsageError("conf.py sets relocate_table = None; pass --table FILE")
        path = project.confdir / setting
    return path


def _write_merged(path: Path, merge: Callable[[str], str]) -> None:
    """Write ``merge(text)`` of the table file (created when missing), keeping its encoding.

    A table that is a symlink (one table shared by several docs folders) is written
    through to its target, atomically there: the link stays a link.
    """
    from sphinx_relocate.core.rewrite import SourceFile, read_source, write_atomically

    path = Path(os.path.realpath(path))
    source = (read_source(path) if path.exists() else None) or SourceFile("", "utf-8", b"")
    try:
        merged = merge(source.text)
    except ValueError as err:  # tomllib.TOMLDecodeError
        raise UsageError(f"{_shown(path)}: cannot merge the entries: {err}") from None
    if merged.strip() == source.text.strip():
        return
    if path.exists():
        write_atomically(path, source, merged)
    else:
        path.write_text(merged, encoding="utf-8")


def _similarity(text: str) -> int:
    try:
        value = int(text.rstrip("%"))
    except ValueError:
        value = -1
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage from 0 to 100")
    return value


def _add_command(
    commands: Any, name: str, run: Callable[[argparse.Namespace], int], *, summary: str,
    description: str, table_help: str,
) -> argparse.ArgumentParser:
    """A subcommand with what every command takes: the docs folder and ``--table``."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=summary, description=description
    )
    parser.add_argument(
        "docs_dir", type=Path, metavar="DOCS_DIR",
        help="folder with conf.py (or a folder above it: the one conf.py below it is used)",
    )
    parser.add_argument("--table", type=Path, metavar="FILE", help=table_help)
    parser.set_defaults(run=run)
    return parser


def _add_format(parser: argparse.ArgumentParser) -> None:
    """``--format`` for the commands that gate CI."""
    parser.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="'github' prints each finding as a GitHub Actions error annotation "
        "(default: text, 'file:line: message')",
    )


def _version() -> str:
    from sphinx_relocate import __version__

    return f"sphinx-relocate {__version__}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sphinx-relocate",
        description="Check a relocation table, rewrite sources from it, derive it from git.",
    )
    parser.add_argument("-V", "--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = _add_command(
        commands,
        "check",
        command_check,
        summary="validate the relocation table against a docs folder (no build)",
        description="Validate the relocation table against the files of a docs folder. "
        "Prints one 'file:line: message' per problem; exit 0 clean, 1 problems, 2 usage.",
        table_help="table file to check instead of conf.py's",
    )
    check.add_argument(
        "--published",
        metavar="FILE",
        help="objects.inv of a release (a file or an http(s) URL; default: "
        "relocate_published): each of its pages and labels that is gone without an entry "
        "is a problem",
    )
    _add_format(check)

    rewrite = _add_command(
        commands,
        "rewrite",
        command_rewrite,
        summary="rewrite links written against old paths in the sources (diff by default)",
        description="Rewrite every link written against an old path, in the docs and in "
        "Markdown and reST anywhere in the repository (READMEs). Prints a unified diff by "
        "default; --check exits 1 when anything would change; --write applies the changes.",
        table_help="table file to use instead of conf.py's",
    )
    rewrite.add_argument(
        "--repo-root",
        type=Path,
        metavar="DIR",
        help="repository root (default: relocate_repo_root, else the git top level)",
    )
    rewrite.add_argument(
        "--repo-url",
        metavar="URL",
        help="forge URL of the repository, to rewrite absolute links into the docs "
        "(default: relocate_repo_url)",
    )
    rewrite.add_argument(
        "--mentions",
        action="store_true",
        help="also rewrite paths in inline code, plain text and Python files",
    )
    mode = rewrite.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if anything would change")
    mode.add_argument("--write", action="store_true", help="apply the changes in place")
    _add_format(rewrite)

    from_git = _add_command(
        commands,
        "from-git",
        command_from_git,
        summary="derive [pages], [files] and [anchors] entries from git renames",
        description="Derive table entries from renames committed since REV (every commit "
        "on the way) plus staged, unstaged and untracked moves, and from headings renamed "
        "on the pages. Prints TOML by default; --write merges it into the "
        "table file, keeping existing entries and comments; --check exits 1 listing each "
        "renamed or deleted page or heading that has no entry.",
        table_help="table file to merge into instead of conf.py's",
    )
    from_git.add_argument(
        "--since", metavar="REV", help="commit before the reorganization (default: HEAD)"
    )
    from_git.add_argument(
        "--similarity",
        type=_similarity,
        default=50,
        metavar="N",
        help="rename similarity threshold in percent, as git diff -M (default: 50)",
    )
    from_git_mode = from_git.add_mutually_exclusive_group()
    from_git_mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1 listing each page or heading renamed or deleted since REV that has no "
        "entry",
    )
    from_git_mode.add_argument("--write", action="store_true", help="merge into the table file")
    _add_format(from_git)

    imports = _add_command(
        commands,
        "import",
        command_import,
        summary="convert sphinx-reredirects' or rediraffe's redirects into table entries",
        description="Convert the redirects of conf.py (sphinx-reredirects' 'redirects', "
        "sphinxext-rediraffe's 'rediraffe_redirects', a dict or a file) into relocation "
        "table entries, with their meaning. Prints TOML by default; --write merges it into "
        "the table file, keeping its entries (one with another target is an error).",
        table_help="table file to merge into instead of conf.py's",
    )
    imports.add_argument("--write", action="store_true", help="merge into the table file")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse already printed the usage line
        return 2 if exit_.code else 0
    try:
        return int(args.run(args))
    except UsageError as err:
        print(f"sphinx-relocate: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

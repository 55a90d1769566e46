"""The settings and the table inside Sphinx: registered, checked and read once per build.

``setup()`` registers every value :data:`~sphinx_relocate.core.settings.CONFIG_VALUES`
declares (:func:`register`); :func:`check_config`, first thing at ``config-inited``,
checks them and builds the one frozen :class:`~sphinx_relocate.core.settings.Settings`
(as the command line builds it from conf.py), and :func:`read_build_table` reads the
table; both go into the build's state, where every reader finds them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_relocate.core.declared import QuietSources, declared_names
from sphinx_relocate.core.gallery import EXTENSION as GALLERY_EXTENSION
from sphinx_relocate.core.ids import Headings
from sphinx_relocate.core.peers import (
    PEERS,
    Converted,
    anchors_of_unserved_pages,
    documents_on_disk,
    doubled_by_peers,
)
from sphinx_relocate.core.peers import convert as convert_peers
from sphinx_relocate.core.settings import (
    CONFIG_VALUES,
    Settings,
    SettingsError,
    build_settings,
    setting_line,
    table_file,
)
from sphinx_relocate.core.table import (
    Location,
    Problem,
    RelocationTable,
    check_against_project,
    load_table,
)
from sphinx_relocate.sphinx_ext.adapters import source_suffixes
from sphinx_relocate.sphinx_ext.discovery import pattern_matchers
from sphinx_relocate.sphinx_ext.queries import table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.summary import sources_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, logger, stop, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

def register(app: Sphinx) -> None:
    """Add every config value to Sphinx with its types (peers' ones come at ``config-inited``)."""
    for value in CONFIG_VALUES:
        if value.owner:
            continue
        app.add_config_value(
            value.name,
            value.default,
            value.rebuild,  # type: ignore[arg-type]
            types=value.types,
        )


def register_peer_values(app: Sphinx) -> list[str]:
    """Register the peers' options that no extension registered; return their names.

    At ``config-inited`` every extension has been set up, so a peer still loaded keeps its
    option (and its meaning), and registering ours in ``setup()`` cannot make that peer's
    own registration fail when it is loaded after this extension.
    """
    ours: list[str] = []
    for value in CONFIG_VALUES:
        if value.owner and value.name not in app.config:
            app.add_config_value(
                value.name, value.default, value.rebuild, types=value.types  # type: ignore[arg-type]
            )
            ours.append(value.name)
    return ours


def read_table(
    settings: Settings, *, srcdir: Path | None = None, peers: Iterable[str] = (),
    quiet: QuietSources | None = None,
) -> RelocationTable:
    """Load and validate the table ``settings`` name; fatal problems raise ``ConfigError``.

    ``peers`` are the peer options (``redirects``, ``rediraffe_redirects``) to read as
    part of the table; ``quiet`` the sources a build before found to declare no old name.
    Non-fatal problems stay in ``table.warnings`` for the build to report.
    """
    get = settings.values.get
    confdir = settings.confdir
    mapping = get("relocate_map") or {}
    conf_py = confdir / "conf.py"
    peer_values = {name: value for name in peers if (value := get(name))}
    conf_text = (
        conf_py.read_text("utf-8", "replace")
        if (mapping or peer_values) and conf_py.exists()
        else ""
    )
    suffixes = settings.source_suffixes
    sources = srcdir or confdir
    converted = _convert_peers(settings, sources, peer_values, conf_text)
    # the documents Sphinx will find (as ``BuildEnvironment.find_files`` excludes them)
    excludes = [*(get("exclude_patterns") or ()), *(get("templates_path") or ()),
                "**/_sources", ".#*", "**/.#*", "*.lproj/**"]
    declared = declared_names(
        sources, suffixes, *pattern_matchers(excludes, get("include_patterns") or ["**"]),
        quiet=quiet,
    )
    table, problems = load_table(
        settings.table_path,
        mapping,
        mapping_file=str(conf_py),
        mapping_text=conf_text,
        source_suffixes=suffixes,
        peer_rows=[*converted.rows, *declared.rows],
        peer_problems=[*converted.problems, *declared.problems],
    )
    fatal = [p for p in problems if p.fatal]
    if fatal:
        stop(fatal, "the relocation table")
    return table


def _convert_peers(
    settings: Settings, srcdir: Path, values: dict[str, object], conf_text: str = ""
) -> Converted:
    return convert_peers(
        values,
        conf_file=str(settings.confdir / "conf.py"),
        conf_text=conf_text,
        srcdir=srcdir,
        html_suffix=settings.values.get("html_file_suffix") or ".html",
        is_document=documents_on_disk(srcdir, settings.source_suffixes),
    )


def read_loaded_peers(app: Sphinx, config: Config) -> RelocationTable:
    """The redirects of the peers conf.py still loads: their own stubs serve those old
    URLs, so a link to one lands (``check``); their problems are theirs to report."""
    state = state_of(app)
    values = {
        name: value for name in PEERS
        if name not in (state.peer_options or ()) and (value := getattr(config, name, None))
    }
    if not values:
        return RelocationTable()
    conf_py = Path(app.confdir, "conf.py")  # the lines of its keys, for the messages
    conf_text = conf_py.read_text("utf-8", "replace") if conf_py.is_file() else ""
    converted = _convert_peers(state.settings, Path(app.srcdir), values, conf_text)
    table, _problems = load_table(
        None, source_suffixes=state.settings.source_suffixes, peer_rows=converted.rows
    )
    return table


def _declaring(app: Sphinx, table: RelocationTable) -> set[str]:
    """The pages whose ``relocated_from`` gave entries: an entry's file is the source of
    its own target."""
    srcdir = str(app.srcdir) + os.sep
    files = set()
    stems: dict[str, str] = {}  # a file's entries are thousands where a table has many
    for entry in table.entries:
        file = entry.location.file
        if entry.section == "pages" and file.startswith(srcdir):
            stem = stems.get(file)
            if stem is None:
                stem = stems[file] = os.path.splitext(file[len(srcdir):])[0].replace(os.sep, "/")
            if stem == entry.new.path:
                files.add(file)
    return files


def check_config(app: Sphinx, config: Config) -> None:
    """Check every option and build the settings, once, before anything reads one and
    before Sphinx's own type warnings: a wrong value stops the build with one line at its
    conf.py line."""
    _check_myst_parser(app)
    state = state_of(app)
    state.peer_options = register_peer_values(app)
    names = [v.name for v in CONFIG_VALUES if not v.owner] + state.peer_options
    values = {name: getattr(config, name, None) for name in (*names, *_SPHINX_READS)}
    try:
        state.settings = build_settings(
            values,
            confdir=Path(app.confdir),
            srcdir=Path(app.srcdir),
            # Sphinx merges them into ``source_suffix`` later (priority 800)
            added_suffixes=app.registry.source_suffix,
        )
    except SettingsError as err:
        stop(err.problems)
    # myst-parser checks its own settings: read as it leaves them, never stopped on here
    state.settings = replace(state.settings, headings=Headings.of(
        getattr(config, "myst_heading_anchors", 0), getattr(config, "myst_enable_extensions", ())
    ))
    state.forget_files()


#: the oldest myst-parser whose links the resolver reads (its ``reftarget`` and
#: ``refdomain``); 0.15 leaves the relative links of a page in a folder unresolved
OLDEST_MYST_PARSER = 3


def _check_myst_parser(app: Sphinx) -> None:
    """Stop on a myst-parser older than the links are read for, with one line, rather
    than lose links without a word (MyST-Parser's own docs at 0.15 lost 17)."""
    import sys

    module = sys.modules.get("myst_parser")
    if "myst_parser" not in app.extensions or module is None:
        return
    version = str(getattr(module, "__version__", ""))
    major = version.split(".", 1)[0]
    if major.isdigit() and int(major) < OLDEST_MYST_PARSER:
        stop([Problem(Location(str(Path(app.confdir, "conf.py")), 0),
                      f"sphinx-relocate reads the links of myst-parser {OLDEST_MYST_PARSER} and "
                      f"later, and this build loads myst-parser {version}: upgrade it "
                      f"(pip install 'myst-parser>={OLDEST_MYST_PARSER}')")])


#: Settings of Sphinx the settings and the table are read with (Sphinx checks them).
_SPHINX_READS = (
    "source_suffix", "extensions", "exclude_patterns", "html_file_suffix", "templates_path",
    "include_patterns", "autosectionlabel_prefix_document",
    # the repository the theme is told of (``Settings.repo_url``)
    "html_theme_options", "html_context",
)


#: the sources found to declare no old name (:class:`QuietSources`), in the doctree folder
QUIET_SOURCES = "relocate-quiet-sources.json"


def read_build_table(app: Sphinx, config: Config) -> None:
    """Read the table once per build, before any document is read."""
    state = state_of(app)
    peers = state.peer_options or []
    quiet = QuietSources(Path(app.doctreedir, QUIET_SOURCES))
    table = read_table(state.settings, srcdir=Path(app.srcdir), peers=peers, quiet=quiet)
    options = {name: getattr(config, name, None) for name in ("relocate_map", *peers)}
    state.sources = sources_of(
        Path(app.confdir), table, config.relocate_table, options, _declaring(app, table)
    )
    for note in table.notes:  # the file and line in the text: no env to resolve them yet
        logger.info(str(note))
    state.table = table
    state.peer_redirects = read_loaded_peers(app, config)


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Report, on every build, what is wrong with the table against this project."""
    table = table_of(app)
    srcdir = Path(app.srcdir)
    found = check_against_project(
        table, env.found_docs, lambda p: (srcdir / p).exists(), source_suffixes(app),
        left_over=gallery_left_over(app),
    )
    served = state_of(app).peer_redirects
    found += doubled_by_peers(table, served, env.found_docs.__contains__)
    found += anchors_of_unserved_pages(table, served, env.found_docs.__contains__)
    state_of(app).table_problems = found
    problems = [*table.warnings, *found]
    for problem in problems:
        warn(RelocateWarning(problem.subtype), problem.message, location=problem.location)
    report_unredirected(app, table)
    return []


def gallery_left_over(app: Sphinx) -> Callable[[str], str] | None:
    """Why a page of sphinx-gallery is still there (:func:`core.gallery.left_over`),
    when conf.py loads it."""
    if GALLERY_EXTENSION not in app.extensions:
        return None
    conf = getattr(app.config, "sphinx_gallery_conf", None)

    def advice(docname: str) -> str:  # asked only of an old page that still exists
        from sphinx_relocate.core.gallery import left_over
        from sphinx_relocate.core.git import repository_galleries

        root, galleries = repository_galleries(conf, Path(app.srcdir))
        return left_over(galleries, docname, lambda path: (root / path).is_file())

    return advice


def findings_file(confdir: Path, setting: str | None) -> Path:
    """Where a finding about the table as a whole goes: the table file, else conf.py."""
    path = table_file(confdir, setting)
    return path if path is not None and path.is_file() else confdir / "conf.py"


def report_unredirected(app: Sphinx, table: RelocationTable) -> None:
    """With ``relocate_since``, warn for each page renamed or deleted since then that no
    entry redirects, so a reorganization cannot drop an old URL silently."""
    since = app.config.relocate_since
    if not since:
        return
    from sphinx_relocate.core.git import (
        GitError,
        autosummary_writes_pages,
        docs_changes,
        folder_maker,
        ids_now,
        unredirected,
        unredirected_message,
        written_at,
    )

    confdir = Path(app.confdir)
    try:
        prefix, changes = docs_changes(
            Path(app.srcdir), since, 50,
            # what Sphinx reads no page from, as its discovery leaves it out; the
            # static and extra folders' files are files (an image there moves too)
            [*app.config.exclude_patterns, *app.config.templates_path],
            source_suffixes(app),
            state_of(app).settings.headings,
            getattr(app.config, "sphinx_gallery_conf", None)
            if GALLERY_EXTENSION in app.extensions else None,
            _autoapi_now(app),
            getattr(app.builder, "get_asset_paths", list)(),
            table,
            autosummary_writes_pages(
                app.extensions, getattr(app.config, "autosummary_generate", True)),
        )
    except GitError as err:
        message = f"relocate_since = {since!r}: cannot check for pages without an entry: {err}"
        setting = setting_location(confdir, "relocate_since")
        warn(RelocateWarning.UNREDIRECTED, message, location=str(setting))
        return
    where = entries_location(confdir, app.config.relocate_table, "pages", "relocate_since")
    suffixes = source_suffixes(app)
    state = state_of(app)
    ids_of = ids_now(Path(app.srcdir), suffixes, state.settings.headings)
    state.since_reported = set()
    for old, new in unredirected(changes, prefix, suffixes, table, ids_of, state.peer_redirects):
        state.since_reported.add(old)
        message = unredirected_message(old, new, since, folder_maker(changes, prefix, old))
        warn(RelocateWarning.UNREDIRECTED, message,
             location=str(written_at(changes, prefix, old) or where))


def _autoapi_now(app: Sphinx) -> tuple[Path, str] | None:
    """conf.py and the folder sphinx-autoapi writes its pages into, when it is loaded."""
    from sphinx_relocate.core.git import AUTOAPI_ROOT, autoapi_folder

    conf = Path(app.confdir, "conf.py")
    folder = autoapi_folder({"extensions": list(app.extensions),
                             "autoapi_root": getattr(app.config, "autoapi_root", AUTOAPI_ROOT)})
    return None if folder is None or not conf.is_file() else (conf, folder)


def setting_location(confdir: Path, name: str) -> Location:
    """The line of conf.py that sets ``name`` (line 1 when no line does)."""
    conf_py = confdir / "conf.py"
    return Location(str(conf_py), setting_line(conf_py, name) or 1)


def entries_location(
    confdir: Path, table_setting: str | None, section: str, setting: str, *,
    table: Path | None = None,
) -> Location:
    """Where a finding that asks for table entries goes: the table file (``table``, else
    the one ``relocate_table`` names) at its ``[section]`` header (line 1 without one), or
    without a table file the conf.py line of the ``setting`` that found it."""
    path = table or findings_file(confdir, table_setting)
    if path == confdir / "conf.py":
        return setting_location(confdir, setting)
    return Location(str(path), _line_of(path, f"[{section}]".__eq__))


def _line_of(path: Path, matches: Callable[[str], bool]) -> int:
    """The first line of ``path`` that ``matches`` once stripped, else 1: Sphinx reads a
    location without a line as a document name, not as a file."""
    try:
        lines = path.read_text("utf-8", "replace").splitlines()
    except OSError:
        return 1
    return next((n for n, line in enumerate(lines, 1) if matches(line.strip())), 1)

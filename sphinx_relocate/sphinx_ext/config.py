"""Every ``relocate_*`` config value in one place, and reading the table inside Sphinx.

:data:`CONFIG_VALUES` is the single source of truth: ``setup()`` registers from it, each
value carries the check of what it accepts (:func:`validate_settings`, run once at
``config-inited`` and by the command line), and the docs' configuration page is
generated from it.
"""

from __future__ import annotations

import ast
import os
import re
import reprlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.core.declared import declared_names
from sphinx_relocate.core.exports import EXPORTS
from sphinx_relocate.core.peers import convert as convert_peers
from sphinx_relocate.core.peers import documents_on_disk
from sphinx_relocate.core.table import (
    Location,
    Problem,
    RelocationTable,
    check_against_project,
    load_table,
)
from sphinx_relocate.sphinx_ext.adapters import source_suffixes
from sphinx_relocate.sphinx_ext.queries import table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.summary import sources_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, logger, stop, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80


def described(value: object) -> str:
    """A value as an error message names it: ``the string 'abc'``, ``the number 5``, ``True``."""
    if value is None or isinstance(value, bool):
        return repr(value)
    kind = {str: "string", int: "number", float: "number"}.get(type(value), type(value).__name__)
    return f"the {kind} {_REPR.repr(value)}"


def _phrase(types: tuple[type, ...]) -> str:
    """``(str, type(None))`` as ``a string or None``: what a value of these types is."""
    words = {
        str: "a string", list: "a list", tuple: "a list", dict: "a dict", int: "a number",
        bool: "True or False", type(None): "None",
    }
    return " or ".join(dict.fromkeys(words.get(t, f"a {t.__name__}") for t in types))


def _pattern(item: object) -> str | None:
    """Why a ``relocate_ignore`` item is not a regular expression, or ``None``."""
    if not isinstance(item, str):
        return f"{_REPR.repr(item)} is not a string"
    try:
        re.compile(item)
    except re.error as err:
        return f"invalid regular expression {item!r}: {err}"
    return None


def _export(item: object) -> str | None:
    """Why a ``relocate_redirect_exports`` item names no export, or ``None``."""
    if isinstance(item, str) and item in EXPORTS:
        return None
    known = ", ".join(map(repr, sorted(EXPORTS)))
    return f"unknown export {_REPR.repr(item)} (expected any of: {known})"


def _is_url(value: object) -> bool:
    return isinstance(value, str) and re.match(r"https?://[^/\s]", value) is not None


@dataclass(frozen=True)
class ConfigValue:
    """One ``relocate_*`` option: its default, what it accepts, rebuild scope and help."""

    name: str
    default: Any
    types: tuple[type, ...]
    help: str
    #: Sphinx's rebuild scope; table values use "" because a hash of the table decides
    #: which documents to re-read (a change must not throw the whole environment away).
    rebuild: str = ""
    #: the extension whose option this is: registered (and read) only when that one, or
    #: another extension, has not registered it (see :mod:`sphinx_relocate.core.peers`)
    owner: str = ""
    #: what a value must be, in the words of the error and the docs (default: its types)
    expects: str = ""
    #: for a list: why an item is not acceptable, or ``None``
    item: Callable[[object], str | None] | None = None
    #: for a non-empty value of the right type: whether it is acceptable
    valid: Callable[[object], bool] | None = None

    @property
    def accepts(self) -> str:
        return self.expects or _phrase(self.types)

    def problem(self, value: object) -> str | None:
        """Why ``value`` cannot be this option's, in one line; ``None`` when it can.

        A ``bool`` is accepted only where ``bool`` is (Python takes it for an ``int``).
        """
        right_type = isinstance(value, self.types) and (
            bool in self.types or not isinstance(value, bool)
        )
        if right_type and self.item is not None and isinstance(value, (list, tuple)):
            reasons = (reason for one in value if (reason := self.item(one)) is not None)
            return next((f"{self.name}: {reason}" for reason in reasons), None)
        if right_type and (self.valid is None or not value or self.valid(value)):
            return None
        wrong = f"{self.name} must be {self.accepts}, not {described(value)}"
        if isinstance(value, str) and value and list in self.types:
            wrong += f" (write [{value!r}])"
        return wrong


CONFIG_VALUES: tuple[ConfigValue, ...] = (
    ConfigValue(
        "relocate_table",
        "relocations.toml",
        (str, type(None)),
        "Path of the TOML relocation table, relative to the conf dir. The default file is "
        "used only when it exists; set ``None`` to use none.",
        expects="a file name (a string) or None",
    ),
    ConfigValue(
        "relocate_map",
        {},
        (dict,),
        "Old → new page entries written in conf.py, with the meaning of ``[pages]``. An "
        "entry also in the table file with another target is an error.",
        expects="a dict of old page → new page",
    ),
    ConfigValue(
        "relocate_report_rewrites",
        False,
        (bool,),
        "Also warn (``relocate.outdated``) for every reference rewritten through the "
        "table, and for every moved page translated from the catalog at its old name, "
        "so a team can require that sources and catalogs be updated eventually.",
    ),
    ConfigValue(
        "relocate_fail_on_dangling",
        False,
        (bool,),
        "Set a failing exit status when dangling references remain, even without ``-W``.",
    ),
    ConfigValue(
        "relocate_ignore",
        [],
        (list, tuple),
        "Regular expressions of link targets never checked or reported, like ``linkcheck_ignore``.",
        expects="a list of regular expressions",
        item=_pattern,
    ),
    ConfigValue(
        "relocate_repo_root",
        None,
        (str, type(None)),
        "The repository root, for links that leave the docs folder. Default: the git top "
        "level above the conf dir, else the conf dir.",
        rebuild="env",
        expects="a folder name (a string) or None",
    ),
    ConfigValue(
        "relocate_repo_url",
        None,
        (str, type(None)),
        "The forge URL of the repository root, such as "
        "``https://github.com/org/repo/blob/main/``. Links that leave the docs folder become "
        "links to the file there; absolute URLs under it (a page's source on the forge) "
        "are rewritten to the page's new source when the table moved it, and checked "
        "against the tree.",
        rebuild="env",
        expects="an http(s) URL or None",
        valid=_is_url,
    ),
    ConfigValue(
        "relocate_stub_template",
        None,
        (str, type(None)),
        "Path of a Jinja2 template for redirect stubs, relative to the conf dir, compiled "
        "once per build; put ``{{ head }}`` in its ``<head>`` (the stubs page lists every "
        "variable). Default: a built-in page that needs no theme.",
        expects="a file name (a string) or None",
    ),
    ConfigValue(
        "relocate_redirect_exports",
        [],
        (list, tuple),
        "Extra files written from the table into the output folder for server-side "
        'redirects, by HTML builders: ``"netlify"`` (``_redirects``, forced 301 rules for '
        'Netlify and Cloudflare Pages), ``"nginx"`` (``_relocate/nginx.conf``, a ``map`` '
        'for the ``http`` block), ``"apache"`` (``_relocate/apache.conf``, ``Redirect '
        'permanent`` lines), ``"vercel"`` (``vercel.json``), ``"readthedocs"`` '
        "(``_relocate/readthedocs.json``, page redirects for Read the Docs' API) and "
        '``"json"`` (``_relocate/redirects.json``, a sorted list of ``{"from": …, "to": …}``). '
        "Paths start with the path of ``html_baseurl`` (or ``READTHEDOCS_CANONICAL_URL``); "
        "Read the Docs' are relative to the version. The stubs page shows each format.",
        expects="a list of export names",
        item=_export,
    ),
    ConfigValue(
        "relocate_since",
        None,
        (str, type(None)),
        "A git revision (``main``, a tag, a commit): every build warns "
        "``relocate.unredirected`` at the table for each page renamed or deleted since "
        "then, in commits or in the working tree, that no entry redirects, and at the "
        "page for each heading whose id changed or whose section moved to another page "
        "(a split) with no ``[anchors]`` entry; the check of "
        "``sphinx-relocate from-git --check``.",
        expects="a git revision (a string) or None",
    ),
    ConfigValue(
        "relocate_inventory_aliases",
        True,
        (bool,),
        "List every old page name in ``objects.inv`` as a ``std:doc`` entry with the new "
        "page's URL and title, so other projects' intersphinx references to old names "
        "(``:doc:`demo:old/name```) land on the new page. A name moved to a URL is left out. "
        "``[labels]`` keys get ``std:label`` entries at the new label the same way.",
    ),
    ConfigValue(
        "relocate_published",
        None,
        (str, type(None)),
        "The ``objects.inv`` of a release: a file relative to the conf dir, or an http(s) "
        "URL (fetched on every build). Every page of it that is no longer a document and "
        "that the table does not move, and every label of it that is no longer a label, "
        "is a ``relocate.unredirected`` warning naming its published URL, and so is a "
        "label on a page that is gone whose anchor lands on no section; pages the "
        "table moves get stubs and inventory entries even when only a pattern names them.",
        expects="a file name or URL (a string) or None",
    ),
    ConfigValue(
        "redirects",
        {},
        (dict,),
        "sphinx-reredirects' table, read with its meaning when that extension is not loaded "
        "(no other extension registers the name): a target is the URL of the redirect page, "
        "relative to the old page's folder, ``/``-absolute from the site root, or external; "
        "a key with ``*``, ``?`` or ``[…]`` is a ``[patterns]`` entry. ``sphinx-relocate "
        "import`` writes it as ``relocations.toml``.",
        owner="sphinx-reredirects",
        expects="a dict of old page → target URL",
    ),
    ConfigValue(
        "rediraffe_redirects",
        None,
        (dict, str, type(None)),
        "sphinxext-rediraffe's table, read with its meaning when that extension is not "
        "loaded: a dict of old → new source paths, or the name of a file of ``old new`` "
        "lines, relative to the source folder. ``sphinx-relocate import`` writes it as "
        "``relocations.toml``.",
        owner="sphinxext-rediraffe",
        expects="a dict of old → new source paths or a file name",
    ),
)

#: Each option by its name.
_BY_NAME: dict[str, ConfigValue] = {value.name: value for value in CONFIG_VALUES}


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


def setting_problem(
    conf_py: Path,
    shown: str,
    name: str,
    value: object,
    types: tuple[type, ...] | None = None,
) -> Problem | None:
    """A conf.py value that is not acceptable, as one problem at its line, else ``None``.

    Code that reads the value can then trust it.  Without ``types`` the check is the one
    :data:`CONFIG_VALUES` gives ``name``; with them (another extension's option), a check
    of the types.
    """
    option = _BY_NAME[name] if types is None else ConfigValue(name, None, types, "")
    reason = option.problem(value)
    if reason is None:
        return None
    return Problem(Location(shown, setting_line(conf_py, name)), reason)


def validate_settings(
    values: Mapping[str, object], conf_py: Path | None = None, shown: str | None = None
) -> list[Problem]:
    """Every value of ``values`` (name → value, as conf.py set it) that its
    :data:`CONFIG_VALUES` entry does not accept, as one problem each at its conf.py line.

    Names that are not in :data:`CONFIG_VALUES` are not looked at.  ``shown`` is how
    conf.py is named in the lines (default: ``conf_py``, else ``conf.py``).
    """
    name_of = shown or (str(conf_py) if conf_py is not None else "conf.py")
    lines = _assignment_lines(conf_py) if conf_py is not None else {}
    problems = []
    for name, value in values.items():
        known = _BY_NAME.get(name)
        reason = known.problem(value) if known is not None else None
        if reason is not None:
            problems.append(Problem(Location(name_of, lines.get(name, 0)), reason))
    return sorted(problems, key=lambda problem: problem.location.line)


def setting_line(conf_py: Path, name: str) -> int:
    """The line of conf.py that assigns ``name`` last (0 when none does or it cannot be read)."""
    return _assignment_lines(conf_py).get(name, 0)


def _assignment_lines(conf_py: Path) -> dict[str, int]:
    """Name → line of its last assignment in conf.py, read from its syntax tree."""
    try:
        tree = ast.parse(conf_py.read_bytes(), str(conf_py))
    except (OSError, SyntaxError, ValueError):
        return {}
    lines: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in _names(target)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = _names(node.target)
        else:
            continue
        for target in targets:
            lines[target] = max(lines.get(target, 0), node.lineno)
    return lines


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _names(element)]
    return []


def table_file(confdir: Path, setting: str | None) -> Path | None:
    """The table file to read, or ``None``: the default name counts only when it exists."""
    if not setting:
        return None
    path = confdir / setting
    if setting == "relocations.toml" and not path.exists():
        return None
    return path


def read_table(
    confdir: Path,
    config: Config | dict[str, Any],
    *,
    srcdir: Path | None = None,
    peers: Iterable[str] = (),
) -> RelocationTable:
    """Load and validate the table named by ``config``; fatal problems raise ``ConfigError``.

    ``peers`` are the peer options (``redirects``, ``rediraffe_redirects``) to read as
    part of the table.  Non-fatal problems stay in ``table.warnings`` for the build to report.
    """
    get = config.get if isinstance(config, dict) else lambda n, d=None: getattr(config, n, d)
    setting = get("relocate_table", "relocations.toml")
    mapping = get("relocate_map", {}) or {}
    conf_py = confdir / "conf.py"
    path = table_file(confdir, setting)
    peer_values = {name: value for name in peers if (value := get(name, None))}
    conf_text = (
        conf_py.read_text("utf-8", "replace")
        if (mapping or peer_values) and conf_py.exists()
        else ""
    )
    source_suffix = get("source_suffix", None) or {".rst": "restructuredtext"}
    suffixes = tuple(source_suffix) if not isinstance(source_suffix, str) else (source_suffix,)
    sources = srcdir or confdir
    converted = convert_peers(
        peer_values,
        conf_file=str(conf_py),
        conf_text=conf_text,
        srcdir=sources,
        html_suffix=get("html_file_suffix", None) or ".html",
        is_document=documents_on_disk(sources, suffixes),
    )
    # the documents Sphinx will find (as ``BuildEnvironment.find_files`` excludes them)
    excludes = [*(get("exclude_patterns", None) or ()), *(get("templates_path", None) or ()),
                "**/_sources", ".#*", "**/.#*", "*.lproj/**"]
    declared = declared_names(sources, suffixes, excludes, get("include_patterns", None) or ["**"])
    table, problems = load_table(
        path,
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


def _declaring(app: Sphinx, table: RelocationTable) -> set[str]:
    """The pages whose ``relocated_from`` gave entries: an entry's file is the source of
    its own target."""
    srcdir = str(app.srcdir) + os.sep
    files = set()
    for entry in table.entries:
        file = entry.location.file
        if entry.section == "pages" and file.startswith(srcdir):
            stem = os.path.splitext(file[len(srcdir):])[0].replace(os.sep, "/")
            if stem == entry.new.path:
                files.add(file)
    return files


def check_config(app: Sphinx, config: Config) -> None:
    """Validate every option once, before anything reads one (and before Sphinx's own
    type warnings): a wrong value stops the build with one line at its conf.py line."""
    state = state_of(app)
    state.peer_options = register_peer_values(app)
    names = [v.name for v in CONFIG_VALUES if not v.owner] + state.peer_options
    values = {name: getattr(config, name, None) for name in names}
    problems = validate_settings(values, Path(app.confdir, "conf.py"))
    if problems:
        stop(problems)


def on_config_inited(app: Sphinx, config: Config) -> None:
    """Read and validate the table once per build, before any document is read."""
    state = state_of(app)
    if state.peer_options is None:  # before check_config (a lookup ahead of the event)
        check_config(app, config)
    peers = state.peer_options or []
    table = read_table(Path(app.confdir), config, srcdir=Path(app.srcdir), peers=peers)
    options = {name: getattr(config, name, None) for name in ("relocate_map", *peers)}
    state.sources = sources_of(
        Path(app.confdir), table, config.relocate_table, options, _declaring(app, table)
    )
    for note in table.notes:  # the file and line in the text: no env to resolve them yet
        logger.info(str(note))
    state_of(app).table = table


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Report, on every build, what is wrong with the table against this project."""
    table = table_of(app)
    srcdir = Path(app.srcdir)
    found = check_against_project(
        table, env.found_docs, lambda p: (srcdir / p).exists(), source_suffixes(app.config)
    )
    state_of(app).table_problems = found
    problems = [*table.warnings, *found]
    for problem in problems:
        warn(RelocateWarning(problem.subtype), problem.message, location=problem.location)
    report_unredirected(app, table)
    return []


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
        docs_changes,
        heading_at,
        ids_now,
        unredirected,
        unredirected_message,
    )

    confdir = Path(app.confdir)
    try:
        prefix, changes = docs_changes(
            Path(app.srcdir), since, 50, app.config.exclude_patterns,
            tuple(app.config.source_suffix),
            int(getattr(app.config, "myst_heading_anchors", 0) or 0),
        )
    except GitError as err:
        message = f"relocate_since = {since!r}: cannot check for pages without an entry: {err}"
        setting = setting_location(confdir, "relocate_since")
        warn(RelocateWarning.UNREDIRECTED, message, location=str(setting))
        return
    where = entries_location(confdir, app.config.relocate_table, "pages", "relocate_since")
    suffixes = tuple(app.config.source_suffix)
    anchors = int(getattr(app.config, "myst_heading_anchors", 0) or 0)
    ids_of = ids_now(Path(app.srcdir), suffixes, anchors)
    for old, new in unredirected(changes, prefix, suffixes, table, ids_of):
        message = unredirected_message(old, new, since)
        warn(RelocateWarning.UNREDIRECTED, message,
             location=str(heading_at(changes, old) or where))


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

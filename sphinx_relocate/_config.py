"""Every ``relocate_*`` config value in one place, and reading the table inside Sphinx.

:data:`CONFIG_VALUES` is the single source of truth: ``setup()`` registers from it and
the docs' configuration page is checked against it by a test.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from sphinx.errors import ConfigError

from ._peers import convert as convert_peers
from ._peers import documents_on_disk
from ._sphinx import source_suffixes
from ._state import state_of
from ._table import (
    Location,
    Problem,
    RelocationTable,
    check_against_project,
    load_table,
)
from ._warnings import RelocateWarning, error, logger, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment


@dataclass(frozen=True)
class ConfigValue:
    """One ``relocate_*`` option: its default, accepted types, rebuild scope and help."""

    name: str
    default: Any
    types: tuple[type, ...]
    help: str
    #: Sphinx's rebuild scope; table values use "" because a hash of the table decides
    #: which documents to re-read (a change must not throw the whole environment away).
    rebuild: str = ""
    #: the extension whose option this is: registered (and read) only when that one, or
    #: another extension, has not registered it (see :mod:`sphinx_relocate._peers`)
    owner: str = ""


CONFIG_VALUES: tuple[ConfigValue, ...] = (
    ConfigValue(
        "relocate_table",
        "relocations.toml",
        (str, type(None)),
        "Path of the TOML relocation table, relative to the conf dir. The default file is "
        "used only when it exists; set ``None`` to use none.",
    ),
    ConfigValue(
        "relocate_map",
        {},
        (dict,),
        "Old → new page entries written in conf.py, with the meaning of ``[pages]``. An "
        "entry also in the table file with another target is an error.",
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
    ),
    ConfigValue(
        "relocate_repo_root",
        None,
        (str, type(None)),
        "The repository root, for links that leave the docs folder. Default: the git top "
        "level above the conf dir, else the conf dir.",
        rebuild="env",
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
    ),
    ConfigValue(
        "relocate_stub_template",
        None,
        (str, type(None)),
        "Path of a Jinja2 template for redirect stubs, relative to the conf dir, compiled "
        "once per build; put ``{{ head }}`` in its ``<head>`` (the stubs page lists every "
        "variable). Default: a built-in page that needs no theme.",
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
    ),
    ConfigValue(
        "relocate_since",
        None,
        (str, type(None)),
        "A git revision (``main``, a tag, a commit): every build warns "
        "``relocate.unredirected`` at the table for each page renamed or deleted since "
        "then, in commits or in the working tree, that no entry redirects; the check of "
        "``sphinx-relocate from-git --check``.",
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
        "is a ``relocate.unredirected`` warning naming its published URL; pages the "
        "table moves get stubs and inventory entries even when only a pattern names them.",
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
    ),
)

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
    """A conf.py value of the wrong type as one problem at its line, else ``None``.

    Code that reads the value can then trust its type.  ``types`` defaults to the ones
    :data:`CONFIG_VALUES` gives ``name``.  An empty value (``None``, ``""``, ``[]``) passes:
    every reader takes it as "none".
    """
    if types is None:
        types = next(v.types for v in CONFIG_VALUES if v.name == name)
    if not value or isinstance(value, types):
        return None
    expected = " or ".join("None" if t is type(None) else t.__name__ for t in types)
    line = _line_of(conf_py, lambda text: text.split("=")[0].split(":")[0].strip() == name)
    return Problem(
        Location(shown, line),
        f"{name} must be {expected}, not {type(value).__name__}: {reprlib.repr(value)}",
    )


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
    wrong = [
        problem
        for name, value in (("relocate_table", setting), ("relocate_map", mapping))
        if (problem := setting_problem(conf_py, str(conf_py), name, value)) is not None
    ]
    if wrong:
        _stop(wrong)
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
    table, problems = load_table(
        path,
        mapping,
        mapping_file=str(conf_py),
        mapping_text=conf_text,
        source_suffixes=suffixes,
        peer_rows=converted.rows,
        peer_problems=converted.problems,
    )
    fatal = [p for p in problems if p.fatal]
    if fatal:
        _stop(fatal)
    return table


def _stop(fatal: list[Problem]) -> NoReturn:
    """Stop the build: one clean line per problem, then Sphinx's configuration error."""
    for problem in fatal:
        error(problem.message, problem.location)
    if len(fatal) == 1:
        raise ConfigError(str(fatal[0]))
    raise ConfigError(
        f"the relocation table has {len(fatal)} problems (listed above):\n"
        + "\n".join(str(p) for p in fatal)
    )


def on_config_inited(app: Sphinx, config: Config) -> None:
    """Validate the table once per build, before any document is read."""
    peers = register_peer_values(app)
    table = read_table(Path(app.confdir), config, srcdir=Path(app.srcdir), peers=peers)
    for note in table.notes:  # the file and line in the text: no env to resolve them yet
        logger.info(str(note))
    state_of(app).table = table
    state_of(app).loaded = True


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
    from ._git import GitError, docs_changes, unredirected, unredirected_message

    confdir = Path(app.confdir)
    try:
        prefix, changes = docs_changes(Path(app.srcdir), since, 50, app.config.exclude_patterns)
    except GitError as err:
        message = f"relocate_since = {since!r}: cannot check for pages without an entry: {err}"
        setting = setting_location(confdir, "relocate_since")
        warn(RelocateWarning.UNREDIRECTED, message, location=str(setting))
        return
    where = entries_location(confdir, app.config.relocate_table, "pages", "relocate_since")
    suffixes = tuple(app.config.source_suffix)
    for old, new in unredirected(changes, prefix, suffixes, table):
        message = unredirected_message(old, new, since)
        warn(RelocateWarning.UNREDIRECTED, message, location=str(where))


def setting_location(confdir: Path, name: str) -> Location:
    """The line of conf.py that sets ``name`` (line 1 when no line does)."""
    conf_py = confdir / "conf.py"
    line = _line_of(conf_py, lambda text: text.split("=")[0].strip() == name)
    return Location(str(conf_py), line)


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


def table_of(app: Sphinx) -> RelocationTable:
    """The table of this build (loaded at ``config-inited``)."""
    state = state_of(app)
    if not state.loaded:
        on_config_inited(app, app.config)
    return state.table

"""Every ``relocate_*`` config value in one place, and reading the table inside Sphinx.

:data:`CONFIG_VALUES` is the single source of truth: ``setup()`` registers from it and
the docs' configuration page is checked against it by a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ConfigError

from ._state import state_of
from ._table import (
    RelocationTable,
    check_against_project,
    load_table,
)
from ._warnings import RelocateWarning, logger, warn

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
        "table, so a team can require that sources be updated eventually.",
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
        'redirects, by HTML builders: ``"netlify"`` (a ``_redirects`` file of forced 301 '
        'rules) and ``"json"`` (``_relocate/redirects.json``, a sorted list of '
        '``{"from": …, "to": …}`` URL paths from the site root).',
    ),
)

def register(app: Sphinx) -> None:
    """Add every config value to Sphinx with its types."""
    for value in CONFIG_VALUES:
        app.add_config_value(
            value.name,
            value.default,
            value.rebuild,  # type: ignore[arg-type]
            types=value.types,
        )


def table_file(confdir: Path, setting: str | None) -> Path | None:
    """The table file to read, or ``None``: the default name counts only when it exists."""
    if not setting:
        return None
    path = confdir / setting
    if setting == "relocations.toml" and not path.exists():
        return None
    return path


def read_table(confdir: Path, config: Config | dict[str, Any]) -> RelocationTable:
    """Load and validate the table named by ``config``; fatal problems raise ``ConfigError``.

    Non-fatal problems stay in ``table.warnings`` for the build to report.
    """
    get = config.get if isinstance(config, dict) else lambda n, d=None: getattr(config, n, d)
    path = table_file(confdir, get("relocate_table", "relocations.toml"))
    mapping = get("relocate_map", {}) or {}
    if not isinstance(mapping, dict):
        raise ConfigError("relocate_map must be a dict of old → new page names")
    conf_py = confdir / "conf.py"
    conf_text = conf_py.read_text("utf-8", "replace") if mapping and conf_py.exists() else ""
    source_suffix = get("source_suffix", None) or {".rst": "restructuredtext"}
    suffixes = tuple(source_suffix) if not isinstance(source_suffix, str) else (source_suffix,)
    table, problems = load_table(
        path,
        mapping,
        mapping_file=str(conf_py),
        mapping_text=conf_text,
        source_suffixes=suffixes,
    )
    fatal = [p for p in problems if p.fatal]
    if fatal:
        for problem in fatal:  # one clean line each, before Sphinx's error report
            logger.error(problem.message, location=str(problem.location))
        count = len(fatal)
        raise ConfigError(
            f"the relocation table has {count} problem{'s' if count > 1 else ''} "
            f"(listed above):\n" + "\n".join(str(p) for p in fatal)
        )
    return table


def on_config_inited(app: Sphinx, config: Config) -> None:
    """Validate the table once per build, before any document is read."""
    state_of(app).table = read_table(Path(app.confdir), config)
    state_of(app).loaded = True


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Report, on every build, what is wrong with the table against this project."""
    table = table_of(app)
    srcdir = Path(app.srcdir)
    problems = [
        *table.warnings,
        *check_against_project(
            table, env.found_docs, lambda p: (srcdir / p).exists(), tuple(app.config.source_suffix)
        ),
    ]
    for problem in problems:
        warn(RelocateWarning(problem.subtype), problem.message, location=str(problem.location))
    return []


def table_of(app: Sphinx) -> RelocationTable:
    """The table of this build (loaded at ``config-inited``)."""
    state = state_of(app)
    if not state.loaded:
        on_config_inited(app, app.config)
    return state.table

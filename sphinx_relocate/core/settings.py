"""The extension's settings: every value declared once, checked once, derived once.

:data:`CONFIG_VALUES` declares each ``relocate_*`` value (and the peers' tables read in
their place) with its default, the types it accepts, its check and its help: ``setup()``
registers from it and the docs' configuration page is generated from it.
:data:`READ_VALUES` declares the settings of Sphinx and myst-parser that are read too.
:func:`build_settings` turns a mapping of values (Sphinx's config, or conf.py as the
command line reads it) into one frozen :class:`Settings`, so the build and the command
line cannot disagree on what a value means.  Sphinx-free.
"""

from __future__ import annotations

import ast
import os
import re
import reprlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sphinx_relocate.core.exports import EXPORTS
from sphinx_relocate.core.ids import PLAIN_HEADINGS, Headings
from sphinx_relocate.core.paths import REPO_URL_REF, forge_files_url
from sphinx_relocate.core.pysource import parse_python
from sphinx_relocate.core.stubs import URL_STYLES
from sphinx_relocate.core.table import Location, Problem

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80

#: The table file read when ``relocate_table`` is not set (only when it exists).
DEFAULT_TABLE = "relocations.toml"


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


def _url_style(item: object) -> str | None:
    """Why a ``relocate_old_url_styles`` item names no URL style, or ``None``."""
    if isinstance(item, str) and item in URL_STYLES:
        return None
    known = ", ".join(map(repr, URL_STYLES))
    return f"unknown URL style {_REPR.repr(item)} (expected any of: {known})"


def _source(item: object) -> str | None:
    """Why a ``relocate_published`` item names no source, or ``None``."""
    if isinstance(item, str) and item:
        return None
    return f"each source must be a file, folder or URL (a string), not {_REPR.repr(item)}"


def _is_url(value: object) -> bool:
    return isinstance(value, str) and re.match(r"https?://[^/\s]", value) is not None


def _not_string(value: object) -> object | None:
    """The first item (dict key, or a ``source_suffix`` file type) that is no string."""
    if not isinstance(value, (list, tuple, dict)):
        return None
    bad = [item for item in value if not isinstance(item, str)]
    if isinstance(value, dict):
        bad += [kind for kind in value.values() if not isinstance(kind, (str, type(None)))]
    return bad[0] if bad else None


@dataclass(frozen=True)
class ConfigValue:
    """One setting: its default, what it accepts, rebuild scope and help."""

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
    #: the items (keys and values of a dict) must be strings: each is used as a path
    strings: bool = False

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
        if right_type and self.strings and (bad := _not_string(value)) is not None:
            return (
                f"{self.name} must hold strings only, not {type(bad).__name__} "
                f"{reprlib.repr(bad)}: {reprlib.repr(value)}"
            )
        if right_type and (self.valid is None or not value or self.valid(value)):
            return None
        wrong = f"{self.name} must be {self.accepts}, not {described(value)}"
        if isinstance(value, str) and value and list in self.types:
            wrong += f" (write [{value!r}])"
        return wrong


CONFIG_VALUES: tuple[ConfigValue, ...] = (
    ConfigValue(
        "relocate_table",
        DEFAULT_TABLE,
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
        "The repository root, for links that leave the docs folder: they must name a file "
        "in it. Default: the git top level above the conf dir. Without either (a build "
        "from a release tarball), such links and downloads need only name a file that "
        "exists, as for Sphinx, and raw HTML copies nothing from outside the conf dir.",
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
        "against the tree. Unset, URLs of files the table moved still follow them by the "
        "repository conf.py tells its theme of (Furo's ``source_repository``, "
        "sphinx-book-theme's ``repository_url``, ``html_context``'s ``github_user`` and "
        "``github_repo``) when its docs folder is this one; ``\"\"``: not even those.",
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
        '``"json"`` (``_relocate/redirects.json``, a sorted list of ``{"from": …, "to": …}``); '
        "for the older versions of a versioned site, new name → old name where the new "
        'name is not found: ``"nginx-reverse"`` (``_relocate/nginx-reverse.conf``), '
        '``"apache-reverse"`` (``_relocate/apache-reverse.conf``) and '
        '``"readthedocs-reverse"`` (``_relocate/readthedocs-reverse.json``). '
        "Paths start with the path of ``html_baseurl`` (or ``READTHEDOCS_CANONICAL_URL``); "
        "Read the Docs' are relative to the version. The stubs page shows each format, "
        "the deploying page the setup of each host.",
        expects="a list of export names",
        item=_export,
    ),
    ConfigValue(
        "relocate_old_url_styles",
        [],
        (list, tuple),
        "The URL styles the site had before, whose URLs keep working: ``\"html\"`` "
        "(``page.html``), ``\"dirhtml\"`` (``page/``) and ``\"clean\"`` (``page``, "
        "from generators with clean URLs). HTML builders write a stub at every page's "
        "(and old page's) URL in each of them, and the exports a rule, to its URL in the "
        "site's own style; a file the build writes itself is never replaced. The "
        "deploying page shows a switch from ``html`` to ``dirhtml``.",
        expects="a list of URL styles",
        item=_url_style,
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
        (str, list, tuple, type(None)),
        "The published history, one source or a list (one a version or a site): a "
        "release's ``objects.inv``, a ``sitemap.xml``, a text file of URLs or paths (one a "
        "line, ``#`` comments), or a previous build's output folder; a file or folder "
        "relative to the conf dir, or an http(s) URL (an inventory is fetched on every "
        "build, a sitemap or list once, then kept next to the build). Every published URL "
        "that no page, file, redirect stub or server rule serves now, and every label of "
        "an inventory that is no longer a label, is a ``relocate.unredirected`` warning "
        "naming its URL, and so is a label on a page that is gone whose anchor lands on no "
        "section; published pages the table moves get stubs and inventory entries even "
        "when only a pattern names them.",
        expects="a file, folder or URL (a string), a list of them, or None",
        item=_source,
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

#: Settings of Sphinx and myst-parser that are read too; Sphinx registers (and checks)
#: them in a build, the command line checks them with these declarations.
READ_VALUES: tuple[ConfigValue, ...] = tuple(
    ConfigValue(name, default, types, "", owner=owner, strings=strings)
    for name, default, types, owner, strings in (
        ("extensions", [], (list, tuple), "sphinx", True),
        ("source_suffix", {".rst": "restructuredtext"}, (str, list, tuple, dict), "sphinx",
         True),
        ("exclude_patterns", [], (list, tuple), "sphinx", True),
        ("myst_heading_anchors", 0, (int,), "myst_parser", False),
        ("html_baseurl", "", (str,), "sphinx", False),
        ("locale_dirs", ["locales"], (list, tuple), "sphinx", True),
        ("gettext_compact", True, (bool, str), "sphinx", False),
    )
)

#: Each declared setting by its name.
DECLARED: Mapping[str, ConfigValue] = MappingProxyType(
    {value.name: value for value in (*CONFIG_VALUES, *READ_VALUES)}
)


def validate_settings(
    values: Mapping[str, object], conf_py: Path | None = None, shown: str | None = None
) -> list[Problem]:
    """Every value of ``values`` (name → value, as conf.py set it) that its declaration
    does not accept, as one problem each at its conf.py line.

    Undeclared names are not looked at.  ``shown`` is how conf.py is named in the lines
    (default: ``conf_py``, else ``conf.py``).
    """
    name_of = shown or (str(conf_py) if conf_py is not None else "conf.py")
    problems = []
    for name, value in values.items():
        known = DECLARED.get(name)
        reason = known.problem(value) if known is not None else None
        if reason is not None:
            problems.append((name, reason))
    if not problems:
        return []
    lines = _assignment_lines(conf_py) if conf_py is not None else {}
    found = [Problem(Location(name_of, lines.get(name, 0)), reason) for name, reason in problems]
    return sorted(found, key=lambda problem: problem.location.line)


def setting_line(conf_py: Path, name: str) -> int:
    """The line of conf.py that assigns ``name`` last (0 when none does or it cannot be read)."""
    return _assignment_lines(conf_py).get(name, 0)


def sidebar_key_line(conf_py: Path, setting: str, key: str) -> int:
    """The line of conf.py that writes a sidebar key (``core.spans.SIDEBAR_SETTINGS``):
    the key's own, else, for a key computed in conf.py, the line that assigns the
    setting (0 when neither is known)."""
    from sphinx_relocate.core.spans import SIDEBAR_ASSIGNED_IN, sidebar_key_lines

    try:
        text = conf_py.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return 0
    line = sidebar_key_lines(text).get((setting, key))
    return line or setting_line(conf_py, SIDEBAR_ASSIGNED_IN.get(setting, setting))


def _assignment_lines(conf_py: Path) -> dict[str, int]:
    """Name → line of its last assignment in conf.py, read from its syntax tree."""
    try:
        tree = parse_python(conf_py.read_bytes(), str(conf_py))
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


def source_suffixes(
    source_suffix: str | Iterable[str] | None, added: Iterable[str] = ()
) -> tuple[str, ...]:
    """The source suffixes of ``source_suffix`` as Sphinx reads it (a string, a list or
    a dict; ``.rst`` when unset), in its order, then those the loaded extensions
    ``added`` (as Sphinx merges them)."""
    suffixes: tuple[str, ...]
    if isinstance(source_suffix, str):
        suffixes = (source_suffix,)
    elif source_suffix:
        suffixes = tuple(source_suffix)
    else:
        suffixes = (".rst",)
    return tuple(dict.fromkeys((*suffixes, *added)))


#: the source suffixes an extension adds, for the extensions known to add any
_EXTENSION_SUFFIXES: dict[str, tuple[str, ...]] = {
    "myst_parser": (".md",),
    "myst_nb": (".md", ".ipynb"),
    "nbsphinx": (".ipynb",),
}


def extensions_suffixes(
    extensions: Iterable[str], nb_custom_formats: Iterable[str] = ()
) -> tuple[str, ...]:
    """The suffixes the ``extensions`` add, as far as known without loading them
    (a build asks Sphinx's registry instead): myst-parser adds ``.md``, MyST-NB ``.md``,
    ``.ipynb`` and those of its ``nb_custom_formats``, nbsphinx ``.ipynb``."""
    loaded = list(extensions)
    added = [suffix for name in loaded for suffix in _EXTENSION_SUFFIXES.get(name, ())]
    if "myst_nb" in loaded:
        added += [suffix for suffix in nb_custom_formats if isinstance(suffix, str)]
    return tuple(dict.fromkeys(added))


def table_file(confdir: Path, setting: str | None) -> Path | None:
    """The table file to read, or ``None``: the default name counts only when it exists."""
    if not setting:
        return None
    path = confdir / setting
    if setting == DEFAULT_TABLE and not path.exists():
        return None
    return path


def find_repo_root(confdir: Path, setting: str | None) -> tuple[Path, bool]:
    """``relocate_repo_root``, else the git top level above the conf dir, else the conf
    dir; and whether it is a repository (given or found), not the conf dir standing in
    for one (a build from a release tarball, a container without ``.git``)."""
    if setting:
        return (confdir / setting).resolve(), True
    resolved = confdir.resolve()
    found = next((f for f in (resolved, *resolved.parents) if (f / ".git").exists()), None)
    return (resolved, False) if found is None else (found, True)


def theme_repository(
    theme_options: object, context: object, docs_folder: str | None,
) -> tuple[str, str]:
    """The forge URL of the repository that conf.py tells its theme of, for "edit this
    page" links, and the setting that tells it (``("", "")`` when none does).

    The project declares its own repository there: ``html_theme_options``'
    ``source_repository`` (Furo) or ``repository_url`` (sphinx-book-theme), or
    ``html_context``'s ``github_user``/``github_repo`` (or GitLab's; pydata and Read the
    Docs themes).  A declaration whose docs folder (``source_directory``,
    ``path_to_docs``, ``doc_path`` or the Read the Docs theme's ``conf_py_path``) is not
    ``docs_folder``, the docs folder's path in the repository found (``None``: no
    repository), names another tree: not taken.
    """
    options = theme_options if isinstance(theme_options, dict) else {}
    values = context if isinstance(context, dict) else {}
    for told_by, url, branch, folder in (
        ("html_theme_options['source_repository']", options.get("source_repository"),
         options.get("source_branch"), options.get("source_directory")),
        ("html_theme_options['repository_url']", options.get("repository_url"),
         options.get("repository_branch"), options.get("path_to_docs")),
        *(
            (f"html_context['{forge}_repo']",
             _context_repository(values, forge, default_host), values.get(f"{forge}_version"),
             values.get("doc_path", values.get("conf_py_path")))
            for forge, default_host in (("github", "https://github.com"),
                                        ("gitlab", "https://gitlab.com"))
        ),
    ):
        if not _is_url(url) or not (
            # a branch with a "/" would read as a shorter one and a path (release/2.x)
            branch is None or (isinstance(branch, str) and re.fullmatch(r"[^\s?#/]*", branch))
        ):
            continue
        if docs_folder is None or not isinstance(folder, (str, type(None))) or (
            folder and os.path.normpath(folder.strip("/")) != os.path.normpath(docs_folder)
        ):
            return "", ""  # no repository here, or the theme names another docs folder
        assert isinstance(url, str)
        base = url.strip().rstrip("/")
        if re.search(REPO_URL_REF, base + "/") or not branch:
            return base + "/", told_by  # a ref of its own, or none: main and master
        return forge_files_url(base, branch), told_by
    return "", ""


def _context_repository(context: dict[str, object], forge: str, default_host: str) -> object:
    """``https://github.com/USER/REPO`` from ``html_context`` (``None`` if not given)."""
    user, repo = context.get(f"{forge}_user"), context.get(f"{forge}_repo")
    host = context.get(f"{forge}_url") or default_host
    if not (isinstance(user, str) and isinstance(repo, str) and isinstance(host, str)):
        return None
    if not all(re.fullmatch(r"[^\s/?#]+", part) for part in (user, repo)):
        return None  # a name, not a path
    return f"{host.rstrip('/')}/{user}/{repo}"


class SettingsError(Exception):
    """Values that their declarations do not accept: one problem each."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


@dataclass(frozen=True)
class Settings:
    """The settings of one project, checked, with what is derived from them.

    Built once (:func:`build_settings`) by the build's ``config-inited`` handler and by
    the command line from conf.py; the empty one stands for a build not configured yet.
    """

    #: the value of each declared setting that was given, by name
    values: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: the conf dir (conf.py's folder)
    confdir: Path = Path()
    #: ``relocate_table``, the file name as set (``None``: no table file)
    table: str | None = DEFAULT_TABLE
    #: ``relocate_ignore``, compiled
    ignore: tuple[re.Pattern[str], ...] = ()
    #: the repository (:func:`find_repo_root`)
    repo_root: Path = Path()
    #: ``repo_root`` is a repository, given or found; else the conf dir stands for one,
    #: and bounds only what the extension itself copies (raw HTML's files)
    repository_found: bool = False
    #: ``relocate_repo_url``, else the repository conf.py tells its theme of
    #: (:func:`theme_repository`): the forge has no redirect pages, unlike the site
    repo_url: str = ""
    #: the setting ``repo_url`` comes from (``""``: none)
    repo_url_from: str = ""
    #: ``relocate_stub_template``: the template file, relative to the current folder
    stub_template: Path | None = None
    #: ``relocate_redirect_exports``: the export formats to write, by name
    exports: tuple[str, ...] = ()
    #: the source suffixes in the order Sphinx reads them (:func:`source_suffixes`)
    source_suffixes: tuple[str, ...] = (".rst",)
    #: section labels carry their page's name, ``page:section``, so they move with it
    #: (``sphinx.ext.autosectionlabel`` with ``autosectionlabel_prefix_document``)
    labels_by_document: bool = False
    #: the source folder as the rule's paths name it: from ``files_root``, ending in ``/``
    docs_prefix: str = ""
    #: the folder the rule's paths start from (the file system's root)
    files_root: Path = Path()
    #: how MyST makes headings into ids (``myst_heading_anchors``, ``myst_enable_extensions``)
    headings: Headings = PLAIN_HEADINGS

    @property
    def checks_repo_urls(self) -> bool:
        """Whether the build checks own-repository URLs against the tree and makes links
        that leave the docs folder forge links: only with ``relocate_repo_url``.  The
        theme's repository only follows the table's moves, so that adding the
        extension with no table changes nothing."""
        return self.repo_url_from == "relocate_repo_url"

    @property
    def table_path(self) -> Path | None:
        """The table file to read now, or ``None`` (:func:`table_file`: the default file
        counts only while it exists, so this is asked when the table is read)."""
        return table_file(self.confdir, self.table)

    def get(self, name: str, default: Any = None) -> Any:
        """The value of a setting: as given, else its declared default, else ``default``."""
        if name in self.values:
            return self.values[name]
        declared = DECLARED.get(name)
        return declared.default if declared is not None else default


def build_settings(
    values: Mapping[str, object],
    *,
    confdir: Path,
    srcdir: Path | None = None,
    shown: str | None = None,
    added_suffixes: Iterable[str] | None = None,
) -> Settings:
    """Check ``values`` (name → value; undeclared names are kept, not checked) against
    their declarations and derive the settings; :class:`SettingsError` names every value
    that is not accepted, at its line of ``confdir``'s conf.py (shown as ``shown``).

    ``added_suffixes`` are the source suffixes the loaded extensions add (default: those
    :func:`extensions_suffixes` knows of).
    """
    problems = validate_settings(values, confdir / "conf.py", shown)
    if problems:
        raise SettingsError(problems)
    frozen = MappingProxyType(dict(values))
    given = Settings(values=frozen)
    if added_suffixes is None:
        added_suffixes = extensions_suffixes(
            given.get("extensions") or (), given.get("nb_custom_formats") or ()
        )
    suffixes = source_suffixes(given.get("source_suffix"), added_suffixes)
    source = Path(os.path.abspath(srcdir or confdir))
    template = given.get("relocate_stub_template")
    repo_root, repository_found = find_repo_root(confdir, given.get("relocate_repo_root"))
    repo_url, repo_url_from = given.get("relocate_repo_url") or "", "relocate_repo_url"
    if given.get("relocate_repo_url") is None:  # "" says: none, not even the theme's
        docs_folder = os.path.relpath(source, repo_root).replace(os.sep, "/")
        repo_url, repo_url_from = theme_repository(
            given.get("html_theme_options"), given.get("html_context"),
            None if not repository_found or docs_folder.startswith("..")
            else "" if docs_folder == "." else docs_folder,
        )
    return Settings(
        values=frozen,
        confdir=confdir,
        table=given.get("relocate_table"),
        ignore=tuple(re.compile(pattern) for pattern in given.get("relocate_ignore") or ()),
        repo_root=repo_root,
        repository_found=repository_found,
        repo_url=repo_url,
        repo_url_from=repo_url_from if repo_url else "",
        stub_template=confdir / template if template else None,
        exports=tuple(given.get("relocate_redirect_exports") or ()),
        source_suffixes=suffixes,
        labels_by_document=(
            "sphinx.ext.autosectionlabel" in (given.get("extensions") or ())
            and bool(given.get("autosectionlabel_prefix_document"))
        ),
        # the rule's paths are the file system's, from its root: a link that leaves the
        # source folder and comes back in is the same path as one that never left
        docs_prefix=source.relative_to(source.anchor).as_posix() + "/",
        files_root=Path(source.anchor),
        headings=Headings.of(
            given.get("myst_heading_anchors"), given.get("myst_enable_extensions")
        ),
    )

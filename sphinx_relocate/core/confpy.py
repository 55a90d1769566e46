"""Reading the settings of a conf.py that cannot be run, from its syntax tree.

A conf.py that imports the project's own package (``from mypkg import __version__``)
fails where that package is not installed, such as pre-commit's isolated environment.
The command line needs only a few plain settings, which are almost always literals:
each top-level assignment is read with :func:`ast.literal_eval`, and a setting the
commands need whose value is not a literal (or is set inside an ``if``/``try``) is
named, never guessed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from sphinx_relocate.core.pysource import parse_python
from sphinx_relocate.core.settings import DECLARED

#: Settings the commands read besides the ``relocate_*`` and ``rediraffe_*`` ones: the
#: declared ones, and a few of Sphinx's they read unchecked.
NEEDED = frozenset(DECLARED) | {
    "language", "html_file_suffix", "root_doc", "master_doc",
    # section labels named by their page; MyST-NB's source suffixes; what makes MyST's
    # heading ids
    "autosectionlabel_prefix_document", "nb_custom_formats", "myst_enable_extensions",
    # sphinx-external-toc's site map, whose entries name documents; whether autosummary
    # generates pages; where sphinx-autoapi writes its pages
    "external_toc_path", "autosummary_generate", "autoapi_root",
    # sphinx-gallery's galleries, whose pages its examples make; the HTML templates,
    # whose pathto('name') names pages
    "sphinx_gallery_conf", "templates_path",
    # the pages the HTML builders write without a source, which links name by URL
    "html_additional_pages",
    # the repository the theme is told of, for its "edit this page" links
    "html_theme_options", "html_context",
    # what `` `text <target>` `` is in reST: with 'any' or 'doc', a page link
    "default_role",
}


def needed(name: str) -> bool:
    """Whether the commands read ``name``."""
    return name in NEEDED or name.startswith(("relocate_", "rediraffe_"))


@dataclass
class LiteralSettings:
    """The settings read as literals, and the needed ones that could not be."""

    values: dict[str, Any] = field(default_factory=dict)
    #: needed settings left unset: ``(name, line, why)``
    unread: list[tuple[str, int, str]] = field(default_factory=list)

    def read_names(self) -> list[str]:
        """The needed settings that were read, in name order."""
        return sorted(name for name in self.values if needed(name))


def read_literals(source: str, filename: str = "conf.py") -> LiteralSettings:
    """The literal settings of a conf.py's text (``SyntaxError`` when it does not parse).

    ``name = literal`` and ``name: T = literal`` set a value, ``name += literal`` and
    ``name.append(literal)`` / ``name.extend(literal)`` add to a list read before.  Any
    other statement that sets a needed name makes it unread, with the reason.
    """
    tree = parse_python(source, filename)
    found = LiteralSettings()
    unread: dict[str, tuple[int, str]] = {}

    def forget(name: str, line: int, why: str) -> None:
        found.values.pop(name, None)
        if needed(name):
            unread[name] = (line, why)

    def literal(name: str, node: ast.expr, line: int) -> Any:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            if name in ENTRIES_READ and isinstance(node, ast.Dict) and (
                entries := _literal_entries(node)
            ):
                return entries
            forget(name, line, "not a literal")
            return _UNREAD

    for statement in tree.body:
        line = statement.lineno
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [
                statement.target
            ]
            if statement.value is None:
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    value = literal(target.id, statement.value, line)
                    if value is not _UNREAD:
                        found.values[target.id] = value
                        unread.pop(target.id, None)
                else:
                    for name in _stored_names(target):
                        forget(name, line, "not a plain assignment")
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            _add(found, forget, statement.target.id, statement.value, line,
                 isinstance(statement.op, ast.Add))
        elif (
            isinstance(statement, ast.Expr)
            and isinstance(call := statement.value, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and needed(name := call.func.value.id)
        ):
            if call.func.attr in ("append", "extend") and len(call.args) == 1 \
                    and not call.keywords:
                argument: ast.expr = call.args[0]
                if call.func.attr == "append":
                    argument = ast.List(elts=[argument], ctx=ast.Load())
                _add(found, forget, name, argument, line, True)
            else:
                forget(name, line, f"changed by .{call.func.attr}()")
        else:
            for name in _stored_names(statement):
                forget(name, line, "set by a statement that only running conf.py can read")
    found.unread = sorted((name, line, why) for name, (line, why) in unread.items())
    return found


_UNREAD = object()

#: dicts of which the commands read single entries (the theme's repository), so a dict
#: with other values than literals (``{"version": release}``) is read for its literal ones
ENTRIES_READ = frozenset({"html_theme_options", "html_context"})


def _literal_entries(node: ast.Dict) -> dict[Any, Any]:
    """The entries of a dict display whose key and value are both literals."""
    entries = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:  # ``**other``
            continue
        try:
            entries[ast.literal_eval(key)] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    return entries


def _add(found: LiteralSettings, forget: Any, name: str, node: ast.expr, line: int,
         adds: bool) -> None:
    """``name += node``: a list or tuple read before plus a literal one."""
    before = found.values.get(name, _UNREAD)
    try:
        value = ast.literal_eval(node) if adds else _UNREAD
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = _UNREAD
    if before is _UNREAD or value is _UNREAD or not isinstance(before, (list, tuple)) \
            or not isinstance(value, (list, tuple)):
        forget(name, line, "not a literal")
        return
    found.values[name] = type(before)([*before, *value])


def _stored_names(node: ast.AST) -> set[str]:
    """Every top-level name a statement (or an assignment target) may set: not the
    local names of a function, only those it declares ``global``."""
    names: set[str] = set()
    pending = [node]
    while pending:
        child = pending.pop()
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            names.add(child.id)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in child.names)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(child.name)
            names.update(
                name for inner in ast.walk(child) if isinstance(inner, ast.Global)
                for name in inner.names
            )
            continue
        pending.extend(ast.iter_child_nodes(child))
    return names

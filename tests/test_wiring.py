"""The package's structure: no import circle, one place for the Sphinx wiring, and every
value the environment keeps behind a typed store."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import sphinx_relocate
from sphinx_relocate.core.landing import Project, Site, land
from sphinx_relocate.core.table import load_table
from sphinx_relocate.sphinx_ext import events, record

PACKAGE = Path(sphinx_relocate.__file__).parent


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports anywhere: at the top, under
    ``TYPE_CHECKING`` and inside functions."""
    modules = {module_name(path, root): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative to the module's package
                    parts = name.split(".")
                    package = parts[: len(parts) - node.level + (path.name == "__init__.py")]
                    base = ".".join([*package, base]).strip(".")
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            imported.update(n for n in names if n in modules and n != name)
        graph[name] = imported
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (``[]`` when it has none)."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str]:
        if module in path:
            return [*path[path.index(module):], module]
        if module in done:
            return []
        for imported in sorted(graph[module]):
            found = visit(imported, [*path, module])
            if found:
                return found
        done.add(module)
        return []

    for module in sorted(graph):
        found = visit(module, [])
        if found:
            return found
    return []


def test_the_package_has_no_import_circle() -> None:
    assert cycle_in(import_graph(PACKAGE)) == []


def test_a_circle_under_type_checking_is_found(tmp_path: Path) -> None:
    """The check sees imports that only a type checker runs, and those in functions."""
    package = tmp_path / "sphinx_relocate"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from sphinx_relocate.b import B\n", "utf-8",
    )
    (package / "b.py").write_text("def f():\n    from . import a\n", "utf-8")
    assert cycle_in(import_graph(package)) == [
        "sphinx_relocate.a", "sphinx_relocate.b", "sphinx_relocate.a"
    ]


class Recorder:
    """What ``setup()`` registers, in order."""

    def __init__(self) -> None:
        self.connections: list[tuple[str, Any, int]] = []

    def connect(self, event: str, handler: Any, priority: int = 500) -> int:
        self.connections.append((event, handler, priority))
        return len(self.connections)

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def test_setup_connects_the_handlers_of_events_py_only() -> None:
    """Every connection is in ``setup()``, to a handler of ``events.py`` (the config
    check aside); an event has two only where Sphinx's own handlers (or another
    extension's) run in between."""
    app = Recorder()
    sphinx_relocate.setup(app)  # type: ignore[arg-type]
    by_event: dict[str, list[tuple[str, int]]] = {}
    for event, handler, priority in app.connections:
        by_event.setdefault(event, []).append((handler.__name__, priority))
        assert handler.__module__ == events.__name__ or handler.__name__ == "check_config"
    pairs = {event: handlers for event, handlers in by_event.items() if len(handlers) > 1}
    assert pairs == {
        # sphinx-external-toc reads its site map at 900, between the last two
        "config-inited": [("check_config", 400), ("load_table", 899), ("map_site_map", 905)],
        "doctree-read": [("rewrite_references", 200), ("collect_anchors", 900)],
        "build-finished": [("write_redirects", 500), ("report_build", 900)],
        # a theme reads and filters the sidebars at 500 (pydata-sphinx-theme): a moved
        # page's are given before
        "html-page-context": [("give_moved_pages_their_sidebars", 400),
                              ("prepare_page_context", 500)],
    }


def test_only_record_py_sets_values_on_the_environment() -> None:
    """No ``env.relocate_x = ...`` nor ``getattr(env, "relocate_x")`` outside the typed
    stores of ``record.py``."""
    found = []
    for path in (PACKAGE / "sphinx_ext").glob("*.py"):
        if path.name == "record.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("relocate_") and (
                isinstance(node.value, ast.Name) and node.value.id in ("env", "other")
            ):
                found.append(f"{path.name}:{node.lineno}")
            if (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and str(node.args[1].value).startswith("relocate_")
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


def test_every_store_is_purged_and_merged() -> None:
    names = {store.attribute for store in record._STORES}
    assert {
        "relocate_references", "relocate_anchors", "relocate_lookups", "relocate_raw_html",
        "relocate_neutralized", "relocate_catalogs",
    } <= names
    env: Any = SimpleNamespace()
    other: Any = SimpleNamespace()
    for store in record._STORES:
        store(env)["gone"] = store(env)["kept"] = store(other)["read"] = object()
    record.purge(env, "gone")
    record.merge(env, ["read"], other)
    for store in record._STORES:
        assert store(env).keys() == {"kept", "read"}, store.attribute


def test_a_value_of_the_whole_site_starts_from_its_default() -> None:
    value: record.EnvValue[dict[str, int]] = record.EnvValue("relocate_test", dict)
    env: Any = SimpleNamespace()
    assert value(env) == {}
    value.set(env, {"a": 1})
    assert value(env) == {"a": 1}


def test_each_document_notes_its_own_lookups(tmp_path: Path) -> None:
    """The build's one project is never rebound: each document's resolver gets a project
    of its own that notes into its set, with the caches shared."""
    path = tmp_path / "relocations.toml"
    path.write_text('[pages]\n"old" = "new"\n[anchors]\n"old#a" = "new#b"\n', "utf-8")
    table, problems = load_table(path, source_suffixes=(".md",))
    assert problems == []
    docs = {"index", "new"}
    base = Project(table, (".md",), "", docs.__contains__, lambda p: False, lambda p: False)
    first: set[tuple[str, str, str]] = set()
    second: set[tuple[str, str, str]] = set()
    one, two = base.recording(first.add), base.recording(second.add)
    landing = land("old.md#a", "any", Site(("",)), one)
    assert landing is not None and (landing.target, landing.anchor) == ("new", "b")
    land("index.md", "any", Site(("",)), two)
    assert ("page", "old", "a") in first and ("page", "old", "a") not in second
    assert ("page", "index", "") in second and ("page", "index", "") not in first
    assert base.on_lookup is None
    assert one._anchor_keys is two._anchor_keys is base._anchor_keys
    assert one._anchor_pages is two._anchor_pages is base._anchor_pages

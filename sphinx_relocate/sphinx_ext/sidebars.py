"""Sidebar keys that name pages the table moved: followed, or warned about.

A key of ``html_sidebars`` (and of pydata-sphinx-theme's ``secondary_sidebar_items``)
is a page name or a pattern of them (``"install": []``, ``"api/**": [...]``).  When the
page moves, the key matches nothing and the page gets the theme's default sidebars, with
no word from Sphinx.  So once the documents are known, each key that matches no
document is carried through the table as a link would be
(``core.landing.moved_sidebar_key``), and the pages it lands on get its sidebars when
they are rendered; a key the table moved where no key can follow (a page that became a
URL, a pattern whose pages went to different folders) is a ``relocate.sidebar`` warning
at its line of conf.py, on every build.  ``rewrite`` writes the new keys into conf.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.matching import patmatch

from sphinx_relocate.core.landing import page_keyed_settings, sidebar_keys_through
from sphinx_relocate.core.paths import SIDEBAR_WILDCARDS
from sphinx_relocate.core.settings import sidebar_key_line
from sphinx_relocate.sphinx_ext.queries import table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> None:
    """Work out which keys move (for :func:`follow_sidebars`), and warn for those that
    named moved pages and cannot follow them."""
    state = state_of(app)
    state.moved_sidebars = {}
    table = table_of(app)
    if not table or app.builder.format != "html":
        return
    keyed = page_keyed_settings(lambda name: getattr(app.config, name, None))
    if not keyed:
        return
    keys = sidebar_keys_through(keyed, table, env.found_docs)
    state.moved_sidebars = keys.moved
    if app.config.relocate_report_rewrites:
        for setting, moved in keys.moved.items():
            for key, new in moved.items():
                warn(RelocateWarning.OUTDATED,
                     f"{setting} key {key!r} names old pages; it now applies to {new!r}",
                     location=_location(app, setting, key))
    for setting, key, message in keys.lost:
        warn(RelocateWarning.SIDEBAR, message, location=_location(app, setting, key))


def follow_sidebars(app: Sphinx, pagename: str, context: dict[str, Any]) -> None:
    """Give a page the sidebars of the key that named it before it moved: for
    ``html_sidebars`` by Sphinx's rule (a key without wildcards wins over a pattern,
    else the first pattern that matches), before a theme reads them; the theme's
    ``secondary_sidebar_items`` with the keys moved, for the theme to match."""
    moved = state_of(app).moved_sidebars
    if not moved:
        return
    keys = moved.get("html_sidebars")
    if keys:
        matched: str | None = None
        chosen: Any = None
        followed = False
        for key, value in app.config.html_sidebars.items():
            pattern = keys.get(key, key)
            if not isinstance(pattern, str) or not patmatch(pagename, pattern):
                continue
            if matched is not None and SIDEBAR_WILDCARDS.intersection(pattern):
                continue  # Sphinx keeps the key it matched first (and warns for two patterns)
            matched, chosen, followed = pattern, value, key in keys
        if followed:
            context["sidebars"] = [chosen] if isinstance(chosen, str) else list(chosen)
    keys = moved.get("secondary_sidebar_items")
    items = context.get("theme_secondary_sidebar_items")
    if keys and isinstance(items, Mapping):
        context["theme_secondary_sidebar_items"] = {keys.get(k, k): v for k, v in items.items()}


def _location(app: Sphinx, setting: str, key: str) -> str | None:
    """conf.py at the key's line (the setting's, for a key computed in conf.py)."""
    if not app.confdir:
        return None
    conf_py = Path(app.confdir, "conf.py")
    line = sidebar_key_line(conf_py, setting, key)
    return f"{conf_py}:{line}" if line else None

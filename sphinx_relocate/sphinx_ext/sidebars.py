"""``html_sidebars`` keys that name pages the table moved: followed, or warned about.

A key of ``html_sidebars`` is a page name or a pattern of them (``"install": []``,
``"api/**": [...]``).  When the page moves, the key matches nothing and the page gets
the theme's default sidebars, with no word from Sphinx.  So once the documents are
known, each key that matches no document is carried through the table as a link would
be (``core.landing.moved_sidebar_key``), and the pages it lands on get its sidebars when
they are rendered; a key the table moved where no key can follow (a page that became a
URL, a pattern whose pages went to different folders) is a ``relocate.sidebar`` warning
at its line of conf.py, on every build.  ``rewrite`` writes the new keys into conf.py.
"""

from __future__ import annotations

import os
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.matching import patmatch

from sphinx_relocate.core.landing import lost_sidebar_key, moved_sidebar_key
from sphinx_relocate.core.paths import SIDEBAR_WILDCARDS
from sphinx_relocate.core.spans import sidebar_keys
from sphinx_relocate.sphinx_ext.queries import table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> None:
    """Work out which keys move (for :func:`follow_sidebars`), and warn for those that
    named moved pages and cannot follow them."""
    state = state_of(app)
    state.moved_sidebars = {}
    sidebars = getattr(app.config, "html_sidebars", None)
    table = table_of(app)
    if not sidebars or not table or app.builder.format != "html":
        return
    documents = env.found_docs
    lines: dict[str, int] | None = None
    for key in sidebars:
        if not isinstance(key, str):
            continue
        moved = moved_sidebar_key(key, table, documents)
        if moved is not None and moved not in sidebars:  # a key for the new name wins
            state.moved_sidebars[key] = moved
            if app.config.relocate_report_rewrites:
                lines = _key_lines(app) if lines is None else lines
                warn(RelocateWarning.OUTDATED,
                     f"html_sidebars key {key!r} names old pages; it now applies to {moved!r}",
                     location=_location(app, lines, key))
            continue
        lost = None if moved is not None else lost_sidebar_key(key, table, documents)
        if lost is not None:
            lines = _key_lines(app) if lines is None else lines
            warn(RelocateWarning.SIDEBAR,
                 f"html_sidebars key {key!r} matches no page: the table moved what it "
                 f"named ({lost}); write a key for the new names",
                 location=_location(app, lines, key))


def follow_sidebars(app: Sphinx, pagename: str, context: dict[str, Any]) -> None:
    """Give a page the sidebars of the key that named it before it moved, by Sphinx's
    rule: a key without wildcards wins over a pattern, else the first pattern that
    matches."""
    moved = state_of(app).moved_sidebars
    if not moved:
        return
    matched: str | None = None
    chosen: Any = None
    followed = False
    for key, value in app.config.html_sidebars.items():
        pattern = moved.get(key, key)
        if not isinstance(pattern, str) or not patmatch(pagename, pattern):
            continue
        wildcard = bool(SIDEBAR_WILDCARDS.intersection(pattern))
        if matched is not None and wildcard:
            continue  # Sphinx keeps the key it matched first (and warns for two patterns)
        matched, chosen, followed = pattern, value, key in moved
    if followed:
        context["sidebars"] = [chosen] if isinstance(chosen, str) else list(chosen)


def _key_lines(app: Sphinx) -> dict[str, int]:
    """The line of conf.py each ``html_sidebars`` key is written on."""
    if not app.confdir:
        return {}
    path = os.path.join(app.confdir, "conf.py")
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return {}
    return {text[span.start : span.end]: text.count("\n", 0, span.start) + 1
            for span in reversed(sidebar_keys(text))}  # the first of a repeated key


def _location(app: Sphinx, lines: dict[str, int], key: str) -> str | None:
    line = lines.get(key)
    if line is None:
        return None
    return f"{os.path.join(app.confdir, 'conf.py')}:{line}"

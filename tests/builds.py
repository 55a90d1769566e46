"""Building a test project in this process: the one helper the test modules share.

Each build gets its own status and warning streams, records the documents it read,
reads the message catalogs afresh, and is cleaned up before it returns (a later build
in the same process then registers its node classes afresh, without "already
registered" warnings): as if each build were a ``sphinx-build`` process of its own.
"""

from __future__ import annotations

import gettext
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

from sphinx.testing.util import SphinxTestApp

#: the terminal colours Sphinx writes around a warning
COLOR = re.compile(r"\x1b\[[0-9;]*m")
ROOTS = Path(__file__).parent / "roots"


@dataclass(frozen=True)
class Built:
    """What a finished build left: the application (cleaned up, so for reading its
    ``env``, ``config`` and ``outdir`` only), its output and the documents it read."""

    app: SphinxTestApp
    status: str
    warnings: str
    read: frozenset[str]

    @property
    def outdir(self) -> Path:
        return Path(self.app.outdir)


def build(
    srcdir: Path,
    builder: str = "html",
    *,
    builddir: Path | None = None,
    fresh: bool = False,
    confoverrides: Mapping[str, Any] | None = None,
    parallel: int = 0,
) -> Built:
    """Build ``srcdir`` with ``builder`` into ``builddir / builder`` (``srcdir / "_build"``
    by default), incrementally unless ``fresh``."""
    # Python's gettext keeps every .mo it read, by path, for the life of the process
    # (each sphinx-build is a new one)
    gettext._translations.clear()  # type: ignore[attr-defined]
    read: set[str] = set()
    status, warning = StringIO(), StringIO()
    app = SphinxTestApp(
        builder, srcdir=srcdir, builddir=builddir, freshenv=fresh,
        confoverrides=dict(confoverrides or {}), status=status, warning=warning,
        parallel=parallel,
    )
    app.connect("source-read", lambda app, docname, source: read.add(docname))
    try:
        app.build()
    finally:
        app.cleanup()
    return Built(app, status.getvalue(), warning.getvalue(), frozenset(read))


def build_reading(
    srcdir: Path, builder: str = "html", **options: Any
) -> tuple[frozenset[str], str]:
    """:func:`build`'s documents read and warnings, for the tests of what a build re-reads."""
    built = build(srcdir, builder, **options)
    return built.read, built.warnings


def copy_root(name: str, tmp_path: Path) -> Path:
    """The test root ``roots/test-<name>`` copied to ``tmp_path / "docs"`` (tests that
    build it change or rewrite it)."""
    srcdir = tmp_path / "docs"
    shutil.copytree(ROOTS / f"test-{name}", srcdir)
    return srcdir


def warning_lines(srcdir: Path, builddir: Path, **confoverrides: object) -> list[str]:
    """The warnings of a build of ``srcdir``, one a line with its type, without colours,
    and with ``srcdir`` written ``docs``."""
    built = build(srcdir, builddir=builddir,
                  confoverrides={"show_warning_types": True, **confoverrides})
    return [line.replace(str(srcdir), "docs")
            for line in COLOR.sub("", built.warnings).splitlines()]

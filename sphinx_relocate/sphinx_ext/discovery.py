"""Which files are the project's documents, decided by Sphinx's own rules.

The core reads declarations and peers' directives from source files; which files count
(exclude and include patterns, Sphinx's own excluded paths) is Sphinx's to say, here, for
the build and the command line alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sphinx.project import EXCLUDE_PATHS, Project
from sphinx.util.matching import Matcher


def pattern_matchers(
    exclude_patterns: Iterable[str], include_patterns: Iterable[str] = ("**",)
) -> tuple[Matcher, Matcher]:
    """The matchers of excluded and of included source-relative paths, as Sphinx's
    discovery uses them (its own excluded paths added)."""
    return Matcher([*exclude_patterns, *EXCLUDE_PATHS]), Matcher(list(include_patterns))


def discover_files(
    srcdir: Path,
    source_suffixes: Iterable[str],
    exclude_patterns: Iterable[str],
    include_patterns: Iterable[str] = ("**",),
) -> list[tuple[str, str]]:
    """The project's documents as (docname, source path), found the way Sphinx does."""
    project = Project(srcdir, dict.fromkeys(source_suffixes, "restructuredtext"))
    docnames = project.discover(list(exclude_patterns), list(include_patterns))
    return [(docname, str(project.doc2path(docname, False))) for docname in sorted(docnames)]

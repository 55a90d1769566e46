"""Every warning the extension emits, as one enum.

Each is logged with ``type="relocate"`` and ``subtype=<value>``, so a project silences
one kind with ``suppress_warnings = ["relocate.<value>"]``.  The docs list every member
(a test keeps them in step).  The members of the references' part are also the kinds of
reference (``Reference.kind``; ``_resolve.REFERENCE_KINDS`` says what the build does
with each): a ``str`` enum, so a kind compares equal to its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, NoReturn

from sphinx.errors import ConfigError
from sphinx.util import logging

from sphinx_relocate.core.table import Location, Problem

logger = logging.getLogger("sphinx_relocate")


class RelocateWarning(str, Enum):
    """The ``relocate.*`` warning subtypes."""

    # -- the table --
    TABLE = "table"
    """The relocation table has a problem that does not stop the build."""
    CASE_COLLISION = "case_collision"
    """Two old names differ only by letter case; they collide on macOS and Windows."""
    TARGET_MISSING = "target_missing"
    """A table target is not a document (or file) of the project."""
    SHADOWED = "shadowed"
    """An old name in the table is still a document (or a file the build writes), so the
    table entry is not used."""
    UNREDIRECTED = "unredirected"
    """A page renamed or deleted since ``relocate_since``, or a page or label of the
    ``relocate_published`` inventory that is gone, has no entry (or it cannot be checked)."""

    # -- references --
    OUTDATED = "outdated"
    """A reference was written against an old path or label and rewritten, or a moved
    page is translated from the catalog at its old name (``relocate_report_rewrites``)."""
    LINK = "link"
    """A link to a page or local file does not land."""
    AMBIGUOUS = "ambiguous"
    """A moved page's link lands on two pages (from its folder now and from a folder it
    stood in), and neither the page's other links nor an anchor decide which is meant."""
    LABEL = "label"
    """A reference to a renamed label (a ``[labels]`` key) may also name a document or an
    anchor of its page (``:any:``, MyST's ``[](#name)``), so it is not sent to the new
    label."""
    ANCHOR = "anchor"
    """A link lands on a page that has no such anchor, or an old id that an ``[anchors]``
    or ``[labels]`` entry would put on its new section is still used on that page (or
    put on another section of it by another entry)."""
    TOCTREE = "toctree"
    """A toctree entry names no document."""
    IMAGE = "image"
    """An image or figure file does not exist."""
    DOWNLOAD = "download"
    """A download target does not exist."""
    RAW_HTML = "raw_html"
    """An ``href`` or ``src`` in raw HTML does not land."""
    INCLUDE = "include"
    """A file that ``include``, ``literalinclude``, ``csv-table :file:`` or ``raw :file:``
    reads does not exist (docutils and Sphinx stop on it themselves: counted, not
    emitted)."""
    REPO_FILE = "repo_file"
    """A link that leaves the docs folder names no file of the repository."""
    REPO_URL = "repo_url"
    """An absolute URL of the project's own site or repository names no file or page."""
    UNPUBLISHED = "unpublished"
    """A reST link names a local file that is no page, which Sphinx does not copy into
    the site, and the HTML output has nothing at that URL: a 404 once published."""
    SIDEBAR = "sidebar"
    """An ``html_sidebars`` key named pages the table moved where no key can follow them
    (a page that became a URL, a pattern whose pages went to different folders): it
    matches no page now."""

    # -- redirect stubs --
    CASE_RENAME = "case_rename"
    """An old and a new page differ only by letter case, so no stub is written for it."""
    STUB = "stub"
    """A redirect stub or export could not be written (template error, a refused path, a
    file there that the extension did not write), or the old page names could not be
    added to ``objects.inv``."""

    # -- the report --
    SUMMARY = "summary"
    """The closing count of dangling references (only with ``relocate_fail_on_dangling``)."""

    def __str__(self) -> str:
        return f"relocate.{self.value}"


def warn(kind: RelocateWarning, message: str, location: Any = None, **kwargs: Any) -> None:
    """Log a ``relocate.*`` warning at ``(docname, line)``, a node, ``"file:line"`` or a
    table :class:`Location`."""
    message, location = _located(message, location)
    logger.warning(message, type="relocate", subtype=kind.value, location=location, **kwargs)


def error(message: str, location: Location) -> None:
    """Log an error at a table location, before a ``ConfigError`` stops the build."""
    message, where = _located(message, location)
    logger.error(message, location=where)


def stop(problems: Sequence[Problem], what: str = "the configuration") -> NoReturn:
    """Stop the build: first one clean error line per problem, then ``ConfigError``.

    Sphinx 8.2+ follows any exception with its crash report (versions, a traceback, "please
    open an issue"); the lines logged here come first, so the user reads the cause before
    it.  Every fatal problem of a build goes through here.
    """
    for problem in problems:
        error(problem.message, problem.location)
    if len(problems) == 1:
        raise ConfigError(str(problems[0])) from None
    raise ConfigError(
        f"{what} has {len(problems)} problems (listed above):\n"
        + "\n".join(str(p) for p in problems)
    ) from None


def fatal(message: str) -> NoReturn:
    """Stop the build on a problem whose ``message`` already says where: its line first."""
    logger.error(message)
    raise ConfigError(message) from None


def _located(message: str, location: Any) -> tuple[str, Any]:
    """A table :class:`Location` as Sphinx's logging takes it.

    Sphinx reads a location without ``:`` as a docname, which needs the environment (there
    is none at ``config-inited``), so a file without a line goes into the message instead.
    """
    if not isinstance(location, Location):
        return message, location
    if location.line:
        return message, str(location)
    return f"{location.file}: {message}", None

"""What the resolver leaves in the environment for the checker.

The resolver (``_resolve.py``) records every internal reference of a document after
rewriting it; the checker (``_check.py``) checks all of them on every build, so a
dangling reference is reported again on builds that do not re-read its document.
The records live in ``env.relocate_references`` (docname → list), are purged with
their document and merged from parallel readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


@dataclass(frozen=True)
class Reference:
    """One internal reference as it stands after resolution."""

    docname: str
    #: 1-based source line, 0 when docutils did not give one
    line: int
    #: the RelocateWarning value reported when it dangles: "link", "toctree", "image",
    #: "download", "raw_html", "repo_file" or "repo_url"
    kind: str
    #: the target exactly as written in the source
    written: str
    #: what it points at now: a docname when ``is_page``, else a source-relative file
    #: path (``../`` when it leaves the source folder); "" when nothing could be derived
    target: str
    is_page: bool
    #: fragment to find on the target page, "" for none
    anchor: str = ""
    #: the table changed the written target
    rewritten: bool = False


def references_of(env: BuildEnvironment) -> dict[str, list[Reference]]:
    """The per-document reference records, created on first use."""
    store: dict[str, list[Reference]] | None = getattr(env, "relocate_references", None)
    if store is None:
        store = {}
        env.relocate_references = store  # type: ignore[attr-defined]
    return store


def record(env: BuildEnvironment, reference: Reference) -> None:
    references_of(env).setdefault(reference.docname, []).append(reference)


def on_env_purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    references_of(env).pop(docname, None)


def on_env_merge_info(
    app: Sphinx, env: BuildEnvironment, docnames: list[str], other: BuildEnvironment
) -> None:
    theirs = references_of(other)
    ours = references_of(env)
    for docname in docnames:
        if docname in theirs:
            ours[docname] = theirs[docname]

"""What the resolver leaves in the environment for the checker.

The resolver (``_resolve.py``) records every internal reference of a document after
rewriting it; the checker (``_check.py``) checks all of them on every build, so a
dangling reference is reported again on builds that do not re-read its document.
The records live in ``env.relocate_references`` (docname → list), are purged with
their document and merged from parallel readers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from sphinx_relocate.sphinx_ext.warnings import RelocateWarning

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

T = TypeVar("T")


class Reference(NamedTuple):
    """One internal reference as it stands after resolution.

    A tuple of strings and one enum member, so pickling the environment stays cheap (the
    member is pickled once): a large site keeps tens of thousands of these.
    """

    docname: str
    #: 1-based source line, 0 when docutils did not give one
    line: int
    #: its kind, a key of ``_resolve.REFERENCE_KINDS`` (the subtype reported when it
    #: dangles): LINK, LABEL, TOCTREE, IMAGE, DOWNLOAD, RAW_HTML, REPO_FILE or REPO_URL
    kind: RelocateWarning
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
    #: ``(lands_on, target, anchor)`` of the other meanings of a reference that lands on
    #: several targets from the document's folders and that the page's frame did not
    #: decide: the one that has the anchor wins once every document is read, else the
    #: reference is ambiguous (``_landing.settle``)
    alternatives: tuple[tuple[str, str, str], ...] = ()
    #: a MyST link that MyST may also resolve as a name (a label, an object, an
    #: intersphinx entry): it dangles only when no such name claims it (``_check``)
    by_name: bool = False


class PerDocument(Generic[T]):
    """``docname → value`` kept on the environment, purged and merged like Sphinx's own data.

    Every store of the extension is one of these, so none can forget ``-j`` or a
    removed document.
    """

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __call__(self, env: BuildEnvironment) -> dict[str, T]:
        store: dict[str, T] | None = getattr(env, self.attribute, None)
        if store is None:
            store = {}
            setattr(env, self.attribute, store)
        return store

    def purge(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        self(env).pop(docname, None)

    def merge(
        self, app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment
    ) -> None:
        theirs, ours = self(other), self(env)
        for docname in docnames:
            if docname in theirs:
                ours[docname] = theirs[docname]

    def connect(self, app: Sphinx) -> None:
        app.connect("env-purge-doc", self.purge)
        app.connect("env-merge-info", self.merge)


#: the reference records of each document
references_of: PerDocument[list[Reference]] = PerDocument("relocate_references")


def record(env: BuildEnvironment, reference: Reference) -> None:
    references_of(env).setdefault(reference.docname, []).append(reference)

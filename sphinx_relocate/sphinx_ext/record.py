"""What the extension keeps in the environment, behind typed stores.

The resolver (``resolve.py``) records the internal references of a document after
rewriting it (all but those that land as written on a page that exists); the checker
(``check.py``) checks them and reports its findings on every build, so a dangling
reference is reported again on builds that do not re-read its document.
The records live in ``env.relocate_references`` (docname → list), are purged with
their document and merged from parallel readers.

Every value the environment keeps is a :class:`PerDocument` store (purged and merged by
:func:`purge` and :func:`merge`, which ``events.py`` connects once for all of them) or
an :class:`EnvValue` (one value of the whole site, set in the main process); nothing
else sets attributes on the environment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from sphinx_relocate.sphinx_ext.warnings import RelocateWarning

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment

T = TypeVar("T")

#: every :class:`PerDocument` store, in the order they were made
_STORES: list[PerDocument[Any]] = []


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
    #: reference is ambiguous (``core/landing.settle``)
    alternatives: tuple[tuple[str, str, str], ...] = ()
    #: a MyST link that MyST may also resolve as a name (a label, an object, an
    #: intersphinx entry): it dangles only when no such name claims it (``check.py``)
    by_name: bool = False
    #: the file it is written in, when another than the document's own source (a file
    #: the document includes): where its warning points
    source: str = ""
    #: the warning Sphinx or MyST gives it when it dangles without the extension, whose
    #: place ours takes (``myst.xref_missing``, ``ref.doc``, ``image.not_readable``): a
    #: ``suppress_warnings`` entry that silences that one silences ours ("" for none)
    replaces: str = ""
    #: the builder publishes the file it names (a download, an image, raw HTML's copy);
    #: a reST link's file is served only where the HTML output has it, which is checked
    #: once the output is written (``relocate.unpublished``)
    published: bool = True

    def __reduce__(self) -> tuple[Any, ...]:
        # made again by tuple.__new__, in C, when the environment is loaded (every
        # build): the named tuple's own __new__ is a Python call per record, a third of
        # the time the records take to load
        return (tuple.__new__, (Reference, tuple(self)))


class PerDocument(Generic[T]):
    """``docname → value`` kept on the environment, purged and merged like Sphinx's own data.

    Each store registers itself when it is made, so :func:`purge` and :func:`merge`
    cannot forget one, nor ``-j`` or a removed document.
    """

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute
        _STORES.append(self)

    def __call__(self, env: BuildEnvironment) -> dict[str, T]:
        store: dict[str, T] | None = getattr(env, self.attribute, None)
        if store is None:
            store = {}
            setattr(env, self.attribute, store)
        return store

    def purge(self, env: BuildEnvironment, docname: str) -> None:
        self(env).pop(docname, None)

    def merge(
        self, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment
    ) -> None:
        theirs, ours = self(other), self(env)
        for docname in docnames:
            if docname in theirs:
                ours[docname] = theirs[docname]



def purge(env: BuildEnvironment, docname: str) -> None:
    """Forget a document in every store (it is re-read or removed)."""
    for store in _STORES:
        store.purge(env, docname)


def merge(env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment) -> None:
    """Take what a parallel reader kept of its documents, in every store."""
    for store in _STORES:
        store.merge(env, docnames, other)


class EnvValue(Generic[T]):
    """One value of the whole site kept on the environment between builds.

    Set only in the main process (``env-get-outdated``, ``env-purge-doc``,
    ``env-updated``), so there is nothing to purge or merge; ``default`` is what a
    fresh environment holds.
    """

    def __init__(self, attribute: str, default: Callable[[], T]) -> None:
        self.attribute = attribute
        self.default = default

    def __call__(self, env: BuildEnvironment) -> T:
        value: T | None = getattr(env, self.attribute, None)
        return self.default() if value is None else value

    def set(self, env: BuildEnvironment, value: T) -> None:
        setattr(env, self.attribute, value)


#: the reference records of each document
references_of: PerDocument[list[Reference]] = PerDocument("relocate_references")
#: docname → every fragment a link may name on that page (``check.collect_anchors``)
anchors_of: PerDocument[set[str]] = PerDocument("relocate_anchors")


def record(env: BuildEnvironment, reference: Reference) -> None:
    references_of(env).setdefault(reference.docname, []).append(reference)

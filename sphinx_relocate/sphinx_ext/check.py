"""Dangling references: find them on every build, report each once, with a hint.

How it works:

* While each document is read, its anchors (section and target ids, names, MyST heading
  slugs, ``id``/``name`` attributes in raw HTML) go into ``env.relocate_anchors``.  The
  resolver (``resolve.py``) has already recorded every internal reference of the
  document that there is something to check about (``record.py``): all but the links
  that land as written on a page that exists, whose lookup re-reads the document when
  that page goes.
* At ``env-updated``, which Sphinx emits on every build, even one that reads nothing,
  the recorded references are checked against the project: the page exists, the anchor
  is on it, the file exists (inside the repository when it leaves the docs folder).
  A document's answers are kept (:class:`DocumentCheck`) and worked out again only when
  the build read or removed it or a page they depend on, or when they depend on more
  than pages (a file no reader notes, a name, a label): a build costs in proportion to
  what it changed, and gives every warning again.
  Each miss is one ``relocate.<kind>`` warning at its file and at the link's own line
  (:class:`Locator` reads it from the source).  A reference the table did not touch
  that something else claims (a page the builder generates, or for a MyST link a label,
  an object or an intersphinx name) is no miss: it is Sphinx's and MyST's, as it is
  without the extension (:meth:`Checker.claimed`).  The records live in
  the environment, so a document that is not re-read is still reported: a second
  ``-W`` build of a broken project fails too.
* Sphinx and MyST report some of these kinds themselves, but only when the referring
  document is written (MyST's ``myst.xref_missing``, Sphinx's ``ref.doc``), so they are
  not persistent.  For those the unresolved node is replaced by its text before they
  see it (images and downloads at read time, page links and anchors in a
  post-transform that runs before theirs), and ours is the only warning (silenced
  where ``suppress_warnings`` silences theirs: :func:`silenced`).  Toctree
  entries are the exception: Sphinx warns ``toc.not_readable`` on every build (it
  re-reads such documents), so we count those but do not warn twice.
* A page link of a moved page that names one page from the new folder and another from
  an old one (``../index.md#setup``) lands when either has the anchor; a post-transform
  sends it to that page (:func:`settle`).
* A reference to a renamed label (``[labels]``) is decided here too, once every label
  is known: it lands on the new label unless the old one still exists, and
  :class:`ReportedReferences` sends its node there before MyST and Sphinx resolve it.  One
  that names a label that is neither a label nor a table key is Sphinx's to report.
* At ``build-finished`` the findings are counted for the summary line (``_summary``);
  ``relocate_fail_on_dangling`` also warns the count and sets the exit status 1.
"""

from __future__ import annotations

import bisect
import difflib
import os
import posixpath
import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import docname_join
from sphinx.util.logging import is_suppressed_warning

from sphinx_relocate.core.landing import LabelLanding, Landing, generated_page, land_label
from sphinx_relocate.core.landing import settle as settle_landing
from sphinx_relocate.core.paths import (
    decode,
    folder_of,
    join_relative,
    leaves_root,
    relative_path,
    safe_output_path,
    site_path,
    split_target,
    strip_source_suffix,
)
from sphinx_relocate.core.peers import PEERS
from sphinx_relocate.core.settings import Settings
from sphinx_relocate.core.spans import find_targets
from sphinx_relocate.core.table import check_against_project, check_labels, normalize_label
from sphinx_relocate.sphinx_ext.adapters import (
    app_of,
    current_docname,
    elements,
    label_xref,
    points_elsewhere,
    source_suffixes,
)
from sphinx_relocate.sphinx_ext.queries import (
    generated_pages,
    labels_of,
    labels_on,
    rendered_pages,
    table_of,
)
from sphinx_relocate.sphinx_ext.record import (
    EnvValue,
    PerDocument,
    Reference,
    anchors_of,
    references_of,
)
from sphinx_relocate.sphinx_ext.resolve import ReferenceKind, kind_of
from sphinx_relocate.sphinx_ext.state import Finding, Report, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.core.table import RelocationTable

#: Class given to the text that replaces a dangling link, image or download.
DANGLING_CLASS = "relocate-dangling"



# -- findings of one build ------------------------------------------------------




# -- what the environment keeps --------------------------------------------------


#: docname → source-relative files whose image or download node was replaced
neutralized_of: PerDocument[set[str]] = PerDocument("relocate_neutralized")


class DocumentCheck(NamedTuple):
    """What the check found in one document, kept between builds so that a build
    checks again only what its changes can have changed (warnings are given from it
    on every build)."""

    findings: tuple[Finding, ...]
    #: the pages whose existence and anchors its answers depend on
    depends_on: frozenset[str]
    #: an answer depends on more than those pages (a file no reader notes as a
    #: dependency, a name, a label, the table, a missing page): checked on every build
    volatile: bool
    #: a reference has other meanings, settled by anchors (``ReportedReferences``)
    alternatives: bool
    #: names of MyST links to pages, whose answer changes when a label of that name comes
    #: or goes (the page of the one there now is in ``depends_on``)
    names: frozenset[str] = frozenset()


#: (the ignore patterns it was made under, docname → its check)
checks_of: EnvValue[tuple[str, dict[str, DocumentCheck]]] = EnvValue(
    "relocate_checks", lambda: ("", {})
)

#: docname → (subtype, written) of the findings of the last check
dangling_keys_of: EnvValue[dict[str, frozenset[tuple[str, str]]]] = EnvValue(
    "relocate_dangling", dict
)


def collect_anchors(app: Sphinx, doctree: nodes.document) -> None:
    """Complete the fragments a link may name on this page (after every other handler).

    The resolver's walk noted the ids and names the page had when it was read (and the
    ids of its raw HTML); what other handlers added since is in the document's own
    indexes (``set_id`` and the ``note_*_target`` methods keep them), and MyST's heading
    slugs in its metadata: no second walk.
    """
    env = app.env
    docname = current_docname(env)
    found = anchors_of(env).setdefault(docname, set())
    ids = doctree.ids
    found.update(id_ for id_, node in ids.items() if not points_elsewhere(node))
    # the names of explicit targets (labels, which MyST reads a fragment as); a
    # section's own title is a name but no fragment of the page's URL
    nameids = doctree.nameids
    found.update(
        name for name, explicit in doctree.nametypes.items()
        if explicit and (node := ids.get(nameids.get(name) or "")) is not None
        and not points_elsewhere(node)
    )
    slugs = getattr(doctree, "myst_slugs", None) or env.metadata[docname].get("myst_slugs", {})
    found.update(slugs)


def has_anchor(anchors: dict[str, set[str]], docname: str, anchor: str) -> bool:
    """Whether ``anchor`` is on ``docname``; a page not read with this extension has all."""
    found = anchors.get(docname)
    if found is None:
        return True
    return anchor in found or decode(anchor) in found


def settle(
    anchors: dict[str, set[str]],
    lands_on: str,
    target: str,
    anchor: str,
    alternatives: Iterable[Sequence[str]],
) -> tuple[str, str] | None:
    """``(target, anchor)`` a reference with several meanings goes to, by the one rule,
    now that every anchor is known; ``None`` while it is still ambiguous."""
    first = Landing(lands_on, target, anchor)
    others = tuple(Landing(k, t, a) for k, t, a in alternatives)
    if not others:
        return target, anchor
    chosen = settle_landing(
        first._replace(others=others), lambda page, fragment: has_anchor(anchors, page, fragment)
    )
    return None if chosen.others else (chosen.target, chosen.anchor)


def settle_reference(anchors: dict[str, set[str]], ref: Reference) -> tuple[str, str] | None:
    return settle(anchors, "page" if ref.is_page else "file", ref.target, ref.anchor,
                  ref.alternatives)


# -- replacing what Sphinx and MyST would warn about -------------------------------


def _replace_with_text(node: nodes.Element, fallback: str) -> None:
    """Put the visible content of ``node`` in its place, marked as dangling."""
    inline = nodes.inline("", "", classes=[DANGLING_CLASS])
    if isinstance(node, nodes.image):
        # what the browser shows for a missing image: its alt text, which an empty
        # ``alt`` leaves empty (sphinx-design's card images), else the written path
        text = node["alt"] if "alt" in node.attributes else fallback
        if text:
            inline += nodes.Text(text)
    else:
        inline.extend(child.deepcopy() for child in node.children)
        if not inline.astext().strip():
            inline.children = []
            inline += nodes.literal(fallback, fallback)
    inline.source, inline.line = node.source, node.line
    node.replace_self(inline)


def neutralize_files(app: Sphinx, doctree: nodes.document) -> None:
    """Replace images and downloads whose recorded file is missing (before Sphinx's collectors).

    Sphinx would warn ``image.not_readable`` or ``download.not_readable`` and re-read the
    document on every build; our persistent warning (with a hint) replaces that.
    """
    env = app.env
    docname = current_docname(env)
    settings = state_of(app).settings
    files, prefix = state_of(app).files, settings.docs_prefix
    missing = {
        ref.target
        for ref in references_of(env).get(docname, ())
        if kind_of(ref.kind).replaced_if_missing and not ref.is_page
        and not files.is_file(prefix + ref.target) and not files.is_folder(prefix + ref.target)
    }
    if not missing:  # the common case: no walk of the doctree
        return
    replaced: set[str] = set()
    candidates: list[tuple[nodes.Element, str]] = [
        (node, node["uri"] if isinstance(node, nodes.image) else node["reftarget"])
        for node in elements(doctree)
        if isinstance(node, (nodes.image, addnodes.download_reference))
    ]
    folder = folder_of(docname)
    for node, written in candidates:
        if not written or "://" in written or written.startswith("data:") or "*" in written:
            continue
        rel = join_relative(folder, written)  # what env.relfn2path gives, without pathlib
        if rel not in missing or _ignored(settings, written, rel):
            continue
        _replace_with_text(node, written)
        replaced.add(rel)
    if replaced:
        neutralized_of(env)[docname] = replaced


def label_key(docname: str, written: str, any_meaning: bool) -> tuple[str, str, bool]:
    """How a reference to a renamed label is found again at write time: its document,
    its target as written and whether it may name more than labels (``:any:``, MyST)."""
    return docname, written, any_meaning


class ReportedReferences(SphinxPostTransform):
    """Send or replace the references the check decided, before MyST's resolver (9) and
    Sphinx's (10) see them, in one walk of the document, each node in this order:

    1. a reference to a renamed label goes to the label it lands on (so intersphinx
       never sees it); an ambiguous one becomes its text, as a dangling link does;
    2. a link with alternatives goes to the page that has its anchor (:func:`settle`);
    3. a page link or anchor the check reported becomes its text (the page, for an
       anchor), so MyST and Sphinx do not warn a second, non-persistent time.
    """

    default_priority = 6

    def run(self, **kwargs: Any) -> None:
        report = state_of(app_of(self.env)).report
        labels = report.labels if report is not None else {}
        alternatives = report is None or report.alternatives
        findings = report is not None and bool(report.findings)
        if not (labels or alternatives or findings):
            return  # most builds: no walk
        anchors = anchors_of(self.env)
        xrefs = [node for node in elements(self.document)
                 if isinstance(node, addnodes.pending_xref)]
        for node in xrefs:
            if labels and _send_to_label(node, labels):
                continue
            if alternatives and node.get("relocate_alternatives"):
                _settle_alternatives(node, anchors)
            if findings:
                assert report is not None
                _replace_reported(node, report)


def _send_to_label(node: addnodes.pending_xref, labels: dict[tuple[str, str, bool], str]) -> bool:
    """Step 1 of :class:`ReportedReferences`; ``True`` when the node became text."""
    names = label_xref(node)
    if not names:
        return False
    new = labels.get(label_key(node.get("refdoc", ""), node["reftarget"], names == "any"))
    if new:
        node["reftarget"] = new
    elif new == "":
        _replace_with_text(node, node["reftarget"])
        return True
    return False


def _settle_alternatives(node: addnodes.pending_xref, anchors: dict[str, set[str]]) -> None:
    """Step 2 of :class:`ReportedReferences` (an ambiguous one is reported by the check)."""
    key = "refanchor" if node.get("reftype") == "relocate" else "reftargetid"
    chosen = settle(
        anchors, "page", node["reftarget"], node.get(key) or "", node["relocate_alternatives"]
    )
    if chosen is not None:
        node["reftarget"] = chosen[0]
        node[key] = chosen[1] or None


def _replace_reported(node: addnodes.pending_xref, report: Report) -> None:
    """Step 3 of :class:`ReportedReferences`."""
    refdoc = node.get("refdoc", "")
    target = node.get("reftarget", "")
    domain, reftype = node.get("refdomain"), node.get("reftype")
    if domain == "doc" and reftype == "myst":
        anchor = node.get("reftargetid") or ""
        written = node.get("relocate_written")
        if written is not None and (refdoc, written) in report.named:
            # a label's name too: MyST's, as without the extension (it takes the label)
            node["refdomain"], node["reftarget"], node["reftargetid"] = None, written, None
        elif (refdoc, target) in report.pages:
            _replace_with_text(node, target)
        elif anchor and (refdoc, target, anchor) in report.anchors:
            node["reftargetid"] = None  # link to the page; the anchor is reported
    elif domain == "std" and reftype == "doc":
        if (refdoc, docname_join(refdoc, target)) in report.pages:
            _replace_with_text(node, target)
    elif not domain and reftype == "myst" and (
        (refdoc, decode(target)) in report.written or (refdoc, target) in report.written
    ):
        _replace_with_text(node, target)


# -- the check ---------------------------------------------------------------------


class Checker:
    """Checks references against the project; its indexes are built once per build."""

    def __init__(
        self,
        env: BuildEnvironment,
        settings: Settings,
        table: RelocationTable,
        srcdir: Path,
        source_suffixes: Iterable[str],
    ) -> None:
        self.env = env
        self.settings = settings
        self.table = table
        self.srcdir = srcdir
        #: the build folder, where extensions write files that pages name (MyST-NB's
        #: ``jupyter_execute/`` beside the output folder)
        self.build_root = Path(app_of(env).outdir).parent
        self.suffixes = tuple(source_suffixes)
        self.docs: set[str] = set(env.found_docs)
        self.anchors = anchors_of(env)
        self._labels: set[str] | None = None
        self._by_name: dict[str, list[str]] | None = None
        self._sorted_docs: list[str] | None = None
        self._files_by_name: dict[str, list[str]] | None = None
        self._exists: dict[str, bool] = {}
        self._generated: set[str] | None = None
        self._names: set[str] | None = None

    # -- landing --

    def check(self, ref: Reference) -> Finding | None:
        """The finding for ``ref``, or ``None`` when it lands (or is ignored)."""
        if _ignored(self.settings, ref.written, ref.target):
            return None
        kind = kind_of(ref.kind)
        if kind.names_label:
            return self._check_label(ref)
        if ref.rewritten and ref.target.startswith(("https://", "http://")):
            return None  # the table sent it to a URL (a [pages] or [patterns] target)
        label = f"{self._name_of(kind, ref)} {ref.written!r}"
        if ref.alternatives:
            chosen = settle_reference(self.anchors, ref) if kind.settled_by_anchor else None
            if chosen is None:
                return self._ambiguous(ref, label)
            ref = ref._replace(target=chosen[0], anchor=chosen[1], alternatives=())
        if not ref.target:
            return Finding(ref, ref.kind, f"{label} does not land: nothing matches it")
        if leaves_root(ref.target):
            finding = self._check_repo_file(ref, kind, label)
            return finding if finding or ref.published else self._unpublished(ref, label)
        if ref.is_page:
            return self._check_page(ref, kind, label)
        if self.file_exists(ref.target) or (not ref.rewritten and self.claimed(ref)):
            return None if ref.published else self._unpublished(ref, label)
        if generated_page(ref.target, self.generated):
            return None  # a generated page's output file, also from a moved page's old folder
        hint = self._file_hint(ref)
        return Finding(ref, ref.kind, self._message(label, f"no file {ref.target!r}", hint))

    def _unpublished(self, ref: Reference, label: str) -> Finding:
        """A reST link to a file that exists, which Sphinx does not publish: it lands
        only where the HTML output has the file, decided once it is written
        (:func:`unserved`, which completes the message)."""
        return Finding(ref, RelocateWarning.UNPUBLISHED, label)

    @property
    def labels(self) -> set[str]:
        if self._labels is None:
            self._labels = labels_of(self.env)
        return self._labels

    def label_page(self, name: str) -> str | None:
        """The document of the label ``name``, as Sphinx's std domain knows it."""
        std: Any = self.env.get_domain("std")
        found = std.anonlabels.get(name)
        return None if found is None else str(found[0])

    def land_label(self, ref: Reference) -> LabelLanding | None:
        """Where a reference to a renamed label lands (``_landing.land_label``)."""
        return land_label(self.table, ref.target, self.labels.__contains__,
                          bool(self._other_meanings(ref)), self.settings.labels_by_document)

    def _other_meanings(self, ref: Reference) -> list[str]:
        """What else a ``:any:`` or MyST reference to a renamed label names."""
        return [
            f"the anchor {anchor!r} of its page" if anchor else f"the document {target!r}"
            for _, target, anchor in ref.alternatives
            if (self.has_anchor(target, anchor) if anchor else target in self.docs)
        ]

    def _name_of(self, kind: ReferenceKind, ref: Reference) -> str:
        """What the warning calls the reference: its kind's name; a URL of the site
        (``html_baseurl``) is no repository's."""
        if kind.site_label and site_path(
            ref.written, getattr(self.env.config, "html_baseurl", "") or ""
        ) is not None:
            return kind.site_label
        return kind.label

    def _check_label(self, ref: Reference) -> Finding | None:
        landing = self.land_label(ref)
        if landing is None or not landing.ambiguous:
            return None
        where = self.table.location_of(ref.target, "labels")
        message = (
            f"label reference {ref.written!r} is ambiguous: the table renames the label "
            f"{ref.target!r} to {landing.label!r}" + (f" ({where})" if where else "")
            + f", and it also names {' and '.join(self._other_meanings(ref))}; it links "
            f"nowhere until it says which: write the new label {landing.label!r}, or the "
            "other target"
        )
        return Finding(ref, RelocateWarning.LABEL, message)

    def _check_page(self, ref: Reference, kind: ReferenceKind, label: str) -> Finding | None:
        if ref.target not in self.docs:
            if not ref.rewritten and self.claimed(ref):
                return None  # Sphinx's or MyST's to resolve, as without the extension
            if kind.relocated_page_lands:  # checked against the tree and the table
                moved = self.table.locate_page(ref.target, self.docs.__contains__)
                if moved is not None and (moved.url or moved.path in self.docs):
                    return None  # an old path the table relocates
            reason = f"no document {ref.target!r}"
            written = decode(ref.written)
            inventory, colon, entry = written.partition(":")
            if ref.by_name and colon and inventory in (
                    getattr(self.env.config, "intersphinx_mapping", None) or {}):
                # MyST-Parser's [x](markdown_it:md/plugins): no path, another project's
                reason = (f"no entry {entry!r} in the intersphinx inventory {inventory!r} "
                          "(not loaded, or without it)")
            elif ref.by_name and "." not in posixpath.basename(written.partition("#")[0]):
                # a name without a suffix, which MyST takes for a label or an object too
                # (written with or without "#"): say what it looked for
                reason = f"no label or object {written!r}, and {reason}"
            hint = self._page_hint(ref)
            return Finding(ref, ref.kind, self._message(label, reason, hint))
        if ref.by_name and normalize_label(decode(ref.written)) in self.labels:
            return self._page_or_label(ref, label)
        if ref.anchor and not self.has_anchor(ref.target, ref.anchor):
            reason = f"no anchor {ref.anchor!r} on {ref.target!r}"
            hint = self._anchor_hint(ref.target, ref.anchor)
            return Finding(ref, RelocateWarning.ANCHOR, self._message(label, reason, hint))
        return None

    def _ambiguous(self, ref: Reference, label: str) -> Finding:
        """Two meanings and nothing decides: warned, never guessed."""
        names = [
            f"`{target}#{anchor}`" if anchor else f"`{target}`"
            for _, target, anchor in ((ref.is_page, ref.target, ref.anchor), *ref.alternatives)
        ]
        message = (
            f"{label} is ambiguous: it lands on {' and on '.join(names)}, from the page's "
            "folder and from a folder it stood in before it moved, and neither the page's "
            "other links nor an anchor decide which is meant; write the one you mean as a "
            "path from the top of the docs (`/…`), which reads the same from every folder"
        )
        return Finding(ref, RelocateWarning.AMBIGUOUS, message)

    def _page_or_label(self, ref: Reference, label: str) -> Finding:
        """A MyST link that names no page from its folder now, which the table or the
        page's old folder sends to a page, and which a label's name matches too.

        Without the extension MyST takes the label (it did, where the page had another
        name or the link another folder): the link is left to MyST, and warned.
        """
        message = (
            f"{label} is ambiguous: read against the old paths it lands on the page "
            f"{ref.target!r}, and it names the label {ref.written!r} too, which MyST "
            f"takes; it goes to the label: write [](#{ref.written}) for the label, or the "
            "page's path as it reads from this page's folder now"
        )
        return Finding(ref, RelocateWarning.AMBIGUOUS, message)

    def _check_repo_file(self, ref: Reference, kind: ReferenceKind, label: str) -> Finding | None:
        """A target outside the docs folder: a file (or folder) of the repository."""
        subtype = kind.outside_warned_as
        path = ref.target
        if ref.is_page:  # the resolver guessed a page name; the file is what was written
            written = decode(ref.written.partition("#")[0].partition("?")[0])
            path = join_relative(folder_of(ref.docname), written)
        full = Path(os.path.normpath(self.srcdir / path))
        settings = self.settings
        if not _inside(full, settings.repo_root):
            if (not kind.copied_by_extension and len(self.build_root.parts) > 1
                    and _inside(full, self.build_root)):
                if self.file_exists(path):
                    return None  # written by the build (an executed notebook's outputs)
                # MyST-NB's {nb-download} of a page renamed since: a missing file, not
                # one the repository must hold
                reason = f"the build wrote no file {path!r} (in {self.build_root})"
                return Finding(ref, subtype, self._message(label, reason, ""))
            if settings.repository_found or kind.copied_by_extension:
                reason = f"{path!r} is outside the repository ({settings.repo_root})"
                return Finding(ref, subtype, self._message(label, reason, ""))
            # no repository to keep to (a release tarball): Sphinx links or copies the
            # file as written, so it lands when it is there
            if self.file_exists(path):
                return None
            return Finding(ref, subtype, self._message(label, f"no file {path!r}", ""))
        if self.file_exists(path):
            return None
        where = full.relative_to(settings.repo_root).as_posix()
        return Finding(
            ref, subtype, self._message(label, f"no file {where!r} in the repository", "")
        )

    def has_anchor(self, docname: str, anchor: str) -> bool:
        return has_anchor(self.anchors, docname, anchor)

    # -- what is not a page path --

    def claimed(self, ref: Reference) -> bool:
        """Whether something else than a document or a file answers to a reference that
        lands on neither: a page the builder generates (``genindex``,
        ``html_additional_pages``, a file of ``html_extra_path``), or, for a MyST link
        (``Reference.by_name``), a label, an object or an intersphinx name.  Such a
        reference is Sphinx's and MyST's to resolve, as it is without the extension.
        """
        if ref.is_page and ref.target in self.generated:
            return True
        if not ref.is_page and self._extra_file(ref.target):
            return True
        if ref.replaces == "ref.doc":  # a :doc: that intersphinx may take unprefixed
            return self._intersphinx_page(ref.written)
        if not ref.by_name:
            return False
        written = decode(ref.written)
        names = self.names
        return written in names or written.lower() in names

    def _intersphinx_page(self, written: str) -> bool:
        """Whether intersphinx resolves ``:doc:`written``` to another project's page: it
        is in an inventory's ``std:doc`` and ``intersphinx_disabled_reftypes`` does not
        keep unprefixed ``:doc:`` local (it does by default since Sphinx 5; xarray wrote
        ``:doc:`reference/arrays.datetime``` for numpy's page)."""
        config = self.env.config
        disabled = getattr(config, "intersphinx_disabled_reftypes", None)
        if disabled is None or {"*", "std:*", "std:doc"}.intersection(disabled):
            return False
        inventories: dict[str, dict[str, Any]] = getattr(
            self.env, "intersphinx_inventory", None
        ) or {}
        return written in inventories.get("std:doc", {})

    @property
    def generated(self) -> set[str]:
        """The pages the HTML builders write without a source: indices, search, and
        ``html_additional_pages``."""
        if self._generated is None:
            self._generated = generated_pages(self.env)
        return self._generated

    def _extra_file(self, path: str) -> bool:
        """Whether ``path`` is a file ``html_extra_path`` copies to the output root."""
        extra = getattr(self.env.config, "html_extra_path", None) or ()
        if not extra or leaves_root(path):
            return False
        confdir = Path(app_of(self.env).confdir)
        for entry in extra:
            copied = confdir / entry
            # a file entry is copied to the output root under its own name
            if (copied / path).is_file() or (copied.is_file() and copied.name == path):
                return True
        return False

    @property
    def names(self) -> set[str]:
        """Every name a MyST link may resolve besides a path: the objects of every
        domain (labels among them) and every intersphinx entry."""
        if self._names is None:
            names: set[str] = set(self.labels)
            for domain in self.env.domains.values():
                names.update(entry[0] for entry in domain.get_objects())
            inventories: dict[str, dict[str, Any]] = getattr(
                self.env, "intersphinx_inventory", None
            ) or {}
            for entries in inventories.values():
                names.update(entries)
            self._names = names
        return self._names

    def file_exists(self, path: str) -> bool:
        known = self._exists.get(path)
        if known is None:
            known = self._exists[path] = (self.srcdir / path).exists()
        return known

    # -- hints --

    @staticmethod
    def _message(label: str, reason: str, hint: str) -> str:
        return f"{label} does not land: {reason}" + (f"; {hint}" if hint else "")

    def _page_hint(self, ref: Reference) -> str:
        excluded = None if leaves_root(ref.target) else next(
            (ref.target + suffix for suffix in self.suffixes
             if self.file_exists(ref.target + suffix)), None)
        if excluded is not None:  # no same-named page elsewhere: this one, left out
            return (f"its source `{excluded}` is there, but the build reads no page from "
                    "it (exclude_patterns)")
        hints = []
        moved = self._table_hint(ref.target) or self._peer_hint(ref.target)
        if moved:
            hints.append(moved)
        if self._by_name is None:  # once per build, and only when something dangles
            self._by_name = {}
            for doc in sorted(self.docs):
                self._by_name.setdefault(posixpath.basename(doc).casefold(), []).append(doc)
        # the linking page is never the page it meant
        same = [
            doc for doc in self._by_name.get(posixpath.basename(ref.target).casefold(), [])
            if doc != ref.docname
        ][:3]
        if same:
            paths = [self._source_path(doc) for doc in same]
            name = posixpath.basename(paths[0])
            # "now lives" only for a page the table moved there: nothing says the others moved
            moved_there = all(self.table.old_names(doc) for doc in same)
            hint = f"a page named `{name}` {'now lives' if moved_there else 'is'} at " + (
                " and ".join(f"`{p}`" for p in paths)
            )
            if len(paths) == 1:  # how this page links to it
                hint += f" (`{relative_path(folder_of(ref.docname), paths[0])}` from here)"
            hints.append(hint)
        elif not moved:
            if self._sorted_docs is None:
                self._sorted_docs = sorted(self.docs)
            # a page's old name too: a link that dangled before the move was closest to
            # the page's name then (ms-swift's 注册多模态模型最佳实践 to 注册多模态模型,
            # now MLLM-Registration), and is no nearer to any page's new name
            now = {doc: doc for doc in self._sorted_docs if doc != ref.docname}
            for old, target in self.table.pages.items():
                if not target.url and target.path in now and old not in now:
                    now[old] = target.path
            # the page's own name alike too: a folder in common is no likeness
            # (xarray's user-guide/reference/arrays.datetime is not user-guide/duckarrays)
            name = posixpath.basename(ref.target)
            close = [
                doc for doc in difflib.get_close_matches(ref.target, list(now), n=5, cutoff=0.6)
                if difflib.SequenceMatcher(None, name, posixpath.basename(doc)).ratio() >= 0.6
            ][:1]
            if close:
                hint = f"closest match: `{close[0]}`"
                if now[close[0]] != close[0]:
                    hint += f", which the table moves to `{now[close[0]]}`"
                hints.append(hint)
        return "; ".join(hints)

    def _peer_hint(self, target: str) -> str:
        """Name the redirects of a peer conf.py still loads that move ``target``: they
        serve old URLs, and rewrite no link (xarray's ``:doc:`io``` after its move)."""
        state = state_of(app_of(self.env))
        moved = state.peer_redirects.locate_page(target, self.docs.__contains__)
        if moved is None or not (moved.url or moved.path in self.docs):
            return ""
        # a peer is loaded when the option is another extension's (read_loaded_peers)
        options = " and ".join(f"`{option}`" for option in PEERS
                               if option not in (state.peer_options or ()))
        peers = " and ".join(name for option, (name, _) in PEERS.items()
                             if option not in (state.peer_options or ()))
        return (f"{options} of the loaded {peers} sends `{target}` to `{moved}`, which its "
                "redirect pages follow and no link does: without it in extensions, "
                "sphinx-relocate reads that table and rewrites the link")

    def _table_hint(self, target: str) -> str:
        """Name the table entry that covers ``target``: the reader may expect it to apply."""
        moved = self.table.locate_page(target, self.docs.__contains__)
        if moved is not None and not moved.url:
            if target in self.table.pages:
                where = self.table.location_of(target)
                entry = f"the table moves `{target}` to `{self.table.pages[target]}`"
                entry += f" ({where})" if where else ""
            else:
                folder, new_folder = next(
                    ((old, new.path) for old, new in self.table.prefixes if target.startswith(old)),
                    (target, moved.path),
                )
                entry = f"the table moves `{folder}` to `{new_folder}`"
            if moved.path in self.docs:  # a URL the table cannot rewrite (the forge's)
                return f"{entry}: the page now lives at `{self._source_path(moved.path)}`"
            return f"{entry}, but `{moved.path}` does not exist either"
        return ""

    def _anchor_hint(self, docname: str, anchor: str) -> str:
        found = sorted(a for a in self.anchors.get(docname, ()) if a)
        close = difflib.get_close_matches(decode(anchor), found, n=1, cutoff=0.6)
        return f"closest match: `{close[0]}`" if close else ""

    def _file_hint(self, ref: Reference) -> str:
        """Where the table sends the file (or, for a page's source file, the page)."""
        moved = self.table.locate_file(ref.target, self.file_exists)
        if moved is None:
            stem, is_source = strip_source_suffix(ref.target, self.suffixes)
            page = self.table.locate_page(stem, self.docs.__contains__) if is_source else None
            if page is not None and not page.url and page.path in self.docs:
                return f"the page now lives at `{self._source_path(page.path)}`"
            return self._file_by_name(ref.target)
        if moved.url:
            return f"the table sends it to {moved.url}"
        if self.file_exists(moved.path):
            return f"the file now lives at `{moved.path}`"
        return f"the table moves `{ref.target}` to `{moved.path}`, which does not exist"

    def _file_by_name(self, path: str) -> str:
        """A file with the same name elsewhere in the source folder (walked once per build)."""
        if self._files_by_name is None:
            self._files_by_name = {}
            skip = {"_build", "node_modules"}
            for folder, subfolders, files in os.walk(self.srcdir):
                subfolders[:] = sorted(
                    d for d in subfolders if not d.startswith(".") and d not in skip
                )
                for name in files:
                    relative = Path(folder, name).relative_to(self.srcdir).as_posix()
                    self._files_by_name.setdefault(name.casefold(), []).append(relative)
        same = self._files_by_name.get(posixpath.basename(path).casefold(), [])
        if not same:
            return ""
        return f"a file named `{posixpath.basename(same[0])}` is at " + " and ".join(
            f"`{p}`" for p in same[:3]
        )

    def _source_path(self, docname: str) -> str:
        try:
            return str(self.env.doc2path(docname, False)).replace(os.sep, "/")
        except Exception:  # pragma: no cover - a docname without a source
            return docname

    # -- the table's own targets --

    def check_table_anchors(self) -> list[tuple[str, str]]:
        """Table targets ``page#id`` whose page exists but lacks the anchor: (location, message)."""
        problems = []
        for entry in self.table.entries:
            target = entry.new
            if target.url or not target.anchor or entry.section == "prefixes":
                continue
            if entry.section == "patterns" and "$" in str(target):
                continue  # a template: its anchors are known only once matched
            settled = self.table.settle_anchor_target(target, self.docs.__contains__)
            if settled.url or settled.path not in self.docs:
                continue  # the missing page is reported as relocate.target_missing
            if not self.has_anchor(settled.path, settled.anchor):
                hint = self._anchor_hint(settled.path, settled.anchor)
                problems.append(
                    (
                        str(entry.location),
                        f"redirect target {str(target)!r} of {entry.old!r} does not land: "
                        f"no anchor {settled.anchor!r} on {settled.path!r}"
                        + (f"; {hint}" if hint else ""),
                    )
                )
        return problems


class Locator:
    """The line a reported reference is written on, read from its source text.

    Docutils and MyST give a reference the line of the block it stands in (a
    paragraph's first line, a list item's); the source text, read again only for the
    documents with something to report, gives the link's own: the first occurrence of
    the target as written, from the block's line on, that an earlier reference of the
    same block did not take.  A MyST link to a page is recorded by its docname, which
    the text does not hold: it is found among the link targets of the text
    (``_find.find_targets``) by the docname each names.
    """

    def __init__(self, env: BuildEnvironment, suffixes: Sequence[str]) -> None:
        self.env = env
        self.suffixes = tuple(suffixes)
        self._texts: dict[str, tuple[str, list[int]] | None] = {}
        #: (docname, block line, written) -> offset after the last occurrence taken
        self._taken: dict[tuple[str, int, str], int] = {}

    def line(self, ref: Reference) -> int:
        """The line of ``ref`` in its source, else the line it was recorded with."""
        if not ref.line or not ref.written or ref.source:  # an included file: as given
            return ref.line
        found = self._text(ref.docname)
        if found is None:
            return ref.line
        text, starts = found
        if ref.line > len(starts):
            return ref.line
        key = (ref.docname, ref.line, ref.written)
        start = self._taken.get(key, starts[ref.line - 1])
        end = self._block_end(text, starts, ref.line)
        flags = re.IGNORECASE if kind_of(ref.kind).names_label else 0
        # MyST gives a link's URL percent-encoded: the source may spell it either way
        spellings = dict.fromkeys((ref.written, decode(ref.written)))
        pattern = re.compile(
            r"(?<![\w./-])(?:" + "|".join(map(re.escape, spellings)) + r")(?![\w/-])", flags
        )
        match = pattern.search(text, start, end)
        span = (match.start(), match.end()) if match else None
        if span is None and ref.is_page:
            span = self._page_link(ref, text, start, end)
        if span is None:  # not in its block (a translation, an included file): as given
            return ref.line
        self._taken[key] = span[1]
        return bisect.bisect_right(starts, span[0])

    @staticmethod
    def _block_end(text: str, starts: list[int], line: int) -> int:
        """Where the block that starts at ``line`` ends: at the first line after a blank
        one that is indented no deeper than its first (a directive's body is deeper)."""
        def indent(number: int) -> int:
            begin = starts[number - 1]
            stop = starts[number] if number < len(starts) else len(text)
            content = text[begin:stop]
            return -1 if not content.strip() else len(content) - len(content.lstrip(" \t"))

        first, blank = indent(line), False
        for number in range(line + 1, len(starts) + 1):
            depth = indent(number)
            if depth < 0:
                blank = True
            elif blank and depth <= first:
                return starts[number - 1]
        return len(text)

    def _page_link(
        self, ref: Reference, text: str, start: int, end: int
    ) -> tuple[int, int] | None:
        """The first link target of the block from ``start`` on that names the page."""
        folder = folder_of(ref.docname)
        for span in find_targets(text, self._path(ref.docname)):
            if span.start < start:
                continue
            if span.end > end:
                break
            path, _, fragment = split_target(text[span.start : span.end])
            path = decode(path)
            if not path:
                continue
            if path.startswith("/"):
                name = strip_source_suffix(path.lstrip("/"), self.suffixes)[0]
            else:
                name = strip_source_suffix(join_relative(folder, path), self.suffixes)[0]
            if name == ref.target and decode(fragment) == decode(ref.anchor):
                return span.start, span.end
        return None

    def _path(self, docname: str) -> str:
        return str(self.env.doc2path(docname)).replace(os.sep, "/")

    def _text(self, docname: str) -> tuple[str, list[int]] | None:
        if docname not in self._texts:
            try:
                with open(self._path(docname), encoding="utf-8-sig", errors="replace") as file:
                    text = file.read()
            except OSError:
                self._texts[docname] = None
                return None
            starts = [0]
            starts.extend(m.end() for m in re.finditer("\n", text))
            self._texts[docname] = (text, starts)
        return self._texts[docname]


def _ignored(settings: Settings, *texts: str) -> bool:
    return any(p.match(t) for p in settings.ignore for t in texts if t)


def _inside(path: Path, root: Path) -> bool:
    try:
        Path(os.path.normpath(path)).relative_to(root)
    except ValueError:
        return False
    return True


# -- events ------------------------------------------------------------------------


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read documents whose replaced image or download now exists (and start this
    build's changed documents with the removed ones: the check looks again at what
    depended on them)."""
    state_of(app).changed_documents = set(removed)
    srcdir = Path(app.srcdir)
    return sorted(
        docname
        for docname, paths in neutralized_of(env).items()
        if docname not in removed and any((srcdir / p).exists() for p in paths)
    )


def note_changed(app: Sphinx, docnames: Iterable[str]) -> None:
    """Documents read in this build: the check looks at them again."""
    state = state_of(app)
    if state.changed_documents is not None:
        state.changed_documents.update(docnames)


def check_document(checker: Checker, locator: Locator, refs: list[Reference]) -> DocumentCheck:
    """Check a document's references, and note what the answers depend on."""
    findings: list[Finding] = []
    depends_on: set[str] = set()
    names: set[str] = set()
    volatile = alternatives = False
    for ref in refs:
        finding = checker.check(ref)
        if finding is not None:
            line = locator.line(ref)
            if line != ref.line:  # the link's own line, not its block's
                finding = replace(finding, reference=ref._replace(line=line))
            findings.append(finding)
        if ref.alternatives:
            alternatives = True
            depends_on.update(target for _, target, _ in ref.alternatives)
        if ref.is_page and ref.target in checker.docs:
            depends_on.add(ref.target)
            if ref.by_name:  # a label of its name would take it (``_page_or_label``)
                name = normalize_label(decode(ref.written))
                names.add(name)
                page = checker.label_page(name)
                if page is not None:
                    depends_on.add(page)
        elif not (
            finding is None and not ref.is_page and kind_of(ref.kind).file_is_dependency
            and not leaves_root(ref.target)
        ):
            volatile = True
    return DocumentCheck(tuple(findings), frozenset(depends_on), volatile, alternatives,
                         frozenset(names))


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Check the recorded references on every build, again only where this build's
    changes can have changed an answer; return documents to write again."""
    state = state_of(app)
    settings = state.settings
    checker = Checker(
        env, settings, table_of(app), Path(app.srcdir), source_suffixes(app)
    )
    report = Report()
    references = references_of(env)
    locator = Locator(env, checker.suffixes)
    # what a kept answer depends on besides its pages: the ignore patterns (an answer
    # that depends on the table is volatile, so no hash of the table is needed)
    made_under = repr([p.pattern for p in settings.ignore])
    known_under, known = checks_of(env)
    if known_under != made_under:
        known = {}
    changed = state.changed_documents
    builds_html = app.builder is not None and app.builder.format == "html"
    serves_site = app.builder is not None and app.builder.name in SITE_BUILDERS
    checks: dict[str, DocumentCheck] = {}
    # the labels the documents read in this build have: a link's name may be one now
    new_labels = {name for found in labels_on(env, changed).values() for name, _ in found
                  } if changed else set()
    for docname in sorted(references):
        if docname not in env.all_docs:
            continue
        check = known.get(docname)
        if check is None or check.volatile or changed is None or docname in changed or (
            not check.depends_on.isdisjoint(changed)
        ) or not check.names.isdisjoint(new_labels):
            check = check_document(checker, locator, references[docname])
        checks[docname] = check
        report.alternatives = report.alternatives or check.alternatives
        for finding in check.findings:
            ref = finding.reference
            if finding.subtype is RelocateWarning.UNPUBLISHED:
                if serves_site:  # decided against the output (on_build_finished)
                    report.unwritten.append(finding)
                continue
            if builds_html and _names_output_page(ref, checker.docs, app.config.html_baseurl):
                report.unwritten.append(finding)
                continue
            report.findings.append(finding)
            report.written.add((ref.docname, decode(ref.written)))
            if ref.is_page and ref.target not in checker.docs:
                report.pages.add((ref.docname, ref.target))
            elif ref.by_name and finding.subtype is RelocateWarning.AMBIGUOUS:
                report.named.add((ref.docname, ref.written))
            elif finding.subtype in (RelocateWarning.ANCHOR, RelocateWarning.AMBIGUOUS):
                report.anchors.add((ref.docname, ref.target, ref.anchor))
                report.anchors.add((ref.docname, ref.target, decode(ref.anchor)))
    checks_of.set(env, (made_under, checks))
    state.changed_documents = None  # known again once the next build finds its changes
    if checker.table.labels or checker.settings.labels_by_document:
        report.labels = label_landings(checker, references, env.all_docs)
    state.report = report

    suppress = app.config.suppress_warnings
    for finding in report.findings:
        if not kind_of(finding.reference.kind).warned_by_sphinx and not silenced(
            finding, suppress
        ):
            warn(finding.subtype, finding.message, location=finding.location)
    if app.config.relocate_report_rewrites:
        report_rewrites(references, env.all_docs, checker.anchors, report.labels,
                        Locator(env, checker.suffixes))
    report.table = checker.check_table_anchors()
    for where, message in report.table:
        warn(RelocateWarning.ANCHOR, message, location=where)
    if checker.table.labels:  # the table's labels against the project's, now all are known
        for problem in check_labels(checker.table, checker.labels):
            warn(RelocateWarning(problem.subtype), problem.message, location=problem.location)

    # documents whose findings, or the page a link with alternatives goes to, changed
    # are written again, so the post-transforms replace (or restore) their links
    previous = dangling_keys_of(env)
    current: dict[str, frozenset[tuple[str, str]]] = {}
    for finding in report.findings:
        ref = finding.reference
        current[ref.docname] = current.get(ref.docname, frozenset()) | {
            (finding.subtype.value, ref.written)
        }
    for (docname, written, _), label in report.labels.items():
        if label:  # the label a reference goes to: written again when that changes
            current[docname] = current.get(docname, frozenset()) | {
                ("label", f"{written} -> {label}")
            }
    for docname in (d for d, check in checks.items() if check.alternatives):
        for ref in references[docname]:
            if not ref.alternatives or kind_of(ref.kind).names_label:
                continue
            chosen = settle_reference(checker.anchors, ref)
            if chosen is not None and chosen != (ref.target, ref.anchor):
                current[docname] = current.get(docname, frozenset()) | {
                    ("alternative", f"{ref.written} -> {chosen[0]}#{chosen[1]}")
                }
    rewrite = sorted(
        d for d in previous.keys() | current.keys()
        if previous.get(d) != current.get(d) and d in env.all_docs
    )
    dangling_keys_of.set(env, current)
    return rewrite


def label_landings(
    checker: Checker, references: dict[str, list[Reference]], documents: Iterable[str]
) -> dict[tuple[str, str, bool], str]:
    """The label each recorded reference to a renamed label lands on (``""``: ambiguous)."""
    existing = set(documents)
    found: dict[tuple[str, str, bool], str] = {}
    for docname in sorted(references.keys() & existing):
        for ref in references[docname]:
            if not kind_of(ref.kind).names_label:
                continue
            landing = checker.land_label(ref)
            if landing is None or (
                landing.ambiguous and _ignored(checker.settings, ref.written, ref.target)
            ):
                continue  # (an ignored ambiguous one is left to Sphinx and MyST)
            key = label_key(docname, ref.written, bool(ref.alternatives))
            found[key] = "" if landing.ambiguous else landing.label
    return found


def report_rewrites(
    references: dict[str, list[Reference]],
    documents: Iterable[str],
    anchors: dict[str, set[str]],
    labels: Mapping[tuple[str, str, bool], str] | None = None,
    locator: Locator | None = None,
) -> None:
    """``relocate.outdated`` for each rewritten reference: from the records, so every build.

    ``labels`` are where references to renamed labels land (:func:`label_landings`);
    ``locator`` finds each reference's own line in its source.
    """
    existing = set(documents)

    def where(ref: Reference) -> tuple[str, int] | str:
        line = locator.line(ref) if locator is not None else ref.line
        if ref.source:  # a file the document includes
            return f"{ref.source}:{line}" if line else ref.source
        return (ref.docname, line) if line else ref.docname

    for docname in sorted(references):
        if docname not in existing:
            continue
        for ref in references[docname]:
            if kind_of(ref.kind).names_label:
                now = (labels or {}).get(label_key(docname, ref.written, bool(ref.alternatives)))
                if now:
                    warn(
                        RelocateWarning.OUTDATED,
                        f"{ref.written!r} is written against an old label; it now points to "
                        f"{now!r}",
                        location=where(ref),
                    )
                continue
            target, anchor = settle_reference(anchors, ref) or (ref.target, ref.anchor)
            if not ref.rewritten and target == ref.target:
                continue
            now = f"{target}#{anchor}" if anchor else target
            warn(
                RelocateWarning.OUTDATED,
                f"{ref.written!r} is written against an old path; it now points to {now!r}",
                location=where(ref),
            )


#: the suffixes of a URL an HTML builder writes, as a link may name a page by it
_OUTPUT_SUFFIXES = (".html", ".htm")


def _names_output_page(ref: Reference, documents: Container[str], baseurl: str) -> bool:
    """Whether ``ref`` is a link written as an output URL (``blog/index.html``, or any URL
    of the site under ``html_baseurl``) to a page that is no document: one the builder,
    or a redirect extension, may write itself. Not a MyST link, which MyST resolves as a
    cross-reference (and writes ``#blog/index.html`` when nothing answers)."""
    if not ref.is_page or ref.by_name or ref.target in documents:
        return False
    path = ref.written.partition("#")[0].partition("?")[0]
    if site_path(path, baseurl) is not None:  # a URL of the site (relocate.repo_url)
        return True
    return path.lower().endswith(_OUTPUT_SUFFIXES) or path.endswith("/")


#: the builders whose output is a site a browser follows links in, as each page has them
SITE_BUILDERS = ("html", "dirhtml")


def _output_target(app: Sphinx, ref: Reference, href: str) -> str | None:
    """The output path (``""``: the site's root) that ``href`` of ``ref``'s page reaches
    in the browser, read from the page's URL (or from the site's root, for a URL under
    ``html_baseurl``); ``None`` above the output folder or for an absolute path."""
    path = decode(href.partition("#")[0].partition("?")[0])
    below = site_path(path, app.config.html_baseurl)
    if below is None:
        page_uri = app.builder.get_target_uri(ref.docname).partition("#")[0]  # singlehtml's
        below = posixpath.join(posixpath.dirname(page_uri), path)
    return "" if posixpath.normpath(below or ".") == "." else safe_output_path(below)


def unserved(app: Sphinx, finding: Finding) -> Finding | None:
    """The finding of a reST link to a file (``Checker._unpublished``) with its message,
    where the output has no file at the URL the link reaches from its page (as written,
    or as the resolver rewrote it: from the document's folder); ``None`` where it has."""
    ref = finding.reference
    href = relative_path(folder_of(ref.docname), ref.target) if ref.rewritten else ref.written
    if href.startswith("/"):  # from the host's root: the site's, where it is served there
        target = safe_output_path(decode(href.partition("#")[0].partition("?")[0]).lstrip("/"))
    else:
        target = _output_target(app, ref, href)
    if target is not None:
        full = os.path.join(app.outdir, target)
        if os.path.isfile(full) or os.path.isfile(os.path.join(full, "index.html")):
            return None
    reaches = "above the site's root" if target is None else f"{target or '/'!r} on the site"
    placed = safe_output_path(ref.target)
    if placed and placed != target and os.path.isfile(os.path.join(app.outdir, placed)):
        why = (f"has it at {placed!r}, which the link reaches only from the page's html "
               "URL; link it with :download:, which each builder gives its own URL")
    else:
        why = ("has no file: Sphinx copies no file a reST link names; link it with "
               ":download: to publish it, or copy it there with html_extra_path")
        if leaves_root(ref.target):  # a file of the repository: its forge has it
            why += ", or set relocate_repo_url to link it on the forge"
    message = f"{finding.message} reaches {reaches}, where the {app.builder.name} output {why}"
    return replace(finding, message=message)


def _written_by_builder(app: Sphinx, ref: Reference, made: Container[str]) -> bool:
    """Whether the URL ``ref`` names, read from its page's URL (:func:`_output_target`),
    is a page the builder renders itself (``made``: their output paths), a redirect page
    that leads to a page (a stub, or one of a peer conf.py loads), or another file of the
    build (``objects.inv``); a page an earlier build left there, of a document removed
    since, is not."""
    target = _output_target(app, ref, ref.written)
    if target is None:  # above the output folder, or an absolute path: nothing served
        return False
    if target in made or posixpath.join(target, "index.html") in made:
        return True
    state, docs = state_of(app), app.env.found_docs
    if not target and "index.html" not in state.stale_pages and os.path.isfile(
        os.path.join(app.outdir, "index.html")
    ):  # the site's root, whose page another extension writes (sphinx-external-toc's
        # redirect to a root document not named index)
        return True
    stem, suffix = posixpath.splitext(target)
    if suffix and suffix.lower() not in _OUTPUT_SUFFIXES:  # not a page: any file written
        return os.path.isfile(os.path.join(app.outdir, target))
    page = target if suffix else posixpath.join(target, "index.html")
    if page not in state.stale_pages and _foreign_page(os.path.join(app.outdir, page)):
        return True
    # a redirect page (a loaded peer's, or this extension's stub) that lands on a page
    names = {stem, stem.removesuffix("/index")} if suffix else {target, f"{target}/index"}
    for table in (state.peer_redirects, state.table):
        for name in names:
            found = table.locate_page(name, docs.__contains__)
            if found is not None and (found.url or found.path in docs):
                return True
    return False


def _foreign_page(path: str) -> bool:
    """Whether ``path`` is an HTML file of the output that no Sphinx HTML builder wrote:
    one conf.py or another tool put there (JupyterLab's ``setup()`` copies its TypeDoc
    API pages to ``api/``).  A page Sphinx wrote, that no document or redirect accounts
    for, is left from an earlier build, and a clean build will not have it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    return b"documentation_options" not in head


def _rendered_files(app: Sphinx) -> set[str]:
    """The output paths of the pages the builder renders without a document (ablog's,
    the indices)."""
    builder: Any = app.builder
    pages = rendered_pages(app)
    if not hasattr(builder, "get_outfilename"):
        return set()
    outdir = str(app.outdir)
    return {
        os.path.relpath(builder.get_outfilename(page), outdir).replace(os.sep, "/")
        for page in pages
    }


def silenced(finding: Finding, suppress: Sequence[str]) -> bool:
    """Whether ``suppress_warnings`` silences a finding: by its subtype, or by the warning
    Sphinx or MyST gives the reference without the extension (``Reference.replaces``),
    so that adding the extension warns nothing a project had silenced. Not an
    ambiguity: two meanings is this extension's question, which they never ask."""
    if is_suppressed_warning("relocate", finding.subtype.value, suppress):
        return True
    replaces = finding.reference.replaces
    if not replaces or finding.subtype is RelocateWarning.AMBIGUOUS:
        return False
    kind, _, subtype = replaces.partition(".")
    return is_suppressed_warning(kind, subtype, suppress)


def counted(app: Sphinx, report: Report) -> list[Finding]:
    """Findings that count towards the summary: those not silenced by ``suppress_warnings``."""
    suppress = app.config.suppress_warnings
    return [f for f in report.findings if not silenced(f, suppress)]


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    """Print the summary after every other warning; fail the build when asked to."""
    report = state_of(app).report
    if exception is not None or report is None:
        return
    suppress = app.config.suppress_warnings
    # links to output URLs that no document has: dangling unless the builder wrote them
    made = _rendered_files(app) if report.unwritten else set()
    for waiting in report.unwritten:
        if waiting.subtype is RelocateWarning.UNPUBLISHED:
            finding = unserved(app, waiting)
        else:
            finding = None if _written_by_builder(app, waiting.reference, made) else waiting
        if finding is not None:
            if not kind_of(finding.reference.kind).warned_by_sphinx and not silenced(
                finding, suppress
            ):
                warn(finding.subtype, finding.message, location=finding.location)
            report.findings.append(finding)
    report.unwritten = []
    findings = counted(app, report)
    # redirect targets count too: missing anchors (ours) and missing pages (the table's check)
    in_table = [] if is_suppressed_warning("relocate", "anchor", suppress) else [
        where for where, _ in report.table
    ]
    table = table_of(app)
    if table and not is_suppressed_warning("relocate", "target_missing", suppress):
        srcdir = Path(app.srcdir)
        problems = state_of(app).table_problems
        if problems is None or table.labels:  # labels are known only now
            problems = check_against_project(
                table, app.env.found_docs, lambda path: (srcdir / path).exists(),
                source_suffixes(app), labels_of(app.env) if table.labels else None,
            )
        in_table += [str(p.location) for p in problems if p.subtype == "target_missing"]
    total = len(findings) + len(in_table)
    documents = len({f.reference.docname for f in findings}) + len(
        {where.rpartition(":")[0] or where for where in in_table}
    )
    state_of(app).dangling = (total, documents)  # for the summary line (_summary)
    if total and app.config.relocate_fail_on_dangling:
        summary = (
            f"{total} dangling reference{'s' if total != 1 else ''} in "
            f"{documents} document{'s' if documents != 1 else ''}"
        )
        warn(RelocateWarning.SUMMARY, summary)
        app.statuscode = 1

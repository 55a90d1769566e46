"""Derive relocation entries from git renames, and merge them into a table file.

How it reads git, without touching the user's index:

* One ``git diff -M --name-status -z REV`` compares the commit ``REV`` with the working
  tree, so renames committed since ``REV``, staged ones (``git mv``) and unstaged ones
  all show up at once.
* Files moved with a plain ``mv`` are still untracked; they are marked
  ``--intent-to-add`` in a *copy* of the index (``GIT_INDEX_FILE``), so rename
  detection pairs them with their deleted old paths.
* ``-z`` keeps CJK and quoted paths byte-exact; case-only renames are ordinary renames.
* With a revision, every commit from it to HEAD is read too (one ``git diff-tree
  --stdin``), so a name a file had only in between gets its entry (``b → c`` beside
  ``a → c``).
* The pages present at both ends have their section ids compared (old texts from one
  ``git cat-file --batch``): a heading renamed in place, or whose section kept its
  text or its label, becomes an ``[anchors]`` entry; a section gone is listed.

* Pages no commit holds move too, though git shows no rename of theirs: a renamed
  page's ``autosummary`` folders (``:toctree: generated``, relative to the page) are
  compared between its old text and its new one, and with ``sphinx_gallery_conf`` an
  example script renamed (outside the docs folder too) is its gallery page renamed,
  with the labels sphinx-gallery gives it.

Pages (source suffixes) become ``[pages]`` entries by docname, other files ``[files]``
entries; a folder whose every page and file moved to the same place under one new
folder, leaving nothing behind, becomes one ``[prefixes]`` entry instead.  Pages
deleted without a rename are listed as needing a target.  The same entries, unfolded,
tell which renamed or deleted pages no entry covers (:func:`unredirected`, for
``from-git --check`` and ``relocate_since``).  tomllib cannot
write, so :func:`merge_into` edits the table's text: existing entries, comments and
layout stay as they are.
"""

from __future__ import annotations

import difflib
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from sphinx_relocate.core.gallery import Gallery, galleries_of, labels_of
from sphinx_relocate.core.ids import PLAIN_HEADINGS, Headings, make_id
from sphinx_relocate.core.paths import longest_first, sphinx_pattern, strip_source_suffix
from sphinx_relocate.core.spans import (
    _MD_HEADING,
    _MD_LABEL,
    _RST_LABEL,
    _RST_UNDERLINE,
    MARKDOWN_SUFFIXES,
    Span,
    _markdown_targets,
    _outside,
    anchors_in_source,
    autosummary_entries,
    autosummary_folders,
    underlines,
)
from sphinx_relocate.core.table import Location, RelocationTable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: git's hash of the empty tree, the base of a repository with no commits yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class GitError(Exception):
    """git is missing, this is not a repository, or a revision is unknown."""


class GitMissing(GitError):
    """git itself cannot be run: said as such, not as "not a work tree"."""


def git(args: list[str], cwd: Path, env: dict[str, str] | None = None,
        stdin: bytes | None = None) -> bytes:
    """Run git with stable output settings; a failure raises :class:`GitError`."""
    command = ["git", "-c", "core.quotepath=off", "-c", "diff.renameLimit=0", *args]
    try:
        done = subprocess.run(
            command, cwd=cwd, env=env, input=stdin, capture_output=True, check=False
        )
    except FileNotFoundError:
        raise GitMissing("git is not installed (or not on PATH)") from None
    if done.returncode:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed")
    return done.stdout


def top_level(path: Path) -> Path:
    """The root of the git work tree that holds ``path``."""
    try:
        out = git(["rev-parse", "--show-toplevel"], path)
    except GitMissing:
        raise
    except GitError:
        raise GitError(f"{path}: not inside a git work tree") from None
    return Path(os.fsdecode(out.strip()))


def repository_galleries(conf: object, srcdir: Path) -> tuple[Path, list[Gallery]]:
    """The repository that holds the docs folder ``srcdir`` (the folder above it outside
    git), and the galleries of ``sphinx_gallery_conf`` inside it, their folders relative
    to it: a folder conf.py names outside it (the whole disk) is never read."""
    srcdir = srcdir.resolve()
    try:
        root = top_level(srcdir).resolve()
    except GitError:
        root = srcdir.parent
    return root, galleries_of(conf, srcdir.relative_to(root).as_posix())


@dataclass(frozen=True)
class Changes:
    """Renames and deletions between a revision and the working tree (repo-relative)."""

    renames: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    #: files new since the revision (not the new side of a rename)
    added: list[str] = field(default_factory=list)
    #: files changed in place
    modified: list[str] = field(default_factory=list)
    #: headings renamed or removed on the pages present at both ends
    sections: list[SectionChange] = field(default_factory=list)
    #: folders of generated pages that moved with the page generating them
    generated: list[FolderMove] = field(default_factory=list)
    #: labels of generated pages renamed with them (sphinx-gallery's), old → new
    labels: list[tuple[str, str]] = field(default_factory=list)
    #: the source suffixes conf.py gave at the revision, where they differ from now
    #: (setuptools' ``.txt`` pages, renamed ``.rst`` as conf.py dropped ``.txt``)
    old_suffixes: tuple[str, ...] = ()
    #: paths (docs-relative) named like pages that are files of a static or extra
    #: folder on their side (setuptools' ``logo/README.rst``, ``logo/`` static then)
    not_pages: frozenset[str] = frozenset()


@dataclass(frozen=True)
class FolderMove:
    """A folder of generated pages that moved: autosummary's (a page's ``:toctree:``,
    relative to the page, moved with the page or changed in place) or sphinx-autoapi's
    (``autoapi_root`` changed).  No commit has those pages, so git shows no rename, yet
    each of their URLs moves.  Paths are repository-relative, with a trailing ``/``;
    ``path`` and ``line`` are where the option is written now."""

    old: str
    new: str
    path: str = ""
    line: int = 0
    #: what writes the pages: ``"autosummary"``, ``"autosummary-objects"`` (a folder
    #: whose objects another directive lists now: :func:`object_moves`) or ``"autoapi"``
    maker: str = "autosummary"


#: sphinx-autoapi's extension, and the folder it writes its pages into by default
AUTOAPI_EXTENSION = "autoapi.extension"
AUTOAPI_ROOT = "autoapi"


def autoapi_folder(values: Mapping[str, object]) -> str | None:
    """The folder sphinx-autoapi writes its pages into (source-relative, with a trailing
    ``/``) under conf.py's ``values``; ``None`` when it does not load sphinx-autoapi, or
    names a folder outside the source folder or none that can be read."""
    extensions = values.get("extensions")
    if not isinstance(extensions, (list, tuple)) or AUTOAPI_EXTENSION not in extensions:
        return None
    written = values.get("autoapi_root", AUTOAPI_ROOT)
    if not isinstance(written, str) or not written.strip("/ ") or written.startswith("/"):
        return None
    folder = posixpath.normpath(written.strip())
    if folder in (".", "..") or folder.startswith("../"):
        return None
    return folder + "/"


def generated_folder_moves(
    old_page: str, new_page: str, old_text: str, new_text: str
) -> list[FolderMove]:
    """The autosummary folders of a page, moved from ``old_page`` to ``new_page`` (source
    paths; the same for a page changed in place), that are another folder now: the n-th
    ``:toctree:`` of the old text against the n-th of the new one.

    Left out: a page whose directives were added or removed (which folder went where is
    unknown), a folder written from the root or outside the repository, and the page's
    own folder (its other pages did not move: no folder entry can say it).
    """
    before = autosummary_folders(old_text, old_page)
    after = autosummary_folders(new_text, new_page)
    if len(before) != len(after):
        return []
    moves: list[FolderMove] = []
    for (_, old_value), (line, new_value) in zip(before, after, strict=True):
        old = generated_folder(old_page, old_value)
        new = generated_folder(new_page, new_value)
        if old and new and old != new and all(m.old != old for m in moves):
            moves.append(FolderMove(old, new, new_page, line))
    return moves


def autosummary_writes_pages(extensions: Iterable[str], generate: object) -> bool:
    """Whether autosummary writes the pages its ``:toctree:`` options name: loaded, and
    ``autosummary_generate`` not off (on by default since Sphinx 4)."""
    return "sphinx.ext.autosummary" in extensions and generate is not False


def generated_folder(page: str, written: str) -> str | None:
    """The folder a ``:toctree:`` value names from ``page``, with a trailing ``/``."""
    written = written.strip()
    folder = posixpath.dirname(page)
    if not written or written.startswith("/") or "\n" in written:
        return None
    path = posixpath.normpath(posixpath.join(folder, written))
    if path in (".", folder) or path == ".." or path.startswith("../"):
        return None
    return path + "/"


def changes_since(
    root: Path, folder: str, since: str | None, similarity: int,
    exclude_patterns: Iterable[str] = (),
) -> Changes:
    """Renames and deletions under ``folder`` (repo-relative) from ``since`` to the worktree.

    Build output and the docs' ``exclude_patterns`` are left out on both sides, so a
    renamed page is never paired with its copy in ``_build/html/_sources/``.
    """
    try:
        out = git(["rev-parse", "--verify", "--quiet", f"{since or 'HEAD'}^{{commit}}"], root)
        revision = out.decode().strip()
    except GitError:
        if since is not None:
            raise GitError(f"{since!r} is not a commit in {root}") from None
        revision = EMPTY_TREE  # no commit yet: everything is new
    spec = ["--", folder or ".", *_excluded_pathspecs(root, folder, revision, exclude_patterns)]
    changes = _diff_worktree(root, revision, similarity, spec)
    if since is not None:
        changes = _with_history(root, folder, revision, similarity, spec, changes)
    return changes


def _diff_worktree(root: Path, revision: str, similarity: int, spec: list[str]) -> Changes:
    """One ``git diff`` of ``revision`` against the working tree, untracked files too."""
    with tempfile.TemporaryDirectory(prefix="sphinx-relocate-") as temp:
        index = Path(temp, "index")
        real_index = Path(os.fsdecode(git(["rev-parse", "--git-path", "index"], root).strip()))
        real_index = real_index if real_index.is_absolute() else root / real_index
        if real_index.exists():
            shutil.copyfile(real_index, index)
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        untracked = git(["ls-files", "-z", "--others", "--exclude-standard", *spec], root, env)
        if untracked.strip(b"\0"):
            git(["add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul"],
                root, env, stdin=untracked)
        out = git(
            ["diff", "-z", "--name-status", f"-M{similarity}%", "--no-ext-diff",
             revision, *spec],
            root,
            env,
        )
    return _parse_name_status(out)


#: Files that mark a folder as Sphinx's output: an HTML build, a doctree cache.
BUILD_MARKS = (".buildinfo", "environment.pickle")


def _excluded_pathspecs(
    root: Path, folder: str, revision: str, exclude_patterns: Iterable[str]
) -> list[str]:
    """``:(exclude)`` pathspecs for the build output and the excluded files under
    ``folder``, found among the paths of ``revision``, the index and the work tree."""
    spec = ["--", folder or "."]
    listed = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard", *spec], root)
    if revision != EMPTY_TREE:
        listed += b"\0" + git(["ls-tree", "-r", "-z", "--name-only", revision, *spec], root)
    prefix = f"{folder}/" if folder else ""
    paths = {os.fsdecode(raw)[len(prefix):] for raw in listed.split(b"\0") if raw}
    excluded = excluded_paths(paths, exclude_patterns)
    return [f":(exclude,literal){prefix}{path}" for path in sorted(excluded)]


def excluded_paths(paths: Iterable[str], exclude_patterns: Iterable[str] = ()) -> set[str]:
    """The outermost folders and files among ``paths`` (relative to the docs folder) that
    are build output (a ``_build`` folder, a folder holding a :data:`BUILD_MARKS` file)
    or that ``exclude_patterns`` exclude, as Sphinx reads them: ``**`` matches across
    ``/``, ``*`` and ``?`` do not, ``**/x`` matches ``x`` too, and a folder that matches
    excludes all below it."""
    patterns = [*exclude_patterns]
    patterns += [pattern[3:] for pattern in patterns if pattern.startswith("**/")]
    matches = [re.compile(sphinx_pattern(pattern)).match for pattern in patterns]
    paths = set(paths)
    builds = {
        posixpath.dirname(path) for path in paths if posixpath.basename(path) in BUILD_MARKS
    }
    excluded: set[str] = set()
    for path in paths:
        parts = path.split("/")
        for end in range(1, len(parts) + 1):
            head = "/".join(parts[:end])
            if (end < len(parts) and (parts[end - 1] == "_build" or head in builds)) or any(
                match(head) for match in matches
            ):
                excluded.add(head)
                break
    return excluded


def _parse_name_status(out: bytes) -> Changes:
    fields = [os.fsdecode(f) for f in out.split(b"\0")]
    changes = Changes()
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status[0] in "RC":
            old, new = fields[index + 1], fields[index + 2]
            index += 3
            if status[0] == "R":
                changes.renames.append((old, new))
        else:
            if status[0] == "D":
                changes.deleted.append(fields[index + 1])
            elif status[0] == "A":
                changes.added.append(fields[index + 1])
            elif status[0] in "MT":
                changes.modified.append(fields[index + 1])
            index += 2
    return changes


def _with_history(
    root: Path, folder: str, revision: str, similarity: int, spec: list[str], changes: Changes
) -> Changes:
    """Add what comparing the two ends cannot see: the names a file had in between.

    Every commit from ``revision`` to HEAD is compared with its parent (one
    ``git diff-tree --stdin``; merges are skipped, since the commits of a merged branch
    are on the path themselves).  A file's renames are followed to where it is at HEAD,
    then through the uncommitted renames to the working tree.  So ``a → b → c`` gives
    ``b → c`` beside ``a → c``, a name that lived only in between and was deleted is
    listed as deleted, and a file the two ends show as deleted but the commits follow to
    a file still present becomes a rename.
    """
    commits = git(
        ["rev-list", "--reverse", "--topo-order", "--no-merges", f"{revision}..HEAD"], root
    )
    if not commits.strip():
        return changes
    out = git(
        ["diff-tree", "--stdin", "-r", "-z", "--name-status", f"-M{similarity}%",
         "--no-ext-diff", *spec],
        root,
        stdin=commits,
    )
    moves: dict[str, list[tuple[int, str | None]]] = {}
    between: set[str] = set()
    when = 0
    fields = [os.fsdecode(f) for f in out.split(b"\0")]
    index = 0
    while index < len(fields):
        status = fields[index]
        if not status:
            index += 1
        elif _COMMIT.match(status):
            when += 1
            index += 1
        elif status[0] in "RC":
            old, new = fields[index + 1], fields[index + 2]
            if status[0] == "R":
                moves.setdefault(old, []).append((when, new))
            between.add(new)
            index += 3
        else:
            if status[0] == "D":
                moves.setdefault(fields[index + 1], []).append((when, None))
            elif status[0] == "A":
                between.add(fields[index + 1])
            index += 2
    head = git(["rev-parse", "HEAD"], root).decode().strip()
    tail = _diff_worktree(root, head, similarity, spec)
    tail_moves: dict[str, str | None] = {
        **dict(tail.renames), **dict.fromkeys(tail.deleted)
    }

    def landing(path: str) -> str | None:
        """Where ``path`` is in the working tree, following its renames."""
        time = 0
        while True:
            step = next(((t, new) for t, new in moves.get(path, ()) if t > time), None)
            if step is None:
                break
            time, new = step
            if new is None:
                return None
            path = new
        path_now = tail_moves.get(path, path)
        return path_now if path_now is not None and (root / path_now).exists() else None

    # ls-tree takes no pathspec magic: the excluded paths it lists are in no diff anyway
    listed = git(["ls-tree", "-r", "-z", "--name-only", revision, "--", folder or "."], root)
    at_start = {os.fsdecode(raw) for raw in listed.split(b"\0") if raw}
    # a file the commits follow to another file still present than the one the two
    # ends pair it with: the devguide moved triaging.rst unchanged, then split most of
    # it out into a new page, which the ends pair it with; the commits know better
    renames: list[tuple[str, str]] = []
    landed: set[str] = set()
    unpaired: set[str] = set()
    for old, new in changes.renames:
        final = landing(old)
        if final is not None and final not in (old, new):
            renames.append((old, final))
            landed.add(final)
            unpaired.add(new)
        else:
            renames.append((old, new))
    deleted: list[str] = []
    for path in changes.deleted:
        final = landing(path)
        if final is not None and final != path:
            renames.append((path, final))
            landed.add(final)
        else:
            deleted.append(path)
    for path in sorted(between - at_start):
        final = landing(path)
        if final is None:
            if not (root / path).exists():
                deleted.append(path)
        elif final != path:
            renames.append((path, final))
    # a new file the ends paired with an old one and the commits did not: added
    paired = {new for _, new in renames}
    added = [path for path in changes.added if path not in landed]
    added += sorted(path for path in unpaired - paired if path not in at_start)
    return replace(changes, renames=renames, deleted=deleted, added=added)


_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")



# -- sections ----------------------------------------------------------------------


@dataclass(frozen=True)
class SectionChange:
    """A section id of a page at the old revision that the page no longer has."""

    old_page: str
    old_id: str
    #: where the section is now (empty if it was removed)
    new_page: str = ""
    new_id: str = ""
    #: the new heading's file (absolute) and line, for findings
    path: str = ""
    line: int = 0

    @property
    def old(self) -> str:
        return f"{self.old_page}#{self.old_id}"

    @property
    def new(self) -> str:
        return f"{self.new_page}#{self.new_id}" if self.new_id else ""


@dataclass(frozen=True)
class Section:
    """One section of a page: its heading's id (a MyST heading with a slug: the slug,
    then docutils' id, which is the one myst-parser before 5 publishes), then the labels
    written before it."""

    ids: tuple[str, ...]
    line: int
    #: its text without directive markers and option names (:data:`_MARKUP`)
    body: str
    #: the ids of ``ids`` that an explicit label gives it (a name its author chose)
    labels: frozenset[str] = frozenset()
    #: docutils' id of a MyST heading that also has a slug (``""``: none, or the same)
    docutils_id: str = ""


#: what a section's text is compared without: directive markers and option names, the
#: same in every section that shows an API object (``.. autoclass::``, ``:members:``),
#: so that two such sections are alike by the objects they name, not by their markup
_MARKUP = re.compile(
    r"^[ \t]*(?:\.\.[ \t]+[\w:.-]+::|[`~:]{3,}[ \t]*\{[\w:.-]+\}|:[\w-]+:|[`~:]{3,}[ \t]*$)",
    re.MULTILINE,
)


def sections_in(text: str, path: str, headings: Headings = PLAIN_HEADINGS) -> list[Section]:
    """The sections of a source text in order, with the ids a link can name them by:
    MyST's slug as ``headings`` say (else docutils' id of the title), a reST
    title's docutils id, and the explicit labels right before the heading."""
    if posixpath.splitext(path)[1].lower() in MARKDOWN_SUFFIXES:
        return _markdown_sections(text, headings)
    return _rest_sections(text)


def _markdown_sections(text: str, ids: Headings) -> list[Section]:
    code: list[tuple[int, int]] = []
    fences: list[tuple[int, int]] = []
    _markdown_targets(text, False, code, fences)
    headings = [
        match for match in _MD_HEADING.finditer(text)
        if _outside([Span(match.start(), match.end(), "title")], code)
    ]
    # a heading inside a directive (``{important}``) is a rubric that ends with it; the
    # section around the directive goes on past it, to the next heading outside one
    bodies = [(fences[k][1], fences[k + 1][0]) for k in range(0, len(fences) - 1, 2)]
    inside = [_innermost(bodies, match.start()) for match in headings]
    labels = [
        match for match in _MD_LABEL.finditer(text)
        if _outside([Span(match.start(), match.end(), "label")], code)
    ]
    slugs: set[str] = set()
    taken: set[str] = set()  # docutils' ids given so far, labels' among them
    labels_seen = 0
    sections = []
    for number, match in enumerate(headings):
        title = match.group(2)
        slug = ids.slug(title, len(match.group(1)))
        if slug:  # numbered as MyST does: x, x-1, x-2
            base, count = slug, 0
            while slug in slugs:
                count += 1
                slug = f"{base}-{count}"
            slugs.add(slug)
        position = match.start()
        before: list[str] = []
        for label in reversed([m for m in labels if m.end() <= match.start()]):
            if text[label.end() : position].strip():
                break
            before.insert(0, make_id(label.group(1)))
            position = label.start()
        body = inside[number]
        if body is None:  # to the next heading outside a directive
            end = next((later.start() for later, around in zip(
                headings[number + 1 :], inside[number + 1 :], strict=True
            ) if around is None), len(text))
        else:  # to the next heading or the end of its directive, whichever comes first
            end = min(headings[number + 1].start() if number + 1 < len(headings)
                      else len(text), body[1])
        docutils_id = ids.docutils_id(title)
        taken.update(make_id(m.group(1)) for m in labels[labels_seen:] if m.end() <= match.start())
        labels_seen = sum(1 for m in labels if m.end() <= match.start())
        if docutils_id in taken:
            # docutils numbers a repeated one (id1, …): two CJK titles around the same
            # ASCII word ("ONNX 到 TensorRT …", "如何将模型从 ONNX 转换为 TensorRT") are
            # both onnx-tensorrt before it does, and only the first is
            docutils_id = ""
        taken.add(docutils_id)
        also = docutils_id if slug and docutils_id != slug else ""
        sections.append(Section(
            # a label may be its slug or id
            tuple(dict.fromkeys(i for i in (slug or docutils_id, also, *before) if i)),
            text.count("\n", 0, match.start()) + 1,
            _MARKUP.sub("", text[match.end() : end]),
            frozenset(before),
            also,
        ))
    return sections


def _innermost(bodies: list[tuple[int, int]], position: int) -> tuple[int, int] | None:
    """The innermost fence body (``(start, end)``) holding ``position``, if any."""
    holding = [body for body in bodies if body[0] <= position < body[1]]
    return max(holding, default=None)


#: inline markup that shows a text and names something else: a link with its URL, a
#: role with its target; and inline literals
_REST_INLINE = re.compile(
    r"``(.+?)``|(?::[\w.+:-]+:)?`([^`<]*?)(?:\s*<[^<>`]*>)?`(?:__?|:[\w.+:-]+:)?"
)


def _rest_title_text(title: str) -> str:
    """The text docutils makes a reST title's id of: what its inline markup shows
    (JupyterLab's `` `Document Contexts <https://…>`__ `` is ``document-contexts``, and
    keeps it when the URL changes), a role's explicit title, else its target (``~a.B``
    shows ``B``)."""
    def shown(match: re.Match[str]) -> str:
        if match.group(1):
            return match.group(1)
        text = match.group(2).lstrip("!")
        return text[1:].rpartition(".")[2] if text.startswith("~") else text

    return _REST_INLINE.sub(shown, title)


#: a named reference with its URL, `` `API <api/index.html>`_ ``: a target of its own,
#: whose id a title of its text does not get (docutils numbers it: ``api-1``)
_REST_NAMED_LINK = re.compile(r"`([^`<]*?)\s*<[^<>`]*>`_(?!_)")


#: directives that leave no node, so a label above them names the heading below them
#: (NumPy's ``.. _new-or-different:`` then ``.. currentmodule:: numpy.random``)
_RST_NO_NODE = re.compile(r"\.\.\s+(?:py:)?(?:currentmodule|highlight|default-role)::")


def _rest_sections(text: str) -> list[Section]:
    lines = text.splitlines()
    found: list[tuple[int, int, str, list[str]]] = []  # (start, title line, id, labels)
    pending: list[str] = []
    seen: set[str] = set()
    number = 0
    while number < len(lines):
        line = lines[number].strip()
        rule = lines[number + 1].rstrip() if number + 1 < len(lines) else ""
        label = _RST_LABEL.match(lines[number])
        # a named link with its URL is a target, whose id comes first
        seen.update(make_id(m.group(1)) for m in _REST_NAMED_LINK.finditer(line))
        if label:
            pending.append(make_id(label.group(1).strip("`")))
            # a label's name is taken: a later title of that text gets ``id1`` (pytest's
            # ``.. _features:`` above its index's title, and a *Features* section)
            seen.add(pending[-1])
        elif underlines(rule, line):
            over = number > 0 and bool(_RST_UNDERLINE.match(lines[number - 1].rstrip()))
            # a repeated one is numbered, differently by version
            own = make_id(_rest_title_text(line))
            found.append((number - over, number, "" if own in seen else own, pending))
            seen.add(own)
            pending = []
            number += 2
            continue
        elif line and not (
            _RST_UNDERLINE.match(line) and number + 2 < len(lines)
            and _RST_UNDERLINE.match(lines[number + 2].rstrip())
        ) and not _RST_NO_NODE.match(line):
            pending = []
        number += 1
    sections = []
    for index, (_, title, own, labels) in enumerate(found):
        end = found[index + 1][0] if index + 1 < len(found) else len(lines)
        body = _MARKUP.sub("", "\n".join(lines[title + 2 : end]))
        ids = tuple(dict.fromkeys(i for i in (own, *labels) if i))  # a label may be its id
        sections.append(Section(ids, title + 1, body, frozenset(labels)))
    return sections


#: how alike two sections' texts must be (difflib's ratio) to be the same section
SAME_TEXT = 0.6
#: the words of a text, a CJK character being one
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")


def _text_likeness(old: str, new: str) -> float:
    """difflib's ratio of two sections' texts when they are alike by it (at least
    :data:`SAME_TEXT`) and by their words too, else 0.0: an ``.. automodule::
    mmdet.core.anchor`` section is 63 % like ``mmdet.engine.hooks`` letter by letter, and
    shares one word of three."""
    matcher = difflib.SequenceMatcher(None, old, new)
    if matcher.real_quick_ratio() < SAME_TEXT or matcher.quick_ratio() < SAME_TEXT:
        return 0.0
    ratio = matcher.ratio()
    if ratio < SAME_TEXT:
        return 0.0
    words = difflib.SequenceMatcher(None, _WORD.findall(old), _WORD.findall(new), autojunk=False)
    return ratio if words.ratio() >= SAME_TEXT else 0.0


def compare_sections(
    old: list[Section], new: list[Section]
) -> list[tuple[str, str | None]]:
    """Each id of ``old`` that ``new`` lacks, with the id in ``new`` it went to.

    A heading went to the new section that kept one of its labels, else to the new
    section at the same place (the same position, with the same number of sections and
    its neighbours' ids unchanged), else to the new section whose text is most alike
    (difflib's ratio at least :data:`SAME_TEXT`); ``None`` when it was removed.  A
    label goes to its section's new label, else to its heading.
    """
    old_ids = {i for section in old for i in section.ids}
    new_ids = {i for section in new for i in section.ids}
    by_id = {i: section for section in new for i in reversed(section.ids)}
    fresh = [section for section in new if section.ids and section.ids[0] not in old_ids]
    taken: set[int] = set()
    lost: list[tuple[str, str | None]] = []

    def heading(sections: list[Section], index: int) -> str | None:
        inside = 0 <= index < len(sections) and sections[index].ids
        return sections[index].ids[0] if inside else None

    for index, section in enumerate(old):
        if not section.ids:
            continue
        if all(i in new_ids for i in section.ids):
            # every id is still there, but the section that kept its labels may be
            # another than the one that has its heading's id now (two sections of one
            # title swapped: Spack's "Dependency patching"): old links meant the former
            kept = {id(by_id[i]): by_id[i] for i in section.labels if i in by_id}
            if len(kept) != 1:
                continue
            holder = next(iter(kept.values()))
            stayed = [i for i in section.ids if by_id[i] is not holder]
            # unless the section with the heading's id kept the text: then the label
            # alone moved (MyST-Parser's docs left ``(syntax/linkify)=`` above *Math
            # shortcuts*, and *Linkify* further down kept its text and ``#linkify``)
            if stayed and section.body.strip() and _text_likeness(
                    section.body, holder.body) <= max(
                    _text_likeness(section.body, by_id[i].body) for i in stayed):
                continue
            lost += [(i, _counterpart(section, i, holder, old_ids)) for i in stayed]
            continue
        # the same heading, else the section that kept one of its labels
        went = next((by_id[i] for i in section.ids if i in by_id), None)
        if went is None and len(old) == len(new) and new[index] in fresh and all(
            heading(old, index + step) == heading(new, index + step) for step in (-1, 1)
        ):
            went = new[index]
        if went is None and section.body.strip():
            scored = [
                (likeness, number) for number, other in enumerate(fresh)
                if number not in taken and other.body.strip()
                and (likeness := _text_likeness(section.body, other.body))
            ]
            best = max(scored, default=(0.0, -1))
            if best[0]:
                went = fresh[best[1]]
        if went is None and index == 0 and new:
            # the page's title, retitled: a link to it meant the page's top, also where
            # the new title took the id a section of the page had (ROS 2's *Using event
            # handlers*, a section before, then the title; its old title was matched by
            # its boilerplate to another tutorial's title)
            went = new[0]
        if went is not None and went in fresh:
            taken.add(fresh.index(went))
        for old_id in section.ids:
            if old_id in new_ids:
                continue
            if went is None:
                lost.append((old_id, None))
                continue
            lost.append((old_id, _counterpart(section, old_id, went, old_ids)))
    return lost


def _counterpart(old: Section, old_id: str, new: Section, old_ids: set[str]) -> str:
    """The id of ``new`` that stands where ``old_id`` stood in ``old``: a label's new
    label, docutils' id's docutils' id, else the heading's id."""
    if old_id in old.labels:
        same_kind = [i for i in new.ids if i in new.labels and i not in old_ids]
    elif old_id == old.docutils_id:
        same_kind = [new.docutils_id] if new.docutils_id else []
    else:
        same_kind = []
    return (same_kind or list(new.ids))[0]


def section_changes(
    root: Path, revision: str, changes: Changes, docs_prefix: str,
    suffixes: tuple[str, ...], headings: Headings = PLAIN_HEADINGS,
    page_now: Callable[[str], str | None] | None = None,
) -> list[SectionChange]:
    """The section ids lost on each page present at ``revision`` (moved, changed or
    deleted), with where each went; the old texts are read in one ``git cat-file --batch``.

    ``page_now`` gives the repository path of the page the table already sends an old
    docname to: a page git paired with another is compared with that page instead (the
    one git paired counts as added), so its title stays where its entry goes.

    A section a page lost that now lives on another page (the other half of a split, or
    the page a short one was merged into) goes there: the section on a page added or
    changed since ``revision`` that has its id or one of its labels, else whose text is
    most alike (the rules of :func:`compare_sections`).
    """
    pairs: list[tuple[str, str | None]] = []
    #: pages git paired with an old page that the table sends elsewhere: added ones
    released: list[str] = []
    gone = [(path, None) for path in changes.deleted]
    then = longest_first(changes.old_suffixes or suffixes)  # what was a page then
    for old, new in [*changes.renames, *((path, path) for path in changes.modified), *gone]:
        if not old.startswith(docs_prefix) or "\n" in old:
            continue
        if (not strip_source_suffix(old[len(docs_prefix) :], then)[1]
                or old[len(docs_prefix) :] in changes.not_pages):
            continue
        kept = new is not None and new.startswith(docs_prefix) and strip_source_suffix(
            new[len(docs_prefix) :], suffixes)[1]
        # a page git paired with another (a deleted one's sections are looked for on
        # every page added, its entry's too)
        entry = page_now(strip_source_suffix(old[len(docs_prefix) :], then)[0]) if (
            page_now is not None and kept and old != new) else None
        if entry is not None and new is not None and entry != new:
            released.append(new)
            new = entry
        pairs.append((old, new if kept else None))
    if not pairs or revision == EMPTY_TREE:
        return []
    found: list[SectionChange] = []
    #: the sections a page added or changed has that it did not have: (doc, path, section)
    fresh: list[tuple[str, str, Section]] = []
    #: (index in ``found``, old section, new section) of a heading id its page gave to
    #: another section
    renamed: list[tuple[int, Section, Section]] = []
    #: (old doc, old section, lost id, whether the section is a deleted page's title)
    lost_here: list[tuple[str, Section, str, bool]] = []
    old_texts = _texts_at(root, revision, [old for old, _ in pairs])
    for (old, new), old_text in zip(pairs, old_texts, strict=True):
        if old_text is None:
            continue
        old_doc = strip_source_suffix(old[len(docs_prefix) :], then)[0]
        old_sections = sections_in(old_text, old, headings)
        if new is None:  # deleted: every id is lost here
            lost_here += [
                (old_doc, s, i, n == 0) for n, s in enumerate(old_sections) for i in s.ids
            ]
            continue
        try:
            new_text = (root / new).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        new_doc = strip_source_suffix(new[len(docs_prefix) :], suffixes)[0]
        new_sections = sections_in(new_text, new, headings)
        old_ids = {i for s in old_sections for i in s.ids}
        fresh += [(new_doc, new, s) for s in new_sections if not old_ids.intersection(s.ids)]
        # an id the page still has, though no heading: a label above a list item (tox's
        # ``.. _sdist:``, whose section became one), an HTML id
        anchors_now = anchors_in_source(new_text, new, headings).difference(
            i for s in new_sections for i in s.ids)
        for old_id, new_id in compare_sections(old_sections, new_sections):
            if old_id in anchors_now:
                continue
            if new_id is None:
                section = next(s for s in old_sections if old_id in s.ids)
                lost_here.append((old_doc, section, old_id, False))
                continue
            went = next(s for s in new_sections if new_id in s.ids)
            section = next(s for s in old_sections if old_id in s.ids)
            # an id that went by its place or text: another page may have the section
            # itself (JupyterLab's Core Tokens moved to another page, and its label to a
            # new Tokens section), or the label (pip's ``.. _`pip install`:`` went with
            # the page to cli/, and a page saying "This page has moved" took its place)
            renamed.append((len(found), section, went))
            found.append(
                SectionChange(old_doc, old_id, new_doc, new_id, str(root / new), went.line))
    compared = {new for _, new in pairs}
    for path in [*changes.added, *(p for p in released if p not in compared)]:
        if not path.startswith(docs_prefix):
            continue
        doc, is_page = strip_source_suffix(path[len(docs_prefix) :], suffixes)
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace") if is_page else ""
        except OSError:
            continue
        fresh += [(doc, path, s) for s in sections_in(text, path, headings)]
    by_id: dict[str, list[tuple[str, str, Section]]] = {}
    for new_place in fresh:
        for i in new_place[2].ids:
            by_id.setdefault(i, []).append(new_place)
    for number, section, went in renamed:
        change = found[number]
        place = _kept_elsewhere(section, change.old_id, change.new_page, went, by_id)
        if place is not None:
            found[number] = replace(change, new_page=place[0], new_id=change.old_id,
                                    path=str(root / place[1]), line=place[2].line)
    alike = _Alike(fresh, every=len(lost_here) * len(fresh) <= MAX_TEXT_PAIRS)
    places = [_elsewhere(section, old_doc, by_id, [] if title else alike(section))
              for old_doc, section, _, title in lost_here]
    # a near tie is settled by the page where the rest of the old page went (pip's
    # reference/pip_install: its Usage is cli/pip_install's word for word, and one word
    # from cli/pip_uninstall's)
    toward = _where_pages_went(
        [(change.old_page, change.new_page) for change in found]
        + [(old_doc, place[0]) for (old_doc, *_), place in zip(lost_here, places, strict=True)
           if place is not None])
    for number, (old_doc, section, _, title) in enumerate(lost_here):
        if places[number] is None and old_doc in toward:
            places[number] = _elsewhere(section, old_doc, by_id,
                                        [] if title else alike(section), toward[old_doc])
    for (old_doc, section, old_id, title), place in zip(lost_here, places, strict=True):
        if place is None:
            if not title:  # a deleted page's title: a link to it lands on the page's target
                found.append(SectionChange(old_doc, old_id))
            continue
        doc, path, went = place
        new_id = old_id if old_id in went.ids else _counterpart(section, old_id, went, set())
        found.append(SectionChange(old_doc, old_id, doc, new_id, str(root / path), went.line))
    return found


def _kept_elsewhere(
    section: Section, old_id: str, page: str, went: Section,
    by_id: dict[str, list[tuple[str, str, Section]]],
) -> tuple[str, str, Section] | None:
    """The one section of another page than ``page`` that kept the heading id ``old_id``
    with the text of ``section``, and whose text is more alike than that of ``went``, the
    section of ``page`` it was given to; ``None`` when there is none, or two.  A label is
    one name in the whole project: the one section of another page that has it now."""
    if old_id in section.labels:
        kept = [place for place in by_id.get(old_id, ())
                if place[0] != page and old_id in place[2].labels]
        return kept[0] if len(kept) == 1 else None
    places = [
        (likeness, place) for place in by_id.get(old_id, ()) if place[0] != page
        and (likeness := _text_likeness(section.body, place[2].body))
    ]
    if len(places) != 1 or places[0][0] <= _text_likeness(section.body, went.body):
        return None
    return places[0][1]


def _texts_at(root: Path, revision: str, paths: list[str]) -> list[str | None]:
    """The texts of ``paths`` at ``revision``, in one ``git cat-file --batch`` (``None``
    for a path that is no file there)."""
    if not paths:
        return []
    request = "".join(f"{revision}:{path}\n" for path in paths).encode()
    out = git(["cat-file", "--batch"], root, stdin=request)
    texts: list[str | None] = []
    offset = 0
    for _ in paths:
        header_end = out.index(b"\n", offset)
        header = out[offset:header_end].split()
        offset = header_end + 1
        if len(header) != 3 or header[1] != b"blob":
            texts.append(None)
            continue
        size = int(header[2])
        texts.append(out[offset : offset + size].decode("utf-8", "replace"))
        offset += size + 1
    return texts


def generated_moves(
    root: Path, revision: str, changes: Changes, docs_prefix: str, suffixes: tuple[str, ...]
) -> list[FolderMove]:
    """The autosummary folders that moved with the pages git renamed under the docs
    folder, or that a page changed in place now names otherwise (``:toctree:
    generated`` → ``:toctree: api``), by :func:`generated_folder_moves`; left out where
    ``revision`` tracked a file in the old folder: then git shows what became of each."""
    def is_page(path: str) -> bool:
        return path.startswith(docs_prefix) and "\n" not in path and strip_source_suffix(
            path[len(docs_prefix) :], suffixes)[1]

    pairs = [
        (old, new)
        for old, new in [*changes.renames, *((path, path) for path in changes.modified)]
        if is_page(old) and is_page(new)
    ]
    if not pairs or revision == EMPTY_TREE:
        return []
    moves: list[FolderMove] = []
    old_texts = _texts_at(root, revision, [old for old, _ in pairs])
    for (old, new), old_text in zip(pairs, old_texts, strict=True):
        if old_text is None or "autosummary" not in old_text:
            continue
        try:
            new_text = (root / new).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        moves += [
            replace(move, path=str(root / new))
            for move in generated_folder_moves(old, new, old_text, new_text)
        ]
    if not moves:
        return []
    out = git(["ls-tree", "-r", "-z", "--name-only", revision, "--",
               *(move.old for move in moves)], root)
    tracked = [path for path in out.decode("utf-8", "replace").split("\0") if path]
    return [m for m in moves if not any(path.startswith(m.old) for path in tracked)]


def generated_pages(page: str, text: str) -> dict[str, tuple[str, int]]:
    """The pages autosummary generates for the source ``page`` (a repository path):
    repository path of each page without suffix → ``(object name, line of its
    :toctree:)``."""
    found: dict[str, tuple[str, int]] = {}
    for line, toctree, name in autosummary_entries(text):
        folder = generated_folder(page, toctree)
        if folder is not None:
            found.setdefault(folder + name, (name, line))
    return found


def object_moves(
    root: Path, revision: str, changes: Changes, docs_prefix: str, suffixes: tuple[str, ...],
    known: Iterable[FolderMove] = (), exclude_patterns: Iterable[str] = (),
) -> list[FolderMove]:
    """The autosummary folders whose objects' pages another folder holds now, by the
    objects the directives list (autosummary names each page after its object): an API
    page replaced by a new one with another ``:toctree:``, where git pairs no rename.

    A folder whose pages were made at ``revision`` by pages that changed since, that
    none of today's directives makes any more, and each of whose objects (one at least)
    has its page in one other folder now, that no directive made before, moved there.
    Left out: a folder ``known`` already moves, one whose objects went to several
    folders (which went where is the user's to say), and one ``revision`` tracked
    files in (git shows what became of each).
    """
    def is_page(path: str) -> bool:
        return path.startswith(docs_prefix) and "\n" not in path and strip_source_suffix(
            path[len(docs_prefix) :], suffixes)[1]

    changed_then = [p for p in [*changes.deleted, *changes.modified,
                                *(old for old, _ in changes.renames)] if is_page(p)]
    if not changed_then or revision == EMPTY_TREE:
        return []
    texts_then = _texts_at(root, revision, changed_then)
    then: dict[str, tuple[str, int]] = {}
    for path, text in zip(changed_then, texts_then, strict=True):
        if text is not None:
            then.update(generated_pages(path, text))
    if not then:
        return []
    out = git(["ls-files", "-z", "--", docs_prefix or "."], root)
    tracked = [p for p in out.decode("utf-8", "replace").split("\0") if is_page(p)]
    excluded = excluded_paths([p[len(docs_prefix) :] for p in tracked], exclude_patterns)
    tracked = [p for p in tracked if not any(
        p[len(docs_prefix) :] == x or p[len(docs_prefix) :].startswith(x + "/") for x in excluded)]
    now: dict[str, tuple[str, int]] = {}
    made_by: dict[str, str] = {}  # a page now → the source that makes it
    for path in dict.fromkeys([*tracked, *(p for p in changes.added if is_page(p))]):
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for made, entry in generated_pages(path, text).items():
            now.setdefault(made, entry)
            made_by.setdefault(made, path)
    changed_now = {*changes.modified, *(new for _, new in changes.renames), *changes.added}
    # what unchanged sources make now, they made then as well
    then_all = set(then) | {made for made, path in made_by.items() if path not in changed_now}
    new_pages: dict[str, list[str]] = {}
    for made, (name, _) in now.items():
        if made not in then_all:
            new_pages.setdefault(name, []).append(made)
    folders_now = {made.rpartition("/")[0] for made in now}
    skip = {move.old for move in known}
    went: dict[str, set[str]] = {}  # old folder → the folders its objects' pages are in
    for made, (name, _) in then.items():
        folder = made.rpartition("/")[0] + "/"
        if made in now or folder in skip:
            continue
        went.setdefault(folder, set()).update(
            n.rpartition("/")[0] + "/" for n in new_pages.get(name, ()))
    moves: list[FolderMove] = []
    for old, targets in sorted(went.items()):
        if len(targets) != 1 or old.rstrip("/") in folders_now:
            continue
        new = targets.pop()
        made = next(n for n in now if n.startswith(new) and n not in then_all)
        moves.append(FolderMove(old, new, str(root / made_by[made]), now[made][1],
                                maker="autosummary-objects"))
    if not moves:
        return []
    out = git(["ls-tree", "-r", "-z", "--name-only", revision, "--",
               *(move.old for move in moves)], root)
    tracked_then = [path for path in out.decode("utf-8", "replace").split("\0") if path]
    return [m for m in moves if not any(path.startswith(m.old) for path in tracked_then)]


def autoapi_move(
    root: Path, revision: str, conf: Path, docs_prefix: str, folder_now: str
) -> FolderMove | None:
    """sphinx-autoapi's folder, moved because conf.py's ``autoapi_root`` changed since
    ``revision`` (``folder_now``: :func:`autoapi_folder` of conf.py now); ``None`` when
    it did not, conf.py then cannot be read, or ``revision`` tracked the old folder's
    files (then git shows what became of each)."""
    from sphinx_relocate.core.confpy import read_literals

    try:
        inside = conf.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    old_text = _texts_at(root, revision, [inside])[0]
    if old_text is None:
        return None
    try:
        old_folder = autoapi_folder(read_literals(old_text, inside).values)
    except (SyntaxError, ValueError):
        return None
    if old_folder is None or old_folder == folder_now:
        return None
    old, new = docs_prefix + old_folder, docs_prefix + folder_now
    out = git(["ls-tree", "-r", "-z", "--name-only", revision, "--", old], root)
    if out.strip(b"\0"):
        return None
    try:
        text = conf.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    written = re.search(r"^autoapi_root\b", text, re.MULTILINE) or re.search(
        re.escape(AUTOAPI_EXTENSION), text)
    line = text.count("\n", 0, written.start()) + 1 if written else 1
    return FolderMove(old, new, str(conf), line, maker="autoapi")


#: the most (lost section, new section) pairs whose texts are all compared across pages;
#: past it (a page of 170 sections split into four) each lost section is compared with
#: the :data:`TEXT_CANDIDATES` new ones that share the most runs of words with it
MAX_TEXT_PAIRS = 20_000
#: how many new sections a lost one is compared with past :data:`MAX_TEXT_PAIRS`
TEXT_CANDIDATES = 8
#: the words of a run two texts share when one section went on as the other
WORD_RUN = 4


def _word_runs(body: str) -> set[tuple[str, ...]]:
    words = body.split()
    return {tuple(words[start : start + WORD_RUN])
            for start in range(max(len(words) - WORD_RUN, 0) + 1)} if words else set()


class _Alike:
    """The new sections a lost one is compared with by text: every one while that stays
    cheap, else those sharing the most runs of :data:`WORD_RUN` words with it (a section
    that went on as another keeps most of its sentences; difflib still decides)."""

    def __init__(self, fresh: list[tuple[str, str, Section]], every: bool) -> None:
        self.fresh = fresh
        self.by_run: dict[tuple[str, ...], list[int]] | None = None
        if not every:
            self.by_run = {}
            for number, (_, _, section) in enumerate(fresh):
                for run in _word_runs(section.body):
                    self.by_run.setdefault(run, []).append(number)

    def __call__(self, section: Section) -> list[tuple[str, str, Section]]:
        if self.by_run is None:
            return self.fresh
        shared: Counter[int] = Counter()
        for run in _word_runs(section.body):
            shared.update(self.by_run.get(run, ()))
        return [self.fresh[number] for number, _ in shared.most_common(TEXT_CANDIDATES)]


#: how much more alike (difflib's ratio) the best of several sections must be to be the
#: one: NumPy's deleted PCG64 page's *Extending* was 0.75 like Xoshiro256's and 0.71 like
#: Xoshiro512's, one template filled in twice; two that close are two meanings
CLEARLY_MORE = 0.05


def _where_pages_went(moves: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each old page's sections' new page: the one that took more of them than any
    other did (a page that took as many as another is none)."""
    counts: dict[str, Counter[str]] = {}
    for old_page, new_page in moves:
        if new_page and new_page != old_page:
            counts.setdefault(old_page, Counter())[new_page] += 1
    toward = {}
    for old_page, count in counts.items():
        ranked = count.most_common(2)
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            toward[old_page] = ranked[0][0]
    return toward


def _clearly_best(
    scored: list[tuple[float, int]], places: list[tuple[str, str, Section]], toward: str | None,
) -> int | None:
    """Of places scored best first, the index of the one: the best when the next is less
    alike by :data:`CLEARLY_MORE`, or, within that margin, when it alone of them is on
    ``toward`` (the page where the rest of the old page went)."""
    if not scored:
        return None
    best, number = scored[0]
    close = [n for score, n in scored if best - score < CLEARLY_MORE]
    if len(close) == 1:
        return number
    if toward is not None and [n for n in close if places[n][0] == toward] == [number]:
        return number
    return None


def _elsewhere(
    section: Section, old_doc: str, by_id: dict[str, list[tuple[str, str, Section]]],
    alike: list[tuple[str, str, Section]], toward: str | None = None,
) -> tuple[str, str, Section] | None:
    """The new section on another page that ``section`` (lost from ``old_doc``) became:
    the one that kept one of its labels, else of those with one of its ids the one whose
    text is most alike, by at least :data:`SAME_ID_TEXT` (an *Overview* of a deleted
    page is not another page's *Overview*; a page split in two may give both halves a
    section of the old one's title, and the id was the first's), else of ``alike`` (see
    :class:`_Alike`) the one whose text is most alike.  Two about as alike (within
    :data:`CLEARLY_MORE`): none (it needs a target; never a guess), unless the best is
    alone of them on ``toward``.  A deleted page's title goes by its ids only (no
    ``alike``): every new page's first lines are alike."""
    tied = False
    for old_id in section.ids:
        places = [place for place in by_id.get(old_id, ()) if place[0] != old_doc]
        if old_id in section.labels:
            kept = [place for place in places if old_id in place[2].labels]
            if len(kept) == 1:
                return kept[0]
        scored = sorted(
            ((score, number) for number, place in enumerate(places)
             if (score := _id_text_score(section, place[2])) is not None),
            reverse=True,
        )
        best = _clearly_best(scored, places, toward)
        if best is not None:
            return places[best]
        tied = tied or bool(scored)  # as alike to two sections: not one of them
    if tied:
        return None
    others = [place for place in alike if place[0] != old_doc and place[2].ids]
    if not section.body.strip():
        return None
    scored = sorted((
        (likeness, number) for number, (_, _, other) in enumerate(others)
        if other.body.strip() and (likeness := _text_likeness(section.body, other.body))
    ), reverse=True)
    best = _clearly_best(scored, others, toward)
    return None if best is None else others[best]


#: how alike two sections with the same heading id on two pages must be to be one section:
#: the id narrows the choice to a few, so less than :data:`SAME_TEXT`, but unrelated texts
#: (0.0-0.1 in myst-parser's docs, where two deleted pages' *Overview* met the index's)
#: do not pass
SAME_ID_TEXT = 0.3


def _id_text_score(old: Section, new: Section) -> float | None:
    """How alike two sections with one id are: difflib's ratio of their texts when at
    least :data:`SAME_ID_TEXT`, ``None`` below it; :data:`SAME_ID_TEXT` itself when
    either has no text to compare (a heading over subsections)."""
    if not old.body.strip() or not new.body.strip():
        return SAME_ID_TEXT
    matcher = difflib.SequenceMatcher(None, old.body, new.body)
    if matcher.quick_ratio() < SAME_ID_TEXT:
        return None
    ratio = matcher.ratio()
    return ratio if ratio >= SAME_ID_TEXT else None


@dataclass
class Derived:
    """Table entries derived from git: ``[pages]`` by docname, ``[files]`` by path."""

    pages: list[tuple[str, str]] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)
    #: pages deleted without a rename (docnames): they need a target or a decision
    deleted: list[str] = field(default_factory=list)
    #: of those, the ones renamed to a file that is no page (an include fragment, a page
    #: moved out of the docs folder): docname → its path now, from the repository root
    became: dict[str, str] = field(default_factory=dict)
    #: whole folders that moved, with a trailing ``/``
    prefixes: list[tuple[str, str]] = field(default_factory=list)
    #: renamed headings, ``("page#old-id", "page#new-id")``
    anchors: list[tuple[str, str]] = field(default_factory=list)
    #: section ids gone from their page (``page#id``): they need a target
    removed: list[str] = field(default_factory=list)
    #: labels renamed with their page (sphinx-gallery's examples)
    labels: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(
            self.pages or self.files or self.deleted or self.prefixes or self.anchors
            or self.removed or self.labels
        )


def derive(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...], present: Iterable[str] = (),
    not_pages: Collection[str] = (),
) -> Derived:
    """Sort git's changes into table entries, relative to the docs folder.

    ``present`` are the files in the docs folder now (relative to it): a folder that
    still holds any is not a folder that moved.  ``not_pages`` are paths named like a
    page that are none (an include fragment ``exclude_patterns`` leaves out): files.
    Old paths are read with the revision's source suffixes (``Changes.old_suffixes``).
    """
    derived = fold_folders(_entries(changes, docs_prefix, suffixes, not_pages), present)
    generated = [  # a folder that moved with the folder above it is said by its entry
        (old, new) for old, new in _generated_prefixes(changes, docs_prefix)
        if not any(old.startswith(o) and n + old[len(o) :] == new for o, n in derived.prefixes)
    ]
    if not generated:
        return derived
    return replace(derived, prefixes=sorted({*derived.prefixes, *generated}))


def _generated_prefixes(changes: Changes, docs_prefix: str) -> list[tuple[str, str]]:
    """The moved autosummary folders inside the docs folder, relative to it."""
    return [
        (move.old[len(docs_prefix) :], move.new[len(docs_prefix) :])
        for move in changes.generated
        if move.old.startswith(docs_prefix) and move.new.startswith(docs_prefix)
    ]


def _entries(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...], not_pages: Collection[str],
) -> Derived:
    """One entry per renamed page and file, one per deleted page (no folders folded)."""
    derived = Derived()
    old_suffixes = changes.old_suffixes or suffixes
    not_pages = {*not_pages, *changes.not_pages}

    def inside(path: str) -> str | None:
        return path[len(docs_prefix) :] if path.startswith(docs_prefix) else None

    def page(path: str, read_with: tuple[str, ...] = suffixes) -> tuple[str, bool]:
        docname, is_page = strip_source_suffix(path, read_with)
        return docname, is_page and path not in not_pages

    for old_path, new_path in changes.renames:
        old, new = inside(old_path), inside(new_path)
        if old is None:
            continue
        old_doc, old_is_page = page(old, old_suffixes)
        if not old_is_page and new is not None and page(new)[1]:
            continue  # a file that became a page: a [files] entry cannot name a page
        if old_is_page:
            if new is None or not page(new)[1]:
                derived.deleted.append(old_doc)  # out of the docs, or no page now
                derived.became[old_doc] = new_path
                continue
            new_doc = strip_source_suffix(new, suffixes)[0]
            if new_doc != old_doc:
                derived.pages.append((old_doc, new_doc))
        elif new is not None:
            derived.files.append((old, new))
    for path in changes.deleted:
        old = inside(path)
        if old is not None:
            docname, is_page = strip_source_suffix(old, old_suffixes)
            if is_page and old not in not_pages:
                derived.deleted.append(docname)
    went: dict[str, set[str]] = {}
    for change in changes.sections:
        went.setdefault(change.old, set()).add(change.new if change.new_id else "")
    for old_id, news in went.items():
        if len(news) == 1 and "" not in news:
            derived.anchors.append((old_id, news.pop()))
        else:  # removed, or two places it may have gone: the user says which
            derived.removed.append(old_id)
    derived.labels = sorted(set(changes.labels))
    derived.pages.sort()
    derived.files.sort()
    derived.anchors.sort()
    derived.removed.sort()
    derived.deleted = sorted(set(derived.deleted) - {old for old, _ in derived.pages})
    return derived


def fold_folders(derived: Derived, present: Iterable[str]) -> Derived:
    """Replace the entries of each folder that moved as a whole with one ``[prefixes]``.

    A folder moved as a whole when every page and file in it moved, to the same path
    below one new folder, at least two of them, and nothing was left in it or deleted
    from it.  The outermost such folder wins; a prefix also covers files added later.
    """
    moves = [*derived.pages, *derived.files]
    occupied = {posixpath.dirname(path) for path in present}
    occupied |= {posixpath.dirname(page) for page in derived.deleted}
    for folder in list(occupied):
        while folder:
            folder = posixpath.dirname(folder)
            occupied.add(folder)
    candidates = sorted(
        {parent for old, _ in moves for parent in _parents(old)},
        key=lambda folder: (folder.count("/"), folder),
    )
    folded: list[tuple[str, str]] = []
    for folder in candidates:
        if folder in occupied or any(folder.startswith(f"{old}/") for old, _ in folded):
            continue
        inside = [(old, new) for old, new in moves if old.startswith(folder + "/")]
        targets = {_new_folder(old[len(folder) + 1 :], new) for old, new in inside}
        if len(inside) < 2 or len(targets) != 1:
            continue
        target = targets.pop()
        if target and target != folder:
            folded.append((folder, target))
    if not folded:
        return derived

    def kept(old: str) -> bool:
        return not any(old.startswith(f"{folder}/") for folder, _ in folded)

    return Derived(
        pages=[(o, n) for o, n in derived.pages if kept(o)],
        files=[(o, n) for o, n in derived.files if kept(o)],
        deleted=derived.deleted,
        became=derived.became,
        prefixes=sorted((f"{old}/", f"{new}/") for old, new in folded),
        anchors=derived.anchors,
        removed=derived.removed,
        labels=derived.labels,
    )


def _parents(path: str) -> list[str]:
    parents = []
    folder = posixpath.dirname(path)
    while folder:
        parents.append(folder)
        folder = posixpath.dirname(folder)
    return parents


def _new_folder(rest: str, new: str) -> str | None:
    """The folder ``new`` is ``rest`` below, if it is (``None`` otherwise)."""
    if new == rest:
        return ""
    return new[: -len(rest) - 1] if new.endswith("/" + rest) else None


def without_known(
    derived: Derived, table: RelocationTable, ids_of: Callable[[str], set[str]] | None = None,
    served: RelocationTable | None = None,
) -> tuple[Derived, int]:
    """Drop what the table already moves; also return how many were dropped.

    A section of a page the table moves is covered when the page it lands on has its id
    (``ids_of``: the section ids of a page now); the sections of a deleted page that no
    entry moves go with the page's own finding.  ``served``: the redirects of the peers
    conf.py still loads, whose own stubs serve the old URLs of the pages they name (an
    entry for one would be a second stub at the same path); they carry no fragment, so
    a section still needs an entry.
    """
    known_files = set(table.files)
    known_folders = {old for old, _ in table.prefixes}

    def moved(page: str) -> bool:
        return table.locate_page(page) is not None or (
            served is not None and served.locate_page(page) is not None
        )

    deleted = [d for d in derived.deleted if not moved(d)]
    with_page = [o for o in derived.removed if o.partition("#")[0] not in deleted]
    kept = Derived(
        pages=[(o, n) for o, n in derived.pages if not moved(o)],
        files=[(o, n) for o, n in derived.files if o not in known_files],
        deleted=deleted,
        became=derived.became,
        prefixes=[(o, n) for o, n in derived.prefixes if o not in known_folders],
        anchors=[(o, n) for o, n in derived.anchors if not _anchor_known(table, o, n, ids_of)],
        removed=[o for o in with_page if not _anchor_known(table, o, "", ids_of)],
        labels=[(o, n) for o, n in derived.labels if o not in table.labels],
    )
    dropped = len(with_page) - len(kept.removed) + sum(
        len(getattr(derived, name)) - len(getattr(kept, name))
        for name in ("pages", "files", "deleted", "prefixes", "anchors", "labels")
    )
    return kept, dropped


def _anchor_known(
    table: RelocationTable, old: str, new: str = "",
    ids_of: Callable[[str], set[str]] | None = None,
) -> bool:
    """Whether ``page#id`` lands on a section: an entry sends it elsewhere, or the page
    the table moves it to is ``new`` or has a section with that id."""
    page, _, fragment = old.partition("#")
    target = table.locate_reference(page, fragment)
    if target is None:
        return False
    if target.url or target.anchor != fragment or (page, fragment) in table.anchors:
        return True
    return str(target) == new or (ids_of is not None and fragment in ids_of(target.path))


def ids_now(
    srcdir: Path, suffixes: tuple[str, ...], headings: Headings = PLAIN_HEADINGS
) -> Callable[[str], set[str]]:
    """The section ids (and other anchors) of a page in the working tree, by docname."""
    from sphinx_relocate.core.spans import anchors_in_source

    cache: dict[str, set[str]] = {}

    def ids_of(docname: str) -> set[str]:
        if docname not in cache:
            cache[docname] = set()
            for suffix in suffixes:
                path = srcdir / f"{docname}{suffix}"
                if "\n" not in docname and path.is_file():
                    text = path.read_text(encoding="utf-8", errors="replace")
                    name = path.name
                    cache[docname] = {
                        i for s in sections_in(text, name, headings) for i in s.ids
                    } | set(anchors_in_source(text, name, headings))
                    break
        return cache[docname]

    return ids_of


def docs_changes(
    srcdir: Path, since: str | None, similarity: int, exclude_patterns: Iterable[str] = (),
    suffixes: tuple[str, ...] = (), headings: Headings = PLAIN_HEADINGS,
    gallery_conf: object = None, autoapi: tuple[Path, str] | None = None,
    assets: Iterable[str] = (), table: RelocationTable | None = None,
    autosummary: bool = True,
) -> tuple[str, Changes]:
    """The changes under the docs folder, with its path in the repository (``"docs/"``);
    with ``suffixes``, also the section ids the pages of those suffixes lost; with a
    ``sphinx_gallery_conf``, the pages its examples' renames move; with ``autoapi``
    (conf.py and sphinx-autoapi's folder now), that folder moved from the one conf.py
    named at ``since``.  ``assets``: the static and extra folders now (docs-relative),
    whose files are files, never pages (an image there is what ``.. image::`` names);
    ``table``: the entries already written, whose pages the sections follow;
    ``autosummary``: whether autosummary writes pages (loaded, and
    ``autosummary_generate`` not off), without which no ``:toctree:`` makes a folder
    (Sphinx's own guide shows one in a code sample)."""
    root = top_level(srcdir).resolve()
    folder = srcdir.resolve().relative_to(root).as_posix()
    prefix = "" if folder == "." else folder + "/"
    changes = changes_since(root, prefix.rstrip("/"), since, similarity, exclude_patterns)
    if gallery_conf is not None and ".rst" in suffixes:
        changes = _with_galleries(
            changes, root, prefix, since, similarity, galleries_of(gallery_conf, folder)
        )
    if suffixes:
        try:
            out = git(["rev-parse", "--verify", "--quiet", f"{since or 'HEAD'}^{{commit}}"], root)
        except GitError:  # no commit yet: no section had an id
            return prefix, _same_page_new_suffix(changes, prefix, suffixes)
        revision = out.decode().strip()
        then, assets_then = _conf_at(root, revision, prefix + "conf.py")
        if then and set(then) != set(suffixes):
            changes = replace(changes, old_suffixes=then)
        # old paths are pages by the suffixes of then (TLJH's .rst pages, .md now)
        changes = _same_page_new_suffix(changes, prefix, suffixes)
        changes = _asset_files(changes, prefix, assets, assets_then)
        generated: list[FolderMove] = []
        if autosummary:
            generated = generated_moves(root, revision, changes, prefix, suffixes)
            generated += object_moves(root, revision, changes, prefix, suffixes, generated,
                                      exclude_patterns)
        moved_api = None if autoapi is None else autoapi_move(
            root, revision, autoapi[0], prefix, autoapi[1])
        changes = replace(
            changes,
            sections=section_changes(root, revision, changes, prefix, suffixes, headings,
                                     _page_now(root, prefix, suffixes, table)),
            generated=[*generated, moved_api] if moved_api else generated,
        )
    return prefix, changes


def _page_now(
    root: Path, docs_prefix: str, suffixes: tuple[str, ...], table: RelocationTable | None
) -> Callable[[str], str | None] | None:
    """The repository path of the page that ``table`` sends an old docname to, when
    its source is there (``None``: no such entry, or no table)."""
    if table is None or not (table.pages or table.prefixes or table.patterns):
        return None

    def source(docname: str) -> str | None:
        return next((f"{docs_prefix}{docname}{suffix}" for suffix in suffixes
                     if (root / f"{docs_prefix}{docname}{suffix}").is_file()), None)

    def page_now(docname: str) -> str | None:
        target = table.locate_page(docname, lambda name: source(name) is not None)
        if target is None or target.url:
            return None
        return source(target.path)

    return page_now


def _conf_at(
    root: Path, revision: str, conf: str
) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """The source suffixes and the static and extra folders conf.py gave at
    ``revision``, as far as its literals say (``()`` and ``None`` for what it did not
    have, or set otherwise)."""
    from sphinx_relocate.core.confpy import read_literals
    from sphinx_relocate.core.settings import extensions_suffixes, source_suffixes

    text = _texts_at(root, revision, [conf])[0]
    if text is None:
        return (), None
    try:
        values = read_literals(text, conf).values
    except (SyntaxError, ValueError):
        return (), None
    assets: tuple[str, ...] | None = ()
    for name in ("html_static_path", "html_extra_path"):
        folders = values.get(name, [])
        if assets is None or not isinstance(folders, (list, tuple)):
            assets = None
        else:
            assets += tuple(folder for folder in folders if isinstance(folder, str))
    given, extensions = values.get("source_suffix"), values.get("extensions") or ()
    if not isinstance(given, (str, list, tuple, dict, type(None))) or not isinstance(
            extensions, (list, tuple)):
        return (), assets
    try:
        return source_suffixes(given, extensions_suffixes(
            [name for name in extensions if isinstance(name, str)])), assets
    except (TypeError, ValueError):
        return (), assets


def _asset_files(
    changes: Changes, docs_prefix: str, now: Iterable[str], then: Iterable[str] | None,
) -> Changes:
    """``changes`` with the paths of each side's static and extra folders noted as no
    pages (``then``: the revision's, ``None`` when unknown: today's)."""
    def under(folders: Iterable[str]) -> Callable[[str], str | None]:
        heads = [posixpath.normpath(f).strip("/") + "/" for f in folders]

        def inside(path: str) -> str | None:
            if not path.startswith(docs_prefix):
                return None
            relative = path[len(docs_prefix) :]
            return relative if any(relative.startswith(h) for h in heads) else None
        return inside

    now_inside = under(list(now))
    then_inside = now_inside if then is None else under(then)
    found = {
        *(then_inside(old) for old, _ in changes.renames),
        *(now_inside(new) for _, new in changes.renames),
        *(then_inside(path) for path in changes.deleted),
        *(now_inside(path) for path in changes.added),
    }
    found.discard(None)
    if not found:
        return changes
    return replace(changes, not_pages=frozenset(p for p in found if p is not None))


def _with_galleries(
    changes: Changes, root: Path, docs_prefix: str, since: str | None, similarity: int,
    galleries: list[Gallery],
) -> Changes:
    """``changes`` with the pages and labels that sphinx-gallery's examples moved: an
    example renamed is its page renamed (as the ``.rst`` sphinx-gallery writes), one
    deleted is its page deleted."""
    renames: list[tuple[str, str]] = []
    deleted: list[str] = []
    labels: list[tuple[str, str]] = []

    def page_of(path: str) -> tuple[str, Gallery] | None:
        return next(((d, g) for g in galleries if (d := g.page_of(path)) is not None), None)

    for gallery in galleries:
        found = changes_since(root, gallery.examples.rstrip("/"), since, similarity)
        for old, new in found.renames:
            before, after = page_of(old), page_of(new)
            if before is None:
                continue
            if after is None:  # no example now: its page is gone
                deleted.append(f"{docs_prefix}{before[0]}.rst")
                continue
            if after[0] == before[0]:
                continue
            renames.append((f"{docs_prefix}{before[0]}.rst", f"{docs_prefix}{after[0]}.rst"))
            labels += zip(labels_of(before[0], old, before[1]),
                          labels_of(after[0], new, after[1]), strict=True)
        deleted += [f"{docs_prefix}{p[0]}.rst" for p in map(page_of, found.deleted) if p]
    if not renames and not deleted:
        return changes
    return replace(
        changes,
        renames=[*changes.renames, *renames],
        deleted=[*changes.deleted, *deleted],
        labels=[*changes.labels, *labels],
    )


def _same_page_new_suffix(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...]
) -> Changes:
    """A page whose source changed suffix (``index.rst`` gone, ``index.md`` added) is the
    same page, changed: not a deleted one, nor one renamed to the page that git paired
    its old text with (the text went there; the page stayed).  An old path is a page by
    the suffixes conf.py gave then (``Changes.old_suffixes``)."""
    then = longest_first(changes.old_suffixes or suffixes)

    def docname(path: str, read_with: tuple[str, ...] = suffixes) -> str | None:
        if not path.startswith(docs_prefix):
            return None
        name, is_page = strip_source_suffix(path[len(docs_prefix) :], read_with)
        return name if is_page else None

    added: dict[str, str] = {}
    for path in changes.added:
        name = docname(path)
        if name is not None:
            added.setdefault(name, path)
    renames: list[tuple[str, str]] = []
    now_added: list[str] = []  # the pages git paired an old text with, new pages again
    for old, new in changes.renames:
        name = docname(old, then)
        same = added.pop(name, None) if name is not None and docname(new) != name else None
        if same is None:
            renames.append((old, new))
        else:
            renames.append((old, same))
            now_added.append(new)
    deleted: list[str] = []
    for path in changes.deleted:
        name = docname(path, then)
        same = added.pop(name, None) if name is not None else None
        if same is None:
            deleted.append(path)
        else:
            renames.append((path, same))
    if renames == changes.renames and deleted == changes.deleted:
        return changes
    paired = {new for _, new in renames}
    return replace(
        changes,
        renames=renames,
        deleted=deleted,
        added=[*(path for path in changes.added if path not in paired), *now_added],
    )


def unpaired(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...]
) -> list[tuple[str, str]]:
    """Pages deleted and pages added with the same name in another folder (or another
    source suffix): ``(old, new)`` docnames git did not pair because their texts differ
    too much (a page edited as it moved, such as by ``rewrite``), candidates for an entry;
    an old path is a page by the suffixes conf.py gave then."""
    then = longest_first(changes.old_suffixes or suffixes)

    def pages(paths: Iterable[str], read_with: tuple[str, ...] = suffixes) -> list[str]:
        found = []
        for path in paths:
            if path.startswith(docs_prefix):
                docname, is_page = strip_source_suffix(path[len(docs_prefix):], read_with)
                if is_page:
                    found.append(docname)
        return found

    added: dict[str, list[str]] = {}
    for docname in pages(changes.added):
        added.setdefault(_page_name(docname), []).append(docname)
    # the folders each folder's renamed pages went to: an index goes where they all went
    # (pip's reference/index, rewritten as cli/index.md, beside 14 pages git paired)
    went: dict[str, set[str]] = {}
    for old_path, new_path in changes.renames:
        old_page, new_page = pages([old_path], then), pages([new_path])
        if old_page and new_page:
            went.setdefault(posixpath.dirname(old_page[0]), set()).add(
                posixpath.dirname(new_page[0]))
    new_pages = set(pages(changes.added))
    return sorted({
        *((old, new)
          for old in pages(changes.deleted, then)
          for new in added.get(_page_name(old), ())
          if new != old),
        *((old, f"{folder}/index")
          for old in pages(changes.deleted, then)
          if old.endswith("/index") and len(folders := went.get(old[: -len("/index")], ())) == 1
          and (folder := next(iter(folders))) and f"{folder}/index" in new_pages
          and f"{folder}/index" != old),
    })


def _page_name(docname: str) -> str:
    """What names a page for :func:`unpaired`: its file's name, or its folder's for an
    ``index`` (``about`` became ``about/index``; Read the Docs' deleted ``legal/index``
    is not each of ten new ``*/index``)."""
    folder, _, name = docname.rpartition("/")
    return posixpath.basename(folder) if name == "index" and folder else name


def unredirected(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...], table: RelocationTable,
    ids_of: Callable[[str], set[str]] | None = None, served: RelocationTable | None = None,
) -> list[tuple[str, str]]:
    """Pages renamed or deleted that no entry moves: ``(old, new)``, ``new`` empty if deleted.

    rediraffe's ``rediraffecheckdiff``, by the entries ``from-git`` would derive: a page
    counts as covered when the table locates it (``[pages]``, ``[prefixes]``, the map),
    or a loaded peer's redirects do (``served``, as :func:`without_known` reads them).
    Folders are not folded, so each page of a moved folder is checked on its own.
    """
    missing, _ = without_known(
        _entries(changes, docs_prefix, suffixes, ()), table, ids_of, served
    )
    folders = [
        (old, new) for old, new in _generated_prefixes(changes, docs_prefix)
        if all(t.locate_pattern(old + "*") is None for t in (table, served) if t is not None)
    ]
    return sorted({  # a heading and its label may name one section twice
        *missing.pages, *((page, became_of(missing, page)) for page in missing.deleted),
        *missing.anchors,
        *((section, "") for section in missing.removed),
        *folders,
    })


def folder_move(changes: Changes, docs_prefix: str, old: str) -> FolderMove | None:
    """The move of generated pages' folder ``old`` (docs-relative, ``folder/``)."""
    return next((m for m in changes.generated if m.old == docs_prefix + old), None)


def folder_maker(changes: Changes, docs_prefix: str, old: str) -> str:
    """What writes the pages of the generated folder ``old`` (:attr:`FolderMove.maker`;
    autosummary when ``old`` is no such folder)."""
    move = folder_move(changes, docs_prefix, old) if old.endswith("/") else None
    return "autosummary" if move is None else move.maker


def written_at(changes: Changes, docs_prefix: str, old: str) -> Location | None:
    """Where the finding for ``old`` goes: the heading renamed from it (``page#id``), or
    the option that names the folder of generated pages it was (``folder/``): a page's
    ``:toctree:``, conf.py's ``autoapi_root``."""
    if old.endswith("/"):
        move = folder_move(changes, docs_prefix, old)
        return Location(move.path, move.line) if move is not None and move.path else None
    return next(
        (Location(c.path, c.line) for c in changes.sections if c.old == old and c.path), None
    )


def unredirected_message(
    old: str, new: str, since: str | None, maker: str = "autosummary"
) -> str:
    """The line the command and the build give for a page or section that lost its URL
    silently (``old`` and ``new`` of a section are ``page#id``; of a folder of generated
    pages, ``folder/``, with what writes them: :attr:`FolderMove.maker`)."""
    if old.endswith("/") and maker == "autosummary-objects":
        return (f"autosummary's pages in {old} moved to {new} since {since or 'HEAD'}: "
                "the objects they document have their pages there now, and no [prefixes] "
                "entry moves them")
    if old.endswith("/") and maker == "autoapi":
        return (f"sphinx-autoapi's pages in {old} moved to {new} with autoapi_root since "
                f"{since or 'HEAD'}, and no [prefixes] entry moves them")
    if old.endswith("/"):
        return (f"autosummary's pages in {old} moved to {new} with the page that makes them "
                f"since {since or 'HEAD'}, and no [prefixes] entry moves them")
    if "#" in old:
        moved = new and new.partition("#")[0] != old.partition("#")[0]
        change = f"{'moved' if moved else 'was renamed'} to {new}" if new else "was removed"
        return f"heading {old} {change} since {since or 'HEAD'} and has no [anchors] entry"
    change = f"was renamed to {new}" if new else "was deleted"
    return f"{old} {change} since {since or 'HEAD'} and has no entry"


# -- TOML text ---------------------------------------------------------------------


def toml_string(text: str) -> str:
    """A TOML basic string (non-ASCII stays as it is: TOML files are UTF-8)."""
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
               "\f": "\\f", "\r": "\\r"}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


DELETED_NOTE = (
    "# Deleted without a rename: give each a target (a page or an https:// URL),\n"
    "# or leave it out if the page is meant to go."
)


def deleted_line(docname: str, became: str = "", merged: str = "") -> str:
    """The commented entry that asks for a deleted page's target (``became``: what git
    renamed it to, :func:`became_of`; ``merged``: where its sections went,
    :func:`merged_into`)."""
    note = became or (f"deleted; its sections went to {merged}" if merged else "deleted")
    return f'# {toml_string(docname)} = ""  # {note}: needs a target'


def became_of(derived: Derived, docname: str) -> str:
    """What a page that is gone became, when git renamed it to a file that is no page
    (``"_fragments/note.txt (not a page)"``), else ``""``."""
    path = derived.became.get(docname)
    return f"{path} (not a page)" if path else ""


def merged_into(derived: Derived, docname: str) -> str:
    """The pages a deleted page's sections went to (``[anchors]`` derived for them), for
    its author to choose its target from: the one page (``start/build``: merged there),
    else the three that took most, with how many (``creation (87), build (40),
    testing (25)``); ``""`` when they went nowhere."""
    went = Counter(new.partition("#")[0] for old, new in derived.anchors
                   if old.partition("#")[0] == docname)
    if len(went) == 1:
        return next(iter(went))
    return ", ".join(f"{page} ({count})" for page, count in went.most_common(3))


REMOVED_NOTE = (
    "# Removed sections: give each a target (page#id of the section that holds its\n"
    "# text now), or leave it out if the section is meant to go."
)


def removed_line(section: str) -> str:
    """The commented entry that asks for a removed section's target."""
    return f'# {toml_string(section)} = ""  # removed: needs a target'


def _section_lines(derived: Derived) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    if derived.pages or derived.deleted:
        lines = [f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.pages]
        if derived.deleted:
            lines += [*DELETED_NOTE.splitlines(),
                      *(deleted_line(d, became_of(derived, d), merged_into(derived, d))
                        for d in derived.deleted)]
        sections["pages"] = lines
    if derived.prefixes:
        sections["prefixes"] = [
            f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.prefixes
        ]
    if derived.files:
        sections["files"] = [f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.files]
    if derived.anchors or derived.removed:
        lines = [f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.anchors]
        if derived.removed:
            lines += [*REMOVED_NOTE.splitlines(), *map(removed_line, derived.removed)]
        sections["anchors"] = lines
    if derived.labels:
        sections["labels"] = [f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.labels]
    return sections


def render(derived: Derived) -> str:
    """The derived entries as a TOML document."""
    blocks = [
        "\n".join([f"[{name}]", *lines]) for name, lines in _section_lines(derived).items()
    ]
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _header_name(line: str) -> str | None:
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    end = stripped.find("]")
    if end < 0:
        return None
    return stripped[1:end].strip().strip("\"'")


def merge_into(text: str, derived: Derived) -> str:
    """``text`` of a table file with the derived entries added to their sections.

    Entries go after the last entry of their section (comments before the next header
    stay with it); a missing section is appended.  Lines already present are not added
    again, so merging twice changes nothing.
    """
    present = {line.strip() for line in text.splitlines()}
    sections: dict[str, list[str]] = {}
    for name, new_lines in _section_lines(derived).items():
        note = (REMOVED_NOTE if name == "anchors" else DELETED_NOTE).splitlines()
        wanted = [line for line in new_lines if not line.startswith("#") and line not in present]
        asked = [line for line in new_lines if line.startswith('# "') and line not in present]
        if asked:
            wanted += [*([] if note[0] in present else note), *asked]
        sections[name] = wanted
    return merge_lines(text, sections)


def merge_lines(text: str, sections: dict[str, list[str]]) -> str:
    """``text`` of a table file with each section's lines added after its last entry.

    Comments before the next header stay with it; a missing section is appended.  The
    result must still parse (``tomllib.TOMLDecodeError``, a ``ValueError``, otherwise).
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    for name, wanted in sections.items():
        if not wanted:
            continue
        header = next(
            (i for i, line in enumerate(lines) if _header_name(line) == name), None
        )
        if header is None:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += [*([""] if lines else []), f"[{name}]", *wanted]
            continue
        end = next(
            (i for i in range(header + 1, len(lines)) if _header_name(lines[i]) is not None),
            len(lines),
        )
        last = header
        for i in range(header + 1, end):
            stripped = lines[i].strip()
            if stripped and not stripped.startswith("#"):
                last = i
        lines[last + 1 : last + 1] = wanted
    merged = newline.join(lines) + newline
    tomllib.loads(merged)  # refuse to write a file that no longer parses
    return merged



#: a TOML string written on one line, basic or literal
_STRING = r"""("(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_PLAIN_VALUE = re.compile(r"[ \t]*" + _STRING)
_INLINE_TO = re.compile(r"[{,][ \t]*to[ \t]*=[ \t]*" + _STRING)


def retarget(
    text: str, moved: Callable[[str, str], str | None]
) -> tuple[str, list[tuple[str, str, str]]]:
    """``text`` of a table file with each target that moved written as where it is now,
    so a chain stays one step (``a → b``, then ``b`` moved to ``c``: ``a → c``); and the
    entries changed, ``(section, key, new target)``.

    ``moved(section, target)`` is a target's new text, or ``None`` when it did not move.
    A plain string value and an inline table's ``to`` are edited where they are written
    (comments and layout kept); an entry that comes to name its own key (a move back)
    is dropped.  The result must still parse (a ``ValueError`` otherwise).
    """
    from sphinx_relocate.core.table.reader import _decode_key, _split_key

    lines = text.split("\n")
    changed: list[tuple[str, str, str]] = []
    dropped: list[int] = []
    section = ""
    for number, line in enumerate(lines):
        header = _header_name(line)
        if header is not None:
            section = header
            continue
        key_text = _split_key(line)
        key = _decode_key(key_text) if key_text is not None else None
        if key_text is None or key is None:
            continue
        rest = line[len(key_text) + 1 :]
        found = (
            _INLINE_TO.search(rest) if rest.lstrip().startswith("{") else _PLAIN_VALUE.match(rest)
        )
        if found is None:
            continue
        target = tomllib.loads(f"v = {found.group(1)}")["v"]
        new = moved(section, target)
        if new is None or new == target:
            continue
        changed.append((section, key, new))
        if new == key:
            dropped.append(number)
            continue
        start = len(key_text) + 1 + found.start(1)
        end = len(key_text) + 1 + found.end(1)
        lines[number] = line[:start] + toml_string(new) + line[end:]
    for number in reversed(dropped):
        del lines[number]
    result = "\n".join(lines)
    tomllib.loads(result)  # refuse to write a file that no longer parses
    return result, changed

"""Derive relocation entries from git renames, and merge them into a table file.

How it reads git, without touching the user's index:

* One ``git diff -M --name-status -z REV`` compares the commit ``REV`` with the working
  tree, so renames committed since ``REV``, staged ones (``git mv``) and unstaged ones
  all show up at once.
* Files moved with a plain ``mv`` are still untracked; they are marked
  ``--intent-to-add`` in a *copy* of the index (``GIT_INDEX_FILE``), so rename
  detection pairs them with their deleted old paths.
* ``-z`` keeps CJK and quoted paths byte-exact; case-only renames are ordinary renames.

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

import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ._paths import strip_source_suffix
from ._table import RelocationTable

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


@dataclass(frozen=True)
class Changes:
    """Renames and deletions between a revision and the working tree (repo-relative)."""

    renames: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    #: files new since the revision (not the new side of a rename)
    added: list[str] = field(default_factory=list)


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
    matches = [re.compile(_translate(pattern)).match for pattern in patterns]
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


def _translate(pattern: str) -> str:
    """A Sphinx exclude pattern as a regular expression (``sphinx.util.matching``)."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        index += 1
        if char == "*":
            if pattern[index : index + 1] == "*":
                index += 1
                out.append(".*")
            else:
                out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = index
            if pattern[end : end + 1] == "!":
                end += 1
            if pattern[end : end + 1] == "]":
                end += 1
            end = pattern.find("]", end)
            if end < 0:
                out.append("\\[")
                continue
            body = pattern[index:end].replace("\\", "\\\\")
            index = end + 1
            if body.startswith("!"):
                body = "^/" + body[1:]  # a negated set never matches "/" either
            elif body.startswith("^"):
                body = "\\" + body
            out.append(f"[{body}]")
        else:
            out.append(re.escape(char))
    return "".join(out) + "$"


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
            index += 2
    return changes


@dataclass
class Derived:
    """Table entries derived from git: ``[pages]`` by docname, ``[files]`` by path."""

    pages: list[tuple[str, str]] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)
    #: pages deleted without a rename (docnames): they need a target or a decision
    deleted: list[str] = field(default_factory=list)
    #: whole folders that moved, with a trailing ``/``
    prefixes: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.pages or self.files or self.deleted or self.prefixes)


def derive(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...], present: Iterable[str] = ()
) -> Derived:
    """Sort git's changes into table entries, relative to the docs folder.

    ``present`` are the files in the docs folder now (relative to it): a folder that
    still holds any is not a folder that moved.
    """
    return fold_folders(_entries(changes, docs_prefix, suffixes), present)


def _entries(changes: Changes, docs_prefix: str, suffixes: tuple[str, ...]) -> Derived:
    """One entry per renamed page and file, one per deleted page (no folders folded)."""
    derived = Derived()

    def inside(path: str) -> str | None:
        return path[len(docs_prefix) :] if path.startswith(docs_prefix) else None

    for old_path, new_path in changes.renames:
        old, new = inside(old_path), inside(new_path)
        if old is None:
            continue
        old_doc, old_is_page = strip_source_suffix(old, suffixes)
        if old_is_page:
            if new is None:
                derived.deleted.append(old_doc)  # moved out of the docs
                continue
            new_doc, new_is_page = strip_source_suffix(new, suffixes)
            if not new_is_page:
                derived.deleted.append(old_doc)
            elif new_doc != old_doc:
                derived.pages.append((old_doc, new_doc))
        elif new is not None:
            derived.files.append((old, new))
    for path in changes.deleted:
        old = inside(path)
        if old is not None:
            docname, is_page = strip_source_suffix(old, suffixes)
            if is_page:
                derived.deleted.append(docname)
    derived.pages.sort()
    derived.files.sort()
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
        prefixes=sorted((f"{old}/", f"{new}/") for old, new in folded),
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


def without_known(derived: Derived, table: RelocationTable) -> tuple[Derived, int]:
    """Drop what the table already moves; also return how many were dropped."""
    known_files = set(table.files)
    known_folders = {old for old, _ in table.prefixes}
    kept = Derived(
        pages=[(o, n) for o, n in derived.pages if table.locate_page(o) is None],
        files=[(o, n) for o, n in derived.files if o not in known_files],
        deleted=[d for d in derived.deleted if table.locate_page(d) is None],
        prefixes=[(o, n) for o, n in derived.prefixes if o not in known_folders],
    )
    dropped = sum(
        len(getattr(derived, name)) - len(getattr(kept, name))
        for name in ("pages", "files", "deleted", "prefixes")
    )
    return kept, dropped


def docs_changes(
    srcdir: Path, since: str | None, similarity: int, exclude_patterns: Iterable[str] = ()
) -> tuple[str, Changes]:
    """The changes under the docs folder, with its path in the repository (``"docs/"``)."""
    root = top_level(srcdir).resolve()
    folder = srcdir.resolve().relative_to(root).as_posix()
    prefix = "" if folder == "." else folder + "/"
    return prefix, changes_since(root, prefix.rstrip("/"), since, similarity, exclude_patterns)


def unpaired(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...]
) -> list[tuple[str, str]]:
    """Pages deleted and pages added with the same name in another folder (or another
    source suffix): ``(old, new)`` docnames git did not pair because their texts differ
    too much (a page edited as it moved, such as by ``rewrite``), candidates for an entry."""
    def pages(paths: Iterable[str]) -> list[str]:
        found = []
        for path in paths:
            if path.startswith(docs_prefix):
                docname, is_page = strip_source_suffix(path[len(docs_prefix):], suffixes)
                if is_page:
                    found.append(docname)
        return found

    added: dict[str, list[str]] = {}
    for docname in pages(changes.added):
        added.setdefault(posixpath.basename(docname), []).append(docname)
    return sorted(
        (old, new)
        for old in pages(changes.deleted)
        for new in added.get(posixpath.basename(old), ())
        if new != old
    )


def unredirected(
    changes: Changes, docs_prefix: str, suffixes: tuple[str, ...], table: RelocationTable
) -> list[tuple[str, str]]:
    """Pages renamed or deleted that no entry moves: ``(old, new)``, ``new`` empty if deleted.

    rediraffe's ``rediraffecheckdiff``, by the entries ``from-git`` would derive: a page
    counts as covered when the table locates it (``[pages]``, ``[prefixes]``, the map).
    Folders are not folded, so each page of a moved folder is checked on its own.
    """
    missing, _ = without_known(_entries(changes, docs_prefix, suffixes), table)
    return sorted([*missing.pages, *((page, "") for page in missing.deleted)])


def unredirected_message(old: str, new: str, since: str | None) -> str:
    """The line the command and the build give for a page that lost its URL silently."""
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


def deleted_line(docname: str) -> str:
    """The commented entry that asks for a deleted page's target."""
    return f'# {toml_string(docname)} = ""  # deleted: needs a target'


def _section_lines(derived: Derived) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    if derived.pages or derived.deleted:
        lines = [f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.pages]
        if derived.deleted:
            lines += [*DELETED_NOTE.splitlines(), *map(deleted_line, derived.deleted)]
        sections["pages"] = lines
    if derived.prefixes:
        sections["prefixes"] = [
            f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.prefixes
        ]
    if derived.files:
        sections["files"] = [f"{toml_string(o)} = {toml_string(n)}" for o, n in derived.files]
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
    note = DELETED_NOTE.splitlines()
    sections: dict[str, list[str]] = {}
    for name, new_lines in _section_lines(derived).items():
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


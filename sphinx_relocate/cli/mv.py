"""``sphinx-relocate mv``: move a page, a folder or a file, and everything that points
to it, in one step.

What ``git mv``, ``from-git --write`` and ``rewrite --write`` do in a reorganization,
for one move, planned whole before anything changes:

* OLD and NEW are checked (OLD a document, file or folder of the project, NEW free,
  both inside the docs folder); each problem is one line, and nothing is changed;
* the table file gets what ``from-git --write`` would write for the move, and each
  entry that pointed at what moved points where it is now (:func:`~sphinx_relocate.
  core.git.retarget`), so chains stay one step;
* the references the move affects are rewritten by the rule of ``rewrite`` (a table of
  only the entries this move wrote or changed), with the moved files read where they
  still are: a moved page's own relative links are read from the folder they were
  written in;
* then the sources move (``git mv`` for what git tracks, a plain move otherwise), the
  table and the sources are written and the message catalogs follow their pages.

``--dry-run`` prints that plan (the moves, and the table and source changes as a
patch) and changes nothing.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sphinx_relocate.cli.output import UsageError, display_path, finding, stop
from sphinx_relocate.cli.project import (
    DocsProject,
    read_project,
    table_or_exit,
    table_path,
    write_merged,
)
from sphinx_relocate.cli.rewrite import (
    docs_prefix,
    make_rewriter,
    move_catalogs,
    print_patch,
    read_only_message,
    repo_root,
    say_findings,
    say_rewritten,
)
from sphinx_relocate.core.git import Derived, FolderMove
from sphinx_relocate.core.paths import strip_source_suffix
from sphinx_relocate.core.rewrite import FileChange, SourceFile
from sphinx_relocate.core.spans import MARKDOWN_SUFFIXES, NOTEBOOK_SUFFIX, REST_SUFFIXES
from sphinx_relocate.core.table import Location, RelocationTable, load_table


@dataclass(frozen=True)
class Move:
    """One move, by paths relative to the docs folder."""

    #: what the user named, as a path: a page's source, a folder or a file
    old: str
    new: str
    #: ``"page"``, ``"folder"`` or ``"file"``
    kind: str
    #: every file that moves, ``(old, new)``
    files: tuple[tuple[str, str], ...]
    suffixes: tuple[str, ...]

    def path_after(self, path: str) -> str | None:
        """Where a file or folder path is after the move (``None``: it does not move)."""
        if path == self.old:
            return self.new
        if self.kind == "folder" and path.startswith(self.old + "/"):
            return self.new + path[len(self.old) :]
        return None

    def target_after(self, section: str, target: str) -> str | None:
        """A table entry's target written as where it is after the move, if it moved:
        a page by its docname (the suffix and anchor as written), a folder, a file."""
        if "://" in target or section not in ("pages", "anchors", "prefixes", "files"):
            return None
        path, sep, anchor = target.partition("#")
        if section in ("pages", "anchors") and self.kind != "file":
            docname, _ = strip_source_suffix(path, self.suffixes)
            old_doc = strip_source_suffix(self.old, self.suffixes)[0]
            new_doc = strip_source_suffix(self.new, self.suffixes)[0]
            if self.kind == "page" and docname == old_doc:
                return new_doc + path[len(docname) :] + sep + anchor
        if section == "files" and self.kind == "page":
            return None
        new = self.path_after(path.rstrip("/"))
        if new is None:
            return None
        return new + ("/" if path.endswith("/") else "") + sep + anchor


@dataclass(frozen=True)
class Plan:
    """Every change of one move, computed before any is made."""

    move: Move
    #: the docs folder in the repository: ``""`` or ``"docs/"``
    prefix: str
    table_file: Path
    before: SourceFile
    after: str
    #: the entries the move adds, and those it retargets: ``(section, key, new target)``
    derived: Derived
    retargeted: list[tuple[str, str, str]]
    #: the table of only those entries: what the rewrite and the catalogs follow
    own: RelocationTable
    documents_after: set[str]
    #: the files whose links the move affects (empty with ``--keep-links``)
    changes: list[FileChange]
    scanned: int
    #: autosummary's folders of the moved pages that are on disk (the last build's
    #: pages, in no commit): they move with their page, or the next build reads both
    generated: tuple[FolderMove, ...] = ()


def command_mv(args: argparse.Namespace) -> int:
    """Move a page, folder or file; record it in the table; rewrite what points to it."""
    project = read_project(args.docs_dir)
    table = table_or_exit(project, args.table)
    project.say_read(args.table, table)
    root = repo_root(project, None)
    plan = _plan(args, project, table, root)
    problems = 0
    for change in plan.changes:
        problems += say_findings(args.format, _shown(args, root, change.path), change)
    edits = [change for change in plan.changes if change.changed]
    if args.dry_run:
        if plan.after != plan.before.text:
            shown = _relative(plan.table_file, root)
            print_patch(FileChange(shown, plan.before.text, plan.after,
                                   encoding=plan.before.encoding, bom=plan.before.bom), shown)
        for change in edits:
            print_patch(change, _shown(args, root, change.path))
    else:
        problems += _apply(args, root, plan, edits)
    move, prefix = plan.move, plan.prefix
    number = len(move.files)
    count = f" ({number} file{'s' if number != 1 else ''})" if move.kind == "folder" else ""
    print(f"{'would move' if args.dry_run else 'moved'} {prefix}{move.old} → "
          f"{prefix}{move.new}{count}", file=sys.stderr)
    for folder in plan.generated:
        print(f"{'would move' if args.dry_run else 'moved'} {folder.old} → {folder.new} "
              f"(the pages autosummary made for {folder.path}, in no commit)", file=sys.stderr)
    _say_table(args, plan)
    kinds: Counter[str] = Counter()
    for change in edits:
        kinds += change.syntaxes
    if not args.keep_links or edits:
        say_rewritten(kinds, len(edits), plan.scanned, not args.dry_run)
    _, failed = move_catalogs(
        args.format, project, plan.own, root, plan.documents_after, check=False,
        write=not args.dry_run,
    )
    return 1 if problems or failed else 0


def _plan(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, root: Path
) -> Plan:
    """Check the move and compute every change it makes, in memory."""
    from sphinx_relocate.core.git import Changes, derive, merge_into, retarget, without_known
    from sphinx_relocate.core.rewrite import candidate_files, list_repository, rewrite_files

    prefix = docs_prefix(root, project.srcdir)
    documents = project.docnames()
    table_file = Path(os.path.realpath(table_path(project, args.table)))
    settings = (Path(os.path.realpath(project.confdir / "conf.py")), table_file)
    move = _checked_move(project, root, documents, args.old, args.new, settings)
    files, _ = list_repository(root)
    listed = set(files)
    moved_files = {prefix + old: prefix + new for old, new in move.files}
    files_after = sorted(moved_files.get(path, path) for path in files)
    documents_after = {_doc_after(move, doc) for doc in documents}
    present = [path[len(prefix) :] for path in files_after if path.startswith(prefix)]
    renames = [(o, n) for o, n in moved_files.items() if o in listed]
    generated = _moved_generated(root, prefix, project.source_suffixes, renames, listed)
    derived, _ = without_known(
        derive(Changes(renames=renames, generated=generated),
               prefix, project.source_suffixes, present, _not_pages(project, move)),
        table,
    )
    before = _table_text(table_file)
    try:
        text, retargeted = retarget(before.text, move.target_after)
        after = merge_into(text, derived)
        if after.strip() == before.text.strip():  # nothing added: no table made for it
            after = before.text
    except ValueError as err:  # tomllib.TOMLDecodeError
        raise UsageError(
            f"{display_path(table_file)}: cannot merge the entries: {err}"
        ) from None
    # the table the build will read after the move: its other sources (relocate_map,
    # imported redirects left in conf.py) must still agree with the retargeted entries
    _, problems = project.load_table(table_file, table_text=after)
    fatal = [problem for problem in problems if problem.fatal]
    if fatal:
        raise UsageError(f"{fatal[0]} (after the move: nothing was changed)")
    own = _table_of(derived, retargeted, project.source_suffixes)
    changes: list[FileChange] = []
    paths: list[str] = []
    # the peer's tables a move edits with --keep-links too
    redirects = [path for path in (project.conf_file(root), project.redirects_file(root)) if path]
    if not args.keep_links or redirects:
        # with --keep-links, only the targets of a peer's redirects (conf.py's dict,
        # rediraffe's file): a table of its own, whose entries follow the move as the
        # table's do (rediraffe fails the build on a target that is no page, and the
        # build cannot resolve it for it)
        rewriter = make_rewriter(
            project, own, root, set(files_after), None, documents_after,
            moved={new: old for old, new in moved_files.items()},
            respell=_suffix_changed(move),
            syntaxes={"rediraffe_redirects", "redirects"} if args.keep_links else None,
        )
        paths = redirects if args.keep_links else candidate_files(
            files_after, prefix, project.source_suffixes, rewriter.docstrings,
            rewriter.named_files,
        )
        changes = list(rewrite_files(rewriter, root, paths, write=False, with_text=True))
    # a generated folder inside a moved folder moves with it (pydata-sphinx-theme's
    # demo/generated/, in demo/): moving it again found nothing and stopped the move
    moved_folder = f"{prefix}{move.old.rstrip('/')}/"
    on_disk = tuple(m for m in generated if (root / m.old).is_dir() and not (
        root / m.new.rstrip("/")).exists() and not m.old.startswith(moved_folder))
    return Plan(move, prefix, table_file, before, after, derived, retargeted, own,
                documents_after, changes, len(paths), on_disk)


def _moved_generated(
    root: Path, prefix: str, suffixes: tuple[str, ...], renames: list[tuple[str, str]],
    listed: set[str],
) -> list[FolderMove]:
    """The autosummary folders that move with the pages moved: their pages are made by
    every build, in no file of the repository to move (where one is, it moves itself)."""
    from sphinx_relocate.core.git import generated_folder_moves

    moves: list[FolderMove] = []
    for old, new in renames:
        if not strip_source_suffix(old[len(prefix) :], suffixes)[1]:
            continue
        try:
            text = (root / old).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        moves += generated_folder_moves(old, new, text, text)
    return [m for m in moves if not any(path.startswith(m.old) for path in listed)]


#: the suffixes of sources a Sphinx project may read: a page moved to one of these that
#: the project does not read would keep its own after it
_SOURCE_SUFFIXES = frozenset({*REST_SUFFIXES, *MARKDOWN_SUFFIXES, NOTEBOOK_SUFFIX, ".txt"})


def _checked_move(
    project: DocsProject, root: Path, documents: set[str], old_text: str, new_text: str,
    settings: tuple[Path, ...],
) -> Move:
    """The move OLD → NEW, or a usage error with one line per problem.  ``settings``
    (conf.py, the table file) stay where the build reads them."""
    srcdir = Path(os.path.abspath(project.srcdir))
    suffixes = project.source_suffixes
    errors: list[str] = []
    base = _base_of(srcdir, old_text, suffixes, errors)
    old = _inside(srcdir, root, base, old_text, errors)
    new = _inside(srcdir, root, base, new_text, errors)
    if old is None or new is None:
        stop(errors)
        raise AssertionError  # pragma: no cover - stop raised
    kind = ""
    full = srcdir / old
    docname, is_page = strip_source_suffix(old, suffixes)
    if full.is_dir() and old in documents and not old_text.endswith("/"):
        errors.append(f"{old_text}: names the folder {old}/ and the page {old}; write "
                      f"{old}/ for the folder, the page's source file for the page")
        stop(errors)
    if full.is_dir():
        kind = "folder" if not _output_or_hidden(srcdir, old) else ""
    elif full.is_file() and is_page and docname in documents:
        kind = "page"
    elif full.is_file() and Path(os.path.realpath(full)) in settings:
        errors.append(f"{old_text}: conf.py and the relocation table stay where the "
                      "build reads them")
        stop(errors)
    elif full.is_file():  # an include fragment in an excluded folder is a file too
        kind = "file" if not _output_or_hidden(srcdir, old) else ""
    else:
        found = [old + s for s in suffixes if (srcdir / (old + s)).is_file()]
        if old in documents and len(found) == 1:
            kind, old = "page", found[0]
    if not kind:
        errors.append(f"{old_text}: not a document, file or folder of the project "
                      f"{display_path(project.srcdir)}")
    elif kind == "page":
        suffix = old[len(docname) :]
        new_doc, new_is_page = strip_source_suffix(new, suffixes)
        written_suffix = posixpath.splitext(new)[1].lower()
        if new_is_page:  # another source suffix of the project: the page's parser with it
            suffix = new[len(new_doc) :]
        elif written_suffix in _SOURCE_SUFFIXES:
            # setuptools' guide.txt → guide.rst where source_suffix is ".txt" only: the
            # page would be guide.rst.txt
            errors.append(f"{new_text}: {written_suffix} is no source suffix of this project "
                          f"({', '.join(suffixes)}): the page would be {new + suffix}")
        new = new_doc + suffix
        if new == old:
            errors.append(f"{new_text}: is where the page is")
        elif any((srcdir / (new_doc + s)).exists() and new_doc + s != old for s in suffixes):
            errors.append(f"{new_text}: exists already (the page {new_doc})")
    elif kind == "folder" and (new == old or new.startswith(old + "/")):
        errors.append(f"{new_text}: inside the folder it would move ({old_text})")
    if kind and kind != "page" and (srcdir / new).exists():
        errors.append(f"{new_text}: exists already")
    stop(errors)
    if kind == "folder":
        moved = tuple(
            (rel, new + rel[len(old) :])
            for rel in sorted(
                (Path(folder, name).relative_to(srcdir)).as_posix()
                for folder, _, names in os.walk(srcdir / old)
                for name in names
            )
        )
    else:
        moved = ((old, new),)
    return Move(old, new, kind, moved, suffixes)


def _base_of(
    srcdir: Path, old_text: str, suffixes: tuple[str, ...], errors: list[str]
) -> Path:
    """The folder OLD and NEW are read from: the docs folder, or the current folder when
    OLD names something from there (a path the shell completed); from both, two
    different things, it is an error: never a guess."""
    def names_something(base: Path) -> bool:
        path = base / old_text
        return path.exists() or any(Path(f"{path}{s}").is_file() for s in suffixes)

    cwd = Path(os.path.abspath(Path.cwd()))
    same = os.path.normpath(srcdir / old_text) == os.path.normpath(cwd / old_text)
    if same or not names_something(cwd):
        return srcdir
    if names_something(srcdir):
        errors.append(
            f"{old_text}: names {display_path(srcdir / old_text)} in the docs folder and "
            f"{display_path(cwd / old_text)} from the current folder; give its absolute path"
        )
    return cwd


def _inside(srcdir: Path, root: Path, base: Path, text: str, errors: list[str]) -> str | None:
    """``text`` as a path relative to the docs folder, or ``None`` with the error said."""
    full = Path(os.path.normpath(base / text))
    if not full.is_relative_to(root):
        errors.append(f"{text}: outside the repository {display_path(root)}")
        return None
    if not full.is_relative_to(srcdir) or full == srcdir:
        errors.append(f"{text}: outside the docs folder {display_path(srcdir)} (the table "
                      "moves paths inside it)")
        return None
    return full.relative_to(srcdir).as_posix()


def _output_or_hidden(srcdir: Path, path: str) -> bool:
    """Whether ``path`` is build output (under ``_build``, or a folder Sphinx wrote) or
    hidden: none of the project's to move, while an excluded include fragment is."""
    from sphinx_relocate.core.git import BUILD_MARKS

    parts = path.split("/")
    return any(part == "_build" or part.startswith(".") for part in parts) or any(
        (srcdir.joinpath(*parts[:end]) / mark).is_file()
        for end in range(len(parts)) for mark in BUILD_MARKS
    )


def _not_pages(project: DocsProject, move: Move) -> set[str]:
    """The paths of the move, before and after, that are named like a page but that
    ``exclude_patterns`` leaves out (include fragments): files to the table."""
    from sphinx_relocate.core.git import excluded_paths

    paths = {path for pair in move.files for path in pair
             if strip_source_suffix(path, move.suffixes)[1]}
    excluded = excluded_paths(paths, project.excludes())
    return {path for path in paths
            if any(path == head or path.startswith(head + "/") for head in excluded)}


def _suffix_changed(move: Move) -> frozenset[str]:
    """The pages the move gives another source suffix, by their names after it: a link
    that names one by its old source file is this move's to rewrite."""
    changed = set()
    for old, new in move.files:
        old_doc, old_is_page = strip_source_suffix(old, move.suffixes)
        new_doc, new_is_page = strip_source_suffix(new, move.suffixes)
        if old_is_page and new_is_page and old[len(old_doc) :] != new[len(new_doc) :]:
            changed.add(new_doc)
    return frozenset(changed)


def _doc_after(move: Move, docname: str) -> str:
    """A document's name after the move."""
    for old, new in move.files:
        old_doc, is_page = strip_source_suffix(old, move.suffixes)
        if is_page and old_doc == docname:
            return strip_source_suffix(new, move.suffixes)[0]
    return docname


def _table_text(path: Path) -> SourceFile:
    from sphinx_relocate.core.rewrite import read_source

    source = read_source(path) if path.exists() else None
    return source or SourceFile("", "utf-8", b"")


def _table_of(
    derived: Derived, changed: list[tuple[str, str, str]], suffixes: tuple[str, ...]
) -> RelocationTable:
    """The table of this move's entries: what it adds and what it retargets."""
    where = Location("mv", 0)
    rows = [
        *((section, old, new, where) for section, old, new in changed if old != new),
        *(("pages", old, new, where) for old, new in derived.pages),
        *(("prefixes", old, new, where) for old, new in derived.prefixes),
        *(("files", old, new, where) for old, new in derived.files),
    ]
    table, _ = load_table(None, source_suffixes=suffixes, peer_rows=rows)
    return table


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return display_path(path)


def _shown(args: argparse.Namespace, root: Path, rel: str) -> str:
    """A repository file as findings name it (from the current folder for GitHub)."""
    return rel if args.format == "text" else display_path(root / rel)


def _apply(args: argparse.Namespace, root: Path, plan: Plan, edits: list[FileChange]) -> int:
    """Move the sources, write the table and the rewritten files; return how many files
    were left read-only.  A failure midway stops with what was done said."""
    from sphinx_relocate.core.git import GitError
    from sphinx_relocate.core.rewrite import read_only, write_source

    move, prefix = plan.move, plan.prefix
    done: list[str] = []
    left = 0
    try:
        _move_source(root / prefix / move.old, root / prefix / move.new)
        done.append(f"moved {prefix}{move.old} → {prefix}{move.new}")
        _remove_emptied((root / prefix / move.old).parent, root / prefix)
        for folder in plan.generated:
            (root / folder.new).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(root / folder.old, root / folder.new)
            done.append(f"moved {folder.old} → {folder.new}")
        if plan.after != plan.before.text:
            write_merged(plan.table_file, lambda _: plan.after)
            done.append(f"wrote {display_path(plan.table_file)}")
        for change in edits:
            target = root / change.path
            if read_only(target):
                left += 1
                message = read_only_message(change)
                print(finding(args.format, _shown(args, root, change.path), 0, message),
                      file=sys.stderr)
                continue
            write_source(target, SourceFile("", change.encoding, change.bom), change.new_text)
            done.append(f"rewrote {change.path}")
    except (OSError, GitError) as err:
        what = "; ".join(done) if done else "nothing was changed"
        raise UsageError(f"cannot finish the move: {err}; done so far: {what}") from None
    return left


def _move_source(source: Path, destination: Path) -> None:
    """``git mv`` for what git tracks, a plain move otherwise; missing folders are made."""
    from sphinx_relocate.core.git import GitError, git

    destination.parent.mkdir(parents=True, exist_ok=True)
    try:
        git(["ls-files", "--error-unmatch", "--", source.name], source.parent)
    except GitError:  # untracked, or not a git work tree
        shutil.move(source, destination)
        return
    git(["mv", "--", str(source), str(destination)], source.parent)


def _remove_emptied(folder: Path, docs: Path) -> None:
    """Remove the folders the move left empty, up to the docs folder (``git mv`` leaves
    them, and a folder that held the moved pages only is no part of the project now)."""
    while folder != docs and docs in folder.parents:
        try:
            folder.rmdir()  # only an empty one
        except OSError:
            return
        folder = folder.parent


def _say_table(args: argparse.Namespace, plan: Plan) -> None:
    """One line: the entries the table gets and those that now point further."""
    derived = plan.derived
    entries = len(derived.pages) + len(derived.prefixes) + len(derived.files)
    said = [f"{'would add' if args.dry_run else 'added'} {entries} "
            f"entr{'ies' if entries != 1 else 'y'}"]
    if plan.retargeted:
        said.append(f"{len(plan.retargeted)} retargeted to the new place")
    if plan.after == plan.before.text:
        # a page that keeps its name (another source suffix) needs no entry
        said = ["already records the move" if entries or plan.retargeted
                else "no entry needed: every page keeps its name"]
    print(f"{display_path(plan.table_file)}: {', '.join(said)}", file=sys.stderr)

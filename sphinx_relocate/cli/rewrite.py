"""``sphinx-relocate rewrite``: links written against old paths rewritten in the
sources (a diff, ``--check`` or ``--write``), and the message catalogs of moved pages moved."""

from __future__ import annotations

import argparse
import posixpath
import sys
from collections import Counter
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_relocate.cli.output import UsageError, display_path, finding
from sphinx_relocate.cli.project import DocsProject, read_project, table_or_exit
from sphinx_relocate.core.table import RelocationTable

if TYPE_CHECKING:
    from sphinx_relocate.core.rewrite import FileChange, Rewriter


#: Trees with at least this many candidate files get a progress line on stderr.
PROGRESS_THRESHOLD = 2000


def command_rewrite(args: argparse.Namespace) -> int:
    """Rewrite link targets in the sources (a diff by default, ``--check``, ``--write``)."""
    from sphinx_relocate.core.rewrite import candidate_files, list_repository, rewrite_files

    project = read_project(args.docs_dir)
    table = table_or_exit(project, args.table)
    project.say_read(args.table, table).require(table, "nothing to rewrite")
    root = repo_root(project, args.repo_root)
    files, folders = list_repository(root)
    documents = project.docnames()
    rewriter = make_rewriter(
        project, table, root, set(files), folders, documents,
        repo_url=args.repo_url, mentions=args.mentions,
    )
    paths = candidate_files(
        files, rewriter.docs_prefix, project.source_suffixes,
        args.mentions or rewriter.docstrings, rewriter.named_files,
    )
    changed = problems = 0
    kinds: Counter[str] = Counter()
    changes = rewrite_files(
        rewriter,
        root,
        paths,
        _progress(len(paths)),
        write=args.write,
        with_text=not (args.write or args.check),
    )
    for change in changes:
        if change.error is not None:
            changes.close()  # files not started yet are left as they are
            raise UsageError(f"{change.path}: cannot write: {change.error}")
        # annotations name files from the current folder, as GitHub reads them
        shown = change.path if args.format == "text" else display_path(root / change.path)
        problems += say_findings(args.format, shown, change)
        if change.read_only:
            problems += 1
            print(finding(args.format, shown, 0, read_only_message(change)), file=sys.stderr)
            continue
        if not change.changed:
            continue
        changed += 1
        kinds += change.syntaxes
        if args.check:  # one line per link, where its target is written
            for link in change.links:
                message = f"{link.written} → {link.new}"
                print(finding(args.format, shown, link.line, message, link.column))
        elif not args.write:
            print_patch(change, shown)
    say_rewritten(kinds, changed, len(paths), args.write)
    moved, failed = move_catalogs(
        args.format, project, table, root, documents, check=args.check, write=args.write
    )
    if args.check and (changed or moved):
        return 1
    return 1 if problems or failed else 0


def make_rewriter(
    project: DocsProject,
    table: RelocationTable,
    root: Path,
    files: set[str],
    folders: set[str] | None,
    documents: set[str],
    *,
    repo_url: str | None = None,
    mentions: bool = False,
    moved: dict[str, str] | None = None,
    respell: bool | frozenset[str] = True,
    syntaxes: Collection[str] | None = None,
) -> Rewriter:
    """The rewriter of the docs folder's repository (``files``, ``folders`` and
    ``documents``: the tree the links are to land in, the folders of ``files`` when
    ``None``); ``repo_url`` defaults to the settings' (``Settings.repo_url``); ``respell`` and
    ``syntaxes``: ``Rewriter.respell`` and ``Rewriter.syntaxes``."""
    from sphinx_relocate.cli.docutils_parser import DocutilsParser
    from sphinx_relocate.core.rewrite import Rewriter, project_labels
    from sphinx_relocate.sphinx_ext.queries import base_url

    prefix = docs_prefix(root, project.srcdir)
    made = project.gallery_pages()[1]  # labels no source writes
    labels = (
        project_labels(root, prefix, files, project.source_suffixes) | made
        if table.labels and made else None
    )
    return Rewriter(
        table,
        parser=DocutilsParser(),
        docs_prefix=prefix,
        source_suffixes=project.source_suffixes,
        files=files,
        folders=folders,
        documents=documents,
        repo_url=repo_url or project.settings.repo_url,
        mentions=mentions,
        headings=project.settings.headings,
        root=root,
        moved=moved,
        labels_by_document=project.settings.labels_by_document,
        site_map=project.site_map(root),
        respell=respell,
        labels=labels,
        scripts=project.gallery_scripts(root),
        templates=project.template_files(root),
        conf=project.conf_file(root),
        site_url=base_url(project.settings.values),
        docstrings=project.renders_docstrings(),
        extra_html=project.extra_html(root),
        generated=project.generated_pages(),
        default_role=str(project.settings.values.get("default_role") or ""),
        syntaxes=syntaxes,
        redirects_file=project.redirects_file(root),
    )


def say_findings(style: str, shown: str, change: FileChange) -> int:
    """Say what a file's rewrite left as written and why, one finding each; return how
    many."""
    found: list[tuple[int, str, int]] = []  # (line, message, column)
    if change.refused is not None:
        found.append(
            (0, f"left as it is: rewriting it would add a parse error ({change.refused})", 0)
        )
    found += [
        (0, f"{written!r} is ambiguous: it lands on two targets, from the page's folder and "
            "from a folder it stood in, and nothing decides which is meant; left as written: "
            "write the one you mean as a path from the top of the docs (`/…`) "
            "[relocate.ambiguous]", 0)
        for written in change.ambiguous
    ]
    found += [
        (0, f"{written!r} names a renamed label and a document too; left as written: write "
            "the new label, or the document [relocate.label]", 0)
        for written in change.ambiguous_labels
    ]
    found += [
        (entry.line, f"{entry.written!r} names a label too, which MyST takes, and the page "
                     f"{entry.new} read against the old paths; left as written: write "
                     f"[](#{entry.written}) for the label, or the page's path "
                     "[relocate.ambiguous]", entry.column)
        for entry in change.named
    ]
    found += [(entry.line, _unwritable(change.path, entry.written, entry.new), entry.column)
              for entry in change.unwritable]
    found += [
        (entry.line, f"{entry.written!r} in a docstring is read from the folder of the "
                     "page that documents it, which the sources do not say; read from the "
                     f"top of the docs it goes to {entry.new} now: left as written; write "
                     "it from the top of the docs (`/…`) [relocate.link]", entry.column)
        for entry in change.documented
    ]
    found += [
        (entry.line, f"toctree entry {entry.written!r} goes to {entry.new} now, and the old "
                     "page's title is not known: left as written; write the title: "
                     f"'Title <{entry.new}>' [relocate.toctree]", entry.column)
        for entry in change.untitled
    ]
    for line, message, column in found:
        print(finding(style, shown, line, message, column), file=sys.stderr)
    return len(found)


def _unwritable(path: str, written: str, new: str) -> str:
    """Why a target of a file that names pages only (a template, conf.py, a site map)
    was left as written."""
    if path.endswith((".html", ".htm")):
        return (f"{written!r} goes to {new} now, which a template's pathto() and hasdoc() "
                "cannot name (they take a page's name only): left as written; write it in "
                "the template [relocate.link]")
    if path.endswith(".py") and posixpath.basename(path) != "conf.py":
        return (f"{written!r} in a docstring goes to {new} now, which would end the "
                "string or change it: left as written; write it in the docstring "
                "[relocate.link]")
    if path.endswith(".py"):
        return (f"sidebar key {written!r} matches no page: the table moved what it "
                f"named ({new}); left as written: write a key for the new names "
                "[relocate.sidebar]")
    return (f"site map entry {written!r} goes to {new} now, which a 'file:' entry cannot "
            f"name: left as written; write it as 'url: {new}' with a 'title:' "
            "[relocate.toctree]")


def read_only_message(change: FileChange) -> str:
    """The finding for a file left as it is because it is read-only."""
    count = sum(change.syntaxes.values())
    return (
        f"left as it is: read-only ({count} link{'s' if count > 1 else ''} to "
        "rewrite); make it writable to rewrite it"
    )


def _scanned(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''} scanned"


def say_rewritten(kinds: Counter[str], changed: int, scanned: int, write: bool) -> None:
    """The one summary line on stderr: how many links in how many files, of each kind."""
    if not changed:
        print(f"nothing to rewrite ({_scanned(scanned)})", file=sys.stderr)
        return
    links = sum(kinds.values())
    verb = "rewrote" if write else "would rewrite"
    print(
        f"{verb} {links} link{'s' if links > 1 else ''} in {changed} "
        f"file{'s' if changed > 1 else ''} ({_kinds(kinds)}); {_scanned(scanned)}",
        file=sys.stderr,
    )


def repo_root(project: DocsProject, option: Path | None) -> Path:
    """``--repo-root``, else ``relocate_repo_root``, else the git top level, else the docs."""
    setting = project.settings.get("relocate_repo_root")
    if option is not None:
        root = option
    elif setting:
        root = project.confdir / setting
    else:
        root = next(
            (
                p
                for p in (project.confdir.resolve(), *project.confdir.resolve().parents)
                if (p / ".git").exists()
            ),
            project.confdir,
        )
    if not root.is_dir():
        raise UsageError(f"{root}: the repository root is not a folder")
    return root.resolve()


def docs_prefix(root: Path, srcdir: Path) -> str:
    """The docs folder relative to the repository root: ``""`` or ``"docs/zh/"``."""
    try:
        rel = srcdir.resolve().relative_to(root).as_posix()
    except ValueError:
        raise UsageError(
            f"{srcdir}: the docs folder is not inside the repository root {root}"
        ) from None
    return "" if rel == "." else rel + "/"


def _progress(total: int) -> Callable[[int, int], None] | None:
    """A progress line on stderr for large trees or a terminal."""
    if total < PROGRESS_THRESHOLD and not sys.stderr.isatty():
        return None

    shown = [0]

    def show(done: int, total: int) -> None:
        if done // 500 > shown[0] // 500 or done == total:
            shown[0] = done
            end = "\n" if done == total else ""
            print(f"\rrewrite: {done}/{total} files", end=end, file=sys.stderr, flush=True)

    return show


def _kinds(kinds: Counter[str]) -> str:
    return ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))


def print_patch(change: FileChange, shown: str) -> None:
    """The file's patch on stdout, in its own bytes; a file no text patch can show is
    named on stderr, never left out silently."""
    from sphinx_relocate.core.rewrite import patch_of

    patch = patch_of(change)
    if patch is None:
        print(
            f"{shown}: not in the diff: a {change.encoding.upper()} file cannot be shown as "
            "a text patch; --check lists its links, --write rewrites it",
            file=sys.stderr,
        )
        return
    out = getattr(sys.stdout, "buffer", None)
    if out is None:
        sys.stdout.write(patch.decode("utf-8", "surrogateescape"))
        return
    sys.stdout.flush()
    out.write(patch)
    out.flush()


def move_catalogs(
    style: str,
    project: DocsProject,
    table: RelocationTable,
    root: Path,
    documents: set[str],
    *,
    check: bool,
    write: bool,
) -> tuple[int, int]:
    """Move the message catalogs of moved pages that are still at an old name, in every
    language of ``locale_dirs`` (``git mv`` for tracked files); return how many were (or
    would be) moved and how many moves failed.  A per-folder catalog that cannot move as
    a whole is named and left: the build keeps serving it."""
    from sphinx_relocate.core.catalogs import move_catalog, plan_moves
    from sphinx_relocate.core.git import GitError, git

    settings = project.settings
    moves, kept = plan_moves(
        project.srcdir.resolve(),
        settings.get("locale_dirs") or ["locales"],
        settings.get("gettext_compact", True),
        table,
        documents,
    )

    def shown(path: Path) -> str:
        if style != "text":
            return display_path(path)
        try:
            return path.resolve().relative_to(root).as_posix()
        except ValueError:
            return str(path)

    def tracked(path: Path) -> bool:
        try:
            git(["ls-files", "--error-unmatch", "--", path.name], path.parent)
        except GitError:
            return False
        return True

    def git_mv(source: Path, destination: Path) -> None:
        try:
            git(["mv", "--", str(source), str(destination)], source.parent)
        except GitError as err:
            raise OSError(str(err)) from None

    for path, why in kept:
        message = f"catalog of moved pages at an old name, not moved: it {why}"
        print(finding(style, shown(path), 0, message), file=sys.stderr)
    done = failed = 0
    for move in moves:
        pages = ", ".join(repr(page) for page in move.pages)
        for source, destination in move.files():
            if check:
                message = f"catalog of {pages} at an old name; move it to {shown(destination)}"
                print(finding(style, shown(source), 0, message))
            elif not write:
                print(f"would move {shown(source)} → {shown(destination)}", file=sys.stderr)
        if write:
            names = [(shown(s), shown(d)) for s, d in move.files()]
            error = move_catalog(move, tracked, git_mv, shown)
            if error is not None:
                failed += 1
                print(finding(style, names[0][0], 0, f"not moved: {error}"),
                      file=sys.stderr)
                continue
            for source_name, destination_name in names:
                print(f"moved {source_name} → {destination_name}", file=sys.stderr)
        done += 1
    return done, failed


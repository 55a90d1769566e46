"""``sphinx-relocate from-git``: table entries derived from git renames and renamed
headings, printed or merged into the table; ``--check`` lists those without an entry."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_relocate.cli.output import UsageError, display_path, finding
from sphinx_relocate.cli.project import (
    DocsProject,
    read_project,
    section_ids,
    table_or_exit,
    table_path,
    write_merged,
)
from sphinx_relocate.core.table import RelocationTable

if TYPE_CHECKING:
    from sphinx_relocate.core.git import Changes


def command_from_git(args: argparse.Namespace) -> int:
    """Derive table entries from git renames; print them or merge them into the table."""
    from sphinx_relocate.core.git import (
        GitError,
        became_of,
        derive,
        docs_changes,
        merge_into,
        merged_into,
        render,
        without_known,
    )
    from sphinx_relocate.core.rewrite import walk_repository

    project = read_project(args.docs_dir)
    table = table_or_exit(project, args.table)
    project.say_read(args.table, table)
    try:
        assets = project.asset_folders()
        prefix, changes = docs_changes(
            project.srcdir, args.since, args.similarity,
            [pattern for pattern in project.excludes() if pattern not in assets],
            project.source_suffixes,
            project.settings.headings,
            project.gallery_conf(),
            project.autoapi(),
            assets,
            table,
            project.writes_autosummary_pages(),
        )
    except GitError as err:
        raise UsageError(str(err)) from None
    served = project.peer_redirects()
    _say_unpaired(args, project, table, prefix, changes, served)
    if args.check:
        return _check_unredirected(args, project, table, prefix, changes, served)
    present, _ = walk_repository(project.srcdir)
    found = derive(changes, prefix, project.source_suffixes, present)
    ids = section_ids(project)  # each page's ids read once, for both questions
    derived, known = without_known(found, table, ids, served)
    by_peers = known - without_known(found, table, ids)[1] if served else 0
    for docname in derived.deleted:
        became = became_of(derived, docname)
        change = f"page renamed to {became}" if became else "page deleted without a rename"
        if not became and (merged := merged_into(derived, docname)):
            change += f", its sections went to {merged}"
        print(
            f"{prefix}{docname}: {change}; give it a target in [pages] "
            "(a page or a URL), or confirm it is meant to go",
            file=sys.stderr,
        )
    for section in derived.removed:
        print(
            f"{prefix}{section}: section removed; give it a target in [anchors] (the "
            "section that holds its text now), or confirm it is meant to go",
            file=sys.stderr,
        )
    entries = (
        len(derived.pages) + len(derived.files) + len(derived.prefixes) + len(derived.anchors)
        + len(derived.labels)
    )
    notes = [f"{known - by_peers} already in the table"] if known > by_peers else []
    notes += [note] if (note := _served_by_peers(project, args, by_peers)) else []
    already = f" ({'; '.join(notes)})" if notes else ""
    if not args.write:
        sys.stdout.write(render(derived))
        print(f"{entries} entr{'ies' if entries != 1 else 'y'} derived{already}", file=sys.stderr)
        return 0
    path = table_path(project, args.table)
    write_merged(path, lambda text: merge_into(text, derived))
    print(
        f"{display_path(path)}: added {entries} entr{'ies' if entries != 1 else 'y'}{already}",
        file=sys.stderr,
    )
    return 0


def _say_unpaired(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, prefix: str,
    changes: Changes, served: RelocationTable,
) -> None:
    """Name the deleted and added pages of the same name that git did not pair: a page
    rewritten as it moved is under git's similarity threshold and looks deleted."""
    from sphinx_relocate.core.git import unpaired

    for old, new in unpaired(changes, prefix, project.source_suffixes):
        if table.locate_page(old) is not None or served.locate_page(old) is not None:
            continue
        print(
            f"{prefix}{old}: deleted, and {prefix}{new} added: git did not pair them (less "
            f"than {args.similarity}% alike); if the page moved, its entry is "
            f'"{old}" = "{new}"',
            file=sys.stderr,
        )


def _check_unredirected(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, prefix: str,
    changes: Changes, served: RelocationTable,
) -> int:
    """``from-git --check``: exit 1 listing each renamed or deleted page with no entry."""
    from sphinx_relocate.core.git import (
        folder_maker,
        unredirected,
        unredirected_message,
        written_at,
    )
    from sphinx_relocate.sphinx_ext.config import findings_file

    setting = project.settings.table
    shown = display_path(args.table or findings_file(project.confdir, setting))
    ids = section_ids(project)  # each page's ids read once, for both questions
    missing = unredirected(changes, prefix, project.source_suffixes, table, ids, served)
    for old, new in missing:
        place, line = shown, 0
        written = written_at(changes, prefix, old)
        if written is not None:  # a renamed heading, a moved folder: at its line in the page
            place, line = display_path(Path(written.file)), written.line
        message = unredirected_message(old, new, args.since, folder_maker(changes, prefix, old))
        print(finding(args.format, place, line, message))
    since = args.since or "HEAD"
    if missing:
        try:  # where --write would make the table; with sphinx-multiproject, maybe nowhere
            path = table_path(project, args.table) if setting or args.table else None
        except UsageError:
            path = None
        made = "" if path is None or path.exists() else (
            f"; no table yet (findings are at {shown}): `--write` makes {display_path(path)}")
        print(f"{_pages_and_headings(missing)} renamed or deleted since {since} "
              f"without an entry{made}", file=sys.stderr)
        return 1
    every = unredirected(changes, prefix, project.source_suffixes, RelocationTable())
    folder = display_path(project.srcdir)
    if not every:
        print(f"no page renamed or deleted since {since} in {folder}", file=sys.stderr)
        return 0
    what = "page and heading" if changes.sections else "page"
    by_peers = len(
        unredirected(changes, prefix, project.source_suffixes, table, ids)
    ) if served else 0
    served_note = _served_by_peers(project, args, by_peers)
    print(f"every {what} renamed or deleted since {since} has an entry "
          f"({_pages_and_headings(every)} in {folder}"
          f"{'; ' + served_note if served_note else ''})", file=sys.stderr)
    return 0


def _served_by_peers(project: DocsProject, args: argparse.Namespace, count: int) -> str:
    """``2 served by sphinxext.rediraffe's redirects (rediraffe_redirects), which conf.py
    loads`` (``""`` for none): what the counts owe to a peer's table, not to this one."""
    if not count:
        return ""
    from sphinx_relocate.core.peers import PEERS

    names = project.table_sources(args.table).peers_loaded
    whose = " and ".join(f"{PEERS[name][1]}'s redirects ({name})" for name in names)
    return f"{count} served by {whose}, which conf.py loads"


def _pages_and_headings(found: list[tuple[str, str]]) -> str:
    """``2 pages and 1 heading``: headings are the ``page#id`` among ``found``, folders
    (of generated pages: autosummary's, sphinx-autoapi's) end with ``/``."""
    headings = sum("#" in old for old, _ in found)
    folders = sum(old.endswith("/") for old, _ in found)
    counts = [(len(found) - headings - folders, "page"), (headings, "heading"),
              (folders, "generated folder")]
    return " and ".join(f"{n} {word}{'s' if n > 1 else ''}" for n, word in counts if n)


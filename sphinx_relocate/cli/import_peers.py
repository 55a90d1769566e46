"""``sphinx-relocate import``: the peers' redirect tables (sphinx-reredirects,
sphinxext-rediraffe, and old names declared in the pages) as relocation table entries."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from sphinx_relocate.cli.output import display_path, stop
from sphinx_relocate.cli.project import read_project, table_path, write_merged

if TYPE_CHECKING:
    from sphinx_relocate.core.peers import Converted


def command_import(args: argparse.Namespace) -> int:
    """Print the peers' tables as ``relocations.toml`` entries, or merge them into it."""
    from sphinx_relocate.core.declared import peer_declarations
    from sphinx_relocate.core.git import merge_lines
    from sphinx_relocate.core.peers import table_lines
    from sphinx_relocate.sphinx_ext.discovery import discover_files

    project = read_project(args.docs_dir)
    converted = project.peers(loaded_too=True)
    files = discover_files(project.srcdir, project.source_suffixes, project.excludes())
    in_pages = peer_declarations(project.srcdir, files, shown=display_path)
    converted.rows += in_pages.rows
    converted.written += in_pages.written
    converted.problems += in_pages.problems
    if not converted.rows and not converted.problems:
        print("nothing to import: conf.py sets neither redirects (sphinx-reredirects) nor "
              "rediraffe_redirects (sphinxext-rediraffe), and no page declares old names "
              "(redirect-from, aliases, redirect_from)", file=sys.stderr)
        return 0
    own, problems = project.load_table(args.table, peers=_no_peers())
    stop([str(p) for p in problems if p.fatal])
    imported = table_lines(converted, own, project.source_suffixes, project.docnames())
    stop(imported.conflicts)
    whole, problems = project.load_table(args.table, peers=converted)
    stop([str(p) for p in problems if p.fatal])
    for note in whole.notes:
        print(f"note: {note}", file=sys.stderr)
    added = f"{imported.added} entr{'ies' if imported.added != 1 else 'y'}"
    known = f" ({imported.known} already in the table)" if imported.known else ""
    if not args.write:
        sys.stdout.write(imported.text())
        print(f"{added} imported{known}", file=sys.stderr)
        return 0
    path = table_path(project, args.table)
    write_merged(path, lambda text: merge_lines(text, imported.sections))
    names = " and ".join(name for name in ("redirects", "rediraffe_redirects")
                         if name in project.settings.values)
    gone = [f"{names} can go from conf.py"] if names else []
    if in_pages.rows:
        gone.append("the pages' redirect-from directives, aliases and redirect_from keys "
                    "can go")
    print(f"{display_path(path)}: added {added}{known}; {' and '.join(gone)} now", file=sys.stderr)
    return 0


def _no_peers() -> Converted:
    from sphinx_relocate.core.peers import Converted

    return Converted()


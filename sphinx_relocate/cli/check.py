"""``sphinx-relocate check``: the table against the docs folder's files, labels and the
published inventory, without building."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sphinx_relocate.cli.output import UsageError, display_path, finding
from sphinx_relocate.cli.project import DocsProject, read_project, section_ids
from sphinx_relocate.core.table import (
    Location,
    Problem,
    RelocationTable,
    check_against_project,
    check_labels,
)


def command_check(args: argparse.Namespace) -> int:
    """Validate the table against the docs folder without building."""
    project = read_project(args.docs_dir)
    table, problems = project.load_table(args.table)
    sources = project.table_sources(args.table)
    sources.require(None, "nothing to check")
    if not problems:
        sources.require(table, "nothing to check")
    if not any(p.fatal for p in problems):
        srcdir = project.srcdir
        documents = project.docnames()
        problems += check_against_project(
            table, documents, lambda p: (srcdir / p).exists(), project.source_suffixes,
            generated=project.generated_folders(),
        )
        if table.labels:  # against the labels the sources write
            labels, complete = project.labels()
            problems += check_labels(table, labels, targets=complete)
        problems += _published_problems(args, project, table, documents)
    for note in [p for p in problems if p.subtype == "note"]:
        print(f"note: {note}", file=sys.stderr)
    problems = [p for p in problems if p.subtype != "note"]
    for problem in problems:
        print(finding(args.format, problem.location.file, problem.location.line, problem.message))
    if problems:
        count = len(problems)
        print(f"{count} problem{'s' if count > 1 else ''} found in {sources.read(table)}",
              file=sys.stderr)
        return 1
    print(f"relocation table OK: {sources.read(table)}", file=sys.stderr)
    return 0


def _published_problems(
    args: argparse.Namespace, project: DocsProject, table: RelocationTable, documents: set[str]
) -> list[Problem]:
    """The build's published check (``--published``, else ``relocate_published``) on the
    sources: the documents Sphinx would find, the labels written in the sources, the
    files ``html_extra_path`` and ``html_static_path`` copy."""
    from sphinx_relocate.core.exports import moved_folders
    from sphinx_relocate.core.history import output_files, read_history, unserved
    from sphinx_relocate.core.inventory import InventoryError
    from sphinx_relocate.core.published import followed_ids, generated_labels, unredirected
    from sphinx_relocate.sphinx_ext.config import entries_location, setting_location
    from sphinx_relocate.sphinx_ext.published import fetch_url
    from sphinx_relocate.sphinx_ext.queries import base_url

    setting = args.published or project.settings.get("relocate_published")
    if not setting:
        return []
    try:  # --published is relative to the current folder, relocate_published to conf.py's
        history = read_history(
            setting, Path() if args.published else project.confdir,
            fetch=fetch_url, base_url=base_url(project.settings.values),
        )
    except InventoryError as err:
        if args.published:
            raise UsageError(str(err)) from None
        where = setting_location(project.confdir, "relocate_published")
        shown = display_path(Path(where.file))
        raise UsageError(
            f"{shown}:{where.line}: relocate_published = {setting!r}: {err}"
        ) from None
    print(f"note: {history.summary()}", file=sys.stderr)
    labels: set[str] | None = None
    if "sphinx.ext.autosectionlabel" in (project.settings.get("extensions") or ()):
        print("note: the published labels are not checked: sphinx.ext.autosectionlabel "
              "makes labels that only a build knows", file=sys.stderr)
    else:
        labels = project.labels()[0].union(*map(generated_labels, history.inventories))
    ids = section_ids(project)
    # the build's stubs send a label of a gone page to where it is now; the sources say
    # which labels are still there, not where (one stand-in place each)
    written = labels or set()
    followed = followed_ids(
        history.inventories, documents,
        lambda role, name: ("", name) if role == "std:label" and name in written else None,
    )
    found = [
        finding
        for published in history.inventories
        for finding in unredirected(published, documents, labels, table, ids,
                                    labels_from_sources=True, followed=followed)
    ]
    if history.urls:
        settings = project.settings
        exports = project.settings.exports
        in_use = {doc + ".html" for doc in documents}
        is_file = output_files(project.confdir, settings.get("html_extra_path") or (),
                               settings.get("html_static_path") or ())
        found += unserved(history, documents, table, is_file=is_file,
                          folders=moved_folders(table, in_use) if exports else ())
    problems: list[Problem] = []
    said: set[str] = set()
    table_setting = project.settings.table
    for gone in found:
        if gone.message in said:  # the same name in two versions' inventories
            continue
        said.add(gone.message)
        where = entries_location(
            project.confdir, table_setting, gone.section, "relocate_published", table=args.table
        )
        location = Location(display_path(Path(where.file)), where.line)
        problems.append(Problem(location, gone.message, fatal=False, subtype="unredirected"))
    return problems

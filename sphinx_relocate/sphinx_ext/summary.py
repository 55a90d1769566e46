"""One INFO line at the end of every build: what the extension read, did and found.

A green build must say whether the extension did anything: which table it read (or
every place it looked for one), how many references the table rewrites, how many
redirect pages and server rules were written, and how many references dangle.  So a
table moved one folder up shows in the log as "no relocation table".

The counts are the project's as it stands after this build, not this build's work:
references come from the records the environment keeps for every document (so an
incremental build that reads nothing, or a ``-j`` build, counts the same), redirect
pages and exports from what this build wrote (every HTML build writes them all).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_relocate.sphinx_ext.check import label_key, settle_reference
from sphinx_relocate.sphinx_ext.record import anchors_of, references_of
from sphinx_relocate.sphinx_ext.resolve import kind_of
from sphinx_relocate.sphinx_ext.state import Sources, StubReport, state_of
from sphinx_relocate.sphinx_ext.warnings import logger

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from sphinx.application import Sphinx

    from sphinx_relocate.core.table import RelocationTable


def sources_of(
    confdir: Path,
    table: RelocationTable,
    table_setting: str | None,
    options: Mapping[str, object],
    declared: Collection[str] = (),
) -> Sources:
    """The sources of ``table``: its entries by the file they were written in.

    ``options`` are the conf.py options read as table entries (``relocate_map`` and the
    peers' this extension reads) with their values; entries located in conf.py are
    counted under the names of those set to a dict.  Entries located in one of the
    ``declared`` files (pages with ``relocated_from``) are counted together.
    """
    conf_py = str(confdir / "conf.py")
    counts = Counter(e.location.file for e in table.entries)
    pages = [file for file in counts if file in declared]
    if pages:
        counts[f"relocated_from in {len(pages)} page{'s' if len(pages) != 1 else ''}"] = sum(
            counts.pop(file) for file in pages
        )
    counts.update(p.location.file for p in table.patterns)
    in_conf = [name for name, value in options.items() if value and isinstance(value, dict)]
    read = []
    for file, count in counts.items():
        if file == conf_py:
            shown = f"{', '.join(in_conf) or 'relocate_map'} in conf.py"
        elif file.startswith("relocated_from in "):
            shown = file
        else:
            shown = _relative(file, confdir)
        read.append((shown, count))
    looked = [*([table_setting] if table_setting else []), *options]
    hint = ""
    if table_setting and not read:
        above = confdir.parent / table_setting
        if above.is_file():
            shown = _relative(str(above), confdir)
            hint = f"{shown} is not read: set relocate_table = {shown!r}"
    return Sources(sorted(read), looked, hint)


def _relative(file: str, confdir: Path) -> str:
    try:
        return Path(os.path.relpath(file, confdir)).as_posix()
    except ValueError:  # another drive
        return file


def _count(number: int, noun: str, plural: str = "") -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def summary_line(
    sources: Sources,
    rewritten: tuple[int, int],
    outputs: StubReport | None,
    dangling: tuple[int, int] | None,
) -> str:
    """The line: ``rewritten`` and ``dangling`` are (references, documents)."""
    if sources.read:
        parts = [
            ", ".join(f"{name} ({_count(n, 'entry', 'entries')})" for name, n in sources.read),
            f"{_count(rewritten[0], 'reference')} rewritten in "
            f"{_count(rewritten[1], 'document')}",
        ]
    else:
        looked = ", ".join(sources.looked) or "nothing: relocate_table = None"
        parts = [
            f"no relocation table (looked for {looked}"
            + (f"; {sources.hint}" if sources.hint else "") + ")"
        ]
    if outputs is not None and (sources.read or outputs.removed):
        pages = _count(outputs.written, "redirect page") + " written"
        parts.append(pages + (f", {outputs.removed} removed" if outputs.removed else ""))
    if outputs is not None and outputs.exports:
        parts.append("exports " + ", ".join(outputs.exports))
    if dangling is not None:
        parts.append(
            f"{_count(dangling[0], 'dangling reference')} in {_count(dangling[1], 'document')}"
            if dangling[0] else "no dangling references"
        )
    return "sphinx-relocate: " + "; ".join(parts)


def rewritten_references(app: Sphinx) -> tuple[int, int]:
    """(references, documents) the table sends elsewhere, over every document."""
    env = app.env
    report = state_of(app).report
    labels = report.labels if report is not None else {}
    anchors = anchors_of(env)
    references = references_of(env)
    total, documents = 0, 0
    for docname in references.keys() & env.all_docs:
        count = 0
        for ref in references[docname]:
            if kind_of(ref.kind).names_label:
                count += bool(labels.get(label_key(docname, ref.written, bool(ref.alternatives))))
            elif ref.rewritten:
                count += 1
            elif ref.alternatives:
                settled = settle_reference(anchors, ref)
                count += settled is not None and settled[0] != ref.target
        total += count
        documents += bool(count)
    return total, documents


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    """Log the summary line after every other handler (INFO: ``-q`` hides it)."""
    if exception is not None:
        return
    state = state_of(app)
    if state.sources is None:
        return
    line = summary_line(
        state.sources, rewritten_references(app), state.stub_report, state.dangling
    )
    logger.info(line)
    state.stub_report = state.dangling = None  # a next build of this application counts anew

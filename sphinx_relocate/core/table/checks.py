"""Checks of a table against a project: targets that are not there, old names that are.

These need the project's documents, files and labels, which loading does not know;
they are warnings, never fatal.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from sphinx_relocate.core.paths import DEFAULT_SOURCE_SUFFIXES
from sphinx_relocate.core.table.lookup import RelocationTable
from sphinx_relocate.core.table.model import Problem, Target
from sphinx_relocate.core.table.sections import SECTIONS, ProjectCheck


def check_against_project(
    table: RelocationTable,
    docnames: Iterable[str],
    file_exists: Callable[[str], bool],
    suffixes: Iterable[str] = DEFAULT_SOURCE_SUFFIXES,
    labels: Collection[str] | None = None,
    generated: Mapping[str, str] | None = None,
    left_over: Callable[[str], str] | None = None,
) -> list[Problem]:
    """Problems that need the project: targets that are not there, old names still there.

    ``docnames`` are the project's documents; ``file_exists`` answers for a
    source-relative path; ``labels`` are its labels, when known (:func:`check_labels`);
    ``generated`` the folders a build writes pages into, with what writes them, for a
    check without a build (a target there is a note, not checked); ``left_over`` says
    why an old page is still there, when it can (``ProjectCheck.left_over``).
    These are warnings (``target_missing``, ``shadowed``), not fatal: a build can go on
    and report them at the entry's line.
    """
    check = ProjectCheck(table, set(docnames), file_exists, tuple(suffixes),
                         generated=generated or {})
    if left_over is not None:
        check.left_over = left_over
    for entry in table.entries:
        section = SECTIONS[entry.section]
        if section.check is not None:
            section.check(check, entry)
    problems = check.problems
    problems += _check_patterns(table, check.documents)
    if labels is not None:
        problems += check_labels(table, labels)
    return problems


def check_labels(
    table: RelocationTable, labels: Collection[str], *, targets: bool = True
) -> list[Problem]:
    """``[labels]`` against the project's labels: an old label that is still one
    (``shadowed``), a target that is not one (``target_missing``, only with ``targets``:
    a caller that knows only some labels checks the keys alone)."""
    problems: list[Problem] = []
    for entry in table.of_section("labels"):
        if entry.old in labels:
            problems.append(Problem(
                entry.location,
                f"label {entry.old!r} still exists, so its entry is not used "
                "(delete the label or the entry)",
                fatal=False,
                subtype="shadowed",
            ))
            continue
        final = table.locate_label(entry.old, labels.__contains__) or entry.new.path
        if targets and final not in labels:
            what = f"target {entry.new.path!r} of label {entry.old!r} is not a label"
            if final != entry.new.path:
                what += f" (the chain ends at {final!r})"
            problems.append(Problem(entry.location, what, fatal=False, subtype="target_missing"))
    return problems


def _check_patterns(table: RelocationTable, documents: set[str]) -> list[Problem]:
    """What a pattern does to the documents it matches, and targets that are not there."""
    problems: list[Problem] = []
    for pattern in table.patterns:
        label = f"[patterns] {pattern.glob!r}"
        matched = sorted(d for d in documents if pattern.matches(d))
        if pattern.replace and not matched:
            problems.append(Problem(
                pattern.location, f"{label} replaces no document: it matches none", fatal=False
            ))
        elif pattern.peer and (kept := [d for d in matched if not table.replaced(d)]):
            problems.append(Problem(
                pattern.location,
                f"{label} matches {some(kept)}, which {pattern.peer} replaced with "
                "redirects; here they stay pages (a pattern replaces documents only with "
                "replace = true, in relocations.toml)",
                fatal=False,
                subtype="shadowed",
            ))
        templated = "$" in str(pattern.to)
        if pattern.replace:
            lost = [d for d in matched if not _lands(table.locate_page(d, documents.__contains__),
                                                      documents)]
        else:
            final = pattern.to if pattern.to.url else (
                table.locate_page(pattern.to.path, documents.__contains__) or pattern.to
            )
            lost = [] if templated or _lands(final, documents) else [""]
        if lost:
            whose = f" (for {some(lost)})" if lost != [""] else ""
            problems.append(Problem(
                pattern.location,
                f"{label}: target {str(pattern.to)!r}{whose} is not a document",
                fatal=False,
                subtype="target_missing",
            ))
    return problems


def _lands(target: Target | None, documents: set[str]) -> bool:
    return target is not None and (bool(target.url) or target.path in documents)


def some(names: list[str], shown: int = 3) -> str:
    """``'a', 'b', 'c' and 4 more``: a few names of a long list, for one line."""
    text = ", ".join(map(repr, names[:shown]))
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")

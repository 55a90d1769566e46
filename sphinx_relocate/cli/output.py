"""What every command prints: findings (plain, or GitHub annotations for CI), usage
errors (exit status 2), and paths as the user would type them."""

from __future__ import annotations

import sys
from pathlib import Path


class UsageError(Exception):
    """A problem with the command line or the docs folder: exit status 2."""


def display_path(path: Path) -> str:
    """A path as the user would type it: relative to the current folder when below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def finding(style: str, file: str, line: int, message: str, column: int = 0) -> str:
    """One finding of a gate: ``file:line[:column]: message``, or for ``--format github``
    an Actions annotation, so CI marks the line in the pull request."""
    if style != "github":
        where = f"{file}:{line}:{column}" if line and column else f"{file}:{line}"
        return f"{where}: {message}" if line else f"{file}: {message}"
    where = f"file={_escape(file, in_property=True)}" + (f",line={line}" if line else "")
    where += f",col={column}" if line and column else ""
    return f"::error {where}::{_escape(message)}"


def _escape(text: str, *, in_property: bool = False) -> str:
    """GitHub's escaping of a workflow command's message (and of ``:`` ``,`` in properties)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if in_property else text


def stop(errors: list[str]) -> None:
    """Stop with one line per error (the last one through :class:`UsageError`), if any."""
    if not errors:
        return
    for line in errors[:-1]:
        print(f"sphinx-relocate: error: {line}", file=sys.stderr)
    raise UsageError(errors[-1])


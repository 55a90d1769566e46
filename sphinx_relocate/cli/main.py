"""The ``sphinx-relocate`` command line: the argument parser, and dispatch to the commands.

Each command is a module of this package with one ``command_*(args) -> int``
(:mod:`~sphinx_relocate.cli.check`, :mod:`~sphinx_relocate.cli.rewrite`,
:mod:`~sphinx_relocate.cli.from_git`, :mod:`~sphinx_relocate.cli.import_peers`,
:mod:`~sphinx_relocate.cli.mv`);
:mod:`~sphinx_relocate.cli.project` reads the docs folder they work on, and
:mod:`~sphinx_relocate.cli.output` is how they speak.

Exit status: 0 clean, 1 findings (or, for ``rewrite --check``, changes to make),
2 usage errors.  Every finding is one line ``file:line: message``, or with
``--format github`` a GitHub Actions annotation
(:func:`~sphinx_relocate.cli.output.finding`, for every command).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sphinx_relocate.cli.check import command_check
from sphinx_relocate.cli.from_git import command_from_git
from sphinx_relocate.cli.import_peers import command_import
from sphinx_relocate.cli.mv import command_mv
from sphinx_relocate.cli.output import UsageError
from sphinx_relocate.cli.rewrite import command_rewrite


def _similarity(text: str) -> int:
    try:
        value = int(text.rstrip("%"))
    except ValueError:
        value = -1
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage from 0 to 100")
    return value


def _add_command(
    commands: Any, name: str, run: Callable[[argparse.Namespace], int], *, summary: str,
    description: str, table_help: str,
) -> argparse.ArgumentParser:
    """A subcommand with what every command takes: the docs folder and ``--table``."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=summary, description=description
    )
    parser.add_argument(
        "docs_dir", type=Path, metavar="DOCS_DIR",
        help="folder with conf.py (or a folder above it: the one conf.py below it is used)",
    )
    parser.add_argument("--table", type=Path, metavar="FILE", help=table_help)
    parser.set_defaults(run=run)
    return parser


def _add_format(parser: argparse.ArgumentParser) -> None:
    """``--format`` for the commands that gate CI."""
    parser.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="'github' prints each finding as a GitHub Actions error annotation "
        "(default: text, 'file:line: message')",
    )


def _version() -> str:
    from sphinx_relocate import __version__

    return f"sphinx-relocate {__version__}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sphinx-relocate",
        description="Check a relocation table, rewrite sources from it, derive it from git.",
    )
    parser.add_argument("-V", "--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = _add_command(
        commands,
        "check",
        command_check,
        summary="validate the relocation table against a docs folder (no build)",
        description="Validate the relocation table against the files of a docs folder. "
        "Prints one 'file:line: message' per problem; exit 0 clean, 1 problems, 2 usage.",
        table_help="table file to check instead of conf.py's",
    )
    check.add_argument(
        "--published",
        metavar="SOURCE",
        action="append",
        help="the published history (default: relocate_published; repeat for several): an "
        "objects.inv, a sitemap.xml, a text file of URLs, or a previous build's output "
        "folder (a file, folder or http(s) URL): each URL nothing serves now, and each "
        "label of an inventory that is gone without an entry, is a problem",
    )
    _add_format(check)

    rewrite = _add_command(
        commands,
        "rewrite",
        command_rewrite,
        summary="rewrite links written against old paths in the sources (diff by default)",
        description="Rewrite every link written against an old path, in the docs and in "
        "Markdown and reST anywhere in the repository (READMEs). Prints a unified diff by "
        "default; --check exits 1 when anything would change; --write applies the changes.",
        table_help="table file to use instead of conf.py's",
    )
    rewrite.add_argument(
        "--repo-root",
        type=Path,
        metavar="DIR",
        help="repository root (default: relocate_repo_root, else the git top level)",
    )
    rewrite.add_argument(
        "--repo-url",
        metavar="URL",
        help="forge URL of the repository, to rewrite absolute links into the docs "
        "(default: relocate_repo_url, else the repository conf.py tells its theme of)",
    )
    rewrite.add_argument(
        "--mentions",
        action="store_true",
        help="also rewrite paths in inline code, plain text and Python files",
    )
    mode = rewrite.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if anything would change")
    mode.add_argument("--write", action="store_true", help="apply the changes in place")
    _add_format(rewrite)

    from_git = _add_command(
        commands,
        "from-git",
        command_from_git,
        summary="derive [pages], [files] and [anchors] entries from git renames",
        description="Derive table entries from renames committed since REV (every commit "
        "on the way) plus staged, unstaged and untracked moves, and from headings renamed "
        "on the pages. Prints TOML by default; --write merges it into the "
        "table file, keeping existing entries and comments; --check exits 1 listing each "
        "renamed or deleted page or heading that has no entry.",
        table_help="table file to merge into instead of conf.py's",
    )
    from_git.add_argument(
        "--since", metavar="REV", help="commit before the reorganization (default: HEAD)"
    )
    from_git.add_argument(
        "--similarity",
        type=_similarity,
        default=50,
        metavar="N",
        help="rename similarity threshold in percent, as git diff -M (default: 50)",
    )
    from_git_mode = from_git.add_mutually_exclusive_group()
    from_git_mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1 listing each page or heading renamed or deleted since REV that has no "
        "entry",
    )
    from_git_mode.add_argument("--write", action="store_true", help="merge into the table file")
    _add_format(from_git)

    imports = _add_command(
        commands,
        "import",
        command_import,
        summary="convert sphinx-reredirects' or rediraffe's redirects into table entries",
        description="Convert the redirects of conf.py (sphinx-reredirects' 'redirects', "
        "sphinxext-rediraffe's 'rediraffe_redirects', a dict or a file) into relocation "
        "table entries, with their meaning. Prints TOML by default; --write merges it into "
        "the table file, keeping its entries (one with another target is an error).",
        table_help="table file to merge into instead of conf.py's",
    )
    imports.add_argument("--write", action="store_true", help="merge into the table file")

    mv = _add_command(
        commands,
        "mv",
        command_mv,
        summary="move a page, folder or file; record it in the table; rewrite what points to it",
        description="Move OLD to NEW (a page by docname or source path, a folder, or a file "
        "such as an image; paths in the docs folder, or from the current folder) with git mv "
        "in a git work tree, a plain move otherwise; merge the entries from-git would derive "
        "into the table file, pointing entries that named OLD at NEW; rewrite every "
        "reference to what moved, and the moved page's own relative links; move its "
        "message catalogs. Checks everything first: on any problem nothing is changed.",
        table_help="table file to merge into instead of conf.py's",
    )
    mv.add_argument("old", metavar="OLD", help="the page, folder or file to move")
    mv.add_argument("new", metavar="NEW", help="where it goes (must not exist)")
    mv.add_argument(
        "--dry-run", action="store_true",
        help="print the plan (the moves, the table change and the source diff) and change "
        "nothing",
    )
    mv.add_argument(
        "--keep-links", action="store_true",
        help="move and record the move, but edit no source but the table and the targets "
        "of rediraffe_redirects and redirects (the build resolves the old references)",
    )
    _add_format(mv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse already printed the usage line
        return 2 if exit_.code else 0
    try:
        return int(args.run(args))
    except UsageError as err:
        print(f"sphinx-relocate: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Which folder is the Sphinx source folder: DOCS_DIR itself when it holds conf.py, else a
usual docs folder below it, else the one conf.py with pages next to it that a bounded,
breadth-first search finds (said on stderr); none or several is a usage error."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sphinx_relocate.cli.output import UsageError, display_path

#: Where a docs folder usually is, looked at first when DOCS_DIR has no conf.py.
DOCS_FOLDERS = (
    "docs", "doc", "docs/source", "doc/source", "docs/src", "doc/src", "documentation",
    "Documentation", "source", "sphinx", "docs/sphinx",
)
#: How many folder levels below DOCS_DIR the search for conf.py goes, and how many
#: folders it looks into at most.
SEARCH_DEPTH = 3
SEARCH_FOLDERS = 5000
#: Folders the search never enters (besides dot-folders, virtual environments and
#: build output): tools' folders, which hold no docs of the project's own.
SEARCH_SKIPPED = frozenset(
    {"_build", "build", "dist", "node_modules", "site-packages", "__pycache__", "venv",
     "env"}
)
#: Files that make a folder with conf.py a Sphinx source folder to the search.
_PAGE_SUFFIXES = (".rst", ".md", ".txt", ".ipynb", ".myst")


def find_docs(path: Path) -> Path:
    """The Sphinx source folder DOCS_DIR names: itself when it has conf.py, else the one
    folder below it that does (said on stderr); none or several is a usage error."""
    if not path.is_dir():
        raise UsageError(f"{path}: not a folder")
    if (path / "conf.py").is_file():
        return path
    usual = [path / name for name in DOCS_FOLDERS if (path / name / "conf.py").is_file()]
    if len(usual) > 1:
        raise UsageError(_several(path, usual))
    found, bare = usual, list[Path]()
    if not found:
        found, bare = _search_conf_py(path)
        if len(found) > 1:
            raise UsageError(_several(path, found))
    if not found:
        without = ""
        if bare:
            names = ", ".join(display_path(folder / "conf.py") for folder in bare[:3])
            without = f"; {names} ha{'s' if len(bare) == 1 else 've'} no pages next to it"
        ask = "give the folder with conf.py"
        if (path / "_config.yml").is_file() and (path / "_toc.yml").is_file():
            ask = (f"{path} is a Jupyter Book: `jupyter-book config sphinx {path}` writes "
                   "the conf.py its build uses")
        raise UsageError(
            f"{path}: no conf.py in it or below it (looked in {', '.join(DOCS_FOLDERS[:4])}, "
            f"…, {SEARCH_DEPTH} levels down){without}: {ask}"
        )
    print(f"no conf.py in {path}: using {display_path(found[0] / 'conf.py')}", file=sys.stderr)
    return found[0]


def _several(path: Path, found: list[Path]) -> str:
    names = ", ".join(display_path(folder / "conf.py") for folder in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return f"{path}: no conf.py in it, {len(found)} below it ({names}{more}): give one folder"


def _search_conf_py(root: Path) -> tuple[list[Path], list[Path]]:
    """Folders below ``root`` (breadth first, bounded) with conf.py and pages next to it,
    and those with a conf.py but no pages (a package's settings module, not Sphinx's)."""
    found: list[Path] = []
    bare: list[Path] = []
    level = [root]
    visited = 0
    for _ in range(SEARCH_DEPTH):
        below: list[Path] = []
        for folder in level:
            try:
                entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False) or _not_searched(entry.name):
                    continue
                visited += 1
                if visited > SEARCH_FOLDERS:
                    return found, bare
                child = Path(entry.path)
                if (child / "pyvenv.cfg").exists() or (child / ".buildinfo").exists():
                    continue
                if (child / "conf.py").is_file():
                    (found if _has_pages(child) else bare).append(child)
                below.append(child)
        level = below
    return found, bare


def _not_searched(name: str) -> bool:
    return name.startswith(".") or name in SEARCH_SKIPPED


def _has_pages(folder: Path) -> bool:
    try:
        return any(entry.name.endswith(_PAGE_SUFFIXES) for entry in os.scandir(folder))
    except OSError:
        return False

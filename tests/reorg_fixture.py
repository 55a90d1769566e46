"""A git repository that reproduces a real documentation reorganization.

Shared by the ``rewrite`` and ``from-git`` tests.  Before: pages in
``docs/zh/{features,pytorch}``; after: a move one level deeper, a folder move, a
rename, a CJK rename, a case-only rename, a deleted page and a renamed image.  The
moves are spread over a commit, staged ``git mv``s and plain unstaged ``mv``s, and
files outside the docs (READMEs) link into them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO_URL = "https://github.com/example/proj"

#: What ``from-git --since <first commit>`` must derive.
EXPECTED_PAGES = {
    "features/EP_balance": "features/ep_balance",
    "features/fsdp2": "features/parallel/fsdp2",
    "features/特性总览": "introduction/feature_overview",
    "pytorch/install_guide": "guides/install_guide",
    "pytorch/quick_start": "guides/quick_start",
    "release_notes": "release_notes_mm",
}
EXPECTED_FILES = {"images/diagram_old.png": "images/diagram.png"}
EXPECTED_DELETED = ["pytorch/old_page"]

CONF = f"""\
project = "reorg"
extensions = ["myst_parser"]
myst_heading_anchors = 3
exclude_patterns = ["_build"]
relocate_repo_url = "{REPO_URL}/blob/master/"
"""

BEFORE = {
    "docs/zh/conf.py": CONF,
    "docs/zh/index.md": """\
# 文档

```{toctree}
:maxdepth: 2

features/index
pytorch/install_guide
快速开始 <pytorch/quick_start>
features/特性总览
release_notes
```
""",
    "docs/zh/features/index.md": """\
# 特性

```{toctree}
fsdp2
EP_balance
```

<table>
  <tr><td><a href="fsdp2.md">FSDP2</a></td><td><a href='./EP_balance.md'>EP</a></td></tr>
</table>
""",
    "docs/zh/features/fsdp2.md": """\
# FSDP2

FSDP2 shards parameters across data-parallel ranks.

![架构](../../../sources/images/arch.png)
![diagram](../images/diagram_old.png)

See [安装指南](../pytorch/install_guide.md) and [EP](EP_balance.md "EP balance").
Version notes: [说明](../release_notes.md#相关产品版本配套说明).
The [old page](../pytorch/old_page.md) is gone. Keep [this](#fsdp2) and
[Sphinx](https://www.sphinx-doc.org/).

```text
[not a link](../pytorch/install_guide.md)
```
""",
    "docs/zh/features/EP_balance.md": """\
# EP balance

Expert-parallel load balancing. Back to [FSDP2](./fsdp2.md#fsdp2).
""",
    "docs/zh/features/特性总览.md": """\
# 特性总览

All features: [FSDP2](fsdp2.md), [EP](<EP_balance.md>), [guide][g].

[g]: ../pytorch/quick_start.md
""",
    "docs/zh/pytorch/install_guide.md": """\
# 安装指南

Install, then read [快速开始](quick_start.md) and {doc}`../features/特性总览`.
Uses {doc}`FSDP2 <../features/fsdp2>`.
![架构](../../../sources/images/arch.png)
""",
    "docs/zh/pytorch/quick_start.md": """\
# 快速开始

Start here; the [install guide](install_guide.md) comes first.
""",
    "docs/zh/pytorch/old_page.md": """\
# Old page

This page is obsolete and will be deleted in the reorganization.
""",
    "docs/zh/release_notes.md": """\
# Release notes

## 相关产品版本配套说明

Versions. Features: [FSDP2](features/fsdp2.md).
""",
    "README.md": f"""\
# proj

- [安装](docs/zh/pytorch/install_guide.md)
- [FSDP2](./docs/zh/features/fsdp2.md#fsdp2)
- [特性](docs/zh/features/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.md)
- Online: {REPO_URL}/blob/master/docs/zh/pytorch/quick_start.md
- <{REPO_URL}/tree/master/docs/zh/features/EP_balance.md>
- [Releases]({REPO_URL}/blob/master/docs/zh/release_notes.md#相关产品版本配套说明)
""",
    "examples/demo/README.md": """\
# Demo

Balance experts as [described](../../docs/zh/features/EP_balance.md).
<a href="../../docs/zh/features/fsdp2.md"><img src="../../sources/images/arch.png"></a>
""",
}
BINARY = {
    "sources/images/arch.png": b"\x89PNG\r\n\x1a\n" + b"arch" * 64,
    "docs/zh/images/diagram_old.png": b"\x89PNG\r\n\x1a\n" + b"diagram" * 64,
}


def git(root: Path, *args: str) -> str:
    """Run git as a fresh user with no global configuration (works as root in CI)."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=root, env=env, capture_output=True, check=True,
    )
    return done.stdout.decode()


def first_commit(root: Path, message: str) -> str:
    """Make ``root`` a repository whose one commit holds every file in it; its hash."""
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def commit_all(root: Path, message: str) -> None:
    """Commit every change under ``root``, new and deleted files included."""
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def write_tree(root: Path, files: dict[str, str], binary: dict[str, bytes]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for rel, data in binary.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def make_reorganized_repo(root: Path) -> str:
    """Build the repository in ``root``; return the commit before the reorganization."""
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root, BEFORE, BINARY)
    base = first_commit(root, "docs before")
    docs = root / "docs/zh"
    # committed: one level deeper, a folder move
    (docs / "features/parallel").mkdir()
    git(root, "mv", "docs/zh/features/fsdp2.md", "docs/zh/features/parallel/fsdp2.md")
    git(root, "mv", "docs/zh/pytorch", "docs/zh/guides")
    git(root, "commit", "-q", "-m", "move pages")
    # staged: a rename, a case-only rename, a deletion, an image
    git(root, "mv", "docs/zh/release_notes.md", "docs/zh/release_notes_mm.md")
    git(root, "mv", "docs/zh/features/EP_balance.md", "docs/zh/features/ep_balance.md")
    git(root, "rm", "-q", "docs/zh/guides/old_page.md")
    git(root, "mv", "docs/zh/images/diagram_old.png", "docs/zh/images/diagram.png")
    # unstaged and untracked: a plain mv of a CJK page
    (docs / "introduction").mkdir()
    (docs / "features/特性总览.md").rename(docs / "introduction/feature_overview.md")
    return base


def committed_hook_repo(hooks: Path) -> Path:
    """A committed copy of this project in ``hooks``, as ``pre-commit try-repo`` wants one."""
    project = Path(__file__).resolve().parents[1]
    hooks.mkdir(parents=True, exist_ok=True)
    for name in ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml"):
        shutil.copy(project / name, hooks / name)
    shutil.copytree(project / "sphinx_relocate", hooks / "sphinx_relocate",
                    ignore=shutil.ignore_patterns("__pycache__"))
    git(hooks, "init", "-q")
    git(hooks, "add", "-A")
    git(hooks, "commit", "-q", "-m", "hooks")
    return hooks


def forge_url_project(root: Path, setting: str, links: str) -> Path:
    """A git repository whose ``docs`` has ``setting`` in conf.py, a table sending
    ``old`` to ``new`` and an index with ``links`` (own-repository URLs); its docs."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\n'
        "show_warning_types = True\n"  # Sphinx 7.4 leaves it off
        f"{setting}\n"
    )
    (docs / "relocations.toml").write_text('[pages]\n"old" = "new"\n')
    (docs / "new.md").write_text("# New\n")
    (docs / "index.md").write_text("# Index\n\n```{toctree}\nnew\n```\n\n" + links)
    return docs

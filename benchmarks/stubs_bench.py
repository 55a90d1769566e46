#!/usr/bin/env python3
"""Time the stub-writing phase of three redirect extensions beside the file-system floor.

A real build of a 50,000-page site takes hours, so this calls each extension's
stub-writing code directly, with the same N old pages (in 40 × 9 folders) moved to N
new pages that already exist in the output folder, as they would after the build:

``relocate``     ``sphinx_relocate.core.stubs``: :func:`plan` (which old pages get a stub,
                 chains, clashes), rendering and :func:`write_all` (with its manifest)
                 - everything its ``build-finished`` handler does after reading the env,
                 with cyclic garbage collection paused, as that handler runs it.
``reredirects``  ``sphinx_reredirects.Reredirects(app).grab_redirects()`` and
                 ``create_redirects()`` - the body of its ``html-collect-pages`` handler.
``rediraffe``    ``sphinxext.rediraffe.build_redirects(app, None)`` - its whole
                 ``build-finished`` handler (it checks that each target page exists).

Each gets a minimal stand-in for the Sphinx application with the attributes it reads.
After each timed run, the files it wrote are read back (not timed) and written again
into a fresh output folder with plain ``os.open()``/``os.write()`` calls in path
order, creating each folder before its first file: that is the *floor* for the same
files, measured right after, and the
result is reported as the ratio of the two.  Runs are interleaved, and the order of
each pair alternates (tool then floor, then floor then tool, with the files of the
tool's previous run), so machine noise, and a file system that slows down as files are
created and deleted, hit both sides of each ratio alike.

Each phase is timed twice: until the code returns (the files are in the page cache,
which is what a build waits for) and until ``os.sync()`` returns after it (the files
are on disk), the ``synced`` times.

Prints one JSON object per measurement.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import posixpath
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

TOOLS = ("relocate", "reredirects", "rediraffe")


def pairs(count: int) -> list[tuple[str, str]]:
    """``count`` (old docname, new docname): old pages nested two deep, as real ones are."""
    return [
        (f"old/sec-{i % 40}/part-{i % 9}/page-{i}", f"guide/sec-{i % 40}/page-{i}")
        for i in range(count)
    ]


def prepare(outdir: Path, moves: list[tuple[str, str]], *, targets: bool) -> None:
    """An empty output folder, or with every new page built when ``targets`` (not timed).

    sphinxext-rediraffe checks that each target page exists, so its phase and its floor
    run with the new pages in place; the others write into an empty folder.
    """
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    if targets:
        page = b"<!DOCTYPE html><html><body>built page</body></html>\n"
        for folder in sorted({posixpath.dirname(new) for _, new in moves}):
            (outdir / folder).mkdir(parents=True, exist_ok=True)
        for _, new in moves:
            (outdir / f"{new}.html").write_bytes(page)
    os.sync()  # start each timed phase without a backlog of dirty pages to flush


def written_files(outdir: Path, before: set[str]) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(outdir):
        for name in names:
            rel = Path(folder, name).relative_to(outdir).as_posix()
            if rel not in before:
                found[rel] = Path(folder, name).read_bytes()
    return found


def floor(outdir: Path, files: dict[str, bytes]) -> None:
    """Plain writes of ``files``: os.open, os.write, os.close, in path order, each folder
    created right before its first file.

    Unbuffered system calls, the fewest a file can be written with from Python
    (``open()`` adds an ``fstat`` and an ``ioctl`` per file).  Path order is the order
    sphinx-relocate writes in; the order decides where ext4 puts each new inode, and
    creating every folder first made the floor swing by up to 2× between runs.
    """
    root = str(outdir)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    made: set[str] = set()
    for path in sorted(files):
        folder = posixpath.dirname(path)
        if folder not in made:
            os.makedirs(os.path.join(root, folder), exist_ok=True)
            made.add(folder)
        fd = os.open(os.path.join(root, path), flags, 0o666)
        os.write(fd, files[path])
        os.close(fd)


def relocate_plan(table: Any, documents: set[str], titles: dict[str, str]) -> list[Any]:
    """sphinx-relocate's plan of the stubs for ``documents``, as its ``build-finished``
    handler makes it (the HTML builder, nothing protected): a list of redirects."""
    from sphinx_relocate.core.stubs import HtmlOutput, old_page_landings, plan

    landings = old_page_landings(table, documents)
    redirects, _ = plan(
        table, documents, HtmlOutput(dirhtml=False), landings=landings, protected=(), titles=titles
    )
    return redirects


def relocate_render(redirects: list[Any]) -> dict[str, bytes]:
    """The built-in stub of each planned redirect, encoded as a build renders them
    (``rendered_default``: once for neighbours that share their page): stub path -> bytes."""
    from sphinx_relocate.core.stubs import rendered_default

    return dict(rendered_default(redirects))


def relocate_phase(
    outdir: Path, moves: list[tuple[str, str]], table_file: Path
) -> Callable[[], Any]:
    from sphinx_relocate.core.stubs import (
        HtmlOutput,
        read_manifest,
        rendered_default,
        write_all,
    )
    from sphinx_relocate.core.table import collection_paused, load_table

    table, problems = load_table(table_file, {})
    assert not [p for p in problems if p.fatal], problems
    documents = {new for _, new in moves}
    titles = {new: f"Page {new.rsplit('-', 1)[1]}" for new in documents}
    site = HtmlOutput(dirhtml=False)

    def run() -> None:
        with collection_paused():  # as the build-finished handler runs it
            files = rendered_default(relocate_plan(table, documents, titles))
            pages = {site.file(d) for d in documents}
            errors: list[str] = []
            write_all(outdir, files, read_manifest(outdir), pages, lambda p, m: errors.append(m))
        assert not errors, errors[:3]

    return run


def reredirects_phase(outdir: Path, moves: list[tuple[str, str]]) -> Callable[[], Any]:
    from sphinx_reredirects import Reredirects

    redirects = {old: posixpath.relpath(new, posixpath.dirname(old)) + ".html"
                 for old, new in moves}
    app = SimpleNamespace(
        config=SimpleNamespace(redirects=redirects, redirect_html_template_file=None),
        builder=SimpleNamespace(
            out_suffix=".html", get_target_uri=lambda docname, typ=None: docname + ".html"
        ),
        outdir=str(outdir),
        env=None,
    )

    def run() -> None:
        reredirects = Reredirects(app)  # type: ignore[arg-type]
        reredirects.create_redirects(reredirects.grab_redirects())

    return run


def rediraffe_phase(outdir: Path, moves: list[tuple[str, str]]) -> Callable[[], Any]:
    from sphinx.builders.html import StandaloneHTMLBuilder
    from sphinxext.rediraffe import build_redirects

    builder = StandaloneHTMLBuilder.__new__(StandaloneHTMLBuilder)  # its type is checked
    app = SimpleNamespace(
        config=SimpleNamespace(
            rediraffe_template=None,
            rediraffe_redirects={f"{old}.md": f"{new}.md" for old, new in moves},
            source_suffix={".md": "markdown", ".rst": "restructuredtext"},
        ),
        builder=builder,
        outdir=str(outdir),
        srcdir=str(outdir),
        statuscode=0,
    )

    def run() -> None:
        build_redirects(app, None)  # type: ignore[arg-type]
        assert app.statuscode == 0

    return run


def write_table(path: Path, moves: list[tuple[str, str]]) -> None:
    lines = ["[pages]"] + [f'"{old}" = "{new}"' for old, new in moves]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed(run: Callable[[], Any]) -> tuple[float, float, float]:
    """Wall-clock and CPU (user + system) seconds of ``run()``, and the wall-clock
    seconds until its files are on disk (``os.sync()`` right after)."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    run()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    os.sync()
    return wall, cpu, time.perf_counter() - start


def measure(count: int, runs: int, tools: list[str], workdir: Path) -> list[dict[str, Any]]:
    moves = pairs(count)
    table_file = workdir / "relocations.toml"
    write_table(table_file, moves)
    out = workdir / "out"
    results: dict[str, dict[str, list[tuple[float, float, float]]]] = {
        t: {"tool": [], "floor": []} for t in tools
    }
    files_written: dict[str, int] = {}
    previous: dict[str, dict[str, bytes]] = {}
    for number in range(runs):
        for tool in tools:
            targets = tool == "rediraffe"
            before = {f"{new}.html" for _, new in moves} if targets else set()
            if number % 2 and tool in previous:  # the floor first, every other run
                prepare(out, moves, targets=targets)
                results[tool]["floor"].append(timed(partial(floor, out, previous[tool])))
            prepare(out, moves, targets=targets)
            if tool == "relocate":
                run = relocate_phase(out, moves, table_file)
            elif tool == "reredirects":
                run = reredirects_phase(out, moves)
            else:
                run = rediraffe_phase(out, moves)
            results[tool]["tool"].append(timed(run))
            files = previous[tool] = written_files(out, before)
            files_written[tool] = len(files)
            if not number % 2:
                prepare(out, moves, targets=targets)
                results[tool]["floor"].append(timed(partial(floor, out, files)))
    shutil.rmtree(out, ignore_errors=True)
    report = []
    for tool in tools:
        row: dict[str, Any] = {"entries": count, "tool": tool, "runs": runs,
                               "files": files_written[tool]}
        for k, clock in enumerate(("wall", "cpu", "synced")):
            tool_times = [t[k] for t in results[tool]["tool"]]
            floor_times = [f[k] for f in results[tool]["floor"]]
            ratios = [t / f for t, f in zip(tool_times, floor_times, strict=True)]
            row[f"{clock}_tool_s"] = statistics.median(tool_times)
            row[f"{clock}_floor_s"] = statistics.median(floor_times)
            row[f"{clock}_ratio"] = statistics.median(ratios)
            row[f"{clock}_ratios"] = ratios
        report.append(row)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    parser.add_argument("--workdir", type=Path, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relocate-stubs-", dir=args.workdir) as scratch:
        for count in args.entries:
            for row in measure(count, args.runs, args.tools, Path(scratch)):
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The whole step as a user pays it: one page, a ``[pages]`` table of N old names.

``run.py`` builds each project written here with ``sphinx-build -E -b html`` and takes
the build with the table minus the same build without it (plain Sphinx, the same one
page); this file holds what the runner's interpreter cannot do itself:

``projects``   write the four projects for N old names (``plain``, ``relocate`` with
               ``relocations.toml``, ``reredirects`` with ``redirects = {...}`` in
               ``conf.py``, ``rediraffe`` with a ``rediraffe_redirects`` file), every
               old name moved to the one page, ``index``;
``inprocess``  time ``sphinx_relocate.core.table.load_table`` on the same table, and the
               planning and rendering of its stubs without writing them, then of as
               many stubs for old names moved each to a page of its own (prints one
               JSON object per size; run with the interpreter that builds);
``plot``       draw the extra build time against the table size (matplotlib, Agg), from
               the series ``run.py`` passes as JSON on standard input.

The old names are those of ``stubs_bench.py`` (nested two deep in 40 × 9 folders), so
the stubs have the same paths as in the writer-alone measurement.

    python benchmarks/endtoend.py projects --entries 10000 --out /tmp/endtoend
    sphinx-build -E -b html /tmp/endtoend/relocate /tmp/endtoend-out
    python benchmarks/endtoend.py inprocess --entries 10000 50000 --runs 7
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import posixpath
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import stubs_bench

MODES = ("plain", "relocate", "reredirects", "rediraffe")
#: the one page every old name moves to
TITLE = "Welcome"
INDEX_RST = f"""{TITLE}
{"=" * len(TITLE)}

The one page of this project: the relocation table sends every old name here.
"""
#: the folder under which every stub is written (see ``stubs_bench.pairs``)
STUB_FOLDER = "old"


def old_names(count: int) -> list[str]:
    return [old for old, _ in stubs_bench.pairs(count)]


def q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a valid TOML and Python string alike


def table_text(count: int) -> str:
    """``relocations.toml``: every old name moved to ``index``."""
    lines = [f"# benchmarks/endtoend.py: {count} old names, all moved to the one page",
             "[pages]", *(f"{q(old)} = \"index\"" for old in old_names(count))]
    return "\n".join(lines) + "\n"


def write_projects(root: Path, count: int) -> dict[str, Path]:
    """The four projects (same ``index.rst``, same moves); mode -> source folder."""
    shutil.rmtree(root, ignore_errors=True)
    conf = 'project = "endtoend"\n'
    olds = old_names(count)
    files: dict[str, dict[str, str]] = {
        "plain": {"conf.py": conf},
        "relocate": {"conf.py": conf + 'extensions = ["sphinx_relocate"]\n',
                     "relocations.toml": table_text(count)},
        "reredirects": {"conf.py": conf + 'extensions = ["sphinx_reredirects"]\n'
                        "redirects = {\n" + "".join(
                            f"    {q(old)}: "
                            f"{q(posixpath.relpath('index', posixpath.dirname(old)) + '.html')},\n"
                            for old in olds) + "}\n"},
        "rediraffe": {"conf.py": conf + 'extensions = ["sphinxext.rediraffe"]\n'
                      'rediraffe_redirects = "redirects.txt"\n',
                      "redirects.txt": "".join(f"{q(old + '.rst')} \"index.rst\"\n"
                                               for old in olds)},
    }
    projects = {}
    for mode, texts in files.items():
        folder = root / mode
        folder.mkdir(parents=True)
        (folder / "index.rst").write_text(INDEX_RST, "utf-8")
        for name, text in texts.items():
            (folder / name).write_text(text, "utf-8")
        projects[mode] = folder
    return projects


def stub_files(outdir: Path) -> dict[str, bytes]:
    """The stubs a build wrote (every file under ``old/``), path -> bytes."""
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(outdir / STUB_FOLDER):
        for name in names:
            path = Path(folder, name)
            found[path.relative_to(outdir).as_posix()] = path.read_bytes()
    return found


def check_stubs(outdir: Path, count: int, mode: str) -> int:
    """The number of stubs written; raises unless every old name got one that links to
    the page (plain Sphinx: none), so that a broken configuration cannot pass as fast."""
    written = sum(len([n for n in names if n.endswith(".html")])
                  for _, _, names in os.walk(outdir / STUB_FOLDER))
    expected = 0 if mode == "plain" else count
    if written != expected:
        raise SystemExit(f"{mode}: {written} stubs in {outdir}, expected {expected}")
    if expected:
        for old in (old_names(count)[0], old_names(count)[-1]):
            text = (outdir / f"{old}.html").read_text("utf-8")
            if "index.html" not in text:
                raise SystemExit(f"{mode}: {outdir / old}.html does not link to index.html")
    return written


# -- in-process timings ----------------------------------------------------------------


def inprocess(count: int, runs: int, workdir: Path) -> dict[str, Any]:
    """``load_table`` on the N-entry table, then plan and render its N stubs, ``runs``
    times each after one untimed warm-up; wall and CPU seconds of every run."""
    from sphinx_relocate.core.table import collection_paused, load_table

    table_file = workdir / f"relocations-{count}.toml"
    table_file.write_text(table_text(count), "utf-8")
    table, problems = load_table(table_file)  # warm-up: imports, the file in the cache
    if [p for p in problems if p.fatal]:
        raise SystemExit(f"{table_file}: {problems[:3]}")
    result: dict[str, Any] = {"entries": count, "runs": runs, "problems": len(problems)}

    def timed(name: str, function: Any) -> Any:
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        with collection_paused():  # as a build loads the table and plans its stubs
            value = function()
        result.setdefault(f"{name}_cpu_s", []).append(time.process_time() - cpu)
        result.setdefault(f"{name}_wall_s", []).append(time.perf_counter() - wall)
        return value

    for _ in range(runs):
        table, _ = timed("load", lambda: load_table(table_file))

    def planning(name: str, table: Any, documents: set[str], titles: dict[str, str]) -> Any:
        stubs_bench.relocate_render(stubs_bench.relocate_plan(table, documents, titles))
        for _ in range(runs):
            # relocate_plan works out where each old page lands, as a build does once
            redirects = timed(f"plan{name}",
                              lambda: stubs_bench.relocate_plan(table, documents, titles))
            files = timed(f"render{name}",
                          functools.partial(stubs_bench.relocate_render, redirects))
        if len(files) != count:
            raise SystemExit(f"planned {len(files)} stubs for {count} entries")
        return files

    files = planning("", table, {"index"}, {"index": TITLE})
    result.update(traced_memory(table_file, {"index"}, {"index": TITLE}))
    result["stubs"] = len(files)
    result["stub_bytes"] = statistics.mean(len(data) for data in files.values())
    # the same number of old names, each moved to a page of its own (the writer-alone
    # tables of stubs_bench.py): a URL to work out for every stub
    moves = stubs_bench.pairs(count)
    own_file = workdir / f"relocations-{count}-each.toml"
    own_file.write_text("[pages]\n" + "".join(f"{q(old)} = {q(new)}\n" for old, new in moves),
                        "utf-8")
    own_table, _ = load_table(own_file)
    pages = {new for _, new in moves}
    planning("_each", own_table, pages, {new: f"Page {new.rsplit('-', 1)[1]}" for new in pages})
    return result


def traced_memory(table_file: Path, documents: set[str], titles: dict[str, str]) -> dict[str, int]:
    """Bytes Python allocates for the table and its stubs, as a build holds them: what is
    kept after loading the table and planning its stubs, and the peak while every stub is
    rendered, one at a time, as a build writes them (``tracemalloc``; it slows the code,
    so this runs apart from the timings).  Unlike the peak memory of a build, it is not
    hidden under the peak of Sphinx's own work, which a small table stays below."""
    import tracemalloc

    from sphinx_relocate.core.table import load_table

    gc.collect()
    tracemalloc.start()
    try:
        table, _ = load_table(table_file)
        redirects = stubs_bench.relocate_plan(table, documents, titles)
        kept = tracemalloc.get_traced_memory()[0]
        for redirect in redirects:
            stubs_bench.relocate_render([redirect])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return {"traced_kept_bytes": kept, "traced_peak_bytes": peak}


# -- the plot --------------------------------------------------------------------------


def plot(series: dict[str, Any], png: Path) -> None:
    """Extra build time against table size, one panel per place (disk, memory): a line per
    extension, the floor, and the target (a multiple of the floor) dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    sizes, panels = series["sizes"], series["panels"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.6), dpi=110,
                             squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        for label, values in panel["lines"].items():
            ax.plot(sizes, values, marker="o", label=label)
        ax.plot(sizes, panel["floor"], marker="s", color="black", label=series["floor_label"])
        ax.plot(sizes, [series["target"] * f for f in panel["floor"]], linestyle="--",
                color="grey", label=f"target: {series['target']}× the floor")
        ax.set_title(panel["title"], fontsize=10)
        ax.set_xlabel("old names in the table")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("extra build time, s")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(series["title"], fontsize=9)
    fig.tight_layout()
    fig.savefig(png, metadata={"Software": None})  # no version stamp: a stable file
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    projects = commands.add_parser("projects", help="write the four projects")
    projects.add_argument("--entries", type=int, required=True)
    projects.add_argument("--out", type=Path, required=True)
    timing = commands.add_parser("inprocess", help="time load_table and planning (JSON)")
    timing.add_argument("--entries", type=int, nargs="+", default=[10000, 50000])
    timing.add_argument("--runs", type=int, nargs="+", default=[7],
                        help="runs for each size (one number: the same for all)")
    timing.add_argument("--workdir", type=Path, help="scratch folder (default: a temporary one)")
    drawing = commands.add_parser("plot", help="draw the series given as JSON on stdin")
    drawing.add_argument("png", type=Path)
    args = parser.parse_args()
    if args.command == "projects":
        for mode, folder in write_projects(args.out, args.entries).items():
            print(f"{mode}: {folder}")
    elif args.command == "inprocess":
        runs = args.runs * len(args.entries) if len(args.runs) == 1 else args.runs
        if len(runs) != len(args.entries):
            parser.error("--runs: one number, or one for each of --entries")
        with tempfile.TemporaryDirectory(prefix="relocate-load-", dir=args.workdir) as scratch:
            for count, times in zip(args.entries, runs, strict=True):
                print(json.dumps(inprocess(count, times, Path(scratch))), flush=True)
    else:
        plot(json.load(sys.stdin), args.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

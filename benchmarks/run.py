#!/usr/bin/env python3
"""Run every benchmark of sphinx-relocate and write the results page (docs/performance.md).

    python benchmarks/run.py --python /tmp/bench-venv/bin/python           # full, ~25-40 min
    python benchmarks/run.py --python /tmp/bench-venv/bin/python --quick   # smoke, ~3 min

``--python`` is the interpreter that builds: it needs sphinx, myst-parser,
sphinx-reredirects, sphinxext-rediraffe and this package (see benchmarks/README.md).
The runner itself needs only the standard library.

What runs, in this order (every comparison is measured side by side in one run, the
compared variants alternating A B B A ..., and reported as a median of per-round ratios):

1. overhead: a plain build of the unmoved corpus against the moved corpus built with
   sphinx_relocate (both must give 0 warnings), plus the moved corpus with
   sphinx-reredirects and sphinxext-rediraffe;
2. the same pair with ``-j 2``;
3. incremental builds on the outputs of step 1: a no-op rebuild, a rebuild after touching
   one page, and after editing the table (sphinx-reredirects beside it for one edit);
4. scaling: the pair at the other corpus sizes;
5. redirect stubs at 1k/10k/50k entries beside the file-system floor (stubs_bench.py);
6. ``sphinx-relocate rewrite --write`` on a 10k-page corpus, and a check that rewritten
   sources build without the extension;
7. a cProfile of one sphinx_relocate build when the overhead target is missed.

Raw results go to WORKDIR/results.json; ``--render-only`` rewrites the page from it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pstats
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEED = 1
MOVE_FRACTION = 0.3

#: targets from issue 7
OVERHEAD_TARGET = 0.03
STUB_TARGET = 1.15
REWRITE_TARGET = 2000.0
LINEAR_TOLERANCE = 1.25


@dataclass
class Plan:
    """Corpus sizes and run counts of one mode."""

    main_pages: int
    runs: int
    other_runs: int
    scaling: dict[int, int]
    parallel_runs: int
    incremental_runs: int
    stubs_disk: dict[int, int]
    stubs_memory: dict[int, int]
    rewrite_pages: int
    rewrite_runs: int
    profile_pages: int


FULL = Plan(
    main_pages=2000,
    runs=3,
    other_runs=1,
    scaling={500: 3, 5000: 1},
    parallel_runs=1,
    incremental_runs=3,
    stubs_disk={1000: 3, 10000: 3, 50000: 1},
    stubs_memory={1000: 3, 10000: 3, 50000: 3},
    rewrite_pages=10000,
    rewrite_runs=3,
    profile_pages=500,
)
QUICK = Plan(
    main_pages=150,
    runs=1,
    other_runs=1,
    scaling={60: 1, 300: 1},
    parallel_runs=1,
    incremental_runs=1,
    stubs_disk={1000: 1},
    stubs_memory={1000: 1},
    rewrite_pages=1000,
    rewrite_runs=1,
    profile_pages=60,
)


# -- running things ------------------------------------------------------------------


@dataclass
class Runner:
    python: str
    workdir: Path
    commands: dict[str, str] = field(default_factory=dict)
    log: Callable[[str], None] = print

    def shown(self, cmd: Iterable[str | Path], env: dict[str, str] | None = None) -> str:
        """``cmd`` as a shell line, with the work folder and the repository shortened."""
        text = " ".join(shlex.quote(str(c)) for c in cmd)
        for key, value in (env or {}).items():
            text = f"{key}={value} {text}"
        return text.replace(str(self.workdir), "$WORK").replace(str(ROOT) + "/", "")

    def note(self, label: str, cmd: list[Any], env: dict[str, str] | None = None) -> None:
        self.commands.setdefault(label, self.shown(cmd, env))

    def generate(self, pages: int, name: str) -> tuple[Path, dict[str, Any]]:
        out = self.workdir / name
        cmd = [self.python, HERE / "gen_corpus.py", "--pages", str(pages), "--seed", str(SEED),
               "--move-fraction", str(MOVE_FRACTION), "--out", out]
        self.note("generate", cmd)
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"gen_corpus failed:\n{done.stderr}")
        return out, json.loads((out / "manifest.json").read_text("utf-8"))

    def build(self, srcdir: Path, outdir: Path, mode: str, *, jobs: int = 1, fresh: bool = True,
              profile: Path | None = None) -> dict[str, Any]:
        if fresh:
            shutil.rmtree(outdir, ignore_errors=True)
        cmd: list[Any] = [self.python, HERE / "build_once.py", srcdir, outdir, "--mode", mode,
                          "-j", str(jobs)]
        if fresh:
            cmd.append("-E")
        if profile:
            cmd += ["--profile", profile]
        self.note(f"build-{mode}", cmd)
        self.note(f"sphinx-build-{mode}",
                  ["sphinx-build", "-b", "html", *(["-E"] if fresh else []),
                   *(["-j", str(jobs)] if jobs > 1 else []), srcdir, outdir],
                  {"SPHINX_RELOCATE_BENCH": mode})
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"build failed: {self.shown(cmd)}\n{done.stderr[-3000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        self.log(f"  {mode:<11} {srcdir.name:<9} j{jobs} {'full' if fresh else 'incr'}: "
                 f"{result['total']:7.1f} s wall, {result['cpu']:7.1f} s cpu, "
                 f"re-read {result['reread']}, {result['warnings']} warnings")
        return result


def median(values: Iterable[float]) -> float:
    found = list(values)
    return statistics.median(found) if found else float("nan")


def ratios(a: list[dict[str, Any]], b: list[dict[str, Any]], key: str) -> list[float]:
    """Per-round ratios a/b of ``key`` (the runs were interleaved pairwise)."""
    return [x[key] / y[key] for x, y in zip(a, b) if y[key]]


def alternate(runs: int, variants: list[str]) -> Iterable[tuple[int, list[str]]]:
    """Rounds in A B, B A, A B ... order, so that drift in the machine's load cancels."""
    for r in range(runs):
        yield r, (variants if r % 2 == 0 else variants[::-1])


# -- the measurements ----------------------------------------------------------------


def overhead(run: Runner, plan: Plan, corpus: Path, results: dict[str, Any]) -> None:
    run.log(f"overhead at {plan.main_pages} pages: {plan.runs} rounds")
    out = run.workdir / "out"
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in
                                             ("plain", "relocate", "reredirects", "rediraffe")}
    pairs = {"plain": corpus / "original", "relocate": corpus / "moved",
             "reredirects": corpus / "moved", "rediraffe": corpus / "moved"}
    for r, order in alternate(plan.runs, ["plain", "relocate"]):
        extra = ["reredirects", "rediraffe"] if r < plan.other_runs else []
        for mode in order + extra:
            rows[mode].append(run.build(pairs[mode], out / f"{mode}-j1", mode))
    results["overhead"] = rows


def parallel(run: Runner, plan: Plan, corpus: Path, results: dict[str, Any]) -> None:
    run.log(f"-j 2 at {plan.main_pages} pages: {plan.parallel_runs} rounds")
    out = run.workdir / "out"
    rows: dict[str, list[dict[str, Any]]] = {"plain": [], "relocate": []}
    for _, order in alternate(plan.parallel_runs, ["plain", "relocate"]):
        for mode in order:
            src = corpus / ("original" if mode == "plain" else "moved")
            rows[mode].append(run.build(src, out / f"{mode}-j2", mode, jobs=2))
    serial = read_manifest(out / "relocate-j1")
    results["parallel"] = {**rows, "same_stubs": bool(serial) and
                           serial == read_manifest(out / "relocate-j2")}


def read_manifest(outdir: Path) -> dict[str, str]:
    try:
        return dict(json.loads((outdir / "_relocate" / "stubs.json").read_text("utf-8"))["files"])
    except (OSError, ValueError, KeyError):
        return {}


def unmoved_leaf(corpus: Path, skip: set[str]) -> str:
    """A source file at the same path in both projects, not an index page."""
    for path in sorted((corpus / "original").rglob("*.md")):
        rel = path.relative_to(corpus / "original").as_posix()
        if (rel.endswith("index.md") or rel in skip or not rel.isascii()
                or not (corpus / "moved" / rel).exists()):
            continue
        return rel
    raise SystemExit("no unmoved page found")


def incremental(run: Runner, plan: Plan, corpus: Path, results: dict[str, Any]) -> None:
    run.log("incremental builds")
    out = run.workdir / "out"
    srcs = {"plain": corpus / "original", "relocate": corpus / "moved"}
    rows: dict[str, Any] = {"noop": {"plain": [], "relocate": []},
                            "touch": {"plain": [], "relocate": []}}
    for _, order in alternate(plan.incremental_runs, ["plain", "relocate"]):
        for mode in order:
            rows["noop"][mode].append(
                run.build(srcs[mode], out / f"{mode}-j1", mode, fresh=False))
    touched: set[str] = set()
    for _, order in alternate(plan.incremental_runs, ["plain", "relocate"]):
        page = unmoved_leaf(corpus, touched)
        touched.add(page)
        for mode in order:
            os.utime(srcs[mode] / page)
            rows["touch"][mode].append(
                run.build(srcs[mode], out / f"{mode}-j1", mode, fresh=False))

    # one table edit that moves nothing: an old name no page links to any more
    retired = "retired/old-overview"
    some_page = next(iter(sorted(p for p in touched)))[: -len(".md")]
    moved_table = srcs["relocate"] / "relocations.toml"
    rere = srcs["relocate"] / "_relocate" / "reredirects.py"
    text = rere.read_text("utf-8")
    rere.write_text(text.replace("redirects = {\n", "redirects = {\n    "
                                 f'"{retired}": "../{some_page}.html",\n', 1), "utf-8")
    rows["edit_entry"] = {"reredirects": [run.build(srcs["relocate"], out / "reredirects-j1",
                                                    "reredirects", fresh=False)]}
    append_entry(moved_table, retired, some_page)
    rows["edit_entry"]["relocate"] = [run.build(srcs["relocate"], out / "relocate-j1",
                                                "relocate", fresh=False)]

    # move one more page, and add its entry: the page and the pages that link to it
    rows["edit_move"] = {"relocate": []}
    for _ in range(plan.incremental_runs):
        page = unmoved_leaf(corpus, touched)
        touched.add(page)
        old = srcs["relocate"] / page
        new = old.with_name(old.stem + "-relocated.md")
        old.rename(new)
        append_entry(moved_table, page[: -len(".md")], new.relative_to(srcs["relocate"])
                     .as_posix()[: -len(".md")])
        rows["edit_move"]["relocate"].append(
            run.build(srcs["relocate"], out / "relocate-j1", "relocate", fresh=False))
    results["incremental"] = rows


def append_entry(table: Path, old: str, new: str) -> None:
    text = table.read_text("utf-8")
    if "[pages]" not in text:
        text += "\n[pages]\n"
    table.write_text(text.rstrip("\n") + f'\n"{old}" = "{new}"\n', "utf-8")


def scaling(run: Runner, plan: Plan, results: dict[str, Any]) -> None:
    rows: dict[str, Any] = {}
    for pages, runs in sorted(plan.scaling.items()):
        if pages == plan.main_pages:
            continue
        run.log(f"scaling: {pages} pages, {runs} rounds")
        corpus, manifest = run.generate(pages, f"corpus-{pages}")
        out = run.workdir / "out"
        pair: dict[str, list[dict[str, Any]]] = {"plain": [], "relocate": []}
        for _, order in alternate(runs, ["plain", "relocate"]):
            for mode in order:
                src = corpus / ("original" if mode == "plain" else "moved")
                pair[mode].append(run.build(src, out / f"scale-{mode}", mode))
        rows[str(pages)] = {"manifest": manifest, **pair}
        if pages == min(plan.scaling):
            results["rewrite_check"] = rewrite_check(run, corpus)
    results["scaling"] = rows


def stubs(run: Runner, plan: Plan, results: dict[str, Any]) -> None:
    rows: list[dict[str, Any]] = []
    places = [("disk", run.workdir, plan.stubs_disk)]
    if Path("/dev/shm").is_dir():
        places.append(("memory", Path("/dev/shm"), plan.stubs_memory))
    for where, folder, sizes in places:
        for entries, runs in sorted(sizes.items()):
            run.log(f"stubs: {entries} entries on {where} ({folder}), {runs} runs")
            cmd = [run.python, HERE / "stubs_bench.py", "--entries", str(entries),
                   "--runs", str(runs), "--workdir", folder]
            run.note(f"stubs-{where}", cmd)
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(f"stubs_bench failed:\n{done.stderr[-3000:]}")
            for line in done.stdout.splitlines():
                row = json.loads(line)
                row["where"] = where
                rows.append(row)
                run.log(f"  {row['tool']:<11} {row['files']:>6} files: "
                        f"{row['wall_tool_s']:.2f} s vs floor {row['wall_floor_s']:.2f} s "
                        f"(x{row['wall_ratio']:.2f} wall, x{row['cpu_ratio']:.2f} cpu)")
    results["stubs"] = rows


def cli_command(python: str) -> list[str]:
    script = Path(python).parent / "sphinx-relocate"
    if script.exists():
        return [str(script)]
    return [python, "-c", "import sys; from sphinx_relocate._cli import main; sys.exit(main())"]


def rewrite_once(run: Runner, docs: Path, *extra: str) -> dict[str, Any]:
    cmd = [*cli_command(run.python), "rewrite", str(docs), "--repo-root", str(docs), *extra]
    run.note("rewrite", cmd)
    before = children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, stderr = proc.communicate()
    wall = time.perf_counter() - start
    cpu = children_cpu() - before
    if proc.returncode not in (0, 1):
        raise SystemExit(f"rewrite failed ({proc.returncode}):\n{stderr[-3000:]}")
    scanned = re.search(r"(\d+) files scanned", stderr)
    rewrote = re.search(r"rewrote (\d+) links? in (\d+) files?", stderr)
    return {
        "wall": wall,
        "cpu": cpu,
        "scanned": int(scanned.group(1)) if scanned else 0,
        "links": int(rewrote.group(1)) if rewrote else 0,
        "changed": int(rewrote.group(2)) if rewrote else 0,
        "summary": stderr.strip().splitlines()[-1] if stderr.strip() else "",
    }


def children_cpu() -> float:
    """CPU seconds of all finished child processes so far (callers take differences)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rewrite(run: Runner, plan: Plan, results: dict[str, Any]) -> None:
    run.log(f"rewrite: {plan.rewrite_pages} pages, {plan.rewrite_runs} runs")
    corpus, manifest = run.generate(plan.rewrite_pages, f"corpus-{plan.rewrite_pages}")
    rows = []
    for _ in range(plan.rewrite_runs):
        copy = run.workdir / "rewrite-copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(corpus / "moved", copy)
        row = rewrite_once(run, copy, "--write")
        rows.append(row)
        run.log(f"  {row['scanned']} files in {row['wall']:.2f} s "
                f"({row['scanned'] / row['wall']:.0f} files/s): {row['summary']}")
    shutil.rmtree(run.workdir / "rewrite-copy", ignore_errors=True)
    results["rewrite"] = {"manifest": manifest, "runs": rows}


def rewrite_check(run: Runner, corpus: Path) -> dict[str, Any]:
    """Rewrite a copy of the moved sources, then build it without sphinx_relocate."""
    run.log(f"rewrite check on {corpus.name}")
    copy = run.workdir / "rewrite-check"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(corpus / "moved", copy)
    row = rewrite_once(run, copy, "--write")
    built = run.build(copy, run.workdir / "out" / "rewrite-check", "plain")
    return {"rewrite": row, "plain_build": built}


def profile(run: Runner, plan: Plan, results: dict[str, Any]) -> None:
    pages = plan.profile_pages
    run.log(f"profile: sphinx_relocate build at {pages} pages")
    corpus, _ = run.generate(pages, f"corpus-{pages}")
    stats_file = run.workdir / "relocate.prof"
    built = run.build(corpus / "moved", run.workdir / "out" / "profile", "relocate",
                      profile=stats_file)
    stats = pstats.Stats(str(stats_file))
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, ct, _, _) in raw.values())
    own = []
    for (filename, line, name), (_, ncalls, tottime, cumtime, _) in raw.items():
        if "sphinx_relocate" in filename:
            module = filename.split("sphinx_relocate", 1)[1].lstrip("/\\")
            own.append({"function": f"{module}:{line}({name})", "calls": ncalls,
                        "self_s": tottime, "cumulative_s": cumtime})
    results["profile"] = {
        "pages": pages,
        "total_s": total,
        "self_s": sum(r["self_s"] for r in own),
        "top_cumulative": sorted(own, key=lambda r: -r["cumulative_s"])[:12],
        "top_self": sorted(own, key=lambda r: -r["self_s"])[:8],
        "build": built,
    }


# -- the machine ---------------------------------------------------------------------


def machine(run: Runner) -> dict[str, Any]:
    cpu = "unknown"
    memory = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        cpu = platform.processor() or cpu
    probe = (
        "import json, sys, platform\n"
        "from importlib.metadata import version\n"
        "names = ['sphinx', 'docutils', 'myst-parser', 'sphinx-relocate', "
        "'sphinx-reredirects', 'sphinxext-rediraffe']\n"
        "found = {}\n"
        "for n in names:\n"
        "    try: found[n] = version(n)\n"
        "    except Exception: found[n] = 'missing'\n"
        "found['python'] = platform.python_version()\n"
        "print(json.dumps(found))\n"
    )
    done = subprocess.run([run.python, "-c", probe], capture_output=True, text=True, check=True)
    filesystem = "unknown"
    try:
        best = ""
        target = str(run.workdir.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            _, point, kind, *_ = line.split()
            if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
                best, filesystem = point, kind
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "filesystem": filesystem,
        "versions": json.loads(done.stdout),
        "load_start": os.getloadavg(),
    }


# -- the page ------------------------------------------------------------------------


def fmt(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}"


def pct(ratio: float) -> str:
    return f"{(ratio - 1) * 100:+.1f} %"


def spread(values: list[float]) -> str:
    if len(values) < 2:
        return ""
    return f" ({min(values):.3f}–{max(values):.3f})"


def verdict(ok: bool | None) -> str:
    return "**met**" if ok else ("**not met**" if ok is False else "not measured")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def render(results: dict[str, Any]) -> str:  # noqa: C901 - one page, top to bottom
    m = results["machine"]
    v = m["versions"]
    plan = results["plan"]
    out: list[str] = []
    add = out.append
    targets: list[list[str]] = []

    add("# Performance")
    add("")
    add("<!-- Generated by benchmarks/run.py; edit that script, not this page. -->")
    add("")
    add("What sphinx-relocate costs, measured by `benchmarks/run.py` on a generated corpus "
        "that looks like a real documentation set being reorganized. Every comparison "
        "below was measured side by side in one run, the compared builds alternating "
        "(A B, B A, …), and is given as the median of the per-round ratios, so that the "
        "load of the machine (shared with other work while this ran) weighs on both sides "
        "alike. Times are wall-clock unless marked *CPU* (user + system time of the build "
        "process and its workers), which other processes on the machine disturb much less.")
    add("")
    add(f"Run of {results['started']} ({'quick smoke run' if results['quick'] else 'full run'}, "
        f"{results['minutes']:.0f} minutes).")
    add("")

    # the targets, filled in below and printed first
    targets_at = len(out)

    add("## The corpus")
    add("")
    if "corpus" in results:
        c = results["corpus"]
        add(f"`benchmarks/gen_corpus.py --pages {c['pages']} --seed {SEED} "
            f"--move-fraction {MOVE_FRACTION}` writes `original/` and `moved/`:")
        add("")
        add(f"- {c['pages']} pages ({c['markdown_pages']} MyST, {c['rest_pages']} reST) in "
            f"{c['folders']} folders up to {c['max_depth']} deep, each folder with an index "
            f"page whose toctree lists its pages and subfolders ({c['toctree_entries']} "
            "toctree entries, one tree);")
        links = ", ".join(f"{n} `{k}`" for k, n in c["links"].items())
        add(f"- {c['links_total']} cross-references ({links}; `md` are relative Markdown "
            "links, `md#` the same with an anchor, often a CJK heading slug, `doc` relative "
            "and `docabs` absolute `:doc:`), "
            f"{c['images']} images, {c['raw_html_pages']} pages with a raw HTML block "
            f"(`<a href>`, `<img src>`), {c['cjk_headings']} CJK headings and "
            f"{c['cjk_file_names']} CJK file names;")
        add(f"- `moved/`: the same bytes with {c['moved_pages']} pages relocated: "
            f"{c['moved_by_folder']} by {c['prefix_entries']} whole-folder moves "
            f"(`[prefixes]`, images moved along) and {c['moved_one_by_one']} one by one "
            "(one level deeper, renamed, into other or new folders, CJK names made ASCII; "
            "`[pages]`), the images of single pages left behind. Without sphinx-relocate "
            "every reference to a moved page, and every relative path written in one, "
            "breaks.")
        add("")

    # -- overhead
    ov = results.get("overhead")
    if ov:
        plain, reloc = ov["plain"], ov["relocate"]
        add(f"## Overhead at {plan['main_pages']} pages")
        add("")
        add(f"Plain Sphinx on `original/` against sphinx-relocate on `moved/`, "
            f"{len(plain)} full builds (`-E`) each; sphinx-reredirects and "
            f"sphinxext-rediraffe on `moved/`, {len(ov['reredirects'])} build each. "
            "*read* runs to the end of `env-updated` (which includes sphinx-relocate's "
            "check of every reference), *write* to `build-finished`, *finish* is the "
            "`build-finished` handlers (redirect stubs, the dangling report).")
        add("")
        rows = []
        for mode, label in (("plain", "plain Sphinx, `original/`"),
                            ("relocate", "sphinx-relocate, `moved/`"),
                            ("reredirects", "sphinx-reredirects, `moved/`"),
                            ("rediraffe", "sphinxext-rediraffe, `moved/`")):
            runs = ov[mode]
            if not runs:
                continue
            base = plain[: len(runs)]
            rows.append([
                label,
                str(len(runs)),
                fmt(median(r["read"] for r in runs)),
                fmt(median(r["write"] for r in runs)),
                fmt(median(r["finish"] for r in runs), 2),
                fmt(median(r["total"] for r in runs)),
                fmt(median(r["cpu"] for r in runs)),
                fmt(median(r["maxrss_kib"] for r in runs) / 1024, 0),
                "—" if mode == "plain" else
                f"{median(ratios(runs, base, 'total')):.3f} / {median(ratios(runs, base, 'cpu')):.3f}",
                str(max(r["warnings"] for r in runs)),
            ])
        add("\n".join(table(["build", "runs", "read s", "write s", "finish s", "total s",
                             "CPU s", "peak MB", "× plain (wall / CPU)", "warnings"], rows)))
        wall = ratios(reloc, plain, "total")
        cpu = ratios(reloc, plain, "cpu")
        read = ratios(reloc, plain, "read")
        write = ratios(reloc, plain, "write")
        mem = ratios(reloc, plain, "maxrss_kib")
        add(f"sphinx-relocate against plain, median of per-round ratios: total "
            f"{pct(median(wall))} wall{spread(wall)}, {pct(median(cpu))} CPU{spread(cpu)}; "
            f"reading {pct(median(read))}, writing {pct(median(write))}; peak memory "
            f"{pct(median(mem))}.")
        zero = all(r["warnings"] == 0 for r in plain + reloc)
        add("")
        if not zero:
            sample = next((r["warning_sample"] for r in reloc if r["warnings"]), [])
            add("**Not every build was clean**; first warnings of sphinx-relocate's build:")
            add("")
            add("```text")
            out.extend(sample)
            add("```")
            add("")
        ok = median(cpu) - 1 <= OVERHEAD_TARGET and zero
        targets.append([f"overhead ≤ {OVERHEAD_TARGET:.0%} at {plan['main_pages']} pages, "
                        "both builds at 0 warnings",
                        f"{pct(median(cpu))} CPU, {pct(median(wall))} wall; warnings "
                        f"{max(r['warnings'] for r in plain)} / "
                        f"{max(r['warnings'] for r in reloc)}",
                        verdict(ok)])
        add("The stub-only extensions write their redirect pages but leave every reference "
            "written against an old path broken: their warning counts are the references "
            "sphinx-relocate resolves. Their builds are cheaper partly because an "
            "unresolved reference produces no link to render.")
        add("")

    par = results.get("parallel")
    if par and par["plain"]:
        add("## Parallel build (`-j 2`)")
        add("")
        j1 = ov or {"plain": [], "relocate": []}
        rows = []
        for mode in ("plain", "relocate"):
            runs = par[mode]
            serial = median(r["total"] for r in j1[mode])
            rows.append([mode, str(len(runs)), fmt(median(r["total"] for r in runs)),
                         fmt(median(r["cpu"] for r in runs)),
                         f"{serial / median(r['total'] for r in runs):.2f}×",
                         fmt(median(r["maxrss_kib"] for r in runs) / 1024, 0),
                         str(max(r["warnings"] for r in runs))])
        add("\n".join(table(["build", "runs", "total s", "CPU s (all processes)",
                             "speed-up over -j 1", "peak MB (largest process)", "warnings"],
                            rows)))
        r = ratios(par["relocate"], par["plain"], "total")
        add(f"sphinx-relocate against plain with `-j 2`: {pct(median(r))} wall. "
            f"Redirect stubs identical to the serial build's: "
            f"{'yes' if par['same_stubs'] else 'NO'}.")
        add("")

    inc = results.get("incremental")
    if inc:
        add("## Incremental builds")
        add("")
        add(f"On the outputs of the overhead builds ({plan['main_pages']} pages). A table "
            "edit that moves a page must re-read that page and the pages that refer to it; "
            "sphinx-reredirects declares its table with `rebuild=\"env\"`, so any edit "
            "re-reads everything.")
        add("")
        rows = []
        labels = {
            "noop": "no change",
            "touch": "one page touched",
            "edit_entry": "table: one entry added (no page moved)",
            "edit_move": "table: one more page moved, entry added",
        }
        for key, label in labels.items():
            for mode, runs in inc.get(key, {}).items():
                if not runs:
                    continue
                rows.append([label, mode, str(len(runs)),
                             str(int(median(r["reread"] for r in runs))),
                             fmt(median(r["total"] for r in runs), 2),
                             str(max(r["warnings"] for r in runs))])
        add("\n".join(table(["change", "build", "runs", "documents re-read", "total s",
                             "warnings"], rows)))
        touch = inc["touch"]
        if touch["plain"]:
            r = ratios(touch["relocate"], touch["plain"], "total")
            add(f"One page touched: sphinx-relocate against plain {pct(median(r))}.")
            add("")

    sc = results.get("scaling")
    if sc is not None and ov:
        add("## Scaling")
        add("")
        sizes: dict[int, dict[str, Any]] = {int(k): v for k, v in sc.items()}
        if "corpus" in results:
            sizes[plan["main_pages"]] = {"manifest": results["corpus"], **ov}
        rows = []
        per_unit = {}
        for pages in sorted(sizes):
            s = sizes[pages]
            units = s["manifest"]["pages"] + s["manifest"]["links_total"]
            plain_cpu = median(r["cpu"] for r in s["plain"])
            reloc_cpu = median(r["cpu"] for r in s["relocate"])
            per_unit[pages] = (plain_cpu / units * 1e6, reloc_cpu / units * 1e6)
            rows.append([
                str(pages), str(s["manifest"]["links_total"]), str(len(s["plain"])),
                fmt(median(r["total"] for r in s["plain"])),
                fmt(median(r["total"] for r in s["relocate"])),
                f"{median(ratios(s['relocate'], s['plain'], 'cpu')):.3f}",
                f"{per_unit[pages][0]:.0f}", f"{per_unit[pages][1]:.0f}",
                str(max(r["warnings"] for r in s["relocate"])),
            ])
        add("\n".join(table(["pages", "links", "runs", "plain s", "relocate s",
                             "relocate / plain (CPU)", "plain CPU µs per page+link",
                             "relocate CPU µs per page+link", "relocate warnings"], rows)))
        small, large = min(per_unit), max(per_unit)
        growth = per_unit[large][1] / per_unit[small][1]
        plain_growth = per_unit[large][0] / per_unit[small][0]
        add(f"From {small} to {large} pages the CPU cost per page+link of a sphinx-relocate "
            f"build changes by ×{growth:.2f} (plain Sphinx: ×{plain_growth:.2f}). "
            f"Linear means a constant cost per page+link; the target allows "
            f"×{LINEAR_TOLERANCE:.2f} for noise.")
        add("")
        targets.append(["cost linear in pages + links",
                        f"×{growth:.2f} per page+link from {small} to {large} pages "
                        f"(plain ×{plain_growth:.2f})",
                        verdict(growth <= LINEAR_TOLERANCE)])

    st = results.get("stubs")
    if st:
        add("## Redirect stubs")
        add("")
        add("Each extension's stub-writing code is called directly (a build of a 50,000-page "
            "site would take hours) for N old pages moved to N new pages that already exist "
            "in the output folder: sphinx-relocate's `plan()`, rendering and `write_all()` "
            "(with its manifest), that is all of its `build-finished` work; "
            "sphinx-reredirects' `Reredirects.grab_redirects()` and `create_redirects()`; "
            "sphinxext-rediraffe's `build_redirects()` (the whole `build-finished` handler; "
            "it checks that each target exists). Right after each, the files it wrote are "
            "written again into a fresh folder with the fewest system calls Python can do "
            "(`os.makedirs` once per folder, then `os.open`, `os.write`, `os.close` per "
            "file): the *floor* for exactly those files. The output folder is flushed "
            "(`os.sync()`) before every timed phase. See `benchmarks/stubs_bench.py`.")
        add("")
        for where, title in (("disk", f"On disk ({m['filesystem']}, where the builds write)"),
                             ("memory", "In memory (tmpfs `/dev/shm`: no disk, so the "
                              "floor is pure system-call cost and every microsecond of "
                              "Python shows)")):
            rows = []
            for row in (r for r in st if r["where"] == where):
                rows.append([
                    f"{row['entries']:,}", row["tool"], str(row["runs"]), str(row["files"]),
                    fmt(row["wall_tool_s"], 2), fmt(row["wall_floor_s"], 2),
                    f"{row['wall_ratio']:.2f}×{spread(row['wall_ratios'])}",
                    f"{row['cpu_ratio']:.2f}×",
                    f"{(row['cpu_tool_s'] - row['cpu_floor_s']) / row['files'] * 1e6:.0f}",
                ])
            if rows:
                add(f"### {title}")
                add("")
                add("\n".join(table(["entries", "extension", "runs", "files", "phase s",
                                     "floor s", "× floor (wall)", "× floor (CPU)",
                                     "CPU µs per file over floor"], rows)))
        disk = [r for r in st if r["where"] == "disk" and r["tool"] == "relocate"]
        if disk:
            worst = max(r["wall_ratio"] for r in disk)
            targets.append([f"stubs ≤ {STUB_TARGET}× the file-system floor",
                            ", ".join(f"{r['wall_ratio']:.2f}× at {r['entries']:,}"
                                      for r in disk) + " (disk, wall)",
                            verdict(worst <= STUB_TARGET)])

    rw = results.get("rewrite")
    if rw:
        runs = rw["runs"]
        rate = median(r["scanned"] / r["wall"] for r in runs)
        add("## `sphinx-relocate rewrite`")
        add("")
        add(f"`sphinx-relocate rewrite DOCS --repo-root DOCS --write` on a fresh copy of the "
            f"`moved/` sources of a {rw['manifest']['pages']}-page corpus, {len(runs)} runs, "
            "timed as a whole command (interpreter start, table, scan, rewrite, atomic "
            "writes).")
        add("")
        rows = [[str(r["scanned"]), str(r["changed"]), str(r["links"]), fmt(r["wall"], 2),
                 fmt(r["cpu"], 2), f"{r['scanned'] / r['wall']:.0f}"] for r in runs]
        add("\n".join(table(["files scanned", "files changed", "links rewritten", "wall s",
                             "CPU s", "files/s"], rows)))
        targets.append([f"rewrite ≥ {REWRITE_TARGET:,.0f} files/s",
                        f"{rate:,.0f} files/s (median)", verdict(rate >= REWRITE_TARGET)])
    chk = results.get("rewrite_check")
    if chk:
        b = chk["plain_build"]
        add(f"Correctness: the `moved/` sources of the {min(int(k) for k in sc)}-page corpus, "
            f"rewritten ({chk['rewrite']['summary']}), build with plain Sphinx (no "
            f"sphinx-relocate) with **{b['warnings']} warnings**.")
        add("")
        if b["warnings"]:
            add("```text")
            out.extend(b["warning_sample"])
            add("```")
            add("")

    prof = results.get("profile")
    if prof:
        add("## Profile")
        add("")
        add(f"cProfile of one sphinx-relocate build of the moved {prof['pages']}-page corpus: "
            f"{prof['total_s']:.1f} s under the profiler, of which {prof['self_s']:.2f} s "
            f"({prof['self_s'] / prof['total_s']:.1%}) in sphinx_relocate's own functions. "
            "The functions with the most cumulative time:")
        add("")
        rows = [[f"`{r['function']}`", str(r["calls"]), fmt(r["cumulative_s"], 2),
                 fmt(r["self_s"], 2)] for r in prof["top_cumulative"]]
        add("\n".join(table(["function", "calls", "cumulative s", "self s"], rows)))

    add("## Machine and versions")
    add("")
    add(f"- {m['nproc']} CPUs ({m['cpu']}), {m['memory']} memory, {m['os']}, work folder on "
        f"{m['filesystem']}; load average {m['load_start'][0]:.1f} at the start and "
        f"{results['load_end'][0]:.1f} at the end (the machine was shared).")
    add("- " + ", ".join(f"{k} {val}" for k, val in v.items() if k != "python")
        + f"; Python {v['python']}.")
    add("")
    add("## Sizes and run counts")
    add("")
    add(f"- Overhead: {plan['main_pages']} pages, {plan['runs']} rounds of plain and "
        f"sphinx-relocate, {plan['other_runs']} of sphinx-reredirects and sphinxext-rediraffe.")
    add(f"- `-j 2`: {plan['parallel_runs']} round(s). Incremental: "
        f"{plan['incremental_runs']} round(s) of each change, 1 for the table edit of "
        "sphinx-reredirects.")
    add("- Scaling: " + ", ".join(f"{p} pages × {r}" for p, r in
                                  sorted({int(k): v for k, v in plan["scaling"].items()}.items()))
        + f" rounds, besides the overhead size.")
    add("- Stubs: " + ", ".join(f"{int(k):,} × {r}" for k, r in plan["stubs_disk"].items())
        + " runs on disk; " + ", ".join(f"{int(k):,} × {r}" for k, r in
                                       plan["stubs_memory"].items()) + " in memory.")
    add(f"- Rewrite: {plan['rewrite_pages']} pages × {plan['rewrite_runs']} runs.")
    if not results["quick"]:
        add("- These counts keep a full run near half an hour on a shared 2-CPU machine. "
            "The single runs (stub-only extensions, `-j 2`, 5000 pages) are indications, "
            "not medians.")
    add("")
    add("## Commands")
    add("")
    add("Everything above came from one command (`$WORK` is its work folder):")
    add("")
    add("```sh")
    add(results["command"])
    add("```")
    add("")
    add("which runs, for each measurement:")
    add("")
    add("```sh")
    out.extend(results["commands"].values())
    add("```")
    add("")
    add("`benchmarks/build_once.py` is `sphinx-build` through the same `Sphinx` class, with "
        "timestamps from Sphinx events and `ru_maxrss` of the process (and of its `-j` "
        "workers); the `sphinx-build` lines above are the equivalent plain commands. "
        "See `benchmarks/README.md` to set up the interpreter and run it yourself.")
    add("")

    head = ["## Targets", ""]
    head += table(["target", "measured", "status"], targets)
    missed = [t for t in targets if "not met" in t[2]]
    if missed:
        head += ["Where a target is missed, the [profile](#profile) and the sections below "
                 "show where the time goes.", ""]
    out[targets_at:targets_at] = head
    return "\n".join(out).rstrip() + "\n"


# -- main ----------------------------------------------------------------------------


STEPS = ("overhead", "parallel", "incremental", "scaling", "stubs", "rewrite", "profile")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with sphinx, myst-parser, sphinx-reredirects, "
                             "sphinxext-rediraffe and sphinx-relocate (default: this one)")
    parser.add_argument("--quick", action="store_true", help="small sizes, one run each")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/sphinx-relocate-bench"),
                        help="scratch folder for corpora and outputs")
    parser.add_argument("--output", type=Path,
                        help="the results page (default docs/performance.md; with --quick "
                             "WORKDIR/performance.md)")
    parser.add_argument("--skip", nargs="+", default=[], choices=STEPS, metavar="STEP",
                        help=f"steps to leave out: {', '.join(STEPS)}")
    parser.add_argument("--profile", action="store_true",
                        help="profile a build even when the overhead target is met")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite the page from WORKDIR/results.json, measure nothing")
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    output = args.output or (workdir / "performance.md" if args.quick
                             else ROOT / "docs" / "performance.md")
    saved = workdir / "results.json"
    if args.render_only:
        output.write_text(render(json.loads(saved.read_text("utf-8"))), "utf-8")
        print(f"wrote {output}")
        return 0

    plan = QUICK if args.quick else FULL
    run = Runner(python=args.python, workdir=workdir,
                 log=lambda text: print(text, flush=True))
    started = time.perf_counter()
    results: dict[str, Any] = {
        "started": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "quick": args.quick,
        "plan": asdict(plan),
        "command": run.shown(["python", "benchmarks/run.py", "--python", args.python,
                              *(["--quick"] if args.quick else []),
                              *(["--skip", *args.skip] if args.skip else []),
                              "--workdir", workdir]),
    }
    results["machine"] = machine(run)
    print(f"machine: {results['machine']}", flush=True)
    corpus = None
    if {"overhead", "parallel", "incremental"} - set(args.skip):
        corpus, results["corpus"] = run.generate(plan.main_pages, f"corpus-{plan.main_pages}")
    if corpus and "overhead" not in args.skip:
        overhead(run, plan, corpus, results)
    if corpus and "parallel" not in args.skip:
        parallel(run, plan, corpus, results)
    if corpus and "incremental" not in args.skip and "overhead" not in args.skip:
        incremental(run, plan, corpus, results)
    if "scaling" not in args.skip:
        scaling(run, plan, results)
    if "stubs" not in args.skip:
        stubs(run, plan, results)
    if "rewrite" not in args.skip:
        rewrite(run, plan, results)
    missed = False
    if "overhead" in results:
        cpu = ratios(results["overhead"]["relocate"], results["overhead"]["plain"], "cpu")
        missed = median(cpu) - 1 > OVERHEAD_TARGET
    if "profile" not in args.skip and (missed or args.profile):
        profile(run, plan, results)
    results["commands"] = run.commands
    results["load_end"] = os.getloadavg()
    results["minutes"] = (time.perf_counter() - started) / 60
    saved.write_text(json.dumps(results, indent=1, ensure_ascii=False), "utf-8")
    output.write_text(render(results), "utf-8")
    print(f"wrote {output} ({results['minutes']:.1f} min); raw results in {saved}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

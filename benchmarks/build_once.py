#!/usr/bin/env python3
"""Run one Sphinx build and print what it cost as JSON (the runner's child process).

This is ``sphinx-build -b BUILDER [-E] [-j N] SRCDIR OUTDIR`` through the same
:class:`sphinx.application.Sphinx` class, plus timestamps taken from Sphinx events, so
that the runner can split a build into phases:

``init``    constructor: config, extensions, the relocation table, the saved environment
``read``    ``builder-inited`` to the end of ``env-updated`` (reading, merging, checks)
``write``   to the start of ``build-finished`` (resolving and writing every page)
``finish``  the ``build-finished`` handlers (redirect stubs, reports)

and count the documents it re-read and the warnings it gave.  Peak memory is this
process's ``ru_maxrss`` (and that of its worker processes under ``-j``); ``gc_s`` is the
time spent in Python's cyclic garbage collector (this process only).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("srcdir", type=Path)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--mode", default="plain",
                        help="SPHINX_RELOCATE_BENCH: plain, relocate, reredirects, rediraffe")
    parser.add_argument("-b", "--builder", default="html")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("-E", "--fresh", action="store_true", help="ignore a saved environment")
    parser.add_argument("--profile", type=Path, help="write cProfile stats of the build here")
    args = parser.parse_args()

    os.environ["SPHINX_RELOCATE_BENCH"] = args.mode
    #: name -> (wall clock, this process's CPU time)
    stamps: dict[str, tuple[float, float]] = {}
    reread: list[int] = []

    def stamp(name: str) -> Any:
        def handler(*_: Any) -> None:
            stamps[name] = now()

        return handler

    def before_read(_app: Any, _env: Any, docnames: list[str]) -> None:
        stamps["read_start"] = now()
        reread.append(len(docnames))

    warnings = io.StringIO()
    collected = {"seconds": 0.0, "full": 0, "started": 0.0}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        """Time the cyclic garbage collector: its cost grows with the objects alive."""
        if phase == "start":
            collected["started"] = time.perf_counter()
        else:
            collected["seconds"] += time.perf_counter() - collected["started"]
            collected["full"] += info["generation"] == 2

    gc.callbacks.append(on_gc)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    from sphinx.application import Sphinx

    start = now()
    app = Sphinx(
        str(args.srcdir),
        str(args.srcdir),
        str(args.outdir),
        str(args.outdir / ".doctrees"),
        args.builder,
        status=None,
        warning=warnings,
        freshenv=args.fresh,
        parallel=args.jobs,
    )
    stamps["init"] = now()
    app.connect("env-before-read-docs", before_read, priority=-1_000_000)
    app.connect("env-updated", stamp("updated_last"), priority=1_000_000)
    app.connect("build-finished", stamp("finish_first"), priority=-1_000_000)
    app.connect("build-finished", stamp("finish_last"), priority=1_000_000)
    app.build()
    end = now()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(args.profile))

    init = stamps["init"]
    updated = stamps.get("updated_last", init)
    finish_first = stamps.get("finish_first", end)
    finish_last = stamps.get("finish_last", end)
    lines = [line for line in warnings.getvalue().splitlines() if line.strip()]
    problems = [line for line in lines if "WARNING" in line or "ERROR" in line]
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {
        "mode": args.mode,
        "jobs": args.jobs,
        "init": init[0] - start[0],
        "read": updated[0] - init[0],
        "write": finish_first[0] - updated[0],
        "finish": finish_last[0] - finish_first[0],
        "total": end[0] - start[0],
        "cpu_init": init[1] - start[1],
        "cpu_read": updated[1] - init[1],
        "cpu_write": finish_first[1] - updated[1],
        "cpu_finish": finish_last[1] - finish_first[1],
        "reread": sum(reread),
        "warnings": len(problems),
        "warning_sample": problems[:5],
        "maxrss_kib": max(own.ru_maxrss, workers.ru_maxrss),
        "cpu": own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime,
        "statuscode": app.statuscode,
        "gc_s": collected["seconds"],
        "gc_full": collected["full"],
    }
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

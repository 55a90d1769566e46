#!/usr/bin/env python3
"""Time the landing rule's calls in a build, then the very same calls again after it.

Runs ``build_once.py`` with its arguments in this process, with the rule's
``candidates`` (where a written target lands from each folder of its page) timed at each
call and its arguments kept; once the build is done, the same calls are made again in
a loop, three times, with the garbage collector off. In the build each call follows the
parsing of its page, which has evicted the table, the project and the file answers from
the processor's caches; in the loop they stay there. The ratio of the two says how much
of the rule's cost in a build is reaching its data rather than working on it (the
twenty-second look of ``findings.md``)::

    python benchmarks/warm_replay.py CORPUS/moved OUTDIR -E --mode relocate

The build's own JSON line is printed as ``build_once.py`` prints it; this script's
figures go to standard error.
"""

from __future__ import annotations

import gc
import runpy
import sys
import time
from pathlib import Path
from typing import Any

import sphinx_relocate.core.landing as landing

HERE = Path(__file__).resolve().parent


def main() -> int:
    rule = landing.candidates
    calls: list[tuple[Any, ...]] = []
    in_build = [0.0]

    def timed(*args: Any) -> Any:
        calls.append(args)
        started = time.perf_counter()
        try:
            return rule(*args)
        finally:
            in_build[0] += time.perf_counter() - started

    landing.candidates = timed  # type: ignore[assignment]
    sys.path.insert(0, str(HERE))
    sys.argv = [str(HERE / "build_once.py"), *sys.argv[1:]]
    try:
        runpy.run_path(str(HERE / "build_once.py"), run_name="__main__")
    except SystemExit as stopped:
        if stopped.code:
            return int(stopped.code)
    finally:
        landing.candidates = rule
    if not calls:
        print("warm_replay: the build asked the rule nothing (no page moved?)", file=sys.stderr)
        return 1
    per_call = in_build[0] / len(calls) * 1e6
    print(f"in the build: {len(calls)} calls, {in_build[0]:.3f} s, {per_call:.1f} µs a call",
          file=sys.stderr)
    gc.disable()
    for round_ in range(1, 4):
        started = time.perf_counter()
        for args in calls:
            rule(*args)
        seconds = time.perf_counter() - started
        print(f"replayed, round {round_}: {seconds:.3f} s, {seconds / len(calls) * 1e6:.1f} µs "
              f"a call ({in_build[0] / seconds:.1f}x faster)", file=sys.stderr)
    gc.enable()
    return 0


if __name__ == "__main__":
    sys.exit(main())

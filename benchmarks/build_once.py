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

``own_s`` and ``own_cpu`` are the time spent inside sphinx-relocate itself: every event
handler, post-transform and directive hook of the package, timed in place (this process
only, so ``-j`` workers are not counted), the ``config-inited`` handlers that read the
table included.  Unlike the difference between two builds it is not blurred by the
load of the machine, but it leaves out indirect costs such as pickling the references
the extension keeps in the environment, and importing the package.
``own_gc`` is the collector's pauses that started inside it, left out of ``own_*``
(:class:`OwnTime`).
``null_s``, ``null_cpu`` and ``null_lookups`` are the same for the null extension
(``null_extension.py``), which every build runs beside whatever else it loads.
"""

from __future__ import annotations

import argparse
import dis
import gc
import io
import itertools
import json
import os
import resource
import sys
import time
import types
from pathlib import Path
from typing import Any

from null_extension import NullExtension


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


#: seconds of cyclic garbage collection so far in this process (``on_gc`` adds to it)
GC_SECONDS = [0.0]


class OwnTime:
    """Accumulates the wall and CPU time of the callables it wraps; a wrapped callable
    called from inside another counts once, in the outer one.

    A pause of the cyclic garbage collector that starts inside a wrapped callable is
    left out of its time and counted in ``gc``: a full collection walks every object of
    the build (hundreds of milliseconds for a big site) and starts wherever the
    allocation count happens to cross its threshold, so charging it to the code that
    made the last allocation would make that code's time a lottery.  The whole build's
    collector time is ``gc_s``, compared between builds like any other phase.
    """

    def __init__(self, profiler: Any = None) -> None:
        #: a cProfile.Profile that runs only inside the wrapped callables
        self.profiler = profiler
        self.wall = 0.0
        self.cpu = 0.0
        #: garbage collector pauses that started inside the wrapped callables
        self.gc = 0.0
        #: qualified name -> CPU seconds
        self.by_name: dict[str, float] = {}
        self._depth = 0

    def wrap(self, function: Any) -> Any:
        name = f"{function.__module__}.{function.__qualname__}".removeprefix("sphinx_relocate.")

        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._depth:
                return function(*args, **kwargs)
            wall, cpu = now()
            collected = GC_SECONDS[0]
            if self.profiler is not None:
                self.profiler.enable()
            self._depth += 1
            try:
                return function(*args, **kwargs)
            finally:
                self._depth -= 1
                if self.profiler is not None:
                    self.profiler.disable()
                paused = GC_SECONDS[0] - collected
                spent = time.process_time() - cpu - paused
                self.wall += time.perf_counter() - wall - paused
                self.cpu += spent
                self.gc += paused
                self.by_name[name] = self.by_name.get(name, 0.0) + spent

        return timed

    def instrument(self, app: Any) -> None:
        """Wrap sphinx-relocate's handlers, post-transforms and toctree mapping."""
        for name, listeners in app.events.listeners.items():
            app.events.listeners[name] = [
                listener._replace(handler=self.wrap(listener.handler))
                if (module := getattr(listener.handler, "__module__", None) or "").startswith(
                    "sphinx_relocate"
                )
                and not module.endswith(".events")
                else listener
                for listener in listeners
            ]
        self.wrap_features()
        for transform in app.registry.get_post_transforms():
            if (getattr(transform, "__module__", None) or "").startswith("sphinx_relocate"):
                transform.run = self.wrap(transform.run)
        try:
            from sphinx_relocate.sphinx_ext import resolve as _resolve
        except ImportError:
            return
        _resolve.RelocatingTocTree._map = staticmethod(  # type: ignore[method-assign]
            self.wrap(_resolve.RelocatingTocTree._map)
        )
        # a toctree is mapped while its document is parsed: the resolver it makes (which
        # reads a moved page's frame) is the extension's own time too
        _resolve.Resolver.__init__ = self.wrap(  # type: ignore[method-assign]
            _resolve.Resolver.__init__
        )

    def wrap_config_inited(self) -> None:
        """Wrap the extension's ``config-inited`` handlers before ``setup()`` connects them:
        they run inside the ``Sphinx`` constructor, before :meth:`instrument` can (reading
        the table and scanning the sources for ``relocated_from``, on every build)."""
        import sphinx_relocate
        from sphinx_relocate.sphinx_ext import events

        events.load_table = self.wrap(events.load_table)  # type: ignore[method-assign]
        sphinx_relocate.check_config = self.wrap(  # type: ignore[attr-defined]
            sphinx_relocate.check_config  # type: ignore[attr-defined]
        )

    def wrap_features(self) -> None:
        """Wrap the feature functions that the event handlers of ``events.py`` call
        (``module.function``) rather than those handlers, so the time of each feature is
        counted under its own name, with one timer per call as when each was a handler."""
        try:
            from sphinx_relocate.sphinx_ext import events
        except ImportError:
            return
        for handler in list(vars(events).values()):
            if getattr(handler, "__module__", None) != events.__name__:
                continue
            instructions = list(dis.get_instructions(handler))
            for load, attribute in itertools.pairwise(instructions):
                module = vars(events).get(load.argval) if load.opname == "LOAD_GLOBAL" else None
                if not isinstance(module, types.ModuleType) or attribute.opname not in (
                    "LOAD_ATTR", "LOAD_METHOD"
                ):
                    continue
                feature = getattr(module, attribute.argval)
                if getattr(feature, "__module__", None) == module.__name__:
                    setattr(module, attribute.argval, self.wrap(feature))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("srcdir", type=Path)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--mode", default="plain",
                        help="SPHINX_RELOCATE_BENCH: plain, relocate, control, reredirects, "
                             "rediraffe")
    parser.add_argument("-b", "--builder", default="html")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("-E", "--fresh", action="store_true", help="ignore a saved environment")
    parser.add_argument("--profile", type=Path, help="write cProfile stats of the build here")
    parser.add_argument("--profile-own", type=Path,
                        help="write cProfile stats of sphinx-relocate's own code only here")
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
            paused = time.perf_counter() - collected["started"]
            collected["seconds"] += paused
            GC_SECONDS[0] += paused
            collected["full"] += info["generation"] == 2

    gc.callbacks.append(on_gc)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    from sphinx.application import Sphinx

    own_profiler = None
    if args.profile_own:
        import cProfile

        own_profiler = cProfile.Profile()
    own = OwnTime(own_profiler)
    start = now()
    if args.mode in ("relocate", "control"):  # inside the build's window, as Sphinx imports it
        own.wrap_config_inited()
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
    own.instrument(app)
    null, null_time = NullExtension(), OwnTime()
    app.connect("doctree-read", null_time.wrap(null.on_doctree_read))
    app.connect("env-before-read-docs", before_read, priority=-1_000_000)
    app.connect("env-updated", stamp("updated_last"), priority=1_000_000)
    app.connect("build-finished", stamp("finish_first"), priority=-1_000_000)
    app.connect("build-finished", stamp("finish_last"), priority=1_000_000)
    app.build()
    end = now()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(args.profile))
    if own_profiler is not None:
        own_profiler.dump_stats(str(args.profile_own))

    init = stamps["init"]
    updated = stamps.get("updated_last", init)
    finish_first = stamps.get("finish_first", end)
    finish_last = stamps.get("finish_last", end)
    lines = [line for line in warnings.getvalue().splitlines() if line.strip()]
    problems = [line for line in lines if "WARNING" in line or "ERROR" in line]
    usage = resource.getrusage(resource.RUSAGE_SELF)
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
        "maxrss_kib": max(usage.ru_maxrss, workers.ru_maxrss),
        "cpu": usage.ru_utime + usage.ru_stime + workers.ru_utime + workers.ru_stime,
        "statuscode": app.statuscode,
        "gc_s": collected["seconds"],
        "gc_full": collected["full"],
        "own_s": own.wall,
        "own_cpu": own.cpu,
        "own_gc": own.gc,
        "own_by_name": {k: round(v, 4) for k, v in sorted(own.by_name.items())},
        "null_s": null_time.wall,
        "null_cpu": null_time.cpu,
        "null_gc": null_time.gc,
        "null_lookups": null.lookups,
    }
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
table included, and the callables it puts in a page's template context (``pathto``),
less the Sphinx callables they call (:meth:`OwnTime.wrap_page_callables`), and less
what the timers themselves cost, measured in the same process (:func:`timer_overhead`;
``own_cpu_uncorrected`` keeps the sum as timed).  Unlike the difference between two
builds it is not blurred by the load of the machine, but it leaves out indirect costs
such as pickling the references the extension keeps in the environment, and importing
the package.
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
        #: timed calls (outermost ones) by name, of :meth:`wrap` and of ``wrap(fine=True)``,
        #: and calls of :meth:`exclude` inside them
        self.calls: dict[str, int] = {}
        self.fine_calls: dict[str, int] = {}
        self.excluded_calls = 0
        self._depth = 0
        #: seconds spent in Sphinx's callables that wrapped ones called (:meth:`exclude`),
        #: taken out of the callers' time
        self._excluded = 0.0

    def wrap(self, function: Any, *, fine: bool = False) -> Any:
        """``function``, timed on each outermost call.  ``fine``: a callable that runs
        tens of thousands of times for a microsecond each (a page's ``pathto``), timed by
        the wall clock alone, its wall time counted as CPU time too: the process's CPU
        clock is a system call, which would cost more than the call it times."""
        name = f"{function.__module__}.{function.__qualname__}".removeprefix("sphinx_relocate.")
        calls = self.fine_calls if fine else self.calls
        clock = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._depth:
                return function(*args, **kwargs)
            wall = clock()
            cpu = wall if fine else time.process_time()
            collected = GC_SECONDS[0]
            excluded = self._excluded
            if self.profiler is not None:
                self.profiler.enable()
            self._depth += 1
            try:
                return function(*args, **kwargs)
            finally:
                self._depth -= 1
                if self.profiler is not None:
                    self.profiler.disable()
                ended = clock()
                paused = GC_SECONDS[0] - collected + self._excluded - excluded
                spent = (ended if fine else time.process_time()) - cpu - paused
                self.wall += ended - wall - paused
                self.cpu += spent
                self.gc += GC_SECONDS[0] - collected
                self.by_name[name] = self.by_name.get(name, 0.0) + spent
                calls[name] = calls.get(name, 0) + 1

        return timed

    def exclude(self, function: Any) -> Any:
        """``function`` of Sphinx's, which a wrapped callable calls: its time (by the
        wall clock, collector pauses aside) is taken out of the caller's."""

        def excluded(*args: Any, **kwargs: Any) -> Any:
            if not self._depth:
                return function(*args, **kwargs)
            start = time.perf_counter()
            collected = GC_SECONDS[0]
            self.excluded_calls += 1
            depth, self._depth = self._depth, 0
            try:
                return function(*args, **kwargs)
            finally:
                self._depth = depth
                self._excluded += time.perf_counter() - start - (GC_SECONDS[0] - collected)

        return excluded

    def corrected(self, overhead: dict[str, tuple[float, float]]) -> dict[str, Any]:
        """Own wall and CPU seconds less what the timers themselves cost (``overhead``:
        :func:`timer_overhead`, wall and CPU seconds per call of each kind), with the CPU
        seconds by name the same way."""
        counts = {"call": sum(self.calls.values()), "fine": sum(self.fine_calls.values()),
                  "excluded": self.excluded_calls}
        by_name = dict(self.by_name)
        for kind, calls in (("call", self.calls), ("fine", self.fine_calls)):
            for name, count in calls.items():
                by_name[name] -= count * overhead[kind][1]
        return {
            "wall": self.wall - sum(n * overhead[k][0] for k, n in counts.items()),
            "cpu": self.cpu - sum(n * overhead[k][1] for k, n in counts.items()),
            "by_name": by_name,
            "calls": counts,
        }

    def wrap_page_callables(self, _app: Any, _page: str, _template: str,
                            context: dict[str, Any], _doctree: Any) -> None:
        """Time the callables the extension put in a page's context (``pathto`` and
        ``hasdoc`` that follow the table, ``templates.follow_pathto``): the templates call
        them while the page renders, after every handler; the Sphinx callables they wrap
        (the page's own ``pathto``) are Sphinx's time.  Runs after every other handler."""
        for key, value in context.items():
            module = getattr(value, "__module__", None) or ""
            if not callable(value) or not module.startswith("sphinx_relocate"):
                continue
            for cell in getattr(value, "__closure__", None) or ():
                try:
                    contents = cell.cell_contents
                except ValueError:  # not bound yet
                    continue
                inner = getattr(contents, "__module__", None) or ""
                if callable(contents) and not inner.startswith("sphinx_relocate"):
                    cell.cell_contents = self.exclude(contents)
            context[key] = self.wrap(value, fine=True)

    def instrument(self, app: Any) -> None:
        """Wrap sphinx-relocate's handlers, transforms, post-transforms and toctree
        mapping."""
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
        for transform in app.registry.get_transforms():  # run as each document is read
            if (getattr(transform, "__module__", None) or "").startswith("sphinx_relocate"):
                transform.apply = self.wrap(transform.apply)
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


def timer_overhead(calls: int = 20_000, rounds: int = 5) -> dict[str, tuple[float, float]]:
    """What :class:`OwnTime` adds to the time it counts, in wall and CPU seconds per call:
    of a timed callable (``call``), of a finely timed one (``fine``) and of an excluded
    callable inside a timed one (``excluded``); the least of ``rounds``.

    A timed call reads the process's CPU clock, a system call, twice: about a
    microsecond a call, which the handlers that run for every page would otherwise add
    tens of milliseconds of to the extension's time.  Measured on empty callables in
    this process, after the build; the least of the rounds, so that the correction
    never takes more than the timers cost.
    """

    def nothing() -> None:
        return None

    def per_call(make: Any) -> tuple[float, float]:
        best = (float("inf"), float("inf"))
        for _ in range(rounds):
            probe = OwnTime()
            timed = make(probe)
            for _ in range(calls):
                timed()
            best = (min(best[0], probe.wall / calls), min(best[1], probe.cpu / calls))
        return best

    def calling(callee: Any, probe: OwnTime) -> Any:
        def caller() -> None:
            callee()

        return probe.wrap(caller, fine=True)

    fine = per_call(lambda probe: probe.wrap(nothing, fine=True))
    with_excluded = per_call(lambda probe: calling(probe.exclude(nothing), probe))
    plain = per_call(lambda probe: calling(nothing, probe))
    return {
        "call": per_call(lambda probe: probe.wrap(nothing)),
        "fine": fine,
        "excluded": (max(0.0, with_excluded[0] - plain[0]), max(0.0, with_excluded[1] - plain[1])),
    }


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
    if args.mode in ("relocate", "control"):
        app.connect("html-page-context", own.wrap_page_callables, priority=1_000_000)
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
    # after the build's own figures: the calibration's time is in none of them
    overhead = timer_overhead()
    own_time, null_corrected = own.corrected(overhead), null_time.corrected(overhead)
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
        "own_s": own_time["wall"],
        "own_cpu": own_time["cpu"],
        "own_gc": own.gc,
        "own_by_name": {k: round(v, 4) for k, v in sorted(own_time["by_name"].items())},
        "own_calls": own_time["calls"],
        "own_cpu_uncorrected": own.cpu,
        "timer_overhead_us": {k: [round(x * 1e6, 3) for x in v] for k, v in overhead.items()},
        "null_s": null_corrected["wall"],
        "null_cpu": null_corrected["cpu"],
        "null_gc": null_time.gc,
        "null_lookups": null.lookups,
    }
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

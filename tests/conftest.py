"""Shared pytest configuration: Sphinx's own test fixtures and the test roots."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytest_plugins = ("sphinx.testing.fixtures",)

ROOTS = Path(__file__).parent.resolve() / "roots"


@pytest.fixture(scope="session", autouse=True)
def _scratch_in_basetemp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Temporary files of the run (Sphinx's crash reports of the builds the tests stop on
    purpose, Chromium's sockets), in-process and in subprocesses, under pytest's own
    folder rather than the machine's ``/tmp``."""
    scratch = tmp_path_factory.mktemp("tmp", numbered=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(scratch))
        patch.setattr(tempfile, "tempdir", str(scratch))
        yield


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Folder of test projects for ``@pytest.mark.sphinx(testroot="NAME")``.

    Each project lives in ``tests/roots/test-NAME/``. Since Sphinx 7.2 the
    Sphinx fixtures take a :class:`pathlib.Path` here (7.4 through 9.x alike).
    """
    return ROOTS


GENERATOR = Path(__file__).resolve().parent.parent / "benchmarks" / "gen_corpus.py"


@pytest.fixture(scope="session")
def gen_corpus() -> ModuleType:
    """``benchmarks/gen_corpus.py``, the generator of reorganized corpora."""
    if not GENERATOR.exists():  # an sdist without benchmarks/
        pytest.skip("benchmarks/gen_corpus.py is not in this tree")
    name = "sphinx_relocate_benchmarks_gen_corpus"
    spec = importlib.util.spec_from_file_location(name, GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module

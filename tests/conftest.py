"""Shared pytest configuration: Sphinx's own test fixtures and the test roots."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ("sphinx.testing.fixtures",)

ROOTS = Path(__file__).parent.resolve() / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Folder of test projects for ``@pytest.mark.sphinx(testroot="NAME")``.

    Each project lives in ``tests/roots/test-NAME/``. Since Sphinx 7.2 the
    Sphinx fixtures take a :class:`pathlib.Path` here (7.4 through 9.x alike).
    """
    return ROOTS

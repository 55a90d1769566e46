"""Python source read as a syntax tree: conf.py's settings and its literals, the
docstrings of ``.py`` files."""

from __future__ import annotations

import ast
import warnings


def parse_python(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """The syntax tree of Python source, without the ``SyntaxWarning`` compiling it
    may print (an invalid escape in conf.py): Sphinx, which runs conf.py, says it once
    at its path; each read of the commands would say it again, at ``<unknown>``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)  # the same, before Python 3.12
        return ast.parse(source, filename)

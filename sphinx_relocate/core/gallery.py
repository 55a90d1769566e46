"""sphinx-gallery's pages: where the page of each example script is.

sphinx-gallery writes a page per example script (``examples/basics/plot_sum.py`` →
``auto_examples/basics/plot_sum``) and one per gallery folder (its header file →
``auto_examples/basics/index``) at every build, into a folder no commit holds.  An
example moved or renamed in git moves its page, and its labels
(``sphx_glr_auto_examples_basics_plot_sum.py``), though git shows no page renamed:
:func:`gallery_renames` says which.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: the module conf.py's ``extensions`` names to load sphinx-gallery
EXTENSION = "sphinx_gallery.gen_gallery"
#: sphinx-gallery's defaults for the settings read here
DEFAULT_EXAMPLES = "../examples"
DEFAULT_PAGES = "auto_examples"
DEFAULT_EXTENSIONS = (".py",)
DEFAULT_IGNORE = r"__init__\.py"
#: the files whose text heads a gallery folder's page (its ``index``)
HEADERS = ("GALLERY_HEADER.rst", "README.txt", "README.rst")


@dataclass(frozen=True)
class Gallery:
    """One pair of ``examples_dirs`` and ``gallery_dirs``."""

    #: the folder of the example scripts, from the repository root, with a trailing ``/``
    examples: str
    #: the folder of its pages, from the docs folder, with a trailing ``/``
    pages: str
    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    ignore: str = DEFAULT_IGNORE

    def page_of(self, path: str) -> str | None:
        """The docname of the page made from ``path`` (from the repository root), if
        it is an example script or a folder's header of this gallery."""
        if not path.startswith(self.examples):
            return None
        rest = path[len(self.examples) :]
        folder, name = posixpath.split(rest)
        if name in HEADERS:
            return self.pages + posixpath.join(folder, "index")
        stem, suffix = posixpath.splitext(name)
        if suffix not in self.extensions or _ignored(self.ignore, path):
            return None
        return self.pages + posixpath.join(folder, stem) if stem else None


def left_over(galleries: list[Gallery], docname: str, is_file: Callable[[str], bool]) -> str:
    """Why a page of a gallery is there though its example is gone (``is_file`` asks
    for a path as the galleries write them), as advice; ``""`` for any other page.

    sphinx-gallery does not delete the pages of examples that were moved or deleted:
    until its folder is cleaned, Sphinx builds them at their old names.
    """
    for gallery in galleries:
        if gallery.pages and docname.startswith(gallery.pages):
            rest = docname[len(gallery.pages) :]
            if posixpath.basename(rest) == "index":
                continue  # a folder's page: its header may be any of several files
            if not any(is_file(gallery.examples + rest + e) for e in gallery.extensions):
                return (f"a page sphinx-gallery wrote in an earlier build from an example "
                        f"that is gone: delete {gallery.pages}{rest}.rst, or the whole "
                        f"{gallery.pages}, which the next build writes anew")
    return ""


def _ignored(pattern: str, path: str) -> bool:
    try:
        return re.search(pattern, path) is not None
    except re.error:  # conf.py's to answer for; sphinx-gallery says so in the build
        return False


def labels_of(docname: str, path: str, gallery: Gallery) -> tuple[str, ...]:
    """The labels sphinx-gallery writes on the page ``docname`` made from ``path``: an
    example's ``sphx_glr_<page>.py`` and ``sphx_glr_download_<page>.py``, a folder's
    ``sphx_glr_<folder>`` (lowercase, as Sphinx names labels)."""
    if posixpath.basename(path) in HEADERS:
        return ("sphx_glr_" + posixpath.dirname(docname).replace("/", "_").lower(),)
    reference = (docname + posixpath.splitext(path)[1]).replace("/", "_").lower()
    return (f"sphx_glr_{reference}", f"sphx_glr_download_{reference}")


def galleries_of(conf: object, docs_folder: str) -> list[Gallery]:
    """The galleries a ``sphinx_gallery_conf`` value names; ``docs_folder`` is the
    source folder from the repository root (``""`` at the root).  Folders sphinx-gallery
    reads relative to the source folder; a folder outside the repository, or a value of
    another shape, names none."""
    pairs = _folder_pairs(conf)
    if not pairs:
        return []
    assert isinstance(conf, Mapping)
    extensions = conf.get("example_extensions", DEFAULT_EXTENSIONS)
    if not isinstance(extensions, set | frozenset | list | tuple) or not all(
        isinstance(e, str) for e in extensions
    ):
        extensions = DEFAULT_EXTENSIONS
    ignore = conf.get("ignore_pattern", DEFAULT_IGNORE)
    found: list[Gallery] = []
    for source, output in pairs:
        source_path = posixpath.normpath(posixpath.join(docs_folder, source))
        if source_path == "." or source_path.startswith(("/", "..")):
            continue  # examples at the repository's root would be every file
        found.append(Gallery(
            source_path + "/", output, tuple(sorted(extensions)),
            ignore if isinstance(ignore, str) else DEFAULT_IGNORE,
        ))
    return found


def _folder_pairs(conf: object) -> list[tuple[str, str]]:
    """``(examples folder as written, pages folder from the docs folder)`` of each
    gallery; none for a value of another shape or a pages folder outside the docs."""
    if not isinstance(conf, Mapping):
        return []
    examples = conf.get("examples_dirs", DEFAULT_EXAMPLES)
    pages = conf.get("gallery_dirs", DEFAULT_PAGES)
    examples = [examples] if isinstance(examples, str | os.PathLike) else examples
    pages = [pages] if isinstance(pages, str | os.PathLike) else pages
    if not isinstance(examples, list | tuple) or not isinstance(pages, list | tuple):
        return []
    pairs: list[tuple[str, str]] = []
    for written_source, written_output in zip(examples, pages, strict=False):
        source, output = _path_text(written_source), _path_text(written_output)
        if source is not None and output is not None:
            output_path = posixpath.normpath(output)
            if not output_path.startswith(("/", "..")):
                pairs.append((source, "" if output_path == "." else output_path + "/"))
    return pairs


def _path_text(path: object) -> str | None:
    """A folder as conf.py may write it (a string or a ``pathlib`` path), with ``/``."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    return path.replace(os.sep, "/") if isinstance(path, str) else None

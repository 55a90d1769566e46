"""The relocation table: parse, normalize, validate and look up.

Nothing here imports Sphinx, so the build, the command line and the tests share one
model and it stays fast to test.  A table is read from a TOML file and/or a conf.py
dict; every problem becomes a :class:`Problem` with the file and line of the entry.

The modules, in the order a table passes them:

* :mod:`.reader`: ``relocations.toml`` into rows, each with its line (conf.py's dict
  gets its lines from :func:`.reader.mapping_lines`);
* :mod:`.sections`: the registry of sections: for each, how a row becomes an
  :class:`Entry` (or a problem) and what the check against the project looks at;
* :mod:`.load`: :func:`load_table`, rows to one frozen :class:`RelocationTable`, with
  the checks of the whole table (cycles, names that collide on disk);
* :mod:`.lookup`: :class:`RelocationTable` and its chain-following lookups;
* :mod:`.checks`: :func:`check_against_project` and :func:`check_labels`;
* :mod:`.model`: the types they share.

A new section is one entry in :data:`.sections.SECTIONS` (and its part of docs/table.md,
which a test holds to the registry).

Semantics, in one place:

* ``[pages]`` maps an old docname to a new one, to ``docname#anchor`` or to an
  absolute http(s) URL.  Keys and values may carry a source suffix (``a.md``).
* ``[prefixes]`` moves whole folders; the longest prefix wins and ``[pages]`` beats it.
  A folder moved into its own subfolder (``a/`` → ``a/b/``) does not apply again to
  the paths it produced.
* ``[files]`` moves files that are not pages (images, downloads), by path with suffix.
* ``[anchors]`` maps ``old/page#old-id`` to ``new/page#new-id``.
* ``[labels]`` maps an old label to a new one (``"install-label" = "installation"``),
  for ``:ref:``, ``:numref:`` and MyST ``[](#label)``.  Both sides are normalized as
  Sphinx's std domain names labels (:func:`normalize_label`: lowercase, runs of white
  space as one space), so ``"Install-Label"`` is the label ``install-label``.
* ``[patterns]`` maps old docnames that match a glob (``faq/*``) to a target template
  (``help/$source``).  A pattern applies to names that are not documents (the old pages
  links still name); a document only when its entry says ``replace = true``.  It comes
  after ``[pages]`` and ``[prefixes]``, the first pattern written that matches wins, and a
  chain takes at most one pattern step (a template cannot feed itself for ever).
* Chains collapse (A→B, B→C gives A→C) and cycles are refused.
* A key ending in ``.html`` names the page (the suffix is dropped, with a note); a key
  with glob characters outside ``[patterns]`` is an error that points there.
"""

from sphinx_relocate.core.table.checks import check_against_project, check_labels
from sphinx_relocate.core.table.load import collection_paused, load_table
from sphinx_relocate.core.table.lookup import RelocationTable
from sphinx_relocate.core.table.model import (
    CONTROL,
    WILDCARDS,
    Entry,
    Location,
    Pattern,
    PatternValue,
    Problem,
    Row,
    Target,
    control_character,
    normalize_label,
)
from sphinx_relocate.core.table.sections import SECTIONS, Section

__all__ = [
    "CONTROL",
    "SECTIONS",
    "WILDCARDS",
    "Entry",
    "Location",
    "Pattern",
    "PatternValue",
    "Problem",
    "RelocationTable",
    "Row",
    "Section",
    "Target",
    "check_against_project",
    "check_labels",
    "collection_paused",
    "control_character",
    "load_table",
    "normalize_label",
]

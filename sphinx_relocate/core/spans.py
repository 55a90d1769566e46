"""Where link targets are written in source text: Markdown, MyST, reST and raw HTML.

:func:`find_targets` finds the target substrings of every link syntax in one file; the
rewriter replaces just those substrings, so a diff shows only link targets, and the
build reads the same spans of a moved page to decide the folder its links were written
from (its frame), so the build and ``rewrite`` count the same links.  Nothing here
imports Sphinx.
"""

from __future__ import annotations

import json
import posixpath
import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import NamedTuple

from sphinx_relocate.core.ids import PLAIN_HEADINGS, Headings, make_id
from sphinx_relocate.core.paths import SIDEBAR_WILDCARDS
from sphinx_relocate.core.textedit import column_width

#: Files read as Markdown and as reStructuredText anywhere in the repository.
MARKDOWN_SUFFIXES = (".md", ".markdown")
#: a Jupyter notebook (MyST-NB, nbsphinx): its Markdown cells are read as MyST
NOTEBOOK_SUFFIX = ".ipynb"
REST_SUFFIXES = (".rst", ".rest")

_SCHEME_AT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # for match(text, pos)


class Span(NamedTuple):
    """One written target in a file: its offsets, the syntax it is written in and how to
    read it."""

    start: int
    end: int
    #: the markup around it: "link", "image", "reference", "toctree", "html", "doc",
    #: "download", "include", "ref", "any", "repo-url", "site-url", "mention",
    #: "external-toc"
    syntax: str
    #: "path": relative to the file; "doc": a docname; "repo": relative to the repo root;
    #: "site": a whole URL of the published site (``html_baseurl``);
    #: "label": a label name (syntax "ref" for ``:ref:`` and ``:numref:``, "any" for ``:any:``);
    #: "glob": a pattern of docnames
    mode: str = "path"


# -- finding targets ---------------------------------------------------------------

# Patterns start with a literal where they can, so the regex engine skips ahead to it;
# repetitions are "unrolled" (plain characters, then one escape or parenthesis) rather
# than one alternation per character.  Each of these was 3-4 times slower otherwise.
_MD_INLINE = re.compile(
    r"\]\([ \t]*(?:<([^<>\n]*)>"
    r"|([^\s()<>\\]*(?:(?:\\.|\((?:[^\s()\\]|\\.)*\))[^\s()<>\\]*)*))"
)
_MD_REFDEF = re.compile(
    r"^[ ]{0,3}\[(?!\^)[^\]\n]+\]:[ \t]*(?:<([^<>\n]*)>|([^\s<>]+))", re.MULTILINE
)
#: MyST's autolinks to a project's page or file, ``<project:page.md>``, ``<path:data.txt>``
_MD_AUTOLINK = re.compile(r"<(project|path):([^<>\s]+)>")
_HTML_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*\s[^<>]*?>")
_HTML_ATTR = re.compile(
    r"""\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`=]+))""", re.IGNORECASE
)
_FENCE = re.compile(
    r"^[ ]{0,3}(`{3,}|~{3,}|:{3,})[ \t]*(\{[\w:-]+\})?[ \t]*([^\n\r]*)", re.MULTILINE
)
#: ``{doc}`…``` and ``:doc:`…```, matched from the ``d`` (the opening and closing
#: marks are paired by :func:`_role_targets`)
_ROLE = re.compile(r"d(?<=[{:]d)(oc|ownload)([}:])`(?:[^`<]*<([^<>`]+)>|([^`<>]+))`")
#: ``:ref:`…```, ``:numref:`…```, ``:any:`…``` and MyST's ``{ref}`…```, matched from the
#: mark before the role's name (:func:`_label_role_targets` pairs it with the one after)
_LABEL_ROLE = re.compile(
    r"(?<![\w+-])([{:])(?:std:)?(ref|numref|any)([}:])`(?:[^`<]*<([^<>`]+)>|([^`<>]+))`"
)
_RST_LINK = re.compile(r"`(?<!:`)[^`]*?<([^<>`]+)>`__?")
#: directives and link targets, matched from the ``..`` (:func:`_at_line_start` checks
#: that only blanks precede it)
_RST_DIRECTIVE = re.compile(r"\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?([\w:-]+)::[ \t]*([^\n\r]*)")
_RST_TARGET = re.compile(r"\.\.[ \t]+_[^:\n]+:[ \t]+([^\s]+)[ \t]*\r?$", re.MULTILINE)
#: the short form of an anonymous target, ``__ path`` (``.. __: path`` is a _RST_TARGET),
#: which starts a body element: first on its line, after a blank line or another target
_RST_ANONYMOUS = re.compile(r"^[ \t]*__[ \t]+([^\s]+)[ \t]*\r?$", re.MULTILINE)
_TOCTREE_ENTRY = re.compile(r"^(?:(.*\S)[ \t]+<([^<>]+)>|([^<>\s][^\n\r]*?))[ \t]*$")
_FILE_DIRECTIVES = {
    "image": "image",
    "figure": "image",
    "include": "include",
    "literalinclude": "include",
    # diagrams read from a file while the page is parsed, from its folder as
    # literalinclude (Sphinx's relfn2path): sphinx.ext.graphviz, sphinxcontrib-plantuml
    # (conda's architecture page) and sphinxcontrib-mermaid
    "graphviz": "include",
    "uml": "include",
    "mermaid": "include",
}


def find_targets(
    text: str,
    path: str,
    url_re: re.Pattern[str] | None = None,
    mention_re: re.Pattern[str] | None = None,
    *,
    site_re: re.Pattern[str] | None = None,
    labels: bool = False,
    script: bool = False,
    conf: bool = False,
    docstrings: bool = False,
    default_role: str = "",
    any_role: bool = False,
) -> list[Span]:
    """Every link target written in ``text``, as non-overlapping spans in text order.

    With ``labels``, the targets of label roles too (``:ref:``, ``:numref:``, ``:any:``),
    for the rewriter; a page's frame and its links' spellings are read without them.
    ``default_role``, conf.py's: with ``any`` or ``doc``, reST's `` `text <target>` ``
    and `` `target` `` are that role's (``any`` spans: a label or a page); with
    ``any_role``, the targets of ``:any:`` and ``{any}`` (a label or a page) without
    ``labels``' others.
    With ``script``, ``text`` is a sphinx-gallery example: the reST of its text blocks;
    with ``conf``, the project's conf.py: the page names it writes (:func:`conf_targets`);
    with ``docstrings``, a Python file: the reST of its docstrings.
    """
    suffix = posixpath.splitext(path)[1].lower()
    spans: list[Span] = []
    code: list[tuple[int, int]] = []
    if conf:
        spans.extend(conf_targets(text))
    elif script:
        spans.extend(_script_targets(text, labels))
    elif docstrings:
        spans.extend(_docstring_targets(text, labels))
    elif suffix in MARKDOWN_SUFFIXES:
        spans.extend(_markdown_targets(text, labels, code))
        if any_role and not labels and "{any}" in text:
            spans.extend(_outside(_any_role_targets(text, True), code))
    elif suffix == NOTEBOOK_SUFFIX:
        spans.extend(_notebook_targets(text, labels, code))
    elif suffix in REST_SUFFIXES or suffix == ".txt":
        spans.extend(_rest_targets(text, labels, code, default_role, any_role))
    if url_re is not None and "://" in text:
        urls = [
            Span(match.start(1), match.end(1), "repo-url", "repo")
            for match in url_re.finditer(text)
        ]
        spans.extend(_outside(urls, code))  # a URL quoted in code is no link either
    if site_re is not None and "://" in text:
        urls = [
            Span(match.start(1), match.end(1), "site-url", "site")
            for match in site_re.finditer(text)
        ]
        spans.extend(_outside(urls, code))
    if mention_re is not None:
        for match in mention_re.finditer(text):
            spans.append(Span(match.start(1), match.end(1), "mention", "repo"))
    # absolute URLs are rewritten only as own-repository URLs, by their path, and as
    # URLs of the published site; a label role names no URL (autosectionlabel's
    # ``connected-accounts:permissions`` is a page's section)
    spans = [s for s in spans
             if s.mode in ("repo", "site", "label")
             or not _SCHEME_AT.match(text, s.start, s.end)]
    return _without_overlaps(spans)


#: the keys of sphinx-external-toc's site map that name documents, and how each is read
_TOC_KEYS = {"root": "doc", "file": "doc", "glob": "glob"}


def external_toc_targets(text: str) -> list[Span]:
    """The documents sphinx-external-toc's site map (``_toc.yml``) names: ``root:`` and
    ``file:`` values (mode "doc": docnames from the top of the source folder, with or
    without their suffix) and ``glob:`` patterns (mode "glob").

    Read as YAML (PyYAML, which sphinx-external-toc needs): a value is a span only
    where its text is the string YAML reads, so one with escapes, folded over lines or
    not a string is left alone; a file YAML cannot read has none.
    """
    try:
        import yaml
    except ImportError:  # pragma: no cover - sphinx-external-toc requires it
        return []
    try:
        document = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    spans: list[Span] = []
    stack = [document] if document is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(value)
                mode = _TOC_KEYS.get(key.value) if isinstance(key, yaml.ScalarNode) else None
                if mode is None or not isinstance(value, yaml.ScalarNode):
                    continue
                start, end = value.start_mark.index, value.end_mark.index
                if value.style in ('"', "'"):
                    start, end = start + 1, end - 1
                if value.value and text[start:end] == value.value and value.tag.endswith(":str"):
                    spans.append(Span(start, end, "external-toc", mode))
    return _without_overlaps(spans)


#: a Jinja ``pathto('name')`` or ``hasdoc('name')`` call of an HTML template, and the
#: second argument of ``pathto`` if any
_PATHTO = re.compile(
    r"""\b(pathto|hasdoc)\(\s*(?:'([^'\\\n{}]+)'|"([^"\\\n{}]+)")\s*"""
    r"""(?:,\s*([^,)]*?)\s*)?\)"""
)
#: a second argument that makes ``pathto`` take a file (``resource``), not a page
_RESOURCE = re.compile(r"(?:resource\s*=\s*)?(?:1|[Tt]rue)")


def template_targets(text: str) -> list[Span]:
    """The pages an HTML template links by ``pathto('name')`` and asks for by
    ``hasdoc('name')`` (syntax "pathto" and "hasdoc", mode "doc": docnames from the top
    of the source folder); a file's ``pathto('_static/x', 1)`` and a name Jinja
    computes are not read."""
    spans: list[Span] = []
    for match in _PATHTO.finditer(text):
        resource = match.group(4)
        if resource is not None and (match.group(1) == "hasdoc" or _RESOURCE.fullmatch(resource)):
            continue
        group = 2 if match.group(2) is not None else 3
        spans.append(Span(match.start(group), match.end(group), match.group(1), "doc"))
    return spans


#: the conf.py settings whose keys name pages: Sphinx's ``html_sidebars``, and the
#: ``secondary_sidebar_items`` of ``html_theme_options`` (pydata-sphinx-theme's)
SIDEBAR_SETTINGS = ("html_sidebars", "secondary_sidebar_items")


def sidebar_keys(text: str) -> list[Span]:
    """The keys of a conf.py's ``html_sidebars = {…}`` and of the
    ``"secondary_sidebar_items": {…}`` of its ``html_theme_options = {…}`` (syntax: the
    setting's name; mode "doc" for a page name, "glob" for a pattern), each a docname or
    a pattern of them from the top of the source folder.  Only plain string literals
    are read: a key with an escape, a prefix or a computed one is left alone, as is a
    conf.py that does not parse."""
    return [span for span in conf_targets(text) if span.syntax in SIDEBAR_SETTINGS]


def conf_targets(text: str) -> list[Span]:
    """The page names a conf.py writes as string literals: the sidebar keys of
    :func:`sidebar_keys`, and the targets of ``rediraffe_redirects = {…}`` (syntax
    ``rediraffe_redirects``, mode "doc"), the pages sphinxext-rediraffe's stubs send
    readers to, by source path or docname from the top of the source folder (its old
    names are the keys, which stay).

    And the targets of sphinx-reredirects' ``redirects = {…}`` (syntax ``redirects``,
    mode "path"), URLs relative to the folder of their key's page: only those of a key
    at the top of the source folder, which is conf.py's, so that they read from
    conf.py's folder as they do from the key's (``"release": "developers/release.html"``).
    A key in a folder (``"old/x": "../new.html"``) or a pattern, and a target that is an
    absolute URL, site-absolute (``/en/latest/…``) or has a query, are left alone.
    """
    import ast  # only for the conf.py of a project that has one

    from sphinx_relocate.core.pysource import parse_python

    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return []
    starts = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]

    def literal_spans(literals: list[ast.expr | None], syntax: str,
                      mode: str | None = None) -> Iterator[Span]:
        for literal in literals:
            if not (isinstance(literal, ast.Constant) and isinstance(literal.value, str)
                    and literal.value and literal.end_lineno == literal.lineno
                    and literal.end_col_offset is not None):
                continue
            line = text[starts[literal.lineno - 1] :].partition("\n")[0].encode("utf-8")
            start = starts[literal.lineno - 1] + len(line[: literal.col_offset].decode("utf-8"))
            end = starts[literal.lineno - 1] + len(
                line[: literal.end_col_offset].decode("utf-8")
            )
            written = text[start:end]
            if (len(written) < 3 or written[0] not in "'\"" or written[-1] != written[0]
                    or written[1:-1] != literal.value or "\\" in written):
                continue
            glob = syntax in SIDEBAR_SETTINGS and SIDEBAR_WILDCARDS.intersection(literal.value)
            yield Span(start + 1, end - 1, syntax, mode or ("glob" if glob else "doc"))

    spans: list[Span] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Dict):
            continue
        if target.id == "html_sidebars":
            spans.extend(literal_spans(value.keys, "html_sidebars"))
        elif target.id == "rediraffe_redirects":
            spans.extend(literal_spans(list(value.values), "rediraffe_redirects"))
        elif target.id == "redirects":
            spans.extend(literal_spans([
                target_url for key, target_url in zip(value.keys, value.values, strict=True)
                if _top_level_name(key) and _relative_url(target_url)
            ], "redirects", "path"))
        elif target.id == "html_theme_options":
            for key, option in zip(value.keys, value.values, strict=True):
                if (isinstance(key, ast.Constant) and key.value == "secondary_sidebar_items"
                        and isinstance(option, ast.Dict)):
                    spans.extend(literal_spans(option.keys, "secondary_sidebar_items"))
    return spans


def _top_level_name(key: object) -> bool:
    """A sphinx-reredirects key naming one page at the top of the source folder."""
    import ast

    return (isinstance(key, ast.Constant) and isinstance(key.value, str)
            and re.fullmatch(r"[^/*?\[\]]+", key.value) is not None)


def _relative_url(target: object) -> bool:
    """A sphinx-reredirects target that is a relative URL with no query."""
    import ast

    return (isinstance(target, ast.Constant) and isinstance(target.value, str)
            and re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|/|\s", target.value) is None
            and "?" not in target.value)


_SIDE = r"""(?:(?P<{0}q>["'])(?P<{0}quoted>.*?)(?P={0}q)|(?P<{0}bare>\S+))"""
#: One line of sphinxext-rediraffe's redirects file: two paths, each bare or in quotes,
#: white space between (the line stripped; a comment is a line of its own).
REDIRECT_PAIR = re.compile(_SIDE.format("old") + r"\s+" + _SIDE.format("new"))


def redirects_file_targets(text: str) -> list[Span]:
    """The targets of sphinxext-rediraffe's redirects file (``rediraffe_redirects =
    "redirects.txt"``): the second path of each line, a page by source path or docname
    from the top of the source folder (syntax ``rediraffe_redirects``, mode "doc"), as
    :func:`conf_targets` reads them from a dict in conf.py."""
    spans: list[Span] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        match = REDIRECT_PAIR.fullmatch(stripped) if not stripped.startswith("#") else None
        if match is not None:
            group = "newquoted" if match.group("newquoted") is not None else "newbare"
            start = offset + line.index(stripped) + match.start(group)
            if match.end(group) > match.start(group):
                spans.append(Span(start, start + match.end(group) - match.start(group),
                                  "rediraffe_redirects", "doc"))
        offset += len(line)
    return spans


#: the conf.py name each of :data:`SIDEBAR_SETTINGS` is assigned in
SIDEBAR_ASSIGNED_IN = {"html_sidebars": "html_sidebars",
                       "secondary_sidebar_items": "html_theme_options"}


def sidebar_key_lines(text: str) -> dict[tuple[str, str], int]:
    """``(setting, key)`` → the line of conf.py's text that writes the key (the first, of
    a key written twice)."""
    return {(span.syntax, text[span.start : span.end]): text.count("\n", 0, span.start) + 1
            for span in reversed(sidebar_keys(text))}


def _without_overlaps(spans: list[Span]) -> list[Span]:
    """Earlier spans win; a span that overlaps a kept one is dropped."""
    kept: list[Span] = []
    end = -1
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.start >= end and span.end > span.start:
            kept.append(span)
            end = span.end
    return kept


def _lines(text: str, offset: int = 0) -> list[tuple[int, str]]:
    """``(offset, line)`` pairs, lines keeping their ends."""
    result = []
    for line in text.splitlines(keepends=True):
        result.append((offset, line))
        offset += len(line)
    return result


def _outside(spans: list[Span], code: list[tuple[int, int]]) -> list[Span]:
    """The spans that start outside every ``(start, end)`` region of ``code``."""
    if not code:
        return spans
    code.sort()
    starts = [start for start, _ in code]
    ends = list(accumulate((end for _, end in code), max))
    kept = []
    for span in spans:
        index = bisect_right(starts, span.start) - 1
        if index < 0 or ends[index] <= span.start:
            kept.append(span)
    return kept


def _markdown_targets(
    text: str, labels: bool = False, code: list[tuple[int, int]] | None = None,
    fences: list[tuple[int, int]] | None = None,
) -> list[Span]:
    """The link targets of a MyST/Markdown text; ``code`` gets the regions that are no
    Markdown (code blocks, code spans, comments), which hold no link, and ``fences`` the
    opening and closing lines of every fence, in pairs (a body lies between the two)."""
    spans: list[Span] = []
    code = [] if code is None else code
    opaque: list[tuple[int, int]] = []  # bodies read otherwise (toctree, eval-rst)
    fences = [] if fences is None else fences
    directives = (
        _myst_blocks(text, code, opaque, fences, labels)
        if any(mark in text for mark in _FENCE_MARKS)
        else []
    )
    inline = _markdown_code(text, [*code, *opaque, *fences])
    code.extend(inline)
    if "](" in text:
        for match in _MD_INLINE.finditer(text):
            group = 1 if match.group(1) is not None else 2
            if not match.group(group) and group == 2:
                continue  # "[text]()": nothing to rewrite
            bracket = text.rfind("[", 0, match.start())
            syntax = "image" if bracket > 0 and text[bracket - 1] == "!" else "link"
            spans.append(Span(match.start(group), match.end(group), syntax))
    if "]:" in text:
        for match in _MD_REFDEF.finditer(text):
            group = 1 if match.group(1) is not None else 2
            spans.append(Span(match.start(group), match.end(group), "reference"))
    if "<" in text:
        spans.extend(_html_targets(text))
    if "<project:" in text or "<path:" in text:
        for match in _MD_AUTOLINK.finditer(text):  # <path:…> is a download of a file
            syntax = "link" if match.group(1) == "project" else "download"
            spans.append(Span(match.start(2), match.end(2), syntax))
    if "}`" in text:
        spans.extend(_role_targets(text))
    if labels and "}`" in text:
        spans.extend(_label_role_targets(text, markdown=True))
    # nothing inside a code block, a code span or a comment is a link
    return _outside(spans, [*code, *opaque]) + _outside(directives, inline)


#: a string of JSON text (its quotes, and every escape inside)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _notebook_targets(
    text: str, labels: bool = False, code: list[tuple[int, int]] | None = None
) -> list[Span]:
    """The link targets of a notebook's Markdown cells, at their offsets in its JSON text.

    Each cell's source lines are JSON strings: the cell is read as Markdown, and a
    target is kept only where the JSON text spells it as the cell does (no escape in
    it), so an edit of that span is an edit of the cell.  A text that is not a notebook
    has none; ``code`` gets every other JSON string (code cells, outputs, metadata).
    """
    try:
        notebook = json.loads(text)
    except ValueError:
        return []
    tokens = [(match.start(), match.end()) for match in _JSON_STRING.finditer(text)]
    strings = list(_json_strings(notebook, ()))
    if len(tokens) != len(strings) or not isinstance(notebook, dict):
        return []
    cells = notebook.get("cells")
    cells = cells if isinstance(cells, list) else []
    markdown = {
        index for index, cell in enumerate(cells)
        if isinstance(cell, dict) and cell.get("cell_type") == "markdown"
    }
    # cell -> (line, its token's start, how its JSON escapes: ASCII only, or None when
    # neither way of json.dumps spells it as the text does)
    lines_of: dict[int, list[tuple[str, int, bool | None]]] = {}
    for (value, path), (start, end) in zip(strings, tokens, strict=True):
        if len(path) >= 3 and path[:1] == ("cells",) and path[1] in markdown \
                and path[2] == "source":
            raw = text[start:end]
            spelled = next((ascii_only for ascii_only in (False, True)
                            if json.dumps(value, ensure_ascii=ascii_only) == raw), None)
            lines_of.setdefault(int(path[1]), []).append((value, start, spelled))
        elif code is not None:
            code.append((start, end))
    spans: list[Span] = []
    for lines in lines_of.values():
        starts, at = [], 0  # each line's offset in the cell's text
        for line, _, _ in lines:
            starts.append(at)
            at += len(line)
        cell_text = "".join(line for line, _, _ in lines)
        for span in _markdown_targets(cell_text, labels):
            index = bisect_right(starts, span.start) - 1
            (line, token, ascii_only), first = lines[index], starts[index]
            if ascii_only is None or span.end > first + len(line):
                continue  # a line JSON spells otherwise, or a span across lines
            before = line[: span.start - first]
            start = token + len(json.dumps(before, ensure_ascii=ascii_only)) - 1
            end = start + span.end - span.start
            if text[start:end] == cell_text[span.start : span.end]:  # no escape inside
                spans.append(span._replace(start=start, end=end))
    return spans


def _json_strings(
    value: object, path: tuple[str | int, ...]
) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """Every string of a JSON value, keys included, with where it is, in the order its
    text writes them (``json`` keeps the order of an object's keys)."""
    if isinstance(value, str):
        yield value, path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key, (*path, _KEY)
            yield from _json_strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_strings(item, (*path, index))


#: where a key of a JSON object stands (no value's path ends with it)
_KEY = "\0key"


#: what a text that holds a fence of MyST holds
_FENCE_MARKS = ("```", "~~~", ":::")
#: MyST directives whose body is not Markdown (an eval-rst body is read as reST)
_OPAQUE_FENCES = ("literalinclude", "toctree", "eval-rst")
#: directives whose body is code or data, never links, in MyST and reST alike
_CODE_FENCES = frozenset({
    "code", "code-block", "code-cell", "sourcecode", "literalinclude", "highlight",
    "doctest", "testcode", "testoutput", "testsetup", "testcleanup", "math", "mermaid",
    "graphviz", "digraph", "graph", "jupyter-execute", "ipython", "prompt", "program-output",
    "command-output",
})


def _myst_blocks(
    text: str,
    code: list[tuple[int, int]],
    opaque: list[tuple[int, int]],
    fences: list[tuple[int, int]],
    labels: bool = False,
) -> list[Span]:
    """Toctree entries and file arguments of MyST directives; records the bodies of code
    fences in ``code``, those of directives read otherwise in ``opaque`` and the opening
    and closing lines of every fence in ``fences``."""
    spans: list[Span] = []
    position = 0
    while True:
        match = _FENCE.search(text, position)
        if match is None:
            break
        comment_end = _open_comment_block(text, position, match.start())
        if comment_end is not None:  # a fence line inside an HTML comment is text
            position = comment_end
            continue
        fence, directive, argument = match.group(1), match.group(2), match.group(3)
        line_end = text.find("\n", match.end())
        body_start = len(text) if line_end < 0 else line_end + 1
        if fence.startswith(":") and not directive:
            position = body_start  # a bare ::: is not a fence
            continue
        if fence.startswith("`") and "`" in (directive or "") + argument:
            # CommonMark: a backtick fence's info string holds no backtick, so the line
            # is inline code (MyST-Parser's ``` `` `hi` `` ``` in its how-to page)
            position = body_start
            continue
        end, position = _fence_end(text, fence, body_start)
        fences.append((match.start(), body_start))
        fences.append((end, position))
        name = directive[1:-1] if directive else ""
        if name == "toctree":
            spans.extend(_toctree_entries(_lines(text[body_start:end], body_start), True))
        elif name in ("csv-table", "raw"):
            spans.extend(_file_options(_lines(text[body_start:end], body_start)))
        elif name == "eval-rst":  # reST inside Markdown
            rest_code: list[tuple[int, int]] = []
            spans.extend(
                s._replace(start=s.start + body_start, end=s.end + body_start)
                for s in _rest_targets(text[body_start:end], False, rest_code)
            )
            code.extend((a + body_start, b + body_start) for a, b in rest_code)
        elif name in _FILE_DIRECTIVES and argument.strip():
            start = match.start(3)
            spans.append(Span(start, start + len(argument.rstrip()), _FILE_DIRECTIVES[name]))
            if _FILE_DIRECTIVES[name] == "image":
                spans.extend(_target_option(_lines(text[body_start:end], body_start)))
        elif name in _DESIGN_LINKS:
            argument_span = (match.start(3), match.start(3) + len(argument.rstrip()))
            spans.extend(_design_links(
                name, argument_span, _lines(text[body_start:end], body_start), labels
            ))
        if not directive or name in _CODE_FENCES or name.startswith("code"):
            code.append((body_start, end))
        elif name in _OPAQUE_FENCES:
            opaque.append((body_start, end))
        elif name not in ("csv-table", "raw") and any(
            f in text[body_start:end] for f in _FENCE_MARKS
        ):
            # a body of Markdown (a note, a div) may hold directives of its own
            spans.extend(_nested_blocks(text, body_start, end, code, opaque, fences, labels))
    return spans


def _open_comment_block(text: str, start: int, at: int) -> int | None:
    """The end of an HTML comment block that a line of ``text[start:at]`` opens and that
    is still open at ``at``, else ``None``.

    As in CommonMark (HTML block type 2), a line starting with ``<!--`` opens a block
    that ends with the line holding ``-->``, fence lines inside it included: the
    pyOpenSci guide comments out a toctree as ``<!-- ```{toctree}`` … ``` --> ``, whose
    last line opened a code fence that hid the page's next links from ``rewrite``.
    """
    position = start
    while (opening := _COMMENT_BLOCK.search(text, position, at)) is not None:
        close = text.find("-->", opening.end() - 2)
        if close < 0:
            return len(text)
        line_end = text.find("\n", close)
        end = len(text) if line_end < 0 else line_end + 1
        if end > at:
            return end
        position = end
    return None


def _fence_end(text: str, fence: str, body_start: int) -> tuple[int, int]:
    """Where the body of a fence opened by ``fence`` ends, and where its closing line
    does (both the end of ``text`` when it is not closed)."""
    closing = re.compile(
        rf"^[ ]{{0,3}}{re.escape(fence)}{re.escape(fence[0])}*[ \t]*\r?$", re.MULTILINE
    ).search(text, body_start)
    return (closing.start(), closing.end()) if closing else (len(text), len(text))


def _nested_blocks(
    text: str,
    start: int,
    end: int,
    code: list[tuple[int, int]],
    opaque: list[tuple[int, int]],
    fences: list[tuple[int, int]],
    labels: bool,
) -> list[Span]:
    """:func:`_myst_blocks` of the body ``text[start:end]``, in the positions of ``text``."""
    inner_code: list[tuple[int, int]] = []
    inner_opaque: list[tuple[int, int]] = []
    inner_fences: list[tuple[int, int]] = []
    spans = _myst_blocks(text[start:end], inner_code, inner_opaque, inner_fences, labels)
    for found, into in ((inner_code, code), (inner_opaque, opaque), (inner_fences, fences)):
        into.extend((a + start, b + start) for a, b in found)
    return [span._replace(start=span.start + start, end=span.end + start) for span in spans]


#: a run of backticks (a code span's delimiter, or a role's); an HTML comment; a MyST
#: comment line
_BACKTICKS = re.compile(r"`+")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_COMMENT_BLOCK = re.compile(r"^[ ]{0,3}<!--", re.MULTILINE)
_MYST_COMMENT = re.compile(r"^[ ]{0,3}%[^\n]*", re.MULTILINE)
_LIST_ITEM = re.compile(r"[ ]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_ATX_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")


def _masked(text: str, regions: list[tuple[int, int]]) -> str:
    """``text`` with the regions blanked (line breaks kept), so offsets stay the same."""
    if not regions:
        return text
    parts = []
    last = 0
    for start, end in sorted(regions):
        start = max(start, last)
        if end <= start:
            continue
        parts.append(text[last:start])
        parts.append(re.sub(r"[^\n]", " ", text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _markdown_code(text: str, blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Regions of Markdown text outside ``blocks`` (fences) that hold no link, as MyST
    reads them: indented code blocks, code spans, HTML comments and ``%`` comments.

    Code spans are paired as CommonMark pairs backtick runs (a run closes at the next run
    of the same length, within the paragraph); a run right after ``}`` is a role's.
    """
    masked = _masked(text, blocks)
    regions: list[tuple[int, int]] = []
    if "`" in masked:
        position = 0
        while (run := _BACKTICKS.search(masked, position)) is not None:
            position = run.end()
            if run.start() and masked[run.start() - 1] == "\\":
                continue  # an escaped backtick opens nothing (the rest of the run may)
            paragraph = _BLANK_LINE.search(masked, position)
            closing = re.compile(rf"(?<!`){run.group()}(?!`)").search(
                masked, position, paragraph.start() if paragraph else len(masked)
            )
            if closing is None:
                continue
            if run.start() == 0 or masked[run.start() - 1] != "}":
                regions.append((run.start(), closing.end()))
            position = closing.end()
    if "<!--" in masked:
        for match in _HTML_COMMENT.finditer(masked):
            closed = match.group().endswith("-->")
            if (closed or _at_line_start(masked, match.start()) is not None) and not _inside(
                regions, match.start()
            ):
                regions.append((match.start(), match.end()))
    if "%" in masked:
        regions.extend((m.start(), m.end()) for m in _MYST_COMMENT.finditer(masked))
    regions.extend(_indented_code(masked))
    return regions


def _inside(regions: list[tuple[int, int]], position: int) -> bool:
    return any(start <= position < end for start, end in regions)


def _indented_code(text: str) -> list[tuple[int, int]]:
    """Indented code blocks: lines indented four columns or more after a blank line (or
    a heading, or the start), outside a list (whose items indent their own blocks)."""
    regions: list[tuple[int, int]] = []
    may_start = True  # no paragraph runs on to the next line
    in_list = False
    in_code = False
    for offset, line in _lines(text):
        content = line.rstrip("\r\n")
        if not content.strip():
            may_start = True
            continue
        indent = len(content.expandtabs(4)) - len(content.expandtabs(4).lstrip())
        if indent >= 4 and (in_code or may_start) and not in_list:
            if in_code:
                regions[-1] = (regions[-1][0], offset + len(content))
            else:
                regions.append((offset + indent if "\t" not in content else offset,
                                offset + len(content)))
            in_code = True
            may_start = False
            continue
        in_code = False
        if _LIST_ITEM.match(content):
            in_list = True
        elif indent < 2 and may_start:
            in_list = False  # a block at the margin after a blank line ends the list
        may_start = bool(_ATX_HEADING.match(content))
    return regions


def _toctree_entries(body: list[tuple[int, str]], markdown: bool) -> list[Span]:
    spans: list[Span] = []
    glob = any(line.strip() == ":glob:" for _, line in body)
    in_yaml = False
    for offset, line in body:
        stripped = line.strip()
        if markdown and stripped == "---":
            in_yaml = not in_yaml
            continue
        if in_yaml or not stripped or stripped.startswith(":") or stripped == "self":
            continue
        lead = len(line) - len(line.lstrip())
        match = _TOCTREE_ENTRY.match(line[lead:].rstrip("\r\n"))
        if not match:
            continue
        group = 2 if match.group(2) is not None else 3
        mode = "doc"
        if glob and any(c in match.group(group) for c in "*?["):
            if group == 2:
                continue  # a title makes the entry one page, which Sphinx then looks up
            mode = "glob"
        start = offset + lead
        spans.append(Span(start + match.start(group), start + match.end(group), "toctree", mode))
    return spans


def _html_targets(text: str) -> list[Span]:
    """``href`` and ``src`` values of start tags, outside HTML comments (which the build
    leaves as written)."""
    spans: list[Span] = []
    comments = (
        [(m.start(), m.end()) for m in _HTML_COMMENT.finditer(text)] if "<!--" in text else []
    )
    for tag in _HTML_TAG.finditer(text):
        if comments and _inside(comments, tag.start()):
            continue
        for attr in _HTML_ATTR.finditer(tag.group()):
            group = next(g for g in (1, 2, 3) if attr.group(g) is not None)
            start = tag.start() + attr.start(group)
            spans.append(Span(start, tag.start() + attr.end(group), "html"))
    return spans


def html_file_targets(text: str) -> list[Span]:
    """The pages an HTML file of ``html_extra_path`` links (``href`` and ``src`` values,
    mode "doc": URLs of pages, read as page names)."""
    return [span._replace(mode="doc") for span in _html_targets(text)]


def _role_targets(text: str) -> list[Span]:
    spans: list[Span] = []
    for match in _ROLE.finditer(text):
        if (text[match.start() - 1] == "{") != (match.group(2) == "}"):
            continue
        role = "doc" if match.group(1) == "oc" else "download"
        group = 3 if match.group(3) is not None else 4
        mode = "doc" if role == "doc" else "path"
        spans.append(Span(match.start(group), match.end(group), role, mode))
    return spans


class Role(NamedTuple):
    """The whole ``:doc:`…``` or ``{doc}`…``` around a target."""

    start: int
    end: int
    #: the explicit title, else ``None``
    title: str | None
    #: MyST's ``{doc}`` (else reST's ``:doc:``)
    myst: bool


def role_around(text: str, span: Span) -> Role | None:
    """The role whose target is ``span``, so that a target that became a URL can be
    written as a link (a ``:doc:`` cannot name a URL)."""
    if span.syntax not in ("doc", "download"):
        return None
    role = "doc" if span.syntax == "doc" else "download"
    mark = max(
        text.rfind(":" + role + ":`", 0, span.start), text.rfind("{" + role + "}`", 0, span.start)
    )
    match = _ROLE.match(text, mark + 1) if mark >= 0 else None
    if match is None:
        return None
    group = 3 if match.group(3) is not None else 4
    if (match.start(group), match.end(group)) != (span.start, span.end):
        return None
    title = None
    if group == 3:  # ":doc:`" and "{doc}`" are len(role) + 3 characters
        title = text[mark + len(role) + 3 : text.rindex("<", 0, span.start)].strip()
    return Role(mark, match.end(), title, text[mark] == "{")


def shown_as_text(text: str, span: Span) -> str | None:
    """How to write a new target where the written one is also the text a reader sees,
    so that the text stays: ``"download"`` for a ``:download:``/``{download}`` role
    without a title (``{download}`data.csv```), ``"reference"`` for a reST link with
    none (```<data.csv>`_``); ``None`` where the link shows other text (``:doc:`` shows
    the page's title)."""
    if span.syntax == "download":
        role = role_around(text, span)
        return "download" if role is not None and role.title is None else None
    if span.syntax == "link" and text.startswith(">`", span.end) and span.start >= 2:
        opening = text.rfind("`", 0, span.start - 1)
        if opening >= 0 and text[span.start - 1] == "<" and not text[
            opening + 1 : span.start - 1
        ].strip():
            return "reference"
    return None


def _label_role_targets(text: str, markdown: bool) -> list[Span]:
    """The targets of label roles: ``{ref}`…``` in MyST, ``:ref:`…``` in reST."""
    spans: list[Span] = []
    for match in _LABEL_ROLE.finditer(text):
        if (match.group(1) == "{") != markdown or (match.group(3) == "}") != markdown:
            continue
        group = 4 if match.group(4) is not None else 5
        syntax = "any" if match.group(2) == "any" else "ref"
        spans.append(Span(match.start(group), match.end(group), syntax, "label"))
    return spans


#: a line that opens a text block of a sphinx-gallery example: ``# %%`` or 20 ``#``
_SCRIPT_BLOCK = re.compile(r"^(?:#[ \t]?%%|#{20,})", re.MULTILINE)
_STRING_START = re.compile(r"[rRuU]?(\"\"\"|\'\'\'|\"|\')")


def _script_targets(text: str, labels: bool) -> list[Span]:
    """The link targets of a sphinx-gallery example's reST: its module docstring, and
    each line of its comment blocks (``# %%``, then ``# text`` lines), read line by line
    without the ``#``.  Code is never read."""
    regions: list[tuple[int, int]] = []
    docstring = _docstring_region(text)
    if docstring is not None:
        regions.append(docstring)
    for match in _SCRIPT_BLOCK.finditer(text):
        offset = text.find("\n", match.end())
        while offset != -1:
            end = text.find("\n", offset + 1)
            line = text[offset + 1 : end if end != -1 else len(text)]
            if not line.startswith("#"):
                break
            start = offset + 2 + (line[1:2] == " ")
            regions.append((start, offset + 1 + len(line.rstrip("\r"))))
            offset = end
    spans: list[Span] = []
    for start, end in regions:
        spans.extend(
            span._replace(start=span.start + start, end=span.end + start)
            for span in _rest_targets(text[start:end], labels)
        )
    return spans


def _docstring_region(text: str) -> tuple[int, int] | None:
    """The offsets of the text of a module's docstring between its quotes."""
    regions = _string_regions(text, module_only=True)
    return regions[0][:2] if regions else None


def _docstring_targets(text: str, labels: bool) -> list[Span]:
    """The link targets of the reST of a Python file's docstrings (a module's, a
    class's, a function's, an attribute's: every string that stands alone as a
    statement), which autodoc makes part of a page.  A target whose source differs from
    the string's value (an escape in a string that is not raw) is left out."""
    if "`" not in text:  # no role, no link: most files need no syntax tree
        return []
    spans: list[Span] = []
    for start, end, raw in _string_regions(text):
        spans.extend(
            span._replace(start=span.start + start, end=span.end + start)
            for span in _rest_targets(text[start:end], labels)
            if raw or "\\" not in text[start + span.start : start + span.end]
        )
    return spans


def _string_regions(text: str, *, module_only: bool = False) -> list[tuple[int, int, bool]]:
    """``(start, end, raw)`` of the text between the quotes of each string that stands
    alone as a statement (only the module's docstring with ``module_only``); an
    implicitly joined string is no one text and is left out."""
    import ast

    from sphinx_relocate.core.pysource import parse_python

    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    if module_only:
        statements = tree.body[:1]
    else:
        statements = [node for node in ast.walk(tree) if isinstance(node, ast.Expr)]
    starts = [0, *accumulate(len(line) for line in text.splitlines(keepends=True))]

    def offset(line: int, column: int) -> int:  # ast's columns count UTF-8 bytes
        line_text = text[starts[line - 1] : starts[line]]
        return starts[line - 1] + len(line_text.encode()[:column].decode(errors="ignore"))

    regions: list[tuple[int, int, bool]] = []
    for statement in statements:
        node = statement.value if isinstance(statement, ast.Expr) else None
        if (not isinstance(node, ast.Constant) or not isinstance(node.value, str)
                or node.end_lineno is None or node.end_col_offset is None):
            continue
        start = offset(node.lineno, node.col_offset)
        end = offset(node.end_lineno, node.end_col_offset)
        quote = _STRING_START.match(text, start)
        if quote is None or text[end - len(quote.group(1)) : end] != quote.group(1):
            continue
        raw = text[start] in "rR"
        regions.append((quote.end(), end - len(quote.group(1)), raw))
    return regions


def _rest_targets(
    text: str, labels: bool = False, code: list[tuple[int, int]] | None = None,
    default_role: str = "", any_role: bool = False,
) -> list[Span]:
    """The link targets of a reST text; ``code`` gets the regions that hold no link
    (literal blocks, code directives' bodies, comments, inline literals)."""
    code = [] if code is None else code
    code.extend(_rest_code(text))
    spans = _rest_spans(text, labels)
    if default_role in ("any", "doc") and "`" in text:
        spans.extend(_default_role_targets(text, default_role))
    if any_role and not labels and ":any:" in text:
        spans.extend(_any_role_targets(text, False))
    return _outside(spans, code)


def _any_role_targets(text: str, markdown: bool) -> list[Span]:
    """The targets of ``:any:`` (``{any}``) alone of the label roles."""
    return [span for span in _label_role_targets(text, markdown) if span.syntax == "any"]


#: interpreted text without a role: `` `target` `` or `` `text <target>` ``, not a
#: role's (``:doc:`x```), a link (`` `x`_ ``), a suffix role's (`` `x`:doc: ``) or an
#: inline literal
_DEFAULT_ROLE = re.compile(
    r"(?<![`:\w\\])`(?![`\s])(?:[^`<]*<([^<>`]+)>|([^`<>]+))`(?![`_]|:[\w.+-]+:)"
)


def _default_role_targets(text: str, role: str) -> list[Span]:
    """The targets of `` `…` `` where conf.py's ``default_role`` is ``any`` or ``doc``."""
    spans: list[Span] = []
    for match in _DEFAULT_ROLE.finditer(text):
        group = 1 if match.group(1) is not None else 2
        start, end = match.start(group), match.end(group)
        if role == "doc":
            spans.append(Span(start, end, "doc", "doc"))
        else:
            spans.append(Span(start, end, "any", "label"))
    return spans


_INLINE_LITERAL = re.compile(r"``(?=\S)(?:[^`\n]|`(?!`)|\n(?![ \t]*\r?\n))*?(?<=\S)``")
_EXPLICIT = re.compile(r"([ \t]*)\.\.(?=\s|$)[ \t]*(.*)")
_DIRECTIVE_NAME = re.compile(r"([\w:+.-]+)::(?:\s|$)")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+•‣⁃]|\d+[.)]|#\.|\(\d+\))[ \t]+")


def _rest_code(text: str) -> list[tuple[int, int]]:
    """Regions of reST text that docutils reads as no link: inline literals, literal
    blocks (after ``::``), the bodies of code directives and comments."""
    regions: list[tuple[int, int]] = []
    if "``" in text:
        regions.extend((m.start(), m.end()) for m in _INLINE_LITERAL.finditer(text))
    if "::" not in text and ".." not in text:
        return regions
    lines = _lines(text)
    number = 0
    while number < len(lines):
        offset, line = lines[number]
        content = line.rstrip("\r\n")
        number += 1
        explicit = _EXPLICIT.match(content)
        if explicit is not None:
            rest = explicit.group(2)
            if rest[:1] in ("_", "[", "|"):
                continue  # a target, a footnote or citation, a substitution
            directive = _DIRECTIVE_NAME.match(rest)
            if directive is not None and directive.group(1) not in _CODE_FENCES:
                continue  # its body is reST, or read by the directive
            body = _directive_body(text, offset + len(content), len(explicit.group(1)))
            if not rest.strip() and body and not body[0][1].strip():
                continue  # ".." then a blank line: an empty comment
            end = body[-1][0] + len(body[-1][1]) if body else offset + len(content)
            start = offset + explicit.start(2) if directive is None else body[0][0] if (
                body
            ) else end
            regions.append((start, end))
            number += len(body)
        elif content.endswith("::") and content.strip():
            marker = _LIST_MARKER.match(content)
            indent = marker.end() if marker else len(content) - len(content.lstrip())
            first = number
            while first < len(lines) and not lines[first][1].strip():
                first += 1
            if first == len(lines):
                break
            if first == number:
                continue  # no blank line: a definition list's term, not a literal block
            block = lines[first][1]
            block_indent = len(block) - len(block.lstrip())
            if block_indent <= indent:
                continue
            last = first
            while last + 1 < len(lines):
                following = lines[last + 1][1]
                if following.strip() and len(following) - len(following.lstrip()) < block_indent:
                    break
                last += 1
            while last > first and not lines[last][1].strip():
                last -= 1
            regions.append((lines[first][0], lines[last][0] + len(lines[last][1])))
            number = last + 1
    return regions


def _rest_spans(text: str, labels: bool) -> list[Span]:
    spans: list[Span] = []
    if "`" in text:
        spans.extend(_role_targets(text))
        if labels:
            spans.extend(_label_role_targets(text, markdown=False))
        for match in _RST_LINK.finditer(text):
            if not match.group(1).endswith("_"):
                spans.append(Span(match.start(1), match.end(1), "link"))
    if ".." in text:
        for match in _RST_TARGET.finditer(text):
            if _at_line_start(text, match.start()) is not None:
                spans.append(Span(match.start(1), match.end(1), "link"))
        spans.extend(_rest_directives(text, labels))
    if "__ " in text:
        for match in _RST_ANONYMOUS.finditer(text):
            if _starts_body_element(text, match.start()):
                spans.append(Span(match.start(1), match.end(1), "link"))
    return spans


def _starts_body_element(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` begins a body element for docutils: the first
    line, or one after a blank line or a ``..``/``__`` target (not a paragraph's line)."""
    if line_start == 0:
        return True
    before = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start].strip()
    return not before or before.startswith(("..", "__ "))


def _at_line_start(text: str, position: int) -> str | None:
    """The blanks from the start of the line to ``position``; ``None`` if not only blanks."""
    lead = text[text.rfind("\n", 0, position) + 1 : position]
    return None if lead.strip(" \t") else lead


def _rest_directives(text: str, labels: bool = False) -> list[Span]:
    spans: list[Span] = []
    for match in _RST_DIRECTIVE.finditer(text):
        indent_text = _at_line_start(text, match.start())
        if indent_text is None:
            continue
        name = match.group(1)
        argument = match.group(2).rstrip()
        if name in _FILE_DIRECTIVES and argument:
            start = match.start(2)
            spans.append(Span(start, start + len(argument), _FILE_DIRECTIVES[name]))
            if _FILE_DIRECTIVES[name] == "image":
                spans.extend(_target_option(
                    _directive_body(text, match.end(), len(indent_text.expandtabs()))
                ))
        elif name in _DESIGN_LINKS:
            body = _directive_body(text, match.end(), len(indent_text.expandtabs()))
            argument_span = (match.start(2), match.start(2) + len(argument))
            spans.extend(_design_links(name, argument_span, body, labels))
        elif name in ("toctree", "raw", "csv-table"):
            body = _directive_body(text, match.end(), len(indent_text.expandtabs()))
            if name == "toctree":
                spans.extend(_toctree_entries(body, markdown=False))
            else:
                spans.extend(_file_options(body))
                if name == "raw" and "html" in argument.split() and body:
                    offset = body[0][0]
                    html = text[offset : body[-1][0] + len(body[-1][1])]
                    spans.extend(s._replace(start=s.start + offset, end=s.end + offset)
                                 for s in _html_targets(html))
    return spans


def _directive_body(text: str, end: int, indent: int) -> list[tuple[int, str]]:
    """``(offset, line)`` of the lines of a reST directive's body (options included)."""
    body: list[tuple[int, str]] = []
    offset = text.find("\n", end)
    while offset != -1:
        next_end = text.find("\n", offset + 1)
        line = text[offset + 1 : next_end + 1 if next_end != -1 else len(text)]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append((offset + 1, line))
        offset = next_end
    return body


_FILE_OPTION = re.compile(r"^[ \t]*:file:[ \t]+(\S(?:[^\n\r]*\S)?)[ \t]*\r?$")
_TARGET_OPTION = re.compile(r"^[ \t]*:target:[ \t]+(\S(?:[^\n\r]*\S)?)[ \t]*\r?$")

#: sphinx-design's directives that link a page, a label or a URL: the option that says
#: which ("" for none) and what it says when absent (the target is the ``link`` option,
#: or the buttons' argument)
_DESIGN_LINKS = {
    "button-ref": ("ref-type", "any"), "button-link": ("", "url"),
    "card": ("link-type", "url"), "grid-item-card": ("link-type", "url"),
}
#: a directive option, ``:name: value`` (reST and MyST) or ``name: value`` (MyST's YAML)
_OPTION = re.compile(r"^[ \t]*(:?)([\w-]+):(?:[ \t]+(\S(?:[^\n\r]*\S)?))?[ \t]*\r?$")


def _design_links(
    name: str, argument: tuple[int, int], body: list[tuple[int, str]], labels: bool
) -> list[Span]:
    """The page (or, with ``labels``, label) a sphinx-design directive links: a card's
    ``:link:`` with ``:link-type: doc``, a ``button-ref`` with ``:ref-type: doc``; and
    the URL of a ``button-link`` or of a card's ``:link:`` (its default type).

    Sphinx resolves the first as ``:doc:`` and ``:ref:`` cross-references, and the URLs
    are plain references (``old.html``), so the build sends them on like any other; here
    they are read the same way for ``rewrite``.
    """
    options = _directive_options(body)
    option, default = _DESIGN_LINKS[name]
    kind = options.get(option, (0, 0, default))[2]
    start, end = argument if name.startswith("button-") else options.get("link", (0, 0, ""))[:2]
    if end <= start:
        return []
    if kind == "url":
        return [Span(start, end, "reference")]
    if kind == "doc":
        return [Span(start, end, "doc", "doc")]
    if kind == "ref" and labels:
        return [Span(start, end, "ref", "label")]
    return []


def _directive_options(body: list[tuple[int, str]]) -> dict[str, tuple[int, int, str]]:
    """The options that open a directive's body, by name: ``(start, end, value)``, an
    option without a value left out."""
    options: dict[str, tuple[int, int, str]] = {}
    for offset, line in body:
        if line.strip() == "---":
            continue  # MyST's YAML block of options
        match = _OPTION.match(line)
        if match is None:
            break  # the options end at the first line that is none
        if match.group(3) is not None:
            options[match.group(2)] = (
                offset + match.start(3), offset + match.end(3), match.group(3)
            )
    return options


def autosummary_folders(text: str, path: str) -> list[tuple[int, str]]:
    """``(line, folder)``: the ``:toctree:`` of each ``autosummary`` directive in a reST
    or MyST source, as written (relative to the page's folder), code samples left out.

    autosummary writes the pages it generates into that folder at every build: they are
    in no commit, and they move when the page that asks for them moves.
    """
    if "autosummary" not in text:
        return []
    suffix = posixpath.splitext(path)[1].lower()
    code: list[tuple[int, int]] = []
    bodies: list[tuple[int, list[tuple[int, str]]]] = []  # (directive's offset, body)
    folders: list[tuple[int, str]] = []
    if suffix in MARKDOWN_SUFFIXES:
        _markdown_targets(text, code=code)
        for match in _FENCE.finditer(text):
            line_end = text.find("\n", match.end())
            body_start = len(text) if line_end < 0 else line_end + 1
            if match.group(2) == "{autosummary}":
                bodies.append((match.start(), _lines(text[body_start:], body_start)))
            elif match.group(2) == "{eval-rst}" and not _inside(code, match.start()):
                end = _fence_end(text, match.group(1), body_start)[0]
                above = text.count("\n", 0, body_start)
                folders += [(line + above, folder) for line, folder in
                            autosummary_folders(text[body_start:end], "eval-rst.rst")]
    elif suffix in REST_SUFFIXES or suffix == ".txt":
        code = _rest_code(text)
        for match in _RST_DIRECTIVE.finditer(text):
            indent = _at_line_start(text, match.start())
            if match.group(1) == "autosummary" and indent is not None:
                bodies.append(
                    (match.start(), _directive_body(text, match.end(), len(indent.expandtabs())))
                )
    for start, body in bodies:
        option = _directive_options(body).get("toctree")
        if option is not None and not _inside(code, start):
            folders.append((text.count("\n", 0, option[0]) + 1, option[2]))
    return sorted(folders)


_AUTOSUMMARY_RE = re.compile(r"^(\s*)\.\.\s+autosummary::\s*")
_AUTOMODULE_RE = re.compile(r"^\s*\.\.\s+automodule::\s*([A-Za-z0-9_.]+)\s*$")
_MODULE_RE = re.compile(r"^\s*\.\.\s+(current)?module::\s*([a-zA-Z0-9_.]+)\s*$")
_AUTOSUMMARY_ITEM_RE = re.compile(r"^\s+(~?[_a-zA-Z][a-zA-Z0-9_.]*)\s*.*?")
_AUTOSUMMARY_TOCTREE_RE = re.compile(r"^\s+:toctree:\s*(.*?)\s*$")


def autosummary_entries(text: str) -> list[tuple[int, str, str]]:
    """``(line, toctree, name)``: each object whose page autosummary generates, named
    ``toctree/name`` (the toctree relative to the source's folder), read line by line
    as ``sphinx.ext.autosummary``'s generator reads every source (its
    ``find_autosummary_in_lines``: the current module prefixes a name; code samples are
    read too, as it reads them).  ``line`` is the ``:toctree:`` option's."""
    if "autosummary" not in text:
        return []
    found: list[tuple[int, str, str]] = []
    module = ""
    inside = False
    base_indent = ""
    toctree: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if inside:
            match = _AUTOSUMMARY_TOCTREE_RE.match(line)
            if match:
                toctree = (number, match.group(1))
                continue
            if line.strip().startswith(":"):
                continue  # another option
            match = _AUTOSUMMARY_ITEM_RE.match(line)
            if match:
                name = match.group(1).strip().removeprefix("~")
                if module and not name.startswith(module + "."):
                    name = f"{module}.{name}"
                if toctree is not None:
                    found.append((toctree[0], toctree[1], name))
                continue
            if not line.strip() or line.startswith(base_indent + " "):
                continue
            inside = False
        match = _AUTOSUMMARY_RE.match(line)
        if match:
            inside, base_indent, toctree = True, match.group(1), None
            continue
        match = _AUTOMODULE_RE.search(line)
        if match:
            module = match.group(1).strip()
            continue
        match = _MODULE_RE.match(line)
        if match:
            module = match.group(2)
    return found


def _file_options(body: list[tuple[int, str]]) -> list[Span]:
    """The ``:file:`` option of a ``csv-table`` or ``raw`` directive."""
    for offset, line in body:
        match = _FILE_OPTION.match(line)
        if match:
            return [Span(offset + match.start(1), offset + match.end(1), "include")]
    return []


def _target_option(body: list[tuple[int, str]]) -> list[Span]:
    """The ``:target:`` option of an ``image`` or ``figure`` directive, a link (syntax
    "reference") from the page's folder, as the build reads it; a reference name
    (``:target: name_``) is no path.  Only the options, before the first blank line
    (a figure's caption follows)."""
    for offset, line in body:
        if not line.strip():
            break
        match = _TARGET_OPTION.match(line)
        if match and not match.group(1).endswith("_"):
            return [Span(offset + match.start(1), offset + match.end(1), "reference")]
    return []


# -- labels ------------------------------------------------------------------------

#: ``.. _name:`` with nothing after the colon (``.. _name: URL`` is an external target)
_REST_TARGET = re.compile(r"^[ \t]*\.\.[ \t]+_(?!_)(`[^`]+`|[^`\s:][^:\n]*?)[ \t]*:[ \t]*$", re.M)
#: MyST's ``(name)=``
_MYST_TARGET = re.compile(r"^[ \t]*\(([^()\s][^()\n]*)\)=[ \t]*$", re.M)
#: a directive's ``:name:`` option, reST or MyST
_NAME_OPTION = re.compile(r"^[ \t]*:name:[ \t]*(\S[^\n]*?)[ \t]*$", re.M)


#: the labels Sphinx's std domain has in every project (its index and search pages)
SPHINX_LABELS = frozenset({"genindex", "modindex", "py-modindex", "search"})


def labels_in(text: str) -> set[str]:
    """The labels written in one source text, normalized as docutils names them.

    What a command knows of a project's labels without a build: reST ``.. _name:``,
    MyST ``(name)=`` and directives' ``:name:``.  Labels that extensions make
    (``sphinx.ext.autosectionlabel``) are not seen.
    """
    names = [
        *_REST_TARGET.findall(text), *_MYST_TARGET.findall(text), *_NAME_OPTION.findall(text)
    ]
    return {" ".join(name.strip("`").lower().split()) for name in names}


# -- titles ------------------------------------------------------------------------


def title_in(text: str, path: str) -> str | None:
    """The first section title of a source text (a Markdown heading outside code, a reST
    title over its underline), as written; ``None`` when it has none."""
    suffix = posixpath.splitext(path)[1].lower()
    if suffix in MARKDOWN_SUFFIXES:
        code: list[tuple[int, int]] = []
        _markdown_targets(text, False, code)
        for match in _MD_HEADING.finditer(text):
            if not _outside([Span(match.start(), match.end(), "title")], code):
                continue
            return match.group(2).strip() or None
        return None
    if suffix not in (*REST_SUFFIXES, ".txt"):
        return None
    lines = text.splitlines()
    for number in range(1, len(lines)):
        title, rule = lines[number - 1].strip(), lines[number].rstrip()
        if underlines(rule, title):
            return title
    return None


# -- anchors -----------------------------------------------------------------------

_MD_HEADING = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_MD_LABEL = re.compile(r"^[ ]{0,3}\(([^()\s]+)\)=[ \t]*$", re.MULTILINE)
_MD_ATTR_ID = re.compile(r"\{#([^\s}]+)\}")
_RST_LABEL = re.compile(r"^[ \t]*\.\.[ \t]+_([^:`\n]+|`[^`]+`):[ \t]*$", re.MULTILINE)
_RST_UNDERLINE = re.compile(r"""^([!-/:-@\[-`{-~])\1{2,}[ \t]*$""")
#: one punctuation character, repeated: what may underline a title
_RST_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1*[ \t]*$""")
_HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def underlines(rule: str, title: str) -> bool:
    """Whether the line ``rule`` underlines the text line ``title`` as docutils reads it:
    as wide as the title (repo2docker's FAQ has an ``R`` over ``~``), or four wide at
    least (docutils warns that it is short).  A title that is itself a row of
    punctuation is no title (an overline or a transition)."""
    if not title or not _RST_ADORNMENT.match(rule) or _RST_UNDERLINE.match(title):
        return False
    width = len(rule.rstrip())
    return width >= 4 or width >= column_width(title)


def anchors_in_source(
    text: str, path: str, headings: Headings = PLAIN_HEADINGS
) -> frozenset[str]:
    """The fragments a link may name on a page, read from its source text.

    The build knows a page's anchors from its doctree; the rewriter, which parses
    nothing, reads the ones that decide a link in practice: section titles (as ids,
    never as the names docutils also gives them, which no URL fragment finds), labels,
    MyST heading slugs (``headings``) and HTML ``id``/``name``.
    """
    found: set[str] = set()
    suffix = posixpath.splitext(path)[1].lower()
    if suffix in MARKDOWN_SUFFIXES:
        for match in _MD_HEADING.finditer(text):
            title = match.group(2)
            found.add(headings.docutils_id(title))
            slug = headings.slug(title, len(match.group(1)))
            if slug:
                found.add(slug)
        for match in _MD_LABEL.finditer(text):
            found.update((match.group(1), match.group(1).lower(), make_id(match.group(1))))
        found.update(_MD_ATTR_ID.findall(text))
    else:
        for match in _RST_LABEL.finditer(text):
            label = match.group(1).strip("`")
            found.update((" ".join(label.lower().split()), make_id(label)))
        lines = text.splitlines()
        for number in range(1, len(lines)):
            title, rule = lines[number - 1].strip(), lines[number].rstrip()
            if underlines(rule, title):
                found.add(make_id(title))  # its name (the title) is no fragment
    for match in _HTML_ID.finditer(text):
        found.add(match.group(1) if match.group(1) is not None else match.group(2))
    return frozenset(found)

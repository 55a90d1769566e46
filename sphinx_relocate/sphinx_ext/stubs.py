"""Redirect stubs in the build: written at every old URL after a successful HTML build.

How it works (what a stub is, its plan and the manifest: :mod:`sphinx_relocate.core.stubs`):

* At ``build-finished`` (only after a successful build, once every page is on disk, so
  nothing a stub would overwrite is still to come) the stubs are planned, rendered and
  written.  Every file the builder writes itself (its pages, ``html_extra_path``,
  ``objects.inv`` ...) is protected: no stub takes its place, except Sphinx's page of a
  document replaced or removed since.
* A stub speaks the reader's language: ``<html lang>`` from ``language``, and its title
  and sentence from the package's own gettext catalog (``locale/``, registered with
  ``app.add_message_catalog``), translated once per build; a language without a catalog
  reads English.
* ``relocate_old_url_styles`` adds a stub at each page's URL in an older URL style
  (``core.stubs.style_redirects``), and its rule to the exports.
* ``relocate_redirect_exports`` adds server-side rules from the same plan, in each
  format of the registry in ``core/exports.py`` (Netlify, nginx, Apache, Vercel, Read the
  Docs, JSON).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.core.exports import (
    EXPORTS,
    export_files,
    moved_folders,
    temporary_folders,
)
from sphinx_relocate.core.stubs import (
    HtmlOutput,
    Redirect,
    Stamps,
    StubText,
    export_rows,
    old_page_landings,
    plan,
    read_manifest,
    read_stamps,
    render_default,
    rendered,
    rendered_default,
    stub_text,
    style_redirects,
    template_context,
    temporary_urls,
    unchanged,
    write_all,
    write_stamps,
)
from sphinx_relocate.core.table import Location, Problem, Target, collection_paused
from sphinx_relocate.sphinx_ext.queries import base_url, label_places, labels_on, table_of
from sphinx_relocate.sphinx_ext.record import EnvValue
from sphinx_relocate.sphinx_ext.state import StubReport, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, fatal, stop, warn

if TYPE_CHECKING:
    import jinja2
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

#: The package's gettext catalog of the stubs' words, and where it lies.
MESSAGE_CATALOG = "sphinx_relocate"
LOCALE_DIR = str(Path(__file__).parents[1] / "locale")
#: HTML builders that package pages into something else: no stubs there.
_PACKAGED = frozenset({"singlehtml", "epub", "htmlhelp", "qthelp", "devhelp", "applehelp"})

#: A new random value whenever a document read again or removed changed what a plan
#: reads of it (its title, its labels and their anchors): a plan made under the same
#: token (and the same other inputs, :func:`_plan_inputs`) would be the same plan.
#: Random, not a count, so a fresh environment never meets the number of an older one.
documents_token_of: EnvValue[str] = EnvValue("relocate_documents_token", str)
#: docname → a hash of what a plan reads of the document (:func:`_plan_facts`), to tell
#: an edit that changes it from one that does not (the sphinx-autobuild loop)
plan_facts_of: EnvValue[dict[str, bytes]] = EnvValue("relocate_plan_facts", dict)


def on_env_purge_doc(app: Sphinx, docname: str) -> None:
    """A document is read again or removed: :func:`on_env_updated` compares it."""
    state_of(app).purged_documents.add(docname)


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> None:
    """Renew the documents token if a document read again or removed changed what a plan
    reads of it; an edit of a page's text alone (the sphinx-autobuild loop) does not."""
    state = state_of(app)
    purged, state.purged_documents = state.purged_documents, set()
    token = documents_token_of(env)
    if token and not purged:
        return
    facts = plan_facts_of(env)
    now = _plan_facts(env, purged)
    changed = not token
    for docname in purged:
        fact = now.get(docname)
        if facts.get(docname) != fact:
            changed = True
            if fact is None:
                del facts[docname]
            else:
                facts[docname] = fact
    plan_facts_of.set(env, facts)
    if changed:
        documents_token_of.set(env, secrets.token_hex(8))


def _plan_facts(env: BuildEnvironment, docnames: set[str]) -> dict[str, bytes]:
    """A hash of all a plan reads of each of ``docnames`` that exists (``titles`` and
    ``label_places``): its title and its labels with their anchors."""
    labels = labels_on(env, docnames)
    facts: dict[str, bytes] = {}
    for docname in docnames & env.found_docs:
        title = env.titles.get(docname)
        read = (title.astext() if title is not None else None, sorted(labels.get(docname, ())))
        facts[docname] = hashlib.blake2b(repr(read).encode("utf-8"), digest_size=8).digest()
    return facts


def load_stub_template(app: Sphinx) -> None:
    """Compile ``relocate_stub_template`` once (the settings were built before)."""
    state = state_of(app)
    state.stub_template, state.stub_template_name, state.rendered_pages = None, "", set()
    state.stub_template_hash = ""
    state.stub_report = None
    path = state.settings.stub_template
    if path is not None:
        state.stub_template_name = str(path)
        state.stub_template, state.stub_template_hash = load_template(path, str(path))


def load_template(path: Path, shown: str) -> tuple[jinja2.Template, str]:
    """Compile a ``relocate_stub_template`` once; a bad one stops the build with one line.
    Returns the template and a hash of its text (an input of the plan: it may change
    while conf.py does not)."""
    import jinja2

    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        fatal(f"relocate_stub_template: cannot read {shown}: {reason}")
    environment = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )
    try:
        return environment.from_string(text), hashlib.blake2b(text.encode()).hexdigest()
    except jinja2.TemplateSyntaxError as err:
        stop([Problem(Location(shown, err.lineno), f"relocate_stub_template: {err.message}")])
    except Exception as err:  # a template nested too deep for the compiler, …
        fatal(f"{shown}: relocate_stub_template: {_one_line(err)}")


def html_output(builder: Builder) -> HtmlOutput | None:
    """The output shape of ``builder``, or ``None`` when it gets no stubs."""
    from sphinx.builders._epub_base import EpubBuilder
    from sphinx.builders.dirhtml import DirectoryHTMLBuilder
    from sphinx.builders.html import StandaloneHTMLBuilder
    from sphinx.builders.singlehtml import SingleFileHTMLBuilder
    from sphinxcontrib.serializinghtml import SerializingHTMLBuilder

    if (
        not isinstance(builder, StandaloneHTMLBuilder)
        or isinstance(builder, (SingleFileHTMLBuilder, EpubBuilder, SerializingHTMLBuilder))
        or builder.name in _PACKAGED
    ):
        return None
    return HtmlOutput(
        dirhtml=isinstance(builder, DirectoryHTMLBuilder),
        file_suffix=builder.out_suffix,
        link_suffix=builder.link_suffix,
        baseurl=base_url(builder.config),
    )


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Documents that the last build replaced with a stub and the table no longer replaces.

    Sphinx keeps an output file that is newer than its source, so without a re-read the
    stub would stay where the page belongs.
    """
    site = html_output(app.builder)
    previous = read_manifest(Path(app.outdir)) if site is not None else {}
    state = state_of(app)
    state.previous_stubs = previous if site is not None else None
    # the pages the last build wrote for documents gone since: Sphinx leaves them
    # behind, and a stub may take their place (a reorganization's own old pages)
    state.stale_pages = {site.file(d) for d in removed} if site is not None else set()
    if not previous or site is None:
        return []
    table = table_of(app)
    return sorted(
        docname
        for docname in env.found_docs - added - changed
        if site.file(docname) in previous and not table.replaced(docname)
    )


def on_html_page_context(app: Sphinx, pagename: str, *args: Any) -> None:
    """Remember each page the builder renders itself, so no stub replaces it."""
    state_of(app).rendered_pages.add(pagename)


def _extra_files(app: Sphinx) -> set[str]:
    """Files ``html_extra_path`` copies into the output folder, by their path there."""
    from sphinx.util.matching import Matcher

    from sphinx_relocate.core.history import extra_files

    return set(extra_files(Path(app.confdir), app.config.html_extra_path or (),
                           Matcher(app.config.exclude_patterns)))


#: What an HTML builder writes into the output folder besides pages and the folders of
#: :data:`_RESERVED`: with ``html_file_suffix = ""`` an old page may bear these names.
_BUILDER_FILES = frozenset({"objects.inv", "searchindex.js", ".buildinfo", ".buildinfo.bak"})


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    """Write the stubs and exports of a successful HTML build; remove stale ones."""
    if exception is not None:
        return
    site = html_output(app.builder)
    if site is None:
        return
    with collection_paused():
        _write_stubs(app, site)


def _write_stubs(app: Sphinx, site: HtmlOutput) -> None:
    state = state_of(app)
    env = app.env
    documents = env.found_docs
    extra = _extra_files(app)
    export_names = {EXPORTS[name].path: name for name in state.settings.exports}
    export_paths = set(export_names)
    outdir = Path(app.outdir)
    previous = state.previous_stubs
    state.previous_stubs = None  # the next build reads what this one writes
    if previous is None:
        previous = read_manifest(outdir)
    stamps_path = Path(app.doctreedir, f"relocate-stubs-{app.builder.name}.json")
    stamps = read_stamps(stamps_path)
    own_pages = tuple(sorted(state.rendered_pages - documents))
    if not own_pages and stamps is not None:
        # Sphinx before 8.2 renders nothing when nothing is out of date: the output
        # still holds the pages of the last build
        own_pages = stamps.pages
    inputs = _plan_inputs(app, site, extra, own_pages)
    if unchanged(outdir, previous, stamps, inputs):
        exports = tuple(sorted(path for path in previous if path in export_paths))
        state.stub_report = StubReport(
            written=len(previous) - len(exports), removed=0, exports=exports, failed=0
        )
        return
    warned = False  # only a step that warned nothing is kept as one with nothing to do

    def warn_here(kind: RelocateWarning, message: str, location: Location | None = None) -> None:
        nonlocal warned
        warned = True
        warn(kind, message, location=location)

    # every file the build writes itself: no stub takes its place
    protected = {site.file(p) for p in state.rendered_pages} | extra | _BUILDER_FILES
    titles = {d: env.titles[d].astext() for d in documents if d in env.titles}
    table = table_of(app)
    redirects, skipped = plan(
        table, documents, site, landings=landings_of(app), protected=protected | export_paths,
        titles=titles, labels=label_places(env), followed=state.published_ids,
    )

    def location(old: str) -> Location | None:
        return table.location_of(old)

    # an old page a loaded peer redirects too gets the peer's page: the table's entry is
    # warned once to keep one (``doubled_by_peers``), not again where the page is taken
    by_peer = {entry.old for entry in state.peer_redirects.of_section("pages")}
    if by_peer:
        redirects = [redirect for redirect in redirects if redirect.old not in by_peer]
    for skip in skipped:
        if skip.warning is not None and skip.old not in by_peer:
            warn_here(RelocateWarning(skip.warning), skip.message, location(skip.old))
    styles = state.settings.get("relocate_old_url_styles")
    styled = style_redirects(  # the builder's own pages too (genindex, search)
        redirects, documents | state.rendered_pages, site, styles,
        taken=protected | export_paths | {site.file(d) for d in documents}
        | {redirect.path for redirect in redirects},
        titles=titles,
    ) if styles else []

    words = _stub_words(app)
    stubs: Iterator[tuple[str, bytes]]
    if state.stub_template is None:
        stubs = rendered_default([*redirects, *styled], words)
    else:
        built_in = functools.partial(render_default, text=words)
        template: jinja2.Template | None = state.stub_template

        def render(redirect: Redirect) -> str:
            """The template's stub; after any error of the template, the built-in one."""
            nonlocal template
            if template is not None:
                try:
                    return template.render(template_context(redirect, words))
                except Exception as err:  # a user's template may raise anything
                    warn_here(
                        RelocateWarning.STUB,
                        f"relocate_stub_template: {_one_line(err)}; "
                        "the built-in stub is used instead",
                        _template_location(state.stub_template_name, err),
                    )
                    template = None
            return built_in(redirect)

        stubs = rendered([*redirects, *styled], render)

    failed: set[str] = set()  # stubs (and exports) not written
    olds: dict[str, str] = {}  # stub -> old page, for messages: made on the first failure

    def on_error(path: str, message: str) -> None:
        failed.add(path)
        if not olds:
            olds.update((redirect.path, redirect.old) for redirect in [*redirects, *styled])
        old = olds.get(path, "")
        if old:
            message = f"no redirect stub for {old!r}: {message}"
        elif path in export_names:
            message = f"the {export_names[path]!r} export is not written: {message}"
        warn_here(RelocateWarning.STUB, message, location(old) if old else None)

    def export_bytes() -> Iterator[tuple[str, bytes]]:
        """The exports, made once every stub is written (they follow the stubs in one
        stream): an old URL whose stub was not written gets no server rule either, so
        a file of the user's there is not redirected away."""
        if not state.settings.exports:
            return
        kept = [redirect for redirect in redirects if redirect.path not in failed]
        kept_styled = [redirect for redirect in styled if redirect.path not in failed]
        folders = moved_folders(table, pages | failed)  # none over a file that answers
        exports = export_files(
            export_rows(kept, site), state.settings.exports, site.root_path, folders,
            style_rows=export_rows(kept_styled, site),
            temporary=temporary_urls([*kept, *kept_styled], site, table)
            | temporary_folders(table, folders),
        )
        for path, text in exports.items():
            if path in extra:
                warn_here(
                    RelocateWarning.STUB,
                    f"html_extra_path provides {path!r}; the {path!r} export is not written",
                )
                continue
            yield path, text.encode("utf-8")

    pages = {site.file(d) for d in documents} | protected
    # a stub may take the place of Sphinx's own page: of a document a [patterns] entry
    # replaces, or of one removed since the last build (the page it left behind)
    replaceable = {r.path for r in redirects if r.old in documents} | (
        state.stale_pages - pages
    )
    files = itertools.chain(stubs, export_bytes())
    done = write_all(outdir, files, previous, pages, on_error, replaceable)
    kept = not warned and done.files and len(done.stamps) == len(done.files)
    write_stamps(stamps_path, Stamps(inputs, done.stamps, own_pages) if kept else None)
    state.stub_report = StubReport(
        written=sum(1 for redirect in [*redirects, *styled] if redirect.path in done.files),
        removed=sum(1 for path in done.removed if path not in _EXPORT_PATHS),
        exports=tuple(sorted(path for path in done.files if path in export_paths)),
        failed=len(failed),
    )


def _stub_words(app: Sphinx) -> StubText:
    """The stubs' words in the build's language (the package's catalog)."""
    from sphinx.locale import get_translation

    return stub_text(app.config.language, get_translation(MESSAGE_CATALOG))


def _plan_inputs(
    app: Sphinx, site: HtmlOutput, extra: set[str], own_pages: tuple[str, ...]
) -> str:
    """A hash of everything the stubs and exports are made from, short of the documents'
    titles and labels, which :data:`documents_token_of` stands for: the table, the
    published pages, the builder's own pages and extra files, the output's shape, the
    settings that shape a stub or an export, the template's text and the words."""
    state = state_of(app)
    settings = state.settings
    parts = (
        app.extensions["sphinx_relocate"].version,
        documents_token_of(app.env),
        state.table_digest(),
        sorted(state.published_pages),
        sorted((page, sorted(ids.items())) for page, ids in state.published_ids.items()),
        own_pages,
        sorted(extra),
        site,
        settings.exports,
        settings.get("relocate_old_url_styles"),
        state.stub_template_name,
        state.stub_template_hash,
        _stub_words(app),
    )
    return hashlib.blake2b(repr(parts).encode("utf-8"), digest_size=16).hexdigest()


_EXPORT_PATHS = frozenset(export.path for export in EXPORTS.values())


def landings_of(app: Sphinx) -> dict[str, Target]:
    """Each old page that needs a stub → where it lands (``core.stubs.old_page_landings``),
    worked out once per build for the stubs and the inventory's aliases."""
    state = state_of(app)
    key = (frozenset(app.env.found_docs), state.published_pages)
    if state.old_page_landings is None or state.old_page_landings[0] != key:
        landings = old_page_landings(table_of(app), set(key[0]), key[1])
        state.old_page_landings = (key, landings)
    return state.old_page_landings[1]


def _one_line(err: BaseException) -> str:
    """An exception as one line of a warning: its type and message."""
    text = " ".join(str(err).split()) or "(no message)"
    return f"{type(err).__name__}: {text}"


def _template_location(file: str, err: BaseException) -> Location:
    """The template file and the line of it that raised ``err`` (when Jinja's traceback
    names one), as a table :class:`Location` (which a file without a line also fits)."""
    line = 0
    trace = err.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<template>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return Location(file, line)



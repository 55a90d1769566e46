"""The nginx and Apache exports, served by a real nginx and a real Apache.

Each test starts its own server on a free loopback port with a configuration in a
temporary folder (set up as docs/stubs.md tells users to), requests old URLs and
checks the status and ``Location`` of each answer, and that every current page still
answers 200.  Without the binary a test is skipped, except under CI, where that is a
failure: a gate that checked nothing must not pass.
"""

from __future__ import annotations

import contextlib
import getpass
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import builds
import pytest

from sphinx_relocate.core.exports import (
    NGINX_REVERSE_SERVER_LINES,
    NGINX_SERVER_LINE,
    NGINX_TEMPORARY_LINE,
    export_files,
)
from sphinx_relocate.core.table import load_table

ROOT = Path(__file__).parent / "roots" / "test-servers"
NGINX = "/usr/sbin/nginx"
APACHE = "/usr/sbin/apache2"
APACHE_MODULES = Path("/usr/lib/apache2/modules")

#: the D2 key: with only '"' escaped it wrote three Apache directives
INJECTION = "a\nRequire all denied\nSetEnv X"
#: rows the plan could hand over from names it did not check (a release's inventory)
HOSTILE_ROWS = [
    ("/" + quote(INJECTION) + ".html", "/new/plain.html"),
    ("/b%E2%80%A8c.html", "/new/plain.html"),
    ("/back\\slash\\", "/new/plain.html"),
    ("/q%22uote.html", '/new/plain.html#"\nRequire all denied'),
    ("/d.html", "https://x.example/a b\r\nc$d\\"),
]

#: old URL (as requested, encoded) → (Location path, query and fragment, as sent)
EXPECTED = {
    "/old/plain.html": "/new/plain.html",
    "/old/plain.html?x=1&y=%20": "/new/plain.html?x=1&y=%20",
    "/old/a-folder-name-long-enough-for-nginx/and-a-page-name-that-is-longer-still.html":
        "/new/plain.html",
    "/old/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.html": "/new/%E7%89%B9%E6%80%A7.html",
    "/old/with%20space.html": "/new/plain.html",
    "/old/anchored.html": "/new/plain.html#section-two",
    "/old/dollar$sign.html": "/new/plain.html",
    "/old/quote'it.html": "/new/plain.html",
    "/old/Case.html": "/new/plain.html",
    "/old/case.html": "/new/%E7%89%B9%E6%80%A7.html",
    "/old/external.html": "https://example.org/x",
    "/old/external-query.html": "https://example.org/x?y=1",
    # [prefixes] "guide/" = "manual/": one wildcard rule, the rest of the path and the
    # query as the client sent them
    "/guide/with%20space.html": "/manual/with%20space.html",
    "/guide/with%20space.html?q=%E4%B8%AD%20x&y=1": "/manual/with%20space.html?q=%E4%B8%AD%20x&y=1",
    "/guide/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html":
        "/manual/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html",
    "/guide/deep/page.html?x=1": "/manual/deep/page.html?x=1",
    "/guide/never-a-page.html": "/manual/never-a-page.html",  # the folder says so
    # pages of the moved folder that went elsewhere: their own rules win
    "/guide/a.html?x=1": "/new/plain.html?x=1",
    "/guide/b.html": "/new/plain.html#section-two",
    # [patterns] "faq/*" = "help/$source": one wildcard rule
    "/faq/q1.html?x=1": "/help/faq/q1.html?x=1",
    "/faq/%E9%97%AE%20%E9%A2%98.html": "/help/faq/%E9%97%AE%20%E9%A2%98.html",
    # [prefixes] "archive/" = "manual/" with 'archive/still' a page now: one rule a page
    "/archive/with%20space.html?x=1": "/manual/with%20space.html?x=1",
    "/archive/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html":
        "/manual/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html",
}
#: the old URLs of folder index pages, which differ by more than a suffix
EXPECTED_INDEX = {
    "html": {"/guide/index.html": "/manual/index.html",
             "/archive/index.html?x=1": "/manual/index.html?x=1"},
    "dirhtml": {"/guide/": "/manual/", "/guide/?x=1": "/manual/?x=1",
                "/archive/": "/manual/"},
}
#: what the servers answer differently, and why
QUERY_AFTER_FRAGMENT = "/old/anchored.html?x=1"
CURRENT = ["/", "/index.html", "/new/plain.html", "/new/%E7%89%B9%E6%80%A7.html",
           "/genindex.html", "/search.html", "/manual/index.html",
           "/manual/with%20space.html", "/manual/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html",
           "/manual/deep/page.html", "/help/faq/q1.html",
           "/help/faq/%E9%97%AE%20%E9%A2%98.html",
           # below the old folder of a move: still a page, so no wildcard took it
           "/archive/still.html"]


def folder(url: str) -> str:
    """The dirhtml URL of an html one: ``/a/b.html?x#y`` → ``/a/b/?x#y``, and the folder
    of an index page: ``/a/index.html`` → ``/a/``."""
    if url.startswith("https:"):
        return url
    return re.sub(r"\.html(?=[?#]|$)", "/", re.sub(r"(^|/)index\.html(?=[?#]|$)", r"\1", url))


def urls(builder: str) -> tuple[dict[str, str], list[str]]:
    """The old URLs with their ``Location``, and the current pages, under ``builder``."""
    if builder == "html":
        return EXPECTED | EXPECTED_INDEX["html"], CURRENT
    current = [folder(url) for url in CURRENT if url != "/index.html"]
    expected = {folder(old): folder(new) for old, new in EXPECTED.items()}
    return expected | EXPECTED_INDEX["dirhtml"], current


def binary(path: str) -> str:
    """The server's binary; skipped without it, unless under CI."""
    if not os.access(path, os.X_OK):
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing, and CI is set: the real-server tests must run")
        pytest.skip(f"{path} is not installed (apt-get install nginx apache2)")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(port: int, path: str) -> tuple[int, str]:
    """``(status, Location)`` of one GET, not following redirects."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Location") or ""
    finally:
        connection.close()


def folder_if(site: Path, url: str) -> str:
    return folder(url) if site.name == "dirhtml" else url


def relative(location: str) -> str:
    """A ``Location`` without this server's scheme and host (absolute_redirect), its
    percent escapes in capitals (Apache writes ``%e7``, the same URL)."""
    location = re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group().upper(), location)
    parts = urlsplit(location)
    if parts.hostname == "127.0.0.1":
        return location[len(f"{parts.scheme}://{parts.netloc}") :]
    return location


def build_root(
    tmp_path_factory: pytest.TempPathFactory,
    root: Path,
    builder: str,
    *,
    table: Callable[[str], str] | None = None,
    **confoverrides: Any,
) -> Path:
    """The output folder of ``root`` built by ``builder`` (its table edited by ``table``)."""
    src = tmp_path_factory.mktemp(root.name) / "src"
    shutil.copytree(root, src)
    if table is not None:
        path = src / "relocations.toml"
        path.write_text(table(path.read_text("utf-8")), "utf-8")
    return builds.build(src, builder, confoverrides=confoverrides).outdir


@contextlib.contextmanager
def served_folder(outputs: dict[str, Path]) -> Iterator[Path]:
    """A web server's root holding each output folder under its name, readable by the
    server's worker user (``tmp_path`` is not, nor the run's temporary folder inside it:
    ``conftest``), removed afterwards."""
    docroot = Path(tempfile.mkdtemp(prefix="relocate-docroot-", dir="/tmp"))
    try:
        for name, outdir in outputs.items():
            shutil.copytree(outdir, docroot / name)
        for folder, _, files in os.walk(docroot):
            os.chmod(folder, 0o755)
            for file in files:
                os.chmod(Path(folder, file), 0o644)
        yield docroot
    finally:
        shutil.rmtree(docroot)


@pytest.fixture(scope="module", params=["html", "dirhtml"])
def site(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """The built test root, in a folder a server's worker user may read."""
    outdir = build_root(tmp_path_factory, ROOT, request.param)
    with served_folder({request.param: outdir}) as docroot:
        yield docroot / request.param


def start(
    server: str, tmp_path: Path, docroot: Path, exports: Path
) -> tuple[int, Callable[[], None]]:
    """``server`` ("nginx" or "apache") serving ``docroot`` with the export of ``exports``
    (a ``_relocate`` folder) set up as docs/deploying.md says, its configuration test
    passed; the port, and what stops it."""
    port = free_port()
    if server == "nginx":
        conf = nginx_conf(tmp_path, exports / "nginx.conf", port, docroot)
        checked = nginx_test(conf, tmp_path)
        command = [binary(NGINX), "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"]
        log = tmp_path / "logs/error.log"
    else:
        conf = apache_conf(tmp_path, exports / "apache.conf", port, docroot)
        command = [binary(APACHE), "-f", str(conf), "-DFOREGROUND"]
        checked = subprocess.run([*command[:-1], "-t"], capture_output=True, text=True,
                                 check=False)
        log = tmp_path / "error.log"
    assert checked.returncode == 0, checked.stderr
    return port, serve(command, port, log)


def serve(command: list[str], port: int, log: Path) -> Callable[[], None]:
    """Start a server in the foreground; return what stops it once it answers."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop() -> None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            errors = process.stderr.read().decode() if process.stderr else ""
            logged = log.read_text("utf-8", "replace") if log.exists() else ""
            pytest.fail(f"{command[0]} stopped: {errors}{logged}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return stop
        except OSError:
            time.sleep(0.05)
    stop()
    pytest.fail(f"{command[0]} did not answer on port {port}")


# -- nginx -----------------------------------------------------------------------------


def nginx_conf(
    prefix: Path, include: Path, port: int, docroot: Path, reverse: Path | None = None
) -> Path:
    """The setup of docs/stubs.md: the export included in the http block, one ``if`` in
    the server block; everything else only what a server in a folder needs."""
    for folder in ("logs", "temp"):
        (prefix / folder).mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    temp = prefix / "temp"
    conf.write_text(
        f"""user {getpass.getuser()};
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {include};
    {f"include {reverse};" if reverse else ""}
    server {{
        listen 127.0.0.1:{port};
        root {docroot};
        {NGINX_SERVER_LINE}
        {NGINX_TEMPORARY_LINE}
        {NGINX_REVERSE_SERVER_LINES if reverse else ""}
    }}
}}
""",
        "utf-8",
    )
    return conf


def nginx_test(conf: Path, prefix: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [binary(NGINX), "-t", "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
        capture_output=True, text=True, check=False,
    )


def test_nginx_redirects_every_old_url(site: Path, tmp_path: Path) -> None:
    port, stop = start("nginx", tmp_path, site, site / "_relocate")
    try:
        expected, current = urls(site.name)
        for old, new in expected.items():
            status, location = get(port, old)
            assert (status, relative(location)) == (301, new), old
        # nginx keeps the query before the fragment
        status, location = get(port, folder_if(site, QUERY_AFTER_FRAGMENT))
        assert (status, relative(location)) == (
            301, folder_if(site, "/new/plain.html?x=1#section-two")
        )
        for page in current:
            assert get(port, page)[0] == 200, page
        # a string key of a map matches any letter case: the server line checks it
        assert get(port, folder_if(site, "/OLD/PLAIN.html"))[0] == 404
    finally:
        stop()


@pytest.mark.parametrize("rows", [1, 20_000])
def test_nginx_takes_any_table(tmp_path: Path, rows: int) -> None:
    """Long keys (past the default bucket of 64 bytes), many keys (past the default
    hash of 2,048), keys that differ only by letter case, hostile rows and folders:
    ``nginx -t`` accepts the file as written, with the documented setup."""
    long = "/" + "/".join(["a-long-folder-name"] * 20)
    table = [(f"{long}/page-{n}.html", f"/new/{n}.html") for n in range(rows)]
    table += [("/Case.html", "/a.html"), ("/case.html", "/b.html"), *HOSTILE_ROWS]
    table += [("/moved/p.html", "/manual/p.html"), (f"{long}/x.html", f"/n{long}/x.html")]
    folders = [(f"{long}/", f"/n{long}/"), ("/moved/", "/manual/")]
    text = export_files(table, ["nginx"], folders=folders)["_relocate/nginx.conf"]
    assert "$relocate_rest_1$" in text and "$relocate_rest_20$" in text
    include = tmp_path / "nginx-rules.conf"
    include.write_text(text, "utf-8")
    conf = nginx_conf(tmp_path, include, free_port(), tmp_path)
    checked = nginx_test(conf, tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "warn" not in checked.stderr, checked.stderr
    assert text.count("# not written: ") == 2 * 2  # in each of the two maps


# -- Apache ----------------------------------------------------------------------------

APACHE_MODULE_NAMES = [
    "mpm_event", "authz_core", "alias", "dir", "mime", "unixd", "rewrite"
]


def apache_conf(prefix: Path, include: Path, port: int, docroot: Path) -> Path:
    """The export included in the server configuration, and a ``.htaccess`` allowed."""
    import grp  # POSIX only, like the servers

    user = getpass.getuser()
    group = grp.getgrgid(os.getgid()).gr_name
    if os.geteuid() == 0:  # Apache refuses to serve as root
        user = group = "www-data"
    modules = "".join(
        f"LoadModule {name}_module {APACHE_MODULES}/mod_{name}.so\n"
        for name in APACHE_MODULE_NAMES
        if (APACHE_MODULES / f"mod_{name}.so").exists()  # others are built in
    )
    conf = prefix / "apache2.conf"
    conf.write_text(
        f"""ServerRoot {prefix}
{modules}ServerName 127.0.0.1
Listen 127.0.0.1:{port}
PidFile {prefix}/apache2.pid
DefaultRuntimeDir {prefix}
Mutex file:{prefix} default
ErrorLog {prefix}/error.log
User {user}
Group {group}
TypesConfig /dev/null
DocumentRoot {docroot}
DirectoryIndex index.html
<Directory {docroot}>
    AllowOverride FileInfo AuthConfig
    Require all granted
</Directory>
Include {include}
""",
        "utf-8",
    )
    return conf


def test_apache_redirects_every_old_url(site: Path, tmp_path: Path) -> None:
    """The export included in the server configuration; the hostile rows' export as the
    site's ``.htaccess`` (D2 made every page answer 403 there)."""
    htaccess = site / ".htaccess"
    htaccess.write_text(export_files(HOSTILE_ROWS, ["apache"])["_relocate/apache.conf"], "utf-8")
    htaccess.chmod(0o644)
    port, stop = start("apache", tmp_path, site, site / "_relocate")
    try:
        expected, current = urls(site.name)
        for old, new in expected.items():
            status, location = get(port, old)
            assert (status, relative(location)) == (301, new), old
        for page in current:
            assert get(port, page)[0] == 200, page
        # the rows of the .htaccess that could be written are there, one rule each
        assert relative(get(port, "/d.html")[1]) == "https://x.example/a%20b%0D%0Ac$d%5C"
        assert relative(get(port, "/back%5Cslash%5C")[1]) == "/new/plain.html"
        assert relative(get(port, "/q%22uote.html")[1]) == (
            "/new/plain.html#%22%0ARequire%20all%20denied"
        )
        assert get(port, "/" + quote(INJECTION) + ".html")[0] == 404
    finally:
        stop()
        htaccess.unlink()


def test_the_injection_key_is_refused_at_its_line(tmp_path: Path) -> None:
    table = tmp_path / "relocations.toml"
    table.write_text('[pages]\n"ok" = "new"\n"a\\nRequire all denied\\nSetEnv X" = "new"\n')
    _, problems = load_table(table, display_name="relocations.toml")
    assert [str(p).split(": ")[0] for p in problems] == ["relocations.toml:3"]


def test_folder_moves_are_one_rule_each(site: Path) -> None:
    """What the servers above were given: one wildcard for 'guide/' and for 'faq/*',
    none for 'archive/' (a page is still below it), whose pages have a rule each."""
    nginx = (site / "_relocate/nginx.conf").read_text("utf-8")
    apache = (site / "_relocate/apache.conf").read_text("utf-8")
    assert [line for line in nginx.splitlines() if "$relocate_rest_" in line and "~" in line] == [
        '    "~^/guide/" "/manual/$relocate_rest_1$is_args$args";',
        '    "~^/faq/" "/help/faq/$relocate_rest_1$is_args$args";',
    ]
    assert [line for line in apache.splitlines() if line.endswith('$1"')] == [
        'RedirectMatch permanent "^/guide/(.*)$" "/manual/$1"',
        'RedirectMatch permanent "^/faq/(.*)$" "/help/faq/$1"',
    ]
    for text in (nginx, apache):
        assert "/guide/with" not in text and "/faq/q1" not in text
        assert "/archive/with" in text and "/archive/still" not in text


# -- a versioned site: version 1 in the old layout, version 2 moved ----------------------

VERSIONS = Path(__file__).parent / "roots"
#: version 1's URLs of version 2's names → version 1's old names (reverse exports)
REVERSE = {
    "/v1/new/plain.html": "/v1/old/plain.html",
    "/v1/new/plain.html?x=1&y=%20": "/v1/old/plain.html?x=1&y=%20",
    "/v1/new/%E7%89%B9%E6%80%A7.html": "/v1/old/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.html",
    "/v1/new/with%20space.html": "/v1/old/with%20space.html",
    # a page of the moved folder that went elsewhere: its own rule wins
    "/v1/new/a.html": "/v1/guide/a.html",
    # the folders: one rule each, the rest of the path and the query as sent
    "/v1/manual/with%20space.html?q=%E4%B8%AD": "/v1/guide/with%20space.html?q=%E4%B8%AD",
    "/v1/manual/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html":
        "/v1/guide/%E7%89%B9%E6%80%A7%20%E6%A6%82%E8%A7%88.html",
    "/v1/manual/deep/page.html": "/v1/guide/deep/page.html",
    "/v1/manual/index.html": "/v1/guide/index.html",
    "/v1/help/faq/%E9%97%AE%20%E9%A2%98.html": "/v1/faq/%E9%97%AE%20%E9%A2%98.html",
}
#: version 2's own forward rules, under its folder
FORWARD = {
    "/v2/old/plain.html?x=1": "/v2/new/plain.html?x=1",
    "/v2/guide/deep/page.html": "/v2/manual/deep/page.html",
    "/v2/faq/q1.html": "/v2/help/faq/q1.html",
}


def pages_of(outdir: Path) -> list[str]:
    """The URL of every page the builder wrote (stubs left out), from the site root."""
    stubs = set(json.loads((outdir / "_relocate/stubs.json").read_text())["files"]) if (
        outdir / "_relocate/stubs.json"
    ).exists() else set()
    return sorted(
        "/" + quote(path.relative_to(outdir).as_posix())
        for path in outdir.rglob("*.html")
        if path.relative_to(outdir).parts[0] not in {"_static", "_sources", "_relocate"}
        and path.relative_to(outdir).as_posix() not in stubs
    )


@pytest.fixture(scope="module", params=["html", "dirhtml"])
def versions(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """A web server's root with ``v1/`` (built from the old layout) and ``v2/`` (the
    moved one, with its exports), readable by a server's worker user."""
    outputs = {
        version: build_root(tmp_path_factory, VERSIONS / f"test-versions-{version}",
                            request.param)
        for version in ("v1", "v2")
    }
    with served_folder(outputs) as docroot:
        (docroot / request.param).touch()  # the builder's name, for the test
        yield docroot


def versioned_urls(docroot: Path) -> tuple[dict[str, str], list[str]]:
    """The reverse and forward redirects, and every page of both versions."""
    expected = REVERSE | FORWARD
    pages = pages_of_version(docroot, "v1") + pages_of_version(docroot, "v2")
    if (docroot / "dirhtml").exists():
        return {folder(old): folder(new) for old, new in expected.items()}, [
            folder(page) for page in pages
        ]
    return expected, pages


def pages_of_version(docroot: Path, version: str) -> list[str]:
    return ["/" + version + page for page in pages_of(docroot / version)]


def test_nginx_sends_older_versions_to_their_old_names(versions: Path, tmp_path: Path) -> None:
    port = free_port()
    exports = versions / "v2/_relocate"
    conf = nginx_conf(
        tmp_path, exports / "nginx.conf", port, versions, exports / "nginx-reverse.conf"
    )
    checked = nginx_test(conf, tmp_path)
    assert checked.returncode == 0, checked.stderr
    stop = serve([binary(NGINX), "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
                 port, tmp_path / "logs/error.log")
    try:
        assert_versions(port, versions)
    finally:
        stop()


def test_apache_sends_older_versions_to_their_old_names(versions: Path, tmp_path: Path) -> None:
    """The forward export included in the server configuration, the reverse one as the
    ``.htaccess`` of the server's root (the folder of the versions)."""
    port = free_port()
    exports = versions / "v2/_relocate"
    conf = apache_conf(tmp_path, exports / "apache.conf", port, versions)
    htaccess = versions / ".htaccess"
    shutil.copyfile(exports / "apache-reverse.conf", htaccess)
    htaccess.chmod(0o644)
    command = [binary(APACHE), "-f", str(conf), "-DFOREGROUND"]
    checked = subprocess.run([*command[:-1], "-t"], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    stop = serve(command, port, tmp_path / "error.log")
    try:
        assert_versions(port, versions)
    finally:
        stop()
        htaccess.unlink()


def assert_versions(port: int, docroot: Path) -> None:
    expected, pages = versioned_urls(docroot)
    for old, new in expected.items():
        status, location = get(port, old)
        want = 301 if old.startswith("/v2/") else 302
        assert (status, relative(location)) == (want, new), old
    assert len(pages) > 20
    for page in pages:
        assert get(port, page)[0] == 200, page
    # a name neither version has: no rule sends it anywhere
    assert get(port, folder_if_versions(docroot, "/v1/new/never.html"))[0] == 404


def folder_if_versions(docroot: Path, url: str) -> str:
    return folder(url) if (docroot / "dirhtml").exists() else url


# -- a site whose URL style changed (relocate_old_url_styles) ----------------------------

#: each page's URL in the other style → its URL now, and an old page's in the other style
OTHER_STYLE = {
    "html": {  # the site was dirhtml
        "/new/plain/": "/new/plain.html",
        "/new/plain/?x=1": "/new/plain.html?x=1",
        "/manual/with%20space/": "/manual/with%20space.html",
        "/help/faq/%E9%97%AE%20%E9%A2%98/": "/help/faq/%E9%97%AE%20%E9%A2%98.html",
        "/search/": "/search.html",
        "/old/plain/": "/new/plain.html",
        "/old/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88/": "/new/%E7%89%B9%E6%80%A7.html",
    },
    "dirhtml": {  # the site was html
        "/new/plain.html": "/new/plain/",
        "/new/plain.html?x=1": "/new/plain/?x=1",
        "/manual/with%20space.html": "/manual/with%20space/",
        "/help/faq/%E9%97%AE%20%E9%A2%98.html": "/help/faq/%E9%97%AE%20%E9%A2%98/",
        "/search.html": "/search/",
        "/old/plain.html": "/new/plain/",
        "/old/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.html": "/new/%E7%89%B9%E6%80%A7/",
    },
}


@pytest.fixture(scope="module", params=["html", "dirhtml"])
def restyled(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """The test root built with the other builder's URLs as its old URL style."""
    other = "dirhtml" if request.param == "html" else "html"
    outdir = build_root(tmp_path_factory, ROOT, request.param,
                        relocate_old_url_styles=[other])
    with served_folder({request.param: outdir}) as docroot:
        yield docroot / request.param


@pytest.mark.parametrize("server", ["nginx", "apache"])
def test_old_url_style_lands(restyled: Path, tmp_path: Path, server: str) -> None:
    port, stop = start(server, tmp_path, restyled, restyled / "_relocate")
    try:
        for old, new in OTHER_STYLE[restyled.name].items():
            status, location = get(port, old)
            assert (status, relative(location)) == (301, new), old
        for page in urls(restyled.name)[1]:
            assert get(port, page)[0] == 200, page
    finally:
        stop()


# -- entries with status = 302 ---------------------------------------------------------

#: what the test root's table gets in the fixture below: a page and a folder moved for now
TENTATIVE_ENTRIES = {
    "[pages]\n": '[pages]\n"old/tentative" = { to = "new/plain", status = 302 }\n',
    "[prefixes]\n": '[prefixes]\n"draft/" = { to = "manual/", status = 302 }\n',
}
#: old URL → (status, Location): the 302 entries, and entries of 301 next to them
TENTATIVE = {
    "/old/tentative.html": (302, "/new/plain.html"),
    "/old/tentative.html?x=1": (302, "/new/plain.html?x=1"),
    "/draft/with%20space.html?q=%E4%B8%AD": (302, "/manual/with%20space.html?q=%E4%B8%AD"),
    "/draft/deep/page.html": (302, "/manual/deep/page.html"),
    "/draft/never-a-page.html": (302, "/manual/never-a-page.html"),  # the folder's rule
    "/draft/index.html": (302, "/manual/index.html"),
    "/old/plain.html": (301, "/new/plain.html"),
    "/guide/deep/page.html": (301, "/manual/deep/page.html"),
    "/faq/q1.html": (301, "/help/faq/q1.html"),
}


@pytest.fixture(scope="module", params=["html", "dirhtml"])
def tentative(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """The test root built with a 302 page entry and a 302 folder entry."""

    def tentative_table(text: str) -> str:
        for header, written in TENTATIVE_ENTRIES.items():
            text = text.replace(header, written)
        return text

    outdir = build_root(tmp_path_factory, ROOT, request.param, table=tentative_table)
    with served_folder({request.param: outdir}) as docroot:
        yield docroot / request.param


@pytest.mark.parametrize("server", ["nginx", "apache"])
def test_302_entries_answer_302(tentative: Path, tmp_path: Path, server: str) -> None:
    """A page and a folder (one wildcard rule) with ``status = 302`` answer 302 with
    their ``Location``; the other entries still 301, the pages 200."""
    text = (tentative / f"_relocate/{server}.conf").read_text("utf-8")
    folders = [line for line in text.splitlines() if "draft" in line and "page" not in line]
    assert len(folders) == (2 if server == "nginx" else 1), folders  # nginx: two maps
    port, stop = start(server, tmp_path, tentative, tentative / "_relocate")
    try:
        for old, (code, new) in TENTATIVE.items():
            status, location = get(port, folder_if(tentative, old))
            assert (status, relative(location)) == (code, folder_if(tentative, new)), old
        for page in urls(tentative.name)[1]:
            assert get(port, page)[0] == 200, page
    finally:
        stop()

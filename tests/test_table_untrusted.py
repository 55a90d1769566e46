"""Random, hostile table entries through the table, every export and the inventory.

Keys and values hold control characters, separators of every output format, quotes,
backslashes, ``%``, ``$``, mixed Unicode normalization, and very long and deeply nested
paths.  For each: loading never raises (a bad entry is one problem at its line); each
entry the table keeps is exactly one rule or entry in every export (or one comment that
says it was not written) and at most one alias in ``objects.inv``, as Sphinx's own
reader splits the file; and its stub stays inside the output folder.
"""

from __future__ import annotations

import json
import posixpath
import re
import tempfile
import zlib
from io import BytesIO
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sphinx.util.inventory import InventoryFile

from sphinx_relocate.core.exports import EXPORTS, Export, export_files
from sphinx_relocate.core.inventory import listable, parse, with_aliases
from sphinx_relocate.core.paths import (
    html_page_path,
    page_root_url,
    quote_fragment,
    quote_url,
    safe_output_path,
)
from sphinx_relocate.core.table import CONTROL, RelocationTable, Target, load_table

#: one character of a name: plain, separators of the formats, controls, lookalikes
CHAR = st.sampled_from([
    *"ab/._-~ \t\n\r\x00\x1b\x7f\x85\u2028\u2029\u202e\ufeff;{}#$\"'\\%?&=:*()+,[]<>|^`@!",
    "安", "é", "e\u0301", "ﬁ", "Ä",
])
SEGMENT = st.lists(CHAR, min_size=1, max_size=8).map("".join)
NAME = st.one_of(
    st.lists(SEGMENT, min_size=1, max_size=4).map("/".join),
    st.integers(1, 300).map(lambda n: "/".join(["deep"] * n)),  # deeply nested
    st.integers(100, 5000).map(lambda n: "long/" + "x" * n),  # very long
    st.just("install std:label -1 https:/evil.example/ Installation"),
    st.just("a\nRequire all denied\nSetEnv X"),
)
TARGET = st.one_of(
    NAME,
    st.tuples(NAME, SEGMENT).map("#".join),
    SEGMENT.map(lambda s: "https://example.org/" + s),
)


def toml_string(text: str) -> str:
    """A TOML basic string of ``text``: what TOML must escape, escaped."""
    out = []
    for char in text:
        if char in '"\\' or ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def load(entries: dict[str, str], labels: dict[str, str]) -> tuple[RelocationTable, list[str]]:
    text = "".join(
        f"[{section}]\n" + "".join(f"{toml_string(k)} = {toml_string(v)}\n"
                                    for k, v in rows.items())
        for section, rows in (("pages", entries), ("labels", labels))
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "relocations.toml"
        path.write_text(text, encoding="utf-8", newline="\n")
        table, problems = load_table(path, display_name="relocations.toml")
    messages = [str(p) for p in problems]
    for message in messages:  # one line each, at an entry's line
        assert "\n" not in message and re.match(r"relocations\.toml:\d+: ", message), message
    return table, messages


def rows_of(table: RelocationTable) -> list[tuple[str, str]]:
    """The export rows of the table's pages, as the plan makes them (html builder)."""
    rows = []
    for old, target in table.pages.items():
        if target.url:
            new = quote_url(target.url)
        else:
            new = "/" + page_root_url(target.path, dirhtml=False)
            new += "#" + quote_fragment(target.anchor) if target.anchor else ""
        rows.append(("/" + page_root_url(old, dirhtml=False), new))
    return rows


_WORD = r'"(?:[^"\\]|\\.)*"'


def rules(name: str, text: str) -> int:
    """The number of rules of one export, read as its server reads it; comments that
    stand for a row not written count as one."""
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text), name
    if name == "netlify":
        lines = [line for line in text.splitlines() if not line.startswith("#")]
        assert all(len(line.split()) == 3 and line.endswith(" 301!") for line in lines)
        return len(lines)
    if name == "apache":
        count = 0
        for line in text.splitlines():
            if line.startswith("# not written: "):
                count += 1
            elif not line.startswith("#"):
                assert re.fullmatch(rf"(Redirect|RedirectMatch) permanent {_WORD} {_WORD}", line)
                count += 1
        return count
    if name == "nginx":
        maps = re.fullmatch(
            r"(?:#.*\n)*map_hash_bucket_size \d+;\nmap_hash_max_size \d+;\n"
            r"map \$uri \$relocate_key \{\n(.*?)\}\nmap \$uri \$relocate_target \{\n(.*?)\}\n",
            text, re.S,
        )
        assert maps, text
        counts = []
        for body in maps.groups():
            lines = body.splitlines()
            for line in lines:
                assert line.startswith("    # not written: ") or re.fullmatch(
                    rf"    {_WORD} (?:\$uri|{_WORD});", line
                ), line
            counts.append(len(lines))
        assert counts[0] == counts[1]
        return counts[0]
    data = json.loads(text)
    return len(data["redirects"] if name == "vercel" else data)


def inventory_of(names: list[str]) -> bytes:
    body = "".join(f"{name} std:doc -1 {name}.html -\n" for name in names)
    return (
        b"# Sphinx inventory version 2\n# Project: p\n# Version: 1\n"
        b"# The remainder of this file is compressed using zlib.\n"
        + zlib.compress(body.encode())
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(NAME, TARGET, max_size=6), st.dictionaries(SEGMENT, SEGMENT, max_size=3))
@example({"a\nRequire all denied\nSetEnv X": "new", "ok": "new"}, {})
@example({"install std:label -1 https:/evil.example/ Installation": "new"}, {})
@example({"caf\u00e9": "new", "cafe\u0301": "new#a b$"}, {"a\nb": "c"})
@example({".:": "deep"}, {})  # a name, not a drive: its stub is written
@example({"/[": "a"}, {})  # "//[" does not split as a URL: refused, not a crash
def test_one_entry_is_one_rule_everywhere(entries: dict[str, str], labels: dict[str, str]) -> None:
    table, problems = load(entries, labels)
    for old in table.pages:  # what the table keeps holds no control character
        assert CONTROL.search(old) is None
        stub = html_page_path(old, dirhtml=False)
        normal = safe_output_path(stub)
        assert normal is not None and not normal.startswith("../")
        assert posixpath.normpath(posixpath.join("out", normal)).startswith("out/")
    for old in table.labels:
        assert CONTROL.search(old) is None
    if any(CONTROL.search(key) for key in entries):
        assert problems  # refused at its line, never kept

    # every export: one rule per row, for the table's rows and for rows nobody checked
    raw = [("/" + old, "/" + new) for old, new in entries.items()]
    for rows in (rows_of(table), raw):
        forward = {n: e for n, e in EXPORTS.items() if isinstance(e, Export)}  # a rule a row
        files = export_files(rows, sorted(EXPORTS), "/en/latest")
        for name, export in forward.items():
            assert not export.path.startswith("/") and ".." not in export.path
            assert rules(name, files[export.path]) == len(rows), (name, files[export.path])

    # objects.inv: each alias is one entry as Sphinx reads it, nothing else appears
    targets = sorted({t.path for t in table.pages.values() if not t.url})
    base = parse(inventory_of([t for t in targets if listable(t) and not t.endswith("$")]))
    known = {e.name for e in base.entries if e is not None}
    moves = {old: (t.path, t.anchor) for old, t in table.pages.items()
             if not t.url and t.path in known and old not in known}
    data = base.dump(with_aliases(base, {"std:doc": (known, moves)}))
    read = InventoryFile.load(BytesIO(data), "https://x.example/", posixpath.join)
    assert set(read) <= {"std:doc"}
    names = set(read.get("std:doc", {}))
    assert names <= known | set(moves)
    lines = zlib.decompress(data.split(b"\n", 4)[4]).decode().splitlines()
    assert len(lines) == len(names)  # one line, one entry


def test_the_strategy_reaches_the_hostile_cases() -> None:
    """A guard that the property above is fed what it claims (not only plain names)."""
    assert Target("a").path == "a"
    assert CONTROL.search("a\nb") and CONTROL.search("\u202e") and not CONTROL.search("a b")

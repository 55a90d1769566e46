"""Reading a conf.py's settings from its syntax tree (:mod:`sphinx_relocate.core.confpy`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sphinx_relocate.core.confpy import read_literals

LITERALS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                  max_size=3),
    max_leaves=10,
)


@given(LITERALS)
def test_a_literal_reads_back_as_written(value: object) -> None:
    found = read_literals(f"import mypkg\nrelocate_map = {value!r}\n")
    assert found.values == {"relocate_map": value}
    assert found.unread == []


def test_what_is_read_and_what_is_named() -> None:
    found = read_literals(
        "from mypkg import __version__\n"
        "extensions = ['myst_parser']\n"
        "extensions.append('sphinx_relocate')\n"
        "extensions += ('x',)\n"
        "source_suffix: dict = {'.md': 'markdown'}\n"
        "release = __version__\n"                     # not needed: not named
        "html_baseurl = 'https://x/' + __version__\n"
        "try:\n    language = mypkg.lang\nexcept ImportError:\n    language = 'en'\n"
        "def setup(app):\n    exclude_patterns = ['local']\n"   # a local name, not conf's
        "locale_dirs = ['locales']\nlocale_dirs.insert(0, 'more')\n"
        "relocate_table, relocate_map = 'a.toml', {}\n"
    )
    assert found.values["extensions"] == ["myst_parser", "sphinx_relocate", "x"]
    assert found.values["source_suffix"] == {".md": "markdown"}
    assert found.unread == [
        ("html_baseurl", 7, "not a literal"),
        ("language", 8, "set by a statement that only running conf.py can read"),
        ("locale_dirs", 15, "changed by .insert()"),
        ("relocate_map", 16, "not a plain assignment"),
        ("relocate_table", 16, "not a plain assignment"),
    ]
    assert "exclude_patterns" not in found.values and "release" not in found.values
    assert found.read_names() == ["extensions", "source_suffix"]


def test_a_later_literal_replaces_an_unread_value() -> None:
    found = read_literals("language = pick()\nlanguage = 'en'\n")
    assert (found.values, found.unread) == ({"language": "en"}, [])


def test_the_themes_dicts_are_read_for_their_literal_entries() -> None:
    found = read_literals(
        "import mypkg\n"
        "html_theme_options = {'source_repository': 'https://github.com/o/r',\n"
        "                      'version': mypkg.__version__, **mypkg.more}\n"
        "html_context = {'github_user': 'o', f'{mypkg.x}': 1}\n"
        "html_baseurl = {'a': mypkg.b}\n"  # only the theme's dicts: the rest is unread
    )
    assert found.values["html_theme_options"] == {"source_repository": "https://github.com/o/r"}
    assert found.values["html_context"] == {"github_user": "o"}
    assert found.unread == [("html_baseurl", 5, "not a literal")]

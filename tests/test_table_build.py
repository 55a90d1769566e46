"""The table inside a Sphinx build: config errors stop it, project checks warn at the entry."""

from __future__ import annotations

import pytest
from sphinx.errors import ConfigError


@pytest.mark.sphinx("html", testroot="table-build", freshenv=True)
def test_table_warnings_point_at_entries(app, warning) -> None:
    app.build()
    lines = [line for line in warning.getvalue().splitlines() if "WARNING" in line]
    text = "\n".join(lines)
    assert len(lines) == 4, text
    assert "relocations.toml:4: WARNING: old names differ only by letter case" in text
    assert "[relocate.case_collision]" in text
    assert "relocations.toml:5: WARNING: 'still_here' still exists" in text
    assert "[relocate.shadowed]" in text
    assert "conf.py:4: WARNING: target 'guide/nowhere' of 'old/gone' is not a document" in text
    assert "relocations.toml:8: WARNING: target 'img/b.png' of 'img/a.png' is not a file" in text
    assert text.count("[relocate.target_missing]") == 2


@pytest.mark.sphinx("html", testroot="table-build", freshenv=True)
def test_table_warnings_repeat_on_a_no_op_build(make_app, app_params, warning) -> None:
    args, kwargs = app_params
    first = make_app(*args, **kwargs)
    first.build()
    again = make_app(*args, **{**kwargs, "freshenv": False})
    again._warning.truncate(0)
    again._warning.seek(0)
    again.build()
    assert again._warning.getvalue().count("[relocate.") == 4


@pytest.mark.sphinx("html", testroot="table-bad")
def test_bad_table_is_one_config_error(make_app, app_params) -> None:
    args, kwargs = app_params
    with pytest.raises(ConfigError) as info:
        make_app(*args, **kwargs)
    message = str(info.value)
    assert message.startswith("the relocation table has 2 problems")
    assert "relocations.toml:2: relocation cycle: a → b → a" in message
    assert "relocations.toml:4: [pages] 'c': unsafe target 'javascript:alert(1)'" in message

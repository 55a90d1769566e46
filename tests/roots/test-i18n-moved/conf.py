project = "i18n-moved"
extensions = ["sphinx_relocate"]
html_theme = "basic"
exclude_patterns = ["_build"]
language = "de"
locale_dirs = ["locale/"]
gettext_compact = False
relocate_report_rewrites = True

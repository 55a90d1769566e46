extensions = ["sphinx_relocate"]
relocate_map = {
    "old/intro": "guide/intro",
    "old/gone": "guide/nowhere",
}
show_warning_types = True  # Sphinx 7.4 does not add "[relocate.x]" by default

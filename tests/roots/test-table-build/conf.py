extensions = ["sphinx_relocate"]
relocate_map = {
    "old/intro": "guide/intro",
    "old/gone": "guide/nowhere",
}

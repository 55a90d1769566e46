extensions = ["sphinx_relocate"]

"""The ``sphinx-relocate`` command: :mod:`~sphinx_relocate.cli.main` parses the command
line and runs one command module (``check``, ``rewrite``, ``from_git``, ``import_peers``,
``mv``) on the docs folder :mod:`~sphinx_relocate.cli.project` reads."""

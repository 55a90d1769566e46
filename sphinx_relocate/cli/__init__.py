"""The ``sphinx-relocate`` command."""

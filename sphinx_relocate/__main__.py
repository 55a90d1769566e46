"""``python -m sphinx_relocate``: the ``sphinx-relocate`` command."""

import sys

from sphinx_relocate.cli.main import main

sys.exit(main())

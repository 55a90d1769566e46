"""``python -m sphinx_relocate``: the ``sphinx-relocate`` command."""

import sys

from ._cli import main

sys.exit(main())

"""``python -m sompca``: the command line (see ``python -m sompca --help``)."""

import sys

from ._cli import main

sys.exit(main())

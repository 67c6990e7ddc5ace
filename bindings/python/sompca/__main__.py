"""``python -m sompca``: the command line (see ``python -m sompca --help``)."""

import signal
import sys


def _interrupted(signum, frame):
    sys.stderr.write("sompca: interrupted\n")
    raise SystemExit(130)


signal.signal(signal.SIGINT, _interrupted)  # until the command line handles Ctrl-C itself
from ._cli import main  # noqa: E402

signal.signal(signal.SIGINT, signal.default_int_handler)
sys.exit(main())

"""The ``sompca`` command's entry point (``sompca._cli.main`` does the work).

It lives outside the package so that it runs before ``import sompca``
(numpy, the library): a Ctrl-C from the first instruction on ends the
command with one line and exit status 130, never a traceback.
"""

import signal
import sys


def _interrupted(signum, frame):
    sys.stderr.write("sompca: interrupted\n")
    raise SystemExit(130)


def main():
    previous = signal.signal(signal.SIGINT, _interrupted)
    from sompca._cli import main as run

    signal.signal(signal.SIGINT, previous)  # the command's own handling from here on (sompca._cli.main)
    return run()


if __name__ == "__main__":
    sys.exit(main())

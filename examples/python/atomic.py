"""Atomic output files for sompca's example programs.

An output is first written to a temporary file next to its final path and
renamed into place only when complete, so an interrupted or failed run never
leaves a half-written file behind (and never truncates a good old one).
"""

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_output(path):
    """Yield a temporary path; on success rename it to ``path``.

    Parameters
    ----------
    path : str
        The final output file; its directory must exist.

    Yields
    ------
    str
        A fresh temporary file in the same directory, to be written by the
        caller (its permissions follow the umask, like ``open(path, "w")``).

    Examples
    --------
    >>> import tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "table.md")
    >>> with atomic_output(out) as tmp:
    ...     with open(tmp, "w") as f:
    ...         _ = f.write("| L | P |\\n")
    >>> open(out).read()
    '| L | P |\\n'
    """
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    os.close(fd)
    # mkstemp creates the file 0600; give it the mode open() would.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path, text):
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_output(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

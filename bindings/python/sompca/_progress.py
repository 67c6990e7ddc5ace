"""The progress bar of fits: the command line's (on a terminal), and the estimators' ``verbose=True``."""

import time


class ProgressBar:
    """A one-line progress bar, redrawn in place on a stream.

    Called as ``bar(done, total, variance)`` after each EMP (or sweep), and
    ``bar.read(bytes_read, bytes_total)`` while the library reads the data
    file: the line shows EMPs done and bytes read. ``close()`` ends the line.
    """

    def __init__(self, label, stream):
        self.label = label
        self.stream = stream
        self.drawn = False
        self.done = self.total = 0
        self.variance = None
        self.bytes = None  # (read, total) of the data file
        self.width = 0  # characters of the last line drawn
        self.last_draw = 0.0

    def __call__(self, done, total, variance):
        self.done, self.total, self.variance = done, total, variance
        self._draw()

    def read(self, bytes_read, bytes_total):
        self.bytes = (bytes_read, bytes_total)
        now = time.monotonic()
        if now - self.last_draw >= 0.1 or bytes_read == bytes_total:  # at most 10 redraws a second
            self._draw()

    def _draw(self):
        width = 30
        filled = width * self.done // self.total if self.total > 0 else 0
        bar = "#" * filled + "-" * (width - filled)
        line = f"\r{self.label} [{bar}] {self.done}/{self.total if self.total > 0 else '?'}"
        if self.variance is not None:
            line += f"  variance {self.variance:.4g}"
        if self.bytes is not None:
            read, total = self.bytes
            line += f"  read {_size(read)}"
            line += f" of {_size(total)}" if read <= total else f" ({read / total:.1f} passes over {_size(total)})"
        pad = max(self.width - len(line), 0)
        self.width = len(line)
        self.stream.write(line + " " * (pad + 1))
        self.stream.flush()
        self.drawn = True
        self.last_draw = time.monotonic()

    def close(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _size(n):
    """Bytes for people: "704 MB" (MB = 10^6 bytes, as --memory-limit reads it)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"

"""The package version, which must equal the version of the libsompca it loads.

It is written once, in include/sompca.h (SOMPCA_VERSION_MAJOR, _MINOR,
_PATCH): a built package's copy of this file holds the number (setup.py
writes it); from a source checkout it is read from the header here.
"""

import pathlib
import re


def _header_version():
    header = pathlib.Path(__file__).resolve().parents[3] / "include" / "sompca.h"
    try:
        text = header.read_text()
    except OSError as err:
        raise ImportError(f"sompca: cannot read the version from {header}: {err}; install the package "
                          "(pip install bindings/python) instead of running it from an incomplete tree") from err
    return ".".join(re.search(rf"#define SOMPCA_VERSION_{name}\s+(\d+)", text).group(1)
                    for name in ("MAJOR", "MINOR", "PATCH"))


__version__ = _header_version()

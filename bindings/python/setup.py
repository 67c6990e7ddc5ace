"""Build hook of the sompca package: build libsompca.so and ship it inside.

All other metadata is in pyproject.toml. The package needs the native
library libsompca.so, built from the Go sources of the sompca repository
with the same command as `make lib` (the Makefile's rule, run by make). The
sources are found

- in a checkout: the repository around bindings/python (../..);
- in an sdist (`make sdist`): its folder native/, a copy of the repository's
  Makefile, mk/, go.mod, go.sum and Go/C sources.

Building needs Go (https://go.dev/dl/, on PATH or named by $GO), make, a C
compiler and the HDF5 C library with its headers and pkg-config (Debian:
apt-get install libhdf5-dev pkg-config); without them the build stops and
says what is missing. A prebuilt wheel (`make wheel`) needs none of them.

The version is written once, in include/sompca.h (SOMPCA_VERSION_MAJOR,
_MINOR, _PATCH); the built package gets it in sompca/_version.py.
"""

import os
import pathlib
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 77 (pyproject.toml)
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
LIBRARY = "libsompca.so"


def source_root():
    """The folder holding the Makefile and the Go sources, or None."""
    for root in (HERE / "native", HERE.parents[1]):
        if (root / "include" / "sompca.h").is_file() and (root / "Makefile").is_file() and (root / "capi").is_dir():
            return root
    return None


def header_version(root):
    """"MAJOR.MINOR.PATCH" from include/sompca.h."""
    text = (root / "include" / "sompca.h").read_text()
    parts = [re.search(rf"#define SOMPCA_VERSION_{name}\s+(\d+)", text) for name in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise SystemExit(f"sompca: {root / 'include' / 'sompca.h'} does not define SOMPCA_VERSION_MAJOR/MINOR/PATCH")
    return ".".join(match.group(1) for match in parts)


def package_version():
    root = source_root()
    if root is not None:
        return header_version(root)
    # An unpacked sdist without native/ cannot be built; PKG-INFO still names the version.
    pkg_info = HERE / "PKG-INFO"
    if pkg_info.is_file():
        match = re.search(r"^Version: (\S+)", pkg_info.read_text(), flags=re.M)
        if match:
            return match.group(1)
    raise SystemExit(f"sompca: no sompca sources found around {HERE} (want ../../include/sompca.h or native/)")


def missing_tools(root):
    """What the build needs and does not find, as lines of advice."""
    missing = []
    go = os.environ.get("GO", "go")
    if shutil.which(go) is None:
        missing.append(f"Go ({go!r} is not on PATH): install Go >= 1.24 (go.mod) from https://go.dev/dl/ or your "
                       "distribution (Debian: apt-get install golang), or set GO to its path")
    if shutil.which("make") is None:
        missing.append("make (Debian: apt-get install make)")
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        missing.append("a C compiler for cgo (Debian: apt-get install gcc)")
    if shutil.which("pkg-config") is None:
        missing.append("pkg-config (Debian: apt-get install pkg-config)")
    elif subprocess.run(["pkg-config", "--exists", "hdf5"]).returncode != 0:
        missing.append("the HDF5 C library and headers, known to pkg-config as 'hdf5' "
                       "(Debian: apt-get install libhdf5-dev)")
    return missing


def build_library():
    """Run the repository's `make lib`; return the path of the built library."""
    root = source_root()
    if root is None:
        raise SystemExit(f"sompca: cannot build {LIBRARY}: no sompca sources around {HERE} "
                         "(want the repository checkout or an sdist made by `make sdist`)")
    missing = missing_tools(root)
    if missing:
        raise SystemExit(f"sompca: cannot build {LIBRARY} from source; missing:\n  - " + "\n  - ".join(missing)
                         + "\nInstall them, or install a prebuilt wheel (built by `make wheel`), which needs none.")
    command = ["make", "--no-print-directory", "-C", str(root), "lib"]
    print("sompca: building the native library:", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise SystemExit(f"sompca: `{' '.join(command)}` failed (its output is above)")
    return root / "build" / LIBRARY


class BuildWithLibrary(build_py):
    """build_py, plus the native library and the version file."""

    def run(self):
        super().run()
        package = pathlib.Path(self.build_lib) / "sompca"
        shutil.copy2(build_library(), package / LIBRARY)
        (package / "_version.py").write_text(
            "# Written by setup.py from include/sompca.h, the one place the version is written.\n"
            f'__version__ = "{self.distribution.get_version()}"\n')


class BinaryDistribution(Distribution):
    """The wheel holds a native library, so it is tagged for this platform."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """Tag py3-none-<platform>: the library is loaded with ctypes, so any Python 3 can use the wheel."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    version=package_version(),
    cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel},
    distclass=BinaryDistribution,
)

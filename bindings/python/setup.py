"""Build hook of the sompca package: ship libsompca.so inside it.

All metadata is in pyproject.toml. The library comes from the repository's
build/libsompca.so (`make lib`) when it exists, else from a copy already in
sompca/ (as `make python-package` leaves it), so `pip install bindings/python`
after `make lib` gives a package that works from any directory.
"""

import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
LIBRARY = "libsompca.so"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        target = pathlib.Path(self.build_lib) / "sompca" / LIBRARY
        built = HERE.parents[1] / "build" / LIBRARY
        if built.is_file():
            shutil.copy2(built, target)
        elif not target.is_file():
            raise SystemExit(f"sompca: {built} not found; run `make lib` in the repository first")


class BinaryDistribution(Distribution):
    """The wheel holds a native library, so it is tagged for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)

"""The ctypes layer against the C contract include/sompca.h."""

import ctypes
import pathlib
import re

import pytest

from sompca import _lib

HEADER = pathlib.Path(__file__).resolve().parents[3] / "include" / "sompca.h"


@pytest.fixture(scope="module")
def header():
    if not HEADER.is_file():
        pytest.fail(f"{HEADER} not found: run the tests from the sompca repository")
    return HEADER.read_text()


def prototypes(text):
    """name -> number of parameters, for every function the header declares."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # drop comments
    found = {}
    for match in re.finditer(r"^[a-z][\w \*]*?\b(sompca_\w+)\s*\(([^)]*)\)\s*;", text, flags=re.M):
        params = " ".join(match.group(2).split())
        found[match.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return found


def test_every_function_is_declared_with_its_arity(header):
    declared = prototypes(header)
    assert len(declared) >= 26  # a sanity check of the parse itself
    assert set(declared) == set(_lib._SIGNATURES)
    for name, (restype, argtypes) in _lib._SIGNATURES.items():
        assert len(argtypes) == declared[name], name
        function = getattr(_lib.lib, name)
        assert function.argtypes == argtypes and function.restype is restype


def test_constants_match_the_header(header):
    macros = {name: int(value) for name, value in re.findall(r"#define (SOMPCA_\w+)\s+(-?\d+)\b", header)}
    for name, value in macros.items():
        attribute = name[len("SOMPCA_"):]
        if hasattr(_lib, attribute):
            assert getattr(_lib, attribute) == value, name
    ours = ["OK", "EINVAL", "ESHAPE", "ERANGE", "ENOTFITTED", "EIO", "ENOMEM", "EDATA", "ECANCELED", "EINTERNAL",
            "EHANDLE", "ENUMERICAL", "EFILE", "ENOTFOUND", "ELINK", "EFILTER", "ELOCKED", "EPERM", "ETYPE", "EVERSION",
            "METHOD_SOMPCA", "METHOD_FOMPCA", "METHOD_TROD", "METHOD_UMPCA", "METHOD_PCA", "METHOD_MPCA",
            "METHOD_CSA", "FLOAT64", "FLOAT32", "UINT8", "ORDER_VARIANCE", "ORDER_EXTRACTION"]
    assert all("SOMPCA_" + name in macros for name in ours)


def test_options_struct_layout(header):
    # The struct's fields in the header's order, and the size the library itself sets.
    body = re.search(r"typedef struct sompca_options \{(.*?)\} sompca_options;", header, flags=re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    fields = re.findall(r"(\w+)\s*;", body)
    assert fields == [name for name, _ in _lib.Options._fields_]
    options = _lib.new_options()
    assert options.size == ctypes.sizeof(_lib.Options)
    assert options.mode == -1 and options.method == _lib.METHOD_SOMPCA  # sompca_options_init's defaults


def test_version_number_matches_string():
    major, minor, patch = map(int, _lib.version().split("."))
    assert _lib.lib.sompca_version_number() == major * 10000 + minor * 100 + patch


def test_installed_package_carries_its_library():
    # Installed by pip (as `make test` does): the library is the package's own copy, found
    # without SOMPCA_LIBRARY; from a source tree it is build/libsompca.so or $SOMPCA_LIBRARY.
    import os

    import sompca

    package = pathlib.Path(sompca.__file__).resolve().parent
    if os.environ.get("SOMPCA_LIBRARY"):
        assert _lib.library_path == pathlib.Path(os.environ["SOMPCA_LIBRARY"])
    elif package.parent.name == "site-packages":
        assert _lib.library_path == package / "libsompca.so"
    else:
        assert _lib.library_path in (package / "libsompca.so", package.parents[1] / "build" / "libsompca.so")

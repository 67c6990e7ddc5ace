"""The release metadata agrees: one version everywhere, the citation, the changelog, the model files' version.

The version is written once, in include/sompca.h; what the package, the library, CITATION.cff, CHANGELOG.md and
model files say is derived from it or must equal it. (sompca.pc: tests/c/check_install.sh; the wheel's name:
tests/wheel/run.sh; CITATION.cff against the CFF 1.2.0 schema: make test-docs, by cffconvert.)
"""

import pathlib
import re

import h5py
import numpy as np
import pytest
import yaml  # PyYAML, installed with dask

import sompca

ROOT = pathlib.Path(__file__).resolve().parents[3]


def header_version():
    text = (ROOT / "include" / "sompca.h").read_text()
    return ".".join(re.search(rf"#define SOMPCA_VERSION_{name} (\d+)", text).group(1)
                    for name in ("MAJOR", "MINOR", "PATCH"))


def test_one_version_everywhere():
    version = header_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert sompca.__version__ == version
    assert sompca.library_version() == version  # sompca_version() of the loaded library
    assert yaml.safe_load((ROOT / "CITATION.cff").read_text())["version"] == version
    # The changelog's newest release (the first heading after [Unreleased]) is this version.
    releases = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases[0] == "Unreleased" and releases[1] == version, releases[:2]
    link = f"[{version}]: https://github.com/sompca/sompca/releases/tag/v{version}"
    assert link in (ROOT / "CHANGELOG.md").read_text()


def test_citation_names_the_software_and_the_paper():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "BSD-3-Clause"
    assert cff["repository-code"] == "https://github.com/sompca/sompca"
    paper = cff["preferred-citation"]
    # Authors and title as the paper's own title block gives them (Shi and Lu, IJCAI 2015).
    assert [(a["given-names"], a["family-names"]) for a in paper["authors"]] == [("Qiquan", "Shi"), ("Haiping", "Lu")]
    assert paper["title"] == "Semi-Orthogonal Multilinear PCA with Relaxed Start" and paper["year"] == 2015
    bib = sompca.__citation__
    entries = re.findall(r"^@(\w+)\{", bib, re.M)
    assert entries == ["software", "inproceedings"]
    assert f"version      = {{{sompca.__version__}}}" in bib
    assert "Shi, Qiquan and Lu, Haiping" in bib and "IJCAI" in bib
    assert bib.count("{") == bib.count("}")
    assert "__citation__" in sompca.__all__


def test_license_file():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License") and "Copyright (c) 2026, the sompca developers" in text
    assert "BSD-3-Clause" in (ROOT / "bindings" / "python" / "pyproject.toml").read_text()


def test_model_file_records_the_version_and_refuses_a_newer_format(tmp_path):
    X = np.random.default_rng(0).normal(size=(20, 5, 4))
    path = tmp_path / "model.h5"
    sompca.SOMPCA(n_components=2).fit(X).save(path)
    with h5py.File(path, "r+") as f:
        assert f.attrs["library_version"] == sompca.__version__
        assert int(f.attrs["format_version"]) == 2  # hdf5io.ModelFormatVersion
        f.attrs["format_version"] = np.int32(3)
    with pytest.raises(OSError, match=r"model format version 3 is newer than this library \(sompca "
                                      + re.escape(sompca.__version__) + r"\) reads \(2\); upgrade sompca"):
        sompca.load(path)

"""Method names come from the library's method table (sompca_method_from_name / sompca_method_name)."""

import pytest

import sompca
from sompca import _lib

# The names sompca.h documents, with the estimator class and relaxed start each one means.
NAMES = [
    ("so-mpca", sompca.SOMPCA, False), ("so-mpca-rs", sompca.SOMPCA, True),
    ("fo-mpca", sompca.FOMPCA, False), ("fo-mpca-rs", sompca.FOMPCA, True),
    ("trod", sompca.TROD, False), ("trod-rs", sompca.TROD, True),
    ("umpca", sompca.UMPCA, False), ("umpca-rs", sompca.UMPCA, True),
    ("pca", sompca.PCA, None), ("mpca", sompca.MPCA, None), ("csa", sompca.CSA, None),
]


@pytest.mark.parametrize("name, cls, relaxed", NAMES)
def test_name_round_trip(name, cls, relaxed):
    est = sompca.estimator_for(name, n_components=2)
    assert type(est) is cls and est.n_components == 2
    if relaxed is not None:
        assert est.relaxed_start is relaxed
    assert sompca.method_name(est) == name
    assert _lib.method_name(*_lib.method_from_name(name)) == name


def test_spellings():
    assert _lib.method_from_name("SO_MPCA_RS") == (_lib.METHOD_SOMPCA, True)
    # The estimators' names mean their defaults: relaxed start (issue 35, one vocabulary).
    assert _lib.method_from_name(" fompca ") == (_lib.METHOD_FOMPCA, True)
    assert _lib.method_from_name("fo-mpca") == (_lib.METHOD_FOMPCA, False)


@pytest.mark.parametrize("bad, says", [
    ("tucker", "so-mpca-rs"),  # the library lists the names it knows
    ("pca-rs", "relaxed start"),
    ("", "empty"),
    ("so-mpca\0", "NUL"),
])
def test_unknown_names(bad, says):
    with pytest.raises(ValueError, match=says):
        sompca.estimator_for(bad)


def test_not_a_string():
    with pytest.raises(TypeError):
        sompca.estimator_for(3)
    with pytest.raises(ValueError):
        _lib.method_name(99)

"""The docstrings' examples run and print what they show."""

import doctest

import pytest

import sompca
from sompca import _cli, _estimators, _lib


@pytest.mark.parametrize("module", [sompca, _estimators, _lib, _cli], ids=lambda m: m.__name__)
def test_docstring_examples(module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_examples_exist():
    # The package docstring and the main estimator carry runnable examples (numpydoc "Examples").
    finder = doctest.DocTestFinder()
    assert finder.find(sompca)[0].examples
    assert any(test.examples for test in finder.find(sompca.SOMPCA))
    assert any(test.examples for test in finder.find(sompca.load))

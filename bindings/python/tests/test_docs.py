"""The docstrings: their examples run, help() shows every parameter and attribute, README's API agrees."""

import doctest
import inspect
import pathlib
import pydoc
import re

import pytest

import sompca
from sompca import _cli, _estimators, _lib


@pytest.mark.parametrize("module", [sompca, _estimators, _lib, _cli, sompca.plot], ids=lambda m: m.__name__)
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


ESTIMATORS = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]
README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def documented_names(text, section):
    """Names of a numpydoc section ("name : type" lines) in a docstring."""
    body = text.split(f"\n    {section}\n    {'-' * len(section)}\n", 1)[1]
    body = re.split(r"\n    [A-Z][a-z]+\n    -+\n", body)[0]
    return {match.group(1) for match in re.finditer(r"^    (\w+) :", body, flags=re.M)}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_help_documents_every_parameter_attribute_and_method(cls, X3):
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)  # what help() prints
    assert "Parameters" in text and "Attributes" in text
    parameters = set(inspect.signature(cls).parameters)
    assert documented_names(cls.__doc__, "Parameters") == parameters
    # Every learned attribute (the public names fit sets, ending in "_") is documented.
    fitted = cls(n_components=2).fit(X3)
    learned = {name for name in vars(fitted) if name.endswith("_") and not name.startswith("_")}
    assert learned <= documented_names(cls.__doc__, "Attributes"), learned - documented_names(cls.__doc__, "Attributes")
    for method in ("fit", "transform", "fit_transform", "inverse_transform", "save", "get_feature_names_out"):
        doc = inspect.getdoc(getattr(cls, method))
        assert doc and doc.strip(), f"{cls.__name__}.{method} has no docstring"
        assert f"{method}(" in pydoc.render_doc(getattr(cls, method), renderer=pydoc.plaintext)


def test_readme_api_lists_every_estimator_parameter_and_attribute(X3):
    api = README.read_text().split("## API", 1)[1]
    for cls in ESTIMATORS:
        signature = ", ".join(f"{name}={p.default!r}" for name, p in inspect.signature(cls).parameters.items())
        assert f"| `{cls.__name__}` |" in api and f"`{signature}`" in api, f"README's API row of {cls.__name__}"
        for name in inspect.signature(cls).parameters:
            assert f"- `{name}`" in api or f"`{name}`:" in api, f"README's API does not explain {name}"
        fitted = cls(n_components=2).fit(X3)
        for name in vars(fitted):
            if name.endswith("_") and not name.startswith("_"):
                assert f"`{name}`" in api, f"README's API does not list {cls.__name__}.{name}"

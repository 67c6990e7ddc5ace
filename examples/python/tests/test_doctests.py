"""The docstring examples of the example programs run and give what they show."""

import doctest

import pytest

import atomic
import fashion_to_hdf5
import paper_protocol


@pytest.mark.parametrize("module", [atomic, fashion_to_hdf5, paper_protocol], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0, "no examples found"
    assert result.failed == 0

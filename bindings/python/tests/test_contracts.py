"""The option table every surface shares (tests/contracts/options.json).

The Go solver is checked against it by solver/contract_test.go; here the C
interface (struct sompca_options through ctypes) and the estimators. A
value a surface accepts must fit, one it refuses must be a ValueError
(SOMPCA_EINVAL) before any work.
"""

import json
import math
import pathlib

import numpy as np
import pytest

import sompca
from sompca import _lib

TABLE = pathlib.Path(__file__).resolve().parents[3] / "tests" / "contracts" / "options.json"
CASES = json.loads(TABLE.read_text())["cases"]
X = np.random.default_rng(8).normal(size=(12, 4, 3))


def value(case):
    v = case["value"]
    return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(v, v) if isinstance(v, str) else v


def case_id(case):
    return f"{case['option']}={case['value']}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_c_options(case):
    option, v = case["option"], value(case)
    method = _lib.METHOD_MPCA if option == "q" else _lib.METHOD_SOMPCA
    field = {"threads": "n_threads"}.get(option, option)
    options = _lib.new_options(method=method, **{field: v})
    if case["valid"]:
        _lib.Model.fit_array(np.ascontiguousarray(X), _lib.FLOAT64, options)
    else:
        with pytest.raises(ValueError) as info:
            _lib.Model.fit_array(np.ascontiguousarray(X), _lib.FLOAT64, options)
        assert info.value.status == _lib.EINVAL


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_estimator_options(case):
    option, v = case["option"], value(case)
    cls = sompca.MPCA if option == "q" else sompca.SOMPCA
    param = {"threads": "n_jobs"}.get(option, option)
    estimator = cls(**{param: v})
    if case.get("python", case["valid"]):
        estimator.fit(X)
    else:
        with pytest.raises(ValueError):
            estimator.fit(X)

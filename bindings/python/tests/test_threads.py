"""Fits and transforms from several Python threads at once (the library allows it)."""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import sompca
from sompca import _estimators
from helpers import assert_same_model, make_samples


def fit_or_error(job):
    n_components, X = job
    try:
        return sompca.SOMPCA(n_components=n_components).fit(X)
    except ValueError as err:
        return err


def test_concurrent_fits_and_their_error_messages():
    # Off the main thread, fits call the library directly; each thread reads its own last
    # error, so a failing fit (too many components) beside succeeding ones gets its own message.
    datasets = [make_samples((25, 6, 5), seed=seed) for seed in range(4)]
    jobs = [(3, X) for X in datasets] + [(40 + i, datasets[i]) for i in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(fit_or_error, jobs * 2))
    for (n_components, X), result in zip(jobs * 2, results):
        if n_components == 3:
            assert_same_model(result, sompca.SOMPCA(n_components=3).fit(X), tol=0)
        else:
            assert isinstance(result, ValueError)
            assert f"{n_components} features requested" in str(result)


def test_concurrent_transforms_on_one_model():
    X = make_samples((60, 7, 5), seed=9)
    model = sompca.UMPCA(n_components=3).fit(X)
    expected = model.transform(X)
    with ThreadPoolExecutor(max_workers=4) as pool:
        outputs = list(pool.map(model.transform, [X] * 16))
    for features in outputs:
        np.testing.assert_array_equal(features, expected)  # transforms are deterministic


@pytest.mark.parametrize("n_jobs, threads", [(None, 0), (-1, 0), (1, 1), (3, 3),
                                             (-2, max(1, (os.cpu_count() or 1) - 1))])
def test_n_jobs_to_threads(n_jobs, threads):
    # scikit-learn's convention: -1 all cores, -2 all but one; the library's 0 means all cores.
    assert _estimators._n_threads(n_jobs) == threads


def test_results_do_not_depend_on_threads(X3):
    # The solver's contract: Options.Threads changes speed, not results.
    assert_same_model(sompca.SOMPCA(n_components=4, n_jobs=1).fit(X3), sompca.SOMPCA(n_components=4, n_jobs=2).fit(X3),
                      tol=1e-12)

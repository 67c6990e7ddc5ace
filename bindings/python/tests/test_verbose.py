"""verbose=True draws the command line's progress bar on stderr; verbose=False draws nothing."""

import re

import pytest

import sompca

ESTIMATORS = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_verbose_draws_a_bar_on_stderr(cls, X3, capsys):
    cls(n_components=3).fit(X3)
    assert capsys.readouterr() == ("", "")
    cls(n_components=3, verbose=True).fit(X3)
    out, err = capsys.readouterr()
    assert out == ""
    # One redraw per unit of work, "[###---] done/total", the last one complete, then a newline.
    steps = re.findall(rf"\rfit {cls.__name__} \[([#-]{{30}})\] (\d+)/(\d+)  variance ", err)
    assert steps, err
    bar, done, total = steps[-1]
    assert done == total and bar == "#" * 30
    assert [int(d) for _, d, _ in steps] == sorted(int(d) for _, d, _ in steps)
    assert err.endswith("\n") and err.count("\n") == 1


def test_verbose_counts_the_emps(X3, capsys):
    # The TVP methods report once per EMP: P = 3 gives 1/3, 2/3, 3/3.
    sompca.SOMPCA(n_components=3, verbose=True).fit_transform(X3)
    err = capsys.readouterr().err
    assert re.findall(r"\] (\d/\d)  variance", err) == ["1/3", "2/3", "3/3"], err


def test_verbose_is_a_parameter(X3):
    # scikit-learn's get_params/set_params/clone carry it like any other parameter.
    est = sompca.SOMPCA(verbose=True)
    assert est.get_params()["verbose"] is True
    assert est.set_params(verbose=False).verbose is False

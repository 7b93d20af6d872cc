"""The crowd-kit adapter: a clear error without crowd-kit, the plumbing with a stand-in, the real thing if installed."""

from __future__ import annotations

import sys
import types

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, InputTypeError, ParameterError
from paucity.crowd import LabelMatrix, aggregate


def _labels():
    table = pd.DataFrame({
        "task": ["p", "p", "p", "q", "q", "r", "r", "r"],
        "labeler": ["a", "b", "me", "a", "b", "a", "b", "me"],
        "label": ["y", "y", "n", "n", "n", "y", "n", "y"],
    })
    return LabelMatrix.from_long(table, positive="y")


class _VoteShare:
    """Stand-in for a crowd-kit aggregator: the share of +1 votes, and a record of what it was given."""

    seen: list = []

    def __init__(self, n_iter, tol):
        self.n_iter, self.tol = n_iter, tol

    def fit_predict_proba(self, table):
        _VoteShare.seen.append((table.copy(), self.n_iter, self.tol))
        share = table.assign(positive=table["label"] == 1).groupby("task")["positive"].mean()
        return pd.DataFrame({-1: 1 - share, 1: share})


@pytest.fixture
def stand_in(monkeypatch):
    module = types.ModuleType("crowdkit")
    module.aggregation = types.SimpleNamespace(DawidSkene=_VoteShare, GLAD=_VoteShare)
    monkeypatch.setitem(sys.modules, "crowdkit", module)
    _VoteShare.seen = []
    return _VoteShare


def test_missing_crowdkit_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "crowdkit", None)
    with pytest.raises(ImportError, match=r'needs crowd-kit, which is not installed: pip install "paucity\[crowdkit\]"'):
        aggregate(_labels())


def test_adapter_passes_the_crowd_and_maps_back(stand_in):
    result = aggregate(_labels(), method="glad", exclude="me", max_iter=7, tol=0.1)
    table, n_iter, tol = stand_in.seen[-1]
    assert (n_iter, tol) == (7, 0.1)
    assert list(table.columns) == ["task", "worker", "label"]
    assert len(table) == 6 and set(table["label"]) <= {-1, 1}  # the researcher's two labels left out
    assert result.index.tolist() == ["p", "q", "r"]
    assert result["label"].tolist() == ["y", "n", "n"]  # r is a tie: not above 1/2
    np.testing.assert_allclose(result["probability"], [1.0, 0.0, 0.5])
    everyone = aggregate(_labels())
    np.testing.assert_allclose(everyone["probability"], [2 / 3, 0.0, 2 / 3])


def test_adapter_errors(stand_in):
    with pytest.raises(ParameterError, match="method"):
        aggregate(_labels(), method="mace")
    with pytest.raises(ParameterError, match="max_iter"):
        aggregate(_labels(), max_iter=0)
    with pytest.raises(InputTypeError, match="LabelMatrix"):
        aggregate(pd.DataFrame())
    only_me = LabelMatrix.from_long(pd.DataFrame({"task": [0], "labeler": ["me"], "label": [1]}), positive=1)
    with pytest.raises(InputError, match="no labels to aggregate"):
        aggregate(only_me, exclude="me")


@pytest.mark.parametrize("method", ["dawid_skene", "glad"])
def test_real_crowdkit_agrees_with_the_majority_on_a_clean_crowd(method):
    pytest.importorskip("crowdkit.aggregation")
    rng = np.random.default_rng(0)
    truth = rng.choice(["y", "n"], size=30)
    rows = [(i, f"w{w}", truth[i] if rng.random() < 0.9 else ("n" if truth[i] == "y" else "y"))
            for i in range(30) for w in range(5)]
    labels = LabelMatrix.from_long(pd.DataFrame(rows, columns=["task", "labeler", "label"]), positive="y")
    result = aggregate(labels, method=method)
    assert (result["label"].to_numpy() == truth).mean() >= 0.95
    assert result["probability"].between(0, 1).all()

"""analyze: the whole analysis in one call (method, normalization, fit, test) and its result."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, ParameterError, PaucityWarning
from paucity.differences import PDA, PDACV, DifferencesResult, analyze, marginal_normalize, permutation_test

QUICK = {"max_iter": 60, "n_restarts": 1}


def samples(n=80, m=70, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, d)), columns=[f"f{j}" for j in range(d)])
    Y = pd.DataFrame(rng.normal(size=(m, d)), columns=[f"f{j}" for j in range(d)])
    Y["f2"] = 3.0 * Y["f2"] + 1.0
    return X, Y


@pytest.mark.parametrize(
    "options, method, estimator",
    [
        ({}, "PDA", PDA(**QUICK)),
        ({"n_features": 2}, "SPARDA", PDA(sparsity="l1", n_features=2, **QUICK)),
        ({"lam": 0.5}, "SPARDA", PDA(sparsity="l1", lam=0.5, **QUICK)),
    ],
)
def test_the_method_follows_the_options_and_gives_the_estimators_fit(options, method, estimator):
    X, Y = samples()
    result = analyze(X, Y, random_state=3, **options, **QUICK)
    reference = estimator.set_params(random_state=3).fit(X, Y)
    assert isinstance(result, DifferencesResult) and result.method == method
    np.testing.assert_array_equal(result.beta, reference.beta_)
    np.testing.assert_array_equal(result.selected, reference.selected_)
    assert result.selected_names.tolist() == reference.selected_names_.tolist()
    assert result.statistic == reference.divergence_
    assert result.lam == options.get("lam") and result.n_features == options.get("n_features")
    assert result.pvalue is None and result.permutation_test is None and result.cv_results is None
    np.testing.assert_allclose(result.means_x, X.mean(axis=0))
    np.testing.assert_allclose(result.means_y, Y.mean(axis=0))
    assert result.groups == ("X", "Y") and result.question == "Do X and Y differ?"


def test_cv_chooses_lam_and_the_test_refits_it_fixed():
    X, Y = samples()
    result = analyze(X, Y, cv=True, n_permutations=4, random_state=0, **QUICK)
    reference = PDACV(random_state=0, **QUICK).fit(X, Y)
    assert result.method == "SPARDA" and result.cv and result.lam == reference.lam_
    np.testing.assert_array_equal(result.beta, reference.beta_)
    pd.testing.assert_frame_equal(result.cv_results, reference.cv_results_)
    test = permutation_test(X, Y, PDA(sparsity="l1", lam=reference.lam_, random_state=0, **QUICK),
                            n_permutations=4, random_state=0)
    np.testing.assert_array_equal(result.permutation_test.null_distribution, test.null_distribution)
    summary = result.to_dict()
    assert f"lam={reference.lam_:.6g}" in summary["permutation_test"]["refitted"]
    assert "not chosen again" in summary["permutation_test"]["note"]
    assert summary["cv"]["chosen_lam"] == result.lam and len(summary["cv"]["results"]) == 8


def test_the_permutation_test_refits_the_reported_estimator():
    X, Y = samples()
    result = analyze(X, Y, n_features=1, n_permutations=19, random_state=0, **QUICK)
    test = permutation_test(X, Y, PDA(sparsity="l1", n_features=1, random_state=0, **QUICK),
                            n_permutations=19, random_state=0)
    assert result.permutation_test.statistic == result.statistic == test.statistic
    np.testing.assert_array_equal(result.permutation_test.null_distribution, test.null_distribution)
    assert result.pvalue == pytest.approx(1 / 20)


def test_marginal_normalization_in_the_fit_and_in_every_permutation():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(80, 4)), rng.normal(size=(80, 4))
    Y[:, 1] = 0.9 * Y[:, 0] + np.sqrt(1 - 0.9**2) * Y[:, 1]  # same marginals, new correlation
    Y = 5.0 * Y + 2.0  # and another scale, which normalization removes
    result = analyze(X, Y, n_features=2, marginal_normalize=True, n_permutations=3, random_state=0, **QUICK)
    reference = PDA(sparsity="l1", n_features=2, random_state=0, **QUICK).fit(marginal_normalize(X),
                                                                               marginal_normalize(Y))
    assert result.statistic == reference.divergence_
    assert set(result.selected.tolist()) == {0, 1}
    assert "marginally normalized" in result.refitted
    assert result.permutation_test.statistic == pytest.approx(result.statistic)
    np.testing.assert_allclose(result.means_y, Y.mean(axis=0))  # means before normalization


def test_labels_give_the_groups_their_names():
    X, Y = samples()
    pooled = pd.concat([X, Y], ignore_index=True)
    labels = np.repeat(["healthy", "treated"], [len(X), len(Y)])
    result = analyze(pooled, labels, n_features=1, random_state=0, **QUICK)
    assert result.groups == ("healthy", "treated") and result.question == "Do healthy and treated differ?"
    assert result.selected_names.tolist() == ["f2"]
    assert analyze(X, Y, n_features=1, groups=("a", "b"), **QUICK).groups == ("a", "b")


def test_to_frame_and_to_dict():
    X, Y = samples()
    result = analyze(X, Y, n_features=2, n_permutations=4, random_state=0, **QUICK)
    frame = result.to_frame()
    assert frame.columns.tolist() == ["names", "indices", "weights", "ranks", "means_x", "means_y"]
    assert frame["names"].iloc[0] == "f2" and frame["indices"].iloc[0] == 2 and frame["ranks"].tolist() == [1, 2]
    summary = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert (summary["n"], summary["m"], summary["d"]) == (80, 70, 5)
    assert summary["method"] == "SPARDA" and summary["n_features"] == 2 and summary["lam"] is None
    assert summary["selected"][0] == {
        "feature": "f2", "index": 2, "weight": frame["weights"].iloc[0], "rank": 1,
        "mean_x": pytest.approx(X["f2"].mean()), "mean_y": pytest.approx(Y["f2"].mean()),
    }
    assert summary["beta"] == dict(zip(frame["names"], frame["weights"]))
    assert summary["pvalue"] == summary["permutation_test"]["pvalue"] and summary["n_permutations"] == 4
    assert summary["random_state"] == 0 and summary["n_constant_features"] == 0
    assert summary["settings"]["max_iter"] == 60


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n_features": 2, "lam": 0.1}, "analyze: n_features and lam are exclusive"),
        ({"lam": 0.1, "cv": True}, "analyze: lam and cv are exclusive"),
        ({"n_jobs": 2}, "analyze: n_jobs runs the permutations in parallel, so it applies only with n_permutations > 0"),
        ({"random_state": -1}, "analyze: random_state must be a non-negative integer seed"),
        ({"n_permutations": -1}, "analyze: n_permutations must be an integer >= 0"),
        ({"n_permutations": 100_000_000}, "n_permutations=100000000 is more than 1,000,000"),
        ({"n_features": 0}, "analyze: n_features must be an integer >= 1 or None"),
        ({"n_features": 9}, r"n_features=9 is larger than the number of features of X \(5\)"),
        ({"lam": -1.0}, "analyze: lam must be a number >= 0 or None"),
        ({"divergence": "kl"}, "analyze: divergence must be one of 'wasserstein', 'mann_whitney'"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
        ({"groups": ("a", "b", "c")}, "groups must name the two samples"),
    ],
)
def test_bad_options_are_refused_before_any_work(options, message):
    X, Y = samples()
    with pytest.raises(ParameterError, match=message):
        analyze(X, Y, **options)


def test_a_long_analysis_is_announced_once(monkeypatch):
    from paucity.differences import _duration

    monkeypatch.setattr(_duration, "LONG_SECONDS", 1e-9)
    X, Y = samples(n=30, m=30)
    X["flat"], Y["flat"] = 1.0, 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analyze(X, Y, cv=True, n_permutations=3, random_state=0, max_iter=20, n_restarts=0)
    messages = [str(w.message) for w in caught if issubclass(w.category, PaucityWarning)]
    assert len(messages) == 2, messages
    assert messages[0].startswith("This analysis (n=30, m=30, d=6, max_iter=20, 3 permutations) may take up to about")
    assert messages[1].startswith("1 of 6 feature(s) are constant over X and Y together (flat)")


def test_the_progress_bars_change_nothing():
    X, Y = samples()
    quiet = analyze(X, Y, n_features=2, n_permutations=3, random_state=0, **QUICK)
    shown = analyze(X, Y, n_features=2, n_permutations=3, random_state=0, progress=True, **QUICK)
    np.testing.assert_array_equal(quiet.beta, shown.beta)
    np.testing.assert_array_equal(quiet.permutation_test.null_distribution, shown.permutation_test.null_distribution)


def test_bad_samples_are_the_estimators_errors():
    X, Y = samples()
    with pytest.raises(InputError, match="Y has 1 sample"):
        analyze(X, Y.iloc[:1])

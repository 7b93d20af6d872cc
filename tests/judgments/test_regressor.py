"""MultiSelectRegressor: the four algorithms, the plan, refitting, predicting and bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from paucity._errors import InputError, InputTypeError, NotFittedError, ParameterError, PaucityError, PaucityWarning
from paucity.judgments import (
    GAIN_TOLERANCE,
    Judgments,
    MultiSelectRegressor,
    check_labels,
    full_objective,
    scoring_objective,
)


def crowd(n_objects=150, judgments=2, seed=0, start=0, judgment_seed=None):
    """Attributes: 'a' informative and noisy, 'b' informative and clean, 'c' correlated with 'a', 'd' useless.

    The objects and labels depend on ``seed`` only; the judgments also on ``judgment_seed``.
    """
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_objects, 4))
    names = [f"o{i:04d}" for i in range(start, start + n_objects)]
    labels = pd.Series(2.0 * latent[:, 0] + latent[:, 1] + 0.3 * rng.normal(size=n_objects), index=names)
    levels = {"a": latent[:, 0], "b": latent[:, 1], "c": latent[:, 0] + 0.5 * latent[:, 2], "d": latent[:, 3]}
    noise = {"a": 2.0, "b": 0.3, "c": 1.0, "d": 1.0}
    draws = np.random.default_rng([seed, 1 if judgment_seed is None else judgment_seed + 2])
    rows = []
    for i, name in enumerate(names):
        for attribute, level in levels.items():
            count = judgments[attribute] if isinstance(judgments, dict) else judgments
            rows += [(name, attribute, level[i] + noise[attribute] * draws.normal()) for _ in range(count)]
    return pd.DataFrame(rows, columns=["object", "attribute", "value"]), labels


@pytest.mark.parametrize("algorithm", ["full", "scoring", "averages", "copies"])
def test_every_algorithm_spends_within_the_budget(algorithm):
    judgments, labels = crowd()
    model = MultiSelectRegressor(budget=6, algorithm=algorithm).fit(judgments, labels)
    assert model.repeats_.index.tolist() == ["a", "b", "c", "d"]
    assert model.repeats_.sum() <= 6 and model.unspent_ == 6 - model.repeats_.sum()
    assert model.repeats_["a"] > 0  # the most informative attribute is always bought
    assert len(model.path_) >= 1 and model.path_["spent"].iloc[-1] == model.repeats_.sum()
    if algorithm == "averages":
        assert set(model.repeats_.unique()) <= {0, 2}
    if algorithm == "copies":
        assert model.repeats_.max() <= 2


def test_full_buys_repeats_of_the_noisy_informative_attribute():
    judgments, labels = crowd()
    model = MultiSelectRegressor(budget=10).fit(judgments, labels)
    assert model.repeats_["a"] >= 3 and model.repeats_["d"] == 0
    assert model.objective_ == pytest.approx(full_objective(
        model.repeats_.to_numpy(), model.moments_.correlation, model.moments_.external_covariance(),
        model.moments_.internal_variance))


def test_the_projected_loss_falls_along_the_path_and_is_the_label_variance_at_zero():
    judgments, labels = crowd()
    model = MultiSelectRegressor(budget=10).fit(judgments, labels)
    centred = labels - labels.mean()
    assert model.projected_loss({}) == pytest.approx(float((centred**2).mean()))
    assert np.all(np.diff(model.path_["projected_loss"]) <= 1e-12)
    assert model.projected_loss() == pytest.approx(model.path_["projected_loss"].iloc[-1])
    assert model.projected_loss({"a": 20, "b": 20}) < model.projected_loss({"a": 1, "b": 1})


def test_a_baseline_that_runs_out_of_attributes_says_so():
    judgments, labels = crowd()
    model = MultiSelectRegressor(budget=30, algorithm="averages").fit(judgments, labels)
    assert model.repeats_.tolist() == [2, 2, 2, 2]
    assert model.unspent_ == 22
    assert "unspent" in model.repeats_.attrs["note"]
    full = MultiSelectRegressor(budget=30).fit(judgments, labels)
    assert full.repeats_.sum() == 30 and "note" not in full.repeats_.attrs


def test_costs_are_respected_and_change_the_plan():
    judgments, labels = crowd()
    costs = pd.Series({"a": 4.0, "b": 1.0})
    model = MultiSelectRegressor(budget=9, costs=costs).fit(judgments, labels)
    spent = (model.repeats_ * model.costs_).sum()
    assert spent <= 9 and model.costs_["c"] == 1.0
    assert model.repeats_["b"] >= 1


def test_plan_refit_and_predict():
    judgments, labels = crowd(n_objects=120, seed=1)
    model = MultiSelectRegressor(budget=6).fit(judgments, labels)
    needed = model.judgments_needed()
    r = model.repeats_
    assert set(needed["attribute"]) == set(r[r > 2].index)
    assert (needed["have"] == 2).all() and (needed["more"] == r[needed["attribute"]].to_numpy() - 2).all()
    assert len(needed) == 120 * int((r > 2).sum())
    # collect: every training object judged r[a] times (here: fresh draws for the same objects)
    more, _ = crowd(n_objects=120, seed=1, judgments={a: int(max(r[a], 2)) for a in "abcd"}, judgment_seed=5)
    assert model.judgments_needed(judgments=more).empty
    model.refit(more, labels)
    assert model.refitted_
    used = r[r > 0].index
    means = Judgments(more).means(r[used], attributes=used)
    design = np.column_stack([np.ones(120), means.to_numpy()])
    solution = np.linalg.lstsq(design, labels[means.index].to_numpy(), rcond=None)[0]
    assert model.intercept_ == pytest.approx(solution[0])
    np.testing.assert_allclose(model.coef_[used].to_numpy(), solution[1:])
    # new objects judged r[a] times: extra judgments are ignored
    test, test_labels = crowd(n_objects=50, seed=2, start=1000, judgments={a: int(r[a]) + 1 for a in "abcd"})
    prediction = model.predict(test)
    truncated = Judgments(test).means(r[used], attributes=used).to_numpy() @ model.coef_[used].to_numpy()
    np.testing.assert_allclose(prediction.to_numpy(), truncated + model.intercept_)
    assert prediction.index.tolist() == sorted(test_labels.index)
    assert model.score(test, test_labels) > 0.5
    short, _ = crowd(n_objects=5, seed=3, start=2000, judgments=1)
    with pytest.raises(InputError, match=r"object 'o2000' has 1 judgment\(s\) of attribute 'a' but \d+ are needed"):
        model.predict(short)


def test_the_estimated_predictor_is_close_to_least_squares_on_many_objects():
    # r = (b: 1, c: 2) lies within the training judgments, so refitting on the first r[a] of them is
    # ordinary least squares on the same objects; on 4,000 objects the predictor estimated from the
    # moments (before any collection) must be near it
    judgments, labels = crowd(n_objects=4000, seed=4)
    model = MultiSelectRegressor(budget=3).fit(judgments, labels)
    assert model.repeats_.to_dict() == {"a": 0, "b": 1, "c": 2, "d": 0}
    before, intercept = model.coef_.copy(), model.intercept_
    model.refit(judgments, labels)
    np.testing.assert_allclose(before.to_numpy(), model.coef_.to_numpy(), atol=0.05)
    assert intercept == pytest.approx(model.intercept_, abs=0.05)


def test_dropping_incomplete_training_objects():
    judgments, labels = crowd(n_objects=40)
    judgments = judgments.drop(index=[0])  # o0000 has one judgment of 'a'
    with pytest.raises(InputError, match=r"o0000.*short of attribute\(s\) a"):
        MultiSelectRegressor(budget=4).fit(judgments, labels)
    model = MultiSelectRegressor(budget=4, drop_incomplete=True).fit(judgments, labels)
    assert model.dropped_.objects == ("o0000",) and model.dropped_.n_judgments == 7
    assert "o0000" not in model.training_counts_.index


def test_bad_labels_get_clear_errors():
    judgments, labels = crowd(n_objects=30)
    with pytest.raises(InputError, match=r"1 judged object\(s\) have no label: o0003"):
        MultiSelectRegressor(budget=4).fit(judgments, labels.drop("o0003"))
    twice = pd.concat([labels, pd.Series({"o0001": labels["o0001"] + 1})])
    with pytest.raises(InputError, match="more than once, with different values, for object.*o0001"):
        MultiSelectRegressor(budget=4).fit(judgments, twice)
    same = pd.concat([labels, labels.iloc[:2]])
    MultiSelectRegressor(budget=4).fit(judgments, same)  # agreeing duplicates are fine
    words = labels.astype(object)
    words["o0002"] = "tall"
    with pytest.raises(InputError, match="labels must be numbers; object 'o0002' has 'tall'"):
        MultiSelectRegressor(budget=4).fit(judgments, words)
    with pytest.raises(InputTypeError, match="pandas Series"):
        MultiSelectRegressor(budget=4).fit(judgments, labels.to_numpy())


def test_single_judgments_are_refused_for_training():
    judgments, labels = crowd(n_objects=20, judgments={"a": 1, "b": 2, "c": 2, "d": 2})
    with pytest.raises(InputError, match=r"at least 2 judgments.*attribute\(s\) a"):
        MultiSelectRegressor(budget=4).fit(judgments, labels)
    model = MultiSelectRegressor(budget=4, drop_incomplete=True).fit(judgments, labels)
    assert model.dropped_.attributes == ("a",) and "a" not in model.repeats_.index


@pytest.mark.parametrize(
    "params, message",
    [
        ({"budget": 0}, "MultiSelectRegressor: budget must be a number > 0, got 0"),
        ({"budget": float("inf")}, "budget must be a number > 0, got inf"),
        ({"budget": float("nan")}, "budget must be a number > 0, got nan"),
        ({"budget": -1}, "budget must be a number > 0, got -1"),
        ({"budget": "10"}, "budget must be a number > 0, got '10'"),
        ({"budget": 0.5}, "smaller than the cheapest attribute"),
        ({"budget": 3, "costs": pd.Series({"a": 4.0, "b": 5.0, "c": 4.0, "d": 9.0})}, "smaller than the cheapest"),
        ({"budget": 3, "costs": pd.Series({"a": 0.0})}, "costs must be positive numbers; attribute 'a'"),
        ({"budget": 3, "costs": {"b": -1}}, "attribute 'b' costs -1"),
        ({"budget": 3, "costs": {"a": 2.0, "zz": 1.0}}, "costs names 1 attribute\\(s\\) the judgments do not have: zz"),
        ({"budget": 3, "algorithm": "lasso"}, "algorithm"),
        ({"budget": 3, "ridge": -1.0}, "ridge must be a number >= 0 or None"),
        ({"budget": 3, "algorithm": "scoring", "ridge": 1.0}, "ridge applies to algorithm='full' only"),
        ({"budget": 3, "algorithm": "averages", "ridge": 0.0}, "algorithm='averages' does not use it"),
        ({"budget": 3, "costs": [1, 2]}, "costs must be a pandas Series or dict of cost per attribute or None"),
        ({"budget": 3, "min_judgments": 1}, "min_judgments must be an integer >= 2"),
        ({"budget": 3, "drop_incomplete": "yes"}, "drop_incomplete must be True or False"),
    ],
)
def test_bad_parameters_get_clear_errors(params, message):
    judgments, labels = crowd(n_objects=20)
    with pytest.raises(ParameterError, match=message):
        MultiSelectRegressor(**params).fit(judgments, labels)


def test_estimator_contract():
    model = MultiSelectRegressor(budget=5, algorithm="full", ridge=0.1)
    assert clone(model).get_params() == model.get_params()
    for use in (lambda: model.predict(crowd(n_objects=3)[0]), model.projected_loss, model.judgments_needed):
        with pytest.raises(NotFittedError, match="MultiSelectRegressor is not fitted yet"):
            use()
    judgments, labels = crowd(n_objects=40)
    assert model.fit(Judgments(judgments), labels) is model


def test_the_algorithm_name_is_case_insensitive():
    judgments, labels = crowd(n_objects=60)
    upper = MultiSelectRegressor(budget=5, algorithm="Scoring").fit(judgments, labels)
    lower = MultiSelectRegressor(budget=5, algorithm="scoring").fit(judgments, labels)
    assert upper.algorithm_ == "scoring"
    pd.testing.assert_series_equal(upper.repeats_, lower.repeats_)
    assert upper.projected_loss() == lower.projected_loss()


label_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5), st.text(max_size=3),
                         st.none())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["o0", "o1", "o2", "x"]), label_values), max_size=8))
def test_junk_labels_raise_only_paucity_errors(pairs):
    labels = pd.Series([value for _, value in pairs], index=[name for name, _ in pairs], dtype=object)
    try:
        checked = check_labels(labels, pd.Index(["o0", "o1"]))
    except PaucityError:
        return
    assert checked.index.tolist() == ["o0", "o1"] and np.isfinite(checked.to_numpy()).all()


def test_averages_with_a_budget_below_k_judgments_buys_nothing_and_says_so():
    judgments, labels = crowd(n_objects=40)
    model = MultiSelectRegressor(budget=1, algorithm="averages").fit(judgments, labels)
    assert model.repeats_.sum() == 0 and model.unspent_ == 1
    assert "bought nothing" in model.repeats_.attrs["note"]
    assert model.predict(judgments).nunique() == 1  # the mean label


def test_the_projected_loss_is_fulls_estimate_for_every_algorithm():
    # Scoring chooses by its own objective, but its plan's projected loss is Full's estimate, like the others'
    judgments, labels = crowd()
    scoring = MultiSelectRegressor(budget=6, algorithm="scoring").fit(judgments, labels)
    moments = scoring.moments_
    r = scoring.repeats_.to_numpy()
    full = full_objective(r, moments.correlation, moments.external_covariance(), moments.internal_variance)
    own = scoring_objective(r, moments.correlation, moments.external_variance(), moments.internal_variance)
    assert scoring.projected_loss() == pytest.approx(moments.label_second_moment - full)
    assert scoring.objective_ == pytest.approx(own) and own != pytest.approx(full)
    assert scoring.path_["projected_loss"].iloc[-1] == pytest.approx(scoring.projected_loss())
    assert scoring.path_["objective"].iloc[-1] == pytest.approx(own)
    for algorithm in ("averages", "copies"):
        model = MultiSelectRegressor(budget=6, algorithm=algorithm).fit(judgments, labels)
        repeats = model.repeats_.to_numpy()
        assert model.projected_loss() == pytest.approx(moments.label_second_moment - full_objective(
            repeats, moments.correlation, moments.external_covariance(), moments.internal_variance))


def test_ridge_is_added_to_m_r_of_the_full_objective():
    judgments, labels = crowd(n_objects=40)
    model = MultiSelectRegressor(budget=6, ridge=0.5).fit(judgments, labels)
    moments = model.moments_
    r = model.repeats_.to_numpy().astype(float)
    used = np.flatnonzero(r > 0)
    block = (moments.external_covariance()[np.ix_(used, used)] + np.diag(moments.internal_variance[used] / r[used])
             + 0.5 * np.eye(len(used)))
    b = moments.correlation[used]
    assert model.objective_ == pytest.approx(b @ np.linalg.solve(block, b))
    np.testing.assert_allclose(model.coef_.to_numpy()[used], np.linalg.solve(block, b))
    assert MultiSelectRegressor(budget=6).fit(judgments, labels).objective_ > model.objective_


@pytest.mark.parametrize("algorithm", ["full", "scoring"])
def test_a_budget_beyond_what_can_matter_stops_early_with_a_warning(algorithm):
    judgments, labels = crowd(n_objects=60)
    with pytest.warns(PaucityWarning, match="a larger budget would not change the plan"):
        model = MultiSelectRegressor(budget=1e308, algorithm=algorithm).fit(judgments, labels)
    assert "would not change the plan" in model.repeats_.attrs["note"]
    spent = float(model.repeats_.sum())
    assert model.unspent_ == 1e308 - spent and 0 < spent < 10_000
    # the last purchase still gained more than the tolerance; the next one would not have
    objective = model.path_["objective"].to_numpy()
    assert objective[-1] - objective[-2] > GAIN_TOLERANCE * objective[-2]
    # the same plan for any budget from what it spent on
    again = MultiSelectRegressor(budget=spent, algorithm=algorithm).fit(judgments, labels)
    pd.testing.assert_series_equal(again.repeats_, model.repeats_)
    assert "note" not in again.repeats_.attrs

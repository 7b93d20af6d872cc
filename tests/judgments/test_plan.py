"""plan(): the whole analysis in one call, and its result's JSON and table."""

import json

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, ParameterError, PaucityWarning
from paucity.judgments import Judgments, MultiSelectPlan, MultiSelectRegressor, plan

from .test_regressor import crowd


def test_the_plan_is_the_estimators_and_lists_what_is_missing():
    judgments, labels = crowd(n_objects=80)
    result = plan(judgments, labels, 6)
    model = MultiSelectRegressor(budget=6).fit(judgments, labels)
    assert isinstance(result, MultiSelectPlan)
    pd.testing.assert_series_equal(result.repeats, model.repeats_)
    assert result.chosen.to_dict() == {a: r for a, r in model.repeats_.items() if r > 0}
    assert result.projected_loss == model.projected_loss()
    assert result.projected_loss_without_judgments == pytest.approx(float(((labels - labels.mean()) ** 2).mean()))
    assert (result.spent, result.unspent, result.note) == (6.0, 0.0, None)
    assert (result.n_objects, result.n_attributes, result.n_judgments) == (80, 4, 80 * 4 * 2)
    pd.testing.assert_frame_equal(result.judgments_needed, model.judgments_needed())
    assert result.coefficients is None and result.intercept is None
    missing = int(model.judgments_needed()["more"].sum())
    assert f"{missing} more judgment(s)" in result.coefficients_message
    pd.testing.assert_series_equal(result.estimated_coefficients, model.coef_[result.chosen.index])
    assert result.estimated_intercept == model.intercept_
    assert result.objective_name == "full objective" and result.objective == model.objective_
    assert result.dropped is None and result.model.repeats_.equals(model.repeats_)


def test_the_regression_is_refitted_when_every_training_object_has_enough_judgments():
    judgments, labels = crowd(n_objects=80, judgments=6)
    result = plan(Judgments(judgments), labels, 5)
    assert result.judgments_needed.empty and result.coefficients_message is None
    model = MultiSelectRegressor(budget=5).fit(judgments, labels)
    estimated = model.coef_[result.chosen.index]
    model.refit(judgments, labels)
    pd.testing.assert_series_equal(result.coefficients, model.coef_[result.chosen.index])
    assert result.intercept == pytest.approx(model.intercept_)
    pd.testing.assert_series_equal(result.estimated_coefficients, estimated)
    assert result.model.refitted_


def test_scoring_projects_fulls_loss_and_names_its_own_objective():
    judgments, labels = crowd(n_objects=80)
    scoring = plan(judgments, labels, 6, algorithm="Scoring")
    assert scoring.algorithm == "scoring" and scoring.objective_name == "scoring objective"
    full = MultiSelectRegressor(budget=6).fit(judgments, labels)
    assert scoring.projected_loss == pytest.approx(full.projected_loss(scoring.repeats))
    assert scoring.projected_loss != pytest.approx(scoring.projected_loss_without_judgments - scoring.objective)


def test_to_dict_is_json_and_to_frame_has_a_row_per_attribute():
    judgments, labels = crowd(n_objects=80)
    result = plan(judgments, labels, 7, costs={"a": 2.0}, drop_incomplete=True)
    report = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert report["settings"] == {
        "algorithm": "full", "budget": 7.0, "ridge": None, "min_judgments": 2, "drop_incomplete": True,
        "costs": {"a": 2.0, "b": 1.0, "c": 1.0, "d": 1.0}, "costs_unlisted": ["b", "c", "d"], "costs_unknown": [],
    }
    assert report["projected_loss"] == result.projected_loss and report["projected_loss_estimate"] == "full"
    assert report["objective_name"] == "full objective"
    assert report["repeats_all"] == result.repeats.to_dict()
    assert len(report["path"]) == len(result.path) and report["path"][-1]["spent"] == report["spent"]
    assert report["dropped"] == {"objects": [], "attributes": [], "n_judgments": 0}
    assert report["coefficients"]["available"] is False
    assert set(report["estimated_coefficients"]["coef"]) == set(report["repeats"])
    frame = result.to_frame()
    assert frame.columns.tolist() == ["attribute", "judgments", "cost", "spent", "coefficient",
                                      "estimated_coefficient"]
    assert frame["attribute"].tolist() == ["a", "b", "c", "d"]
    assert frame["spent"].sum() == pytest.approx(result.spent)
    assert frame["coefficient"].isna().all()
    bought = frame["judgments"] > 0
    np.testing.assert_allclose(frame.loc[bought, "estimated_coefficient"], result.estimated_coefficients)
    assert frame.loc[~bought, "estimated_coefficient"].isna().all()


def test_huge_budgets_end_promptly_and_say_so():
    judgments, labels = crowd(n_objects=60)
    with pytest.warns(PaucityWarning, match="would not change the plan"):
        result = plan(judgments, labels, 1e308)
    assert "would not change the plan" in result.note and result.unspent > 1e307
    assert result.to_dict()["unspent"] == result.unspent


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"budget": float("inf")}, ParameterError, "budget must be a number > 0, got inf"),
        ({"budget": float("nan")}, ParameterError, "budget must be a number > 0, got nan"),
        ({"budget": -3}, ParameterError, "budget must be a number > 0, got -3"),
        ({"budget": 5, "algorithm": "scoring", "ridge": 1.0}, ParameterError, "ridge applies to algorithm='full' only"),
        ({"budget": 5, "algorithm": "lasso"}, ParameterError, "algorithm must be one of 'full', 'scoring'"),
    ],
)
def test_bad_parameters(kwargs, error, message):
    judgments, labels = crowd(n_objects=20)
    with pytest.raises(error, match=message):
        plan(judgments, labels, **kwargs)


def test_incomplete_training_judgments_name_the_parameter():
    judgments, labels = crowd(n_objects=20, judgments={"a": 1, "b": 2, "c": 2, "d": 2})
    with pytest.raises(InputError, match="pass drop_incomplete=True"):
        plan(judgments, labels, 4)
    result = plan(judgments, labels, 4, drop_incomplete=True)
    assert result.dropped.attributes == ("a",) and "a" not in result.repeats.index

"""Fuzzing BBMC's parameters and inputs: it fits or raises a one-line paucity error, nothing else escapes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import PaucityError
from paucity.crowd import BBMC, LabelMatrix

LABELS = LabelMatrix.from_long(pd.DataFrame({
    "task": [0, 0, 1, 2, 2, 3, 0, 3],
    "labeler": ["a", "b", "a", "b", "c", "c", "me", "me"],
    "label": [1, -1, 1, 1, -1, -1, 1, -1],
}))
X = pd.DataFrame({"f": [1.0, 0.5, -0.5, -1.0], "g": [0.0, 1.0, 0.0, 1.0]})

anything = st.one_of(st.none(), st.booleans(), st.integers(-3, 6), st.floats(allow_nan=True, allow_infinity=True),
                     st.text(max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_factors=anything, alpha=anything, sigma=anything, n_burnin=anything, n_samples=anything, thin=anything,
       n_chains=anything, random_state=anything, researcher=st.one_of(anything, st.sampled_from(["me", "a"])))
def test_parameters_fit_or_raise_a_paucity_error(n_factors, alpha, sigma, n_burnin, n_samples, thin, n_chains,
                                                 random_state, researcher):
    model = BBMC(n_factors=n_factors, alpha=alpha, sigma=sigma, n_burnin=n_burnin, n_samples=n_samples, thin=thin,
                 n_chains=n_chains, random_state=random_state)
    try:
        model.fit(LABELS, X, researcher=researcher)
    except PaucityError as error:
        assert "\n" not in str(error)
        return
    assert model.samples_.shape == (n_chains * (n_samples // thin), 2)
    assert np.all(np.isfinite(model.samples_))
    proba = model.predict_proba(X)
    assert np.all((proba >= 0) & (proba <= 1))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(features=st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=0, max_size=3),
                         min_size=0, max_size=5))
def test_features_fit_or_raise_a_paucity_error(features):
    try:
        array = np.array(features, dtype=float)
    except ValueError:  # ragged: numpy itself refuses
        return
    try:
        BBMC(n_factors=1, n_burnin=1, n_samples=2, random_state=0).fit(LABELS, array, researcher="me")
    except PaucityError as error:
        assert "\n" not in str(error)

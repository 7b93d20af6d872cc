"""Fuzzing the validators: whatever the parameters, matrices, pairs and answers, only paucity's errors escape."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from paucity._errors import PaucityError
from paucity.clustering import ActiveSpectralClustering, MatrixOracle, iu_red_scores, misclustering_error

W5 = np.array(
    [
        [1.0, 0.9, 0.8, 0.1, 0.0],
        [0.9, 1.0, 0.7, 0.2, 0.1],
        [0.8, 0.7, 1.0, 0.0, 0.3],
        [0.1, 0.2, 0.0, 1.0, 0.9],
        [0.0, 0.1, 0.3, 0.9, 1.0],
    ]
)

anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["iu_red", "SHAMIR_TISHBY", "random", "iu-red"]),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    strategy=anything,
    interleave=anything,
    budget=st.one_of(anything, st.floats(0, 1)),
    repeats=anything,
    batch_size=anything,
    n_clusters=anything,
    random_state=anything,
)
def test_parameters_fit_or_raise_a_paucity_error(strategy, interleave, budget, repeats, batch_size, n_clusters,
                                                 random_state):
    model = ActiveSpectralClustering(strategy=strategy, interleave=interleave, budget=budget, repeats=repeats,
                                     batch_size=batch_size, n_clusters=n_clusters, random_state=random_state)
    try:
        model.fit(MatrixOracle(W5))
    except PaucityError:
        return
    assert 1 <= model.n_queries_ <= 10 * model.get_params()["repeats"]
    assert len(model.labels_) == 5


matrices = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
    shape=st.tuples(st.integers(0, 5), st.integers(0, 5)),
)


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_matrices_are_accepted_or_refused_with_a_paucity_error(W):
    for build in (MatrixOracle, iu_red_scores):
        try:
            build(W)
        except PaucityError:
            pass


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(0, 4), st.integers(0, 4)),
                  elements=st.one_of(st.floats(-1, 2), st.just(np.nan))))
def test_floating_matrices_with_nan_and_out_of_range_values(W):
    try:
        MatrixOracle(W)
    except PaucityError:
        return
    assert W.shape[0] == W.shape[1] >= 3 and np.all((W >= 0) & (W <= 1))


@settings(max_examples=80, deadline=None)
@given(
    pairs=st.one_of(
        hnp.arrays(np.int64, st.tuples(st.integers(0, 3), st.integers(0, 3)), elements=st.integers(-2, 8)),
        hnp.arrays(np.float64, st.tuples(st.integers(0, 3), st.just(2)), elements=st.floats(allow_nan=True)),
        st.lists(st.text(max_size=2), max_size=3),
    ),
    values=st.one_of(st.lists(st.floats(allow_nan=True), max_size=3), st.floats(allow_nan=True), st.text(max_size=2)),
)
def test_answers_are_accepted_or_refused_with_a_paucity_error(pairs, values):
    model = ActiveSpectralClustering(budget=4, random_state=0)
    asked = model.ask(4, n_items=5)
    try:
        model.tell(pairs, values)  # accepted only if they are answers to asked pairs
        return
    except PaucityError:
        pass
    model.tell(asked, W5[asked[:, 0], asked[:, 1]])  # a refused answer changed nothing: all four are expected
    assert model.n_queries_ == 4


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 3), st.none(), st.floats(allow_nan=True), st.text(max_size=1)), max_size=6),
       st.lists(st.integers(0, 2), max_size=6))
def test_misclustering_error_refuses_only_with_paucity_errors(labels, reference):
    try:
        error = misclustering_error(labels, reference)
    except PaucityError:
        return
    assert 0.0 <= error < 1.0

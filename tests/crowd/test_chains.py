"""Several chains: the same draws wherever they run, stopping when they agree, fixed lengths as before."""

import numpy as np
import pandas as pd
import pytest

from paucity._errors import ParameterError
from paucity.crowd import BBMC, LabelMatrix, pool
from paucity.crowd.chains import ROUND, SETTLE, Plan, run_chains
from paucity.crowd.convergence import effective_sample_size, split_rhat
from paucity.crowd.gibbs import initial_state, prepare, run_chain


def crowd(seed=0, n_tasks=120, n_gold=15):
    """Six labelers by the researcher's rule, three by its opposite."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n_tasks, 2)), columns=["a", "b"], index=[f"t{i}" for i in range(n_tasks)])
    rule = np.array([1.5, -1.0])
    rows = []
    for i in range(n_tasks):
        for l in range(9):
            if rng.random() < 0.4:
                weights = rule if l < 6 else -rule
                rows.append((f"t{i}", f"w{l}", "yes" if X.iloc[i] @ weights + rng.normal() > 0 else "no"))
    rows += [(f"t{i}", "me", "yes" if X.iloc[i] @ rule > 0 else "no") for i in range(n_gold)]
    return LabelMatrix.from_frame(pd.DataFrame(rows, columns=["task", "labeler", "label"]), positive="yes"), X


@pytest.fixture(scope="module")
def labels_and_features():
    return crowd()


def _fit(labels, X, **params):
    return BBMC(n_factors=2, random_state=4, **params).fit(labels, X, researcher="me")


def test_chains_on_threads_draw_what_they_draw_one_after_another(labels_and_features):
    labels, X = labels_and_features
    serial = _fit(labels, X, n_chains=3, n_jobs=1, n_burnin=30, n_samples=250)
    threads = _fit(labels, X, n_chains=3, n_jobs=3, n_burnin=30, n_samples=250)
    np.testing.assert_array_equal(serial.samples_, threads.samples_)
    np.testing.assert_array_equal(serial.labeler_weights_, threads.labeler_weights_)
    # and each chain is what it would be alone: the first chain of three is the first of one
    alone = _fit(labels, X, n_chains=1, n_burnin=30, n_samples=250)
    np.testing.assert_array_equal(alone.samples_, serial.samples_[:250])


def test_chains_as_dask_tasks_draw_what_they_draw_on_threads(labels_and_features):
    distributed = pytest.importorskip("distributed")
    labels, X = labels_and_features
    threads = _fit(labels, X, n_chains=2, n_burnin=20, n_samples=150)
    with distributed.Client(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None):
        on_dask = _fit(labels, X, n_chains=2, n_burnin=20, n_samples=150, scheduler="dask")
        # continuing the chains there too: the generators came back from the workers
        on_dask.update(pd.DataFrame({"task": ["t20"], "labeler": ["me"], "label": ["yes"]}), n_sweeps=40)
    threads.update(pd.DataFrame({"task": ["t20"], "labeler": ["me"], "label": ["yes"]}), n_sweeps=40)
    np.testing.assert_array_equal(threads.samples_, on_dask.samples_)
    np.testing.assert_array_equal(threads.states_[1].Z, on_dask.states_[1].Z)


def test_dask_without_a_client_is_a_clear_error(labels_and_features):
    pytest.importorskip("distributed")
    labels, X = labels_and_features
    with pytest.raises(ParameterError, match="none is open; start one"):
        _fit(labels, X, n_chains=2, n_burnin=10, n_samples=10, scheduler="dask")


def test_an_easy_crowd_stops_when_the_chains_agree(labels_and_features):
    labels, X = labels_and_features
    model = _fit(labels, X, max_sweeps=6000)  # the defaults: n_burnin="auto", n_samples="auto", two chains
    assert model.converged_ and model.stop_reason_.startswith("converged after")
    assert model.n_sweeps_ % ROUND == 0 and 2 * ROUND <= model.n_sweeps_ < 6000
    # the second half of the sweeps is kept, and the diagnostics are those of the kept draws
    assert model.n_kept_ == model.n_sweeps_ - (model.n_sweeps_ // ROUND // 2) * ROUND
    draws = model.samples_.reshape(2, model.n_kept_, 2)
    np.testing.assert_allclose(model.rhat_, split_rhat(draws))
    np.testing.assert_allclose(model.ess_, effective_sample_size(draws))
    assert np.max(model.rhat_) <= 1.05 and np.min(model.ess_) >= 2 * 100
    assert f"{model.n_sweeps_} sweeps" in model.stop_reason_
    # a round fewer and they had not agreed yet: the rule stopped at the first look where they did
    earlier = _fit(labels, X, max_sweeps=model.n_sweeps_ - ROUND)
    assert not earlier.converged_ and "before the chains agreed" in earlier.stop_reason_


def test_the_maximum_stops_chains_that_do_not_agree(labels_and_features):
    labels, X = labels_and_features
    model = _fit(labels, X, max_sweeps=2 * ROUND, min_ess=1e6)
    assert not model.converged_ and model.n_sweeps_ == 2 * ROUND
    assert "max_sweeps=200" in model.stop_reason_ and "wanted >= 2e+06" in model.stop_reason_
    assert model.samples_.shape == (2 * ROUND, 2)  # two chains, the second half (100 sweeps) each


def test_a_fixed_burn_in_with_an_open_length_keeps_everything_after_it(labels_and_features):
    labels, X = labels_and_features
    model = _fit(labels, X, n_burnin=150, max_sweeps=450, min_ess=1e6, thin=3)
    assert model.n_sweeps_ == 450 and model.n_kept_ == 300
    assert model.samples_.shape == (2 * 100, 2)


def test_auto_burn_in_with_a_fixed_length_discards_as_many_as_it_keeps(labels_and_features):
    labels, X = labels_and_features
    model = _fit(labels, X, n_samples=120, n_chains=1)
    assert model.n_sweeps_ == 240 and model.samples_.shape == (120, 2)
    explicit = _fit(labels, X, n_burnin=120, n_samples=120, n_chains=1)
    np.testing.assert_array_equal(model.samples_, explicit.samples_)
    assert model.stop_reason_ == "ran the fixed 120 + 120 sweeps per chain" and model.converged_


def test_rounds_give_the_draws_one_long_run_gives():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 2))
    task = np.repeat(np.arange(20), 3)
    labeler = np.tile([0, 1, 2], 20)
    sign = np.where(X[task, 0] > 0, 1.0, -1.0)
    data = prepare(X, task, labeler, sign, 3)
    one = run_chain(data, researcher=0, n_factors=2, alpha=1.0, sigma=1.0, n_burnin=37, n_samples=333, thin=2,
                    rng=np.random.default_rng(9), n_trace=1000)
    generator = np.random.default_rng(9)
    start = initial_state(data, 2, 1.0, generator)
    pooled = run_chains(data, [start], [generator], Plan(37, 333, 2, 22000, 1.05, 100, n_states=1001), researcher=0,
                        alpha=1.0, sigma=1.0)
    np.testing.assert_array_equal(pooled.beta[0], one.beta)
    np.testing.assert_allclose(pooled.assignment_means[0], one.assignment_mean)
    gammas, assignments = pooled.traces[0]
    np.testing.assert_array_equal(gammas, one.trace_gamma)  # 333 sweeps and the state before them
    np.testing.assert_array_equal(assignments, one.trace_assignments)
    assert gammas.shape[0] == 334 and pooled.n_sweeps == 370


def test_bad_lengths_are_refused_in_one_line(labels_and_features):
    labels, X = labels_and_features
    for params, message in [
        (dict(n_samples="forever"), "n_samples"),
        (dict(max_sweeps=150), "max_sweeps"),
        (dict(n_burnin=21900), "leaves fewer than 200 sweeps"),
        (dict(max_rhat=1.0), "max_rhat"),
        (dict(scheduler="processes"), "scheduler"),
        (dict(n_jobs=0), "n_jobs"),
    ]:
        with pytest.raises(ParameterError, match=message):
            _fit(labels, X, **params)


def test_pool_says_how_many_sweeps_and_why_it_stopped(labels_and_features):
    labels, X = labels_and_features
    result = pool(labels, X, researcher="me", n_factors=2, max_sweeps=400, min_ess=1e6, random_state=0)
    assert result.n_sweeps == 400 and not result.converged
    assert result.stop_reason == result.model.stop_reason_ and "max_sweeps=400" in result.stop_reason
    summary = result.to_dict()
    assert summary["n_sweeps"] == 400 and summary["converged"] is False and summary["ess"] == result.ess


def _record_rounds(monkeypatch):
    """Wrap the chains' advance: record (sweeps, own column, the researcher's and the others' last column, whether Z
    was held, whether Z moved)."""
    from paucity.crowd import chains as module

    calls, original = [], module.advance

    def recording(data, state, rng, **options):
        stretch = original(data, state, rng, **options)
        last = stretch.state.Z[:, -1]
        calls.append((options["n_sweeps"], options["own_column"], last[options["researcher"]],
                      np.delete(last, options["researcher"]).sum(), options["fix_assignments"],
                      not np.array_equal(stretch.state.Z, state.Z)))
        return stretch

    monkeypatch.setattr(module, "advance", recording)
    return calls


@pytest.mark.parametrize("params, reserved", [({}, ROUND), ({"n_burnin": 30, "n_samples": 250}, 30),
                                              ({"n_burnin": 0, "n_samples": 250}, 0)])
def test_a_fresh_chain_keeps_her_last_factor_hers_alone_only_in_sweeps_it_discards(labels_and_features, monkeypatch,
                                                                                    params, reserved):
    labels, X = labels_and_features
    calls = _record_rounds(monkeypatch)
    model = _fit(labels, X, n_chains=1, max_sweeps=400, **params)
    first = [c for c in calls if c[1] >= 0]
    assert sum(c[0] for c in first) == reserved and calls[: len(first)] == first  # the first sweeps only
    assert all(own == 1 and len(model.labeler_factors_.columns) - 1 == column and others == 0
               for _, column, own, others, _, _ in first)
    # in the first SETTLE of them Z stays at its start (the crowd on the first factor, she also on the last)
    settle = min(SETTLE, reserved)
    held = [c for c in calls if c[4]]
    assert sum(c[0] for c in held) == settle and calls[: len(held)] == held and not any(c[5] for c in held)
    assert not any(c[4] for c in calls[len(held):])
    # none of them is kept: a fixed burn-in covers them, an open length keeps the second half of >= 2 rounds
    assert model.n_kept_ <= model.n_sweeps_ - reserved
    # continuing a fitted chain reserves nothing
    calls.clear()
    model.update(pd.DataFrame({"task": ["t20"], "labeler": ["me"], "label": ["yes"]}), n_sweeps=40)
    assert calls and all(column == -1 and not fixed for _, column, _, _, fixed, _ in calls)

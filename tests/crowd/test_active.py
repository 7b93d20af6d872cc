"""Active learning for BBMC (seed 003, §3.5): the perturbed-chain score against the direct inverse and against
the sampler itself, update() continuing the chain, active_loop and its baseline strategies, bad input."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, InputTypeError, NotFittedError, ParameterError
from paucity.crowd import BBMC, CONS, GOLD, LabelMatrix, active_loop
from paucity.crowd.active import disagreement, expected_utility
from paucity.crowd.gibbs import prepare, run_chain, sample_factors, sample_latent

from . import reference

RULE = np.array([1.5, -1.0])


def small_crowd(seed=0, n_tasks=30, n_gold=4):
    """Three labelers answer by the researcher's rule, two by its opposite; 20 more tasks nobody labelled."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_tasks + 20, 2))
    ids = [f"t{i}" for i in range(n_tasks + 20)]
    rows = []
    for i in range(n_tasks):
        for l in rng.choice(5, 2, replace=False):
            weights = RULE if l < 3 else -RULE
            rows.append((ids[i], f"w{l}", "yes" if X[i] @ weights + 0.5 * rng.normal() > 0 else "no"))
    rows += [(ids[i], "me", "yes" if X[i] @ RULE > 0 else "no") for i in range(n_gold)]
    labels = LabelMatrix.from_long(pd.DataFrame(rows, columns=["task", "labeler", "label"]), positive="yes")
    return labels, pd.DataFrame(X, index=ids, columns=["a", "b"])


def oracle_for(features):
    def oracle(task, labeler):
        weights = -RULE if labeler in ("w3", "w4") else RULE
        return "yes" if features.loc[task].to_numpy() @ weights > 0 else "no"
    return oracle


@pytest.fixture(scope="module")
def fitted():
    labels, features = small_crowd()
    model = BBMC(n_factors=2, n_burnin=100, n_samples=40, n_chains=2, random_state=0).fit(labels, features,
                                                                                          researcher="me")
    return model, labels, features


def test_sherman_morrison_score_equals_the_direct_inverse(fitted):
    """Eq. (3.11)/(3.13) through Sherman-Morrison and the compiled kernel = Appendix eq. (3.16) by direct inverse."""
    model, _, features = fitted
    pairs = model._candidates(["me", "w0", "w3"], ["t1", "t5", "t31", "t40"], None)
    rows, task = np.unique(pairs["row"].to_numpy(), return_inverse=True)
    X = pairs.attrs["features"][rows]
    labeler = pairs["labeler_index"].to_numpy()
    fast = expected_utility(model._data, model._traces, researcher=model._researcher_position, sigma=1.0,
                            features=X, task=task, labeler=labeler)
    slow = reference.expected_utility(model._data, model._traces, model._researcher_position, 1.0, X, task, labeler)
    np.testing.assert_allclose(fast.shift, slow[2], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(fast.positive, slow[1], rtol=1e-10)
    np.testing.assert_allclose(fast.utility, slow[0], rtol=1e-10)
    suggested = model.suggest(len(pairs), labelers=["me", "w0", "w3"], tasks=["t1", "t5", "t31", "t40"])
    by_pair = dict(zip(zip(pairs["task"], pairs["labeler"]), fast.utility))
    for _, row in suggested.iterrows():
        assert row["utility"] == pytest.approx(by_pair[(row["task"], row["labeler"])], rel=1e-12)
    assert len(suggested) == len(pairs) and suggested["utility"].is_monotonic_decreasing


def test_score_is_the_mean_of_the_perturbed_gibbs_step_run_by_the_sampler():
    """Brute force of eqs. (3.8)-(3.9) and (3.13): from every kept state (gamma^{s-1}, Z^{s-1}) run the sampler's own
    T and gamma steps with the candidate label appended; the mean move of beta_r away from the kept draw
    beta_r^s must equal the score's E[beta_r | y] - E[beta_r]. The per-state differences (sampler's move minus
    the closed form given the same state) have mean zero and are martingale differences, so their standard
    deviation / sqrt(S) is the Monte Carlo error; the tolerance is 4 of them (2,000 states)."""
    labels, features = small_crowd(seed=3, n_tasks=12, n_gold=3)
    model = BBMC(n_factors=2, n_burnin=200, n_samples=600, n_chains=2, random_state=1).fit(labels, features,
                                                                                            researcher="me")
    data = model._data
    r = model._researcher_position
    far = pd.DataFrame([[2.5, -2.0], [-1.0, -2.5]], index=["far", "low"], columns=["a", "b"])
    pairs = model._candidates(["me", "w1"], ["far", "low"], far)
    X = pairs.attrs["features"]
    pairs = pairs.iloc[[0, 3]]  # (far, me) and (low, w1)
    rows, task = np.unique(pairs["row"].to_numpy(), return_inverse=True)
    scores = expected_utility(data, model._traces, researcher=r, sigma=1.0, features=X[rows], task=task,
                              labeler=pairs["labeler_index"].to_numpy())
    rng = np.random.default_rng(7)
    sizes = []
    precisions = {(k, s): reference.precision(data.features, data.labeler, assignments[s - 1], 1.0)
                  for k, (_, assignments) in enumerate(model._traces) for s in range(1, assignments.shape[0])}
    for c, (row, l) in enumerate(zip(pairs["row"], pairs["labeler_index"])):
        for slot, sign in enumerate((-1.0, 1.0)):
            grown = prepare(X, np.append(data.task, row), np.append(data.labeler, l), np.append(data.sign, sign),
                            data.n_labelers)
            differences, moves = [], []
            for k, (gammas, assignments) in enumerate(model._traces):
                for s in range(1, gammas.shape[0]):
                    Z = assignments[s - 1]
                    t = sample_latent(grown, gammas[s - 1], Z, rng)
                    moved = Z[r] @ sample_factors(grown, Z, t, 1.0, rng)
                    formula = reference.perturbed_shift(data.features, data.labeler, Z, gammas[s - 1], gammas[s],
                                                        1.0, X[row], l, sign, r,
                                                        precision_matrix=precisions[k, s]) + Z[r] @ gammas[s]
                    moves.append(moved - Z[r] @ gammas[s])
                    differences.append(moved - formula)
            brute = np.mean(moves, axis=0)
            error = np.std(differences, axis=0, ddof=1) / np.sqrt(len(differences))
            shift = scores.shift[c, slot]
            assert np.all(np.abs(brute - shift) < 4 * error), (c, sign, brute, shift, error)
            sizes.append(np.linalg.norm(shift) / error.max())
    # the check has teeth: surprising labels move beta_r many standard errors away from where it was
    assert max(sizes) > 20 and sum(size > 5 for size in sizes) >= 3, sizes


TINY_X = pd.DataFrame([[1.0, 0.2], [-0.8, 0.5], [0.3, -1.0], [1.5, 1.0], [-1.2, -0.4], [0.1, 0.1], [2.0, -2.0],
                       [0.0, 1.5]], index=[f"t{i}" for i in range(8)], columns=["a", "b"])
TINY_ROWS = [("t0", "me", "yes"), ("t1", "me", "no"), ("t2", "w0", "yes"), ("t3", "w0", "yes"), ("t4", "w1", "no"),
             ("t1", "w1", "no"), ("t0", "w0", "yes")]


def _tiny_fit(extra, n_samples, seed):
    labels = LabelMatrix.from_long(pd.DataFrame(TINY_ROWS + extra, columns=["task", "labeler", "label"]),
                                   positive="yes")
    return BBMC(n_factors=1, sigma=0.5, n_burnin=500, n_samples=n_samples, n_chains=1, random_state=seed).fit(
        labels, TINY_X, researcher="me")


def _brute_force_against_long_chains(tasks, n_samples):
    """I = sum_y p(y) ||E[beta_r] - E[beta_r | y]|| with each E from its own long chain (the candidate label
    appended), p(y) the running chain's predictive probability; Monte Carlo errors of the chain means by batch
    means, carried to I by the triangle inequality."""
    base = _tiny_fit([], n_samples, 0)
    approx = base.suggest(len(tasks), tasks=tasks).set_index("task")["utility"]
    positive = dict(zip(tasks, base._utility(base._candidates(["me"], tasks, None)).positive))
    base_error = reference.batch_means_se(base.samples_)
    brute, error = {}, {}
    for task in tasks:
        values, errors = [], []
        for k, label in enumerate(["no", "yes"]):
            chain = _tiny_fit([(task, "me", label)], n_samples, 1 + k)
            values.append(np.linalg.norm(chain.coef_ - base.coef_))
            errors.append(np.linalg.norm(np.hypot(reference.batch_means_se(chain.samples_), base_error)))
        p = positive[task]
        brute[task] = p * values[1] + (1 - p) * values[0]
        error[task] = p * errors[1] + (1 - p) * errors[0]
    return approx, brute, error


def _check_brute_force(approx, brute, error, small, large):
    # the brute force separates the candidates clearly (by more than 4 Monte Carlo errors) ...
    for task in large:
        assert brute[task] - 4 * error[task] > brute[small] + 4 * error[small], (brute, error)
    # ... and the approximation ranks them the same way
    assert all(approx[small] < 0.2 * approx[task] for task in large), approx
    # one perturbed step (eq. 3.8) from stationary draws reaches only part of the stationary shift when the chain
    # is autocorrelated (lag-one autocorrelation of beta_r here about 0.15-0.4): the approximation lies between
    # 0.3 and 1 times the brute force, up to 3 Monte Carlo errors
    for task in large:
        assert 0.3 * (brute[task] - 3 * error[task]) < approx[task] < brute[task] + 3 * error[task], (approx, brute)


def test_score_ranks_candidates_as_long_chains_with_the_label_appended_do():
    """The issue's brute force on a tiny case: rerun the chain with each candidate label (both values)."""
    approx, brute, error = _brute_force_against_long_chains(["t5", "t6"], 4000)
    _check_brute_force(approx, brute, error, "t5", ["t6"])


@pytest.mark.slow
def test_score_against_long_chains_with_the_label_appended_slow():
    approx, brute, error = _brute_force_against_long_chains(["t5", "t6", "t7"], 40000)
    _check_brute_force(approx, brute, error, "t5", ["t6", "t7"])


def test_update_continues_the_same_chain(fitted):
    _, labels, features = fitted
    model = BBMC(n_factors=2, n_burnin=50, n_samples=30, n_chains=1, random_state=2).fit(labels, features, researcher="me")
    state = model.states_[0]
    rng = copy.deepcopy(model._chain_rngs[0])
    before = model._label_matrix().n_labels
    model.update(pd.DataFrame({"task": ["t35", "t2"], "labeler": ["me", "w0"], "label": ["yes", "no"]}), n_sweeps=25)
    assert model.n_sweeps_ == 80 + 25 and model.samples_.shape == (25, 2)
    grown = model._label_matrix()
    assert grown.n_labels == before + 2 and grown.column("me")["t35"] == 1
    task, labeler, sign = grown.triples()
    data = prepare(model._pool_features, task, labeler, sign, grown.n_labelers)
    again = run_chain(data, researcher=model._researcher_position, n_factors=2, alpha=1.0, sigma=1.0, n_burnin=0, n_samples=25, thin=1, rng=rng, state=state)
    np.testing.assert_array_equal(model.samples_, again.beta)
    np.testing.assert_array_equal(model.states_[0].gamma, again.state.gamma)
    # a new task with its features; a label matrix works as well as a long table
    new = pd.DataFrame([[0.5, -0.5]], index=["fresh"], columns=["a", "b"])
    more = LabelMatrix.from_long(pd.DataFrame({"task": ["fresh"], "labeler": ["me"], "label": ["yes"]}), positive="yes")
    model.update(more, X=new, n_sweeps=5)
    assert "fresh" in model._label_matrix().task_ids and model.n_sweeps_ == 110
    # the same label again is no change; n_sweeps=0 adds labels only
    model.update(pd.DataFrame({"task": ["fresh"], "labeler": ["me"], "label": ["yes"]}), n_sweeps=0)
    assert model._label_matrix().n_labels == before + 3 and model.n_sweeps_ == 110


def test_suggest_candidates(fitted):
    model, labels, features = fitted
    best = model.suggest(5)
    assert list(best.columns) == ["task", "labeler", "utility"] and len(best) == 5
    assert set(best["labeler"]) == {"me"}
    labelled = set(labels.column("me").index)
    every = 50 - len(labelled)  # every known task (labelled or not) she has not labelled
    assert not labelled & set(model.suggest(every)["task"])
    with pytest.raises(ParameterError, match=f"n = {every + 1} but there are only {every} "):
        model.suggest(every + 1)  # refused, as suggest_pairs refuses, not cut short
    n_crowd = 50 * 5 - labels.n_labels + len(labelled)
    crowd = model.suggest(n_crowd, labelers="crowd")
    assert "me" not in set(crowd["labeler"]) and len(crowd) == n_crowd
    new = pd.DataFrame([[3.0, -2.0], [0.01, 0.0]], index=["far", "near"], columns=["a", "b"])
    ranked = model.suggest(2, tasks=["far", "near"], X=new)
    assert list(ranked["task"]) == ["far", "near"]  # a label on a far-out task moves beta_r more
    assert ranked["utility"].iloc[1] < 0.2 * ranked["utility"].iloc[0]


def test_bad_input_is_a_one_line_error_and_changes_nothing(fitted):
    model, _, features = fitted
    samples = model.samples_.copy()
    count = model._label_matrix().n_labels
    sweeps = model.n_sweeps_
    cases = [
        (lambda: model.suggest(0), ParameterError, "n must be"),
        (lambda: model.suggest(1, labelers=["nobody"]), ParameterError, "'nobody'"),
        (lambda: model.suggest(1, labelers=[]), ParameterError, "empty list"),
        (lambda: model.suggest(1, tasks=["unseen"]), InputError, "no features"),
        (lambda: model.suggest(1, tasks=["unseen"], X=features), InputError, "missing from X"),
        (lambda: model.suggest(1, tasks=["t0", "t1", "t2", "t3"]), InputError, "labelled already"),
        (lambda: model.update(pd.DataFrame({"task": ["t1"], "labeler": ["nobody"], "label": ["yes"]})),
         ParameterError, "'nobody'"),
        (lambda: model.update(pd.DataFrame({"task": ["unseen"], "labeler": ["me"], "label": ["yes"]})),
         InputError, "no features"),
        (lambda: model.update(pd.DataFrame({"task": ["t1"], "labeler": ["me"], "label": ["maybe"]})),
         InputError, "'maybe'"),
        (lambda: model.update(pd.DataFrame({"task": ["t0"], "labeler": ["me"],
                                            "label": [model.classes_[0] if labels_me(model)["t0"] > 0
                                                      else model.classes_[1]]})),
         InputError, "labelled already with the other label"),
        (lambda: model.update(pd.DataFrame({"task": ["t40", "t40"], "labeler": ["me", "me"], "label": ["yes", "no"]})),
         InputError, "both labels"),
        (lambda: model.update(pd.DataFrame({"task": ["t40"]})), InputError, "lacks the labeler column"),
        (lambda: model.update([("t40", "me", "yes")]), InputTypeError, "LabelMatrix or a DataFrame"),
        (lambda: model.update(pd.DataFrame({"task": ["t40"], "labeler": ["me"], "label": ["yes"]}), n_sweeps=-1),
         ParameterError, "n_sweeps"),
    ]
    for call, error, pattern in cases:
        with pytest.raises(error, match=pattern) as info:
            call()
        assert "\n" not in str(info.value)
    np.testing.assert_array_equal(model.samples_, samples)
    assert model._label_matrix().n_labels == count and model.n_sweeps_ == sweeps
    with pytest.raises(NotFittedError):
        BBMC().suggest()
    with pytest.raises(NotFittedError):
        BBMC().update(pd.DataFrame({"task": ["t1"], "labeler": ["me"], "label": ["yes"]}))


def labels_me(model):
    return model._label_matrix().column("me")


@pytest.mark.parametrize("strategy", ["bbmc", "rand", "dis", "gold", "cons", "mcmc"])
def test_active_loop_strategies(strategy):
    labels, features = small_crowd(seed=1, n_tasks=20, n_gold=3)
    model = BBMC(n_factors=2, n_burnin=50, n_samples=20, n_chains=1, random_state=0).fit(labels, features, researcher="me")
    result = active_loop(model, oracle_for(features), n_queries=2, every=5, strategy=strategy,
                         n_subchain_sweeps=2, random_state=0, tasks=[f"t{i}" for i in range(3, 12)])
    assert list(result.queries.columns) == ["round", "task", "labeler", "label", "utility"]
    assert len(result.queries) == 2 and set(result.queries["labeler"]) == {"me"}
    assert result.labels.n_labels == labels.n_labels + 2
    for task, label in zip(result.queries["task"], result.queries["label"]):
        assert label == oracle_for(features)(task, "me")
    expected = {"gold": GOLD, "cons": CONS}.get(strategy, BBMC)
    assert isinstance(result.model, expected)
    assert model.n_sweeps_ == 70 + (0 if strategy in ("gold", "cons") else 10)
    if strategy == "bbmc":
        assert result.queries["utility"].notna().all()
    if strategy == "dis":
        score = pd.Series(disagreement(labels, exclude="me"), index=labels.task_ids)
        assert score[result.queries["task"].iloc[0]] == score.loc[[f"t{i}" for i in range(3, 12)]].max()


def test_active_loop_with_recorded_answers_and_bad_input():
    labels, features = small_crowd(seed=2, n_tasks=15, n_gold=3)
    model = BBMC(n_factors=1, n_burnin=20, n_samples=10, n_chains=1, random_state=0).fit(labels, features, researcher="me")
    answers = pd.DataFrame([(t, "me", oracle_for(features)(t, "me")) for t in features.index],
                           columns=["task", "labeler", "label"])
    recorded = LabelMatrix.from_long(answers, positive="yes")
    result = active_loop(model, recorded, n_queries=3, every=2, progress=True)
    assert len(result.queries) == 3 and result.to_frame().shape == (3, 5)
    for kwargs, pattern in [({"strategy": "best"}, "strategy"), ({"n_queries": 0}, "n_queries"),
                            ({"every": 0}, "every")]:
        with pytest.raises(ParameterError, match=pattern):
            active_loop(model, recorded, **kwargs)
    with pytest.raises(ParameterError, match="oracle"):
        active_loop(model, "answers.csv")
    with pytest.raises(ParameterError, match="model"):
        active_loop(GOLD(), recorded)
    partial = LabelMatrix.from_long(answers.iloc[:5], positive="yes")
    with pytest.raises(InputError, match="oracle's label matrix"):
        active_loop(model, partial, n_queries=5, strategy="rand", random_state=0, tasks=list(features.index[5:]))


def test_mcmc_act_subchains_see_the_candidate_label(fitted):
    """MCMC-ACT's subordinate chains carry the appended label: with long enough subchains a far-out task scores
    above a task at the origin (whose label cannot move beta_r), as the perturbed-chain score says."""
    model, _, _ = fitted
    new = pd.DataFrame([[3.0, -2.0], [0.0, 0.0]], index=["far", "origin"], columns=["a", "b"])
    model = copy.deepcopy(model)
    model.update(pd.DataFrame({"task": ["far"], "labeler": ["w0"], "label": ["yes"]}), X=new, n_sweeps=0)
    model.update(pd.DataFrame({"task": ["origin"], "labeler": ["w0"], "label": ["yes"]}), X=new, n_sweeps=1000)
    pairs = model._candidates(["me"], ["far", "origin"], None)
    scores = model._subchain_scores(pairs, n_sweeps=300, rng=np.random.default_rng(0))
    exact_zero = model._utility(pairs).utility
    assert exact_zero[1] == 0.0 and exact_zero[0] > 0.0  # x = 0 carries no information about beta_r
    assert scores[0] > 2 * scores[1], scores

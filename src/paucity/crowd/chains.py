"""Several BBMC chains advanced together, in rounds of sweeps, until they agree or a fixed length is run.

Every chain owns its state and its random generator, so a chain's draws do not depend on where it
runs: one after another in this process, on threads (the sampler's kernels release the GIL), or as
tasks on a Dask cluster. After every round the coordinator gathers the researcher's weights beta_r
of every chain and, when the length is not fixed, stops once the chains agree (split-R-hat and
effective sample size over the kept sweeps, see :func:`run_chains`).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .._errors import ParameterError
from .convergence import effective_sample_size, split_rhat
from .gibbs import ChainState, LabelData, advance

__all__ = ["Plan", "Pooled", "run_chains", "ROUND"]

ROUND = 100  # sweeps per chain between two looks at the chains
SETTLE = 20  # the first of a fresh chain's reserved sweeps, with Z held at its start


@dataclass(frozen=True)
class Plan:
    """How long the chains run.

    Attributes
    ----------
    n_burnin : int or None
        Sweeps discarded at the start; None: the first half of the sweeps run.
    n_samples : int or None
        Sweeps kept after burn-in; None: until the chains agree, at most ``max_sweeps`` sweeps in all.
    thin : int
        Every ``thin``-th kept sweep's beta_r is a draw of ``Pooled.beta``.
    max_sweeps : int
        The most sweeps per chain when ``n_samples`` is None.
    max_rhat, min_ess : float
        The chains agree when the largest split-R-hat of beta_r's coordinates is at most ``max_rhat``
        and the smallest effective sample size, all chains together, is at least ``min_ess``.
    n_states : int
        Keep the last ``n_states`` consecutive states of every chain (gamma and Z).
    """

    n_burnin: int | None
    n_samples: int | None
    thin: int
    max_sweeps: int
    max_rhat: float
    min_ess: float
    n_states: int = 0

    @property
    def fixed(self) -> bool:
        return self.n_samples is not None


@dataclass(frozen=True)
class Pooled:
    """The kept sweeps of every chain.

    Attributes
    ----------
    beta : (n_chains, S, d) every ``thin``-th kept draw of beta_r.
    rhat, ess : (d,) split-R-hat and effective sample size of beta_r over every kept sweep.
    assignment_means : list of (m, K), each chain's mean of Z over its kept sweeps.
    weight_means : list of (m, d), each chain's mean of Z gamma.
    states : each chain's last state.
    rngs : each chain's generator, moved on (the same objects unless the chains ran as Dask tasks).
    traces : per chain (gammas (T, K, d), assignments (T, m, K)), its last consecutive states.
    n_sweeps : sweeps run per chain.
    n_kept : kept sweeps per chain.
    reason : why the chains stopped, in words.
    converged : whether the chains agreed (always True for a fixed length).
    """

    beta: np.ndarray
    rhat: np.ndarray
    ess: np.ndarray
    assignment_means: list
    weight_means: list
    states: list
    rngs: list
    traces: list
    n_sweeps: int
    n_kept: int
    reason: str
    converged: bool


class _Serial:
    def map(self, function, items):
        return [function(*item) for item in items]


class _Threads:
    def __init__(self, pool):
        self._pool = pool

    def map(self, function, items):
        futures = [self._pool.submit(function, *item) for item in items]
        return [future.result() for future in futures]


class _Dask:
    def __init__(self, client, data):
        self._client = client
        self._data = client.scatter(data, broadcast=True, hash=False)

    def map(self, function, items):
        futures = [self._client.submit(function, self._data, *item[1:], pure=False) for item in items]
        return self._client.gather(futures)


@contextlib.contextmanager
def executor(scheduler: str, threads: int, n_chains: int, data: LabelData) -> Iterator:
    """Where the chains run: ``"threads"`` (``threads`` at once; one runs them in this thread) or ``"dask"``
    (the open ``dask.distributed`` client)."""
    if scheduler == "dask":
        yield _Dask(_client(), data)
        return
    workers = min(threads, n_chains)
    if workers <= 1:
        yield _Serial()
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paucity-chain") as pool:
        yield _Threads(pool)


def _client():
    """The open ``dask.distributed`` client, or a one-line error saying how to get one."""
    try:
        from distributed import get_client
    except ImportError:
        raise ParameterError("scheduler='dask' needs dask.distributed: pip install 'paucity[dask]'.") from None
    try:
        return get_client()
    except ValueError:
        raise ParameterError(
            "scheduler='dask' runs the chains on the open dask.distributed client, and none is open; start one "
            "(distributed.Client(address)) first, or use scheduler='threads'."
        ) from None


def _step(data, state, rng, options, n_sweeps, n_states, own_column=-1):
    """One round of one chain (a module-level function, so Dask can ship it)."""
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        stretch = advance(data, state, rng, n_sweeps=n_sweeps, n_states=n_states, own_column=own_column, **options)
    return stretch, rng


@dataclass
class _Chain:
    state: ChainState
    rng: np.random.Generator
    rounds: deque  # (first sweep index, Stretch) of the rounds that may still be kept
    states: deque  # the last consecutive (gamma, Z)


def run_chains(data: LabelData, states: list, rngs: list, plan: Plan, *, researcher: int, alpha: float, sigma: float,
               fix_assignments: bool = False, runner=None, bar=None, reserve: int = 0) -> Pooled:
    """Advance every chain in rounds of :data:`ROUND` sweeps (or fewer) until the plan is done.

    With a fixed length, ``n_burnin`` sweeps are discarded and the next ``n_samples`` kept. Otherwise,
    after every round from the second on, the kept sweeps are those after ``n_burnin`` (or the second
    half of the rounds run, when ``n_burnin`` is None); the chains stop when their beta_r agree
    (largest split-R-hat at most ``max_rhat``, smallest effective sample size at least ``min_ess``), or
    after ``max_sweeps`` sweeps, whichever comes first. ``runner`` has ``map(function, items)`` (one
    item per chain); ``bar`` is told the sweeps done and shown the R-hat.

    ``reserve``: for the first ``reserve`` sweeps the last factor is the researcher's alone (``own_column`` of
    :func:`~paucity.crowd.gibbs.sweep`), and in the first ``SETTLE`` of them Z is held at its start, so that
    gamma finds the crowd's consensus and her own rule before anyone chooses factors; the sweeps after them use
    the whole sampler. Those sweeps are always discarded: with a fixed length at most ``n_burnin`` of them are
    run, and an open length keeps the second half of at least 2 rounds, so at most one round (``ROUND``) is
    reserved.
    """
    runner = _Serial() if runner is None else runner
    options = dict(researcher=researcher, alpha=alpha, sigma=sigma, fix_assignments=fix_assignments)
    chains = [_Chain(state, rng, deque(), deque([(state.gamma, state.Z)], maxlen=max(plan.n_states, 1)))
              for state, rng in zip(states, rngs)]
    burn = plan.n_burnin
    total = plan.n_burnin + plan.n_samples if plan.fixed else plan.max_sweeps
    reserve = min(reserve, ROUND, burn if burn is not None else ROUND)
    if fix_assignments or states[0].Z.shape[1] < 2:
        reserve = 0
    settle = min(SETTLE, reserve)
    # a round never straddles the end of a fixed burn-in, of the reserved sweeps or of the settling ones
    edges = [edge for edge in (burn, reserve, settle) if edge is not None]
    done = 0
    rhat = ess = None
    reason = ""
    converged = plan.fixed
    while done < total:
        size = min([ROUND, total - done] + [edge - done for edge in edges if done < edge])
        settling = done < settle
        # states come back from the rounds that may be the last ones: all of them when the length is open
        n_states = plan.n_states if (not plan.fixed or total - done - size < plan.n_states) else 0
        own_column = chains[0].state.Z.shape[1] - 1 if done < reserve else -1
        step_options = dict(options, fix_assignments=True) if settling else options
        results = runner.map(_step, [(data, chain.state, chain.rng, step_options, size, n_states, own_column)
                                     for chain in chains])
        for chain, (stretch, rng) in zip(chains, results):
            chain.state, chain.rng = stretch.state, rng
            if burn is None or done >= burn:
                chain.rounds.append((done, stretch))
            if stretch.gammas is not None:
                chain.states.extend(zip(stretch.gammas, stretch.assignments))
        if bar is not None:
            bar.advance(size * len(chains))
        done += size
        start = burn if burn is not None else (done // ROUND // 2) * ROUND
        for chain in chains:
            while chain.rounds and chain.rounds[0][0] < start:
                chain.rounds.popleft()
        if plan.fixed or not chains[0].rounds:
            continue
        draws = np.stack([np.concatenate([s.beta for _, s in chain.rounds]) for chain in chains])
        if done < 2 * ROUND or draws.shape[1] < ROUND:
            continue
        rhat, ess = _diagnostics(draws)
        if bar is not None:
            bar.update(description=f"BBMC Gibbs sweeps (R-hat {np.nanmax(rhat):.2f}, ESS {np.nanmin(ess):.0f})")
        if _agree(rhat, ess, plan):
            converged = True
            reason = (f"converged after {done} sweeps per chain: largest R-hat {np.max(rhat):.3f} <= {plan.max_rhat}, "
                      f"smallest ESS {np.min(ess):.0f} >= {plan.min_ess:g}")
            break
    kept = [np.concatenate([s.beta for _, s in chain.rounds]) if chain.rounds else np.empty((0, data.X.shape[1]))
            for chain in chains]
    draws = np.stack(kept)
    if rhat is None or plan.fixed:
        rhat, ess = _diagnostics(draws)
    if plan.fixed:
        reason = f"ran the fixed {plan.n_burnin} + {plan.n_samples} sweeps per chain"
    elif not converged:
        reason = (f"stopped at max_sweeps={plan.max_sweeps} sweeps per chain before the chains agreed: largest R-hat "
                  f"{np.nanmax(rhat):.3f} (wanted <= {plan.max_rhat}), smallest ESS {np.nanmin(ess):.0f} "
                  f"(wanted >= {plan.min_ess:g})")
    n_kept = draws.shape[1]
    offset = plan.thin - 1
    thinned = draws[:, offset::plan.thin]
    if plan.fixed:
        thinned = thinned[:, : plan.n_samples // plan.thin]
    means_z, means_w = [], []
    for chain in chains:
        z = sum((s.assignment_sum for _, s in chain.rounds), np.zeros_like(chain.state.Z))
        w = sum((s.weight_sum for _, s in chain.rounds), np.zeros((data.n_labelers, data.X.shape[1])))
        means_z.append(z / max(n_kept, 1))
        means_w.append(w / max(n_kept, 1))
    traces = []
    for chain in chains:  # the last min(n_states - 1, kept) sweeps and the state before them
        if plan.n_states:
            gammas, assignments = zip(*list(chain.states)[-(min(plan.n_states - 1, n_kept) + 1):])
            traces.append((np.stack(gammas), np.stack(assignments)))
        else:
            traces.append((None, None))
    return Pooled(thinned, np.asarray(rhat), np.asarray(ess), means_z, means_w, [c.state for c in chains],
                  [c.rng for c in chains], traces,
                  done, n_kept, reason, converged)


def _diagnostics(draws: np.ndarray):
    with np.errstate(divide="ignore", invalid="ignore"):
        return split_rhat(draws), effective_sample_size(draws)


def _agree(rhat, ess, plan: Plan) -> bool:
    return bool(np.all(np.isfinite(rhat)) and np.max(rhat) <= plan.max_rhat and np.all(np.isfinite(ess))
                and np.min(ess) >= plan.min_ess)

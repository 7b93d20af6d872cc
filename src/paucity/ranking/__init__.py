"""Ranking items from pairwise comparisons (seed 000 ch. 3, seed 003 ch. 5).

- :class:`Comparisons`: the data, an immutable set of (i, j, y) observations.
- :class:`Rankings`, :class:`Choices`: orderings of subsets of the items
  (best first), and one item chosen from an offered set.
- :class:`PlackettLuce`: Plackett–Luce maximum likelihood or MAP on rankings
  and choices (Newton, I-LSR or the one-step spectral LSR estimate).
- :class:`RankCentrality`: stationary distribution of a comparison Markov chain,
  unregularized, λ-regularized or similarity-regularized.
- :class:`BTL`: Bradley–Terry–Luce maximum likelihood, optionally L2-regularized.
- :class:`BRE`, :class:`URE`: balanced and unbalanced rank estimation by
  counting, online (``partial_fit``) and distributed on Dask (:class:`DaskComparisons`).
- :class:`RankSVM`: the feature baselines (linear, or on random Fourier features).
- :class:`SiameseRanker`: the Siamese-network feature baseline (a shared-weight tower f(x)).
- :func:`suggest_pairs`: the pairs whose comparison a fitted BTL or
  PlackettLuce expects to learn most from (information gain under its
  Laplace posterior, or the likeliest rank swaps).
- :func:`rank`: one call, a method name and its parameters; returns a :class:`RankResult`.
- :func:`evaluate`: scores against held-out comparisons and true scores; returns a :class:`RankingEvaluation`.
- :mod:`paucity.ranking.metrics`: Kendall's tau-b, inversions, footrule, displacement, held-out error.

Every ranker's ``scores_`` is on its own scale (π, log-weights, counts,
f(x)); its ``log_scores_`` is on BTL's centred log scale (mean-zero
log-weights), the same for all, so that they compare directly.
"""

from .._lazy import lazy_names

_WHERE = {
    "Comparisons": "comparisons",
    "Rankings": "rankings",
    "Choices": "rankings",
    "PlackettLuce": "plackett_luce",
    "suggest_pairs": "suggest",
    "Ranker": "base",
    "RankCentrality": "centrality",
    "BTL": "btl",
    "BRE": "counting",
    "URE": "counting",
    "DaskComparisons": "distributed",
    "RankSVM": "svm",
    "SiameseRanker": "siamese",
    "rank": "dispatch",
    "RankResult": "dispatch",
    "METHODS": "dispatch",
    "evaluate": "evaluation",
    "RankingEvaluation": "evaluation",
    "metrics": None,
}

__all__ = list(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

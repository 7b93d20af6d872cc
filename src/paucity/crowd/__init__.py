"""Pooling biased labelers (seed 003, chapter 3: BBMC).

Crowd labelers are biased in structured ways: on an ambiguous task some
compare centroids, some extreme points, some sizes. A majority vote then
teaches a model the crowd's bias, and a model of the researcher's few gold
labels alone overfits. BBMC models every labeler's weights as a sum of shared
factors, so the researcher's model borrows from the labelers who think like
her.

- :class:`LabelMatrix`: tasks x labelers of -1, 0 (not labelled), +1, sparse,
  with task and labeler ids; :meth:`LabelMatrix.from_frame` reads a long table.
  :func:`align_features` lines task features up with it.
- :class:`BBMC`: the latent-feature probit model and its Gibbs sampler
  (eqs. 3.1-3.7), predictions by eq. (3.2), Table 3.1's log likelihood.
- :class:`GOLD`, :class:`CONS`: logistic regression on the gold labels or on
  the crowd's :func:`majority_vote` (the seed's baselines).
- :meth:`BBMC.suggest`, :meth:`BBMC.update`, :func:`active_loop`: active learning
  (§3.5): the (task, labeler) pairs whose label would move the researcher's
  weights most, by the perturbed-chain approximation; labels added to the
  running chain; the seed's loop and baseline strategies (:class:`ActiveResult`).
- :func:`pool`: the whole analysis in one call (fit, predict every task,
  suggest the next pairs), a frozen :class:`PoolResult`; ``paucity crowd``
  calls it.
- :func:`split_rhat`: convergence of several chains.
- :func:`aggregate`: crowd-kit's Dawid-Skene or GLAD on a label matrix (crowd-kit
  is optional and imported only then).
"""

from .._lazy import lazy_names

_WHERE = {
    "LabelMatrix": "labels",
    "align_features": "labels",
    "BBMC": "bbmc",
    "GOLD": "baselines",
    "CONS": "baselines",
    "majority_vote": "baselines",
    "split_rhat": "convergence",
    "aggregate": "aggregation",
    "active_loop": "loop",
    "ActiveResult": "loop",
    "pool": "pooling",
    "PoolResult": "pooling",
}

__all__ = list(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

"""Active spectral clustering with costly, noisy similarities (seed 003, chapter 2).

People cluster objects whose pairwise similarities cost money or lab time:
photos rated by crowd workers, protein pairs that need an alignment, strains
that need an assay. Spectral clustering needs only similarities; these tools
choose which ones to measure.

- :func:`spectral_bisection`, :func:`fiedler_vector`: spectral clustering of a
  (partial) similarity matrix by the sign of the second eigenvector of its
  unnormalized Laplacian, zeros imputed for unmeasured pairs (eq. 2.2).
- :func:`iu_red_scores`, :func:`shamir_tishby_scores`: the score of every pair
  under IU-RED (Algorithm 1) and S&T (Algorithm 2), from eq. (2.6).
- :func:`misclustering_error`: the fraction of items misclustered, minimized
  over matchings of cluster names.
- :class:`SimilarityOracle` (the protocol), :class:`MatrixOracle` (a complete
  matrix, optionally with :class:`BetaNoise`), :class:`FunctionOracle` (a
  Python function): where measurements come from.
- :class:`MeasurementStore`: every measurement in a database (SQLite by
  default), running estimates per pair (§2.5), resumable sessions.
- :class:`ActiveSpectralClustering`: the active loop, by ``fit(oracle)`` or
  step by step with ``ask`` and ``tell`` (and ``withdraw`` for asks that will
  never be answered).
- :func:`simulate` (on a complete matrix read by :func:`read_similarities`):
  what ``paucity cluster-active`` runs.
- :class:`ClusteringSession`: a session in a database, by item names, shared
  by any number of processes (``ask``, ``record``, ``withdraw``, ``status``);
  what ``paucity cluster-session`` and ``paucity serve annotate`` run, with
  the tables :class:`Items`, :class:`Answers`, :class:`Pairs`, :class:`GoldPairs` and
  :class:`ExamplePairs` (each built once by ``from_frame``) and the readers
  :func:`read_items`, :func:`read_answers` and :func:`read_pairs`.
- :class:`SessionSettings` (and :data:`SETTINGS`): every setting of the loop,
  declared once; :class:`LoopBackend`: the protocol between the estimator and
  where its asks and answers live (:class:`InMemoryBackend`, or a session).
"""

from .._lazy import lazy_names

_WHERE = {
    "ActiveSpectralClustering": "active",
    "spectral_bisection": "spectral",
    "fiedler_vector": "spectral",
    "FiedlerVector": "spectral",
    "iu_red_scores": "scores",
    "shamir_tishby_scores": "scores",
    "misclustering_error": "metrics",
    "SimilarityOracle": "oracles",
    "MatrixOracle": "oracles",
    "FunctionOracle": "oracles",
    "BetaNoise": "oracles",
    "MeasurementStore": "store",
    "SimilarityEstimates": "estimates",
    "read_similarities": "similarities",
    "similarities_from_frame": "similarities",
    "read_items": "tables",
    "read_answers": "tables",
    "read_pairs": "tables",
    "Items": "tables",
    "Answers": "tables",
    "Pairs": "tables",
    "GoldPairs": "tables",
    "ExamplePairs": "tables",
    "LoopBackend": "backend",
    "InMemoryBackend": "backend",
    "simulate": "simulation",
    "ClusteringSimulation": "simulation",
    "ClusteringSession": "session",
    "SessionSettings": "settings",
    "SETTINGS": "settings",
    "SessionAsks": "session",
    "SessionAnswers": "session",
    "SessionWithdrawal": "session",
    "SessionStatus": "session",
    "SessionClusters": "session",
    "SessionExistsError": "session",
    "SessionQuality": "agreement",
    "AnnotationSession": "annotation",
    "next_pairs": "session",
    "record_answers": "session",
    "withdraw_asks": "session",
}

__all__ = list(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

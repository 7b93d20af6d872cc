"""A clustering session in a database, shared by the people who answer its questions: :class:`ClusteringSession`.

The session is one public façade over rooms of one idea each:

- :mod:`.session`: :class:`ClusteringSession`, opening a session and the verbs of the human loop;
- :mod:`.coordinator`: the coordinator's verbs of the same class, each delegated to a collaborator below;
- :mod:`.state`: the active loop one process holds, brought up to the database on every verb;
- :mod:`.matching`: which waiting ask each row of answers or withdrawals names, and who may answer a pair;
- :mod:`.access`: annotators, their tokens, pausing and revoking them, leaving their answers out;
- :mod:`.gold`: gold pairs, put on annotators' screens and answered apart from the measurements;
- :mod:`.export`: every answer in one table, and each annotator's quality;
- :mod:`.review`: disagreements and the coordinator's adjudications, each annotator's work and pay;
- :mod:`.stored`: the items and settings a database keeps (a version-1 store's read as they were);
- :mod:`.items`, :mod:`.rules`: item names and pairs, and the one rule for an annotator's name and a request's key;
- :mod:`.results`: what the verbs return;
- :mod:`.backend`: the estimator's :class:`~paucity.clustering.backend.LoopBackend` on a session;
- :mod:`.deprecated`: the functions of earlier releases.

Every statement on the database lives beside its schema in :mod:`paucity.clustering.store`.
"""

from ..._errors import SessionExistsError
from ..settings import SessionSettings
from .deprecated import next_pairs, record_answers, withdraw_asks
from .results import SessionAnswers, SessionAsks, SessionClusters, SessionStatus, SessionWithdrawal
from .rules import check_annotator, check_key
from .session import ClusteringSession

__all__ = ["ClusteringSession", "SessionSettings", "SessionAsks", "SessionAnswers", "SessionWithdrawal",
           "SessionStatus", "SessionClusters", "SessionExistsError", "check_annotator", "check_key", "next_pairs",
           "record_answers", "withdraw_asks"]

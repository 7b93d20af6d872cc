"""What the processes of the concurrency tests run (importable by a spawned process: no test fixtures here)."""

from __future__ import annotations

import os
import time

ITEMS = [f"photo{k:03d}" for k in range(40)]


def wait_for(go: str) -> None:
    """Spin until the file ``go`` exists, so that every process starts its work at the same moment."""
    while not os.path.exists(go):
        time.sleep(0.0005)


def start_and_ask(database: str, who: str, go: str, n: int, batch_size: int):
    """Start the session (or join it, started by another process) and ask ``n`` pairs for ``who``."""
    wait_for(go)
    from paucity._errors import PaucityError
    from paucity.clustering import ClusteringSession

    try:
        with ClusteringSession.create(database, ITEMS, budget=200, batch_size=batch_size, random_state=0,
                                      exist_ok=True) as session:
            asks = session.ask(n, annotator=who)
            return "ok", [tuple(pair) for pair in asks.pairs[["i", "j"]].itertuples(index=False)], session.created
    except PaucityError as error:
        return "refused", str(error), False


def churn(database: str, who: str, go: str, rounds: int, seed: int):
    """Ask, answer some, withdraw some, skip some, over and over; returns what this process did."""
    import numpy as np
    import pandas as pd

    wait_for(go)
    from paucity._errors import PaucityError
    from paucity.clustering import ClusteringSession

    rng = np.random.default_rng(seed)
    answered, withdrawn, refused = [], [], []
    with ClusteringSession.open(database) as session:
        for _ in range(rounds):
            asks = session.ask(int(rng.integers(1, 4)), annotator=who)
            pairs = asks.pairs[["i", "j"]]
            if not len(pairs):
                continue
            what = rng.random(len(pairs))
            answer = pairs[what < 0.6].assign(value=np.round(rng.random(int((what < 0.6).sum())), 3))
            withdraw = pairs[(what >= 0.6) & (what < 0.8)]
            try:
                if len(answer):
                    done = session.record(answer, annotator=who)
                    answered += [tuple(pair) for pair in answer[["i", "j"]].itertuples(index=False)]
                    assert done.n_recorded == len(answer)
                if len(withdraw):
                    gone = session.withdraw(pd.DataFrame(withdraw))
                    withdrawn += [tuple(pair) for pair in gone.withdrawn.itertuples(index=False)]
            except PaucityError as error:  # never expected: every pair here is this process's own
                refused.append(str(error))
        session.release(who)
    return answered, withdrawn, refused

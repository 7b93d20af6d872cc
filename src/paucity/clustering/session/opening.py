"""Opening a session: starting one over named items, opening the one a database holds, and the estimator's.

Each function takes the session's class (:class:`~paucity.clustering.ClusteringSession`)
and returns one of it; every input is checked before the database is
touched, and a store opened here is closed again when opening fails.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

from ..._errors import InputError, NoSessionError, ParameterError, SessionExistsError
from ..settings import check_settings, settings_for
from .items import check_items
from .stored import items_differ, new_settings, read_record, refuse_other_settings, write_record

__all__ = ["create", "open_session", "for_estimator", "start"]


def create(cls, database, items, settings: Mapping, *, exist_ok: bool):
    """``ClusteringSession.create``: a new session over ``items`` (or, with ``exist_ok``, the one there)."""
    names = check_items(items)
    given = check_settings(settings, owner="ClusteringSession")
    chosen = new_settings(given, len(names), owner="ClusteringSession")
    return start(cls, database, names, chosen, given, exist_ok=exist_ok, owner="ClusteringSession")


def start(cls, database, names, settings, given, *, exist_ok: bool, owner: str):
    """Write a new session's record in one locked transaction, or open the session the database holds already."""
    from ..store import MeasurementStore

    store = database if isinstance(database, MeasurementStore) else MeasurementStore(database)
    try:
        with store.transaction(lock=True) as connection:
            stored = read_record(store, store.read_metadata(connection=connection), given)
            if stored is None:
                write_record(store, connection, names, settings)
                return cls(store, names, settings, created=True)
        stored_items, stored_settings = stored
        if not exist_ok:
            raise SessionExistsError(
                f"{store.shown} holds a session already ({len(stored_items)} items, "
                f"{stored_settings.strategy.replace('_', '-')}); open it with ClusteringSession.open, or give a "
                "new database."
            )
        if list(stored_items) != list(names):
            raise InputError(f"{items_differ(stored_items, names)} in {store.shown}; leave the items out to resume "
                             "it, or give a new database.")
        refuse_other_settings(store, stored_settings, given, len(names), owner=owner)
        return cls(store, stored_items, stored_settings)
    except BaseException:
        store.close()
        raise


def open_session(cls, database, items, settings: Mapping):
    """``ClusteringSession.open``: the session a database holds (:class:`~paucity.NoSessionError` when none)."""
    from ..store import MeasurementStore

    given = check_settings(settings, owner="ClusteringSession")
    names = None if items is None else check_items(items)
    store = database if isinstance(database, MeasurementStore) else MeasurementStore(database, create=False)
    try:
        stored = read_record(store, store.metadata, given)
        if stored is None:
            raise NoSessionError(
                f"{store.shown} holds no session (measurements at most, with no items and settings); start one "
                "with ClusteringSession.create(database, items) or paucity cluster-session start DB --items FILE."
            )
        stored_items, stored_settings = stored
        if names is not None and list(names) != list(stored_items):
            raise InputError(f"{items_differ(stored_items, names)} in {store.shown}; leave the items out to "
                             "resume it, or give a new database.")
        refuse_other_settings(store, stored_settings, given, len(stored_items), owner="ClusteringSession")
    except BaseException:
        store.close()
        raise
    return cls(store, stored_items, stored_settings)


def for_estimator(cls, store, params: Mapping, *, n_items=None):
    """``ClusteringSession.for_estimator``: the session of ``ActiveSpectralClustering(store=...)``."""
    from ..loop import base_seed
    from ..store import MeasurementStore

    owner = "ActiveSpectralClustering"
    given = {s.name: params[s.name] for s in settings_for("estimator") if s.name != "random_state"}
    random_state = params["random_state"]
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        given["random_state"] = int(random_state)
    store = store if isinstance(store, MeasurementStore) else MeasurementStore(store)
    try:
        stored = read_record(store, store.metadata, given)
        if stored is not None:
            stored_items, settings = stored
            if n_items is not None and int(n_items) != len(stored_items):
                raise InputError(
                    f"{store.shown} holds a session over {len(stored_items)} items, but n_items={int(n_items)} "
                    f"was given; pass n_items={len(stored_items)}, or a new database for the new items."
                )
            refuse_other_settings(store, settings, given, len(stored_items), owner=owner)
            return cls(store, stored_items, settings)
        if n_items is None:
            n_items = store.n_items
        if n_items is None:
            raise ParameterError(
                f"{owner}: the number of items is unknown; pass n_items=..., or an oracle with an n_items "
                "attribute (MatrixOracle has one)."
            )
        from .._checks import check_n_items

        n = check_n_items(n_items)
        given.setdefault("random_state", base_seed(random_state))
        settings = new_settings(given, n, owner=owner)
        return start(cls, store, [str(k) for k in range(n)], settings, given, exist_ok=True, owner=owner)
    except BaseException:
        store.close()
        raise


"""A session's record in its store: the item names and the settings, written once when it starts.

:func:`read_record` reads them back, a version-1 store's included (written by
``ActiveSpectralClustering`` or ``next_pairs`` before sessions kept their items
and settings, read as they were); :func:`new_settings` checks the settings of
a new session, :func:`refuse_other_settings` those given when one resumes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..._errors import ParameterError, ReaderError
from ..._spelling import given as as_typed
from ..._spelling import owner_prefix, spelled
from .._checks import MIN_ITEMS, check_interleave
from ..settings import SessionSettings, check_settings, defaults, setting

__all__ = ["ITEMS_KEY", "SETTINGS_KEY", "check_changes", "measurements", "new_settings", "refuse_other_settings",
           "read_record", "write_record", "write_settings", "items_differ"]

ITEMS_KEY = "items"
SETTINGS_KEY = "settings"
_V1_SETTINGS_KEY = "session"  # where a version-1 store kept the settings of next_pairs


def measurements(settings: SessionSettings, n: int, owner: str = "ClusteringSession") -> int:
    """The budget of ``settings`` over ``n`` items, as a number of measurements."""
    from ..loop import resolve_budget

    return resolve_budget(settings.budget, n, settings.repeats, owner=owner)


def new_settings(given: Mapping, n: int, *, owner: str) -> SessionSettings:
    """The settings of a new session over ``n`` items: the given ones checked, the others the defaults (a seed
    drawn when none is given)."""
    from ..loop import base_seed

    values = {**defaults("session"), **check_settings(given, owner=owner)}
    if values["random_state"] is None:
        values["random_state"] = base_seed(None)
    settings = SessionSettings(**{name: setting(name).plain(value) for name, value in values.items()})
    check_interleave(settings.strategy, settings.interleave, owner=owner)
    if settings.n_clusters > n:
        raise ParameterError(f"{owner_prefix(owner)}{as_typed('n_clusters', settings.n_clusters)} but there are only "
                             f"{n} items.")
    measurements(settings, n, owner=owner)
    return settings


def refuse_other_settings(store, stored: SessionSettings, given: Mapping, n: int, *, owner: str) -> None:
    """One line naming every setting given that differs from the session's, and both values."""
    given = check_settings(given, owner=owner)
    differ = []
    for name, value in given.items():
        have = getattr(stored, name)
        if name == "budget":  # the same number of measurements, however written
            same = measurements(replace(stored, budget=value), n, owner=owner) == measurements(stored, n)
        else:
            same = setting(name).same(value, have)
        if not same:
            differ.append((name, setting(name).typed(have), setting(name).typed(setting(name).plain(value))))
    if differ:
        stored_text = ", ".join(as_typed(name, have) for name, have, _ in differ)
        given_text = ", ".join(as_typed(name, value) for name, _, value in differ)
        names = ", ".join(spelled(name) for name, _, _ in differ)
        extend = " (a larger budget is given by extend)" if any(name == "budget" for name, _, _ in differ) else ""
        if any(not setting(name).fixed and name != "budget" for name, _, _ in differ):
            extend += " (the coordinator changes a rule with ClusteringSession.change or the coordinator's page)"
        raise ParameterError(
            f"{owner_prefix(owner)}the session in {store.shown} has {stored_text}; {given_text} would make another "
            "session. "
            f"Leave {names} out (or give the session's) to resume it{extend}, or give a new database."
        )


def check_changes(given: Mapping, *, owner: str) -> dict:
    """The settings a session may change after it starts (:attr:`Setting.fixed` is False), each checked; None
    is kept for a setting that may be None (it removes a limit). A fixed setting is refused."""
    from ..._constraints import check_parameter
    from ..settings import refuse_unknown

    refuse_unknown(given, owner=owner)
    changed = {}
    for name, value in given.items():
        declared = setting(name)
        if declared.fixed:
            raise ParameterError(
                f"{owner_prefix(owner)}{spelled(name)} is fixed when a session starts; a session with another "
                f"{spelled(name)} is a new session (give a new database)."
            )
        if value is None and None not in declared.constraints:
            raise ParameterError(f"{owner_prefix(owner)}{spelled(name)} cannot be None; give a value.")
        checked = value if value is None else check_parameter(value, name, declared.constraints, owner=owner,
                                                                hint=declared.hint)
        changed[name] = declared.plain(checked)
    return changed


def write_record(store, connection, names: Sequence[str], settings: SessionSettings) -> None:
    """Write a new session's items and settings (in the transaction that starts it)."""
    store.set_n_items(len(names), connection=connection)
    store.update_metadata({ITEMS_KEY: json.dumps(list(names)), SETTINGS_KEY: json.dumps(settings.to_dict())},
                          connection=connection)


def write_settings(store, connection, settings: SessionSettings) -> None:
    """Write a session's settings again (``extend`` raises the budget)."""
    store.update_metadata({SETTINGS_KEY: json.dumps(settings.to_dict())}, connection=connection)


def read_record(store, meta: Mapping, given: Mapping | None = None) -> tuple[list[str], SessionSettings] | None:
    """The items and settings a database keeps (a version-1 store's, read as they were), or None.

    A version-1 store written by ``ActiveSpectralClustering`` kept no budget and
    no batch size: the ones ``given`` (else the defaults) stand for them.
    """
    n_text = meta.get("n_items")
    if SETTINGS_KEY in meta:
        raw = meta[SETTINGS_KEY]
    elif _V1_SETTINGS_KEY in meta or "seed" in meta:
        raw = None
    else:
        return None
    try:
        if raw is not None:
            values = json.loads(raw)
        else:  # version 1: next_pairs' JSON, or the keys ActiveSpectralClustering wrote
            values = defaults("session")
            if _V1_SETTINGS_KEY in meta:
                values.update(json.loads(meta[_V1_SETTINGS_KEY]))
            else:
                values.update(strategy=meta.get("strategy", "iu_red"), interleave=meta.get("interleave") == "True",
                              repeats=int(meta.get("repeats", 1)), n_clusters=int(meta.get("n_clusters", 2)))
                values.update({name: given[name] for name in ("budget", "batch_size") if name in (given or {})})
            if "seed" in meta:
                values["random_state"] = int(meta["seed"])
        items = json.loads(meta[ITEMS_KEY]) if ITEMS_KEY in meta else [str(k) for k in range(int(n_text))]
        items = [str(name) for name in items]
        settings = SessionSettings.from_stored(values)
        if settings.random_state is None or len(items) < MIN_ITEMS:
            raise ValueError("incomplete")
    except (TypeError, ValueError, KeyError) as exc:
        raise ReaderError(
            f"{store.shown} is damaged: its session record cannot be read ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else 'incomplete'}); restore it from a copy."
        ) from None
    return items, settings


def items_differ(stored: Sequence[str], given: Sequence[str]) -> str:
    """Where two lists of item names first differ, for a message."""
    if len(stored) != len(given):
        return f"the session has {len(stored)} items but items names {len(given)}"
    k = next(k for k, (a, b) in enumerate(zip(stored, given)) if a != b)
    return f"the session's item {k} is {stored[k]!r} but items names {given[k]!r} there"

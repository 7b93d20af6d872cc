"""The options of a clustering session, defined once: ``paucity cluster-session`` and ``paucity serve annotate``.

Each is a typer option object used as the default of a parameter in both
commands, and :func:`session_settings` turns their values into the keyword
arguments of :meth:`paucity.clustering.ClusteringSession.create` (None: not
given, so the session's default when it starts, and no check when it resumes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError

__all__ = [
    "STRATEGIES", "STRATEGY_HELP", "BUDGET_HELP", "REPEATS_HELP", "BATCH_HELP", "INTERLEAVE_HELP", "N_CLUSTERS_HELP",
    "ITEMS", "ITEM_COLUMN", "BUDGET", "BATCH_SIZE", "STRATEGY", "REPEATS", "INTERLEAVE", "N_CLUSTERS", "RANDOM_STATE",
    "PRICE", "CUT", "CUT_HELP", "strategy_name", "parse_budget", "session_settings", "open_or_explain",
]

#: --strategy on the command line -> the library's name.
STRATEGIES = {"iu-red": "iu_red", "shamir-tishby": "shamir_tishby", "random": "random"}

STRATEGY_HELP = "iu-red (the seed's IU-RED, Algorithm 1), shamir-tishby (S&T, Algorithm 2) or random."
BUDGET_HELP = (
    "Measurements to make: an integer (e.g. 300), or a fraction of the n(n-1)/2 pairs (times --repeats) written "
    "with a decimal point (e.g. 0.2; 1.0 is every pair)."
)
REPEATS_HELP = "The most measurements of one pair; above 1, uncertain pairs that matter are measured again (§2.5)."
BATCH_HELP = "Pairs chosen per eigen-update (the best ones)."
INTERLEAVE_HELP = "Alternate the strategy's pairs with random ones (the seed's interleave variants)."
N_CLUSTERS_HELP = "Number of clusters; more than 2 by recursive bisection of the largest cluster."
CUT_HELP = (
    "How the labels are read off each split: sign (of v2, the seed's rule), ratio (the best RatioCut threshold) "
    "or normalized (the normalized Laplacian's vector, best normalized cut)."
)
_FIXED = " Fixed when the session starts; a value that differs from the session's is refused."

ITEMS: Optional[Path] = typer.Option(
    None,
    "--items",
    help="The items table (a header row): the names in its first column, or --item-column. Needed to start a "
    "session; on a session started already it must name the same items, or be left out.",
    show_default=False,
)
ITEM_COLUMN: Optional[str] = typer.Option(None, "--item-column", help="The column of --items holding the names.")
BUDGET: Optional[str] = typer.Option(
    None, "--budget", help=BUDGET_HELP + " Default 0.1." + _FIXED + " (paucity cluster-session extend raises it.)",
    show_default=False,
)
BATCH_SIZE: Optional[int] = typer.Option(
    None,
    "--batch-size",
    help="The most pairs waiting for an answer at once, all annotators together; new pairs are chosen by one "
    "eigen-update when fewer wait. At least the number of people answering at the same time (default 20)." + _FIXED,
    show_default=False,
)
STRATEGY: Optional[str] = typer.Option(None, "--strategy", help=STRATEGY_HELP + " Default iu-red." + _FIXED,
                                       show_default=False)
REPEATS: Optional[int] = typer.Option(None, "--repeats", help=REPEATS_HELP + " Default 1." + _FIXED,
                                      show_default=False)
INTERLEAVE: Optional[bool] = typer.Option(None, "--interleave/--no-interleave", help=INTERLEAVE_HELP + _FIXED,
                                          show_default=False)
N_CLUSTERS: Optional[int] = typer.Option(None, "--n-clusters", help=N_CLUSTERS_HELP + " Default 2." + _FIXED,
                                         show_default=False)
RANDOM_STATE: Optional[int] = typer.Option(
    None, "--random-state", help="Seed of the random choices (drawn when not given)." + _FIXED, show_default=False
)
CUT: Optional[str] = typer.Option(
    None, "--cut", help=CUT_HELP + " It changes the clusters shown, not the pairs asked. Default sign." + _FIXED,
    show_default=False,
)
PRICE: Optional[float] = typer.Option(
    None, "--price", help="The price of one answer, for the session's cost (default 0)." + _FIXED, show_default=False
)


def strategy_name(text: str) -> str:
    """``--strategy`` as the library names it (iu-red -> iu_red)."""
    key = text.strip().lower().replace("_", "-")
    if key not in STRATEGIES:
        raise ParameterError(f"--strategy must be iu-red, shamir-tishby or random, got {text!r}.")
    return STRATEGIES[key]


def parse_budget(text: str):
    """An integer budget (measurements), or a fraction written with a decimal point."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ParameterError(
            f"--budget must be a number of measurements (e.g. 300) or a fraction of the pairs (e.g. 0.2), got {text!r}."
        ) from None


def session_settings(*, strategy=None, budget=None, batch_size=None, repeats=None, interleave=None, n_clusters=None,
                     random_state=None, price=None, cut=None) -> dict:
    """The session's keyword arguments from the options' values (each None when not given)."""
    if interleave and strategy is not None and strategy_name(strategy) == "random":
        raise ParameterError(
            "--interleave alternates the strategy's pairs with random ones, so with --strategy random it changes "
            "nothing; leave --interleave out or choose another --strategy."
        )
    return {
        "strategy": None if strategy is None else strategy_name(strategy),
        "budget": None if budget is None else parse_budget(budget),
        "batch_size": batch_size,
        "repeats": repeats,
        "interleave": interleave,
        "n_clusters": n_clusters,
        "random_state": random_state,
        "price": price,
        "cut": cut,
    }


def open_or_explain(database: str, **settings):
    """``ClusteringSession.open``; on a database with no session, say that --items starts one."""
    from ..clustering import ClusteringSession

    try:
        return ClusteringSession.open(database, **settings)
    except Exception as error:
        if "holds no session" in str(error):
            raise ParameterError(
                f"{database} holds no session yet; give --items (the names of the items to cluster) to start one."
            ) from None
        raise

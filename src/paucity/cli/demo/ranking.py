"""The tour's ranking stop: a small synthetic league ranked from few noisy games (seed 000 ch. 3, seed 003 ch. 5)."""

from __future__ import annotations


def run(out, console) -> str:
    """Rank a small synthetic BTL league with every method; returns the report's paragraph."""
    import warnings

    import numpy as np
    import pandas as pd
    from rich.table import Table

    from ... import io
    from ..._errors import InputError
    from ...datasets import btl_comparisons, btl_scores
    from ...ranking import metrics, rank

    console.rule("[bold]Who is the best team? Ranking from few, noisy games")
    n_teams, n_games = 60, 480
    strength = btl_scores(n_teams, random_state=7)  # log-weights v ~ U[0, 5], as in the seed's §3.4
    teams = [f"team {k:02d}" for k in range(n_teams)]
    games = btl_comparisons(strength, n_games, items=teams, random_state=8)
    rng = np.random.default_rng(9)
    held = rng.random(n_games) < 0.25
    train, test = games.subset(~held), games.subset(held)
    truth = pd.Series(strength, index=pd.Index(teams))
    console.print(
        f"A league of {n_teams} teams with hidden BTL strengths; {train.n_comparisons} games to learn from "
        f"(about {2 * train.n_comparisons / n_teams:.0f} per team) and {test.n_comparisons} held out."
    )
    methods = [
        ("RankCentrality", "rank_centrality", {}),
        ("RankCentrality, λ = 1/n", "rank_centrality", {"regularization": "uniform"}),
        ("BTL maximum likelihood", "btl", {}),
        ("BTL, alpha = 1", "btl", {"alpha": 1.0}),
        ("BRE (counting)", "bre", {"random_state": 0}),
        ("URE (counting)", "ure", {"random_state": 0}),
    ]
    view = Table(title="Kendall tau-b against the true strengths, and error on held-out games")
    for column in ("method", "tau-b", "held-out error", "top 3"):
        view.add_column(column, justify="left" if column in ("method", "top 3") else "right")
    rows = []
    for label, method, params in methods:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the non-ergodic chain is reported in the table
                table = rank(train, method, **params).to_frame()
        except InputError as error:
            rows.append((label, None, None, str(error).split(":")[0]))
            continue
        scores = table["score"].reindex(teams)
        tau = metrics.kendall_tau_b(scores, truth)
        error = metrics.held_out_error(scores, test)
        uniform = np.allclose(table["score"], table["score"].iloc[0])
        note = "chain not ergodic: uniform scores" if uniform else ", ".join(table.index[:3])
        rows.append((label, tau, error, note))
    for label, tau, error, note in rows:
        view.add_row(label, "-" if tau is None or np.isnan(tau) else f"{tau:.3f}", "-" if error is None else f"{error:.1%}", note)
    console.print(view)
    console.print("(the full guide is docs/ranking.md; rank a file of your own with `paucity rank games.csv ...`)")
    io.write_csv(pd.DataFrame(rows, columns=["method", "kendall_tau_b", "held_out_error", "note"]), out / "ranking_league.csv", index=False)
    undefined = [label for label, tau, _, note in rows if tau is None or np.isnan(tau)]
    if undefined:
        sparse_note = (
            "With this few games some team won (or lost) all of its games, so the directed comparison graph is not "
            f"strongly connected and {' and '.join(undefined)} give no ranking: RankCentrality returns the uniform "
            "distribution (Algorithm 6) and the BTL maximum likelihood estimate does not exist. The regularized "
            "estimators and the counting estimators rank anyway."
        )
    else:
        sparse_note = "Every method could rank from these games."
    lines = [
        "",
        "## Who is the best team? Ranking from few, noisy games",
        "",
        f"A synthetic league of {n_teams} teams with BTL strengths v ~ U[0, 5] (seed 000, §3.4): "
        f"{train.n_comparisons} games to learn from, {test.n_comparisons} held out. " + sparse_note,
        "",
        "| method | Kendall tau-b | held-out error | top 3 / note |",
        "|---|---:|---:|---|",
    ]
    for label, tau, error, note in rows:
        tau_text = "-" if tau is None or np.isnan(tau) else f"{tau:.3f}"
        error_text = "-" if error is None else f"{error:.1%}"
        lines.append(f"| {label} | {tau_text} | {error_text} | {note} |")
    lines.append("")
    return "\n".join(lines)

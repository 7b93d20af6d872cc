"""``paucity demo``: the tour of what paucity does, on data that ships with the install."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from ._command import one_line_errors


def demo(
    out: Path = typer.Option(Path("paucity-demo"), "--out", "-o", help="Folder for the report and figures."),
    n_features: int = typer.Option(10, "-n", "--n-features", help="Markers per method."),
) -> None:
    """Run the tour on scanpy's bundled PBMC data: tables here, figures and a report in --out."""
    with one_line_errors():
        _tour(out, n_features)


def _tour(out: Path, n_features: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from .. import io
    from ..datasets import pbmc68k_reduced
    from ..info import discretize
    from ..markers import select

    console = Console()
    out.mkdir(parents=True, exist_ok=True)
    adata = pbmc68k_reduced()
    groupby = "bulk_labels"
    console.rule("[bold]paucity demo: which genes explain PBMC cell types?")
    console.print(
        f"scanpy's bundled pbmc68k_reduced: {adata.n_obs} cells x {adata.raw.n_vars} genes (log-normalized, .raw), "
        f"{adata.obs[groupby].nunique()} cell types in obs['{groupby}']."
    )
    start = time.perf_counter()
    binned = discretize(adata.raw.X, n_bins=5)
    console.print(
        f"Recursive-quantile binning into 5 bins: {binned.nnz} non-zero bins kept sparse "
        f"({time.perf_counter() - start:.2f} s)."
    )

    results = {}
    for method in ("cife", "jmi", "mim"):
        start = time.perf_counter()
        table = select(adata, groupby, method=method, n_features=n_features, key_added=f"paucity_{method}")
        results[method] = (table, time.perf_counter() - start)
    start = time.perf_counter()
    binary = select(adata, groupby, method="cife", mode="binary", n_features=n_features, key_added="paucity_cife_binary")
    results["cife (binary)"] = (binary, time.perf_counter() - start)

    overview = Table(title=f"Top {n_features} markers of {groupby} (bits of information when chosen)")
    overview.add_column("rank", justify="right")
    for name in results:
        overview.add_column(name.upper() if "(" not in name else name)
    for rank in range(n_features):
        row = [str(rank + 1)]
        for table, _ in results.values():
            row.append(f"{table['gene'][rank]} ({table['score'][rank]:.3f})" if rank < len(table) else "")
        overview.add_row(*row)
    console.print(overview)
    console.print("  ".join(f"{name}: {seconds:.2f} s" for name, (_, seconds) in results.items()))

    figure_path = out / "markers_heatmap.png"
    _heatmap(adata, groupby, results, figure_path, np)
    benchmark = _benchmark_stop(adata, groupby, out, console)
    ranking = _ranking_stop(out, console)
    differences = _differences_stop(adata, out, console)
    judgments = _judgments_stop(out, console)
    report = (_report(adata, groupby, results, n_features, figure_path.name) + benchmark + ranking + differences
              + judgments)
    io.write_text(report, out / "report.md")
    for name, (table, _) in results.items():
        io.write_csv(table, out / f"markers_{name.replace(' ', '_').replace('(', '').replace(')', '')}.csv", index=False)
    console.print(f"Figures, tables and report written to [bold]{out}/[/bold] (open report.md).")


def _benchmark_stop(adata, groupby, out, console) -> str:
    """A small version of the cross-validation benchmark (seed 000, §2.6.2); returns the report's paragraph."""
    from rich.table import Table

    from .. import io
    from ..markers.benchmark import run_benchmark
    from ..markers.benchmark_plots import error_table, plot_error_curves

    console.rule("[bold]Do the markers predict the cell type of unseen cells?")
    methods = ["mim", "cife", "cife-binary", "t-test_overestim_var", "random"]
    start = time.perf_counter()
    # .raw holds log1p of normalized counts; expm1 gives back counts for the protocol's own scaling
    result = run_benchmark(
        adata.raw.X.expm1(),
        adata.obs[groupby].to_numpy(),
        n_markers=[5, 10],
        n_folds=3,
        run_folds=[0],
        methods=methods,
        full_data=False,
        feature_names=adata.raw.var_names,
    )
    seconds = time.perf_counter() - start
    tables = {classifier: error_table(result.table, classifier) for classifier in ("random_forest", "nearest_centroids")}
    view = Table(title="error rate on fold 1 of 3 (markers chosen on the other two folds only)")
    view.add_column("method")
    for classifier, errors in tables.items():
        short = "forest" if classifier == "random_forest" else "centroids"
        for column in errors.columns:
            view.add_column(f"{short} {column}", justify="right")
    for label in tables["random_forest"].index:
        view.add_row(label, *[cell for errors in tables.values() for cell in errors.loc[label].tolist()])
    console.print(view)
    console.print(f"({seconds:.1f} s; the full protocol is `paucity markers-benchmark`, see docs/markers-benchmark.md)")
    figure = plot_error_curves(result.table, "random_forest", title="random forest on fold 1 of 3: error against markers")
    io.write_figure(figure, out / "benchmark_errors.png", dpi=100)

    summary = result.summary()
    forest = summary[summary["classifier"] == "random_forest"].set_index(["method", "mode", "n_requested"])["error_rate"]
    lines = [
        "",
        "## Do the markers predict the cell type of unseen cells?",
        "",
        "A small version of the seed's cross-validation (§2.6.2): the cells are split into 3 stratified folds; on "
        "two of them each method chooses 5 and 10 genes, a random forest (100 trees, counts scaled to 1,000 per "
        "cell, log1p) and a nearest-centroid classifier (log1p, top principal components) are trained on those "
        "genes, and both predict the cell type of the third fold. Binary methods take ⌈n/c⌉ genes per cell type, "
        "so with 10 types they use 10 genes (fewer after duplicates) even when 5 are asked for.",
        "",
        "![benchmark](benchmark_errors.png)",
        "",
        "| method | " + " | ".join(f"{c.replace('_', ' ')} {n}" for c in tables for n in tables[c].columns) + " |",
        "|---|" + "---:|" * sum(len(t.columns) for t in tables.values()),
    ]
    for label in tables["random_forest"].index:
        lines.append(f"| {label} | " + " | ".join(cell for t in tables.values() for cell in t.loc[label].tolist()) + " |")
    lines += [
        "",
        f"With 10 genes the random forest errs on {forest[('mim', 'multiclass', 10)]:.0%} of the held-out cells with "
        f"MIM's genes, {forest[('cife', 'multiclass', 10)]:.0%} with CIFE's and {forest[('cife', 'binary', 10)]:.0%} "
        f"with binary CIFE's, against {forest[('random', 'multiclass', 10)]:.0%} with 10 random genes. "
        f"One fold of {result.folds.test_indices(0).size} cells is a noisy estimate: run `paucity markers-benchmark` for all folds, more marker "
        "counts and methods.",
        "",
    ]
    return "\n".join(lines)


def _ranking_stop(out, console) -> str:
    """Rank a small synthetic BTL league with every method; returns the report's paragraph."""
    import warnings

    import numpy as np
    import pandas as pd
    from rich.table import Table

    from .. import io
    from .._errors import InputError
    from ..datasets import btl_comparisons, btl_scores
    from ..ranking import metrics, rank

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
                table = rank(train, method, **params)
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


def _differences_stop(adata, out, console) -> str:
    """SPARDA between two PBMC cell types, with and without marginal normalization, beside a t-test (seed 004)."""
    import warnings

    import anndata
    import numpy as np
    import pandas as pd
    import scanpy as sc
    from rich.table import Table

    from .. import io
    from ..differences import compare

    groupby, first, second = "bulk_labels", "CD14+ Monocyte", "Dendritic"
    k, max_iter = 10, 300
    console.rule("[bold]How do monocytes and dendritic cells differ? Principal differences")
    genes = adata.var_names[adata.var["highly_variable"].to_numpy()]
    # RELAX costs an eigendecomposition of a genes x genes matrix per iteration: the tour uses the
    # highly variable genes (their log-normalized values from .raw) to stay short
    panel = anndata.AnnData(adata.raw[:, genes].X, obs=adata.obs[[groupby]].copy(), var=pd.DataFrame(index=genes))
    sizes = adata.obs[groupby].value_counts()
    console.print(
        f"{sizes[first]} {first} cells against {sizes[second]} {second} cells, on the {len(genes)} highly variable "
        f"genes: SPARDA keeps the k = {k} genes of the direction along which the two groups differ most "
        "(squared Wasserstein distance), first on the expression itself, then after centring and scaling every "
        "gene within each group (marginal normalization: no gene then differs in mean or variance)."
    )
    fits = {}
    for label, normalize in (("SPARDA", False), ("SPARDA, normalized", True)):
        start = time.perf_counter()
        table = compare(
            panel, groupby, first, second, k=k, marginal_normalize=normalize, max_iter=max_iter, random_state=0,
            key_added="pda_normalized" if normalize else "pda",
        )
        divergence = panel.uns["pda_normalized" if normalize else "pda"]["divergence"]
        fits[label] = (table, divergence, time.perf_counter() - start)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scanpy's notes on the data's log base and on ties
        sc.tl.rank_genes_groups(
            adata, groupby, groups=[first], reference=second, method="t-test", use_raw=True,
            n_genes=adata.raw.n_vars, key_added="differences_t-test",
        )
    ranked = sc.get.rank_genes_groups_df(adata, group=first, key="differences_t-test")
    ranked = ranked[ranked["names"].isin(genes)]
    ttest = ranked.loc[ranked["scores"].abs().sort_values(ascending=False, kind="stable").index].head(k)
    ttest_seconds = time.perf_counter() - start

    view = Table(title=f"Top {k} genes: {first} against {second}")
    view.add_column("rank", justify="right")
    for label in (*fits, "t-test |t|"):
        view.add_column(label)
    columns = [
        [f"{row.gene} ({row.weight:+.3f})" for row in table.itertuples()] for table, _, _ in fits.values()
    ] + [[f"{row.names} ({row.scores:+.1f})" for row in ttest.itertuples()]]
    for rank in range(k):
        view.add_row(str(rank + 1), *[column[rank] if rank < len(column) else "" for column in columns])
    console.print(view)
    top_t = set(ttest["names"])
    shared = {label: [gene for gene in table["gene"] if gene in top_t] for label, (table, _, _) in fits.items()}
    plain, normalized = (fits[label][0] for label in fits)
    both = [gene for gene in plain["gene"] if gene in set(normalized["gene"])]
    console.print(
        f"Shared with the t-test's top {k}: {len(shared['SPARDA'])} of SPARDA's genes"
        f" ({', '.join(shared['SPARDA']) or 'none'}), {len(shared['SPARDA, normalized'])} after marginal normalization"
        f" ({', '.join(shared['SPARDA, normalized']) or 'none'}); {len(both)} genes in both SPARDA lists. "
        + "  ".join(f"{label}: {seconds:.1f} s" for label, (_, _, seconds) in fits.items())
        + f"  t-test: {ttest_seconds:.1f} s"
    )
    # the share of cells in which a gene is not detected: centring and scaling leaves it as it is
    zeros = {}
    for group in (first, second):
        rows = (panel.obs[groupby] == group).to_numpy()
        detected = np.asarray((panel.X[rows] != 0).sum(axis=0)).ravel()
        zeros[group] = pd.Series(1.0 - detected / rows.sum(), index=genes)
    frame = pd.concat(
        [
            table.assign(analysis=label)[["analysis", "rank", "gene", "weight", f"mean_{first}", f"mean_{second}"]]
            for label, (table, _, _) in fits.items()
        ]
        + [
            ttest.assign(analysis="t-test", rank=range(1, len(ttest) + 1))
            .rename(columns={"names": "gene", "scores": "t"})[["analysis", "rank", "gene", "t"]]
        ],
        ignore_index=True,
    )
    for group in (first, second):
        frame[f"zero_share_{group}"] = zeros[group].reindex(frame["gene"]).round(4).to_numpy()
    io.write_csv(frame, out / "differences_monocytes_dendritic.csv", index=False)

    gap = (zeros[first] - zeros[second]).abs()
    shape = [gene for gene in normalized["gene"] if gap[gene] >= 0.3]
    joint = [gene for gene in normalized["gene"] if gap[gene] < 0.1]
    console.print(
        "After normalization, undetected in shares of cells 30+ points apart (a difference of shape that "
        f"normalization keeps): {', '.join(shape) or 'none'}; detected alike (within 10 points): "
        f"{', '.join(joint) or 'none'}."
    )
    console.print(
        "(the full guide is docs/differences.md; test whether two groups differ with "
        "`paucity differences cells.h5ad --groupby ... --groups A B --k 10 --permutations 200`)"
    )
    fewer = len(shared["SPARDA, normalized"]) < len(shared["SPARDA"])
    lines = [
        "",
        "## How do monocytes and dendritic cells differ? Principal differences",
        "",
        "SPARDA (seed 004, Mueller & Jaakkola) finds the sparse unit direction β along which the projected "
        "expression of two groups of cells differs most in squared Wasserstein distance, so a gene can weigh in "
        "for a shift in its mean, a change in its spread or shape, or a change in how it moves with other genes. "
        f"Here `paucity.differences.compare` compares the {sizes[first]} {first} cells with the {sizes[second]} "
        f"{second} cells of `obs['{groupby}']` on the {len(genes)} highly variable genes (log-normalized values "
        f"from `.raw`), keeping k = {k} genes ({max_iter} iterations of the relaxation, to keep the tour short). "
        "The second run first centres and scales every gene within each group (the seed's marginally "
        "normalized analysis), so that no gene differs in mean or variance any more. Beside them, scanpy's "
        f"t-test ({first} against {second}, the same genes, by |t|) ranks genes one at a time by their shift "
        "in mean.",
        "",
        "| rank | SPARDA (weight) | SPARDA, marginally normalized (weight) | t-test (t) |",
        "|---:|---|---|---|",
    ]
    for rank in range(k):
        lines.append(f"| {rank + 1} | " + " | ".join(column[rank] if rank < len(column) else "" for column in columns) + " |")
    lines += [
        "",
        f"{len(shared['SPARDA'])} of SPARDA's {len(plain)} genes are among the t-test's top {k}"
        f" ({', '.join(shared['SPARDA']) or 'none'}); after marginal normalization "
        f"{len(shared['SPARDA, normalized'])} are ({', '.join(shared['SPARDA, normalized']) or 'none'}), and "
        f"{len(both)} genes are in both SPARDA lists. The projected divergence is "
        f"{fits['SPARDA'][1]:.3g} on the expression and {fits['SPARDA, normalized'][1]:.3g} after normalization. "
        + (
            "As on the seed's mouse cortex against hippocampus (three of SPARDA's ten genes among limma's top "
            "ten), normalization moves SPARDA away from the genes a test of means finds. "
            if fewer
            else "Unlike on the seed's mouse cortex against hippocampus, normalization does not move SPARDA away "
            "from the genes a test of means finds. "
        )
        + "Centring and scaling removes a gene's mean and variance but not the shape of its distribution, and "
        "in sparse single-cell data the share of cells in which a gene is not detected is part of that shape"
        + (
            f": {', '.join(shape)} {'is' if len(shape) == 1 else 'are'} undetected in a share of cells that "
            "differs by 30 points or more between the groups, a difference normalization keeps"
            if shape
            else ""
        )
        + "."
        + (
            f" {', '.join(joint)} {'is' if len(joint) == 1 else 'are'} detected in nearly the same share of cells "
            "in both groups (within 10 points): after normalization their weight more likely reflects how they "
            "vary together with the other genes of the direction, the gene-gene relationships the seed's "
            "analysis looks for."
            if joint
            else ""
        ),
        "",
        "Signs follow β, whose first non-zero entry is positive; each gene's group means and share of cells "
        "without it are in `differences_monocytes_dendritic.csv`. Whether two groups differ at all is a "
        "permutation test that refits SPARDA on every random split: `paucity differences cells.h5ad --groupby "
        f"{groupby} --groups \"{first}\" {second} --k {k} --permutations 200 --out result.json`.",
        "",
    ]
    return "\n".join(lines)


def _judgments_stop(out, console) -> str:
    """Which crowd judgments to buy, and how many of each, within a budget (seed 002); returns the report's part."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd
    from rich.table import Table

    from .. import io
    from ..datasets import simulate_crowd
    from ..judgments import Judgments, MultiSelectRegressor

    console.rule("[bold]Which crowd judgments are worth buying? Feature multi-selection")
    # a simulated crowd guessing heights from photos: binary and numeric judgments, each noisy in its own way
    names = {"a0": "looks tall", "a1": "height guess", "a2": "long legs", "a3": "shoe size guess",
             "a4": "broad shoulders", "a5": "age guess", "a6": "smiling", "a7": "hair length"}
    crowd = simulate_crowd(200, 8, judgments=2, correlation=0.3, binary=[True, False] * 4, noise=0.5,
                           random_state=11)
    test = crowd.new_objects(1000, judgments=0, random_state=12)
    most = 24
    rename = {"attribute": names}
    training = crowd.judgments.replace(rename)
    collected = pd.concat([training, crowd.draw(None, most, random_state=13).replace(rename)], ignore_index=True)
    judged = Judgments(test.draw(None, most, random_state=14).replace(rename))
    training, collected = Judgments(training), Judgments(collected)
    console.print(
        f"{crowd.n_objects} photos with known heights, each judged twice on {len(names)} attributes (4 yes/no, "
        f"4 numeric guesses; simulated). For a new photo we can pay for B judgments: which attributes, how many "
        f"times each? Test: {test.n_objects} new photos."
    )
    budgets = [2, 4, 6, 8, 12, 16, 24]
    algorithms = {"full": "Full", "scoring": "Scoring", "averages": "Averages", "copies": "Copies"}
    errors = {name: [] for name in algorithms}
    projected = []
    for budget in budgets:
        for algorithm in algorithms:
            model = MultiSelectRegressor(budget=budget, algorithm=algorithm).fit(training, crowd.labels)
            if algorithm == "full":
                projected.append(model.projected_loss())
            model.refit(collected, crowd.labels)
            prediction = model.predict(judged)
            errors[algorithm].append(float(np.mean((prediction[test.labels.index] - test.labels) ** 2)))
    curve = Table(title="Test squared error against the budget (judgments per new photo)")
    curve.add_column("budget", justify="right")
    for label in algorithms.values():
        curve.add_column(label, justify="right")
    curve.add_column("Full, projected", justify="right")
    for i, budget in enumerate(budgets):
        best = min(algorithms, key=lambda a: errors[a][i])
        cells = [f"[bold]{errors[a][i]:.3f}[/bold]" if a == best else f"{errors[a][i]:.3f}" for a in algorithms]
        curve.add_row(str(budget), *cells, f"{projected[i]:.3f}")
    console.print(curve)

    chosen_budget = 12
    model = MultiSelectRegressor(budget=chosen_budget).fit(training, crowd.labels)
    needed = model.judgments_needed()
    model.refit(collected, crowd.labels)
    plan = pd.DataFrame({
        "attribute": model.attributes_,
        "judgments": model.repeats_.to_numpy(),
        "coefficient": model.coef_.to_numpy(),
        "correlation with height": model.moments_.correlation,
        "internal variance": model.moments_.internal_variance,
    }).sort_values(["judgments", "attribute"], ascending=[False, True])
    view = Table(title=f"Full's plan for a budget of {chosen_budget} judgments per photo")
    for column in ("attribute", "judgments", "coefficient", "b̂ (correlation)", "v̂ (internal variance)"):
        view.add_column(column, justify="left" if column == "attribute" else "right")
    for row in plan.itertuples(index=False):
        view.add_row(row[0], str(row[1]), f"{row[2]:.3f}" if row[1] else "-", f"{row[3]:.3f}", f"{row[4]:.3f}")
    console.print(view)
    console.print(
        f"Before buying: {len(needed)} more judgments across the {crowd.n_objects} training photos "
        f"(`judgments_needed`); projected loss {model.projected_loss():.3f} against {model.projected_loss({}):.3f} "
        "with no judgment. (Guide: docs/judgments.md; plan from files with `paucity multiselect`.)"
    )

    fig, ax = plt.subplots(figsize=(6, 4))
    for algorithm, label in algorithms.items():
        ax.plot(budgets, errors[algorithm], marker="o", label=label)
    ax.plot(budgets, projected, linestyle="--", color="grey", label="Full, projected loss")
    ax.set_xlabel("budget (judgments per new photo)")
    ax.set_ylabel("test squared error")
    ax.set_title("Feature multi-selection on a simulated crowd")
    ax.legend()
    fig.tight_layout()
    io.write_figure(fig, out / "judgments_budget.png", dpi=120)
    plt.close(fig)
    io.write_csv(plan, out / "judgments_plan.csv", index=False)
    io.write_csv(pd.DataFrame({"budget": budgets, **{algorithms[a]: errors[a] for a in algorithms},
                               "Full, projected loss": projected}), out / "judgments_budget.csv", index=False)

    wins = sum(errors["full"][i] <= min(errors["averages"][i], errors["copies"][i]) for i in range(len(budgets)))
    lines = [
        "",
        "## Which crowd judgments are worth buying? Feature multi-selection",
        "",
        f"A simulated crowd judges {crowd.n_objects} photos twice on {len(names)} attributes (seed 002): four yes/no "
        "questions and four numeric guesses, correlated, each with its own internal noise; the last two do not "
        f"enter the height but are correlated with attributes that do. For a budget of B judgments per new photo, each algorithm chooses how many judgments of "
        "each attribute to buy; the training photos are then judged that many times, least squares is fitted on "
        f"the means, and {test.n_objects} new photos judged the same way are predicted.",
        "",
        "| budget | " + " | ".join(algorithms.values()) + " | Full, projected loss |",
        "|---:|" + "---:|" * (len(algorithms) + 1),
    ]
    for i, budget in enumerate(budgets):
        lines.append(f"| {budget} | " + " | ".join(f"{errors[a][i]:.3f}" for a in algorithms)
                     + f" | {projected[i]:.3f} |")
    lines += [
        "",
        f"Full's error is at most both baselines' at {wins} of {len(budgets)} budgets. Its plan for "
        f"B = {chosen_budget}:",
        "",
        "| attribute | judgments | coefficient | b̂ | v̂ |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in plan.itertuples(index=False):
        lines.append(f"| {row[0]} | {row[1]} | {f'{row[2]:.3f}' if row[1] else '-'} | {row[3]:.3f} | {row[4]:.3f} |")
    lines += ["", "![Test error against the budget](judgments_budget.png)", ""]
    return "\n".join(lines)


def _heatmap(adata, groupby, results, path, np):
    import matplotlib.pyplot as plt

    from .. import io

    groups = adata.obs[groupby].cat.categories
    methods = ["cife", "jmi"]
    fig, axes = plt.subplots(1, len(methods), figsize=(6.5 * len(methods), 4.8), constrained_layout=True)
    raw = adata.raw
    for ax, method in zip(axes, methods):
        genes = results[method][0]["gene"].tolist()
        columns = raw.var_names.get_indexer(genes)
        X = raw.X[:, columns]
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        means = np.vstack([X[(adata.obs[groupby] == g).to_numpy()].mean(axis=0) for g in groups])
        scaled = means / np.maximum(means.max(axis=0, keepdims=True), 1e-12)
        image = ax.imshow(scaled, aspect="auto", cmap="viridis", vmin=0, vmax=1)
        ax.set_xticks(range(len(genes)), genes, rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(len(groups)), groups, fontsize=8)
        ax.set_title(f"{method.upper()} markers: mean expression per cell type")
    fig.colorbar(image, ax=axes, shrink=0.8, label="mean expression / gene maximum")
    io.write_figure(fig, path, dpi=120)
    plt.close(fig)


def _report(adata, groupby, results, n_features, figure_name) -> str:
    lines = [
        "# paucity demo",
        "",
        f"Data: scanpy's bundled `pbmc68k_reduced` ({adata.n_obs} cells x {adata.raw.n_vars} genes, log-normalized "
        f"`.raw`), labels `obs['{groupby}']`. Each method selected {n_features} genes greedily after binning every gene "
        "into 5 recursive-quantile bins; scores are the objective, in bits, when the gene was chosen.",
        "",
        f"![markers]({figure_name})",
        "",
        "| rank | " + " | ".join(results) + " |",
        "|---:|" + "---|" * len(results),
    ]
    for rank in range(n_features):
        cells = [
            f"{table['gene'][rank]} ({table['score'][rank]:.3f})" if rank < len(table) else ""
            for table, _ in results.values()
        ]
        lines.append(f"| {rank + 1} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "How to read it: MIM ranks genes one at a time and so stacks up the monocyte and HLA class II family, "
        "which all carry the same information. JMI and CIFE subtract what the chosen genes already say about the "
        "cell type (the I(x; s; y) terms) and move on to NK (NKG7), T (CD3D) and B (CD79A) markers. After a few "
        "genes CIFE's scores rise instead of falling: on 700 cells its estimates of I(x; s; y) from 5 x 5 x 10 "
        "count tables are biased below zero, which CIFE reads as synergy, so its later picks are weak; the seed "
        "(chapter 2, conclusion) reports CIFE strongest for small panels, as here. Binary mode runs CIFE for "
        "each cell type against the rest and merges the lists round robin (here one gene per type, duplicates removed).",
        "",
        "Timings: " + ", ".join(f"{name} {seconds:.2f} s" for name, (_, seconds) in results.items()) + ".",
        "",
    ]
    return "\n".join(lines)

"""The tour's differences stop: how monocytes and dendritic cells differ, by SPARDA (seed 004)."""

from __future__ import annotations

from ..._compile import Stopwatch


def run(adata, out, console) -> str:
    """SPARDA between two PBMC cell types, with and without marginal normalization, beside a t-test (seed 004)."""
    import warnings

    import anndata
    import numpy as np
    import pandas as pd
    import scanpy as sc
    from rich.table import Table

    from ... import io
    from ...differences import StoredDifferences, compare

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
        f"genes: SPARDA keeps the n_features = {k} genes of the direction along which the two groups differ most "
        "(squared Wasserstein distance), first on the expression itself, then after centring and scaling every "
        "gene within each group (marginal normalization: no gene then differs in mean or variance)."
    )
    fits = {}
    for label, normalize in (("SPARDA", False), ("SPARDA, normalized", True)):
        clock = Stopwatch()
        key = "paucity_differences_normalized" if normalize else "paucity_differences"
        compare(
            panel, groupby, first, second, n_features=k, marginal_normalize=normalize, max_iter=max_iter,
            random_state=0, key_added=key,
        )
        stored = StoredDifferences.read(panel, key)
        table = stored.to_frame().rename(  # the report's words for the getter's columns
            columns={"names": "gene", "weights": "weight", "ranks": "rank", "means_x": f"mean_{first}",
                     "means_y": f"mean_{second}"}
        )
        fits[label] = (table, stored.statistic, clock.seconds)
    clock = Stopwatch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scanpy's notes on the data's log base and on ties
        sc.tl.rank_genes_groups(
            adata, groupby, groups=[first], reference=second, method="t-test", use_raw=True,
            n_genes=adata.raw.n_vars, key_added="differences_t-test",
        )
    ranked = sc.get.rank_genes_groups_df(adata, group=first, key="differences_t-test")
    ranked = ranked[ranked["names"].isin(genes)]
    ttest = ranked.loc[ranked["scores"].abs().sort_values(ascending=False, kind="stable").index].head(k)
    ttest_seconds = clock.seconds

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
        "`paucity differences cells.h5ad --groupby ... --groups A B --n-features 10 --n-permutations 200`)"
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
        f"from `.raw`), keeping n_features = {k} genes ({max_iter} iterations of the relaxation, to keep the tour short). "
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
        f"{groupby} --groups \"{first}\" {second} --n-features {k} --n-permutations 200 --out result.json`.",
        "",
    ]
    return "\n".join(lines)

"""The tour's judgments stop: which crowd judgments to buy within a budget (seed 002)."""

from __future__ import annotations


def run(out, console) -> str:
    """Which crowd judgments to buy, and how many of each, within a budget (seed 002); returns the report's part."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd
    from rich.table import Table

    from ... import io
    from ...datasets import simulate_crowd
    from ...judgments import Judgments, MultiSelectRegressor

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

"""docs/fidelity.md: every figure, table and worked example of the seeds has a row, and every capability
page links to it."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
FIDELITY = DOCS / "fidelity.md"
CAPABILITY_PAGES = ("markers.md", "markers-benchmark.md", "ranking.md", "differences.md", "judgments.md")
STATUSES = ("reproduced", "reproduced in part", "on a stand-in", "not reproduced")

# The seeds' captions, read from their texts (seed 004's slides number nothing: their captions' words).
SEED_ITEMS = {
    "000": [
        "Table 2.1",
        *(f"Example {i}" for i in range(1, 10)),
        *(f"Figure 2.{i}" for i in range(1, 14)),
        *(f"Table 2.{i}" for i in range(2, 6)),
        "Table 3.1",
        "§3.5 worked example",
        *(f"Figure 3.{i}" for i in range(1, 7)),
    ],
    "002": [*(f"Figure {i}" for i in range(1, 9)), "Table 1", "Table 2", "Theorem 3.1", "Theorem 3.2"],
    "003": [
        *(f"Figure 2.{i}" for i in range(1, 7)),
        "Table 2.1",
        "Table 2.2",
        "Figure 3.1",
        "Figure 3.2",
        "Table 3.1",
        *(f"Figure 4.{i}" for i in range(1, 5)),
        "Figure 5.1(a)",
        "Figure 5.1(b)",
        "Figure 5.1(c)",
    ],
    "004": [
        "PDA objective for two 3-dimensional Gaussian distributions",
        "Feature Selection: Results",
        "Two-sample Testing: Results",
        "Genes with the greatest weight in the projection produced by SPARDA",
        "marginally normalized data",
    ],
}


def seed_tables(text: str) -> dict[str, list[tuple[str, str]]]:
    """(item, status) of each row of each seed's table, by seed number."""
    tables: dict[str, list[tuple[str, str]]] = {}
    seed = None
    for line in text.splitlines():
        heading = re.match(r"## Seed (\d{3})", line)
        if heading:
            seed = heading.group(1)
            tables[seed] = []
        elif line.startswith("## "):
            seed = None
        elif seed and line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if cells[0] != "item":
                tables[seed].append((cells[0], cells[1]))
    return tables


def test_every_capability_page_links_to_fidelity():
    missing = [page for page in CAPABILITY_PAGES if "(fidelity.md)" not in (DOCS / page).read_text()]
    assert not missing, f"these pages do not link to fidelity.md: {missing}"


@pytest.mark.parametrize("seed", sorted(SEED_ITEMS))
def test_every_seed_item_has_a_row_with_a_status(seed):
    tables = seed_tables(FIDELITY.read_text())
    assert tables.get(seed), f"docs/fidelity.md has no table for seed {seed}"
    rows = tables[seed]
    for item in SEED_ITEMS[seed]:
        statuses = [status for name, status in rows if item in name and re.search(rf"{re.escape(item)}(?![\d(])", name)]
        assert statuses, f"seed {seed}: no row for {item!r}"
        assert all(status in STATUSES for status in statuses), f"seed {seed}, {item}: status {statuses}"


def test_every_row_has_a_status_and_a_reason():
    for seed, rows in seed_tables(FIDELITY.read_text()).items():
        for name, status in rows:
            assert name, f"seed {seed}: a row without an item"
            assert status in STATUSES, f"seed {seed}, {name}: status {status!r} is not one of {STATUSES}"


def test_the_tuning_section_is_there():
    assert "## Tuning and reporting draws" in FIDELITY.read_text()

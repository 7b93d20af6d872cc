"""The marker explorer in a real headless Chromium, as a person would use it (Debian's chromium, driven by Playwright).

Skipped, with the reason, when Playwright or chromium is missing: ``make test`` installs Debian's chromium
where apt can be used. ``PAUCITY_CHROMIUM`` names another chromium executable;
``PAUCITY_UPDATE_SCREENSHOTS=1`` rewrites the stored screenshot instead of comparing with it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REFERENCE = Path(__file__).parent / "markers_main.png"
VIEWPORT = {"width": 1280, "height": 800}
#: Screenshots are compared as means over BLOCK x BLOCK pixel squares: antialiasing and hinting move glyph
#: edges by a pixel, which a block's mean barely sees, while a moved word or a changed table changes it.
BLOCK = 4
#: A block differs when a channel of its mean is off by more than this (of 255).
CHANNEL_TOLERANCE = 48
#: The share of blocks that may differ. Measured here: turning off subpixel glyph positioning changes 0.15% of
#: the blocks (1.7% of single pixels); one more gene in the selection changes 2.7%.
PIXEL_TOLERANCE = 0.01


def _chromium() -> str | None:
    return os.environ.get("PAUCITY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright: pip install playwright")
    executable = _chromium()
    if executable is None:
        pytest.skip("browser tests need Debian's chromium (apt-get install chromium, or `make test` as root)")
    with sync_api.sync_playwright() as playwright:
        args = ["--font-render-hinting=none", "--force-color-profile=srgb", "--hide-scrollbars", "--disable-gpu"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # chromium's sandbox refuses to run as root
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=args)
        except Exception as exc:  # a chromium that cannot start here (missing libraries, no /dev/shm...)
            pytest.skip(f"chromium at {executable} did not start: {str(exc).splitlines()[0]}")
        yield launched
        launched.close()


@pytest.fixture
def served(tmp_path):
    """pbmc68k_reduced written to a file and served by the explorer from a thread; yields (url, path)."""
    pytest.importorskip("scanpy", reason="the browser tests use scanpy's bundled pbmc68k_reduced")
    import anndata

    from paucity.datasets import pbmc68k_reduced
    from paucity.web import MarkerExplorer, markers_app
    from paucity.web.server import BackgroundServer

    path = tmp_path / "pbmc68k.h5ad"
    pbmc68k_reduced().write_h5ad(path)
    explorer = MarkerExplorer(anndata.read_h5ad(path), "bulk_labels", path=path)
    with BackgroundServer(markers_app(explorer)) as server:
        yield server.url, path


@pytest.fixture
def page(browser, served):
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, accept_downloads=True)
    page = context.new_page()
    page.goto(served[0])
    page.wait_for_selector("body[data-ready=true]")
    yield page
    context.close()


def selection(page) -> list[str]:
    return page.eval_on_selector_all("#selection li", "items => items.map(li => li.dataset.gene)")


def wait_for_selection(page, count: int) -> list[str]:
    page.wait_for_function(f"document.querySelectorAll('#selection li').length === {count}")
    return selection(page)


def wait_until_drawn(page) -> None:
    """Every picture loaded and the cross-validation line filled in."""
    page.wait_for_function(
        "Array.from(document.images).every(img => img.hidden || (img.complete && img.naturalWidth > 0))"
        " && document.getElementById('cv').textContent.includes('folds')"
    )


def test_open_add_remove_switch_take_undo_and_export(page, served):
    import anndata

    url, path = served
    first = page.get_attribute("#candidates tbody tr:first-child", "data-gene")
    page.click("#candidates tbody tr:first-child button.add")
    assert wait_for_selection(page, 1) == [first]
    assert first not in page.eval_on_selector_all("#candidates tbody tr", "rows => rows.map(r => r.dataset.gene)")

    page.fill("#search", "CST")
    page.wait_for_selector("#search-results li:has-text('CST3')")
    page.click("#search-results li:has-text('CST3') button")
    assert wait_for_selection(page, 2) == [first, "CST3"]

    page.click(f"#selection li[data-gene='{first}'] button.remove")
    assert wait_for_selection(page, 1) == ["CST3"]

    page.select_option("#method", "jmi")
    page.wait_for_selector("#message:has-text('Scoring by JMI, all groups')")
    page.select_option("#target", "CD14+ Monocyte")
    page.wait_for_selector("#message:has-text('CD14+ Monocyte vs rest')")

    page.fill("#take-k", "2")
    page.click("#take-form button")
    taken = wait_for_selection(page, 3)
    assert taken[0] == "CST3"
    page.click("#undo")
    assert wait_for_selection(page, 1) == ["CST3"]

    gene = page.get_attribute("#candidates tbody tr:nth-child(2)", "data-gene")
    page.click("#candidates tbody tr:nth-child(2) td.gene")
    page.wait_for_selector(f"#gene-name:has-text('{gene}')")
    assert f"gene={gene}" in page.get_attribute("#box", "src")
    page.click("#candidates tbody tr:nth-child(2) button.add")
    assert wait_for_selection(page, 2) == ["CST3", gene]
    page.click(f"#selection li[data-gene='{gene}'] button[title='move up']")
    page.wait_for_function(f"document.querySelector('#selection li').dataset.gene === '{gene}'")
    shown = selection(page)
    assert shown == [gene, "CST3"]

    page.click("#export-h5ad")
    page.wait_for_selector("#message:has-text('Saved 2 genes')")
    stored = anndata.read_h5ad(path).uns["paucity_markers"]
    assert list(stored["names"]) == shown
    assert stored["params"]["method"] == "jmi" and stored["params"]["target"] == "CD14+ Monocyte"
    assert anndata.read_h5ad(str(path) + ".bak").n_obs == 700

    with page.expect_download() as download:
        page.click("#export-csv")
    table = pd.read_csv(download.value.path())
    assert table["names"].tolist() == shown
    assert table["step"].tolist() == [1, 2]


def test_an_error_is_shown_and_the_page_stays_usable(page):
    page.fill("#take-k", "100000")
    page.click("#take-form button")
    page.wait_for_selector("#message.error:has-text('k must be')")
    assert selection(page) == []
    page.click("#candidates tbody tr:first-child button.add")
    wait_for_selection(page, 1)


def test_main_view_looks_as_stored(page, tmp_path):
    from PIL import Image

    wait_until_drawn(page)
    shot = tmp_path / "markers_main.png"
    page.screenshot(path=str(shot), animations="disabled", caret="hide")
    if os.environ.get("PAUCITY_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(shot, REFERENCE)
        pytest.skip(f"reference screenshot rewritten: {REFERENCE.name}")
    assert REFERENCE.exists(), "no stored screenshot; run with PAUCITY_UPDATE_SCREENSHOTS=1 to store one"
    actual, expected = blocks(Image.open(shot)), blocks(Image.open(REFERENCE))
    assert actual.shape == expected.shape, f"screenshot is {actual.shape}, the stored one {expected.shape}"
    differing = float((np.abs(actual - expected).max(axis=2) > CHANNEL_TOLERANCE).mean())
    assert differing <= PIXEL_TOLERANCE, (
        f"{differing:.1%} of the {BLOCK}x{BLOCK} blocks differ from {REFERENCE.name} (at most "
        f"{PIXEL_TOLERANCE:.0%}); the new screenshot is {shot}"
    )


def blocks(image) -> np.ndarray:
    """The image's mean colour over each BLOCK x BLOCK square."""
    pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
    h, w = pixels.shape[0] // BLOCK, pixels.shape[1] // BLOCK
    return pixels[: h * BLOCK, : w * BLOCK].reshape(h, BLOCK, w, BLOCK, 3).mean(axis=(1, 3))

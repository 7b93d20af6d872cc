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
ANNOTATE_REFERENCE = Path(__file__).parent / "annotate_page.png"
VIEWPORT = {"width": 1280, "height": 800}
#: Screenshots are compared as means over BLOCK x BLOCK pixel squares: antialiasing and hinting move glyph
#: edges by a pixel, which a block's mean barely sees, while a moved word or a changed table changes it.
BLOCK = 4
#: A block differs when a channel of its mean is off by more than this (of 255).
CHANNEL_TOLERANCE = 48
#: The share of blocks that may differ. Measured here: turning off subpixel glyph positioning changes 0.15% of
#: the blocks (1.7% of single pixels); one more gene in the selection changes 2.7%.
PIXEL_TOLERANCE = 0.01
#: The explorer's access token in these tests (``paucity serve markers`` makes a random one).
TOKEN = "expl0rer-t0ken"


@pytest.fixture
def served(tmp_path):
    """pbmc68k_reduced written to a file and served by the explorer from a thread, behind its token as
    ``paucity serve markers`` serves it; yields (url with the token, path)."""
    pytest.importorskip("scanpy", reason="the browser tests use scanpy's bundled pbmc68k_reduced")
    import anndata

    from paucity.datasets import pbmc68k_reduced
    from paucity.serve import MarkerExplorer, markers_app
    from paucity.serve.server import BackgroundServer

    path = tmp_path / "pbmc68k.h5ad"
    pbmc68k_reduced().write_h5ad(path)
    explorer = MarkerExplorer(anndata.read_h5ad(path), "bulk_labels", path=path)
    with BackgroundServer(markers_app(explorer, token=TOKEN, local_only=True)) as server:
        yield f"{server.url}?token={TOKEN}", path


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
    page.wait_for_function(f"() => document.querySelectorAll('#selection li').length === {count}")
    return selection(page)


def wait_until_drawn(page) -> None:
    """Every picture loaded and the cross-validation line filled in."""
    page.wait_for_function(
        "() => Array.from(document.images).every(img => img.hidden || (img.complete && img.naturalWidth > 0))"
        " && document.getElementById('cv').textContent.includes('folds')"
    )


def test_the_page_loads_nothing_from_outside_the_server(browser, served):
    """No CDN, no font service: every request the page makes, pictures included, goes to this server."""
    url = served[0]
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    page.click("#candidates tbody tr:first-child td.gene button")
    wait_until_drawn(page)
    context.close()
    origin = url.split("?")[0].rstrip("/")
    outside = [address for address in requested if not address.startswith((origin + "/", "data:"))]
    assert any("/api/plot/box.svg" in address for address in requested), requested
    assert not outside, outside


def test_open_add_remove_switch_take_undo_and_export(page, served):
    import anndata

    from paucity.markers import MarkerResult

    url, path = served
    first = page.get_attribute("#candidates tbody tr:first-child", "data-gene")
    page.click("#candidates tbody tr:first-child button.add")
    assert wait_for_selection(page, 1) == [first]
    assert first not in page.eval_on_selector_all("#candidates tbody tr", "rows => rows.map(r => r.dataset.gene)")

    page.fill("#search", "CST")
    page.wait_for_selector("#search-results li:has-text('CST3')")
    page.click("#search-results li:has-text('CST3') button.add")
    assert wait_for_selection(page, 2) == [first, "CST3"]

    page.click(f"#selection li[data-gene='{first}'] button.remove")
    assert wait_for_selection(page, 1) == ["CST3"]

    page.select_option("#method", "jmi")
    page.click("#apply-objective")
    page.wait_for_selector("#message:has-text('Scoring by JMI, all groups')")
    page.select_option("#target", "CD14+ Monocyte")
    page.click("#apply-objective")
    page.wait_for_selector("#message:has-text('CD14+ Monocyte vs rest')")

    page.fill("#take-k", "2")
    page.click("#take-form button")
    taken = wait_for_selection(page, 3)
    assert taken[0] == "CST3"
    page.click("#undo")
    assert wait_for_selection(page, 1) == ["CST3"]

    gene = page.get_attribute("#candidates tbody tr:nth-child(2)", "data-gene")
    page.click("#candidates tbody tr:nth-child(2) td.gene button")
    page.wait_for_selector(f"#gene-name:has-text('{gene}')")
    assert f"gene={gene}" in page.get_attribute("#box", "src")
    page.click("#candidates tbody tr:nth-child(2) button.add")
    assert wait_for_selection(page, 2) == ["CST3", gene]
    page.click(f"#selection li[data-gene='{gene}'] button.up")
    page.wait_for_function(f"() => document.querySelector('#selection li').dataset.gene === '{gene}'")
    shown = selection(page)
    assert shown == [gene, "CST3"]

    page.click("#export-h5ad")
    page.wait_for_selector("#message:has-text('Saved 2 genes')")
    stored = MarkerResult.read(anndata.read_h5ad(path))
    assert list(stored.names) == shown
    assert stored.params["method"] == "jmi" and stored.params["target"] == "CD14+ Monocyte"
    assert anndata.read_h5ad(str(path) + ".bak").n_obs == 700

    with page.expect_download() as download:
        page.click("#export-csv")
    table = pd.read_csv(download.value.path())
    assert table["names"].tolist() == shown
    assert table["step"].tolist() == [1, 2]


def test_an_unsupervised_objective_scores_no_group(page):
    page.select_option("#target", "CD19+ B")
    page.click("#apply-objective")
    page.wait_for_selector("#message:has-text('CD19+ B vs rest')")
    page.select_option("#method", "entropy")
    assert page.is_disabled("#target")
    page.click("#apply-objective")
    page.wait_for_selector("#message:has-text('Scoring by ENTROPY, all groups')")
    assert page.is_disabled("#target") and page.input_value("#target") == ""
    page.select_option("#method", "cife")
    page.click("#apply-objective")
    page.wait_for_selector("#message:has-text('Scoring by CIFE')")
    assert page.is_enabled("#target")


def test_an_error_is_shown_and_the_page_stays_usable(page):
    page.fill("#take-k", "100000")
    page.click("#take-form button")
    page.wait_for_selector("#message.error:has-text('k must be')")
    assert selection(page) == []
    page.click("#candidates tbody tr:first-child button.add")
    wait_for_selection(page, 1)


def test_two_annotators_at_once_and_a_restart_after_a_crash(browser, tmp_path):
    from paucity.clustering import MeasurementStore

    from .conftest import Served

    media = tmp_path / "photos"
    media.mkdir()
    rows = ["item,text,image"]
    for k in range(10):
        image = ""
        if k < 4:
            (media / f"scene{k}.svg").write_text(
                f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120"><rect width="200" height="120" '
                f'fill="#56B4E9"/><text x="20" y="60">scene {k}</text></svg>'
            )
            image = f"scene{k}.svg"
        rows.append(f"photo{k},a photo of scene {k},{image}")
    items = tmp_path / "items.csv"
    items.write_text("\n".join(rows) + "\n")
    database = tmp_path / "photos.db"
    command = ["serve", "annotate", str(database), "--items", str(items), "--media", str(media), "--budget", "20",
               "--batch-size", "4", "--random-state", "0", "--price", "0.05"]

    def open_pages(url):
        pages = {}
        for who in ("alice", "bob"):
            context = browser.new_context(viewport={"width": 1100, "height": 760})
            page = context.new_page()
            page.goto(f"{url}?annotator={who}")
            page.wait_for_function("() => document.body.dataset.pair")
            pages[who] = page
        return pages

    def answer(page, key):
        before = page.evaluate("document.body.dataset.pair")
        page.keyboard.press(key)
        page.wait_for_function(f"() => document.body.dataset.pair !== {before!r}")
        return frozenset(before.split("|"))

    shown = {"alice": [], "bob": []}
    served = Served(*command)
    try:
        pages = open_pages(served.url)
        images = pages["alice"].eval_on_selector_all("img", "imgs => imgs.filter(i => !i.hidden).map(i => i.src)")
        assert all("/media/scene" in src for src in images)
        for step in range(3):
            on_screen = {who: frozenset(page.evaluate("document.body.dataset.pair").split("|")) for who, page in pages.items()}
            assert on_screen["alice"] != on_screen["bob"]  # never the same pair to both at once
            shown["alice"].append(answer(pages["alice"], "7"))
            shown["bob"].append(answer(pages["bob"], str(step)))
        skipped = answer(pages["alice"], "s")
        for page in pages.values():
            page.context.close()
        served.kill()  # a crash: no chance to clean up
        table = MeasurementStore(database).measurements()
        assert table["source"].value_counts().to_dict() == {"alice": 3, "bob": 3}

        served = Served(*command)  # started again as it was
        pages = open_pages(served.url)
        pages["alice"].wait_for_selector("#who:has-text('3 answered')")
        shown["alice"].append(answer(pages["alice"], "9"))
        shown["bob"].append(answer(pages["bob"], "9"))
        assert skipped not in shown["alice"]
        for who, pairs in shown.items():
            assert len(pairs) == len(set(pairs)), who

        coordinator = pages["alice"].context.new_page()
        coordinator.goto(coordinator_link(served))  # a new token each run
        coordinator.wait_for_selector("body[data-ready=true]")
        assert coordinator.inner_text("dd[data-key='answers']") == "8 of a budget of 20"
        assert coordinator.inner_text("dd[data-key='cost so far']") == "0.40"
        assert coordinator.locator(".cluster").count() == 2
    finally:
        served.stop()
    table = MeasurementStore(database).measurements()
    assert len(table) == 8 and table.groupby(["i", "j"]).size().max() == 1


def coordinator_link(served) -> str:
    """The coordinator's link ``paucity serve annotate`` printed (``coordinator: <base>coordinator?token=...``)."""
    line = served.wait_for_line("coordinator:")
    assert line is not None, served.lines
    return line.split()[1]


def test_main_view_looks_as_stored(page, tmp_path):
    wait_until_drawn(page)
    compare_with_stored(page, tmp_path, REFERENCE, figure=Path(__file__).parents[2] / "docs" / "figures" / "serve_markers.png")


def test_annotation_page_looks_as_stored(browser, tmp_path):
    from paucity.serve import AnnotationSession, annotate_app
    from paucity.serve.server import BackgroundServer

    table = pd.DataFrame({"item": [f"photo{k}" for k in range(8)],
                          "text": [f"A kitchen with {k + 1} chair(s) by the window" for k in range(8)]})
    session = AnnotationSession(tmp_path / "look.db", table, budget=10, batch_size=2, random_state=0)
    with BackgroundServer(annotate_app(session)) as server:
        context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
        page = context.new_page()
        page.goto(server.url + "?annotator=alice")
        page.wait_for_function("() => document.body.dataset.pair")
        compare_with_stored(page, tmp_path, ANNOTATE_REFERENCE)
        context.close()


def compare_with_stored(page, tmp_path, reference: Path, *, figure: Path | None = None) -> None:
    """A screenshot of the page against the stored one (rewritten with PAUCITY_UPDATE_SCREENSHOTS=1, and copied to
    the guide's ``figure`` when one is given)."""
    from PIL import Image

    shot = tmp_path / reference.name
    page.screenshot(path=str(shot), animations="disabled", caret="hide")
    if os.environ.get("PAUCITY_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(shot, reference)
        if figure is not None:
            shutil.copyfile(shot, figure)
        pytest.skip(f"reference screenshot rewritten: {reference.name}")
    assert reference.exists(), f"no stored {reference.name}; run with PAUCITY_UPDATE_SCREENSHOTS=1 to store one"
    actual, expected = blocks(Image.open(shot)), blocks(Image.open(reference))
    assert actual.shape == expected.shape, f"screenshot is {actual.shape}, the stored one {expected.shape}"
    differing = float((np.abs(actual - expected).max(axis=2) > CHANNEL_TOLERANCE).mean())
    assert differing <= PIXEL_TOLERANCE, (
        f"{differing:.1%} of the {BLOCK}x{BLOCK} blocks differ from {reference.name} (at most "
        f"{PIXEL_TOLERANCE:.0%}); the new screenshot is {shot}"
    )


def blocks(image) -> np.ndarray:
    """The image's mean colour over each BLOCK x BLOCK square."""
    pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
    h, w = pixels.shape[0] // BLOCK, pixels.shape[1] // BLOCK
    return pixels[: h * BLOCK, : w * BLOCK].reshape(h, BLOCK, w, BLOCK, 3).mean(axis=(1, 3))

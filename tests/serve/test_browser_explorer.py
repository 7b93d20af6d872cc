"""The marker explorer in a real headless Chromium: it picks up a saved selection, asks before it replaces another,
works by keyboard, changes the objective only when asked, names the genes of its history, explains a score,
drops stale cross-validations, follows another tab, and fits a phone.

Skipped, with the reason, when Playwright or chromium is missing (see ``conftest.browser``).
"""

from __future__ import annotations

import time

import anndata
import pytest

from paucity.markers import get

from .conftest import Served

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: The explorer's access token in these tests (``paucity serve markers`` makes a random one).
TOKEN = "expl0rer-t0ken"


def served_app(explorer):
    """The explorer's app behind its token, as ``paucity serve markers`` serves it on 127.0.0.1."""
    from paucity.serve import markers_app

    return markers_app(explorer, token=TOKEN, local_only=True)


def open_page(browser, url, viewport=DESKTOP, settle=True):
    """The page, loaded; with ``settle``, once its first pictures, explanation and cross-validation are in."""
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    if settle:
        settled(page, 0)
    return page


def settled_count(page) -> int:
    return int(page.evaluate("() => document.body.dataset.settledCount || 0"))


def settled(page, after: int) -> None:
    """Wait until the page has settled (every request and picture a change started is in and drawn) more than
    ``after`` times."""
    page.wait_for_function(f"() => document.body.dataset.settled === 'true' && "
                           f"Number(document.body.dataset.settledCount) > {after}")


def selection(page) -> list[str]:
    return page.eval_on_selector_all("#selection li", "items => items.map(li => li.dataset.gene)")


def wait_for_selection(page, count: int) -> list[str]:
    page.wait_for_function(f"() => document.querySelectorAll('#selection li').length === {count}")
    return selection(page)


def focused(page) -> str | None:
    """The data-focus name of the focused control (or the id of a focused heading)."""
    return page.evaluate("() => document.activeElement.dataset.focus || document.activeElement.id || null")


@pytest.fixture
def explorer_server(h5ad_path):
    """An explorer on the small AnnData's file, served from a thread; yields (url with the token, explorer)."""
    from paucity.serve import MarkerExplorer
    from paucity.serve.server import BackgroundServer

    explorer = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    with BackgroundServer(served_app(explorer)) as server:
        yield f"{server.url}?token={TOKEN}", explorer


def test_a_saved_selection_is_there_when_the_file_is_opened_again(browser, h5ad_path):
    command = ["serve", "markers", str(h5ad_path), "--groupby", "cell_type"]
    served = Served(*command)
    try:
        page = open_page(browser, served.url)
        assert page.is_hidden("#restored-note")
        page.select_option("#method", "jmi")
        page.select_option("#target", "T cell")
        page.click("#apply-objective")
        page.wait_for_selector("#message:has-text('T cell vs rest')")
        page.click("#candidates tbody tr:first-child button.add")
        wait_for_selection(page, 1)
        page.fill("#take-k", "2")
        page.click("#take-form button")
        saved = wait_for_selection(page, 3)
        page.click("#export-h5ad")
        page.wait_for_selector("#message:has-text('Saved 3 genes')")
        page.context.close()
    finally:
        served.stop()
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == saved

    served = Served(*command)  # the file opened again, as the next morning
    try:
        assert "Took up the 3 gene(s)" in served.wait_for_line("Took up")
        page = open_page(browser, served.url)
        assert selection(page) == saved
        assert page.is_visible("#restored-note")
        assert 'Opened with the 3 gene(s) saved under uns["paucity_markers"]' in page.inner_text("#restored-note")
        assert page.input_value("#method") == "jmi" and page.input_value("#target") == "T cell"
        history = page.eval_on_selector_all("#history-table tbody tr", "rows => rows.map(r => r.innerText)")
        assert "opened from the file" in history[0] and len(history) == 5  # the log came back with the genes
        page.click("#candidates tbody tr:first-child button.add")
        wait_for_selection(page, 4)
        page.click("#export-h5ad")  # its own saved selection: replaced without a question
        page.wait_for_selector("#message:has-text('Saved 4 genes')")
        assert page.is_hidden("#save-dialog")
        page.context.close()
    finally:
        served.stop()
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist()[:3] == saved


def test_save_asks_before_replacing_another_selection(browser, h5ad_path, explorer_server):
    from paucity.serve import MarkerExplorer
    from paucity.serve.server import BackgroundServer

    url, _ = explorer_server
    other = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)  # opened while the file held none
    first = open_page(browser, url)
    first.click("#candidates tbody tr:first-child button.add")
    kept = wait_for_selection(first, 1)
    first.click("#export-h5ad")
    first.wait_for_selector("#message:has-text('Saved 1 genes')")

    with BackgroundServer(served_app(other)) as server:
        page = open_page(browser, f"{server.url}?token={TOKEN}")
        page.click("#candidates tbody tr:nth-child(3) button.add")
        mine = wait_for_selection(page, 1)
        page.click("#export-h5ad")
        page.wait_for_selector("#save-dialog[open]")
        assert "already holds another selection under 'paucity_markers'" in page.inner_text("#save-dialog-text")
        assert focused(page) == "save-as"
        page.keyboard.press("Escape")
        page.wait_for_selector("#message:has-text('Not saved.')")
        assert page.evaluate("() => document.activeElement.id") == "export-h5ad"
        assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == kept

        page.keyboard.press("Enter")  # Save, by keyboard
        page.wait_for_selector("#save-dialog[open]")
        assert page.inner_text("#save-as") == 'Save under "paucity_markers_2"'
        page.keyboard.press("Enter")
        page.wait_for_selector("#message:has-text('Saved 1 genes under uns[\"paucity_markers_2\"]')")
        back = anndata.read_h5ad(h5ad_path)
        assert get(back)["names"].tolist() == kept
        assert get(back, "paucity_markers_2")["names"].tolist() == mine
        page.context.close()
    first.context.close()


def test_genes_open_by_keyboard_and_focus_stays_where_the_person_acted(browser, explorer_server):
    page = open_page(browser, explorer_server[0])
    first, second = page.eval_on_selector_all("#candidates tbody tr", "rows => rows.slice(0, 2).map(r => r.dataset.gene)")
    page.focus("#candidates tbody tr:nth-child(2) button.gene-link")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#gene-name:has-text('{second}')")
    assert f"gene={second}" in page.get_attribute("#box", "src")
    assert focused(page) == f"show-candidate:{second}"

    page.keyboard.press("Shift+Tab")  # back to the first row's Add, then add it
    assert focused(page) == f"add:{first}"
    page.keyboard.press("Enter")
    assert wait_for_selection(page, 1) == [first]
    now_first = page.get_attribute("#candidates tbody tr:first-child", "data-gene")
    assert focused(page) == f"add:{now_first}"  # the next candidate's Add, where the person was
    page.keyboard.press("Enter")
    assert wait_for_selection(page, 2) == [first, now_first]

    page.focus(f"#selection li[data-gene='{first}'] button.down")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('#selection li:last-child').dataset.gene === '{first}'")
    assert focused(page) == f"move-up:{first}"  # its Down is disabled at the bottom: focus stays on the gene's row
    page.focus(f"#selection li[data-gene='{first}'] button.gene-link")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#gene-name:has-text('{first}')")
    page.focus(f"#selection li[data-gene='{now_first}'] button.remove")
    page.keyboard.press("Enter")
    assert wait_for_selection(page, 1) == [first]
    assert focused(page) == f"remove:{first}"
    page.keyboard.press("Enter")
    wait_for_selection(page, 0)
    assert focused(page) == "selection-title"
    page.context.close()


def test_the_objective_changes_only_when_applied(browser, explorer_server):
    url, explorer = explorer_server
    page = open_page(browser, url)
    posted = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
    page.focus("#method")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("() => !document.getElementById('apply-objective').disabled")
    # a request that picking had started would hold the page unsettled until it was answered
    page.wait_for_function("() => document.body.dataset.settled === 'true'")
    assert posted == [] and explorer.method == "cife"
    picked = page.input_value("#method")
    assert picked != "cife"
    page.focus("#apply-objective")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#message:has-text('Scoring by {picked.upper()}')")
    assert explorer.method == picked and [u.split("?")[0].rsplit("/", 1)[-1] for u in posted] == ["objective"]
    assert page.is_disabled("#apply-objective")
    page.context.close()


def test_the_history_names_each_gene_and_a_score_is_explained(browser, explorer_server):
    page = open_page(browser, explorer_server[0])
    page.fill("#take-k", "3")
    page.click("#take-form button")
    taken = wait_for_selection(page, 3)
    rows = page.eval_on_selector_all("#history-table tbody tr", "rows => rows.map(r => r.cells[2].innerText)")
    assert rows == taken[::-1]  # newest first
    assert page.eval_on_selector("#history-table", "t => t.caption.innerText") == "Changes, newest first"
    svg = page.evaluate("async () => (await fetch(document.getElementById('history').src)).text()")
    assert all(f">{gene}</text>" in svg for gene in taken)  # the plot names them too

    candidate = page.get_attribute("#candidates tbody tr:first-child", "data-gene")
    score = page.inner_text("#candidates tbody tr:first-child td:nth-child(2)")
    page.click("#candidates tbody tr:first-child button.gene-link")
    page.wait_for_selector(f"#explain-title:has-text('Why {candidate} scores {score} bits (CIFE)')")
    terms = page.eval_on_selector_all("#explain-table tbody th", "cells => cells.map(c => c.innerText)")
    assert terms == ["relevance I(gene; groups)"] + [f"with {gene}" for gene in taken]
    assert page.inner_text("#explain-total") == score
    assert page.inner_text("#explain-note")
    page.context.close()


def test_a_stale_cross_validation_is_cancelled(browser, explorer_server):
    url, explorer = explorer_server
    original = explorer.cross_validated_error

    def slow(*args, **kwargs):
        time.sleep(1.0)
        return original(*args, **kwargs)

    explorer.cross_validated_error = slow
    page = open_page(browser, url, settle=False)  # the first page's cross-validation is still on its way
    failed = []
    page.on("requestfailed", lambda request: failed.append((request.url, request.failure)))
    page.click("#candidates tbody tr:first-child button.add")
    wait_for_selection(page, 1)
    page.click("#candidates tbody tr:first-child button.add")
    final = wait_for_selection(page, 2)
    page.wait_for_selector("#cv:has-text('folds')", timeout=15000)
    cancelled = [url for url, _ in failed if "/api/cv" in url]
    assert len(cancelled) >= 2  # the first page's and the first add's were dropped for the newest
    assert explorer.cross_validated_error()["genes"] == final
    page.context.close()


def test_a_second_tab_sees_changes(browser, explorer_server):
    url, _ = explorer_server
    one, two = open_page(browser, url), open_page(browser, url)
    one.click("#candidates tbody tr:first-child button.add")
    added = wait_for_selection(one, 1)
    assert wait_for_selection(two, 1) == added
    two.wait_for_selector("#message:has-text('changed in another tab')")
    two.click("#undo")
    wait_for_selection(two, 0)
    wait_for_selection(one, 0)
    one.context.close()
    two.context.close()


def test_the_page_fits_a_phone(browser, explorer_server):
    page = open_page(browser, explorer_server[0], PHONE)
    page.click("#candidates tbody tr:first-child button.add")
    wait_for_selection(page, 1)
    page.click("#candidates tbody tr:first-child button.gene-link")
    page.wait_for_selector("#explain-table:not([hidden])")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    for selector in ("#apply-objective", "#export-h5ad", "#candidates tbody tr:first-child button.add"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], selector
    page.context.close()


def test_the_error_line_keeps_its_contrast(browser, explorer_server):
    """An error in the message line is readable: at least 4.5:1 on what is behind it (WCAG AA for its 14 px text),
    at a desktop's and a phone's width."""
    from .test_browser_crowd import contrast_of

    for viewport in (DESKTOP, PHONE):
        page = open_page(browser, explorer_server[0], viewport)
        problems = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" and "status of 400" not in m.text
                else None)
        page.fill("#take-k", "100000")
        page.click("#take-form button")
        page.wait_for_selector("#message.error:has-text('k must be')")
        assert contrast_of(page, "#message.error") >= 4.5
        assert contrast_of(page, "#message.error") == pytest.approx(6.12, abs=0.01)  # #A63D00 on #fafafa
        page.context.close()
        assert problems == []


def test_the_page_settles_after_each_change_with_everything_drawn(browser, explorer_server):
    """body[data-settled] turns true only once the change's answer, its pictures, the explanation and the
    cross-validation are in: what the benchmark's click-to-settled times measure."""
    page = open_page(browser, explorer_server[0])
    done = """() => ['box', 'embedding', 'history'].every(id => document.getElementById(id).complete)
                 && !document.getElementById('cv').textContent.includes('computing')"""
    assert page.evaluate(done)
    for act in ("#candidates tbody tr:first-child button.add", "#take-form button",
                "#candidates tbody tr:nth-child(2) button.gene-link", "#selection li:first-child button.remove",
                "#undo"):
        before = settled_count(page)
        page.click(act)
        assert page.evaluate("() => document.body.dataset.settled") == "false" or settled_count(page) > before
        settled(page, before)
        assert page.evaluate(done), act
    assert "folds" in page.inner_text("#cv")
    assert page.get_attribute("#history", "src").endswith(f"v={page.evaluate('() => document.body.dataset.version')}"
                                                          f"&token={TOKEN}")
    page.context.close()


def test_a_killed_server_is_said_in_words_and_its_selection_comes_back(browser, h5ad_path):
    from paucity.markers.explorer import journal_path

    command = ["serve", "markers", str(h5ad_path), "--groupby", "cell_type"]
    served = Served(*command)
    try:
        page = open_page(browser, served.url)
        page.fill("#take-k", "3")
        page.click("#take-form button")
        page.click("#selection li:nth-child(2) button.remove")
        chosen = wait_for_selection(page, 2)
        settled(page, 1)
    finally:
        served.kill()  # as a crash would: no save
    page.wait_for_selector("#server-gone:not([hidden])")  # the page's poll finds the server gone, without a click
    text = page.inner_text("#server-gone")
    assert "The explorer's server has stopped" in text and "Failed to fetch" not in text
    assert f"Your selection is not lost: every change was written to {journal_path(h5ad_path).name}" in text
    assert page.inner_text("#server-gone-command").endswith(f"{h5ad_path.name} --groupby cell_type")
    page.click("#candidates tbody tr:first-child button.add")  # acting meanwhile says the same, in words
    page.wait_for_selector("#message.error:has-text('The server has stopped')")
    assert "Failed to fetch" not in page.inner_text("#message")
    page.context.close()

    served = Served(*command)  # started again, as the page said
    try:
        page = open_page(browser, served.url)
        assert selection(page) == chosen
        note = page.inner_text("#restored-note")
        assert note.startswith("Took up the unsaved selection of 2 gene(s) kept in cells.h5ad.paucity-journal.json")
        history = page.eval_on_selector_all("#history-table tbody tr", "rows => rows.map(r => r.innerText)")
        assert "taken up after the server stopped" in history[0]
        page.click("#export-h5ad")
        page.wait_for_selector("#message:has-text('Saved 2 genes')")
        assert not journal_path(h5ad_path).exists()
        page.context.close()
    finally:
        served.stop()
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == chosen

"""The coordinator's review and the annotators' page in a real headless Chromium, at a desktop's and a phone's
width, by keyboard and by mouse: the pairs annotators disagree on, listed, sorted and decided; the rules saved from
the page and taking effect; gold feedback and an automatic pause explained; the notice pages of a revoked link and
of the coordinator's page without its token; request keys unique where crypto.randomUUID does not exist (a
plain-HTTP address on a lab network); the examples' pictures. Every page runs under its security policy without a
console error.

Skipped, with the reason, when Playwright or chromium is missing (see ``conftest.browser``).
"""

from __future__ import annotations

import re
import uuid

import httpx
import numpy as np
import pandas as pd
import pytest

from paucity.clustering import ClusteringSession, MeasurementStore

from .conftest import Served
from .test_browser_crowd import contrast_of

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TOKEN = "c00rd-review"
HEADER = "x-paucity-token"


def items(n=8) -> pd.DataFrame:
    return pd.DataFrame({"item": [f"photo{k}" for k in range(n)],
                         "text": [f"A kitchen with {k + 1} chair(s)" for k in range(n)]})


def open_page(browser, url, viewport=DESKTOP, *, allowed=(), init_script=None, **options):
    """A page in a context of its own, and the list its console errors and script errors are gathered in
    (``allowed``: texts of console errors this test expects, such as a refused request's status)."""
    context = browser.new_context(viewport=viewport, device_scale_factor=1, **options)
    if init_script:
        context.add_init_script(init_script)
    problems: list[str] = []

    def console(message):
        if message.type != "error" or message.location.get("url", "").endswith("/favicon.ico"):
            return
        if not any(text in message.text for text in allowed):
            problems.append(message.text)

    context.on("console", console)
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.goto(url)
    return page, problems


def coordinator(browser, base, viewport=DESKTOP, **options):
    page, problems = open_page(browser, f"{base}coordinator?token={TOKEN}", viewport, **options)
    page.wait_for_selector("body[data-ready=true]")
    return page, problems


def served_session(tmp_path, **settings):
    """An annotation session on 127.0.0.1 as ``paucity serve annotate`` starts it: open to annotators who type
    their name while nobody is invited, the coordinator's routes behind TOKEN."""
    from paucity.serve import AnnotationSession, annotate_app
    from paucity.serve.server import BackgroundServer

    database = tmp_path / "review.db"
    table = settings.pop("table", None)
    session = AnnotationSession(database, items() if table is None else table, **settings)
    server = BackgroundServer(annotate_app(session, token=TOKEN, local_only=True, open_when_uninvited=True))
    return database, session, server


def answer(base: str, who: str, value: int, *, headers=None) -> dict | None:
    """``who`` takes the pair on their screen and answers it (None when they have none)."""
    named = {} if headers else {"annotator": who}
    reply = httpx.post(base + "api/next", json=named, headers=headers).json()
    if reply["status"] != "pair":
        return None
    pair = reply["pair"]
    body = {**named, "i": pair["i"]["name"], "j": pair["j"]["name"], "value": value, "key": uuid.uuid4().hex}
    response = httpx.post(base + "api/answer", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def answer_until_they_disagree(base: str, answers: dict[str, int], *, coordinator_token: str = TOKEN) -> list[dict]:
    """The annotators answer in turn, each always the same value, until some pair has answers from two of them."""
    for _ in range(30):
        for who, value in answers.items():
            answer(base, who, value)
        found = httpx.get(base + "api/disagreements", headers={HEADER: coordinator_token}).json()
        if found["n_pairs"]:
            return found["pairs"]
    pytest.fail("no pair was answered by two annotators")


def inside_width(page, selector: str, width: int) -> list:
    """The controls matched that are not wholly within 0..width, with their boxes (empty: all are)."""
    outside = []
    for k in range(page.locator(selector).count()):
        control = page.locator(selector).nth(k)
        box = control.bounding_box()
        if box is None or box["x"] < 0 or box["x"] + box["width"] > width:
            outside.append((k, box))
        control.click(trial=True)  # visible, enabled, not covered: a click would reach it
    return outside


# ---------------------------------------------------------------------------------------------- disagreements
def test_disagreements_are_listed_sorted_and_decided_by_keyboard(browser, tmp_path):
    table = tmp_path / "items.csv"
    items().to_csv(table, index=False)
    database = tmp_path / "review.db"
    served = Served("serve", "annotate", str(database), "--items", str(table), "--repeats", "2", "--budget", "24",
                    "--batch-size", "2", "--random-state", "0", "--price", "0.05")
    try:
        base = served.url
        line = served.wait_for_line("coordinator:")
        link = re.search(r"(http://\S+)", line).group(1)
        token = link.split("token=")[1]
        pairs = answer_until_they_disagree(base, {"ann": 9, "bob": 0, "carol": 5}, coordinator_token=token)

        page, problems = open_page(browser, link)
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("#disagreements tbody tr")
        shown = page.eval_on_selector_all("#disagreements tbody tr", "rows => rows.map(r => r.dataset.pair)")
        assert shown == [f"{p['i']}|{p['j']}" for p in pairs]
        assert page.get_attribute("#disagreements th[data-sort='spread']", "aria-sort") == "descending"
        assert "answered by two or more annotators" in page.inner_text("#disagreements-note")

        page.focus("#disagreements th[data-sort='mean'] button")  # sort by keyboard
        page.keyboard.press("Enter")
        page.wait_for_selector("#disagreements th[data-sort='mean'][aria-sort='descending']")
        assert page.get_attribute("#disagreements th[data-sort='spread']", "aria-sort") is None
        means = page.eval_on_selector_all("#disagreements tbody tr td:nth-child(6)",
                                          "cells => cells.map(c => c.innerText)")
        assert means == sorted(means, key=float, reverse=True)

        first = page.locator("#disagreements tbody tr").first
        i, j = first.get_attribute("data-pair").split("|")
        first.locator("select").focus()
        page.keyboard.press("7")  # a closed select takes the option typed
        assert first.locator("select").input_value() == "7"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Decide"
        page.keyboard.press("Enter")
        decided = page.locator(f"#disagreements tbody tr[data-pair='{i}|{j}'][data-decided='7']")
        decided.wait_for()
        assert "7 (by coordinator" in decided.locator("td:nth-child(7)").inner_text()
        assert page.evaluate("document.activeElement.dataset.focus").startswith("decide:")  # the focus stayed
        page.wait_for_selector("#message:has-text('decided 7')")
        with ClusteringSession.open(database) as session:
            stored = session.adjudications()
        assert len(stored) == 1 and {stored["i"][0], stored["j"][0]} == {i, j}
        assert stored["value"][0] == pytest.approx(7 / 9) and stored["by"][0] == "coordinator"

        page.keyboard.press("Tab")  # Take back, next to Decide
        assert page.evaluate("document.activeElement.textContent") == "Take back"
        page.keyboard.press("Enter")
        page.wait_for_selector(f"#disagreements tbody tr[data-pair='{i}|{j}']:not([data-decided])")
        with ClusteringSession.open(database) as session:
            assert len(session.adjudications()) == 0
        exports = page.eval_on_selector_all("#exports a", "links => links.map(a => a.getAttribute('href'))")
        assert all(f"token={token}" in href for href in exports) and any("payments.csv" in h for h in exports)
        page.context.close()

        notice, notice_problems = open_page(browser, base + "coordinator",  # the coordinator's page, no token
                                            allowed=("status of 401",))
        assert "coordinator's token" in notice.inner_text("#notice")
        assert notice.locator("#exports").count() == 0
        notice.context.close()
    finally:
        served.stop()
    assert problems == [] and notice_problems == []


def test_pause_revoke_and_decide_are_on_screen_at_a_phones_width(browser, tmp_path):
    database, session, server = served_session(tmp_path, budget=30, batch_size=2, repeats=2, random_state=0)
    with server:
        base = server.url
        answer_until_they_disagree(base, {"ann": 9, "bob": 0, "carol": 4})
        session.invite(["dave", "erin"])
        page, problems = coordinator(browser, base, PHONE, has_touch=True)
        page.wait_for_selector("#disagreements tbody tr")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        buttons = "#annotators button[data-focus^='pause:'], #annotators button[data-focus^='revoke:']"
        assert page.locator("#annotators button[data-focus^='pause:']").count() == 5
        assert page.locator("#annotators button[data-focus^='revoke:']").count() == 2
        assert inside_width(page, buttons, PHONE["width"]) == []
        decide = "#disagreements select, #disagreements button[data-focus^='decide:']"
        assert page.locator(decide).count() >= 2
        assert inside_width(page, decide, PHONE["width"]) == []

        page.locator("#annotators button[data-focus='pause:ann']").tap()
        page.wait_for_selector("#annotators tr[data-annotator='ann'] button[data-focus='resume:ann']")
        assert "paused by the coordinator" in page.inner_text("#annotators tr[data-annotator='ann'] td.state")
        for text in ("#annotators td.state .reason", "#annotators td.title", "#disagreements th.sortable button",
                     "#disagreements-note", "#annotators button[data-focus='resume:ann']"):
            assert contrast_of(page, text) >= 4.5, text
        page.focus("#annotators button[data-focus='pause:bob']")  # and by keyboard
        page.keyboard.press("Enter")
        page.wait_for_selector("#annotators tr[data-annotator='bob'] button[data-focus='resume:bob']")
        assert page.evaluate("document.activeElement.dataset.focus") == "resume:bob"  # the focus stayed in the row
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#annotators button[data-focus='revoke:erin']").tap()
        page.wait_for_selector("#annotators tr[data-annotator='erin'] td.state:has-text('revoked')")
        row = page.locator("#disagreements tbody tr").first
        i, j = row.get_attribute("data-pair").split("|")
        row.locator("select").select_option("3")
        row.locator("button[data-focus^='decide:']").tap()
        page.wait_for_selector(f"#disagreements tbody tr[data-pair='{i}|{j}'][data-decided='3']")
        take_back = page.locator(f"#disagreements tbody tr[data-pair='{i}|{j}'] button[data-focus^='take-back:']")
        assert inside_width(page, f"#disagreements tbody tr[data-pair='{i}|{j}'] button", PHONE["width"]) == []
        assert take_back.count() == 1
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.context.close()
    assert problems == []
    assert [session.session.state_of(name) for name in ("ann", "bob", "erin")] == ["paused", "paused", "revoked"]
    with ClusteringSession.open(database) as reopened:
        assert reopened.adjudications()["value"].tolist() == [pytest.approx(3 / 9)]


# ---------------------------------------------------------------------------------------------- rules
def test_rules_saved_from_the_page_take_effect(browser, tmp_path):
    database, session, server = served_session(tmp_path, budget=20, batch_size=2, random_state=0)
    with server:
        base = server.url
        answer(base, "ann", 6)
        page, problems = coordinator(browser, base, allowed=("status of 400",))
        assert page.input_value("#rule-quota") == "" and page.input_value("#rule-pause-after") == "5"
        page.fill("#rule-quota", "1")
        page.click("#rules-save")
        page.wait_for_selector("#message:has-text('Rules saved: quota 1 answers')")
        assert session.session.settings.quota == 1
        assert httpx.post(base + "api/next", json={"annotator": "ann"}).json()["status"] == "quota"

        annotator, annotator_problems = open_page(browser, base + "?annotator=ann", PHONE)
        annotator.wait_for_selector("#status:has-text('You have answered your share')")
        assert annotator.is_hidden("#task") and annotator.get_attribute("body", "data-status") == "quota"

        page.fill("#rule-pause-below", "150")  # 1.5: refused by the server, said in the message line
        page.focus("#rule-pause-below")
        page.keyboard.press("Enter")  # by keyboard: Enter in a field saves the form
        page.wait_for_selector("#message.error:has-text('Not saved')")
        assert "pause_below" in page.inner_text("#message")
        assert contrast_of(page, "#message.error") >= 4.5
        assert session.session.settings.pause_below is None and session.session.settings.quota == 1

        page.fill("#rule-quota", "")  # no limit again, and the pause rule on
        page.fill("#rule-pause-below", "70")
        page.fill("#rule-pause-after", "2")
        page.check("#rule-gold-feedback")
        page.click("#rules-save")
        page.wait_for_selector("#message:has-text('pause below 70 % after 2 gold answers, gold feedback on')")
        settings = session.session.settings
        rules = (settings.quota, settings.pause_below, settings.pause_after, settings.gold_feedback)
        assert rules == (None, 0.7, 2, True)
        annotator.reload()
        annotator.wait_for_function("() => document.body.dataset.pair")
        page.context.close()
        annotator.context.close()
    assert problems == [] and annotator_problems == []


def test_gold_feedback_and_an_automatic_pause_are_explained(browser, tmp_path):
    gold = pd.DataFrame({"i": ["photo0"], "j": ["photo1"], "answer": [9]})
    database, session, server = served_session(tmp_path, budget=20, batch_size=2, random_state=0, gold=gold,
                                               gold_rate=1.0)
    with server:
        base = server.url
        rules = {"gold_feedback": True, "pause_below": 0.7, "pause_after": 1}
        response = httpx.post(base + "api/settings", json=rules, headers={HEADER: TOKEN})
        assert response.json()["settings"]["pause_below"] == 0.7

        annotator, annotator_problems = open_page(browser, base + "?annotator=ann")
        annotator.wait_for_function("() => document.body.dataset.pair === 'photo0|photo1'")  # the gold pair first
        annotator.keyboard.press("2")
        annotator.wait_for_selector("#feedback:has-text('The expected answer to the last pair (photo0 and photo1) "
                                    "was 9; you gave 2.')")
        assert annotator.get_attribute("#feedback", "aria-live") == "polite"
        assert contrast_of(annotator, "#feedback") >= 4.5
        annotator.wait_for_selector("#status:has-text('Your work is on hold — paused automatically: 0 of 1 gold "
                                    "answers right')")
        assert annotator.is_hidden("#task")

        page, problems = coordinator(browser, base)
        ann = "#annotators tr[data-annotator='ann']"
        page.wait_for_selector(f"{ann} td.state:has-text('paused automatically')")
        page.focus(f"{ann} button[data-focus='resume:ann']")  # Resume stays for an automatic pause
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{ann} button[data-focus='pause:ann']")
        assert page.evaluate("document.activeElement.dataset.focus") == "pause:ann"  # the row kept the focus
        assert session.session.state_of("ann") == "active"
        annotator.reload()
        annotator.wait_for_function("() => document.body.dataset.pair")
        annotator.keyboard.press("5")  # a pair that is not gold: no feedback
        annotator.wait_for_selector("#status:has-text('Saved.')")
        assert annotator.inner_text("#feedback") == ""
        page.context.close()
        annotator.context.close()
    assert problems == [] and annotator_problems == []


# ---------------------------------------------------------------------------------------------- access
def test_a_revoked_link_and_the_coordinators_page_without_its_token_say_so(browser, tmp_path):
    database, session, server = served_session(tmp_path, budget=20, batch_size=2, random_state=0)
    with server:
        base = server.url
        links = session.invite(["alice", "bob"])
        alice, alice_problems = open_page(browser, f"{base}?token={links['alice']}", PHONE)
        alice.wait_for_function("() => document.body.dataset.pair")

        page, problems = coordinator(browser, base)
        page.once("dialog", lambda dialog: dialog.accept())
        page.focus("#annotators button[data-focus='revoke:alice']")
        page.keyboard.press("Enter")
        page.wait_for_selector("#annotators tr[data-annotator='alice'] td.state:has-text('revoked')")
        page.context.close()
        alice.context.close()

        context = browser.new_context(viewport=PHONE)
        notices = []
        context.on("console", lambda m: notices.append(m.text) if m.type == "error" and "status of 40" not in m.text
                   and not m.location.get("url", "").endswith("/favicon.ico") else None)
        revoked = context.new_page()
        response = revoked.goto(f"{base}?token={links['alice']}")
        assert response.status == 403
        text = revoked.inner_text("#notice")
        assert "revoked" in text and "ask the coordinator" in text
        assert revoked.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for address, status, words in ((f"{base}coordinator", 401, "open the coordinator's link"),
                                       (f"{base}coordinator?token={links['bob']}", 403, "annotation page")):
            response = revoked.goto(address)
            assert response.status == status
            assert words in revoked.inner_text("#notice")
        context.close()
    assert problems == [] and alice_problems == [] and notices == []


# ---------------------------------------------------------------------------------------------- the annotators' page
NO_RANDOM_UUID = """
delete Crypto.prototype.randomUUID;
Math.random = () => { throw new Error("Math.random is no source of request keys"); };
"""


def test_request_keys_are_unique_without_crypto_random_uuid(browser, tmp_path):
    database, session, server = served_session(tmp_path, budget=20, batch_size=4, random_state=0)
    with server:
        page, problems = open_page(browser, server.url + "?annotator=ann", init_script=NO_RANDOM_UUID)
        keys = []
        page.on("request", lambda request: keys.append(request.post_data_json["key"])
                if request.method == "POST" and request.url.endswith(("/api/answer", "/api/skip")) else None)
        page.wait_for_function("() => document.body.dataset.pair")
        assert page.evaluate("typeof crypto.randomUUID") == "undefined"

        def act(action):
            before = page.evaluate("document.body.dataset.pair")
            action()
            page.wait_for_function(f"() => document.body.dataset.pair !== {before!r}"
                                   " && document.body.dataset.busy === 'false'")

        for key in "3817":
            act(lambda: page.keyboard.press(key))
        act(lambda: page.keyboard.press("s"))
        act(lambda: page.click("#buttons button[data-value='4']"))
        act(lambda: page.click("#skip"))
        page.context.close()
    assert problems == []
    assert len(keys) == 7 and len(set(keys)) == 7, keys
    assert all(re.fullmatch(r"[0-9a-f]{32}", key) for key in keys), keys
    with MeasurementStore(database) as store:
        assert len(store.measurements()) == 5


def test_the_examples_show_their_pictures(browser, tmp_path):
    from matplotlib.image import imsave

    media = tmp_path / "media"
    media.mkdir()
    rng = np.random.default_rng(0)
    for k in range(4):
        imsave(media / f"scene{k}.png", rng.random((24, 32, 3)))
    table = pd.DataFrame({"item": [f"scene {k}" for k in range(6)],
                          "image": [f"scene{k}.png" if k < 4 else None for k in range(6)]})
    examples = pd.DataFrame({"i": ["scene 0", "scene 2"], "j": ["scene 1", "scene 5"], "answer": [9, 2],
                             "note": ["the same room", ""]})
    database, session, server = served_session(tmp_path, table=table, media=media, budget=6, batch_size=2,
                                               random_state=0, examples=examples,
                                               instructions="# How to answer\n\nThe same room is **9**.")
    with server:
        for viewport in (DESKTOP, PHONE):
            page, problems = open_page(browser, server.url + "?annotator=ann", viewport)
            page.wait_for_selector("#help:has-text('How to answer')")
            page.wait_for_function("() => Array.from(document.querySelectorAll('#examples img'))"
                                   ".every(img => img.complete && img.naturalWidth > 0)")
            pictures = page.eval_on_selector_all("#examples img", "imgs => imgs.map(i => [i.alt, i.naturalWidth])")
            assert pictures == [["scene 0", 32], ["scene 1", 32], ["scene 2", 32]]
            assert page.inner_text("#examples .no-picture") == "scene 5"  # it has none: its name stands in
            assert page.is_visible("text=scene 0 and scene 1: 9 (the same room)")
            assert inside_width(page, "#examples img", viewport["width"]) == []
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.keyboard.press("Enter")  # Start answering has the focus
            page.wait_for_function("() => document.body.dataset.pair")
            page.context.close()
            assert problems == []

"""The annotation page for a paid crowd, in a real headless Chromium: framing refused, a phone's width, the keyboard,
a server that goes away mid-answer, the security policy, names and contrast of the controls, the coordinator's view.

Skipped, with the reason, when Playwright or chromium is missing (``make test`` installs Debian's chromium where apt
can be used). ``PAUCITY_UPDATE_SCREENSHOTS=1`` rewrites the stored phone screenshot instead of comparing with it.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pandas as pd
import pytest

from paucity.clustering import MeasurementStore

from .conftest import Served, small_adata
from .test_browser import compare_with_stored

PHONE = {"width": 390, "height": 844}
PHONE_REFERENCE = Path(__file__).parent / "annotate_phone.png"
FIGURE = Path(__file__).resolve().parents[2] / "docs" / "figures" / "serve_annotate_phone.png"


def items(n=10):
    return pd.DataFrame({"item": [f"photo{k}" for k in range(n)],
                         "text": [f"A kitchen with {k + 1} chair(s) by the window" for k in range(n)]})


def answers(database) -> list[tuple[str, float]]:
    with MeasurementStore(database) as store:
        frame = store.measurements()
    return [(source, round(value * 9)) for source, value in zip(frame["source"], frame["value"])]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_another_site_cannot_frame_either_page(browser, tmp_path):
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    from paucity.serve import AnnotationSession, MarkerExplorer, annotate_app, markers_app
    from paucity.serve.server import BackgroundServer

    session = AnnotationSession(tmp_path / "s.db", items(), budget=10, batch_size=2, random_state=0)
    with BackgroundServer(annotate_app(session)) as annotation, \
            BackgroundServer(markers_app(MarkerExplorer(small_adata(), "cell_type"))) as explorer:
        targets = [annotation.url + "?annotator=alice", explorer.url]
        frames = "".join(f'<iframe src="{url}" width="600" height="400"></iframe>' for url in targets)
        evil = Starlette(routes=[Route("/", lambda request: HTMLResponse(f"<h1>win a prize</h1>{frames}"))])
        with BackgroundServer(evil, host="localhost") as other:  # another origin: another host name and port
            context = browser.new_context()
            page = context.new_page()
            refused = []
            page.on("console", lambda message: refused.append(message.text) if "frame-ancestors" in message.text
                    else None)
            page.goto(other.url)
            while len(refused) < len(targets):  # each frame's refusal is reported on the console
                page.wait_for_event("console", timeout=20_000)
            for frame in page.frames[1:]:
                assert frame.url in ("chrome-error://chromewebdata/", "about:blank") or not frame.evaluate(
                    "() => document.body && document.body.dataset.ready === 'true'"), frame.url
            assert len(refused) == len(targets), refused
            context.close()


def test_the_scale_fits_a_phone_and_a_key_answers_once(browser, tmp_path):
    from paucity.serve import AnnotationSession, annotate_app
    from paucity.serve.server import BackgroundServer

    database = tmp_path / "s.db"
    session = AnnotationSession(database, items(), budget=12, batch_size=4, random_state=0)
    with BackgroundServer(annotate_app(session)) as server:
        context = browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True)
        page = context.new_page()
        page.goto(server.url + "?annotator=alice")
        page.wait_for_function("() => document.body.dataset.pair")
        boxes = page.eval_on_selector_all("#buttons button, .ends span", "els => els.map(e => { const r = "
                                          "e.getBoundingClientRect(); return [r.left, r.right, r.width]; })")
        assert len(boxes) == 12 and all(0 <= left and right <= PHONE["width"] and width > 0
                                        for left, right, width in boxes), boxes
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page.is_visible("text=0: not at all") and page.is_visible("text=9: the same")
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        compare_with_stored(page, tmp_path, PHONE_REFERENCE, figure=FIGURE)

        def answered(action):
            before = page.evaluate("document.body.dataset.pair")
            action()
            page.wait_for_function(f"() => document.body.dataset.pair !== {before!r} && document.body.dataset.busy === 'false'")

        answered(lambda: (page.focus("#buttons button[data-value='5']"), page.keyboard.press("Enter")))
        page.keyboard.press("Space")  # focus left the button: Space answers nothing
        page.keyboard.press("Enter")
        answered(lambda: page.keyboard.press("3"))
        answered(lambda: page.click("#buttons button[data-value='7']"))
        page.keyboard.press("Enter")
        answered(lambda: page.keyboard.press("1"))
        assert page.evaluate("document.activeElement.id") == "task"
        context.close()
    assert answers(database) == [("alice", 5), ("alice", 3), ("alice", 7), ("alice", 1)]


def test_an_answer_given_while_the_server_is_down_is_saved_once_when_it_is_back(browser, tmp_path):
    table = tmp_path / "items.csv"
    items().to_csv(table, index=False)
    database = tmp_path / "s.db"
    port = str(free_port())
    command = ["serve", "annotate", str(database), "--items", str(table), "--budget", "12", "--batch-size", "4",
               "--random-state", "0", "--port", port]
    served = Served(*command)
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    try:
        page = context.new_page()
        page.goto(served.url + "?annotator=alice")
        page.wait_for_function("() => document.body.dataset.pair")
        before = page.evaluate("document.body.dataset.pair")
        served.kill()  # the server goes away
        page.keyboard.press("6")
        page.wait_for_selector("#status.error:has-text('Your last answer is not saved yet')")
        assert "trying again" in page.inner_text("#status")
        page.keyboard.press("2")  # ignored: the first answer is still on its way
        served = Served(*command)  # back, on the same port
        page.wait_for_function(f"() => document.body.dataset.pair !== {before!r}", timeout=60_000)
        page.wait_for_selector("#status:has-text('Saved.')")
    finally:
        context.close()
        served.stop()
    assert answers(database) == [("alice", 6)]


def test_the_pages_run_under_their_policy_name_every_control_and_keep_their_contrast(browser, tmp_path):
    from paucity.serve import AnnotationSession, annotate_app
    from paucity.serve.server import BackgroundServer

    session = AnnotationSession(tmp_path / "s.db", items(), budget=12, batch_size=4, random_state=0, price=0.05,
                                instructions="# How to answer\n\nThe same kitchen is **9**.",
                                examples=pd.DataFrame({"i": ["photo0"], "j": ["photo1"], "answer": [9]}))
    tokens = session.invite(["alice"])
    with BackgroundServer(annotate_app(session, token="c00rd", open_when_uninvited=False)) as server:
        context = browser.new_context(viewport={"width": 1100, "height": 760})
        problems = []
        context.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page = context.new_page()
        page.goto(server.url + "?token=" + tokens["alice"])
        page.wait_for_selector("#help:has-text('How to answer')")  # the instructions come first
        assert page.is_visible("text=photo0 and photo1: 9")
        page.click("#start")
        page.wait_for_function("() => document.body.dataset.pair")
        assert page.inner_text("#who").startswith("alice")
        unnamed = page.evaluate("""() => Array.from(document.querySelectorAll('button, input, a')).filter(e => {
            const label = e.getAttribute('aria-label') || e.textContent.trim() || (e.labels && e.labels.length);
            return !label && e.offsetParent !== null; }).map(e => e.outerHTML)""")
        assert unnamed == []
        page.keyboard.press("4")
        page.wait_for_selector("#status:has-text('Saved.')")
        coordinator = context.new_page()
        coordinator.goto(server.url + "coordinator?token=c00rd")
        coordinator.wait_for_selector("body[data-ready=true]")
        coordinator.fill("#invite-names", "carol")
        coordinator.click("#invite-form button")
        coordinator.wait_for_selector("#links li:has-text('carol')")
        assert "token=" in coordinator.inner_text("#links")
        coordinator.click("tr[data-annotator='alice'] button[data-action='pause']")
        coordinator.wait_for_selector("tr[data-annotator='alice'] td:has-text('paused')")
        page.keyboard.press("5")
        page.wait_for_selector("#status:has-text('Your work is on hold — paused by the coordinator.')")
        colours = coordinator.evaluate("""() => {
            const style = (sel) => getComputedStyle(document.querySelector(sel));
            return {error: getComputedStyle(document.documentElement).getPropertyValue('--warn').trim(),
                    muted: style('.muted').color, button: style('button').color, page: style('body').backgroundColor,
                    buttonBackground: style('button').backgroundColor}; }""")
        context.close()
    assert not [text for text in problems if "Content Security Policy" in text or "Refused" in text], problems
    for colour, background in ((colours["error"], colours["page"]), (colours["muted"], colours["page"]),
                               (colours["button"], colours["buttonBackground"])):
        assert contrast(colour, background) >= 4.5, (colour, background)


#: The colour of an element's text and of what is behind it: the first ancestor's background that is not
#: transparent (the canvas, white, when none has one).
COLOURS_OF = """(element) => {
    let holder = element, background = "rgb(255, 255, 255)";
    for (; holder; holder = holder.parentElement) {
        const colour = getComputedStyle(holder).backgroundColor;
        if (colour !== "transparent" && !/^rgba\\(.*,\\s*0\\)$/.test(colour)) { background = colour; break; }
    }
    const style = getComputedStyle(element);
    return {colour: style.color, background, size: style.fontSize, weight: style.fontWeight};
}"""


def contrast_of(page, selector: str) -> float:
    """The WCAG contrast ratio of the text of the first element ``selector`` matches on what is behind it."""
    colours = page.eval_on_selector(selector, COLOURS_OF)
    return contrast(colours["colour"], colours["background"])


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio of two colours given as #rrggbb or rgb(r, g, b)."""
    def channels(colour: str):
        if colour.startswith("#"):
            return [int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
        return [int(float(part)) / 255 for part in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]

    def luminance(colour: str) -> float:
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels(colour))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)

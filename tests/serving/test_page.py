"""The page of `attentive serve` in Debian's Chromium (issue 34, items 4-5), on a default-like tiny model (WordPiece
pieces, the n-gram channel) served with an API key: whole words (a word split into pieces is one), signed evidence
on the diverging scale, the channels' margin split, the faithfulness line, and "check it yourself": a click on a word
asks /predict for the text without it and shows the new probabilities beside the old, a second click puts it back,
several words can be taken out; Ctrl+Enter and Cmd+Enter explain as the button does; the probabilities are shown
largest first, each with its bar; a screenshot is saved. The same clicks on the model's ONNX export, whose /explain
answer has no evidence."""
from __future__ import annotations

import json
import re

import pytest

import attentive
from attentive.onnx_format.write import export

from ..helpers import CHROMIUM, copy_of_tiny_run, start

pytestmark = pytest.mark.slow  # a headless Chromium

TEXT = "the movie yucks , an unapologetic mess"
SPLIT = ("yucks", "unapologetic")  # words the tokenizer splits into pieces
TOWARDS, AGAINST = [33, 102, 172], [214, 96, 77]  # the diverging scale's two colours


@pytest.fixture(scope="module")
def run(tiny_default_run, tmp_path_factory):
    """The session's tiny default model (word pieces, an n-gram channel), in a folder of this module's own."""
    return copy_of_tiny_run(tiny_default_run, tmp_path_factory.mktemp("page") / "run")


def rgb(colour: str) -> list[int]:
    """The red, green and blue of a computed `rgb(...)` or `rgba(...)` colour."""
    return [int(v) for v in re.findall(r"[\d.]+", colour)[:3]]


def served(folder):
    process, url = start(folder, "--api-key", "secret")
    return process, f"{url}/?key=secret"


def explained(page, address: str, sent: list[dict]):
    """The page at `address` after explaining TEXT; each /predict body it sends from then on is appended to `sent`."""
    page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/predict") else None)
    page.goto(address)
    page.wait_for_function("document.getElementById('about').textContent.length > 0")  # /info answered
    page.fill("#text", TEXT)
    page.click("#go")
    page.wait_for_selector("#result:not(.hidden)")


def probabilities(page) -> tuple[dict, dict]:
    """The probabilities the page shows for the explained text, and those beside them for the text without the words
    taken out (empty when none is)."""
    spans = page.locator("#probabilities .probability")
    old, new = {}, {}
    for i in range(spans.count()):
        span = spans.nth(i)
        old[span.get_attribute("data-label")] = float(span.get_attribute("data-probability"))
        if span.locator(".new").count():
            new[span.get_attribute("data-label")] = float(span.locator(".new").get_attribute("data-probability"))
    return old, new


def click_and_wait(page, word: str, removed: bool = True):
    """Click `word` in the first row of words; wait for the page to show its /predict answer (or, when the click
    puts the last word back, for the new probabilities to go)."""
    before = page.inner_text("#check")
    page.locator("#result .word.clickable").filter(has_text=word).first.click()
    if removed:
        page.wait_for_function("before => document.querySelectorAll('#probabilities .new').length > 0 "
                               "&& document.getElementById('check').textContent !== before", arg=before)
    else:
        page.wait_for_function("document.querySelectorAll('#probabilities .new').length === 0")


def explains_by_keys_and_ranks_the_probabilities_with_bars(page):
    """Ctrl+Enter and Cmd+Enter (Meta) in the text explain it, as the button does, adding no line break; the answer's
    probabilities are shown largest first, each with a bar as wide as its share of the bar's track."""
    for keys, text in (("Control+Enter", "a gorgeous , witty film"), ("Meta+Enter", "a dull , tedious mess")):
        page.fill("#text", text)
        page.press("#text", keys)
        page.wait_for_function("text => [...document.querySelectorAll('.evidence .word')]"
                               ".map(w => w.textContent).join(' ') === text", arg=text)
        assert page.input_value("#text") == text
        rows = page.locator("#probabilities .probability")
        shown = [(rows.nth(i).get_attribute("data-label"), float(rows.nth(i).get_attribute("data-probability")))
                 for i in range(rows.count())]
        assert len(shown) == 2 and [p for _, p in shown] == sorted((p for _, p in shown), reverse=True), shown
        assert page.inner_text("#label").startswith(shown[0][0])
        for i, (label, p) in enumerate(shown):
            assert rows.nth(i).locator(".name").inner_text() == label
            assert rows.nth(i).locator(".value").inner_text() == f"{p:.3f}"
            share = rows.nth(i).locator(".fill").evaluate(
                "e => e.getBoundingClientRect().width / e.parentElement.getBoundingClientRect().width")
            assert share == pytest.approx(p, abs=0.01), (label, p, share)


def test_the_page_shows_whole_words_signed_evidence_and_checks_a_click(run, tmp_path):
    from playwright.sync_api import sync_playwright

    process, address = served(run)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            sent: list[dict] = []
            explained(page, address, sent)
            # whole words: a word split into pieces is one word, in the evidence row and the attention row alike
            for row in (".evidence", ".heatmap"):
                words = [w.strip() for w in page.locator(row).first.locator(".word").all_inner_texts()]
                assert [w for w in words if w] == TEXT.split(), (row, words)
            # signed evidence on a diverging scale: blue towards the label, red against, by each word's sign
            evidence = page.locator(".evidence .word")
            values = [float(evidence.nth(i).get_attribute("data-evidence")) for i in range(evidence.count())]
            colours = [evidence.nth(i).evaluate("e => getComputedStyle(e).backgroundColor")
                       for i in range(evidence.count())]
            assert any(values)
            for value, colour in zip(values, colours):
                assert rgb(colour) == (TOWARDS if value >= 0 else AGAINST), (value, colour)
            assert page.locator("#key .towards").count() == 1 and page.locator("#key .against").count() == 1
            # the channels' split and the faithfulness line
            margins = page.inner_text("#margins")
            assert margins.startswith("margin over runner-up: attention ") and ", ngrams " in margins
            assert page.locator("#faithfulness").is_visible()
            assert page.inner_text("#faithfulness").startswith("on dev, removing the 5% most attended words changed")
            assert not page.locator("#per-head").evaluate("e => e.open")  # the heads folded behind the summed row
            old, new = probabilities(page)
            assert set(old) == {"negative", "positive"} and not new

            # check it yourself: a click takes the word out and shows the new probabilities beside the old
            click_and_wait(page, "yucks")
            assert sent[-1] == {"texts": ["the movie , an unapologetic mess"]}
            shown, without_yucks = probabilities(page)
            assert shown == old and set(without_yucks) == set(old) and without_yucks != old
            assert "→" in page.inner_text("#probabilities")
            assert page.inner_text("#check").startswith("without “yucks”: ")
            assert page.locator(".evidence .word.removed").all_inner_texts() == ["yucks"]
            assert page.locator(".heatmap .word.removed").count() >= 1  # the same word, struck out in every row
            # several words: a second one taken out too
            click_and_wait(page, "mess")
            assert sent[-1] == {"texts": ["the movie , an unapologetic"]}
            assert page.inner_text("#check").startswith("without “yucks”, “mess”: ")
            assert probabilities(page)[1] != without_yucks
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
            # clicking again puts a word back; with none out, the new probabilities go
            click_and_wait(page, "mess")
            assert sent[-1] == {"texts": ["the movie , an unapologetic mess"]}
            assert probabilities(page)[1] == without_yucks
            requests = len(sent)
            click_and_wait(page, "yucks", removed=False)
            assert len(sent) == requests and probabilities(page) == (old, {})
            assert page.locator("#result .word.removed").count() == 0
            explains_by_keys_and_ranks_the_probabilities_with_bars(page)
            browser.close()
    finally:
        process.terminate()
        process.wait(10)
    screenshot = tmp_path / "page.png"
    assert screenshot.exists() and screenshot.stat().st_size > 5000
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_exported_model_shows_its_occlusion_evidence_and_clicking_a_word_works(run, tmp_path):
    from playwright.sync_api import sync_playwright

    folder = export(attentive.load(run), tmp_path / "exported")
    process, address = served(folder)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            sent: list[dict] = []
            explained(page, address, sent)
            assert page.locator(".evidence").count() > 0 and "no signed evidence" not in page.inner_text("#key")
            old, _ = probabilities(page)
            click_and_wait(page, "unapologetic")
            assert sent[-1] == {"texts": ["the movie yucks , an mess"]}
            shown, new = probabilities(page)
            assert shown == old and set(new) == set(old) and new != old
            browser.close()
    finally:
        process.terminate()
        process.wait(10)
    assert not errors


def test_the_html_report_shows_the_words_evidence_and_channels_of_the_explain_answer(run, tmp_path):
    import httpx

    from attentive.cli import main

    process, address = served(run)
    try:
        [answer] = httpx.post(address.replace("/?key=secret", "/explain"), json={"texts": [TEXT]},
                              headers={"X-API-Key": "secret"}).json()
    finally:
        process.terminate()
        process.wait(10)
    report = tmp_path / "report.html"
    assert main(["explain", str(run), TEXT, "--html", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    shown = re.findall(r'<span class="w ev" style="[^"]*" title="([^"]+)">([^<]*)</span>', html)
    assert [word for _, word in shown] == answer["words"] == TEXT.split()
    assert [float(value.split()[0]) for value, _ in shown] == \
        pytest.approx(answer["evidence"], abs=1e-4)  # each title: "+0.02 logits"
    split = re.search(r"margin over the runner-up, by channel: ([^(]*)\(", html).group(1)
    margins = {name: float(value) for name, value in re.findall(r"(\w+) ([+-][\d.]+)", split)}
    assert margins == pytest.approx({name: c["margin"] for name, c in answer["channels"].items()}, abs=0.006)

"""`attentive serve` for real: uvicorn started by the test, answering over loopback; limits answered with their 4xx
while the server keeps answering; an API key required off loopback; the page driven in Debian's Chromium through
Playwright: type a review, wait for the heatmap, check the label and the words' weights, save a screenshot."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient

import attentive
from attentive.cli import main
from attentive.data.example import Dataset
from attentive.data.registry import load_dataset
from attentive.serving.server import create_app

from ..helpers import CHROMIUM, TINY, counted, start, tiny_overrides

pytestmark = pytest.mark.slow  # starts server processes


@pytest.fixture(scope="module")
def served(sst2_small, tmp_path_factory):
    """The folder of the model served: a tiny lama_ctx with an n-gram channel."""
    run = tmp_path_factory.mktemp("serve") / "run"
    overrides = [*tiny_overrides("lama_ctx"), "wide.type=ngrams", "wide.buckets=4096"]  # two channels
    attentive.train(sst2_small, "lama_ctx", run, overrides=overrides, show_progress=False)
    return run


@pytest.fixture(scope="module")
def server(served):
    process, url = start(served, "--max-body", "20000", "--max-texts", "8")
    yield url
    process.terminate()
    process.wait(10)


def test_predict_explain_info_health_and_metrics(server):
    [answer] = httpx.post(f"{server}/predict", json={"texts": ["a gorgeous , witty film"]}).json()
    assert answer["label"] in ("negative", "positive") and set(answer["probabilities"]) == {"negative", "positive"}
    [explained] = httpx.post(f"{server}/explain", json={"texts": ["a gorgeous , witty film"], "top_k": 2}).json()
    assert explained["words"] == ["a", "gorgeous", ",", "witty", "film"] and len(explained["top_words"]) == 2
    assert abs(sum(explained["summed"]) - 1) < 1e-3 and len(explained["attention"]) == 3  # the tiny recipe's heads
    assert len(explained["evidence"]) == 5 and set(explained["channels"]) == {"attention", "ngrams"}
    assert explained["channels"]["attention"]["method"] == "linearised"  # its share of the linearised evidence
    ngrams = explained["channels"]["ngrams"]
    assert ngrams["method"] == "exact" and abs(sum(ngrams["evidence"]) - ngrams["margin"]) < 1e-3
    info = httpx.get(f"{server}/info").json()
    assert info["labels"] == ["negative", "positive"]
    assert set(info["faithfulness"]["flipped"]) == {"attention", "random", "evidence"}
    assert info["faithfulness_line"].startswith("on dev, removing the 5% most attended words changed")
    metrics = httpx.get(f"{server}/metrics").text
    assert 'attentive_requests_total{path="/predict",status="200"}' in metrics
    assert "attentive_request_seconds_bucket" in metrics


def test_predict_ranks_its_top_words_as_asked(server, served):
    text = "the plot is a mess but the actors shine"
    body = {"texts": [text], "top_k": 3, "top_words_by": "evidence"}
    [answer] = httpx.post(f"{server}/predict", json=body).json()
    [expected] = attentive.load(served).predict(text, top_k=3, top_words_by="evidence")
    assert [word for word, _ in answer["top_words"]] == [word for word, _ in expected.top_words]
    [by_default] = httpx.post(f"{server}/predict", json={"texts": [text], "top_k": 3}).json()
    assert by_default["top_words"] == answer["top_words"]  # the evidence, where the model gives it
    [attended] = httpx.post(f"{server}/predict", json={**body, "top_words_by": "attention", "top_k": 20}).json()
    assert abs(sum(weight for _, weight in attended["top_words"]) - 1) < 1e-3  # every word's share of the attention
    refused = httpx.post(f"{server}/explain", json=body)  # explain's top words are predict's default
    assert refused.status_code == 422 and "top_words_by: /predict's" in refused.json()["detail"]
    unknown = httpx.post(f"{server}/predict", json={**body, "top_words_by": "gradient"})
    assert unknown.status_code == 422 and "top_words_by" in unknown.json()["detail"]


def test_concurrent_requests_are_all_answered_in_order(server):
    texts = [f"film number {i} is {'great' if i % 2 else 'dull'}" for i in range(64)]
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda t: httpx.post(f"{server}/explain", json={"texts": [t]}).json()[0], texts))
    assert [a["words"][2] for a in answers] == [str(i) for i in range(64)]


@pytest.mark.parametrize("body, status, reason", [
    ('{"texts": ["x"', 422, "JSON"),
    ('{"texts": ["  "]}', 422, "text 1 is empty"),
    ('{"texts": []}', 422, "texts"),
    ('{"texts": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}', 422, "at most 8"),
    ('{"texts": ["' + "word " * 5000 + '"]}', 413, "body over 20000 bytes"),
    ('{"texts": ["a film"], "aspects": ["food"]}', 422, "without an aspect"),
    ('{"texts": ["a film"], "pairs": ["another film"]}', 422, "takes no second text"),
])
def test_bad_requests_get_their_4xx_and_the_server_keeps_answering(server, body, status, reason):
    response = httpx.post(f"{server}/predict", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status and reason in response.json()["detail"]
    assert httpx.post(f"{server}/predict", json={"texts": ["still here"]}).status_code == 200


def test_each_text_of_a_request_is_checked_once(served, monkeypatch):
    checked = counted(monkeypatch, "text_problem")
    with TestClient(create_app(attentive.load(served), window_ms=0)) as client:
        for path in ("/predict", "/explain"):
            checked.clear()
            assert client.post(path, json={"texts": ["a film", "another film"]}).status_code == 200
            assert checked == ["a film", "another film"], path  # by the request's validation, and not again


def test_predict_answers_by_predict_and_computes_no_explanation(served, monkeypatch):
    model = attentive.load(served)
    texts = ["a gorgeous , witty film", "a dull , lifeless film"]
    expected = [p.as_dict() for p in model.predict(texts, top_k=3)]

    def explained(*args, **kwargs):
        raise RuntimeError("/predict explained")  # a 500, as any error of the model's call

    monkeypatch.setattr(model, "explain", explained)
    with TestClient(create_app(model, window_ms=0)) as client:
        answers = client.post("/predict", json={"texts": texts, "top_k": 3}).json()
    assert answers == expected and all(len(answer["top_words"]) == 3 for answer in answers)


def test_each_text_and_aspect_of_a_request_to_an_aspect_model_is_checked_once(tmp_path, monkeypatch):
    data = load_dataset("semeval14_category")
    small = Dataset("absa_small", {"train": data.splits["train"][:200], "dev": data.splits["dev"][:50], "test": []},
                    data.labels)
    overrides = TINY + ["encoder.hidden=12", "aspect.dim=8", "tokenizer.min_frequency=1", "train.epochs=1"]
    model = attentive.train(small, "atae_lstm", tmp_path / "run", overrides=overrides, show_progress=False)
    texts, aspects = ["the food was great", "the waiter was rude"], ["food", "service"]
    checked, unicode_checked = counted(monkeypatch, "text_problem"), counted(monkeypatch, "unicode_problem")
    with TestClient(create_app(model, window_ms=0)) as client:
        for path in ("/predict", "/explain"):
            checked.clear()
            unicode_checked.clear()
            answers = client.post(path, json={"texts": texts, "aspects": aspects}).json()
            assert [answer["aspect"] for answer in answers] == aspects
            assert checked == texts and unicode_checked == texts + aspects, path
        unknown = client.post("/predict", json={"texts": texts, "aspects": ["food", "decor"]})
        assert unknown.status_code == 422 and unknown.json()["detail"].startswith("unknown aspect(s) 'decor'")
        blank = client.post("/predict", json={"texts": ["a film"], "aspects": [" "]})
        assert blank.status_code == 422 and "give one for every text" in blank.json()["detail"]
        invalid = client.post("/predict", content=b'{"texts": ["a film"], "aspects": ["\\ud800"]}',
                              headers={"Content-Type": "application/json"})
        assert invalid.json()["detail"].startswith("aspects: Value error, aspect 1 is not valid Unicode")


def test_binding_another_address_without_an_api_key_is_refused(capsys, tmp_path):
    assert main(["serve", str(tmp_path), "--host", "0.0.0.0"]) == 2  # refused before the model is even read
    assert "give --api-key" in capsys.readouterr().err


def test_the_api_key_is_checked_on_every_request(sst2_small, tmp_path):
    attentive.train(sst2_small, "avg", tmp_path / "run", overrides=tiny_overrides("avg") + ["train.epochs=1"],
                    show_progress=False)
    process, url = start(tmp_path / "run", "--api-key", "secret")
    try:
        assert httpx.get(f"{url}/info").status_code == 401
        assert httpx.post(f"{url}/predict", json={"texts": ["a film"]}).status_code == 401
        assert httpx.post(f"{url}/predict?key=secret", json={"texts": ["a film"]}).status_code == 401  # header only
        assert httpx.get(f"{url}/info", headers={"X-API-Key": "secret"}).status_code == 200
        assert label_shown_by_the_page(f"{url}/?key=secret") in ("negative", "positive")  # it sends the header
    finally:
        process.terminate()
        process.wait(10)


def label_shown_by_the_page(address: str) -> str:
    """The label the page at `address` shows for a review typed into it (in Debian's Chromium)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(address)
        page.wait_for_function("document.getElementById('about').textContent.length > 0")  # /info answered
        page.fill("#text", "a gorgeous , witty film")
        page.click("#go")
        page.wait_for_selector("#result:not(.hidden)")
        label = page.inner_text("#label")
        browser.close()
    return label


def test_the_page_shows_the_label_and_a_heatmap_in_a_real_browser(server, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(server)
        page.fill("#text", "a gorgeous , witty and moving <b>film</b>")
        page.click("#go")
        page.wait_for_selector(".heatmap .word")
        assert page.inner_text("#label") in ("negative", "positive")
        words = page.locator(".heatmap").first.locator(".word")
        weights = [float(words.nth(i).get_attribute("data-weight")) for i in range(words.count())]
        assert words.count() >= 6 and abs(sum(weights) - 1) < 1e-2 and max(weights) > 0
        assert "<" in page.inner_text("#heads") and page.locator("#heads b").count() == 0  # shown as text, not markup
        evidence = page.locator(".evidence .word")  # signed evidence on a diverging scale
        assert evidence.count() == words.count()
        colours = {evidence.nth(i).evaluate("e => getComputedStyle(e).backgroundColor") for i in range(words.count())}
        signs = {float(evidence.nth(i).get_attribute("data-evidence")) >= 0 for i in range(words.count())}
        assert any(c.startswith("rgba(33, 102, 172") for c in colours) == (True in signs)  # towards: blue
        assert any(c.startswith("rgba(214, 96, 77") for c in colours) == (False in signs)  # against: red
        margins = page.inner_text("#margins")
        assert margins.startswith("margin over runner-up: attention ") and ", ngrams " in margins
        assert page.inner_text("#faithfulness").startswith("on dev, removing the 5% most attended words changed")
        assert not page.locator("#per-head").evaluate("e => e.open")  # the heads folded behind the summed row
        page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
        browser.close()
    assert (tmp_path / "page.png").stat().st_size > 5000

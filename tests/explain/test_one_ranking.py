"""One reason per answer: `predict`'s top words, /predict, /explain, `explain`, its HTML and PNG and the page rank
and colour words by one quantity, the evidence of attentive/answer/types.py EVIDENCE_MEANING (how much each word adds
to the answered label's lead over the runner-up, in logits), on a trained model and on its export alike."""
from __future__ import annotations

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.answer.types import EVIDENCE_MEANING
from attentive.onnx_format.write import export

from ..helpers import ANSWERED_TEXTS

TEXTS = [*ANSWERED_TEXTS, "How do I locate my card?", "not bad at all , honestly", "a dull , lifeless and tired mess"]


@pytest.fixture(scope="module")
def backends(tiny_run, tmp_path_factory):
    folder = export(attentive.load(tiny_run), tmp_path_factory.mktemp("one-ranking") / "onnx")
    return {"pytorch": attentive.load(tiny_run), "fp32 export": onnx_backend.load(folder, int8=False),
            "int8 export": onnx_backend.load(folder)}


def _evidence_ranking(explanation, top_k: int) -> list[tuple[str, float]]:
    """The words the page colours most towards the answer: by `evidence`, the largest first, those above 0."""
    evidence = explanation.evidence
    order = np.argsort(-evidence, kind="stable")[:top_k]
    return [(explanation.words[i], float(evidence[i])) for i in order if evidence[i] > 0]


@pytest.mark.parametrize("name", ["pytorch", "fp32 export", "int8 export"])
def test_predicts_top_words_are_the_pages_evidence_ranking(backends, name):
    model = backends[name]
    predicted = model.predict(TEXTS * 5, top_k=3)  # more than FEW_TEXTS: the call's words found at once
    explained = model.explain(TEXTS, top_k=3)
    for number, (prediction, explanation) in enumerate(zip(predicted, explained * 5)):
        expected = _evidence_ranking(explanation, 3)
        assert [word for word, _ in prediction.top_words] == [word for word, _ in expected], TEXTS[number % len(TEXTS)]
        assert np.allclose([v for _, v in prediction.top_words], [v for _, v in expected], atol=1e-5)
        assert all(value > 0 for _, value in prediction.top_words)  # a word against the label is no reason for it
        assert explanation.prediction.top_words == prediction.top_words or np.allclose(
            [v for _, v in explanation.prediction.top_words], [v for _, v in prediction.top_words], atol=1e-6)
        answer = explanation.as_dict(top_k=3)  # /explain's answer, which the page draws
        assert [word for word, _ in answer["top_words"]] == [word for word, _ in expected]
        assert np.allclose(answer["evidence"], explanation.evidence, atol=1e-4)


def test_pytorch_and_its_export_give_the_same_evidence(backends):
    pytorch, exported = backends["pytorch"], backends["fp32 export"]
    for ours, theirs in zip(pytorch.explain(TEXTS), exported.explain(TEXTS)):
        assert ours.channel_evidence()["attention"]["method"] == "linearised"
        assert theirs.channel_evidence()["attention"]["method"] == "linearised"
        assert np.allclose(ours.evidence, theirs.evidence, atol=1e-4)
        shares = sum(c["evidence"] for c in ours.channel_evidence().values())  # the channels add up to it
        assert np.allclose(shares, ours.evidence, atol=1e-4)


def test_the_quantity_is_named_with_its_unit_where_it_is_shown():
    assert "in logits" in EVIDENCE_MEANING and "runner-up" in EVIDENCE_MEANING
    from pathlib import Path

    root = Path(attentive.__file__).parent
    docs = (root.parent / "docs" / "predict-and-explain.md").read_text().replace("\n> ", "\n")
    assert EVIDENCE_MEANING in " ".join(docs.split())
    assert "EVIDENCE_MEANING" in (root / "serving" / "server.py").read_text()


def test_the_html_report_and_the_label_error_page_have_a_legend(backends):
    from attentive.explain.html import explanation_html
    from attentive.selection.cv import errors_html

    explanations = backends["pytorch"].explain(TEXTS[:2])
    page = explanation_html(explanations)
    assert "class='legend'" in page and "linear-gradient" in page and "in logits" in page
    assert "full colour:" in page and "top words:" in page
    row = {"rank": 1, "given": "negative", "suggested": "positive", "row": 3, "fold": 1, "text": TEXTS[0],
           "probabilities": explanations[0].prediction.probabilities}
    assert "class='legend'" in errors_html([row], explanations[:1], "sst2", 1, 10)


def test_the_png_has_one_scale_for_all_heads_a_colourbar_each_and_the_evidence(backends):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attentive.explain.png import heatmap_figure

    explanations = backends["pytorch"].explain(TEXTS[:2])
    figure = heatmap_figure([(e, 0) for e in explanations], plt)
    bars = [ax for ax in figure.axes if ax.get_label() == "<colorbar>"]
    assert len(bars) == 2  # attention's and evidence's
    assert any("logits" in ax.get_ylabel() for ax in bars)
    grids = [image for ax in figure.axes for image in ax.get_images() if image.get_cmap().name == "Purples"]
    assert len({image.get_clim() for image in grids}) == 1  # one scale for every head and text
    assert sum(image.get_cmap().name == "RdBu" for ax in figure.axes for image in ax.get_images()) == 2
    plt.close(figure)


def test_the_terminal_marks_words_without_colour_when_not_a_tty(backends, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # a pipe's width, unless $COLUMNS says another
    from rich.console import Console

    from attentive.cli.app import Terminal
    from attentive.explain.terminal import explanation_table

    explanations = backends["pytorch"].explain(TEXTS[:2])
    piped = Terminal(file=__import__("io").StringIO(), force_terminal=False)
    assert piped.plain and piped.width > 80  # a table written to a pipe is not cut at 80 columns
    piped.print(explanation_table(explanations, plain=piped.plain))
    shown = piped.file.getvalue()
    assert "▲" in shown and "[+" in shown and "top words:" in shown
    coloured = Console(file=__import__("io").StringIO(), force_terminal=True, color_system="truecolor", width=200)
    coloured.print(explanation_table(explanations))
    assert "▲" not in coloured.file.getvalue() and "\x1b[" in coloured.file.getvalue()

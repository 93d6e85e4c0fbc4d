"""A self-contained HTML page of attention heatmaps: one block per text, each word's signed evidence on a diverging
scale (blue towards the predicted label, red against it, as on the page of `attentive serve`), the channels' split
of the margin, the summed attention (Lin et al. §2.3), then one row per head folded behind it; the model's
faithfulness line (config.json's `faithfulness`) on top when given; every word is HTML-escaped (a review containing
`<script>` renders as text)."""
from __future__ import annotations

import html

import numpy as np

from ..answer.types import EVIDENCE_MEANING

STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
.text{margin-bottom:2em}.row{line-height:2em;margin:.2em 0}.label{font-weight:600;margin-right:.6em;color:#333}
table.words{border-collapse:collapse;font-size:.85em}table.words td,table.words th{padding:.1em .6em;text-align:right}
.w{padding:.15em .25em;border-radius:3px}.probs{color:#555;font-size:.9em}
.legend{border:1px solid #ddd;padding:.5em 1em;margin-bottom:1.5em;font-size:.9em}.bar{display:inline-block;
width:16em;height:1em;vertical-align:middle;margin:0 .5em;border:1px solid #ccc}"""
TOWARDS, AGAINST = (33, 102, 172), (214, 96, 77)  # the diverging scale of signed evidence (the page's)
ATTENTION = (120, 80, 170)  # the attention's scale, unsigned


def legend() -> str:
    """The colour key of every row: the evidence's diverging scale with what it measures and its unit
    (EVIDENCE_MEANING), and the attention's."""
    (r, g, b), (R, G, B), (a, t, c) = AGAINST, TOWARDS, ATTENTION
    evidence = (f"background:linear-gradient(to right,rgba({r},{g},{b},1),rgba({r},{g},{b},0) 50%,"
                f"rgba({R},{G},{B},0) 50%,rgba({R},{G},{B},1))")
    attention = f"background:linear-gradient(to right,rgba({a},{t},{c},0),rgba({a},{t},{c},1))"
    return (f"<div class='legend'><div>evidence: against the predicted label <span class='bar ev-scale' "
            f"style='{evidence}'></span> towards it; full colour is the text's largest |evidence| (given beside "
            f"each text), and hovering a word shows its own.</div><div class='probs'>{html.escape(EVIDENCE_MEANING)}. "
            f"The top words are the words of most evidence above 0.</div><div>attention: none <span class='bar' "
            f"style='{attention}'></span> the text's most attended word (a share of the attention, heads summed)."
            f"</div></div>")


def _row(words: list[str], weights: np.ndarray, title: str) -> str:
    top = float(weights.max()) if len(weights) else 1.0
    spans = []
    for word, weight in zip(words, weights):
        level = float(weight) / top if top > 0 else 0.0
        spans.append(f'<span class="w" style="background:rgba(120,80,170,{level:.3f})" '
                     f'title="{float(weight):.4f}">{html.escape(word)}</span>')
    return f'<div class="row"><span class="label">{html.escape(title)}</span>{" ".join(spans)}</div>'


def _evidence_row(words: list[str], evidence: np.ndarray) -> str:
    top = float(np.abs(evidence).max()) if len(evidence) else 1.0
    spans = []
    for word, value in zip(words, evidence):
        level = abs(float(value)) / top if top > 0 else 0.0
        r, g, b = TOWARDS if value >= 0 else AGAINST
        spans.append(f'<span class="w ev" style="background:rgba({r},{g},{b},{level:.3f})" '
                     f'title="{float(value):+.4f} logits">{html.escape(word)}</span>')
    return (f'<div class="row"><span class="label">evidence</span>{" ".join(spans)} '
            f'<span class="probs">(full colour: {top:.3f} logits)</span></div>')


def _top_words_line(prediction) -> str:
    """The prediction's top words with their numbers: the words of most evidence above 0, as `predict` gives them
    (or the most attended, with their shares, for a model without evidence)."""
    if not prediction.top_words:
        return ""
    words = ", ".join(f"{html.escape(word)} {value:+.3f}" for word, value in prediction.top_words)
    return f"<div class='probs'>top words: {words}</div>"


def _channels_line(explanation) -> str:
    channels = explanation.channel_evidence()
    shares = ", ".join(f"{html.escape(name)} {c['margin']:+.2f}" for name, c in channels.items()
                       if c["margin"] is not None)
    methods = ", ".join(f"{html.escape(name)} {html.escape(c['method'].replace('_x_', ' × ').replace('_', ' '))}"
                        for name, c in channels.items())
    if not shares:
        return f"<div class='probs'>evidence: {methods}</div>"
    return f"<div class='probs'>margin over the runner-up, by channel: {shares} (evidence: {methods})</div>"


def _word_details(explanation, labels: list[str]) -> str:
    """A folded table: per word, attention score (mean over heads), weight (summed view) and polarity per class."""
    if explanation.scores is None:
        return ""
    header = "".join(f"<th>polarity {html.escape(label)}</th>" for label in labels)
    rows = []
    for j, word in enumerate(explanation.words):
        polarity = "".join(f"<td>{v:+.3f}</td>" for v in explanation.polarity[j]) if explanation.polarity is not None \
            else "<td>—</td>" * len(labels)
        rows.append(f"<tr><td>{html.escape(word)}</td><td>{explanation.scores[:, j].mean():+.3f}</td>"
                    f"<td>{explanation.summed[j]:.3f}</td>{polarity}</tr>")
    return (f"<details><summary>per word: score, weight, polarity</summary><table class='words'><tr><th>word</th>"
            f"<th>score</th><th>weight</th>{header}</tr>{''.join(rows)}</table></details>")


def explanation_html(explanations, title: str = "attentive: attention heatmaps", heads: bool = True,
                     faithfulness: str | None = None) -> str:
    """The page; `faithfulness` is the model's faithfulness line (attentive.answer.types.faithfulness_line), if any."""
    blocks = [legend()] if faithfulness is None else [f"<p class='probs'>{html.escape(faithfulness)}</p>", legend()]
    for number, explanation in enumerate(explanations, 1):
        pred = explanation.prediction
        probs = ", ".join(f"{html.escape(label)} {p:.3f}" for label, p in pred.probabilities.items())
        parts = [f"<h3>{number}. predicted {html.escape(pred.headline)}</h3><div class='probs'>{probs}</div>"]
        parts.append(_channels_line(explanation))
        evidence = explanation.evidence
        if evidence is not None:
            parts.append(_evidence_row(explanation.words, evidence))
        parts.append(_top_words_line(pred))
        if explanation.attention is None:
            parts.append(f"<p>{html.escape(' '.join(explanation.words))} (this model has no attention)</p>")
        else:
            parts.append(_row(explanation.words, explanation.summed, "attention"))
            if heads and len(explanation.attention) > 1:
                rows = "".join(_row(explanation.words, weights, f"head {h + 1}")
                               for h, weights in enumerate(explanation.attention))
                parts.append(f"<details><summary>each of the {len(explanation.attention)} heads</summary>{rows}"
                             "</details>")
            parts.append(_word_details(explanation, list(pred.probabilities)))
        blocks.append(f'<div class="text">{"".join(parts)}</div>')
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{''.join(blocks)}</body></html>\n")

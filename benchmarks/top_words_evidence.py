"""Which words `predict` should name, measured before it is built (issue 45, item 4; benchmarks/notes.md,
"`predict`'s top words by evidence"): the deletion test of the faithfulness record on a saved model's int8 export,
ranking each text's words by attention, at random, by occlusion (an export's `explain`), and by a linearised
evidence the graph could compute at the cost of one more small product.

    python -m benchmarks.top_words_evidence --dataset sst2 --models runs/shipped/sst2/default-s0 \
        "runs/frontier/sst2/default-sst2-defaults-s*"

For the label ranked first (f) over the runner-up (s), token j's linearised evidence is

    e_j = Σ_h α_hj · g_h·h_j  +  (n_j[f] − n_j[s])

with h_j the pooler's state of token j, α_hj its attention in head h, g = ∂(logit_f − logit_s)/∂m the head's gradient
at the text's pooled vector m = vec(A H), and n_j the token's share of the n-gram channel's logits
(`NgramChannel.word_scores`). Its first term alone ("linearised_attention_channel") is a diagnostic. The rankings are
computed on the PyTorch network (float32), the reduced texts answered by the int8 graph, as `predict` would answer
them. Nothing in the package uses it; it writes results/top-words-evidence-DATASET.json, `"kind":
"top_words_evidence"`.
"""
from __future__ import annotations

import argparse
import glob
import tempfile
from pathlib import Path

import numpy as np
import torch

import attentive
import attentive.runtime
from attentive.answer.deletion import FRACTION, TEXTS, removal_rows, sample, word_spans
from attentive.data.batching import collate
from attentive.export import export
from benchmarks.common import commit_at_start, write_result

RANKINGS = ("attention", "random", "occlusion", "linearised", "linearised_attention_channel")


def linearised(network, items: list, batch_size: int = 128) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each item's linearised evidence per token (both channels) and its attention channel's part alone."""
    network.eval()
    both, deep_part = [], []
    for start in range(0, len(items), batch_size):
        batch = items[start:start + batch_size]
        inputs = collate(batch)
        with torch.no_grad():
            out = network(**inputs)
        order = torch.sort(out.logits.float(), dim=-1, descending=True, stable=True).indices
        first, second = order[:, :1], order[:, 1:2]
        attention, states = out.attention.float(), out.states.float()
        pooled = (attention @ states).flatten(1).requires_grad_()
        with torch.enable_grad():
            logits = network.head(pooled)
            (gradient,) = torch.autograd.grad((logits.gather(1, first) - logits.gather(1, second)).sum(), pooled)
        gradient = gradient.view(len(batch), attention.shape[1], -1)  # B x heads x D
        deep = torch.einsum("bht,btd,bhd->bt", attention, states, gradient)
        wide = torch.zeros_like(deep)
        if network.wide is not None:
            scores = network.wide.word_scores(inputs["ids"], inputs["mask"]).float()
            index = lambda k: k.unsqueeze(1).expand(-1, scores.shape[1], -1)  # noqa: E731
            wide = (scores.gather(2, index(first)) - scores.gather(2, index(second))).squeeze(2)
        for row, item in enumerate(batch):
            length = len(item.ids)
            deep_part.append(deep[row, :length].detach().numpy())
            both.append((deep[row, :length] + wide[row, :length]).detach().numpy())
    return both, deep_part


def per_word(values: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    return np.array([values[start:end].sum() for start, end in spans])


def deletion_of(folder: Path, data, seed: int = 0) -> dict:
    """The deletion test's flip rates of one saved model's int8 export, by each of RANKINGS."""
    model = attentive.load(folder, device="cpu")
    chosen = sample(data.splits["dev"], False, False, seed, TEXTS)
    texts = [ex.text for ex in chosen]
    with tempfile.TemporaryDirectory() as scratch:
        exported = attentive.runtime.load(export(model, Path(scratch) / "export", int8=True), threads=1)
        items, _ = exported.inputs.items(texts, None, [None] * len(texts), offsets=False)
        explanations = exported.explain(texts, top_k=0)
        spans = [word_spans(item, e.token_spans) for item, e in zip(items, explanations)]
        occluded = [e.channel_evidence()["attention"]["method"] == "occlusion" for e in explanations]
        keep = [i for i, text_spans in enumerate(spans)  # occlusion reads texts of up to 512 tokens
                if len(text_spans) >= 2 and occluded[i]]
        both, deep = linearised(model.network, [items[i] for i in keep])
        spans = [spans[i] for i in keep]
        rng = np.random.default_rng(seed)
        rankings = {
            "attention": [np.argsort(-explanations[i].summed, kind="stable") for i in keep],
            "random": [rng.permutation(len(text_spans)) for text_spans in spans],
            "occlusion": [np.argsort(-explanations[i].evidence, kind="stable") for i in keep],
            "linearised": [np.argsort(-per_word(v, s), kind="stable") for v, s in zip(both, spans)],
            "linearised_attention_channel": [np.argsort(-per_word(v, s), kind="stable") for v, s in zip(deep, spans)],
        }
        kept = [items[i] for i in keep]

        def probabilities(reduced):
            return exported.run(reduced, 128, attention_wanted=False)[0]

        rows = removal_rows(probabilities, kept, spans, rankings, (f"{100 * FRACTION:g}%",), probabilities(kept))
        agree = np.mean([a[0] == b[0] for a, b in zip(rankings["linearised"], rankings["occlusion"])])
    return {"folder": str(folder), "texts": len(kept),
            "left_out_too_long": len(occluded) - sum(occluded),
            "flipped": {row["ranking"]: row["flip_rate"] for row in rows},
            "top_word_agrees_with_occlusion": float(agree)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--models", required=True, nargs="+", help="globs of saved model folders (one a seed)")
    args = parser.parse_args(argv)
    commit_at_start()
    torch.set_num_threads(1)
    data = attentive.api.resolve_dataset(args.dataset)
    folders = sorted({folder for pattern in args.models for folder in glob.glob(pattern)})
    models = [deletion_of(Path(folder), data) for folder in folders]
    if not models:
        raise SystemExit(f"no saved model matches {args.models}")
    for found in models:
        print(found["folder"], found["texts"], {k: round(100 * v, 1) for k, v in found["flipped"].items()},
              "top word as occlusion's:", round(found["top_word_agrees_with_occlusion"], 2))
    print(write_result(f"top-words-evidence-{data.name}", {"kind": "top_words_evidence", "dataset": data.name,
                                                          "fraction": FRACTION, "models": models}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`attentive analyze`: the corpus analyses of attentive.explain.corpus, the reliability diagram
(attentive.explain.reliability) and the deletion test, each written as a PNG plus the numbers behind it (CSV or
JSON), gathered by an index.html. Plots use matplotlib's Agg backend.

The report folder is claimed as every output folder is (attentive/folders/output.py): an earlier report there is
replaced (its files this run does not write removed), a folder holding anything else is refused unless
`overwrite`, and even then only the report's own files (`REPORT_FILES`) are written there, all at once."""
from __future__ import annotations

import csv
import html
import io
import numbers
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..answer.config_entries import temperature_of
from ..answer.inference import infer
from ..answer.length import accuracy_by_length, text_length
from ..errors import AttentiveError
from ..folders.metrics_log import LOG, read_metrics_log
from ..folders.output import OutputKind, claim
from ..util.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text
from ..util.checks import ArgumentError
from . import corpus
from .deletion import deletion_test
from .reliability import panel_title, plot_reliability, reliability

INDEX, SUMMARY = "index.html", "summary.json"
# every file analyze may write; the only names it replaces or removes
REPORT_FILES = frozenset({INDEX, SUMMARY, "top_words.csv", "top_words.png", "word_weights.csv", "word_weights.png",
                          "redundancy.json", "redundancy.png", "entropy.csv", "polarity.csv", "polarity.png",
                          "training_curves.csv", "training_curves.png", "deletion.json", "deletion.csv",
                          "deletion.png", "reliability.png", "reliability.csv", "length.csv", "length.png"})
REPORT = OutputKind(command="analyze", output="an analyze report", files=REPORT_FILES,
                    holds_output=lambda folder: (folder / INDEX).is_file() and (folder / SUMMARY).is_file(),
                    replacing_needs_overwrite=False)


def _figure(rows: int = 1, cols: int = 1, size=(7, 4)):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False)
    return plt, fig, axes


def _save(plt, fig, path: Path) -> None:
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())


def _write_csv(path: Path, rows: list[dict]) -> None:
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())


def plot_top_words(rows: list[dict], labels: list[str], path: Path) -> None:
    plt, fig, axes = _figure(1, len(labels), size=(3.2 * len(labels), 4.5))
    for ax, label in zip(axes[0], labels):
        mine = [r for r in rows if r["class"] == label][::-1]
        ax.barh([r["word"] for r in mine], [r["mean_weight"] for r in mine], color="tab:red")
        ax.set_title(f"class {label}", fontsize=9)
        ax.set_xlabel("mean attention weight", fontsize=8)
        ax.tick_params(labelsize=7)
    _save(plt, fig, path)


def plot_word_densities(found: dict[str, dict[str, list[float]]], path: Path) -> None:
    """LAMA Fig. 2: for each word, the density of its attention weight in texts of each gold label."""
    from scipy.stats import gaussian_kde

    words = list(found)
    labels = sorted({label for by_label in found.values() for label in by_label})
    colour = {label: f"C{i}" for i, label in enumerate(labels)}  # one colour per label in every panel
    plt, fig, axes = _figure(1, max(1, len(words)), size=(3.2 * max(1, len(words)), 3))
    for ax, word in zip(axes[0], words):
        top = max((max(v) for v in found[word].values()), default=1.0)
        grid = np.linspace(0, top * 1.1, 200)
        for label, values in sorted(found[word].items()):
            values = np.asarray(values)
            name = f"{label} (n={len(values)})"
            if len(values) >= 3 and values.std() > 0:
                ax.plot(grid, gaussian_kde(values)(grid), color=colour[label], label=name)
            else:  # too few to estimate a density: mark the mean
                ax.axvline(values.mean(), linestyle=":", color=colour[label], label=name)
        ax.set_title(f'"{word}"', fontsize=9)
        ax.set_xlabel("attention weight", fontsize=8)
        ax.legend(fontsize=7)
    _save(plt, fig, path)


def plot_redundancy(result: dict, path: Path) -> None:
    plt, fig, axes = _figure(size=(4.5, 4))
    image = axes[0][0].imshow(np.asarray(result["mean_gram"]), cmap="viridis")
    axes[0][0].set_title(f"mean A Aᵀ (off-diagonal mean {result['mean_offdiag']:.3f})", fontsize=9)
    axes[0][0].set_xlabel("head")
    axes[0][0].set_ylabel("head")
    fig.colorbar(image)
    _save(plt, fig, path)


def plot_polarity(result: dict, entropy: dict | None, path: Path) -> None:
    plt, fig, axes = _figure(1, 2, size=(10, 4))
    scatter, histogram = axes[0]
    colours = {"neutral": "tab:gray", "rare": "lightgray"}
    for name in sorted({p["class"] for p in result["points"]}):
        chosen = [p for p in result["points"] if p["class"] == name]
        scatter.scatter([p["score"] for p in chosen], [p["margin"] for p in chosen], s=4, alpha=0.5,
                        label=f"{name} words", color=colours.get(name))
    scatter.set_xlabel("attention score (before softmax)")
    scatter.set_ylabel("polarity score margin")
    scatter.legend(fontsize=7, markerscale=3)
    if entropy is not None:
        histogram.hist(entropy["normalised"], bins=30, color="tab:blue")
        histogram.set_title(f"attention entropy / log(length): mean {entropy['mean_normalised_entropy']:.3f}",
                            fontsize=9)
        histogram.set_xlabel("1 = uniform over the words")
    _save(plt, fig, path)


def plot_training_curves(runs: Sequence[Path], path: Path) -> list[dict]:
    """LAMA Fig. 5: training loss and dev accuracy by epoch, one line per run."""
    plt, fig, axes = _figure(1, 2, size=(10, 3.8))
    rows = []
    for run in runs:
        records = read_metrics_log(run)
        rows += [{"run": str(run), "epoch": r["epoch"], "train_loss": r["train_loss"],
                  "dev_accuracy": r["dev_accuracy"]} for r in records]
        epochs = [r["epoch"] for r in records]
        axes[0][0].plot(epochs, [r["train_loss"] for r in records], marker="o", label=run.name)
        axes[0][1].plot(epochs, [r["dev_accuracy"] for r in records], marker="o", label=run.name)
    for ax, title in zip(axes[0], ("training loss", "dev accuracy")):
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("epoch")
        ax.legend(fontsize=7)
    _save(plt, fig, path)
    return rows


def plot_deletion(result: dict, path: Path) -> None:
    plt, fig, axes = _figure(1, 2, size=(10, 3.8))
    for ranking in dict.fromkeys(r["ranking"] for r in result["rows"]):
        mine = [r for r in result["rows"] if r["ranking"] == ranking]
        steps = [r["step"] for r in mine]
        axes[0][0].plot(steps, [r["flip_rate"] for r in mine], marker="o", label=ranking)
        axes[0][1].plot(steps, [r["probability_drop"] for r in mine], marker="o", label=ranking)
    for ax, title in zip(axes[0], ("prediction flip rate", "drop in the predicted class's probability")):
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("words removed (top-ranked)")
        ax.legend(fontsize=7)
    _save(plt, fig, path)


def sample(examples: list, limit: int | None, seed: int = 0) -> list:
    if limit is None or len(examples) <= limit:
        return list(examples)
    chosen = np.random.default_rng(seed).choice(len(examples), limit, replace=False)
    return [examples[i] for i in sorted(chosen)]


def check_compared(runs: Sequence[str | Path]) -> None:
    """Each run whose training curves are to join the plot (`--compare`) is a training run: a model folder holding
    its metrics log, or that log itself; else an AttentiveError naming it, rather than a plot without it."""
    for run in map(Path, runs):
        if not run.exists():
            raise AttentiveError(f"{run}: no such folder to compare (give a training run's folder)")
        if run.is_dir() and not (run / LOG).is_file():
            raise AttentiveError(f"{run}: not a training run to compare (no {LOG}, the log its training curves "
                                 "are read from)")


def analyze_split(model, data, out: str | Path, split: str = "test", limit: int | None = 2000,
                  words: Sequence[str] = (), min_count: int = 5, other_runs: Sequence[str | Path] = (),
                  deletion: bool = True, overwrite: bool = False) -> dict:
    """`analyze` a seeded sample of `limit` texts (None: all; else an integer ≥ 1) of a split of the dataset
    `data`."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 1):
        raise ArgumentError(f"limit={limit!r}: must be an integer ≥ 1, or None for every text")
    check_compared(other_runs)
    examples = data.splits.get(split) or []
    if not examples:
        raise AttentiveError(f"dataset {data.name!r} has no {split!r} examples")
    chosen = sample(examples, limit)
    title = (f"{model.folder.name if model.folder else 'model'} on {data.name}/{split}, {len(chosen)} of "
             f"{len(examples)} texts")
    return analyze(model, model.folder, chosen, Path(out), list(words), min_count, [Path(r) for r in other_runs],
                   deletion, title, overwrite=overwrite)


def analyze(model, run: Path | None, examples: list, out: Path, words: Sequence[str] = (), min_count: int = 5,
            other_runs: Sequence[Path] = (), deletion: bool = True, title: str = "", overwrite: bool = False) -> dict:
    """Write every analysis for `examples` (labelled) under `out`; return the summary also written as summary.json.
    `run` is the model's folder, whose metrics.jsonl gives the training curves (with those of `other_runs`).
    `overwrite`: write into a folder that holds other files (only the report's own are replaced)."""
    check_compared(other_runs)
    with claim(out, REPORT, overwrite=overwrite, inputs=[run, *other_runs]) as folder:
        earlier = REPORT.holds_output(out)
        with folder.scratch() as scratch:
            summary = _write_report(model, run, examples, scratch, words, min_count, other_runs, deletion, title)
            folder.commit_folder(scratch, remove=REPORT_FILES if earlier else ())
    return summary


def _write_report(model, run: Path | None, examples: list, out: Path, words: Sequence[str], min_count: int,
                  other_runs: Sequence[Path], deletion: bool, title: str) -> dict:
    """The report's files, written into the (scratch) folder `out`; the summary."""
    labels = model.labels
    gold = [ex.label for ex in examples]
    aspects = [ex.aspect for ex in examples] if model.uses_aspect else None
    pairs = [ex.text_pair for ex in examples] if model.is_pair else None
    explanations = model.explain([ex.text for ex in examples], pairs, top_k=0, aspects=aspects)
    sections: list[tuple[str, str, list[str], str]] = []  # (title, png, data files, caption)
    summary: dict = {"texts": len(examples), "labels": labels}

    if explanations[0].attention is not None:
        top = corpus.top_words(explanations, gold, labels, min_count)
        _write_csv(out / "top_words.csv", top)
        plot_top_words(top, labels, out / "top_words.png")
        sections.append(("Top attended words per class", "top_words.png", ["top_words.csv"],
                         f"mean attention weight (heads summed) over the word's occurrences in texts of each gold "
                         f"class, words seen at least {min_count} times (LAMA paper Table 4)"))
        chosen = list(words) or list(dict.fromkeys(r["word"] for r in top if r["rank"] <= 2))
        found = corpus.word_weights_by_label(explanations, gold, chosen)
        _write_csv(out / "word_weights.csv", [{"word": w, "label": label, "weight": v}
                                              for w, by_label in found.items()
                                              for label, values in by_label.items() for v in values])
        plot_word_densities(found, out / "word_weights.png")
        sections.append(("Attention weight of chosen words by true label", "word_weights.png", ["word_weights.csv"],
                         "density of each occurrence's weight in texts of each gold label (LAMA paper Fig. 2)"))
        summary["top_words"] = top

    redundancy = corpus.head_redundancy(explanations)
    if redundancy is not None:
        atomic_write_json(out / "redundancy.json", redundancy)
        plot_redundancy(redundancy, out / "redundancy.png")
        sections.append(("Head redundancy", "redundancy.png", ["redundancy.json"],
                         "mean over texts of A Aᵀ; off-diagonal near 0 = heads attend to different words "
                         "(Lin et al. 2017 Fig. 3)"))
        summary["mean_offdiag"] = redundancy["mean_offdiag"]

    entropy = corpus.attention_entropy(explanations)
    polarity = corpus.polarity_points(explanations, labels)
    if entropy is not None:
        summary["mean_normalised_entropy"] = entropy["mean_normalised_entropy"]
        _write_csv(out / "entropy.csv", [{"text": i, "normalised_entropy": round(v, 4)}
                                         for i, v in enumerate(entropy["normalised"])])
    if polarity is not None:
        _write_csv(out / "polarity.csv", [{**p, "score": round(p["score"], 4), "margin": round(p["margin"], 4)}
                                          for p in polarity["points"]])
        plot_polarity(polarity, entropy, out / "polarity.png")
        sections.append(("Polarity score against attention score", "polarity.png",
                         ["polarity.csv"] + (["entropy.csv"] if entropy else []),
                         "each word occurrence; word classes from the model's own mean polarity margin "
                         f"(|margin| > τ = {polarity['tau']:.3f}); right: attention entropy (Sun & Lu 2020)"))

    runs = [r for r in (run, *other_runs) if r is not None]
    if any(read_metrics_log(r) for r in runs):
        _write_csv(out / "training_curves.csv", plot_training_curves(runs, out / "training_curves.png"))
        sections.append(("Training curves", "training_curves.png", ["training_curves.csv"],
                         "training loss and dev accuracy by epoch from each run's metrics.jsonl (LAMA paper Fig. 5)"))

    if not model.config.get("multi_label"):  # label sets: no one answer per text to be right or wrong
        summary["accuracy_by_length"] = _write_length(explanations, examples, out)
        sections.append(("Accuracy by length", "length.png", ["length.csv"],
                         "accuracy of the texts in each quartile of their lengths (whitespace words), and of those "
                         "up to and longer than the mean length (the LAMA paper's YelpL split, §4.1.1)"))

    items = model.encode_examples(examples)
    if not model.config.get("multi_label"):  # label sets: independent sigmoids, no one confidence per text
        summary["calibration"] = _write_reliability(model, items, gold, out)
        sections.append(("Reliability diagram", "reliability.png", ["reliability.csv"],
                         "accuracy against confidence in 15 equal-width bins (count above each bar), before and after "
                         "the temperature in config.json; " + "; ".join(summary["calibration"]["titles"])
                         + " (Guo et al. 2017 Fig. 1)"))

    if deletion and explanations[0].attention is not None:
        result = deletion_test(model.network, items, [e.summed for e in explanations], device=model.device,
                               words=[e.token_spans for e in explanations])
        atomic_write_json(out / "deletion.json", result)
        _write_csv(out / "deletion.csv", result["rows"])
        plot_deletion(result, out / "deletion.png")
        sections.append(("Deletion test", "deletion.png", ["deletion.csv", "deletion.json"], result["verdict"]))
        summary["deletion"] = {"verdict": result["verdict"], "rows": result["rows"]}

    atomic_write_json(out / SUMMARY, summary)
    atomic_write_text(out / INDEX, index_html(title or "attentive analyze", sections, summary))
    return summary


def _write_length(explanations, examples: list, out: Path) -> dict:
    """length.csv and length.png: accuracy by length bucket (attentive.answer.length); the buckets."""
    found = accuracy_by_length([text_length(ex.text) for ex in examples],
                               [e.prediction.label == ex.label for e, ex in zip(explanations, examples)])
    rows = [{"split": split, **row} for split in ("quartiles", "mean") for row in found[split]]
    _write_csv(out / "length.csv", rows)
    plt, fig, axes = _figure(1, 1, size=(7, 3.5))
    ax = axes[0][0]
    bars = ax.bar([row["bucket"] for row in rows], [row["accuracy"] for row in rows],
                  color=["tab:blue" if row["split"] == "quartiles" else "tab:orange" for row in rows])
    for bar, row in zip(bars, rows):
        ax.annotate(f"n={row['texts']}\n{row['min_words']}-{row['max_words']}w",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom", fontsize=7)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("accuracy")
    ax.tick_params(labelsize=7)
    _save(plt, fig, out / "length.png")
    return found


def _write_reliability(model, items: list, gold: Sequence[str], out: Path) -> dict:
    """reliability.png and reliability.csv of the texts' logits (before any temperature) against their `gold`
    labels; what summary.json keeps: the temperature, the ECE before and after it and the panels' titles."""
    logits = infer(model.network, items, device=model.device).logits
    index = {label: i for i, label in enumerate(model.labels)}
    temperature = temperature_of(model.config) if model.config.get("calibration") is not None else None
    panels = reliability(logits, [index.get(label, -1) for label in gold], temperature)
    _write_csv(out / "reliability.csv", [{"panel": p["panel"], "temperature": p["temperature"], **b}
                                         for p in panels for b in p["bins"]])
    plot_reliability(panels, out / "reliability.png", _figure, _save)
    found = {"temperature": temperature, "ece_before": panels[0]["ece"],
             "ece_after": panels[-1]["ece"] if temperature is not None else None,
             "titles": [panel_title(p) for p in panels]}
    return found


def index_html(title: str, sections: list[tuple[str, str, list[str], str]], summary: dict) -> str:
    blocks = []
    for heading, png, files, caption in sections:
        links = " ".join(f'<a href="{html.escape(f)}">{html.escape(f)}</a>' for f in files)
        blocks.append(f"<section><h2>{html.escape(heading)}</h2><p>{html.escape(caption)}</p>"
                      f'<img src="{html.escape(png)}" alt="{html.escape(heading)}"><p>data: {links}</p></section>')
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
            "body{font-family:system-ui,sans-serif;margin:2em;max-width:72em}img{max-width:100%}</style></head>"
            f"<body><h1>{html.escape(title)}</h1><p>{summary['texts']} texts; "
            f'<a href="summary.json">summary.json</a></p>{"".join(blocks)}</body></html>\n')

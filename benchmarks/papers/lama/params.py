"""Parameter efficiency (LAMA paper §3.3.2, Fig. 4): attention-layer parameters against heads for LAMA, SAN and TE,
and every recipe's size, counted on built models.

    python -m benchmarks.papers.lama.params"""
from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch

import attentive
from attentive import available_recipes, load_recipe
from attentive.api import network_for
from benchmarks.harness.common import RESULTS_DIR, commit_at_start, write_result
from benchmarks.harness.formatting import md_head, md_row

VOCAB, CLASSES = 30_000, 2  # an IMDB-sized vocabulary (min frequency 5 gives ~28k words)


def attention_parameters(recipe: str, heads: int) -> int:
    """Parameters of the attention layer of `recipe` built with `heads` heads (hops for SAN)."""
    overrides = {"lama_ctx": [f"pooler.heads={heads}"], "lama": [f"pooler.heads={heads}"],
                 "san": [f"pooler.hops={heads}"], "te": [f"encoder.heads={heads}", f"encoder.d_model={16 * heads}"]}
    model = network_for(load_recipe(recipe, overrides[recipe]), VOCAB, CLASSES)
    if recipe == "te":  # TE's attention layer: the self-attention of its encoder layers (d_model = 16 per head)
        return sum(layer.attention_parameter_count() for layer in model.encoder.layers)
    return model.pooler.attention_parameter_count()


def model_sizes() -> dict:
    """Trainable parameters and safetensors size of every word-level recipe at its defaults."""
    sizes = {}
    for name in available_recipes():
        recipe = load_recipe(name)
        if recipe.encoder.type == "pretrained" or recipe.head.type == "gated_pair":
            continue
        model = network_for(recipe, VOCAB, CLASSES)
        with tempfile.TemporaryDirectory() as tmp:
            from tokenizers import Tokenizer
            from tokenizers.models import WordLevel

            attentive.Model(model, Tokenizer(WordLevel({"[PAD]": 0, "[UNK]": 1}, unk_token="[UNK]")),
                            {"recipe": recipe.as_dict(), "labels": ["a", "b"], "vocab_size": VOCAB}, "cpu",
                            recipe=recipe).save(tmp)
            disk = (Path(tmp) / "model.safetensors").stat().st_size
        total = sum(p.numel() for p in model.parameters())
        embedding = model.embedder.table.weight.numel()
        sizes[name] = {"parameters": total, "without_embeddings": total - embedding, "safetensors_bytes": disk}
    return sizes


def plot(curves: dict[str, list[int]], heads: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, counts in curves.items():
        ax.plot(heads, counts, marker=".", label=name)
    ax.set_xlabel("attention heads (hops for SAN)")
    ax.set_ylabel("attention-layer parameters")
    ax.set_yscale("log")
    ax.set_title("attention-layer parameters vs heads (2d = 200; TE: 16 dims a head)", fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    commit_at_start()
    torch.manual_seed(0)
    heads = list(range(1, 41))
    curves = {name: [attention_parameters(name, m) for m in heads] for name in ("lama", "lama_ctx", "san", "te")}
    plot(curves, heads, RESULTS_DIR / "params_heads.png")
    write_result("params", {"kind": "parameters", "heads": heads, "attention_parameters": curves,
                            "models": model_sizes(), "vocabulary": VOCAB, "plot": "params_heads.png"})
    for name, counts in curves.items():
        print(f"{name}: 1 head {counts[0]:,}  10 heads {counts[9]:,}  40 heads {counts[-1]:,}")
    return 0


def parameters_section(result: dict) -> list[str]:
    """Attention-layer parameters against heads and each recipe's size, from params.json."""
    heads, curves = result["heads"], result["attention_parameters"]
    shown = [m for m in (1, 5, 10, 20, 30, 40) if m in heads]
    lines = ["## Parameter efficiency (LAMA paper §3.3.2, Fig. 4)", "",
             f"Counted on built models (`{result['command']}`, commit `{result['git_commit']}`); "
             f"plot: [benchmarks/results/{result['plot']}](benchmarks/results/{result['plot']}).", "",
             *md_head(["attention layer of", *(f"{m} heads" for m in shown)], "l" + "r" * len(shown))]
    for name, counts in curves.items():
        lines.append(md_row([name, *(f"{counts[heads.index(m)]:,}" for m in shown)]))
    lines += ["", f"Whole models at their recipe defaults, vocabulary {result['vocabulary']:,} words:", "",
              "| recipe | parameters | without the embedding table | model.safetensors |",
              "| --- | ---: | ---: | ---: |"]
    for name, size in result["models"].items():
        lines.append(f"| {name} | {size['parameters']:,} | {size['without_embeddings']:,} | "
                     f"{size['safetensors_bytes'] / 2**20:.1f} MiB |")
    return lines + [""]


if __name__ == "__main__":
    raise SystemExit(main())

"""`attentive train --compact`: from one training file to a deployable model in one command. The recipe's model is
trained as usual into OUT. A compact model (the default: no recurrence, `is_compact`) is exported with int8 weights
into OUT-int8; a model that reads context (`opinion`, the biGRU) is first the teacher of the compact default,
distilled into OUT-student and exported into OUT-student-int8. The export is the folder `attentive serve` and
`attentive predict` run; the trained model and the export are then measured on this machine side by side, so the
user sees what the deployed model gains and loses:

- dev accuracy (the dev split the training chose its epoch on; the export's from its int8 graph, as it is served);
- size: the files a deployment needs (the saved model's config, weights and tokenizer; the export's config, int8
  graph and tokenizer);
- texts/s of `predict` (the label with its top words, what the CLI and the server answer) over the dev texts, and
  the median time of one text's `predict` (p50), both with the threads the command computes with.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..data.example import Dataset
from ..errors import AttentiveError

if TYPE_CHECKING:
    from ..answer.torch_backend import Model
    from ..recipes.types import Recipe

LATENCY_TEXTS = 200  # p50 over the first this many dev texts, one at a time
DEPLOYED = {"saved": ("config.json", "model.safetensors", "tokenizer.json"),
            "exported": ("config.json", "model.int8.onnx", "tokenizer.json")}


@dataclass(frozen=True)
class Measured:
    """One model of the comparison, as `compact_report` prints it."""

    name: str
    folder: Path
    dev_accuracy: float
    size_bytes: int
    texts_per_second: float
    p50_ms: float
    test_accuracy: float | None = None  # where the data has a test split (train --test)


def compact_folders(out: str | Path) -> tuple[Path, Path]:
    """Where `--compact` puts a distilled student and its int8 export, beside OUT."""
    out = Path(out)
    return out.with_name(out.name + "-student"), out.with_name(out.name + "-student-int8")


def is_compact(recipe: Recipe) -> bool:
    """Whether a model of `recipe` is already compact: its words reach the attention without an encoder reading
    their context (`encoder.type` identity, as in the default), so it is exported as it is."""
    return recipe.encoder.type == "identity"


def deployable_folders(out: str | Path, recipe: Recipe) -> list[tuple[Path, str]]:
    """The folders `--compact` writes beside OUT for a model of `recipe`, each with the command that writes it."""
    out = Path(out)
    if is_compact(recipe):
        return [(out.with_name(out.name + "-int8"), "export")]
    student, exported = compact_folders(out)
    return [(student, "distill"), (exported, "export")]


def check_deployable_folders(out: str | Path, recipe: Recipe, overwrite: bool) -> None:
    """Refuse, before training, a folder `--compact` would write that is not its to write (the folder rule,
    attentive/folders/output.py), so that a refusal leaves nothing behind."""
    from ..folders.output import check_claimable
    from ..onnx_format.write import EXPORT
    from . import DISTILL_RUN

    kinds = {"export": EXPORT, "distill": DISTILL_RUN}
    for folder, command in deployable_folders(out, recipe):
        check_claimable(folder, kinds[command], overwrite, [out])


def holds_only_own(out: str | Path, recipe: Recipe, owner) -> bool:
    """Whether each folder `--compact` writes for `out` is missing or holds only files `owner` wrote there (its
    manifest says so, content unchanged): `tune --compact` replaces its own export of the best model without
    --overwrite, as it replaces OUT/best."""
    from ..folders.manifest import foreign_entries
    from ..folders.output import is_hidden

    return all(not folder.is_dir() or not foreign_entries(folder, owner, is_hidden)
               for folder, _ in deployable_folders(out, recipe))


def make_deployable(trained: Model, data: Dataset, overwrite: bool = False, data_dir=None,
                    device: str | None = None, show_progress: bool = True) -> tuple[Path | None, Path]:
    """The int8 export of the `trained` model (saved in OUT) into OUT-int8 when it is compact; else the compact
    default distilled from it (`Distillation`'s defaults) and that student's export, in `compact_folders(OUT)`.
    Returns (the student's folder or None, the export's folder); each folder claimed as `distill` and `export` claim
    theirs."""
    from ..onnx_format.write import export
    from . import distill

    if is_compact(trained.recipe):
        exported = trained.folder.with_name(trained.folder.name + "-int8")
        export(trained, exported, int8=True, overwrite=overwrite)
        return None, exported
    student_folder, export_folder = compact_folders(trained.folder)
    student = distill([trained.folder], data, student_folder, data_dir=data_dir, device=device,
                      show_progress=show_progress, overwrite=overwrite)
    export(student, export_folder, int8=True, overwrite=overwrite)
    return student_folder, export_folder


def measure(name: str, folder: Path, data: Dataset, threads: int | None = None) -> Measured:
    """Dev accuracy (and test accuracy, where the data has a test split), deployed size, `predict` texts/s and p50
    of the model in `folder` (saved or exported)."""
    from ..opening import open_model

    model = open_model(folder, threads)
    files = DEPLOYED["saved"] if (folder / "model.safetensors").is_file() else DEPLOYED["exported"]
    size = sum((folder / file).stat().st_size for file in files)
    texts = [ex.text for ex in data.splits["dev"]]
    if not texts:
        raise AttentiveError(f"{data.name}: no dev texts to measure the models on")
    accuracy = model.evaluate(data, "dev")["accuracy"]
    test = model.evaluate(data, "test")["accuracy"] if data.splits.get("test") else None
    model.predict(texts[:64])  # warm: the first call loads lazily what later calls reuse
    began = time.perf_counter()
    model.predict(texts)
    rate = len(texts) / (time.perf_counter() - began)
    latencies = []
    for text in texts[:LATENCY_TEXTS]:
        began = time.perf_counter()
        model.predict([text])
        latencies.append(time.perf_counter() - began)
    return Measured(name, folder, accuracy, size, rate, 1000 * statistics.median(latencies), test)


def compact_report(measured: list[Measured]) -> list[str]:
    """The side-by-side lines: each model's dev accuracy (and test accuracy, where measured), size, texts/s and p50,
    and the second (the int8 export) against the first (the trained model)."""
    tested = all(model.test_accuracy is not None for model in measured)
    test_header = f" {'test accuracy':>13}" if tested else ""
    lines = [f"{'model':<10} {'dev accuracy':>12}{test_header} {'size':>10} {'texts/s':>10} {'p50':>9}  folder"]
    for model in measured:
        test = f" {model.test_accuracy:>13.4f}" if tested else ""
        lines.append(f"{model.name:<10} {model.dev_accuracy:>12.4f}{test} {model.size_bytes / 1e6:>8.2f} MB "
                     f"{model.texts_per_second:>10,.0f} {model.p50_ms:>6.2f} ms  {model.folder}")
    if len(measured) == 2:
        first, second = measured
        test = f" ({100 * (second.test_accuracy - first.test_accuracy):+.2f} of test)" if tested else ""
        lines.append(f"the {second.name}: {100 * (second.dev_accuracy - first.dev_accuracy):+.2f} points of dev "
                     f"accuracy{test}, {size_ratio(first.size_bytes, second.size_bytes)}, "
                     f"{second.texts_per_second / max(first.texts_per_second, 1e-9):.1f}x the texts/s of the "
                     f"{first.name}")
    return lines


def size_ratio(first: int, second: int) -> str:
    """How the second size compares with the first, said the way it goes: "2.1x smaller", "1.4x larger" or "the same
    size"."""
    first, second = max(first, 1), max(second, 1)
    if round(first / second, 1) == 1.0:
        return "the same size"
    return f"{first / second:.1f}x smaller" if first > second else f"{second / first:.1f}x larger"

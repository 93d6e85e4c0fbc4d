"""Knowledge distillation: a small, recurrence-free student learns from one or several trained teachers.

    student = attentive.distill(["runs/sst2"], "sst2", out="runs/sst2-student")
    attentive distill runs/sst2 --dataset sst2 --out runs/sst2-student [--unlabelled more.jsonl]

The student is trained on transfer texts: the training texts (with their labels), seeded augmentations of them
(attentive/text/augment.py: word deletion, vector-neighbour replacement, n-gram sampling; Tang et al. 2019, §3.2; as
many copies as the student's update budget reads, `affordable_copies`) and any unlabelled in-domain texts, each with the
teachers' averaged probabilities as its soft label. The loss is the hard-label cross-entropy on labelled rows plus
the `SoftTargets` term (attentive/training/terms.py) on every row, so distillation is a loss term of the trainer
and no branch of its loop. The student's epoch is chosen on dev, as any model's. Soft labels are computed once per
content: the cache key is a digest of the teachers' files, the labels and the transfer texts (ATTENTIVE_CACHE,
default ~/.cache/attentive).
"""
from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from ..answer.torch_backend import Model
from ..data.example import Dataset, Example
from ..data.source import DataSource, resolve_dataset
from ..errors import AttentiveError
from ..folders.output import check_claimable
from ..folders.saved import CONFIG, TOKENIZER, WEIGHTS
from ..onnx_format.read import GRAPH, is_exported
from ..recipes.for_data import recipe_for_data
from ..recipes.types import Recipe
from ..text.augment import Augmentation, augment_with_neighbours
from ..text.embeddings import cache_dir
from ..training.pipeline import TRAINING_RUN
from ..training.pipeline import train as train_dataset
from ..training.terms import SoftTargets
from ..util.atomic import atomic_write_bytes
from ..util.run_settings import RunSettings

SOFT_LABELS_VERSION = 1  # bump when the computation of soft labels changes, so that old caches are not reused
# A student's folder is a trained model's, written by `attentive distill`, which has no --resume: a killed
# distillation starts over (its soft labels are cached)
DISTILL_RUN = replace(TRAINING_RUN, command="distill", alternatives="")


@dataclass(frozen=True)
class Distillation:
    """How the student learns: `SoftTargets`' loss (Tang et al.'s logit `mse`, or `kl` at `temperature`) weighted
    by `soft_weight` beside the hard labels' cross-entropy (weight 1), over the transfer texts that `augmentation`
    (seeded by `seed`; 8 copies of each training text) adds to the training texts. How the defaults were chosen:
    benchmarks/DECISIONS.md, "Distillation and the compact student"."""

    temperature: float = 2.0
    soft_weight: float = 1.0
    loss: str = "mse"
    augmentation: Augmentation = field(default_factory=lambda: Augmentation(copies=8))
    seed: int = 0

    def __post_init__(self):
        if self.loss not in ("kl", "mse"):
            raise ValueError(f"the distillation loss is kl or mse, not {self.loss!r}")
        if not self.temperature > 0 or not self.soft_weight >= 0:
            raise ValueError("distillation needs a temperature above 0 and a soft weight of at least 0")


def load_teacher(folder: str | Path):
    """A saved model (PyTorch), an exported one (ONNX Runtime) or a few-label teacher: whatever answers
    `predict_proba` and `labels`; an export's model.onnx, the graph `teacher_digest` reads."""
    from ..fewlabels.teacher import FewLabelTeacher, is_teacher
    from ..opening import open_model

    if is_teacher(folder):  # a few-label teacher (attentive/fewlabels/teacher.py)
        return FewLabelTeacher.load(folder)
    return open_model(folder, int8=False)


def teacher_digest(folder: str | Path) -> str:
    """A digest of what decides a teacher's answers: its weights (or graph), its tokenizer and its config.json (the
    calibration temperature, the length it reads)."""
    from ..fewlabels.teacher import BODY, CARD, HEAD, is_teacher

    folder = Path(folder)
    digest = hashlib.sha256()
    names = (GRAPH if is_exported(folder) else WEIGHTS, TOKENIZER, CONFIG)
    if is_teacher(folder):
        names = (f"{BODY}/model.safetensors", HEAD, CARD)
    for name in names:
        with open(folder / name, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def soft_labels(teachers: Sequence[str | Path], texts: Sequence[str], labels: Sequence[str],
                batch_size: int = 256) -> np.ndarray:
    """The teachers' mean probabilities for `texts` (texts x labels, columns in the order of `labels`), computed
    once per content and then read from the cache; every teacher must know exactly these labels."""
    key = hashlib.sha256(json.dumps([SOFT_LABELS_VERSION, [teacher_digest(t) for t in teachers], list(labels)])
                         .encode("utf-8"))
    for text in texts:
        key.update(text.encode("utf-8", "surrogatepass") + b"\0")
    path = cache_dir() / f"soft-labels-{key.hexdigest()[:24]}.npy"
    if path.exists():
        cached = np.load(path, allow_pickle=False)
        if cached.shape == (len(texts), len(labels)):
            return cached
    total = np.zeros((len(texts), len(labels)), dtype=np.float64)
    for folder in teachers:
        teacher = load_teacher(folder)
        if sorted(teacher.labels) != sorted(labels):
            raise AttentiveError(f"teacher {folder} knows the labels {sorted(teacher.labels)}, the data "
                                 f"{sorted(labels)}: a teacher must be trained on the same labels")
        columns = [teacher.labels.index(label) for label in labels]
        total += teacher.predict_proba(list(texts), batch_size=batch_size)[:, columns]
    probabilities = (total / len(teachers)).astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, probabilities, allow_pickle=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())
    return probabilities


def unlabelled_texts(source: str | Path, data_dir: str | Path | None = None, text_column: str = "text") -> list[str]:
    """The texts of a file as `train` reads it (CSV, TSV or JSONL, their `text_column`, labels ignored; a .txt file
    one text a line), or of a named dataset's train split (e.g. imdb_unsup). A bad row is an error naming it."""
    path = Path(source)
    if not path.exists() and (path.suffix or len(path.parts) > 1):  # a file's name, not a dataset's
        raise AttentiveError(f"{path}: file not found")
    if not path.exists():
        return [ex.text for ex in resolve_dataset(str(source), data_dir).splits["train"]]
    if path.suffix.lower() == ".txt":
        from ..data.readers._common import iter_lines

        texts = [line.strip() for _, line in iter_lines(path, skip_bom=True) if line.strip()]
    else:
        from ..data.readers.generic import read_table

        texts = [ex.text for ex in read_table(path, text_column=text_column, label_column=None).examples]
    if not texts:
        raise AttentiveError(f"{path}: no texts to distil on")
    return texts


def affordable_copies(copies: int, train_size: int, unlabelled: int, budget: int | None) -> int:
    """Augmented copies of each training text, `copies` at most, so that the transfer set (the training texts, their
    copies and the unlabelled texts) holds no more than `budget` texts: the student's `train.max_updates` times its
    `train.batch_size` (None: no cap). A student reads no more texts than that, except that its first epoch is always
    one whole pass, so on large data further copies only cost the teachers' answers and the student's steps past
    its budget (News's 338,000 headlines with 8 copies: 3 million texts, for a budget of 640,000)."""
    if budget is None or train_size == 0:
        return copies
    return max(0, min(copies, (budget - train_size - unlabelled) // train_size))


def transfer_set(data: Dataset, how: Distillation, unlabelled: Sequence[str] = (),
                 budget: int | None = None) -> tuple[Dataset, dict]:
    """`data` with the transfer texts added to train, unlabelled: the augmentations of each training text (in
    order; as many copies as `affordable_copies` allows within `budget`), then `unlabelled`; and the counts of the
    copies made of each text, of what was added and of what was not (a text already there: an augmentation that
    changed nothing, an unlabelled text that is a training text; a blank one)."""
    train = data.splits["train"]
    if any(ex.aspect is not None or ex.text_pair is not None for ex in train):
        raise AttentiveError(f"{data.name}: distillation takes single texts; this data has pairs or aspects")
    texts = [ex.text for ex in train]
    copies = affordable_copies(how.augmentation.copies, len(texts), len(unlabelled), budget)
    augmented = augment_with_neighbours(texts, replace(how.augmentation, copies=copies), how.seed)
    seen, added = set(texts), []
    counts = {"copies": copies, "labelled": len(train), "augmented": 0, "unlabelled": 0, "already_there": 0,
              "blank": 0}
    for kind, text in [*(("augmented", t) for t in augmented), *(("unlabelled", t) for t in unlabelled)]:
        if not text.strip():
            counts["blank"] += 1
        elif text in seen:
            counts["already_there"] += 1
        else:
            seen.add(text)
            added.append(Example(text))
            counts[kind] += 1
    splits = {**data.splits, "train": [*train, *added]}
    return Dataset(data.name, splits, data.labels, data.skipped, data.notes, data.warnings, data.reading), counts


def distill(teachers: Sequence[str | Path] | str | Path, dataset: str | Dataset | DataSource | None = None,
            out: str | Path | None = None, student: str | dict | Recipe = "default", how: Distillation | None = None,
            unlabelled: str | Path | Sequence[str] | None = None, overrides: list[str] | None = None, *,
            settings: RunSettings | None = None, **given) -> Model:
    """Train the `student` recipe (the compact default unless told otherwise; with `overrides` and the recipe's
    keywords, as in `attentive.train`) on `dataset` and its transfer texts with the `teachers`' soft labels (see the
    module docstring); saved to `out` as any model, with what it was distilled from in its config.json.

    The data and the run's settings are given as to `attentive.train`: a dataset name, a `Dataset` or a
    `DataSource`, or its fields as keywords (`train=`, `texts=`, ...); an `attentive.RunSettings` (`data_dir`,
    `device`, `threads`, `overwrite`, `show_progress`), each of its fields also a keyword that wins over it, `out`
    its `out`; every other keyword a setting of the student's recipe. `resume` is one line: a killed distillation
    starts over (its soft labels are cached)."""
    from ..data.keywords import split_keywords

    source, settings, recipe_settings = split_keywords(dataset, settings, given, out=out)
    if settings.resume:
        raise AttentiveError("distill has no resume: a killed distillation starts over (its soft labels are cached)")
    teachers = [teachers] if isinstance(teachers, (str, Path)) else list(teachers)
    if not teachers:
        raise AttentiveError("distill needs at least one teacher model folder")
    how = how or Distillation()
    out = settings.out_path
    if out is not None:  # before any teacher is run: never over a teacher, nor over what the folder holds
        check_claimable(out, DISTILL_RUN, settings.overwrite, teachers)
    if settings.threads is not None:
        from ..util.threads import use_threads

        use_threads(settings.threads, torch_needed=True)
    data = source.load()
    extra = unlabelled_texts(unlabelled, settings.data_dir) if isinstance(unlabelled, (str, Path)) \
        else list(unlabelled or ())
    recipe = recipe_for_data(data, student, overrides, recipe_settings)  # the run's one parse of its recipe
    train = recipe.train
    budget = train.max_updates * train.batch_size if train.max_updates else None
    transfer, counts = transfer_set(data, how, extra, budget)
    texts = [ex.text for ex in transfer.splits["train"]]
    soft = soft_labels(teachers, texts, transfer.labels)
    term = SoftTargets(soft, how.temperature, how.soft_weight, how.loss)
    described = {"distillation": {**asdict(how), "teachers": [str(t) for t in teachers], "transfer": counts}}
    return train_dataset(transfer, recipe, settings, terms=[term], described=described, reads=teachers,
                         kind=DISTILL_RUN)

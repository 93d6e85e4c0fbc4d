"""The few-label teacher: the MiniLM sentence encoder fine-tuned contrastively on pairs of the labelled texts, with a
logistic-regression head on its embeddings — the SetFit method (Tunstall et al. 2022, "Efficient Few-Shot Learning
Without Prompts", §3: contrastive fine-tuning on pairs of same-label and different-label texts, then a classification
head), trained by the `setfit` package itself.

    teacher = train_teacher(texts, labels, "runs/m-teacher", seed=0)
    teacher.predict_proba(["a gorgeous film"])     # texts x teacher.labels

Nothing is chosen on a dev split: with a few dozen labels there is none worth the name. The settings are SetFit's
own defaults (one epoch, 20 pair iterations a text, batches of 16), a fixed rule, and the folder says so.

The folder (`TEACHER`, written by the folder rule of attentive/folders/output.py): `body/`, the fine-tuned encoder
as sentence-transformers saves it (safetensors weights and JSON configs), `head.json` (the logistic regression's
classes, coefficients and intercepts) and `teacher.json` (format, labels, the settings and how they were chosen).
Loading it unpickles nothing: the body is read by sentence-transformers from safetensors, the head from JSON.
"""
from __future__ import annotations

import json
import os
import tempfile
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..errors import AttentiveError
from ..folders.output import OutputKind, claim
from ..util.checks import check_integer

FORMAT = "attentive-teacher-1"
BODY, HEAD, CARD = "body", "head.json", "teacher.json"


def is_teacher(folder: str | Path) -> bool:
    """Whether `folder` holds a few-label teacher."""
    return (Path(folder) / CARD).is_file() and (Path(folder) / HEAD).is_file()


TEACHER = OutputKind(command="train --few-labels", output="a few-label teacher", files=frozenset({HEAD, CARD}),
                     holds_output=is_teacher, folders={BODY: None})


@dataclass(frozen=True)
class TeacherSettings:
    """SetFit's defaults, fixed: no dev split chooses them. `iterations`: pairs made per labelled text (SetFit's
    `num_iterations`); `epochs` and `batch_size` of the contrastive fine-tuning; `seed`."""

    iterations: int = 20
    epochs: int = 1
    batch_size: int = 16
    seed: int = 0

    def __post_init__(self):
        for name in ("iterations", "epochs", "batch_size"):
            check_integer(getattr(self, name), f"teacher.{name}", 1)


class FewLabelTeacher:
    """A trained few-label teacher: `labels`, `predict_proba(texts)`, `embed(texts)`."""

    def __init__(self, body, labels: Sequence[str], coef: np.ndarray, intercept: np.ndarray, card: dict,
                 folder: Path | None = None):
        self.body, self.labels, self.card, self.folder = body, list(labels), card, folder
        self.coef, self.intercept = np.asarray(coef, dtype=np.float64), np.asarray(intercept, dtype=np.float64)

    @classmethod
    def load(cls, folder: str | Path) -> FewLabelTeacher:
        folder = Path(folder)
        try:
            card = json.loads((folder / CARD).read_text(encoding="utf-8"))
            head = json.loads((folder / HEAD).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise AttentiveError(f"{folder}: not a readable few-label teacher ({exc})") from None
        if not isinstance(card, dict) or card.get("format") != FORMAT:
            raise AttentiveError(f"{folder / CARD}: not a few-label teacher of format {FORMAT}")
        labels = card.get("labels")
        coef, intercept = np.asarray(head.get("coef"), dtype=np.float64), np.asarray(head.get("intercept"))
        rows = 1 if len(labels or []) == 2 else len(labels or [])
        if not labels or coef.ndim != 2 or coef.shape[0] != rows or intercept.shape != (rows,):
            raise AttentiveError(f"{folder / HEAD}: its coefficients do not match the labels of {CARD}")
        return cls(_encoder(folder / BODY), labels, coef, intercept.astype(np.float64), card, folder)

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return np.asarray(self.body.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                                           show_progress_bar=False), dtype=np.float64)

    def predict_proba(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """The head's probabilities (texts x `labels`), as scikit-learn's LogisticRegression gives them: a sigmoid
        for two labels, a softmax over the labels' scores for more."""
        scores = self.embed(texts, batch_size) @ self.coef.T + self.intercept
        if len(self.labels) == 2:
            positive = 1.0 / (1.0 + np.exp(-scores[:, 0]))
            return np.stack([1.0 - positive, positive], axis=1)
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return exp / exp.sum(axis=1, keepdims=True)


@contextmanager
def _quiet_libraries():
    """transformers' and setfit's messages below errors, and the weight-loading and data-mapping bars of transformers
    and datasets, held back for the duration: what they say on loading the encoder and starting its head (a load
    report, a head "initialised with random weights" that the training then fits, "Running training", the loss of
    each step) is the expected course of the teacher's training, not news for the user; errors still show."""
    from datasets.utils import logging as datasets_logging
    from setfit import logging as setfit_logging
    from transformers.utils import logging as transformers_logging

    levels = setfit_logging.get_verbosity(), transformers_logging.get_verbosity()
    bars = [library for library in (transformers_logging, datasets_logging) if library.is_progress_bar_enabled()]
    setfit_logging.set_verbosity_error()
    transformers_logging.set_verbosity_error()
    for library in bars:
        library.disable_progress_bar()
    try:
        with warnings.catch_warnings():  # torch's DataLoader on pin_memory without a GPU to pin for
            warnings.filterwarnings("ignore", message=".*pin_memory.*")
            yield
    finally:
        setfit_logging.set_verbosity(levels[0])
        transformers_logging.set_verbosity(levels[1])
        for library in bars:
            library.enable_progress_bar()


def _encoder(folder: Path):
    """The saved encoder, on the GPU where torch sees one (as the teacher trained), else on the CPU."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything is read from local files
    import torch
    from sentence_transformers import SentenceTransformer

    with _quiet_libraries():
        return SentenceTransformer(str(folder), device="cuda" if torch.cuda.is_available() else "cpu")


def train_teacher(texts: Sequence[str], labels: Sequence[str], out: str | Path | None = None,
                  settings: TeacherSettings | None = None, overwrite: bool = False,
                  show_progress: bool = False) -> FewLabelTeacher:
    """Fine-tune the MiniLM package's encoder on pairs of the labelled `texts` and fit the head (the SetFit method,
    by the `setfit` package); saved to `out` (the folder rule applies) when given; with `show_progress`, a bar of
    the fine-tuning's steps."""
    settings = settings or TeacherSettings()
    order = sorted(set(labels))
    if len(order) < 2:
        raise AttentiveError("a few-label teacher needs labelled texts of at least two classes")
    if out is None:
        with tempfile.TemporaryDirectory(prefix="attentive-teacher-") as scratch:
            teacher = _train(texts, labels, order, settings, Path(scratch), show_progress)
            teacher.body = _encoder(Path(scratch) / BODY)  # loaded into memory before the folder goes
            teacher.folder = None
            return teacher
    with claim(Path(out), TEACHER, overwrite=overwrite) as folder:
        with folder.scratch() as scratch:
            teacher = _train(texts, labels, order, settings, scratch, show_progress)
            _commit_body(folder, scratch / BODY)
            folder.commit({HEAD: (scratch / HEAD).read_bytes(), CARD: (scratch / CARD).read_bytes()})
    return FewLabelTeacher.load(out)


def _step_bar(show: bool):
    """A callback of the setfit Trainer that shows the fine-tuning's steps as a bar, with the time left (none
    unless `show`)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from transformers import TrainerCallback

    class StepBar(TrainerCallback):
        def __init__(self):
            self.progress = Progress(TextColumn("[bold]teacher: pairs of labelled texts"), BarColumn(),
                                     MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                                     disable=not show)
            self.task = None

        def on_train_begin(self, args, state, control, **kwargs):
            self.task = self.progress.add_task("steps", total=state.max_steps)
            self.progress.start()

        def on_step_end(self, args, state, control, **kwargs):
            self.progress.update(self.task, completed=state.global_step)

        def on_train_end(self, args, state, control, **kwargs):
            self.progress.stop()

    return StepBar()


def _train(texts, labels, order: list[str], settings: TeacherSettings, scratch: Path,
           show_progress: bool = False) -> FewLabelTeacher:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from datasets import Dataset as Rows
    from setfit import SetFitModel, Trainer, TrainingArguments
    from transformers import PrinterCallback

    from ..models.pretrained import package_dir

    arguments = TrainingArguments(output_dir=str(scratch / "setfit"), batch_size=settings.batch_size,
                                  num_epochs=settings.epochs, num_iterations=settings.iterations, seed=settings.seed,
                                  show_progress_bar=False, save_strategy="no", logging_strategy="no",
                                  report_to="none")
    rows = Rows.from_dict({"text": list(texts), "label": [order.index(label) for label in labels]})
    with _quiet_libraries():
        model = SetFitModel.from_pretrained(str(package_dir()))
        trainer = Trainer(model=model, args=arguments, train_dataset=rows, callbacks=[_step_bar(show_progress)])
        trainer.remove_callback(PrinterCallback)  # it prints each step's loss and the run's figures as dicts
        trainer.train()
        head = model.model_head
        classes = [order[int(c)] for c in head.classes_]
        if classes != order:
            raise AttentiveError("the teacher's head did not learn every class")
        model.model_body.save(str(scratch / BODY))
    (scratch / HEAD).write_text(json.dumps({"coef": head.coef_.tolist(), "intercept": head.intercept_.tolist()}))
    card = {"format": FORMAT, "labels": order, "method": "SetFit (contrastive fine-tuning of MiniLM, then "
            "logistic regression)", "settings": asdict(settings), "labelled_texts": len(texts),
            "chosen_by": "fixed rule: SetFit's default settings; no dev split is used at this size"}
    (scratch / CARD).write_text(json.dumps(card, indent=2) + "\n")
    return FewLabelTeacher(model.model_body, order, head.coef_, head.intercept_, card)


def _commit_body(folder, body: Path) -> None:
    """The encoder's files into OUT/body, each written atomically with body/'s manifest."""
    from ..folders.manifest import with_manifest
    from ..util.atomic import atomic_write_files

    target = folder.path / BODY
    for directory in sorted({path.parent for path in body.rglob("*") if path.is_file()}):
        files = {path.name: path.read_bytes() for path in directory.iterdir() if path.is_file()}
        where = target / directory.relative_to(body)
        atomic_write_files(where, with_manifest(where, files, folder.owner))

"""From a handful of labels and a pool of unlabelled texts to the compact, explainable model (`train --few-labels`).

    result = train_few_labels(data, pool_texts, FewLabelRun(out=Path("runs/m"), compact=True))

1. The few-label teacher (attentive/fewlabels/teacher.py, the SetFit method) is trained on every labelled text (the
   train and dev splits together: at this size a dev split chooses nothing worth choosing) into OUT-teacher.
2. The pool, less blanks and the labelled texts, is shuffled (seeded); a tenth of it (at least 20 texts, at most
   1,000) is labelled by the teacher and becomes the student's dev split, so that the student's epoch and its
   temperature are chosen by agreement with the teacher on texts neither saw in training, never on a handful of human
   labels; the rest are transfer texts, each with two augmented copies (Tang et al. 2019 §3.2: more texts for the
   teacher to answer, as the labelled texts have theirs; benchmarks/DECISIONS.md, "The few-label student from
   augmented pool texts").
3. The compact default is distilled from the teacher (attentive/distill: the teacher's probabilities as soft labels
   on the labelled texts, their augmentations and the pool's transfer texts) into OUT, and with `compact` exported
   with int8 weights into OUT-int8.
The result says how far the student is from its teacher (their agreement on the held-out pool texts) and, where the
data has a test split, both models' test accuracy.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..data.example import Dataset, Example
from ..errors import AttentiveError
from .teacher import TEACHER, TeacherSettings, train_teacher

MIN_POOL = 40  # pool texts needed: half of them at least become transfer texts, 20 the student's dev
HELD_OUT = 0.1
MIN_HELD, MAX_HELD = 20, 1000


@dataclass(frozen=True)
class FewLabelRun:
    """Where and how: `out` (the student; the teacher goes to OUT-teacher, the export to OUT-int8), `overwrite`,
    `compact` (export the student int8), `teacher` (its fixed settings), the `device` and `data_dir` of the student's
    training, `pool_copies` (augmented copies of each transfer text added to the transfer texts, Tang et al. 2019
    §3.2: more texts for the teacher to answer)."""

    out: Path
    overwrite: bool = False
    compact: bool = False
    teacher: TeacherSettings = field(default_factory=TeacherSettings)
    device: str | None = None
    data_dir: str | Path | None = None
    show_progress: bool = True
    pool_copies: int = 2


@dataclass
class FewLabelResult:
    teacher_folder: Path
    student_folder: Path
    exported: Path | None
    agreement: float  # the student's answers equal to the teacher's, on the held-out pool texts
    held_out: int
    transfer: int
    test: dict[str, float] = field(default_factory=dict)  # test accuracy by model, where the data has a test split
    model: object = None


def folders(out: Path, compact: bool) -> dict[str, Path]:
    """The folders a few-label run writes."""
    found = {"teacher": out.with_name(out.name + "-teacher"), "student": out}
    if compact:
        found["exported"] = out.with_name(out.name + "-int8")
    return found


def check_folders(run: FewLabelRun) -> None:
    """Every folder the run writes is refused now, before the teacher trains, if it is not the run's to write."""
    from ..distill import DISTILL_RUN
    from ..folders.output import check_claimable
    from ..onnx_format.write import EXPORT

    kinds = {"teacher": TEACHER, "student": DISTILL_RUN, "exported": EXPORT}
    for role, folder in folders(run.out, run.compact).items():
        check_claimable(folder, kinds[role], run.overwrite)


def split_pool(pool: Sequence[str], labelled: set[str], seed: int) -> tuple[list[str], list[str]]:
    """(held-out texts for the student's dev, transfer texts): the pool's distinct non-blank texts that are not
    labelled ones, shuffled with `seed`."""
    seen, texts = set(labelled), []
    for text in pool:
        if text.strip() and text not in seen:
            seen.add(text)
            texts.append(text)
    if len(texts) < MIN_POOL:
        raise AttentiveError(f"--unlabelled: {len(texts)} usable texts (not blank, not among the labelled ones); a "
                             f"few-label run needs at least {MIN_POOL}, from the same kind of text as the labelled "
                             "ones, to distil the compact model on")
    random.Random(seed).shuffle(texts)
    held = min(max(MIN_HELD, round(HELD_OUT * len(texts))), MAX_HELD)
    return texts[:held], texts[held:]


def train_few_labels(data: Dataset, pool: Sequence[str], run: FewLabelRun) -> FewLabelResult:
    """See the module's docstring."""
    from ..distill import Distillation, distill
    from ..onnx_format.write import export
    from ..text.augment import Augmentation, augment_with_neighbours

    check_folders(run)
    labelled = [ex for split in ("train", "dev") for ex in data.splits.get(split, []) if ex.label is not None]
    if any(ex.aspect is not None or ex.text_pair is not None for ex in labelled):
        raise AttentiveError(f"{data.name}: a few-label run takes single texts; this data has pairs or aspects")
    where = folders(run.out, run.compact)
    teacher = train_teacher([ex.text for ex in labelled], [ex.label for ex in labelled], where["teacher"],
                            run.teacher, run.overwrite, run.show_progress)
    held, transfer = split_pool(pool, {ex.text for ex in labelled}, run.teacher.seed)
    transfer += augment_with_neighbours(transfer, Augmentation(copies=run.pool_copies), run.teacher.seed)
    answered = teacher.predict_proba(held).argmax(axis=1)
    dev = [Example(text, teacher.labels[int(i)]) for text, i in zip(held, answered)]
    test = data.splits.get("test", [])
    student_data = Dataset(data.name, {"train": labelled, "dev": dev, "test": test}, list(teacher.labels),
                           reading=data.reading)  # the student reads files as the labelled ones were read
    student = distill([where["teacher"]], student_data, run.out, "default", Distillation(), transfer,
                      data_dir=run.data_dir, device=run.device, show_progress=run.show_progress,
                      overwrite=run.overwrite)
    exported = export(student, where["exported"], int8=True, overwrite=run.overwrite) if run.compact else None
    scores = {}
    if test:
        gold = [ex.label for ex in test]
        taught = teacher.predict_proba([ex.text for ex in test]).argmax(axis=1)
        scores["teacher"] = sum(teacher.labels[int(i)] == g for i, g in zip(taught, gold)) / len(gold)
        scores["student"] = float(student.evaluate(student_data, "test")["accuracy"])
    return FewLabelResult(where["teacher"], run.out, exported, float(student.config["training"]["dev_accuracy"]),
                          len(held), len(transfer), scores, student)

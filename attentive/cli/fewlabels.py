"""`attentive suggest` and the few-label path of `attentive train` (`--few-labels`): attentive/fewlabels/."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .app import _use_threads, app, console, err
from .options import ModelLabelColumn, ModelTextColumn, Threads


def train_few_labels(data, out: Path, unlabelled: str | None, overwrite: bool, compact: bool, seed: int,
                     iterations: int, device: str, data_dir, text_column: str,
                     in_the_sheet: list[str] | None = None) -> None:
    """`train --few-labels`: the teacher, the compact student distilled from it on the pool (the --unlabelled file,
    else `in_the_sheet`: the texts of the training file's rows without a label), its int8 export with `compact`,
    and what was chosen how."""
    from ..distill import unlabelled_texts
    from ..errors import AttentiveError
    from ..fewlabels import FewLabelRun, TeacherSettings, train_few_labels

    if unlabelled is None and not in_the_sheet:
        raise AttentiveError("--few-labels distils the compact model on your unlabelled texts: give --unlabelled "
                             "FILE (CSV, TSV, JSONL or .txt, the same kind of text as the labelled ones), or leave "
                             "their label empty in the training file")
    if unlabelled is None:
        pool = in_the_sheet
        console.print(f"{data.name}: its {len(pool)} rows without a label are the unlabelled texts", markup=False,
                      soft_wrap=True)
    else:
        pool = unlabelled_texts(unlabelled, data_dir, text_column)
    run = FewLabelRun(Path(out), overwrite=overwrite, compact=compact,
                      teacher=TeacherSettings(iterations=iterations, seed=seed), device=device, data_dir=data_dir)
    console.print(f"few labels: the teacher (SetFit over MiniLM, its default settings: a fixed rule, no dev split) "
                  f"on {sum(len(data.splits.get(s, [])) for s in ('train', 'dev'))} labelled texts, then the compact "
                  f"default distilled from it on {len(pool)} unlabelled texts", soft_wrap=True)
    result = train_few_labels(data, pool, run)
    console.print(f"teacher: {result.teacher_folder}", markup=False, soft_wrap=True)
    console.print(f"student: {result.student_folder}; it answers as its teacher on {100 * result.agreement:.1f}% of "
                  f"{result.held_out} held-out unlabelled texts (its dev split, labelled by the teacher: the epoch "
                  f"and temperature were chosen on it); {result.transfer} texts distilled on", markup=False,
                  soft_wrap=True)
    if result.test:
        said = ", ".join(f"{name} {100 * value:.2f}" for name, value in result.test.items())
        console.print(f"test accuracy: {said}", markup=False, soft_wrap=True)
    if result.exported is not None:
        console.print(f"deploy {result.exported}: attentive serve {result.exported}", markup=False, soft_wrap=True)


@app.command()
def suggest(
    run: Optional[Path] = typer.Argument(None, help="a model (saved, exported, or a few-label teacher) to ask; "
                                                   "none with --random, for the first texts to label"),
    unlabelled: Path = typer.Option(..., "--unlabelled", help="the texts to choose from: CSV, TSV, JSONL or .txt"),
    n: int = typer.Option(50, "--n", min=1, help="how many texts to suggest"),
    random: bool = typer.Option(False, "--random", help="draw the texts at random (seeded), as is better while the "
                                                        "model has learned from a few dozen labels"),
    seed: int = typer.Option(0, "--seed", help="with --random: the draw's seed"),
    output: Path = typer.Option(..., "--output", help="where to write them, in the pool's own format"),
    text_column: Optional[str] = ModelTextColumn,
    label_column: Optional[str] = ModelLabelColumn,
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the --output file"),
    threads: Optional[int] = Threads,
):
    """Write the unlabelled texts whose labels would help the model most (the least certain, kept diverse), with its
    guess and the words pulling each way, ready to label in a spreadsheet (an empty --label-column to fill in) and
    add to the training file. With --random, texts drawn at random instead: the better first texts to label (with
    no model, the very first)."""
    from ..data.reading import reading_for
    from ..errors import AttentiveError
    from ..fewlabels.suggest import rank_for_labelling, read_pool, sample_for_labelling, suggestions_file
    from ..fewlabels.teacher import FewLabelTeacher, is_teacher
    from ..folders.output_file import claim_file
    from ..opening import open_model
    from ..util.atomic import atomic_write_bytes

    _use_threads(threads)
    if run is None and not random:
        raise AttentiveError("suggest: give a model to ask (RUN), or --random to draw the first texts to label")
    target = claim_file(output, option="--output", overwrite=overwrite, inputs=[unlabelled], models=[run])
    model = None if run is None else FewLabelTeacher.load(run) if is_teacher(run) else open_model(run, threads)
    reading = reading_for(getattr(model, "config", {}), text_column=text_column, label_column=label_column)
    text_column, label_column = reading["text_column"], reading["label_column"] or "label"
    pool = read_pool(unlabelled, text_column, label_column)
    for left_out, why in ((pool.blank, "with no text"), (pool.labelled, f"with a {label_column!r} already")):
        if left_out:
            lines = ", ".join(map(str, left_out[:10])) + (" ..." if len(left_out) > 10 else "")
            err.print(f"{unlabelled}: {len(left_out)} rows {why} left out (line {lines})", markup=False,
                      soft_wrap=True)
    if not pool.texts:
        raise AttentiveError(f"{unlabelled}: no row left to label (each has a {label_column!r} or no text)")
    chosen = sample_for_labelling(model, pool.texts, n, seed) if random else rank_for_labelling(model, pool.texts, n)
    atomic_write_bytes(target, suggestions_file(pool, chosen, label_column))
    how = f"drawn at random (seed {seed})" if random else "least certain first"
    console.print(f"{len(chosen)} of {len(pool.texts)} texts to label next, {how}, written to {target}"
                  f" (fill in its {label_column!r} column)", markup=False, soft_wrap=True)

"""`attentive abstain`: choose (on dev) or set the threshold below which a model answers "none of these", kept in
its folder's config.json (attentive/answer/abstain.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import AttentiveError
from .app import _load_any, app, console
from .options import Threads


def _in_scope(model, dev_file: Path | None) -> tuple[list, list, str]:
    """The in-scope dev texts, their labels and where they come from: --in-scope-dev FILE, else the dev split of the
    dataset the model was trained on."""
    from ..data.readers import read_table
    from ..data.registry import DATASETS, load_dataset

    if dev_file is not None:
        examples = read_table(dev_file).examples
        return [ex.text for ex in examples], [ex.label for ex in examples], str(dev_file)
    name = model.config.get("dataset")
    if name not in DATASETS:
        raise AttentiveError("the model was not trained on a named dataset: give its in-scope dev texts with their "
                             "labels, --in-scope-dev FILE")
    examples = load_dataset(name).splits["dev"]
    return [ex.text for ex in examples], [ex.label for ex in examples], f"{name}/dev"


def _out_of_scope(oos_file: Path | None, oos_dataset: str | None) -> tuple[list, str]:
    """The out-of-scope dev texts (any labels they have are not read) and where they come from."""
    from ..data.readers import read_table
    from ..data.registry import load_dataset

    if (oos_file is None) == (oos_dataset is None):
        raise AttentiveError("--recall chooses the threshold on out-of-scope dev texts: give --oos-dev FILE or "
                             "--oos-dataset NAME (its dev split, e.g. clinc150_oos), one of them")
    if oos_file is not None:
        return [ex.text for ex in read_table(oos_file, label_column=None).examples], str(oos_file)
    return [ex.text for ex in load_dataset(oos_dataset).splits["dev"]], f"{oos_dataset}/dev"


@app.command()
def abstain(
    run: Path = typer.Argument(..., help="a saved or exported model folder (one label per text)"),
    recall: Optional[float] = typer.Option(None, "--recall", min=0.0, max=1.0,
                                           help="choose the threshold on dev: the lowest that refuses this share of "
                                                "the out-of-scope dev texts"),
    below: Optional[float] = typer.Option(None, "--below", min=0.0, max=1.0,
                                          help="set the threshold as given, chosen on nothing (0: never abstain)"),
    oos_dev: Optional[Path] = typer.Option(None, "--oos-dev", help="out-of-scope dev texts (CSV/TSV/JSONL, a "
                                                                   "'text' column)"),
    oos_dataset: Optional[str] = typer.Option(None, "--oos-dataset", help="a named dataset of out-of-scope texts, "
                                                                          "its dev split (e.g. clinc150_oos)"),
    in_scope_dev: Optional[Path] = typer.Option(None, "--in-scope-dev", help="in-scope dev texts with their labels "
                                                "(CSV/TSV/JSONL, 'text' and 'label' columns; default: the dev split of "
                                                "the dataset the model was trained on, from $ATTENTIVE_DATA or "
                                                "../shared/data)"),
    threads: Optional[int] = Threads,
):
    """Choose on dev (--recall) or set (--below) the threshold under which predict answers "none of these", and keep
    it in RUN's config.json: predict, the server and an export made after use it by default."""
    from ..answer.abstain import choose
    from ..answer.abstain_entry import save_abstain

    if (recall is None) == (below is None):
        raise AttentiveError("give --recall R (choose the threshold on dev) or --below P (set it), one of them")
    model = _load_any(run, threads)
    if model.thresholds is not None:
        raise AttentiveError(f"{run} is a multi-label model: its answers may hold no label already (its thresholds); "
                             "abstaining is for models that answer one label per text")
    if below is not None:
        save_abstain(run, {"below": below, "chosen_on": None})
        console.print(f"abstain below {below:g} (set by hand); written {run / 'config.json'}")
        return
    out_of_scope, oos_source = _out_of_scope(oos_dev, oos_dataset)
    texts, labels, source = _in_scope(model, in_scope_dev)
    record = choose(model, texts, labels, out_of_scope, recall)
    record["chosen_on"].update(in_scope=source, out_of_scope=oos_source)
    save_abstain(run, record)
    on = record["chosen_on"]
    console.print(f"abstain below {record['below']:.4f}: on dev, in-scope accuracy {on['in_scope_accuracy']:.4f} "
                  f"({100 * on['in_scope_refused']:.1f}% of {on['n_in_scope']} in-scope texts refused), out-of-scope "
                  f"recall {on['out_of_scope_recall']:.4f} of {on['n_out_of_scope']} (target {recall:g}); written "
                  f"{run / 'config.json'}", highlight=False, soft_wrap=True)
